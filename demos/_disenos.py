"""Reusar el diseño restringido de una figura ya dibujada con la misma estructura.

El diseño restringido (`layout="constrained"`) mide cada texto de la figura para colocar
los ejes y es ≈ 30 % de lo que cuesta dibujarla. Cuando un control se mueve, casi siempre
cambian los datos y no la estructura: los mismos ejes, títulos, etiquetas y límites. La
colocación resultante es entonces la misma, así que se calcula una vez y se reutiliza.

La «firma» de una figura reúne todo lo que el diseño tiene en cuenta: tamaño, ejes y su
rejilla, títulos, etiquetas, marcas fijas con sus textos, límites, escalas, leyendas y los
textos que cuentan para el diseño. Lo que no se sabe describir (un artista raro) deja la
figura sin firma, y se dibuja como siempre. `tests/test_disenos.py` comprueba, píxel a
píxel, que una figura con el diseño reutilizado sale igual que con el diseño calculado.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

_CAPACIDAD = 256
_disenos: OrderedDict[Any, tuple[list[tuple], list]] = OrderedDict()
_cerrojo = threading.Lock()
ESTADISTICA = {"reusados": 0, "calculados": 0}  # aproximada (sin cerrojo): para pruebas y medidas


def _texto(t) -> tuple:
    return (
        t.get_text(),
        tuple(map(float, t.get_position())),
        t.get_ha(),
        t.get_va(),
        float(t.get_fontsize()),
        float(t.get_rotation()),
        t.get_fontweight(),
        t.get_visible(),
        t.get_transform() is getattr(t.axes, "transData", None),
    )


def _eje(e) -> tuple:
    loc, fmt = e.get_major_locator(), e.get_major_formatter()
    marcas = [float(x) for x in loc()]  # sin medir textos: solo posiciones y cadenas
    marca = e.majorTicks[0] if e.majorTicks else None
    return (
        e.get_visible(),
        e.get_scale(),
        type(loc).__name__,
        type(fmt).__name__,
        tuple(marcas),
        tuple(fmt.format_ticks(marcas)),
        _texto(e.label),
        e.get_label_position(),
        e.get_ticks_position(),
        None if marca is None else (_texto(marca.label1), marca.label1.get_visible(), marca.label2.get_visible()),
        tuple(sorted((k, repr(v)) for k, v in e._major_tick_kw.items())),
    )


def _ejes(ax) -> tuple:
    spec = ax.get_subplotspec()
    leyenda = ax.get_legend()
    return (
        ax.get_label(),
        None if spec is None else (spec.get_geometry(), spec.get_gridspec().get_geometry()),
        ax.axison,
        tuple(map(float, ax.get_xlim())),
        tuple(map(float, ax.get_ylim())),
        repr(ax.get_aspect()),
        repr(ax.get_box_aspect()),
        tuple(
            _texto(ax.title if loc == "center" else getattr(ax, f"_{loc}_title")) for loc in ("left", "center", "right")
        ),
        _eje(ax.xaxis),
        _eje(ax.yaxis),
        None if leyenda is None else (leyenda._loc, tuple(_texto(t) for t in leyenda.get_texts())),
        tuple(_texto(t) for t in ax.texts if t.get_in_layout()),
        tuple(type(a).__name__ for a in ax.get_children() if a.get_in_layout() and not a.get_clip_on()),
    )


def firma(fig) -> Any | None:
    """Una clave hashable de la estructura de `fig`, o None si no se sabe describirla."""
    if fig.subfigs or type(fig.get_layout_engine()).__name__ != "ConstrainedLayoutEngine":
        return None
    try:
        clave = (
            tuple(map(float, fig.get_size_inches())),
            tuple(sorted(fig.get_layout_engine().get().items())),
            tuple(None if getattr(fig, n) is None else _texto(getattr(fig, n)) for n in _SUPERIORES),
            tuple(_texto(t) for t in fig.texts if t.get_in_layout()),
            len(fig.legends),
            tuple(_ejes(ax) for ax in fig.axes),
        )
        hash(clave)
        return clave
    except Exception:  # un artista que no sabemos describir: mejor sin atajo
        return None


_SUPERIORES = ("_suptitle", "_supxlabel", "_supylabel")  # el diseño también coloca estos textos


def _colocacion(fig) -> tuple[list[tuple], list]:
    ejes = [
        (ax.get_position(original=True).frozen(), ax.get_anchor(), ax.get_box_aspect(), ax.get_aspect())
        for ax in fig.axes
    ]
    textos = [None if getattr(fig, n) is None else getattr(fig, n).get_position() for n in _SUPERIORES]
    return ejes, textos


def preparar(fig) -> Any | None:
    """Antes de dibujar: aplica el diseño guardado si hay uno para esta estructura.

    Devuelve la firma si el diseño aún no estaba guardado (hay que llamar a `recordar`
    después de dibujar), o None.
    """
    clave = firma(fig)
    if clave is None:
        return None
    with _cerrojo:
        guardado = _disenos.get(clave)
        if guardado is not None:
            _disenos.move_to_end(clave)
    if guardado is None:
        ESTADISTICA["calculados"] += 1
        return clave
    ESTADISTICA["reusados"] += 1
    ejes, textos = guardado
    fig.set_layout_engine("none")
    for ax, (pos, ancla, caja, aspecto) in zip(fig.axes, ejes, strict=True):
        ax._set_position(pos)  # como el diseño restringido, sin sacar el eje del diseño
        ax.set_anchor(ancla)
        ax.set_box_aspect(caja)
        ax.set_aspect(aspecto)
    for nombre, posicion in zip(_SUPERIORES, textos, strict=True):
        if posicion is not None:
            getattr(fig, nombre).set_position(posicion)
    return None


def recordar(fig, clave) -> None:
    """Después de dibujar con el diseño restringido: guarda dónde quedó cada eje."""
    if clave is None:
        return
    colocacion = _colocacion(fig)
    with _cerrojo:
        _disenos[clave] = colocacion
        while len(_disenos) > _CAPACIDAD:
            _disenos.popitem(last=False)


def vaciar() -> None:
    with _cerrojo:
        _disenos.clear()
