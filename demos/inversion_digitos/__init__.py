"""La pestaña «Inversión de dígitos».

- `pestana.py`: la predicción de un modelo y su mapa de atención, y `construir()`;
- `modelo.py`: leer los dígitos, elegir el modelo, predecir (lo usan la pestaña y `entrenar.py`);
- `entrenar.py`: «Mira cómo aprende» (instantáneas) y «Entrénalo tú» (entrenamiento en vivo);
- `fallos.py`: el laboratorio de fallos (§7.2) y la comparación de 1, 2, 4 y 8 cabezas (§7.1);
- `dibujos.py`: las figuras y la tabla de la predicción.
"""
