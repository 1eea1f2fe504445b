"""El contrato de predecir y comprobarse (#52): lo revelado es lo que muestra la pestaña, y cada opción sabe qué es.

- La verdad de cada predicción y pregunta es un `EnLaPestana`: la función de la vista, con los valores con que
  abre la pestaña y el cambio que nombra la pregunta, y lo que se lee de lo que muestra. Falla si la verdad usa otra
  función, si el cambio no se puede hacer con los controles, o si lo revelado difiere de lo que muestra la pestaña
  abierta como la abren sus controles (el error de CBAM: «sube» calculado a 1 con la pestaña abierta «a su media»).
- Una cantidad recibe una distancia; una categoría o una posición, «la respuesta es…»; «al revés», solo entre dos
  opciones opuestas. Toda opción explica lo suyo, y eso lo valida la declaración misma, esté donde esté.
"""

from __future__ import annotations

import gradio as gr
import pytest

from demos import PESTANAS
from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Opcion
from demos.comun.vista import Vista
from demos.servir.aprender import _figura, apertura, faltas

MINIMO_CON_PREDICCION = 13


def _vistas() -> dict:
    import app

    return app.vistas(app.demo)


def _con_aprender() -> list[str]:
    return [p.id for p in PESTANAS if _vistas()[p.id].aprender is not None]


def test_al_menos_13_pestanas_predicen():
    con = [p.id for p in PESTANAS if (a := _vistas()[p.id].aprender) is not None and a.prediccion is not None]
    sin = [p.id for p in PESTANAS if p.id not in con]
    assert len(con) >= MINIMO_CON_PREDICCION, f"predicen {len(con)}; sin predicción: {sin}"


@pytest.mark.parametrize("id_", _con_aprender())
def test_lo_revelado_es_lo_que_muestra_la_pestana_tras_el_cambio(id_):
    vista = _vistas()[id_]
    assert not faltas(vista, calcular=True)


# --- el contrato, con una pestaña de mentira -------------------------------------------------------


def _pestana_de_mentira(apagada_por_omision: str) -> Vista:
    """Como CBAM: la confianza con la rama espacial apagada depende de a qué pasa la rama («media» o «uno»)."""

    def calcular(espacial: bool = True, apagada: str = apagada_por_omision):
        if espacial:
            return (0.96,)
        return (0.99 if apagada == "uno" else 0.78,)

    def leer(antes, despues):
        return "sube" if despues[0] > antes[0] else "baja"

    aprender = ap.Aprender(
        prediccion=ap.Prediccion(
            "¿Apagar la rama espacial sube o baja la confianza?",
            verdad=ap.EnLaPestana(calcular, leer, cambio={"espacial": False}),
            opciones=(
                ap.Alternativa("sube", "sube", "a", opuesta="baja"),
                ap.Alternativa("baja", "baja", "b", opuesta="sube"),
            ),
            porque="c",
        )
    )
    with gr.Blocks():
        espacial = gr.Checkbox(value=True)
        apagada = Opcion([("a su media", "media"), ("a 1", "uno")], value="media")
    return Vista(fn=calcular, entradas=[espacial, apagada], salidas=[], aprender=aprender)


def test_falla_si_lo_revelado_no_es_lo_que_muestra_la_pestana_como_abre():
    """El error de CBAM: la verdad con la compuerta a 1 y la pestaña abierta «a su media»."""
    mala = _pestana_de_mentira("uno")
    assert mala.aprender.prediccion.cifras()["respuesta"] == "sube"
    assert apertura(mala) == {"espacial": True, "apagada": "media"}
    (falta,) = faltas(mala, calcular=True)
    assert "revela 'sube'" in falta and "muestra 'baja'" in falta
    assert not faltas(_pestana_de_mentira("media"), calcular=True)


