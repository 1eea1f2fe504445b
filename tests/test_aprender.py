"""Predecir, comprobarse y la ruta (#24): las respuestas verdaderas son las de la lección y las de la pestaña.

Las pruebas de datos no lanzan nada; las de navegador usan la app de la sesión (`url_app`), una
página para la predicción y las preguntas (¿Por qué √d?) y otra para la ruta por las pestañas.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from demos import PESTANAS, POR_ID
from demos.comun import aprender as ap


def _aprender(id_: str) -> ap.Aprender | None:
    return getattr(POR_ID[id_].cargar(), "APRENDER", None)


DECLARAN = [p.id for p in PESTANAS if _aprender(p.id) is not None]


def test_al_menos_ocho_pestanas_predicen_y_ocho_se_comprueban_con_2_a_4_preguntas():
    con_prediccion = [i for i in DECLARAN if _aprender(i).prediccion is not None]
    con_preguntas = [i for i in DECLARAN if 2 <= len(_aprender(i).preguntas) <= 4]
    assert len(con_prediccion) >= 8, con_prediccion
    assert len(con_preguntas) >= 8, con_preguntas


@pytest.mark.parametrize("id_", DECLARAN)
def test_cada_pregunta_tiene_una_sola_opcion_correcta_y_cada_texto_cita_cifras_calculadas(id_):
    a = _aprender(id_)
    for q in a.preguntas:
        k = q.correcta()  # ValueError si la respuesta calculada no coincide con una sola opción
        for j, opcion in enumerate(q.opciones):
            bien, texto = q.responder(j)
            assert bien is (j == k)
            assert opcion.porque and "{" not in texto, texto  # su propia explicación, con las cifras llenas
            assert texto.startswith("✓" if bien else "✗")
        assert len({o.porque for o in q.opciones}) == len(q.opciones), "cada opción explica lo suyo"
    p = a.prediccion
    if p is not None:
        assert p.respuesta_en_texto() and "{" not in p.explicacion()
        assert p.distancia(None).startswith("Sin predicción")


# Lo que la lección imprime, contra lo que la verdad de cada pestaña calcula.
def test_escalado_sin_escala_a_d_512_da_096_como_la_leccion():
    from demos import escalado

    r = escalado.APRENDER.prediccion.cifras()["respuesta"]
    assert f"{r:.2f}" == "0.96"
    tabla = escalado.calcular(512)[2]
    assert any(f"{r:.2f} →" in fila[2] for fila in tabla), "la tabla de la pestaña dice lo mismo"


def test_temperatura_025_da_098_002_0_0():
    from demos import temperatura

    r = temperatura.APRENDER.prediccion.cifras()["respuesta"]
    assert [round(x, 2) for x in r] == [0.98, 0.02, 0.0, 0.0]
    tabla = temperatura.calcular(T=0.25)[2]
    assert [fila[2] for fila in tabla] == [round(x, 2) for x in r]


def test_memoria_por_diez_en_l_es_por_cien():
    from demos.memoria import pestana

    assert pestana.APRENDER.prediccion.cifras()["respuesta"] == 100
    assert pestana.APRENDER.preguntas[0].cifras()["respuesta"] == 10  # con ventana: lineal


def test_posicion_sin_posicion_317_y_el_digito_mas_frecuente():
    from demos import posicion

    c = posicion.APRENDER.prediccion.cifras()
    assert f"{c['respuesta']:.1%}" == "31.7%"
    elegida = posicion.APRENDER.prediccion.respuesta_en_texto()
    assert elegida == "32 %", "la opción correcta es la más cercana a lo calculado"
    assert c["tope"] == "31.7 %" == c["sin"]  # el mejor adivino sin orden acierta lo mismo (el texto de la tabla)


def test_cbam_apagar_la_rama_espacial_a_su_media_baja_la_confianza_96_a_78():
    """Como abre la pestaña («Una rama apagada pasa: a su media»); a 1 subiría (96 → 99), y no es lo que se ve."""
    from demos.cbam import pestana

    c = pestana.APRENDER.prediccion.cifras()
    assert (c["respuesta"], c["antes"], c["despues"]) == ("baja", "96 %", "78 %")
    assert c["exactitud"].startswith("99.3") and c["exactitud_apagada"].startswith("98.4")  # la tabla de 450
    texto = pestana.calcular(espacial=False)[2]
    assert re.search(r"\*\*78\s?%\*\*", texto) and re.search(r"\(96\s?%\)", texto)  # lo que la pestaña dice
    p, *_ = pestana.mirar(pestana.digito_elegido(pestana.ORIGEN_PRUEBA, 0, None)[0], espacial=False, apagada="uno")
    assert round(float(p.max()), 2) == 0.99  # la verdad de antes, con la compuerta a 1


def test_mascara_fila_tapada_da_nan_y_la_primera_palabra_pesa_1():
    from demos.mascara_causal import pestana

    assert pestana.APRENDER.prediccion.cifras()["respuesta"] == 1.0
    assert pestana.APRENDER.preguntas[0].cifras()["respuesta"] == "NaN"
    assert pestana.APRENDER.preguntas[1].cifras()["respuesta"] == 10


def test_bloque_49984_con_4_y_con_8_cabezas():
    from demos.bloque import pestana as bloque

    assert bloque.APRENDER.prediccion.cifras()["respuesta"] == 49_984
    assert bloque.APRENDER.preguntas[0].cifras()["respuesta"] == 49_984
    assert bloque.APRENDER.preguntas[1].cifras()["respuesta"] == "MLP"


def test_multicabeza_parches_inversion_clasificador():
    from demos import multicabeza
    from demos.clasificador_atencion import pestana as clasificador
    from demos.inversion_digitos import pestana as inversion
    from demos.parches_vit import pestana as parches

    assert multicabeza.APRENDER.prediccion.cifras()["respuesta"] == "igual"
    assert multicabeza.APRENDER.preguntas[0].cifras()["respuesta"] == (2, 4, 5, 5)
    assert parches.APRENDER.prediccion.cifras()["respuesta"] == 60
    assert parches.APRENDER.preguntas[1].cifras()["respuesta"] == 61
    assert inversion.APRENDER.prediccion.cifras()["respuesta"] == "espejo"
    assert inversion.APRENDER.prediccion.cifras()["posicion"] == 7
    assert inversion.APRENDER.preguntas[0].cifras()["respuesta"] == "0 4 9 6 9 3 3 8"
    c = clasificador.APRENDER.preguntas[0].cifras()
    assert (c["clase"], c["palabra"]) == ("positiva", "no")


def _verdad(valor):
    """Una verdad de una pestaña de mentira que muestra `valor`."""
    return ap.EnLaPestana(lambda x=0: (valor,), lambda v: v[0])


def test_la_distancia_se_dice_en_una_frase():
    p = ap.Prediccion("¿?", verdad=_verdad(0.96), porque="x")
    assert p.distancia(0.5) == "Dijiste 0.50 y es **0.96**: te quedaste corto por 0.46."
    assert "te pasaste" in p.distancia(0.99) or "acertaste" in p.distancia(0.99)
    assert "acertaste" in p.distancia(0.95)
    barras = ap.Prediccion("¿?", verdad=_verdad([0.98, 0.02, 0.0, 0.0]), barras=("a", "b", "c", "d"), porque="x")
    assert "mover **0.73** de peso" in barras.distancia([0.25, 0.25, 0.25, 0.25])
    reparto = ap.Prediccion(
        "¿?", verdad=_verdad([0.98, 0.02, 0.0, 0.0]), barras=("a", "b", "c", "d"), suman_uno=True, porque="x"
    )
    assert "llevadas a sumar 1" in reparto.distancia([0.5, 0.5, 0.5, 0.5])  # como 0.25 cada una
    assert "mover **0.73** de peso" in reparto.distancia([0.5, 0.5, 0.5, 0.5])
    cien = ap.Prediccion("¿?", verdad=_verdad(100.0), decimales=0, maximo=1e9, porque="x")
    assert "10 veces lo que dijiste" in cien.distancia(10)
    assert "3.2 veces la verdad" in ap.Prediccion("¿?", verdad=_verdad(0.317), unidad="%", porque="x").distancia(1.0)
    assert math.isclose(ap.TOLERANCIA, 0.05)


def test_una_respuesta_calculada_que_no_es_ninguna_opcion_se_nota():
    q = ap.Pregunta(
        "¿?", (ap.Alternativa(1, "1", "a"), ap.Alternativa(2, "2", "b")), verdad=_verdad(7), tipo=ap.CANTIDAD
    )
    with pytest.raises(ValueError):
        q.correcta()


def test_la_ruta_tiene_que_mirar_para_cada_pestana_y_cada_siguiente_es_la_de_despues():
    from demos.servir.aprender import html_ruta

    sin = [p.id for p in PESTANAS if not p.que_mirar]
    assert not sin, f"Falta la línea «Qué mirar» (que_mirar) de {sin} en su entrada de demos/__init__.py"
    for k, p in enumerate(PESTANAS[:-1]):
        assert f'data-siguiente="{PESTANAS[k + 1].id}"' in html_ruta(p)


# --- en el navegador --------------------------------------------------------------------------------

navegador_ = pytest.mark.navegador


@navegador_
def test_predecir_revelar_y_contestar_mal_y_bien(pagina, url_app):
    pg = pagina
    pg.goto(url_app + "demo/escalado/")
    panel = pg.locator("#escalado-prediccion").first  # Gradio repite el id en el grupo de dentro
    panel.wait_for(timeout=30_000)
    pg.wait_for_function(
        "() => document.querySelector('#escalado-prediccion').parentElement.classList.contains('velada')"
    )
    pg.locator("#escalado-prediccion-numero").locator("input, textarea").first.fill("0.5")
    pg.locator("#escalado-revelar").click()
    frase = pg.locator("#escalado-revelacion")
    frase.get_by_text(re.compile(r"Dijiste 0\.50 y es 0\.96: te quedaste corto por 0\.46")).wait_for(timeout=30_000)
    assert not pg.evaluate(
        "() => document.querySelector('#escalado-prediccion').parentElement.classList.contains('velada')"
    )
    pg.locator("#escalado-prediccion .js-plotly-plot").first.wait_for(timeout=30_000)  # la verdad junto a lo dicho

    pg.locator("#escalado-preguntas").get_by_text("Comprueba lo que entendiste").click()
    pg.locator("#escalado-pregunta1").get_by_text("se cuadruplica").click()
    pg.locator("#escalado-respuesta1").get_by_text(re.compile(r"La respuesta es «se duplica»\..*la varianza")).wait_for(
        timeout=30_000
    )
    pg.locator("#escalado-pregunta1").get_by_text("se duplica").click()
    pg.locator("#escalado-respuesta1").get_by_text(re.compile(r"Correcto\..*√d")).wait_for(timeout=30_000)
    assert not pg.errores, pg.errores

    # El modo libro: el paso 3 (exp), con su término de la fórmula y las casillas de la fila, en el mismo naranja.
    from demos.comun.libro import NARANJA

    pg.goto(url_app + "demo/a-mano/")
    pg.locator("#a-mano-libro").get_by_text("Modo libro").click()
    pg.locator("#a-mano-libro-texto").get_by_text("Paso 1 de 5").wait_for(timeout=60_000)
    pg.locator("#a-mano-libro-siguiente").click()
    pg.locator("#a-mano-libro-siguiente").click()
    pg.locator("#a-mano-libro-texto").get_by_text("Paso 3 de 5: exp").wait_for(timeout=30_000)
    colores = pg.evaluate(
        """() => {
          const termino = document.querySelector('#a-mano-libro-texto .katex [style*="color"]');
          const mapa = document.querySelector('#a-mano-libro-figura .js-plotly-plot');
          return [getComputedStyle(termino).color, ...mapa.layout.shapes.map((f) => f.line.color)];
        }"""
    )
    r, g, b = (int(NARANJA[k : k + 2], 16) for k in (1, 3, 5))
    assert colores[0] == f"rgb({r}, {g}, {b})" and set(colores[1:]) == {NARANJA}, colores

    pg.goto(url_app + "demo/escalado/?predecir=0")
    pg.locator("#escalado-ruta").wait_for(timeout=30_000)
    assert not pg.locator("#escalado-prediccion").first.is_visible()
    assert pg.locator("#escalado-siguiente").get_attribute("href").endswith("/demo/temperatura/?predecir=0")


@navegador_
def test_la_ruta_visita_las_pestanas_en_orden_con_siguiente(pagina, url_app):
    """De la primera a la última (las 13 de la lección, y las que se agreguen), solo con «Siguiente»."""
    pg = pagina
    joins = []
    pg.on("request", lambda r: "queue/join" in r.url and joins.append(r.url))
    pg.goto(url_app)
    # La carga de la página elige la primera pestaña: hasta que llega, un «Siguiente» se desharía. La primera figura
    # llega con la página, antes que el evento de la carga (con la máquina cargada, un «Siguiente» se deshizo así):
    # se espera además a que la carga mande su evento y la página quede sin eventos en curso.
    pg.wait_for_function(
        "(id) => { const g = document.querySelector(`#${id}-figura1 .js-plotly-plot`); return g && g.data; }",
        arg=PESTANAS[0].id,
        timeout=120_000,
    )
    for _ in range(1200):  # a lo sumo 2 min
        if joins:
            break
        pg.wait_for_timeout(100)
    assert joins, "la página no mandó el evento de su carga"
    antes = -1
    for _ in range(170):  # a lo sumo 2 min
        if antes == len(joins) and not pg.evaluate("() => !!document.querySelector('.pending')"):
            break
        antes = len(joins)
        pg.wait_for_timeout(700)
    for k, p in enumerate(PESTANAS):
        enlace = pg.locator(f"#{p.id}-siguiente")
        enlace.wait_for(state="visible", timeout=60_000)
        # El marcador de progreso cuenta las pestañas vistas en esta sesión: k + 1 al llegar a la k-ésima.
        pg.wait_for_function(
            "([id, n]) => document.querySelector(`#${id}-ruta .cuantas`).textContent === n",
            arg=[p.id, str(k + 1)],
            timeout=30_000,
        )
        if k + 1 < len(PESTANAS):
            enlace.click()
    assert not pg.errores, pg.errores


# --- el modo libro de Atención a mano ---------------------------------------------------------------


def test_modo_libro_llega_a_los_pesos_y_la_salida_de_la_leccion_y_de_pytorch():
    import torch
    import torch.nn.functional as F

    from demos import a_mano
    from demos.comun.libro import NARANJA, PASOS, pasos

    lista, restar = pasos(a_mano.Q0, a_mano.K0, a_mano.V0)
    assert len(lista) == PASOS and not restar
    assert lista[3].matriz.round(2).tolist()[0] == [0.58, 0.14, 0.28]  # la primera fila de pesos de la lección
    assert lista[4].matriz.round(2).tolist()[0] == [0.86, 0.42]
    Q, K, V = (torch.tensor(t, dtype=torch.float64) for t in (a_mano.Q0, a_mano.K0, a_mano.V0))
    assert torch.allclose(torch.from_numpy(lista[4].matriz), F.scaled_dot_product_attention(Q, K, V))
    for k in range(1, PASOS + 1):
        texto, figura = a_mano.libro(paso=k, fila=2)
        assert f"Paso {k} de {PASOS}" in texto and NARANJA in texto  # el término de la fórmula, en naranja
        assert {i for i, _ in figura.marcas} == {1}  # y las casillas de la fila 2
    assert "1.41" in a_mano.libro(paso=2)[0]  # ÷ √2


def test_modo_libro_no_desborda_con_puntajes_enormes():
    from demos.comun.libro import pasos

    lista, restar = pasos([[1000.0, 1000.0]], [[1000.0, 1000.0]], [[1.0]])
    assert restar is True and all(np.isfinite(p.matriz).all() for p in lista)


@navegador_
def test_el_velo_espera_al_panel_de_la_prediccion_si_se_monta_despues(pagina):
    """La línea de la ruta vela la predicción al montarse; Gradio trae el código de cada componente aparte y el
    panel puede llegar después que ella: la línea lo espera (sin esto, la predicción quedaba a la vista)."""
    from demos.servir.aprender import JS_RUTA, html_ruta

    pg = pagina
    pg.set_content("<div id='linea'></div>")
    pg.evaluate(
        "([html, js]) => { const element = document.getElementById('linea'); element.innerHTML = html;"
        " new Function('element', js)(element); }",
        [html_ruta(POR_ID["escalado"], con_prediccion=True), JS_RUTA],
    )
    pg.evaluate(
        "() => { const caja = document.createElement('div'), panel = document.createElement('div');"
        " panel.id = 'escalado-prediccion'; caja.appendChild(panel); document.body.appendChild(caja); }"
    )
    pg.wait_for_function(
        "() => document.getElementById('escalado-prediccion').parentElement.classList.contains('velada')",
        timeout=5_000,
    )
