"""La pestaña «Atención cruzada»: pesos rectangulares objetivo × fuente, con AtencionCruzada."""

import numpy as np
import pytest
import torch

from demos.atencion_cruzada.pestana import (
    AL_AZAR,
    CABEZAS,
    D_MODELO,
    FUENTE,
    IDENTIDAD,
    OBJETIVO,
    calcular,
    crear_capa,
    pesos_cruzados,
    vector_palabra,
    vectores,
)
from demos.comun.figuras.pantalla import figura_plotly_json
from modelos import atencion
from tests.ayuda import espera_error, figura_api


@pytest.mark.parametrize("Lo, Lf", [(6, 5), (1, 7), (7, 1), (3, 12), (32, 32), (32, 2)])
@pytest.mark.parametrize("proyecciones", [IDENTIDAD, AL_AZAR])
def test_pesos_rectangulares_objetivo_por_fuente_que_suman_1(Lo, Lf, proyecciones):
    objetivo = [f"o{i}" for i in range(Lo)]
    fuente = [f"f{j}" for j in range(Lf)]
    pesos = pesos_cruzados(objetivo, fuente, proyecciones, semilla=3)
    assert pesos.shape == (CABEZAS, Lo, Lf)
    assert np.allclose(pesos.sum(axis=-1), 1.0, atol=1e-5)


def test_q_del_objetivo_k_y_v_de_la_fuente_como_la_atencion_a_mano():
    capa = crear_capa(AL_AZAR, semilla=1)
    objetivo, fuente = vectores(["the", "bank"], 1), vectores(["el", "banco", "azul"], 1)
    with torch.inference_mode():
        y, pesos = capa(objetivo, fuente)
    W_q, W_k, W_v = capa.qkv.weight.split(D_MODELO)
    b_q, b_k, b_v = capa.qkv.bias.split(D_MODELO)
    q, k, v = objetivo @ W_q.T + b_q, fuente @ W_k.T + b_k, fuente @ W_v.T + b_v  # (1, L, d)
    separar = lambda t: t.view(1, t.shape[1], CABEZAS, -1).transpose(1, 2)  # noqa: E731
    o, pesos_a_mano = atencion(separar(q), separar(k), separar(v))
    assert pesos.shape == (1, CABEZAS, 2, 3)
    assert torch.allclose(pesos, pesos_a_mano, atol=1e-6)
    y_a_mano = capa.salida(o.transpose(1, 2).reshape(1, 2, D_MODELO))
    assert torch.allclose(y, y_a_mano, atol=1e-5)


def test_la_misma_palabra_da_el_mismo_vector_y_la_semilla_lo_cambia():
    assert torch.equal(vector_palabra("banco", 0), vector_palabra("banco", 0))
    assert torch.equal(vector_palabra("Banco", 0), vector_palabra("banco", 0))
    assert not torch.equal(vector_palabra("banco", 0), vector_palabra("banco", 1))
    assert vector_palabra("banco").shape == (D_MODELO,)


def test_con_identidad_una_palabra_igual_se_lleva_el_mayor_peso():
    pesos = pesos_cruzados(["Ana", "central"], ["la", "estación", "central", "Ana"]).mean(axis=0)
    assert pesos[0].argmax() == 3 and pesos[0, 3] > 0.5
    assert pesos[1].argmax() == 2 and pesos[1, 2] > 0.5


def test_vista_inicial_etiqueta_filas_y_columnas():
    promedio, cabezas, texto = calcular()
    assert promedio.x == tuple(FUENTE.split()) and promedio.y == tuple(OBJETIVO.split())
    assert "Objetivo" in promedio.eje_y and "Fuente" in promedio.eje_x
    pesos = pesos_cruzados(OBJETIVO.split(), FUENTE.split())
    assert promedio.matriz.shape == (6, 5) and np.allclose(promedio.matriz, pesos.mean(axis=0))
    assert promedio.textos()[0][0] == "0.86"  # «Ana» mira a «Ana»: el número en la casilla
    assert promedio.rango() == (0.0, pytest.approx(pesos.max()))  # de 0 al peso más alto
    assert len(cabezas.paneles) == CABEZAS
    for k, cabeza in enumerate(cabezas.paneles):
        assert cabeza.titulo == f"Cabeza {k + 1}" and np.allclose(cabeza.matriz, pesos[k], atol=5e-4)
        assert cabeza.nombres_x == tuple(FUENTE.split()) and cabeza.nombres_y == tuple(OBJETIVO.split())
        assert cabeza.y == (tuple(OBJETIVO.split()) if k == 0 else ("",) * 6)  # filas rotuladas en la primera
    assert len(figura_plotly_json(promedio)) + len(figura_plotly_json(cabezas)) < 20_000
    assert "Sin entrenar" in cabezas.titulo and "Sin entrenar" in promedio.titulo  # la figura misma lo avisa
    assert "**6 filas**" in texto and "**5 columnas**" in texto
    assert "no es un traductor entrenado" in texto.lower()


