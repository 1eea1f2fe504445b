"""Dropout y model.eval(): las filas suman 1 en evaluación y solo en promedio en entrenamiento, contra nn.Dropout."""

from __future__ import annotations

import copy
import itertools
import re

import numpy as np
import pytest
import torch

from demos import dropout as pestana
from demos.comun.figuras.pantalla import figura_plotly_json
from modelos import AtencionMulticabeza, cargar

X = torch.tensor([pestana.SECUENCIA])


def test_la_copia_apaga_lo_mismo_que_nn_dropout_con_la_misma_semilla():
    """La copia de la petición (DropoutConGenerador) da los mismos logits y pesos que el modelo con nn.Dropout(p)
    en train() tras torch.manual_seed: el mismo sorteo, sin tocar el RNG global."""
    modelo = cargar(pestana.NOMBRE)
    con_nn = copy.deepcopy(modelo)
    for capa in [m for m in con_nn.modules() if isinstance(m, AtencionMulticabeza)]:
        capa.dropout = torch.nn.Dropout(0.3)
    con_nn.train()
    torch.manual_seed(7)
    logits, (pesos,) = con_nn(X.expand(4, -1), con_pesos=True)
    propia = pestana.copia_en_entrenamiento(modelo, 0.3, torch.Generator().manual_seed(7))
    logits_p, (pesos_p,) = propia(X.expand(4, -1), con_pesos=True)
    assert torch.equal(pesos, pesos_p) and torch.equal(logits, logits_p) and (pesos == 0).any()


def test_un_lote_de_llamadas_es_lo_mismo_que_llamadas_una_tras_otra():
    copia = pestana.copia_en_entrenamiento(cargar(pestana.NOMBRE), 0.2, torch.Generator().manual_seed(3))
    with torch.inference_mode():
        seguidas = [copia(X, con_pesos=True)[1][0] for _ in range(3)]
    copia = pestana.copia_en_entrenamiento(cargar(pestana.NOMBRE), 0.2, torch.Generator().manual_seed(3))
    with torch.inference_mode():
        _, (lote,) = copia(X.expand(3, -1), con_pesos=True)
    assert torch.equal(torch.cat(seguidas), lote)


def test_el_modelo_compartido_no_se_toca():
    pestana.calcular(0.35, 11)
    modelo = cargar(pestana.NOMBRE)
    assert not modelo.training
    assert all(m.dropout.p == 0 for m in modelo.modules() if isinstance(m, AtencionMulticabeza))


@pytest.mark.parametrize("p", [0.1, 0.25, 0.5])
def test_en_evaluacion_cada_fila_suma_1_y_en_entrenamiento_solo_en_promedio(p):
    r = pestana.correr(p, 0)
    np.testing.assert_allclose(r["pesos"].sum(-1), 1, atol=1e-5)
    sumas = r["pesos_e"].sum(-1)  # (N, 8)
    assert np.abs(sumas - 1).max() > 0.5  # una llamada sola: lejos de 1 (un peso grande apagado, o todo × 1/(1 − p))
    # Los que quedan valen w/(1 − p) y los apagados 0
    quedan = r["pesos_e"] != 0
    np.testing.assert_allclose(r["pesos_e"][quedan], np.broadcast_to(r["pesos"], quedan.shape)[quedan] / (1 - p), 1e-5)
    assert 1 - p - 0.05 < quedan.mean() < 1 - p + 0.05
    # En promedio, 1: a menos de 4 errores típicos, con la desviación de la fórmula √(p/(1 − p)·Σw²)
    desv = np.sqrt(p / (1 - p) * (r["pesos"] ** 2).sum(-1))  # (8,)
    assert (np.abs(sumas.mean(0) - 1) < 4 * desv / np.sqrt(pestana.LLAMADAS)).all()
    np.testing.assert_allclose(sumas.std(0), desv, rtol=0.25)


def test_vista_inicial_p_01_la_fila_que_mas_se_aleja_y_la_evaluacion_en_1():
    punto, figura, texto, promedio = pestana.calcular()
    r = pestana.correr(0.1, 0)
    uno = r["pesos_e"][0].sum(-1)
    k = int(np.abs(uno - 1).argmax())
    assert f"la fila {k + 1} suma **{uno[k]:.2f}**" in punto and "en evaluación, **1.000**" in punto
    evaluacion, llamada1, llamada2, sumas = figura.paneles
    np.testing.assert_allclose(sumas.matriz[:, 0], 1, atol=1e-5)
    np.testing.assert_allclose(sumas.matriz[:, 1], uno, atol=1e-5)
    assert (llamada1.tapada == ((llamada1.matriz == 0) & (evaluacion.matriz != 0))).all() and llamada1.tapada.any()
    assert not np.array_equal(llamada1.matriz, llamada2.matriz)  # dos llamadas, dos sorteos
    assert not evaluacion.tapada.any()
    # El promedio de la fila tras las N llamadas, en el texto y al final de la curva
    media = float(re.search(r"suma en promedio \*\*([\d.]+)\*\*", texto).group(1))
    assert media == pytest.approx(r["pesos_e"][:, k].sum(-1).mean(), abs=5e-4)
    assert promedio.curvas[0].y[-1] == pytest.approx(media, abs=5e-4)
    assert promedio.curvas[1].y[-1] == pytest.approx(media * 0.9, abs=5e-4)  # sin ÷ (1 − p)
    bien = (r["pred_e"] == np.array(pestana.SECUENCIA[::-1])).all(1).mean()
    assert f"el {100 * bien:.1f} % escribe la inversión entera bien" in texto and "`0 4 9 6 9 3 3 8`" in texto


