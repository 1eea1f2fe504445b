"""Datos de la lección: secuencias de dígitos, los dígitos de sklearn y las fotos de muestra.

El preprocesado de los dígitos (escala y tamaño) vive solo aquí: el
entrenamiento, las pruebas y las pestañas lo comparten.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch
from torch import Tensor

LARGO, DIGITOS = 8, 10
LADO_DIGITO = 8  # los dígitos de sklearn son de 8 × 8
MAXIMO_DIGITO = 16.0  # y sus píxeles van de 0 a 16
IMAGENES_MUESTRA = ("china.jpg", "flower.jpg")


def secuencias_digitos(n: int, semilla: int = 0, largo: int = LARGO) -> tuple[Tensor, Tensor]:
    """n secuencias al azar (n, largo) y su inversión (n, largo), reproducibles por semilla."""
    g = torch.Generator().manual_seed(semilla)
    X = torch.randint(0, DIGITOS, (n, largo), generator=g)
    return X, X.flip(dims=[1])


def normalizar_digitos(X: np.ndarray | Tensor) -> Tensor:
    """Píxeles de 0 a 16, (N, 64) o (N, 8, 8) -> tensor (N, 1, 8, 8) de 0 a 1."""
    X = torch.as_tensor(np.asarray(X), dtype=torch.float32)
    return (X.reshape(-1, 1, LADO_DIGITO, LADO_DIGITO) / MAXIMO_DIGITO).clamp(0, 1)


@lru_cache(maxsize=1)
def _digitos_sklearn() -> tuple[Tensor, Tensor, Tensor, Tensor]:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    d = load_digits()
    X_ent, X_prueba, y_ent, y_prueba = train_test_split(
        d.data, d.target, test_size=0.25, random_state=0, stratify=d.target
    )
    return (
        normalizar_digitos(X_ent),
        normalizar_digitos(X_prueba),
        torch.as_tensor(y_ent, dtype=torch.long),
        torch.as_tensor(y_prueba, dtype=torch.long),
    )


def digitos_sklearn() -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(X_ent (1347, 1, 8, 8), X_prueba (450, 1, 8, 8), y_ent, y_prueba), X de 0 a 1.

    `train_test_split(test_size=0.25, random_state=0, stratify=y)` sobre `load_digits()`.
    Se calcula una vez por proceso; se devuelven copias para que nadie altere la caché.
    """
    return tuple(t.clone() for t in _digitos_sklearn())  # type: ignore[return-value]


def digito_desde_matriz(tinta: np.ndarray) -> Tensor:
    """Un dibujo (H, W) con tinta de 0 (fondo) a 1 (trazo) -> (1, 1, 8, 8) como los de sklearn.

    Como en la preparación original de los dígitos (NIST): se recorta la caja
    del trazo, se centra en un cuadrado que llena 32 × 32 y se cuenta la tinta
    en bloques de 4 × 4. Un dibujo vacío da ValueError.
    """
    m = torch.as_tensor(np.asarray(tinta, dtype=np.float32))
    if m.dim() != 2 or min(m.shape) < 1:
        raise ValueError("El dibujo debe ser una imagen en escala de grises (alto × ancho).")
    m = m.nan_to_num(0.0).clamp(0, 1)
    filas, columnas = torch.nonzero(m > 0.1, as_tuple=True)
    if len(filas) == 0:
        raise ValueError("El dibujo está vacío: traza un dígito con el pincel.")
    m = m[filas.min() : filas.max() + 1, columnas.min() : columnas.max() + 1]
    h, w = m.shape
    lado = max(h, w)
    cuadro = m.new_zeros(lado, lado)  # centrar en un cuadrado sin deformar
    cuadro[(lado - h) // 2 : (lado - h) // 2 + h, (lado - w) // 2 : (lado - w) // 2 + w] = m
    lienzo = torch.nn.functional.interpolate(cuadro[None, None], size=(32, 32), mode="area")  # (1, 1, 32, 32)
    return torch.nn.functional.avg_pool2d(lienzo, 4).clamp(0, 1)  # (1, 1, 8, 8)


@lru_cache(maxsize=len(IMAGENES_MUESTRA))
def _imagen_muestra(nombre: str) -> np.ndarray:
    from sklearn.datasets import load_sample_image

    foto = load_sample_image(nombre)
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
