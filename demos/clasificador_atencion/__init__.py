"""La pestaña «Clasificador con atención».

- `pestana.py`: leer una frase con el clasificador de opiniones, quitar una palabra, y `construir()`;
- `dibujos.py`: las figuras (pesos de la agrupación y atención de cada cabeza).
"""