def test_dos_llamadas_en_entrenamiento_dan_probabilidades_distintas_y_en_evaluacion_iguales():
    r = pestana.correr(0.1, 0)
    cambio = np.abs(r["prob_e"][0] - r["prob_e"][1]).max()
    assert cambio > 1e-3 and f"la que más cambia, en **{cambio:.2f}**" in pestana.calcular()[0]
    modelo = cargar(pestana.NOMBRE)
    with torch.inference_mode():
        assert torch.equal(modelo(X), modelo(X))


def test_con_p_0_entrenamiento_y_evaluacion_coinciden():
    punto, figura, texto, _ = pestana.calcular(0)
    r = pestana.correr(0.0, 0)
    np.testing.assert_allclose(r["pesos_e"], np.broadcast_to(r["pesos"], r["pesos_e"].shape), atol=1e-6)
    assert not any(m.tapada.any() for m in figura.paneles)
    assert "no apaga nada" in punto and "como en evaluación" in texto


def test_cada_parada_es_la_misma_en_cada_peticion_y_las_apagadas_crecen_con_p():
    a, b = pestana.calcular(0.2, 5), pestana.calcular(0.2, 5)
    assert a[0] == b[0] and figura_plotly_json(a[1]) == figura_plotly_json(b[1])
    # El mismo sorteo para todas las paradas: una casilla apagada con p sigue apagada con un p mayor
    apagadas = [pestana.correr(p, 5)["pesos_e"] == 0 for p in (0.1, 0.2, 0.35, 0.5)]
    assert all((menor <= mayor).all() for menor, mayor in itertools.pairwise(apagadas))


def test_las_11_paradas_de_p_van_al_navegador_en_menos_de_los_200_kB_de_la_pestana():
    import gradio as gr

    from demos.comun import barrido

    with gr.Blocks():
        vista = pestana.construir()
    (b,) = vista.barridos
    p = barrido.paquete(vista, b, [c.value for c in vista.entradas])
    assert "servidor" not in p and len(p["paradas"]) == 11
    assert barrido.tamano([p]) < barrido.MAX_BYTES / 2  # medido: 80 kB


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"p": 0.6}, "entre 0 y 0.5"),
        ({"p": -0.1}, "entre 0 y 0.5"),
        ({"p": float("nan")}, "p"),
        ({"p": "mucho"}, "p"),
        ({"semilla": -1}, "entre 0 y"),
        ({"semilla": 1.5}, "entero"),
        ({"semilla": None}, "entre 0 y"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        pestana.calcular(**kw)


def test_las_respuestas_salen_de_lo_que_muestra_la_pestana():
    prediccion = pestana.APRENDER.prediccion.cifras()
    assert prediccion["respuesta"] == pytest.approx(1, abs=0.05)
    iguales, suma = (q.cifras() for q in pestana.APRENDER.preguntas)
    assert iguales == {"respuesta": "no"}
    assert suma["respuesta"] == pytest.approx(1, abs=1e-5) and float(suma["entrenando"]) != pytest.approx(1, abs=0.01)


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    punto, figura, texto, promedio = cliente.predict(api_name="/dropout")
    assert "p = 0.10" in punto and "en evaluación, **1.000**" in punto and "model.eval()" in texto


# --- en Chromium: las capturas que se miran (artefactos/capturas/dropout-*.png) y ningún texto pisado ------------


@pytest.mark.navegador
@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("nombre", "ventana", "esquema"),
    [
        ("portatil", (1280, 800), "light"),
        ("telefono", (390, 844), "light"),
        ("android", (360, 800), "light"),
        ("oscuro", (1280, 800), "dark"),
        ("proyector", (1280, 720), "light"),
    ],
)
def test_capturas_sin_textos_que_se_pisen(navegador, url_app, nombre, ventana, esquema):
    from tests.ayuda_navegador import (
        ESPERA_MS,
        QUIETA,
        QUIETA_MS,
        carpeta_capturas,
        fuente_figura,
        guardar_captura,
        textos_que_se_solapan,
    )

    movil = ventana[0] < 500
    contexto = navegador.new_context(
        viewport=dict(zip(("width", "height"), ventana, strict=True)),
        locale="es-ES",
        color_scheme=esquema,
        has_touch=movil,
        is_mobile=movil,
    )
    contexto.set_default_timeout(ESPERA_MS)
    pg = contexto.new_page()
    try:
        pg.goto(url_app + "demo/dropout/?predecir=0" + ("&presentacion=1" if nombre == "proyector" else ""))
        fuente_figura(pg, "dropout")
        pg.wait_for_function(QUIETA, arg=QUIETA_MS, timeout=30_000, polling=50)  # sin salidas a medio llegar
        guardar_captura(pg, carpeta_capturas() / f"dropout-{nombre}.png")
        assert not textos_que_se_solapan(pg)
        pg.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        pg.wait_for_timeout(800)
        guardar_captura(pg, carpeta_capturas() / f"dropout-{nombre}-abajo.png")
        pg.screenshot(path=str(carpeta_capturas() / f"dropout-{nombre}-entera.png"), full_page=True)
    finally:
        contexto.close()
