"""La pestaña «Memoria O(L²)».

- `pestana.py`: cuánto ocupa la matriz de atención según el largo (la cuenta), y `construir()`;
- `medida.py`: la medición en vivo de tiempo y memoria (en la GPU de ZeroGPU, con `@gpu`).
  No necesita gradio: `scripts/gpu_smoke.py` la importa en una máquina sin él.
"""
