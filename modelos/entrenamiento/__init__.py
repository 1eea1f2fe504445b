"""Entrenar, describir y publicar los checkpoints incluidos; usa `modelos`, que no sabe de esto.

    python -m modelos.entrenamiento NOMBRE      entrena con su receta y escribe checkpoints/NOMBRE/
    python -m modelos.entrenamiento.publicar    sube las copias incluidas al Hub

- `inversion.py`: el bucle de inversión de dígitos (también el de la pestaña «entrénalo tú»), la
  exactitud y las instantáneas de inversion-digitos.
- `imagenes.py`: el bucle de las redes de imágenes (ViT, CBAM).
- `opiniones.py`: entrenar y medir el clasificador de opiniones.
- `recetas.py`: la receta de cada checkpoint y el bucle de la lección, como vara de medir.
- `tarjetas.py` y `tarjeta_opiniones.py`: la tarjeta (README.md) de cada checkpoint.
- `__main__.py`: la línea de comandos; `publicar.py`: la subida al Hub.

Este `__init__` no importa nada: la pestaña que importa `inversion` no carga las recetas.
"""
