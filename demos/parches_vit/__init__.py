"""La pestaña «Parches ViT».

- `pestana.py`: cortar una imagen en parches y proyectarlos, y `construir()`;
- `parches.py`: las imágenes de ejemplo, el corte y la proyección de los parches;
- `vit_digito.py`: la sección del ViT diminuto que lee un dígito (su atención y el rollout).
"""
