"""Validación común de las funciones de cálculo: lo que llega por el API no pasó por los controles.

Una sola dueña para cada cosa que llega de fuera: números enteros (`entero`), números reales
(`real`), un valor de una lista cerrada (`uno_de`), listas de palabras (`lista_de_palabras`) y de números
(`lista_de_numeros`). Cada una da
un `ValueError` en español que dice qué se acepta; `envolver` lo vuelve un aviso en la página.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection

from modelos.formato import miles, numero


def _n(x: float) -> str:
    """Un número de un mensaje, como en toda la página: «4 096», «0.05», «−1 000», «1e+300», «nan»."""
    return numero(x, ",g") if math.isfinite(x) else str(x)


def entero(x, nombre: str, lo: int, hi: int) -> int:
    """`x` como entero en [lo, hi], o ValueError en español que dice qué se acepta.

    Acepta 3, 3.0 y "3"; rechaza 2.5, NaN, ±inf, textos no numéricos y números enormes.
    """
    try:
        v = float(x)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{nombre} debe ser un número entero entre {miles(lo)} y {miles(hi)}.") from None
    if not math.isfinite(v) or v != int(v) or not lo <= v <= hi:
        raise ValueError(f"{nombre} debe ser un número entero entre {miles(lo)} y {miles(hi)}; llegó {_n(v)}.")
    return int(v)


def real(x, nombre: str, lo: float, hi: float) -> float:
    """`x` como número finito en [lo, hi], o ValueError en español (acepta 0.5 y "0.5")."""
    try:
        v = float(x)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{nombre} debe ser un número entre {_n(lo)} y {_n(hi)}.") from None
    if not math.isfinite(v) or not lo <= v <= hi:
        raise ValueError(f"{nombre} debe ser un número entre {_n(lo)} y {_n(hi)}; llegó {_n(v)}.")
    return v


def uno_de(x, nombre: str, validos: Collection[int]) -> int:
    """`x` como uno de los enteros `validos` (p. ej. 1, 2 o 4 cabezas), o ValueError en español."""
    try:
        v = float(x)
    except (TypeError, ValueError, OverflowError):
        v = math.nan
    if v not in validos:
        raise ValueError(f"{nombre} debe ser uno de {', '.join(map(str, validos))}; llegó {str(x)[:20]!r}.")
    return int(v)


# Cómo se separan las palabras, y cómo se le dice al visitante.
SEPARADORES = {
    "coma": "separadas por comas",  # «plata, sacó, Ana del»: cada trozo, sin espacios a los lados
    "espacio": "separadas por espacios",
    "coma o espacio": "separadas por comas o espacios",
}


def lista_de_palabras(
    texto, que: str, *, separador: str, max_palabras: int, max_letras: int, max_texto: int
) -> list[str]:
    """Una lista de palabras escrita por el visitante -> sus palabras, con los límites de la pestaña.

    `que` nombra lo que se escribe, con su artículo («las palabras», «una frase», «la frase
    fuente»): los mensajes lo usan. `separador` es una clave de SEPARADORES. Con «coma», un trozo
    vacío («a, , b») es un error; con los otros, los separadores seguidos cuentan como uno.
    El largo del texto se mira antes de partirlo: un texto enorme no llega a partirse.
    """
    como = SEPARADORES[separador]
    if not isinstance(texto, str):
        articulo = que.partition(" ")[0]
        raise ValueError(f"Escribe {que} ({como}): {'deben' if articulo in ('las', 'los') else 'debe'} ser un texto.")
    articulo, _, resto = que.partition(" ")
    if len(texto) > max_texto:
        femenino = articulo in ("la", "una")  # «la frase»: larga; «las palabras»: el texto, largo
        sujeto = f"La {resto} es demasiado larga" if femenino else f"El texto de {que} es demasiado largo"
        raise ValueError(f"{sujeto}: a lo sumo {miles(max_texto)} caracteres y {max_palabras} palabras.")
    if not texto.strip():
        raise ValueError(f"Escribe {que} (al menos una palabra, {como}).")
    if separador == "coma":
        lista = [p.strip() for p in texto.split(",")]
    elif separador == "espacio":
        lista = texto.split()
    else:
        lista = [p for p in re.split(r"[,;\s]+", texto.strip()) if p]
    if len(lista) > max_palabras:
        m = max_palabras
        raise ValueError(f"Hay {len(lista)} palabras y caben hasta {m}: escribe a lo sumo {m} (caben de 1 a {m}).")
    for i, p in enumerate(lista, start=1):
        if not p:
            raise ValueError(f"La palabra {i} está vacía: sepáralas con una sola coma, sin coma al final.")
        if len(p) > max_letras:
            raise ValueError(
                f"La palabra {i} («{p[:max_letras]}…») es muy larga: tiene {len(p)} letras y caben hasta "
                f"{max_letras} letras (a lo sumo {max_letras} por palabra)."
            )
    return lista


def lista_de_numeros(texto, uno: str, varios: str, max_numeros: int, max_abs: float, max_texto: int) -> list[float]:
    """«2, 1, 0.5, -1» -> [2.0, 1.0, 0.5, -1.0]: números separados por comas, con punto decimal (y el signo menos
    tipográfico «−» también vale), o ValueError en español que dice qué se acepta.

    `uno` nombra un número con su artículo («el puntaje»); `varios`, la lista sin él («puntajes»). Se miran el
    largo del texto antes de partirlo y la cantidad antes de leer los números; cada número, finito y con valor
    absoluto a lo sumo `max_abs`.
    """
    if not isinstance(texto, str) or not texto.strip():
        raise ValueError(f"Escribe los {varios}, separados por comas.")
    if len(texto) > max_texto:
        raise ValueError(f"El texto de los {varios} es demasiado largo: a lo sumo {miles(max_texto)} caracteres.")
    trozos = [t.strip().replace("−", "-") for t in texto.split(",")]
    if len(trozos) > max_numeros:
        raise ValueError(f"Hay {len(trozos)} {varios}: se aceptan a lo sumo {max_numeros}.")
    articulo, _, nombre = uno.partition(" ")
    Uno = f"{articulo.capitalize()} {nombre}"
    numeros = []
    for i, t in enumerate(trozos, start=1):
        try:
            x = float(t)
        except ValueError:
            raise ValueError(
                f"{Uno} {i} («{t[:20]}») no es un número: sepáralos con comas y usa punto decimal (0.5)."
            ) from None
        if not math.isfinite(x) or abs(x) > max_abs:
            raise ValueError(f"{Uno} {i} debe ser un número finito entre −{max_abs:g} y {max_abs:g}.")
        numeros.append(x)
    return numeros
