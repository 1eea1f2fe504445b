"""La pestaña «Clasificador con atención»: el clasificador de opiniones (§6) leído palabra por palabra.

Los números de la vista se comparan con los de `modelos.prediccion.predecir` sobre el checkpoint.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch

from demos.clasificador_atencion.pestana import (
    DOS_FRASES,
    EJEMPLOS,
    VACIA,
    advertencia,
    calcular,
    diferencias,
    exactitud_de_prueba,
    modelo,
    opciones_quitar,
)
from demos.comun.figuras import Imagen, Mapa
from demos.comun.figuras.pantalla import figura_plotly_json
from modelos.hub import carpeta_incluida
from modelos.prediccion import predecir
from tests.ayuda import espera_error
from tests.ayuda_navegador import espera_cambio, fuente_figura

CARPETA = carpeta_incluida()
NEGADA = "La película no fue aburrida."  # fichas: La película no fue aburrida .


def mapa_pesos(vista) -> Mapa:
    (mapa,) = vista[1].paneles
    return mapa


def test_frase_positiva_pesa_mas_la_palabra_de_sentimiento():
    probabilidades, figura, texto, _ = calcular("La cena estuvo deliciosa.")
    assert probabilidades["positiva"] > 0.99
    mapa = mapa_pesos((None, figura))
    assert mapa.x == ("La", "cena", "estuvo", "deliciosa", ".")
    assert mapa.x[int(mapa.matriz[0].argmax())] == "deliciosa"
    assert "**positiva**" in texto and "«deliciosa»" in texto


def test_la_negacion_da_la_vuelta_y_se_lleva_el_peso():
    afirmada, _, _, _ = calcular("Me gustó la cena.")
    negada, figura, texto, _ = calcular("No me gustó la cena.")
    assert afirmada["positiva"] > 0.99 and negada["negativa"] > 0.99
    mapa = figura.paneles[0]
    # Como dice la ficha del modelo: en una frase negada, la agrupación pesa más la negación.
    assert mapa.x[int(mapa.matriz[0].argmax())] == "No"


def test_alfa_de_no_es_el_mismo_en_dos_opiniones_opuestas():
    """La advertencia: «no» toma 0.97 en «No me gustó la cena.» (negativa) y en «La película no fue nada aburrida.»
    (positiva: niega algo negativo). Sus números, su «mismo peso» y su «opuestas», calculados."""
    texto = advertencia()
    for frase, clase in zip(DOS_FRASES, ("negativa", "positiva"), strict=True):
        lectura = predecir(frase, modelo())
        i = int(lectura.pesos.argmax())
        assert lectura.fichas[i].escrita.lower() == "no" and lectura.clase == clase
        assert f"α = {lectura.pesos[i]:.2f} en «{frase}» (**{clase}**)" in texto
    assert texto.count("α = 0.97") == 2
    assert "casi el mismo peso, en la misma palabra, en dos opiniones opuestas" in texto
    assert "no qué palabra decide" in texto and "doble negación" not in texto


def test_lo_que_dice_de_las_cabezas_y_de_quitar_una_palabra_sale_de_lo_calculado():
    """Ni «cada cabeza aprendió a buscar algo distinto» sin calcularlo, ni «las demás se reparten su peso»."""
    _, _, texto, _ = calcular()
    assert "Las 8 cabezas no miran todas a lo mismo: sus palabras más miradas son 4 distintas." in texto
    assert "aprendió a buscar algo distinto" not in texto and "sin entrenar" not in texto
    _, figura, texto, _ = calcular(quitar=3)
    assert "relee la frase entera" in texto and "se reparten su peso" not in texto
    assert figura.paneles[0].titulo.startswith("Pesos de la agrupación")
    assert calcular()[1].paneles[0].titulo.startswith("Peso α de cada posición")


def test_abre_en_la_negacion_de_algo_negativo_sin_invitar_a_leer_alfa_como_importancia():
    probabilidades, figura, texto, _ = calcular()
    mapa = mapa_pesos((None, figura))
    assert mapa.x[int(mapa.matriz[0].argmax())] == "no" and probabilidades["positiva"] > 0.99
    assert "no mide cuánto importa la palabra sola" in texto


def test_la_exactitud_que_cita_es_la_de_la_tarjeta_del_checkpoint():
    """La tarjeta dice lo que mide tests/test_clasificador.py en el conjunto de prueba; la pestaña cita la tarjeta."""
    assert exactitud_de_prueba() == pytest.approx(0.997, abs=5e-4)
    assert f"{exactitud_de_prueba():.2%}" in (CARPETA / "clasificador-opiniones" / "README.md").read_text("utf-8")


def test_las_diferencias_con_el_tutorial_se_leen_del_modelo():
    """Inspirado en el tutorial, no igual: posición aprendida, pre-norma con ReLU y una sola lineal al final."""
    red = modelo()
    assert isinstance(red.posicion, torch.nn.Embedding) and isinstance(red.bloques[0].mlp[1], torch.nn.ReLU)
    assert isinstance(red.salida, torch.nn.Linear)
    # La capa del tutorial (§6), tal cual la escribe: post-norma (norm_first=False por omisión) y GELU.
    suya = torch.nn.TransformerEncoderLayer(64, 4, 256, 0.1, batch_first=True, activation="gelu")
    assert suya.norm_first is False and suya.activation is torch.nn.functional.gelu
    texto = diferencias()
    assert "`nn.Embedding(64, 64)`" in texto and "√64 = 8" in texto and "pre-norma** con ReLU" in texto
    assert "(`norm_first=False`" in texto and "(64 → 2)" in texto and "Linear–GELU–Dropout–Linear" in texto


@pytest.mark.parametrize("frase", [f for _, f in EJEMPLOS])
def test_los_pesos_de_la_figura_son_los_del_modelo_y_suman_1(frase):
    lectura = predecir(frase)  # el checkpoint compartido, en float32
    mapa = calcular(frase)[1].paneles[0]
    assert mapa.matriz.shape == (1, len(lectura.fichas))
    assert np.allclose(mapa.matriz[0], lectura.pesos.numpy(), atol=1e-3)  # la figura lleva 3 decimales
    assert float(lectura.pesos.sum()) == pytest.approx(1.0, abs=1e-6)


def test_la_vista_usa_el_checkpoint_en_float64_sin_tocar_el_compartido():
    from modelos import cargar

    compartido = cargar("clasificador-opiniones")
    copia = modelo()
    assert next(compartido.parameters()).dtype == torch.float32
    assert next(copia.parameters()).dtype == torch.float64
    for (nombre, a), (_, b) in zip(compartido.state_dict().items(), copia.state_dict().items(), strict=True):
        assert torch.equal(a.double().cpu(), b.cpu()), nombre


def test_quitar_la_negacion_cambia_la_clase_y_el_peso_pasa_al_adjetivo():
    antes, figura, texto, _ = calcular(NEGADA, quitar=3)  # la n.º 3 es «no»
    assert antes["positiva"] > 0.99  # la predicción de arriba es la de la frase entera
    mapa = figura.paneles[0]
    assert mapa.matriz.shape == (2, 6)
    assert mapa.tapada[1].tolist() == [False, False, True, False, False, False]
    sin_no = predecir("La película fue aburrida.")
    assert sin_no.clase == "negativa"
    esperados = np.insert(sin_no.pesos.numpy(), 2, 0.0)
    assert np.allclose(mapa.matriz[1], esperados, atol=1e-3)
    assert mapa.x[int(mapa.matriz[1].argmax())] == "aburrida"
    assert texto.startswith("**Sin «no»** (la n.º 3), la opinión pasa a **negativa**")
    assert "negativa" in figura.paneles[0].titulo


def test_quitar_una_palabra_neutra_no_cambia_la_clase():
    _, _, texto, _ = calcular("La cena estuvo deliciosa.", quitar=1)
    assert "sigue siendo **positiva**" in texto


def test_las_opciones_de_quitar_son_las_fichas_de_la_frase():
    assert opciones_quitar(NEGADA) == [
        ("ninguna", 0),
        ("1 · La", 1),
        ("2 · película", 2),
        ("3 · no", 3),
        ("4 · fue", 4),
        ("5 · aburrida", 5),
        ("6 · .", 6),
    ]
    assert opciones_quitar("Una peli")[2] == ("2 · peli (no la conoce)", 2)
    assert opciones_quitar("") == opciones_quitar("Genial") == [("ninguna", 0)]  # nada que quitar


@pytest.mark.parametrize(
    ("kwargs", "mensaje"),
    [
        ({"quitar": 7}, "debe ser de 0 \\(ninguna\\) a 6; llegó 7"),
        ({"quitar": -1}, "entre 0 y"),
        ({"quitar": 2.5}, "número entero"),
        ({"frase": "Genial", "quitar": 1}, "una sola palabra"),
        ({"bloque": 3}, "El bloque debe ser un número entero entre 1 y 2"),
        ({"bloque": 0}, "entre 1 y 2"),
        ({"frase": ""}, re.escape(VACIA)),
        ({"frase": "   \n "}, re.escape(VACIA)),
        ({"frase": None}, re.escape(VACIA)),
        ({"frase": 12}, "La frase debe ser texto"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kwargs, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**({"frase": NEGADA} | kwargs))


def test_palabras_desconocidas_se_marcan_y_se_explican_sin_error():
    _, figura, texto, _ = calcular("Una peli chulísima, me flipó.")
    mapa = figura.paneles[0]
    desconocidas = [mapa.x[j] for _, j in mapa.marcas]
    assert desconocidas == ["peli", "chulísima", "flipó"]
    assert mapa.nombres_x[1] == "«peli» (no la conoce: la lee como <desconocida>)"
    assert "recuadradas en naranja" in texto
    assert "no las conoce&#59; las trata como &#60;desconocida&#62;" in texto  # escapado: se lee tal cual


def test_solo_palabras_desconocidas_o_emoji_dan_una_lectura_con_aviso():
    for frase in ("xyzzy qwerty", "🙂👍🏽"):
        probabilidades, _, texto, _ = calcular(frase)
        assert sum(probabilidades.values()) == pytest.approx(1.0)
        assert "no conoce ninguna palabra de la frase" in texto


def test_diez_mil_caracteres_se_recortan_con_aviso():
    probabilidades, figura, texto, cabezas = calcular("La cena estuvo deliciosa. " * 400)  # 10,400 caracteres
    assert "solo se leen los primeros" in texto and "el modelo lee solo los primeros 64" in texto
    assert figura.paneles[0].matriz.shape == (1, 64)
    assert isinstance(cabezas.paneles[0], Imagen)  # 64 × 64 por cabeza: imágenes; el promedio, un mapa
    assert isinstance(cabezas.paneles[-1], Mapa)
    assert len(figura_plotly_json(figura)) + len(figura_plotly_json(cabezas)) < 120_000


def test_lo_que_escribe_el_visitante_no_llega_a_los_titulos_ni_como_markdown():
    frase = "<img src=//x.example/a> ![](//x.example/b) [aquí](//x.example/c)"
    _, figura, texto, cabezas = calcular(frase)
    for fig in (figura, cabezas):
        titulos = [fig.titulo] + [p.titulo for p in fig.paneles]
        assert not any("x.example" in t or "img" in t for t in titulos)
        assert "<img" not in figura_plotly_json(fig)  # en las marcas y las pistas va escapado
    assert "<" not in texto and "](" not in texto and "«&#60;»" in texto  # el signo «<» es una ficha: escapada


@pytest.mark.parametrize("bloque", [1, 2])
def test_cada_cabeza_del_bloque_es_la_del_modelo(bloque):
    lectura = predecir(NEGADA, modelo())
    cabezas = calcular(NEGADA, bloque=bloque)[3]
    pesos = lectura.atencion[bloque - 1].numpy()  # (8, L, L)
    assert len(cabezas.paneles) == 9 and cabezas.paneles[-1].titulo == "Promedio de las cabezas"
    for k, panel in enumerate(cabezas.paneles[:8]):
        assert panel.titulo == f"Cabeza {k + 1}"
        assert np.allclose(panel.matriz, pesos[k], atol=5e-4)
        assert np.allclose(panel.matriz.sum(axis=1), 1.0, atol=5e-3)  # cada palabra reparte 1 entre las demás
    assert np.allclose(cabezas.paneles[-1].matriz, pesos.mean(axis=0), atol=5e-4)
    assert f"Bloque {bloque}" in cabezas.titulo


def test_la_misma_frase_da_la_misma_respuesta():
    una, otra = calcular(EJEMPLOS[4][1], 2, 5), calcular(EJEMPLOS[4][1], 2, 5)
    assert [figura_plotly_json(una[1]), figura_plotly_json(una[3]), una[2]] == [
        figura_plotly_json(otra[1]),
        figura_plotly_json(otra[3]),
        otra[2],
    ]


def test_respuestas_pequenas():
    for _, frase in EJEMPLOS:
        _, figura, _, cabezas = calcular(frase)
        assert len(figura_plotly_json(figura)) < 5_000 and len(figura_plotly_json(cabezas)) < 60_000


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    prediccion, figura, texto, cabezas = cliente.predict(api_name="/clasificador_atencion")
    assert prediccion["label"] == "positiva"  # «no … aburrida»: «no» se lleva el peso y la opinión es positiva
    assert "«no»" in texto and "no mide cuánto importa la palabra sola" in texto
    assert json.loads(figura["plot"])["data"][0]["type"] == "heatmap"


def test_api_con_negacion_y_palabra_quitada(cliente):
    prediccion, _, texto, _ = cliente.predict(NEGADA, 2, 3, api_name="/clasificador_atencion")
    assert prediccion["label"] == "positiva"
    assert "pasa a **negativa**" in texto


def test_api_rechaza_entrada_mala_y_sigue_respondiendo(cliente):
    assert "debe ser de 0 (ninguna) a 6" in espera_error(cliente, "/clasificador_atencion", frase=NEGADA, quitar=99)
    assert "al menos una palabra" in espera_error(cliente, "/clasificador_atencion", frase="")
    prediccion, *_ = cliente.predict("No me gustó la cena.", api_name="/clasificador_atencion")
    assert prediccion["label"] == "negativa"


@pytest.mark.navegador
def test_la_lista_abierta_recibe_las_palabras_de_una_frase_mas_corta(pagina, url_app):
    """Con la lista de «quitar» abierta llegan las palabras de la frase de la URL, que son menos: la lista las
    muestra sin que la página lance un error (Gradio 6.31 dibujaba las filas viejas con las opciones nuevas y
    lanzaba «Cannot read properties of undefined»; servidor/gradio_interno.trozos_corregidos lo arregla)."""
    id_ = "clasificador-atencion"
    # `load` lee la frase de la URL (con su velo sobre «quitar»); el evento que le sigue, el que trae sus
    # palabras, espera a que la lista esté abierta
    pasados, retenidos = [], []

    def cola(pedido):
        if pasados:
            return retenidos.append(pedido)
        pasados.append(pedido)
        pedido.continue_()

    pagina.route("**/gradio_api/queue/join*", cola)
    pagina.goto(f"{url_app}demo/{id_}/?frase=Me%20gust%C3%B3.&predecir=0")
    while not retenidos:
        pagina.wait_for_timeout(50)
    pagina.locator(f"#{id_}-quitar input").first.click()
    pagina.locator("[role=option]").filter(has_text="7 · .").first.wait_for(timeout=30_000)
    for pedido in retenidos:
        pedido.continue_()
    pagina.unroute_all()
    pagina.locator("[role=option]").filter(has_text="2 · gustó").first.wait_for(timeout=30_000)
    opciones = pagina.evaluate("[...document.querySelectorAll('[role=option]')].map((o) => o.ariaLabel)")
    assert opciones == ["ninguna", "1 · Me", "2 · gustó", "3 · ."]
    assert pagina.errores == []


@pytest.mark.navegador
def test_en_el_navegador_quitar_una_palabra_y_cambiar_de_frase(pagina, url_app):
    """La URL fija la frase y sus palabras llegan al desplegable; quitar «no» da dos filas; un ejemplo vuelve a
    «ninguna» con las palabras de la frase nueva."""
    id_ = "clasificador-atencion"
    # ?predecir=0: sin el velo de la predicción, que esconde el texto de la salida hasta revelarla
    pagina.goto(f"{url_app}demo/{id_}/?frase=La%20pel%C3%ADcula%20no%20fue%20aburrida.&predecir=0")
    fuente_figura(pagina, id_)
    desplegable = pagina.locator(f"#{id_}-quitar input").first
    desplegable.click()
    opcion = pagina.locator("[role=option]").filter(has_text="3 · no").first
    opcion.wait_for(timeout=30_000)  # las palabras de la frase de la URL llegan con `load`, con su figura
    antes = fuente_figura(pagina, id_)  # la de la frase de la URL (antes de `load`, la de la vista inicial)
    opcion.click()
    espera_cambio(pagina, id_, antes)
    assert json.loads(fuente_figura(pagina, id_))[0][0][1][2] is None  # fila «sin la n.º 3»: la casilla quitada
    pagina.get_by_text("la opinión pasa a negativa").first.wait_for(timeout=30_000)

    con_quitada = fuente_figura(pagina, id_)
    pagina.locator("button").filter(has_text=re.compile(r"^\s*negación\s*$")).first.click()  # no «negar algo negativo»
    espera_cambio(pagina, id_, con_quitada)
    pagina.wait_for_function(
        "(sel) => document.querySelector(sel).value === 'ninguna'", arg=f"#{id_}-quitar input", timeout=30_000
    )
    assert len(json.loads(fuente_figura(pagina, id_))[0][0]) == 1  # una fila: no se quita ninguna
    desplegable.click()
    assert "3 · gustó" in pagina.locator("[role=option]").all_inner_texts()
    assert pagina.errores == []


@pytest.mark.navegador
def test_su_punto_en_la_primera_pantalla_a_1280x800(navegador, url_app):
    """La prueba de los 30 s: como llega un estudiante por la ruta, sin tocar nada, «α no decide la opinión» con sus
    dos cifras se lee en la primera pantalla (con la explicación plegada, es su primera línea)."""
    contexto = navegador.new_context(viewport={"width": 1280, "height": 800}, locale="es-ES")
    pg = contexto.new_page()
    try:
        pg.goto(url_app + "?tab=clasificador-atencion")
        punto = pg.locator("#pestana-clasificador-atencion .explicacion").get_by_text("α no decide la opinión").first
        punto.wait_for(state="visible", timeout=120_000)
        pg.wait_for_timeout(1000)
        pg.evaluate("window.scrollTo(0, 0)")
        caja = pg.locator("#pestana-clasificador-atencion .explicacion .prose > :first-child").first.bounding_box()
        assert caja and caja["y"] + caja["height"] <= 800, caja
        linea = pg.locator("#pestana-clasificador-atencion .explicacion .prose > :first-child").first.inner_text()
        assert "(positiva)" in linea and "(negativa)" in linea and linea.count("0.97") == 1, linea
        cortada = pg.evaluate(
            "(sel) => { const e = document.querySelector(sel); return e.scrollHeight > e.clientHeight + 1; }",
            "#pestana-clasificador-atencion .explicacion .prose > :first-child",
        )
        assert not cortada, "la línea plegada no entra entera: se corta con «…»"
    finally:
        contexto.close()
