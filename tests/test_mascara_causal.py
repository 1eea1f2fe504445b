"""La pestaña «Máscara causal» reproduce la matriz de pesos de la lección y la compara con PyTorch."""

from concurrent.futures import ThreadPoolExecutor

import gradio as gr
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from demos.comun.figuras.pantalla import figura_plotly, figura_plotly_json
from demos.mascara_causal.pestana import calcular, construir, consultas_y_claves, hacer_mascara, tuberia
from demos.servir.conectar import aplicar_url
from modelos import atencion, mascara_causal
from tests.ayuda import espera_error, figura_api

PESOS_LECCION = [  # atencion_y_transformers.salida.txt, semilla 1, «Ana sacó plata del banco»
    [1.00, 0.00, 0.00, 0.00, 0.00],
    [0.53, 0.47, 0.00, 0.00, 0.00],
    [0.16, 0.67, 0.17, 0.00, 0.00],
    [0.04, 0.14, 0.10, 0.72, 0.00],
    [0.13, 0.19, 0.10, 0.05, 0.53],
]
TIPOS = ["causal", "relleno", "ninguna", "ventana"]


def _r2(matriz) -> list:
    """Redondeo a 2 decimales como lo imprime la lección (en float64: sin restos de float32)."""
    return np.round(np.asarray(matriz, dtype=np.float64), 2).tolist()


def test_semilla_1_causal_da_la_matriz_de_la_leccion():
    pasos = tuberia(5, semilla=1, mascara=mascara_causal(5))
    assert _r2(pasos["pesos"]) == PESOS_LECCION


def test_fila_2_da_053_047_y_fila_5_da_053():
    pesos = tuberia(5, 1, mascara_causal(5))["pesos"]
    assert _r2(pesos[1, :2]) == [0.53, 0.47]
    assert _r2(pesos[4]) == [0.13, 0.19, 0.10, 0.05, 0.53]


@pytest.mark.parametrize("L", [0, 1, 5, 32])
def test_mascara_causal_es_la_triangular_de_arriba_booleana(L):
    """La de `modelos` (comparando índices) es bit a bit la de `triu`: booleana, contigua, True sobre la diagonal."""
    m = mascara_causal(L)
    assert m.dtype == torch.bool and m.shape == (L, L) and m.is_contiguous()
    assert torch.equal(m, torch.ones(L, L, dtype=torch.bool).triu(diagonal=1))


def test_la_vista_calcula_con_un_hilo_de_torch(monkeypatch):
    """Matrices de a lo sumo 32 × 32: con dos hilos de torch (las pruebas, o ATENCION_HILOS_TORCH=2) cada
    softmax esperaba al otro hilo; la vista calcula con uno y deja el número como estaba."""
    from demos.mascara_causal import pestana

    hilos, original = [], pestana.tuberia
    monkeypatch.setattr(pestana, "tuberia", lambda *a: hilos.append(torch.get_num_threads()) or original(*a))
    antes = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        calcular(semilla=7)
        assert hilos == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(antes)


def test_generador_propio_igual_que_la_semilla_global_de_la_leccion():
    torch.manual_seed(1)
    q_leccion, k_leccion = torch.randn(5, 8), torch.randn(5, 8)
    torch.manual_seed(999)  # el estado global no influye
    q, k = consultas_y_claves(5, 1)
    assert torch.equal(q, q_leccion) and torch.equal(k, k_leccion)


