"""La pestaña «Bloque transformer».

- `pestana.py`: la vista, lo que se predice y se comprueba, y `construir()`;
- `parametros.py`: el bloque de la lección, su diagrama y sus parámetros, contados y comparados con PyTorch;
- `atajos.py`: la pila de N bloques con y sin atajos residuales, y su LayerNorm final.
"""