def test_frases_de_32_palabras_de_30_letras_caben():
    frase = " ".join(["x" * 29 + str(i % 10) for i in range(32)])
    promedio, cabezas, texto = calcular(frase, "una fuente corta")
    assert promedio.matriz.shape == (32, 3) and promedio.y == tuple(frase.split())
    assert sum(bool(r) for r in cabezas.paneles[0].y) == 16  # una palabra de cada dos en el eje; todas en la pista
    assert cabezas.paneles[0].nombres_y == tuple(frase.split())
    assert len(figura_plotly_json(promedio)) + len(figura_plotly_json(cabezas)) < 70_000


def test_una_palabra_con_html_no_da_un_enlace_en_la_figura():
    """Un enlace de diapositiva puede traer las frases: en la figura se leen tal cual, sin etiquetas de HTML.

    Python no separa palabras en U+FEFF y el lector de Plotly sí lo toma por espacio: «<a\ufeffhref=…>».
    """
    promedio, cabezas, _ = calcular('<a\ufeffhref="https://x.io"> <b>Ana</b>', FUENTE)
    for figura in (promedio, cabezas):
        texto = figura_plotly_json(figura)
        assert "<a" not in texto and "<b>" not in texto and "&lt;b&gt;Ana&lt;/b&gt;" in texto


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"objetivo": ""}, "al menos una palabra"),
        ({"fuente": "   "}, "al menos una palabra"),
        ({"objetivo": "a " * 33}, "caben hasta 32"),
        ({"fuente": "x" * 100_000}, "demasiado larga"),
        ({"fuente": "una " + "p" * 31}, "hasta 30 letras"),
        ({"objetivo": None}, "debe ser un texto"),
        ({"objetivo": 42}, "debe ser un texto"),
        ({"proyecciones": "otra"}, "identidad"),
        ({"semilla": -1}, "entre 0 y"),
        ({"semilla": float("nan")}, "entre 0 y"),
        ({"semilla": 0.5}, "entre 0 y"),
        ({"semilla": "abc"}, "entre 0 y"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**kw)


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    promedio, cabezas, texto = cliente.predict(api_name="/atencion_cruzada")
    tipos, textos = figura_api(promedio)
    assert tipos == ["heatmap"] and textos[0].startswith("Pesos 6 × 5 (L_objetivo × L_fuente)")
    tipos, textos = figura_api(cabezas)
    assert tipos == ["heatmap"] * 4 and textos[1:] == [f"Cabeza {h}" for h in range(1, 5)]
    assert "(1, 4, 6, 5)" in texto


def test_api_con_un_par_tipico_y_capa_al_azar(cliente):
    *_, texto = cliente.predict(
        objetivo="the central station",
        fuente="la estación central",
        proyecciones=AL_AZAR,
        semilla=7,
        api_name="/atencion_cruzada",
    )
    assert "(1, 4, 3, 3)" in texto and "esta vez es cuadrada" in texto


def test_api_rechaza_frases_malas_y_sigue_respondiendo(cliente):
    assert "caben hasta 32" in espera_error(cliente, "/atencion_cruzada", objetivo="a " * 40)
    assert "demasiado larga" in espera_error(cliente, "/atencion_cruzada", fuente="x" * 100_000)
    assert "al menos una palabra" in espera_error(cliente, "/atencion_cruzada", fuente="")
    assert "identidad" in espera_error(cliente, "/atencion_cruzada", proyecciones="nada")
    *_, texto = cliente.predict(objetivo="hola", api_name="/atencion_cruzada")
    assert "(1, 4, 1, 5)" in texto


# --- el punto a la vista (#23) y el cuello de botella (#25.2) ---------------------------------------


