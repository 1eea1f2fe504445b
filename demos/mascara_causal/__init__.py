"""La pestaña «Máscara causal».

- `pestana.py`: de los puntajes Q·Kᵀ/√d a los pesos, con casillas tapadas como −∞ (causal, relleno,
  ventana), y `construir()`;
- `convenciones.py`: la sección «Convenciones de máscaras»: True contra 1, y la fila toda tapada.
"""
