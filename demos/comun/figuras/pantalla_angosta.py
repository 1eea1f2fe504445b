"""La misma figura en un teléfono: paneles apilados, títulos partidos, números que caben o ninguno.

El servidor no sabe el ancho de la pantalla. `pantalla.figura_plotly` manda la figura de siempre y, en
`layout.meta.angosto`, solo lo que cambia en un teléfono: las claves del layout y de cada trazo que
difieren (`diferencia`). `navegador.js` lo aplica cuando la página mide menos de `ANCHO_MAXIMO` px.
"""

from __future__ import annotations

import dataclasses
import textwrap

from demos.comun.figuras import Paneles
from demos.comun.figuras.pantalla_lienzo import MARGEN_IZQUIERDO

ANCHO_MAXIMO = 600  # por debajo de este ancho de página, la figura es la de teléfono
ANCHO_FIGURA = 330  # el ancho de la figura en un teléfono de 390 px (sin los bordes de la página)
MARGEN_X = {"l": MARGEN_IZQUIERDO, "r": 30}
AREA = ANCHO_FIGURA - MARGEN_X["l"] - MARGEN_X["r"]  # el ancho del área de dibujo
ALTO_FILA = 330  # un panel por fila, no más alto que en la rejilla


def partir(texto: str, letra: int) -> str:
    """Un título en líneas que caben en el ancho de la figura (las que ya trae se respetan)."""
    columnas = max(12, int(ANCHO_FIGURA / (0.55 * letra)))
    return "\n".join(textwrap.fill(linea, columnas) if linea else "" for linea in texto.split("\n"))


def partir_de_lado(texto: str, alto_px: float | None, letra: int) -> str:
    """El título del eje y (va de lado) en líneas que caben en el alto de su panel, `alto_px` (estimado: se
    deja un 15 % de holgura, el panel real es algo más bajo cuando las marcas ensanchan el margen). `letra`: la
    del título del eje, que Plotly hace 1.2 veces la de la figura."""
    if not texto or not alto_px:
        return texto
    columnas = max(8, int(0.85 * alto_px / (0.6 * letra)))
    return "\n".join(textwrap.fill(linea, columnas) if linea else "" for linea in texto.split("\n"))


def _con_titulo_partido(f, letra: int):
    """El panel con su título y el del eje x partidos (el del eje y va de lado: tiene el alto)."""
    cambios = {c: partir(getattr(f, c), letra) for c in ("titulo", "eje_x") if getattr(f, c, "")}
    return dataclasses.replace(f, **cambios) if cambios else f


def apilar(figura, letra: int, letra_titulo: int):
    """La figura de teléfono: los paneles uno por fila y los títulos partidos."""
    if not isinstance(figura, Paneles):
        return _con_titulo_partido(figura, letra_titulo)
    return dataclasses.replace(
        figura,
        paneles=tuple(_con_titulo_partido(p, letra) for p in figura.paneles),
        columnas=1,
        anchos=None,
        titulo=partir(figura.titulo, letra_titulo),
        alto_fila=min(figura.alto_fila, ALTO_FILA),
    )


def _distintas(a: dict, b: dict) -> dict:
    """Las claves de `b` que no son iguales en `a`; las que `b` no tiene, en None (se borran)."""
    cambios = {k: v for k, v in b.items() if a.get(k) != v}
    return cambios | {k: None for k in a if k not in b}


def diferencia(normal: dict, angosta: dict) -> dict:
    """Lo que cambia de la figura de siempre a la de teléfono: {"layout": {…}, "datos": {índice: {…}}}."""
    if len(normal["data"]) != len(angosta["data"]):
        raise ValueError("La figura de teléfono debe tener los mismos trazos")
    layout = _distintas(normal["layout"], angosta["layout"])
    layout.pop("meta", None)
    pares = enumerate(zip(normal["data"], angosta["data"], strict=True))
    datos = {str(k): c for k, (a, b) in pares if (c := _distintas(a, b))}
    return {"layout": layout, "datos": datos} if layout or datos else {}