def test_hilos_en_paralelo_dan_lo_mismo_que_uno_tras_otro():
    semillas = list(range(16))
    solos = [tuberia(12, s, mascara_causal(12))["pesos"] for s in semillas]
    with ThreadPoolExecutor(max_workers=4) as hilos:
        juntos = list(hilos.map(lambda s: tuberia(12, s, mascara_causal(12))["pesos"], semillas))
    for a, b in zip(solos, juntos, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("L", [1, 5, 32])
def test_causal_igual_que_scaled_dot_product_attention(L):
    q, k = consultas_y_claves(L, 3)
    nuestra, _ = atencion(q, k, k, hacer_mascara("causal", L))
    suya = F.scaled_dot_product_attention(q[None], k[None], k[None], is_causal=True)[0]
    torch.testing.assert_close(nuestra, suya, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("tipo, k, w", [("relleno", 2, 1), ("ventana", 1, 1), ("ventana", 1, 3), ("ninguna", 1, 1)])
def test_otras_mascaras_igual_que_sdpa_con_attn_mask(tipo, k, w):
    L = 9
    q, kk = consultas_y_claves(L, 5)
    mascara = hacer_mascara(tipo, L, k, w)
    nuestra, _ = atencion(q, kk, kk, mascara)
    permitido = None if mascara is None else ~mascara  # SDPA: True = sí mira (al revés que la lección)
    suya = F.scaled_dot_product_attention(q[None], kk[None], kk[None], attn_mask=permitido)[0]
    torch.testing.assert_close(nuestra, suya, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("tipo", TIPOS)
def test_cada_fila_suma_1_y_lo_tapado_pesa_0_exacto(tipo):
    L = 7
    mascara = hacer_mascara(tipo, L, k=3, w=2)
    pasos = tuberia(L, 4, mascara)
    np.testing.assert_allclose(pasos["pesos"].sum(axis=1), 1.0, atol=1e-6)
    if mascara is not None:
        assert (pasos["pesos"][mascara.numpy()] == 0).all()
        assert np.isneginf(pasos["tapados"][mascara.numpy()]).all()
        assert np.isfinite(pasos["tapados"][~mascara.numpy()]).all()


def test_relleno_tapa_columnas_y_las_filas_de_relleno_miran_palabras_reales():
    mascara = hacer_mascara("relleno", 5, k=2)
    assert mascara.int().tolist() == [[0, 0, 0, 1, 1]] * 5
    pesos = tuberia(5, 1, mascara)["pesos"]
    assert (pesos[3:, :3] > 0).all()  # «del» y «banco» (relleno) siguen mirando a las palabras reales
    np.testing.assert_allclose(pesos.sum(axis=1), 1.0, atol=1e-6)


def test_ventana_mira_a_las_w_anteriores_y_a_si_misma():
    mascara = hacer_mascara("ventana", 6, w=2)
    assert (~mascara).int().tolist() == [
        [1, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 0],
        [0, 1, 1, 1, 0, 0],
        [0, 0, 1, 1, 1, 0],
        [0, 0, 0, 1, 1, 1],
    ]
    assert torch.equal(hacer_mascara("ventana", 6, w=5), mascara_causal(6))  # ventana ancha = causal


def test_una_fila_sin_claves_da_ceros_y_no_nan_como_dice_el_texto():
    q, k = consultas_y_claves(4, 0)
    mascara = hacer_mascara("relleno", 4, k=4)  # todo tapado: solo posible llamando a atencion directamente
    _, pesos = atencion(q, k, k, mascara)
    assert torch.equal(pesos, torch.zeros(4, 4))
    *_, texto = calcular()
    assert "ceros" in texto and "0/0" in texto


def test_vista_inicial_y_texto():
    tuberia_, pesos, texto = calcular()
    assert "10 de 25" in texto  # casillas tapadas por la máscara causal con 5 palabras
    assert "exacto" in texto or "float32" in texto
    # La figura de pesos lleva los números de la lección en las casillas, y nada en las tapadas.
    mapa, sumas = pesos.paneles
    textos = np.array(mapa.textos())
    assert [[t for t in fila if t] for fila in textos.tolist()] == [[f"{p:.2f}" for p in f if p] for f in PESOS_LECCION]
    assert (textos[mapa.tapada] == "").all()
    np.testing.assert_array_equal(mapa.tapada, mascara_causal(5).numpy())
    assert mapa.x == mapa.y == ("Ana", "sacó", "plata", "del", "banco")
    assert (mapa.eje_x, mapa.eje_y) == ("Palabra que se mira", "Palabra que mira")
    assert (mapa.vmin, mapa.vmax, mapa.colores) == (0.0, 1.0, "azul")
    assert pesos.titulo == "3) Pesos = softmax de cada fila, máscara causal"
    # Al lado, la suma de cada fila, en gris: 1.00 las cinco.
    assert sumas.x == ("Σ fila",) and sumas.textos() == [["1.00"]] * 5 and sumas.colores == "grises"
    assert sumas.nombres_y == ("Ana", "sacó", "plata", "del", "banco") and sumas.pista == "la fila de «{y}» suma {v}"


def test_tuberia_puntajes_y_los_mismos_con_menos_infinito():
    tuberia_, _, _ = calcular()
    puntajes, tapados = tuberia_.paneles
    pasos = tuberia(5, 1, mascara_causal(5))
    np.testing.assert_array_equal(puntajes.matriz, pasos["puntajes"])
    assert np.isneginf(tapados.matriz[tapados.tapada]).all() and tapados.tapada.sum() == 10
    textos = np.array(tapados.textos())
    assert (textos[tapados.tapada] == "−∞").all()
    assert (textos[~tapados.tapada] == np.array(puntajes.textos())[~tapados.tapada]).all()
    # Una sola escala para los dos: la de los puntajes, de su mínimo a su máximo, y una sola barra.
    rango = (pasos["puntajes"].min(), pasos["puntajes"].max())
    assert (puntajes.vmin, puntajes.vmax) == (tapados.vmin, tapados.vmax) == rango
    plotly = figura_plotly(tuberia_)
    assert [t.get("showscale") for t in plotly["data"] if t["type"] == "heatmap"] == [False, True, False]
    assert "tapada antes del softmax (−∞)" in [t.get("name") for t in plotly["data"]]
    assert tapados.pista == "«{y}» mira a «{x}»: puntaje {v}" and tapados.nombres_y[1] == "sacó"
    assert figura_plotly(tuberia_)["data"][1]["customdata"][1][0] == [
        "sacó",
        "Ana",
        "0.874",
    ]  # la pista dice la palabra


def test_relleno_va_entre_corchetes_en_los_ejes_y_la_pista_lo_dice():
    _, pesos, _ = calcular(tipo="relleno", k=2)
    mapa, _ = pesos.paneles
    assert mapa.x == mapa.y == ("Ana", "sacó", "plata", "[del]", "[banco]")  # la pista dice «[del]» mira a «Ana»
    assert mapa.tapada[:, 3:].all() and not mapa.tapada[:, :3].any()
    assert "relleno va entre [ ]" in mapa.leyenda_tapada


def test_32_palabras_sin_numeros_en_las_casillas():
    frase = " ".join(f"palabra{i}" for i in range(32))
    for tipo in TIPOS:
        tuberia_, pesos, _ = calcular(frase, tipo, k=31, w=4)
        mapa, sumas = pesos.paneles
        assert not any(t for fila in mapa.textos() for t in fila)  # con más de 12 palabras, sin números
        assert mapa.barra == "Peso"  # y entonces con su escala de color
        assert len(mapa.x) == 32 and len(figura_plotly(pesos)["layout"]["xaxis"]["ticktext"]) == 32
        assert sumas.textos() == [["1.00"]] * 32  # las sumas sí se escriben
        # Una respuesta pequeña: cada palabra se nombra una vez por eje, no en cada una de las 1024 casillas.
        assert len(figura_plotly_json(tuberia_)) + len(figura_plotly_json(pesos)) < 60_000


def test_k_no_importa_si_el_tipo_no_es_relleno():
    *_, texto = calcular("Ana sacó plata", "causal", k=31)
    assert "causal" in texto


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"frase": ""}, "Escribe una frase"),
        ({"frase": "   "}, "Escribe una frase"),
        ({"frase": None}, "Escribe una frase"),
        ({"frase": " ".join(["a"] * 33)}, "a lo sumo 32"),
        ({"frase": "Ana " + "x" * 31}, "a lo sumo 30"),
        ({"frase": "a" * 100_000}, "demasiado larga"),
        ({"tipo": "futuro"}, "causal, relleno, ninguna, ventana"),
        ({"tipo": None}, "tipo de máscara"),
        ({"tipo": []}, "tipo de máscara"),
        ({"tipo": "relleno", "k": 5}, "menor que el número de palabras"),
        ({"tipo": "relleno", "k": 0}, "entre 1 y 31"),
        ({"k": 2.5}, "entero"),
        ({"k": 1e9}, "entre 1 y 31"),
        ({"w": float("nan")}, "ventana causal w"),
        ({"w": 0}, "entre 1 y 31"),
        ({"w": "tres"}, "ventana causal w"),
        ({"semilla": -1}, "La semilla"),
        ({"semilla": 2**40}, "La semilla"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**kw)


def test_la_url_fija_tipo_w_k_frase_y_semilla():
    with gr.Blocks():
        vista = construir()
    valores = [c.value for c in vista.entradas]
    assert valores == ["Ana sacó plata del banco", "causal", 2, 2, 1]  # = los valores por omisión de calcular
    parametros = {"tipo": "ventana", "w": "3", "frase": "uno dos tres cuatro", "semilla": "7", "k": "1"}
    nuevos, avisos = aplicar_url(vista, parametros, valores)
    assert avisos == []
    assert nuevos == ["uno dos tres cuatro", "ventana", 1, 3, 7]
    _, avisos = aplicar_url(vista, {"tipo": "futuro"}, valores)
    assert "causal, relleno, ninguna, ventana" in avisos[0]


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    tuberia_, pesos, texto = cliente.predict(api_name="/mascara_causal")
    tipos, textos = figura_api(tuberia_)
    assert tipos[:3] == ["heatmap"] * 3 and textos[:2] == ["1) Puntajes Q·Kᵀ/√d", "2) Con la máscara: tapadas = −∞"]
    tipos, textos = figura_api(pesos)
    assert "heatmap" in tipos and textos[0] == "3) Pesos = softmax de cada fila, máscara causal"
    assert "10 de 25" in texto


def test_api_con_ventana(cliente):
    *_, texto = cliente.predict(frase="a b c d e f", tipo="ventana", w=1, api_name="/mascara_causal")
    assert "w = 1" in texto
    assert f"{36 - 11} de 36" in texto  # con w = 1 miran la diagonal (6) y la de abajo (5)


def test_api_rechaza_entrada_mala_y_sigue_respondiendo(cliente):
    assert "a lo sumo 32" in espera_error(cliente, "/mascara_causal", frase=" ".join(["a"] * 40))
    assert "causal, relleno" in espera_error(cliente, "/mascara_causal", tipo="todo")
    assert "menor que el número de palabras" in espera_error(cliente, "/mascara_causal", tipo="relleno", k=9)
    assert "La semilla" in espera_error(cliente, "/mascara_causal", semilla=-3)
    *_, texto = cliente.predict(tipo="relleno", k=1, api_name="/mascara_causal")
    assert "La última palabra hace de relleno" in texto and "«del»" in texto
