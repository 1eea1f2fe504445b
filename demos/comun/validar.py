"""Validación común de las funciones de cálculo: lo que llega por el API no pasó por los controles."""

from __future__ import annotations

import math


def entero(x, nombre: str, lo: int, hi: int) -> int:
    """`x` como entero en [lo, hi], o ValueError en español que dice qué se acepta.

    Acepta 3, 3.0 y "3"; rechaza 2.5, NaN, ±inf, textos no numéricos y números enormes.
    """
    try:
        x = float(x)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{nombre} debe ser un número entero entre {lo} y {hi}.") from None
    if not math.isfinite(x) or x != int(x) or not lo <= x <= hi:
        raise ValueError(f"{nombre} debe ser un número entero entre {lo} y {hi}; llegó {x:g}.")
    return int(x)