def test_falla_si_la_verdad_usa_otra_funcion_o_un_cambio_que_los_controles_no_permiten():
    def calcular(d: float = 64, tipo: str = "a"):
        return (d, tipo)

    def otra(d: float = 64, tipo: str = "a"):
        return (d, tipo)

    def con(verdad):
        return ap.Aprender(
            prediccion=ap.Prediccion("¿d?", verdad=verdad, decimales=0, minimo=0, maximo=1e9, porque="x")
        )

    with gr.Blocks():
        d = Deslizador(1, 512, value=64)
        tipo = Opcion(["a", "b"], value="a")

    def vista(verdad):
        return Vista(fn=calcular, entradas=[d, tipo], salidas=[], aprender=con(verdad))

    assert not faltas(vista(ap.EnLaPestana(calcular, lambda v: v[0], cambio={"d": 512, "tipo": "b"})))
    assert "no la de la vista" in faltas(vista(ap.EnLaPestana(otra, lambda v: v[0])))[0]
    assert "d = 1024" in faltas(vista(ap.EnLaPestana(calcular, lambda v: v[0], cambio={"d": 1024})))[0]
    assert "tipo = 'c'" in faltas(vista(ap.EnLaPestana(calcular, lambda v: v[0], cambio={"tipo": "c"})))[0]
    with pytest.raises(ValueError, match="no son entradas"):
        ap.EnLaPestana(calcular, lambda v: v[0], cambio={"L": 3})


def test_una_verdad_que_no_pasa_por_la_pestana_no_se_puede_declarar():
    with pytest.raises(TypeError, match="EnLaPestana"):
        ap.Prediccion("¿?", verdad=lambda: 0.5, porque="x")
    with pytest.raises(TypeError, match="EnLaPestana"):
        ap.Pregunta("¿?", (ap.Alternativa(1, "1", "a"), ap.Alternativa(2, "2", "b")), verdad=lambda: 1)


def test_toda_opcion_explica_lo_suyo_dondequiera_que_se_declare():
    """La validación está en la declaración: también una predicción armada dentro de una función."""

    def declarar(porque_b: str):
        verdad = ap.EnLaPestana(lambda x=1: (x,), lambda v: "a")
        return ap.Prediccion(
            "¿?",
            verdad=verdad,
            opciones=(ap.Alternativa("a", "a", "porque a"), ap.Alternativa("b", "b", porque_b)),
            porque="x",
        )

    with pytest.raises(ValueError, match="cada opción explica lo suyo"):
        declarar("")
    with pytest.raises(ValueError, match="misma explicación"):
        declarar("porque a")
    assert declarar("porque b").distancia(1).endswith("porque b")


# --- cada opción sabe qué es ------------------------------------------------------------------------


def _verdad(valor):
    return ap.EnLaPestana(lambda x=0: (x,), lambda v: valor)


def test_una_posicion_no_es_una_cantidad():
    """La inversión de dígitos: «a la 0», «a la 7», «a todas»: ni «corto por 7.00» ni una barra de −1."""
    p = ap.Prediccion(
        "¿A qué posición mira?",
        verdad=_verdad("espejo"),
        opciones=(
            ap.Alternativa("propia", "a la 0, la suya", "a"),
            ap.Alternativa("espejo", "a la 7, la última", "b"),
            ap.Alternativa("todas", "a todas por igual", "c"),
        ),
        tipo=ap.POSICION,
        porque="x",
    )
    assert p.distancia(0) == "Elegiste «a la 0, la suya»; la respuesta es **a la 7, la última**. a"
    assert p.distancia(2) == "Elegiste «a todas por igual»; la respuesta es **a la 7, la última**. c"
    assert _figura(p, 2) is None and _figura(p, None) is None


