"""Cómo se escriben los números que lee una persona: la única dueña del formato.

Estilo español de la lección: punto decimal, espacio fino (U+202F) de miles y el signo menos
tipográfico. Lo usan las figuras y los textos de las pestañas (`demos.comun.figuras` lo reexporta) y los
mensajes de `modelos` que llegan a la página.
"""

from __future__ import annotations

import math


def numero(x: float | None, formato: str = ".2f") -> str:
    """Un número como se lee en la página: signo menos tipográfico, espacio fino de miles.

    Un valor que no es finito (o None) da «»: una figura nunca muestra NaN. Un negativo que se
    escribe cero va sin signo: −0.001 con dos decimales es «0.00», no «−0.00».

    >>> numero(-0.5), numero(13674, ",.0f"), numero(-0.001)
    ('−0.50', '13\\u202f674', '0.00')
    """
    if x is None or not math.isfinite(float(x)):
        return ""
    texto = format(float(x), formato)
    if texto.startswith("-") and not any(c in "123456789" for c in texto.partition("e")[0]):
        texto = texto[1:]  # todas sus cifras son cero: un cero con signo
    return texto.replace(",", "\u202f").replace("-", "−")


def miles(n: float) -> str:
    """Un entero con espacio fino de miles: 13674 -> «13 674»."""
    return numero(n, ",.0f")


def por_ciento(x: float | None, decimales: int = 1) -> str:
    """Una fracción en por ciento, con espacio antes del signo (como pide la RAE): 0.317 -> «31.7 %».

    La única forma de escribir un porcentaje en la suite: las pestañas, las figuras y las predicciones.

    >>> por_ciento(0.31717), por_ciento(1.0, 0), por_ciento(-0.05)
    ('31.7 %', '100 %', '−5.0 %')
    """
    texto = numero(None if x is None else 100 * float(x), f".{decimales}f")
    return f"{texto} %" if texto else ""
