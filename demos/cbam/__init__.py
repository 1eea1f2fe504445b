"""La pestaña «CBAM en imagen».

- `pestana.py`: qué canales y qué posiciones pesa la red `cbam-digitos` al mirar un dígito, y `construir()`;
- `foto.py`: la sección de la rama espacial sobre una foto.
"""
