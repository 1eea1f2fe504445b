"""Máscaras de atención dispersa: qué casillas de la matriz L × L se calculan.

Convención de la lección: la máscara es True donde NO se puede mirar (`masked_fill(mascara, -inf)`).

    ventana causal:   i mira a j si i − w ≤ j ≤ i              (w anteriores y ella misma)
    ventana centrada: i mira a j si |i − j| ≤ w / 2             (Longformer: w = 512, 256 a cada lado)
    globales:         las g primeras fichas miran a todas y todas las miran a ellas
    aleatoria:        cada bloque de filas mira a r bloques de columnas al azar
    BigBird:          ventana centrada ∪ globales ∪ aleatoria, por bloques

Beltagy et al., «Longformer», 2020 (https://arxiv.org/abs/2004.05150);
Zaheer et al., «Big Bird», 2020 (https://arxiv.org/abs/2007.14062).
"""

from __future__ import annotations

import torch
from torch import Tensor

LARGO_MAX = 4096  # lado máximo de una máscara que se arma entera (16 M casillas booleanas)


def _largo(L: int) -> int:
    if not isinstance(L, int) or not 1 <= L <= LARGO_MAX:
        raise ValueError(f"El largo L debe ser un entero entre 1 y {LARGO_MAX}; llegó {L!r:.20}.")
    return L


def _distancias(L: int) -> Tensor:
    """(L, L): j − i, la columna menos la fila."""
    i = torch.arange(_largo(L), dtype=torch.int32)  # int32: con L = 4 096, 64 MB en vez de 128
    return i[None, :] - i[:, None]


def ventana(L: int, w: int, centrada: bool = False) -> Tensor:
    """(L, L) True fuera de la ventana. Causal: las w anteriores y ella misma; centrada: w // 2 a cada lado."""
    if w < 0:
        raise ValueError(f"La ventana w no puede ser negativa; llegó {w}.")
    dj = _distancias(L)
    if centrada:
        return dj.abs() > w // 2
    return (dj > 0) | (dj < -w)


def globales(L: int, g: int) -> Tensor:
    """(L, L) True salvo en las filas y columnas de las g primeras fichas (las globales, como [CLS])."""
    mascara = torch.ones(_largo(L), L, dtype=torch.bool)
    mascara[:g, :] = False  # las globales miran a todas
    mascara[:, :g] = False  # todas miran a las globales
    return mascara


def aleatoria(L: int, bloque: int, r: int, semilla: int = 0) -> Tensor:
    """(L, L) True salvo en r bloques de columnas al azar por cada bloque de filas (de un generador propio)."""
    elegidos = _elegidos(L, bloque, r, semilla)
    # (bloques, bloques) -> (L, L): cada bloque elegido abre sus bloque × bloque casillas
    abiertas = elegidos.repeat_interleave(bloque, 0).repeat_interleave(bloque, 1)[:L, :L]
    return ~abiertas


def _elegidos(L: int, bloque: int, r: int, semilla: int) -> Tensor:
    """(bloques, bloques) True en los r bloques de columnas al azar de cada bloque de filas."""
    if bloque < 1 or r < 0:
        raise ValueError("El bloque debe ser ≥ 1 y r ≥ 0.")
    bloques = -(-_largo(L) // bloque)
    g = torch.Generator().manual_seed(semilla)
    elegidos = torch.zeros(bloques, bloques, dtype=torch.bool)
    for fila in range(bloques):
        elegidos[fila, torch.randperm(bloques, generator=g)[: min(r, bloques)]] = True
    return elegidos


def bigbird(L: int, w: int, g: int, bloque: int, r: int, semilla: int = 0) -> Tensor:
    """(L, L): se mira si lo deja la ventana centrada, las globales o los bloques al azar."""
    return ventana(L, w, centrada=True) & globales(L, g) & aleatoria(L, bloque, r, semilla)


def casillas_bigbird(L: int, w: int, g: int, bloque: int, r: int, semilla: int = 0) -> int:
    """Las casillas que calcula `bigbird(L, w, g, bloque, r, semilla)`, sin armar la matriz (L, L).

    Por fila, la unión de tres conjuntos de columnas: la ventana [a, b], las globales [0, g) y los
    bloques elegidos B; |W ∪ G ∪ B| = |W| + |G| + |B| − |W∩G| − |W∩B| − |G∩B| + |W∩G∩B|. Una fila
    global (i < g) las mira todas. Con L = 2 048, sumas acumuladas por bloque de filas (32 × 2 048).
    """
    if w < 0:
        raise ValueError(f"La ventana w no puede ser negativa; llegó {w}.")
    elegidos = _elegidos(L, bloque, r, semilla)  # (bloques, bloques)
    # (bloques, L + 1): cuántas columnas elegidas hay antes de cada columna, por bloque de filas
    abiertas = elegidos.repeat_interleave(bloque, 1)[:, :L].to(torch.int32)
    antes = torch.nn.functional.pad(abiertas.cumsum(dim=1, dtype=torch.int32), (1, 0))
    i = torch.arange(L)
    suyo = i // bloque  # (L,): el bloque de filas de cada ficha
    a, b = (i - w // 2).clamp(min=0), (i + w // 2).clamp(max=L - 1)  # (L,): la ventana de cada fila

    def en_bloques(x0: Tensor, x1: Tensor) -> Tensor:
        """(L,): cuántas columnas de [x0, x1] de cada fila caen en sus bloques elegidos (0 si x1 < x0)."""
        x1 = torch.maximum(x1, x0 - 1)
        return antes[suyo, x1 + 1] - antes[suyo, x0]

    cero, ultima_global = torch.zeros_like(i), torch.full_like(i, g - 1)
    ventana_y_globales = torch.minimum(b, ultima_global)
    fila = (
        (b - a + 1)
        + g
        + en_bloques(cero, torch.full_like(i, L - 1))
        - (ventana_y_globales - a + 1).clamp(min=0)
        - en_bloques(a, b)
        - en_bloques(cero, ultima_global)
        + en_bloques(a, ventana_y_globales)
    )
    return int(torch.where(i < g, L, fila).sum())


def por_fila(mascara: Tensor) -> Tensor:
    """(L,): cuántas casillas calcula cada fila (las no tapadas)."""
    return (~mascara).sum(dim=-1)
