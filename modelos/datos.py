"""Datos de la lección: secuencias de dígitos y los dígitos de sklearn (las fotos de muestra: demos/comun/fotos.py).

El preprocesado de los dígitos (escala y tamaño) vive solo aquí: el
entrenamiento, las pruebas y las pestañas lo comparten.
"""

from __future__ import annotations

import gzip
import importlib.util
import math
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

LARGO, DIGITOS = 8, 10
LADO_DIGITO = 8  # los dígitos de sklearn son de 8 × 8
MAXIMO_DIGITO = 16.0  # y sus píxeles van de 0 a 16


def secuencias_digitos(n: int, semilla: int = 0, largo: int = LARGO) -> tuple[Tensor, Tensor]:
    """n secuencias al azar (n, largo) y su inversión (n, largo), reproducibles por semilla."""
    g = torch.Generator().manual_seed(semilla)
    X = torch.randint(0, DIGITOS, (n, largo), generator=g)
    return X, X.flip(dims=[1])


def normalizar_digitos(X: np.ndarray | Tensor) -> Tensor:
    """Píxeles de 0 a 16, (N, 64) o (N, 8, 8) -> tensor (N, 1, 8, 8) de 0 a 1."""
    X = torch.as_tensor(np.asarray(X), dtype=torch.float32)
    return (X.reshape(-1, 1, LADO_DIGITO, LADO_DIGITO) / MAXIMO_DIGITO).clamp(0, 1)


def archivo_de_sklearn(*partes: str) -> Path:
    """Un archivo de datos que trae scikit-learn instalado, sin importarlo.

    Importar `sklearn.datasets` le sumaba al servidor ≈ 85 MB de memoria residente solo para leer
    un CSV y dos JPEG; `find_spec` de un paquete de primer nivel no lo ejecuta.
    """
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("Falta scikit-learn: trae los dígitos y las fotos de muestra.")
    return Path(next(iter(spec.submodule_search_locations)), *partes)


def _moda_aproximada(cuentas: np.ndarray, n: int, azar: np.random.RandomState) -> np.ndarray:
    """Cuántos de cada clase toca sacar si se sacan `n`: los pisos y, por el resto más grande, uno más.

    Los empates en el resto se rompen al azar, como `sklearn.utils.extmath._approximate_mode`.
    """
    continuo = cuentas / cuentas.sum() * n
    piso = np.floor(continuo)
    faltan = int(n - piso.sum())
    resto = continuo - piso
    for valor in np.sort(np.unique(resto))[::-1]:
        if faltan <= 0:
            break
        (cuales,) = np.where(resto == valor)
        ahora = min(len(cuales), faltan)
        piso[azar.choice(cuales, size=ahora, replace=False)] += 1
        faltan -= ahora
    return piso.astype(int)


def particion_estratificada(y: np.ndarray, prueba: float, semilla: int) -> tuple[np.ndarray, np.ndarray]:
    """(índices de entrenamiento, índices de prueba): la partición de `StratifiedShuffleSplit`, sin sklearn.

    La de `train_test_split(test_size=prueba, random_state=semilla, stratify=y)`, con los mismos
    sorteos del mismo `RandomState` en el mismo orden (tests/test_modelos.py compara los índices).
    """
    n_prueba = math.ceil(prueba * len(y))
    clases, cual, cuentas = np.unique(y, return_inverse=True, return_counts=True)
    por_clase = np.split(np.argsort(cual, kind="stable"), np.cumsum(cuentas)[:-1])
    azar = np.random.RandomState(semilla)
    n_ent = _moda_aproximada(cuentas, len(y) - n_prueba, azar)
    n_pru = _moda_aproximada(cuentas - n_ent, n_prueba, azar)
    ent, pru = [], []
    for i in range(len(clases)):
        orden = por_clase[i].take(azar.permutation(cuentas[i]), mode="clip")
        ent.extend(orden[: n_ent[i]])
        pru.extend(orden[n_ent[i] : n_ent[i] + n_pru[i]])
    return azar.permutation(ent), azar.permutation(pru)


@lru_cache(maxsize=1)
def _digitos_sklearn() -> tuple[Tensor, Tensor, Tensor, Tensor]:
    with gzip.open(archivo_de_sklearn("datasets", "data", "digits.csv.gz"), mode="rt", encoding="utf-8") as f:
        datos = np.loadtxt(f, delimiter=",")  # como `load_digits`: 64 píxeles y la etiqueta por fila
    X, y = datos[:, :-1], datos[:, -1].astype(int)
    ent, prueba = particion_estratificada(y, 0.25, 0)
    return (
        normalizar_digitos(X[ent]),
        normalizar_digitos(X[prueba]),
        torch.as_tensor(y[ent], dtype=torch.long),
        torch.as_tensor(y[prueba], dtype=torch.long),
    )


def digitos_sklearn() -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(X_ent (1347, 1, 8, 8), X_prueba (450, 1, 8, 8), y_ent, y_prueba), X de 0 a 1.

    `load_digits()` partido como `train_test_split(test_size=0.25, random_state=0, stratify=y)`,
    leídos y partidos aquí sin importar sklearn (`particion_estratificada`).
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
