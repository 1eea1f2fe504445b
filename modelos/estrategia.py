"""Lo que aprende el transformer de juguete sin posición: el dígito más frecuente entre los otros.

Sin posición, la autoatención es equivariante a permutaciones: la salida de la posición i solo
puede depender de su propio dígito x_i y del multiconjunto de los 8. Dados esos dos, la respuesta
x_{7−i} es cualquiera de los otros 7 dígitos con la misma probabilidad, así que lo mejor que puede
hacer es escribir el más frecuente entre ellos (una moda de los otros siete). Su exactitud esperada
es el tope de cualquier modelo sin posición:

    tope = E[ máx_d #{j ≠ i : x_j = d} ] / 7      (≈ 31.6 % con 8 dígitos del 0 al 9)

Por eso acierta ~32 % y no 10 %: los dígitos repetidos son los que escribe.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import torch
from torch import Tensor

from .datos import DIGITOS


def cuentas_de_los_otros(X: Tensor, digitos: int = DIGITOS) -> Tensor:
    """X (N, L) dígitos -> (N, L, digitos): cuántas veces sale cada dígito entre los otros L − 1 de cada posición."""
    uno = torch.nn.functional.one_hot(X, digitos)  # (N, L, digitos)
    return uno.sum(dim=1, keepdim=True) - uno  # (N, 1, digitos) − (N, L, digitos)


def es_moda_de_los_otros(X: Tensor, D: Tensor) -> Tensor:
    """(N, L) booleana: ¿el dígito D[n, i] es uno de los más frecuentes entre los otros dígitos de X[n]?"""
    cuentas = cuentas_de_los_otros(X)  # (N, L, 10)
    return cuentas.gather(-1, D.unsqueeze(-1)).squeeze(-1) == cuentas.amax(dim=-1)  # (N, L)


@lru_cache(maxsize=8)
def tope_sin_posicion(largo: int = 8, digitos: int = DIGITOS) -> Fraction:
    """La exactitud esperada, exacta, de escribir una moda de los otros largo − 1 dígitos (al azar uniforme).

    P(máx ≤ m) = n! · [x^n] (Σ_{k≤m} x^k / k!)^digitos / digitos^n, con n = largo − 1.
    """
    if not (2 <= largo <= 64 and 2 <= digitos <= 64):
        raise ValueError("«largo» y «digitos» deben ser enteros de 2 a 64.")
    n = largo - 1

    def no_pasa(m: int) -> Fraction:  # P(máx ≤ m)
        poli = [Fraction(1)]  # coeficientes de x^0, x^1, …
        factor = [Fraction(1, math.factorial(k)) for k in range(m + 1)]
        for _ in range(digitos):
            nuevo = [Fraction(0)] * min(len(poli) + m, n + 1)
            for i, a in enumerate(poli):
                for k, b in enumerate(factor):
                    if i + k <= n:
                        nuevo[i + k] += a * b
            poli = nuevo
        coef = poli[n] if n < len(poli) else Fraction(0)
        return coef * math.factorial(n) / Fraction(digitos) ** n

    esperanza = sum((1 - no_pasa(m) for m in range(n)), Fraction(0))  # E[máx] = Σ_{m≥0} P(máx > m)
    return esperanza / n
