"""El contrato de una pestaña, en un solo lugar (#39): lo que el registro y la `Vista` tienen que declarar.

Cada fallo nombra la pestaña y lo que le falta. Lo que cumple una pestaña que pasa esta prueba: README,
«Para añadir una pestaña».
"""

from __future__ import annotations

import inspect

import gradio as gr
import pytest

from demos import PESTANAS
from demos.comun.controles import Deslizador, Desplegable, Numero, Opcion

# Lo que Gradio valida antes de llamar a la función, en inglés, y su variante que deja hablar a la función.
EN_ESPANOL = {gr.Slider: Deslizador, gr.Number: Numero, gr.Radio: Opcion, gr.Dropdown: Desplegable}


def vista_de(id_: str):
    import app

    return app.vistas(app.demo)[id_]


@pytest.mark.parametrize("p", PESTANAS, ids=[p.id for p in PESTANAS])
def test_cada_pestana_cumple_su_contrato(p):
    faltas = []
    if not p.que_mirar:
        faltas.append("su línea «Qué mirar» (que_mirar, en su entrada de demos/__init__.py)")
    if not hasattr(p.cargar(), "construir"):
        faltas.append(f"construir() en {p.modulo}")
    vista = vista_de(p.id)
    parametros = list(inspect.signature(vista.fn).parameters.values())
    if len(parametros) != len(vista.entradas):
        faltas.append(f"una entrada por parámetro de {vista.fn.__name__} ({len(parametros)} y {len(vista.entradas)})")
    faltas += [
        f"un valor por omisión para «{x.name}» (una llamada sin argumentos da la vista inicial)"
        for x in parametros
        if x.default is inspect.Parameter.empty and x.kind is not inspect.Parameter.VAR_POSITIONAL
    ]
    for c in vista.entradas:
        propia = EN_ESPANOL.get(type(c))
        if propia is not None:
            faltas.append(
                f"{propia.__name__} (demos.comun.controles) en vez de gr.{type(c).__name__} para «{c.label}»: "
                "con el de Gradio, el API contesta en inglés a un valor fuera de rango"
            )
    ids = {id(c) for c in vista.entradas}
    faltas += [f"«{n}» de `url` entre las entradas" for n, c in vista.url.items() if id(c) not in ids]
    for b in vista.barridos:
        if id(b.entrada if b.entrada is not None else b.control) not in ids:
            faltas.append(f"la entrada que barre «{b.control.label}» entre las entradas")
        if not isinstance(b.control, gr.Slider | gr.Radio):
            faltas.append(f"un deslizador o una lista de opciones como control barrido («{b.control.label}»)")
    assert not faltas, f"La pestaña «{p.id}» necesita: " + "; ".join(faltas)


@pytest.mark.parametrize("p", PESTANAS, ids=[p.id for p in PESTANAS])
def test_sin_argumentos_da_una_salida_por_componente(p):
    vista = vista_de(p.id)
    if any(isinstance(c, gr.State) for c in vista.entradas):  # un modelo entrenado en la sesión: None al abrir
        pytest.skip("su vista inicial lleva un estado de la sesión")
    salida = vista.fn()
    assert len(salida) == len(vista.salidas), f"«{p.id}»: {vista.fn.__name__}() da {len(salida)} valores"


def _contiene(bloque, buscados: set[int]) -> bool:
    if id(bloque) in buscados:
        return True
    return any(_contiene(h, buscados) for h in getattr(bloque, "children", ()))


def _clases(bloque) -> set[str]:
    clases = getattr(bloque, "elem_classes", None) or []
    return {clases} if isinstance(clases, str) else set(clases)


@pytest.mark.parametrize("p", PESTANAS, ids=[p.id for p in PESTANAS])
def test_la_pagina_muestra_el_orden_de_construir(p):
    """El orden de la página es el de `construir()` (#39: ningún script lo cambia en el navegador): arriba de la
    figura principal, en la pestaña, van su explicación y a lo sumo una fila con entradas de la vista; la
    predicción, si la hay, justo debajo de la figura (en presentación se ve ahí; en pantalla normal el CSS la sube)."""
    from demos.comun.figuras.componente import Figura

    vista = vista_de(p.id)
    figura = next(s for s in vista.salidas if isinstance(s, Figura))
    e = figura
    while not (isinstance(e.parent, gr.Tab) and e.parent.elem_id == f"pestana-{p.id}"):
        e = e.parent
        assert e is not None, f"«{p.id}»: su primera figura no está dentro de su pestaña"
    # Lo que se ve: sin los bloques de aprender (el CSS los sube) ni los gr.State (no se dibujan).
    hijos = [h for h in e.parent.children if not ({"aprender"} & _clases(h) or isinstance(h, gr.State))]
    arriba = hijos[: hijos.index(e)]
    faltas = []
    if not arriba or "explicacion" not in _clases(arriba[0]):
        faltas.append("la explicación primero (explicacion(...) al comienzo de construir())")
    entradas = {id(c) for c in vista.entradas}
    otras = [h for h in arriba[1:] if not _contiene(h, entradas) or _contiene(h, {id(figura)})]
    if len(arriba) > 2 or otras:
        faltas.append(
            f"solo una fila de controles entre la explicación y la figura principal ({len(arriba) - 1} bloques: "
            "lo demás va debajo de la figura)"
        )
    if vista.aprender is not None and vista.aprender.prediccion is not None:
        siguiente = e.parent.children[e.parent.children.index(e) + 1]
        if siguiente.elem_id != f"{p.id}-prediccion":
            faltas.append("la predicción justo debajo de la figura principal (demos/servir/aprender.py)")
    assert not faltas, f"La pestaña «{p.id}» necesita: " + "; ".join(faltas)


@pytest.mark.parametrize("p", PESTANAS, ids=[p.id for p in PESTANAS])
def test_el_readme_dice_los_nombres_de_la_url_de_cada_pestana(p):
    """Un docente fija los controles desde la URL y elige cuáles se ven (`?controles=`) con los nombres de `url`:
    el README los lista en una tabla, una fila por pestaña, que no puede quedar atrás del código."""
    import re

    from tests.ayuda import RAIZ

    readme = (RAIZ / "README.md").read_text(encoding="utf-8")
    fila = re.search(rf"^\| `{re.escape(p.id)}` \| (.*) \|$", readme, re.MULTILINE)
    nombres = list(vista_de(p.id).url)
    esperada = ", ".join(f"`{n}`" for n in nombres)
    assert fila, (
        f"La pestaña «{p.id}» necesita su fila en la tabla de nombres de la URL del README: | `{p.id}` | {esperada} |"
    )
    assert fila.group(1) == esperada, f"«{p.id}»: la tabla del README dice {fila.group(1)}, y su `url` es {esperada}"