def test_al_reves_solo_entre_dos_opuestas_y_una_cantidad_recibe_su_distancia():
    opciones = (
        ap.Alternativa("sube", "sube", "a", opuesta="baja"),
        ap.Alternativa("baja", "baja", "b", opuesta="sube"),
        ap.Alternativa("igual", "no cambia", "c"),
    )
    p = ap.Prediccion("¿?", verdad=_verdad("baja"), opciones=opciones, porque="x")
    assert "al revés" in p.distancia(0)
    assert p.distancia(2) == "Elegiste «no cambia»; la respuesta es **baja**. c"
    with pytest.raises(ValueError, match="una a la otra"):
        ap.Prediccion(
            "¿?",
            verdad=_verdad("baja"),
            opciones=(ap.Alternativa("sube", "sube", "a", opuesta="baja"), ap.Alternativa("baja", "baja", "b")),
            porque="x",
        )
    q = ap.Pregunta(
        "¿?",
        (ap.Alternativa(10, "10", "a"), ap.Alternativa(100, "100", "b"), ap.Alternativa(1, "1", "c")),
        verdad=_verdad(10.0),
        tipo=ap.CANTIDAD,
    )
    assert q.responder(1) == (False, "✗ **Es 10**: te pasaste por 90, 10 veces la verdad. b")
    assert q.responder(2)[1].startswith("✗ **Es 10**: te quedaste corto por 9")
    cerca = ap.Pregunta(
        "¿?", (ap.Alternativa(61, "61", "a"), ap.Alternativa(60, "60", "b")), verdad=_verdad(61), tipo=ap.CANTIDAD
    )
    assert "acertaste" not in cerca.responder(1)[1]  # a 1 de 61, pero no es la correcta
    with pytest.raises(ValueError, match="son números"):
        ap.Pregunta(
            "¿?", (ap.Alternativa("a", "a", "a"), ap.Alternativa(1, "1", "b")), verdad=_verdad(1), tipo="cantidad"
        )


@pytest.mark.parametrize("id_", _con_aprender())
def test_la_respuesta_a_cada_opcion_de_cada_pestana_dice_lo_que_la_opcion_es(id_):
    a = _vistas()[id_].aprender
    listas = [
        (q.opciones, q.tipo, q.correcta(), [q.responder(j)[1] for j in range(len(q.opciones))]) for q in a.preguntas
    ]
    p = a.prediccion
    if p is not None and p.opciones:
        listas.append((p.opciones, p.tipo, p.correcta(), [p.distancia(j) for j in range(len(p.opciones))]))
        for j in range(len(p.opciones)):
            assert (_figura(p, j) is not None) == (p.tipo == ap.CANTIDAD), "solo una cantidad se dibuja como barra"
    for opciones, tipo, k, textos in listas:
        for j, (o, texto) in enumerate(zip(opciones, textos, strict=True)):
            assert "{" not in texto and o.porque, texto
            if j == k:
                continue
            distancia = "te pasaste" in texto or "te quedaste corto" in texto
            assert distancia == (tipo == ap.CANTIDAD), texto
            al_reves = "al revés de lo que dijiste" in texto or texto.startswith("✗ **Al revés")
            assert al_reves == (o.opuesta is not None and o.opuesta == opciones[k].valor), texto
            assert "acertaste" not in texto and "Correcto" not in texto, texto


# --- en el navegador --------------------------------------------------------------------------------


@pytest.mark.navegador
def test_una_posicion_elegida_se_contesta_sin_distancia_ni_barras(pagina, url_app):
    """Inversión de dígitos: «a todas por igual» no es −1, ni «te quedaste corto por 8.00»; ninguna barra."""
    pg = pagina
    pg.goto(url_app + "demo/inversion-digitos/")
    pg.locator("#inversion-digitos-prediccion").first.wait_for(timeout=60_000)
    pg.locator("#inversion-digitos-prediccion-opciones").get_by_text("a todas por igual").click()
    pg.locator("#inversion-digitos-revelar").click()
    frase = pg.locator("#inversion-digitos-revelacion")
    frase.get_by_text("la respuesta es").wait_for(timeout=60_000)
    texto = frase.inner_text()
    assert "a la 7, la última" in texto and "corto" not in texto and "−1" not in texto, texto
    assert not pg.locator("#inversion-digitos-prediccion .js-plotly-plot").count()
    assert not pg.errores, pg.errores
