"""Las fotos de muestra de sklearn (china.jpg y flower.jpg), leídas con Pillow sin importar sklearn.

Aquí y no en `modelos.datos`: decodificar un JPEG es de la interfaz (modelos no importa Pillow);
el archivo lo encuentra `modelos.datos.archivo_de_sklearn`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch
from PIL import Image
from torch import Tensor

from modelos.datos import archivo_de_sklearn

IMAGENES_MUESTRA = ("china.jpg", "flower.jpg")


@lru_cache(maxsize=len(IMAGENES_MUESTRA))
def _imagen_muestra(nombre: str) -> np.ndarray:
    with Image.open(archivo_de_sklearn("datasets", "images", nombre)) as imagen:  # como `load_sample_image`
        foto = np.array(imagen)
    foto.setflags(write=False)
    return foto


def imagen_muestra(nombre: str) -> np.ndarray:
    """Foto de muestra de sklearn (`china.jpg` o `flower.jpg`): (427, 640, 3) uint8, solo lectura."""
    if nombre not in IMAGENES_MUESTRA:
        raise ValueError(f"Imagen desconocida «{nombre}»; las de muestra son {', '.join(IMAGENES_MUESTRA)}.")
    return _imagen_muestra(nombre)


def recorte_leccion() -> Tensor:
    """El recorte de la lección: china.jpg[::4, ::4][:96, :160] como (3, 96, 160) de 0 a 1."""
    foto = imagen_muestra("china.jpg")[::4, ::4][:96, :160]
    return torch.tensor(foto).permute(2, 0, 1) / 255  # (3, 96, 160)