def test_la_forma_rectangular_va_en_el_titulo_y_abre_el_texto():
    promedio, _, texto = calcular()
    assert promedio.titulo.startswith("Pesos 6 × 5 (L_objetivo × L_fuente)") and promedio.matriz.shape == (6, 5)
    assert texto.startswith("**Formas:**")


def test_con_c_fijo_todos_los_pasos_ven_lo_mismo_y_con_c_t_no():
    from demos.atencion_cruzada.cuello import FIJO, POR_PASO, calcular_cuello, contextos

    objetivo, fuente = OBJETIVO.split(), FUENTE.split()
    alfa, C = contextos(objetivo, fuente, FIJO)
    H = vectores(fuente, 0)[0]
    assert np.allclose(alfa, 1 / 5) and np.allclose(C, H.mean(0).numpy(), atol=1e-6)  # c = promedio de la fuente
    assert torch.linalg.matrix_rank(torch.from_numpy(C)) == 1
    alfa_t, C_t = contextos(objetivo, fuente, POR_PASO)
    assert np.allclose(alfa_t, pesos_cruzados(objetivo, fuente).mean(0), atol=1e-6)
    with torch.inference_mode():  # c_t: la salida de la capa de la pestaña (W = identidad)
        esperado, _ = crear_capa(IDENTIDAD, 0)(vectores(objetivo, 0), vectores(fuente, 0))
    assert np.allclose(C_t, esperado[0].numpy(), atol=1e-6) and torch.linalg.matrix_rank(torch.from_numpy(C_t)) > 1
    figura, texto = calcular_cuello(OBJETIVO, FUENTE, FIJO)
    mapa, curvas = figura.paneles
    assert mapa.matriz.shape == (6, 5) and "rango 1" in texto
    assert "rango 1" not in calcular_cuello(OBJETIVO, FUENTE, POR_PASO)[1]


def test_con_c_fijo_las_fuentes_largas_pierden_la_palabra():
    """c fijo = promedio de L vectores al azar: su coseno con cada uno ≈ 1/√L; c_t (q_t = h_t) la conserva."""
    from demos.atencion_cruzada.cuello import LARGOS, calcular_cuello, recuerdo_segun_largo

    r = recuerdo_segun_largo()
    L = np.array(LARGOS, float)
    assert np.allclose(r["coseno_fijo"][2:], 1 / np.sqrt(L[2:]), rtol=0.25)
    assert (np.diff(r["coseno_fijo"]) < 0).all() and r["coseno_paso"].min() > 0.9
    assert r["recupera_paso"][LARGOS.index(64)] == 1.0 and r["recupera_fijo"][LARGOS.index(64)] <= 2 / 64
    g = torch.Generator().manual_seed(0)
    for L_ in LARGOS[: LARGOS.index(64) + 1]:
        H = torch.randn(L_, D_MODELO, generator=g)
    c = H.mean(0)
    assert r["coseno_fijo"][LARGOS.index(64)] == pytest.approx(
        torch.nn.functional.cosine_similarity(c[None], H).mean().item()
    )
    _, texto = calcular_cuello(OBJETIVO, FUENTE)
    assert f"{r['coseno_fijo'][LARGOS.index(64)]:.2f} con 64" in texto
    # El 1/√L es del promedio, no del ancho: con d = 1 024 da lo mismo; y un solo c acierta 1 de L por construcción.
    assert float(r["coseno_fijo_d_grande"]) == pytest.approx(1 / 8, abs=0.03) and "no alcanzan" not in texto
    assert all(r["recupera_fijo"][k] * n == 1 for k, n in enumerate(LARGOS))
    assert "acierta 1 de los 64 pasos (1.6 %, 1/L por construcción" in texto and "En el mejor caso" in texto


def test_la_seccion_del_cuello_tiene_su_id_y_su_evento_publico():
    import gradio as gr

    from demos.atencion_cruzada import pestana

    with gr.Blocks() as demo:
        pestana.construir()
    assert "atencion-cruzada-cuello" in {b.elem_id for b in demo.blocks.values()}
    assert "atencion_cruzada_cuello" in {d.api_name for d in demo.fns.values()}


def test_el_cuello_rechaza_un_modo_desconocido():
    from demos.atencion_cruzada.cuello import calcular_cuello

    with pytest.raises(ValueError, match="El contexto debe ser"):
        calcular_cuello(OBJETIVO, FUENTE, "otro")
