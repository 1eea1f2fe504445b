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


# --- cada deslizador: barrido o servido, y por qué --------------------------------------------------------

BARRIDO, SERVIDO = "barrido", "servido"


def _en_aprender(bloque) -> bool:
    """Dentro de los bloques de aprender que arma el kit (las barras de una predicción): no son de la pestaña."""
    while bloque is not None:
        if "aprender" in _clases(bloque):
            return True
        bloque = getattr(bloque, "parent", None)
    return False


def deslizadores(demo: gr.Blocks, id_: str) -> dict:
    """{deslizador de la pestaña `id_` en la página: BARRIDO, SERVIDO con su razón, o None (ni uno ni otro)}.

    Barrido: su `input` corre el barrido en el navegador (`barridos=` de su Vista o de una `Seccion`), sin Python.
    """
    barridos = {
        t[0]
        for fn in demo.fns.values()
        if fn.fn is None and "barrido(" in (fn.js or "")
        for t in fn.targets
        if t[1] == "input"
    }
    return {
        c: BARRIDO if k in barridos else (f"{SERVIDO}: {c.servido}" if getattr(c, "servido", None) else None)
        for k, c in demo.blocks.items()
        if isinstance(c, gr.Slider) and getattr(c, "pestana", None) == id_ and not _en_aprender(c)
    }


QUE_HACER = (
    "Bárrelo (`Vista(barridos=(Barrido(control),))`: el navegador dibuja cada parada y la cola no oye el arrastre) "
    'o declara con `servido(control, "por qué, en una línea")` (demos/comun/vista.py) por qué lo sirve el servidor, '
    "p. ej. «1 024 valores (más de 256 paradas)», «sus 64 paradas pesarían 741 kB», «solo se lee al pulsar «Entrenar»»."
)


def sin_razon(demo: gr.Blocks, id_: str) -> list[str]:
    """Las etiquetas de los deslizadores de la pestaña que ni se barren ni dicen por qué los sirve el servidor."""
    return [c.label for c, como in deslizadores(demo, id_).items() if como is None]


@pytest.mark.parametrize("p", PESTANAS, ids=[p.id for p in PESTANAS])
def test_cada_deslizador_se_barre_o_dice_por_que_lo_sirve_el_servidor(p):
    import app

    como = deslizadores(app.demo, p.id)
    dobles = [
        f"«{c.label}» se barre y además dice {c.servido!r}"
        for c, k in como.items()
        if k == BARRIDO and (getattr(c, "servido", None))
    ]
    sueltos = ", ".join(f"«{e}»" for e in sin_razon(app.demo, p.id))
    faltas = [f"{sueltos} no se barre(n) ni dice(n) por qué lo(s) sirve el servidor. {QUE_HACER}"] if sueltos else []
    assert not faltas + dobles, f"La pestaña «{p.id}»: " + "; ".join(faltas + dobles)


def test_un_deslizador_nuevo_sin_barrido_ni_razon_falla():
    """Una pestaña nueva con un deslizador suelto no pasa el contrato; con su razón, sí."""
    from demos.comun.vista import servido

    with gr.Blocks() as demo:
        suelto = Deslizador(1, 64, value=8, step=1, label="Largo")
        suelto.pestana = "nueva"
    assert sin_razon(demo, "nueva") == ["Largo"]
    servido(suelto, "cada valor entrena de nuevo")
    assert deslizadores(demo, "nueva") == {suelto: "servido: cada valor entrena de nuevo"}
    with pytest.raises(ValueError, match="una línea"):
        servido(suelto, "dos\nlíneas")


# --- aprender: se valida donde se declare ------------------------------------------------------------------


def test_un_aprender_se_valida_donde_se_declare_no_solo_si_se_llama_APRENDER():
    """Sus opciones y su porqué, al construirlo; su verdad, por `Vista.aprender` (tests/test_predicciones.py recorre
    la de cada pestaña, no un global `APRENDER` del módulo)."""
    from demos.comun import aprender as ap
    from demos.comun.vista import Vista
    from demos.servir.aprender import faltas

    def calcular(x: float = 1.0):
        return (x,)

    def otra(x: float = 1.0):
        return (x,)

    verdad = ap.EnLaPestana(calcular, lambda salida: salida[0], cambio={"x": 2.0})
    dos = (ap.Alternativa(2.0, "2", "a"), ap.Alternativa(2.0, "2", "b"))
    with pytest.raises(ValueError, match="mismo valor"):
        ap.Pregunta("¿x?", dos, verdad=verdad, tipo=ap.CANTIDAD)
    with pytest.raises(ValueError, match="porqué"):
        ap.Prediccion("¿x?", verdad=verdad)
    with pytest.raises(TypeError, match="Aprender"):
        Vista(fn=calcular, entradas=[], salidas=[], aprender="preguntas")
    quiz = ap.Aprender(prediccion=ap.Prediccion("¿x?", verdad=ap.EnLaPestana(otra, lambda s: s[0]), porque="p"))
    with gr.Blocks():
        x = Deslizador(0, 4, value=1.0, step=1)
    (falta,) = faltas(Vista(fn=calcular, entradas=[x], salidas=[], aprender=quiz))
    assert "usa otra" in falta


def test_temperatura_barre_log_t_y_el_servidor_sirve_n():
    import app

    como = {c.label.split()[0]: k for c, k in deslizadores(app.demo, "temperatura").items()}
    assert como == {"log₁₀": BARRIDO, "Número": "servido: 10\u202f000 valores (más de 256 paradas)"}
