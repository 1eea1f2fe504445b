"""La pestaña «Multicabeza» da lo mismo que nn.MultiheadAttention con los mismos pesos."""

import json
import threading

import numpy as np
import pytest
import torch
from torch import nn

from demos.comun.figuras import Imagen, Mapa, Paneles
from demos.comun.figuras.pantalla import alto_de, figura_plotly, figura_plotly_json
from demos.multicabeza import calcular, comparar, copia_oficial, crear_capa, pesos_en_float64
from tests.ayuda import espera_error


@pytest.mark.parametrize(
    "d_modelo, cabezas, largo, semilla",
    [(16, 4, 5, 0), (16, 1, 2, 1), (8, 8, 3, 2), (64, 8, 12, 3), (24, 3, 7, 4), (512, 16, 32, 5)],
)
def test_igual_que_nn_multiheadattention_a_1e6(d_modelo, cabezas, largo, semilla):
    r = comparar(d_modelo, cabezas, largo, semilla)
    assert r["dif_salidas"] <= 1e-6
    assert r["dif_pesos"] <= 1e-6
    assert r["pesos"].shape == (cabezas, largo, largo)
    assert r["total"] == r["total_oficial"] == 4 * d_modelo**2 + 4 * d_modelo


def test_copia_oficial_tiene_exactamente_los_pesos_de_la_capa():
    capa = crear_capa(16, 4, torch.Generator().manual_seed(0))
    oficial = copia_oficial(capa)
    assert torch.equal(oficial.in_proj_weight, capa.qkv.weight)
    assert torch.equal(oficial.out_proj.bias, capa.salida.bias)
    assert all(p.device.type == "cpu" for p in oficial.parameters())  # nada quedó en «meta»
    x = torch.randn(2, 6, 16)
    with torch.inference_mode():
        y, pesos = capa(x)
        y_o, pesos_o = oficial(x, x, x, average_attn_weights=False)
    assert torch.allclose(y, y_o, atol=1e-6) and torch.allclose(pesos, pesos_o, atol=1e-6)


def test_la_capa_no_usa_el_rng_global_y_la_semilla_la_repite():
    torch.manual_seed(123)
    antes = torch.random.get_rng_state()
    a = crear_capa(32, 4, torch.Generator().manual_seed(7))
    assert torch.equal(torch.random.get_rng_state(), antes)
    b = crear_capa(32, 4, torch.Generator().manual_seed(7))
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    # los pesos de nn.Linear: uniformes en ±1/√d
    assert a.qkv.weight.abs().max() <= 1 / 32**0.5


@pytest.mark.parametrize("d_modelo, cabezas, largo", [(16, 4, 5), (24, 3, 7), (8, 1, 2), (512, 16, 32)])
def test_los_pesos_en_float64_son_los_de_la_capa_convertida_bit_a_bit(d_modelo, cabezas, largo):
    """La figura toma los pesos en float64 sin convertir la capa `salida`: los mismos bits que capa.double()."""
    capa = crear_capa(d_modelo, cabezas, torch.Generator().manual_seed(3))
    x = torch.randn(1, largo, d_modelo, generator=torch.Generator().manual_seed(4))
    with torch.inference_mode():
        rapidos = pesos_en_float64(capa, x)
        _, convertida = capa.double()(x.double())
    assert rapidos.dtype == torch.float64 and torch.equal(rapidos, convertida)


def test_la_figura_no_cambia_con_el_ruido_de_float32_entre_hilos():
    """En float32, MKL da a veces otro último dígito según la alineación de la memoria (8 hilos a la
    vez: diferencia máxima 1.2e-07 o 0): la figura, de los pesos en float64 redondeados, es siempre la misma."""
    from concurrent.futures import ThreadPoolExecutor

    base = figura_plotly_json(calcular(cabezas=8)[0])
    with ThreadPoolExecutor(8) as hilos:
        figuras = list(hilos.map(lambda _: figura_plotly_json(calcular(cabezas=8)[0]), range(64)))
    assert all(f == base for f in figuras)


def test_hilos_paralelos_con_la_misma_semilla_dan_lo_mismo():
    resultados = [None] * 4

    def correr(i):
        resultados[i] = comparar(64, 8, 10, 3)["pesos"]

    hilos = [threading.Thread(target=correr, args=(i,)) for i in range(4)]
    for h in hilos:
        h.start()
    for h in hilos:
        h.join()
    assert all((r == resultados[0]).all() for r in resultados)


def test_vista_inicial_d16_4_cabezas_como_la_leccion():
    _, _, comprobacion, tabla, texto = calcular()
    assert [fila[1] for fila in comprobacion] == ["sí", "sí", "sí"]
    # La lección: «Entrada: [2, 5, 16]  Salida: [2, 5, 16]  Pesos guardados: [2, 4, 5, 5]».
    assert comparar(16, 4, 5, 0)["formas"] == {"entrada": (2, 5, 16), "salida": (2, 5, 16), "pesos": (2, 4, 5, 5)}
    assert [fila[0].split(":")[0] for fila in comprobacion] == [
        "Salidas (2, 5, 16)",
        "Pesos (2, 4, 5, 5)",
        "Pesos por omisión (2, 5, 5)",
    ]
    assert [fila[2] for fila in tabla] == [816, 272, 1088, 1088]
    assert "16 / 4 = 4 columnas" in texto


def test_figura_un_mapa_por_cabeza_y_el_promedio_con_una_sola_escala():
    _, figura, *_ = calcular()
    r = comparar(16, 4, 5, 0)
    pesos = r["pesos_figura"]  # (cabezas, L, L), en float64: el ruido de float32 no cambia la figura
    np.testing.assert_allclose(pesos, r["pesos"], atol=1e-6)
    # Una sola fila baja (cabe en una diapositiva de 720 px con sus controles): el promedio, del doble de ancho.
    assert isinstance(figura, Paneles) and figura.columnas == 5 and figura.anchos == (1, 1, 1, 1, 2)
    assert alto_de(figura) <= 360
    assert [p.titulo for p in figura.paneles] == [*(f"Cabeza {k}" for k in range(1, 5)), "Promedio de las cabezas"]
    assert "sin entrenar" in figura.titulo  # lo dice en la figura misma, no solo en el texto
    for k, mapa in enumerate(figura.paneles[:4]):
        np.testing.assert_array_equal(mapa.matriz, pesos[k])
    np.testing.assert_allclose(figura.paneles[4].matriz, pesos.mean(axis=0))
    np.testing.assert_allclose(figura.paneles[4].matriz.sum(axis=1), 1.0, atol=1e-6)
    # La escala va de 0 al peso más alto de todas las cabezas, igual en los cinco, con una sola barra.
    assert {(p.vmin, p.vmax) for p in figura.paneles} == {(0.0, round(float(pesos.max()), 6))}
    barras = [t.get("showscale") for t in figura_plotly(figura)["data"]]
    assert barras == [False, False, False, False, True]
    # Con 5 palabras, los números caben en el promedio; los de cada cabeza, al pasar el ratón.
    assert figura.paneles[4].textos()[0][4] == f"{pesos.mean(axis=0)[0, 4]:.2f}"
    assert not any(p.con_numeros for p in figura.paneles[:4])
    assert figura.paneles[4].pista == "Promedio de las cabezas: la posición {y} mira a la {x}: peso {v}"


def test_una_cabeza_es_su_propio_promedio():
    _, figura, *_ = calcular(16, 1, 5, 1)
    (mapa,) = figura.paneles
    assert mapa.titulo == "Cabeza 1" and mapa.barra == "Peso"
    np.testing.assert_array_equal(mapa.matriz, comparar(16, 1, 5, 1)["pesos_figura"][0])


def test_16_cabezas_de_32_palabras_van_como_imagenes_y_la_respuesta_es_chica():
    _, figura, _, _, texto = calcular(512, 16, 32, 5)
    pesos = comparar(512, 16, 32, 5)["pesos_figura"]
    *cabezas, promedio = figura.paneles
    assert len(cabezas) == 16 and all(isinstance(c, Imagen) for c in cabezas) and isinstance(promedio, Mapa)
    assert figura.columnas == 5 and cabezas[0].pixeles.shape == (32, 32, 3)
    # Los píxeles llevan la escala del promedio: blanco en 0 y el azul C0 en el peso más alto.
    k = int(pesos.reshape(16, -1).max(axis=1).argmax())  # la cabeza con el peso más alto
    i, j = np.unravel_index(pesos[k].argmax(), (32, 32))
    assert cabezas[k].pixeles[i, j].tolist() == [0x1F, 0x77, 0xB4]
    rojo = cabezas[0].pixeles[..., 0].ravel().astype(int)  # de 255 (peso 0) a 31 (el más alto)
    assert (np.diff(rojo[np.argsort(pesos[0].ravel())]) <= 0).all()  # más peso, más azul
    assert promedio.vmax == round(float(pesos.max()), 6) and "imagen" in texto
    assert len(figura_plotly_json(figura)) < 60_000


def test_parametros_no_dependen_de_las_cabezas():
    totales = {comparar(48, h, 3, 0)["total"] for h in (1, 2, 3, 4, 6, 8, 12, 16)}
    assert totales == {4 * 48**2 + 4 * 48}
    assert sum(p.numel() for p in nn.MultiheadAttention(48, 6).parameters()) in totales


def test_d_modelo_no_divisible_explica_por_que():
    with pytest.raises(ValueError, match=r"d_modelo / cabezas columnas.*10 / 4 = 2.5 no es entero"):
        calcular(d_modelo=10, cabezas=4)


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"d_modelo": 0}, "entre 1 y 512"),
        ({"d_modelo": 513}, "entre 1 y 512"),
        ({"d_modelo": 10**12}, "entre 1 y 512"),
        ({"d_modelo": 16.5}, "entre 1 y 512"),
        ({"d_modelo": "dieciséis"}, "entre 1 y 512"),
        ({"d_modelo": float("nan")}, "entre 1 y 512"),
        ({"cabezas": 0}, "entre 1 y 16"),
        ({"cabezas": 32, "d_modelo": 64}, "entre 1 y 16"),
        ({"largo": 33}, "entre 1 y 32"),
        ({"largo": 10**9}, "entre 1 y 32"),
        ({"largo": float("inf")}, "entre 1 y 32"),
        ({"semilla": -1}, "entre 0 y"),
        ({"semilla": None}, "entre 0 y"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**kw)


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    reparto, figura, comprobacion, tabla, texto = cliente.predict(api_name="/multicabeza")
    assert [a["text"] for a in json.loads(figura["plot"])["layout"]["annotations"]][:2] == ["Cabeza 1", "Cabeza 2"]
    assert reparto["type"] == "plotly"
    assert [fila[1] for fila in comprobacion["data"]] == ["sí", "sí", "sí"]
    assert [fila[2] for fila in tabla["data"]] == [816, 272, 1088, 1088]


def test_api_con_valores_tipicos(cliente):
    _, _, comprobacion, tabla, texto = cliente.predict(
        d_modelo=64, cabezas=8, largo=12, semilla=3, api_name="/multicabeza"
    )
    assert [fila[1] for fila in comprobacion["data"]] == ["sí", "sí", "sí"]
    assert tabla["data"][2][2] == 4 * 64**2 + 4 * 64
    assert "64 / 8 = 8 columnas" in texto


def test_api_rechaza_d_modelo_no_divisible_y_enorme_y_sigue_respondiendo(cliente):
    assert "cada cabeza recibe d_modelo / cabezas" in espera_error(cliente, "/multicabeza", d_modelo=10, cabezas=4)
    assert "entre 1 y 512" in espera_error(cliente, "/multicabeza", d_modelo=10**9)
    assert "entre 1 y 32" in espera_error(cliente, "/multicabeza", largo=10**6)
    *_, texto = cliente.predict(cabezas=2, api_name="/multicabeza")
    assert "16 / 2 = 8 columnas" in texto


def test_la_primera_figura_reparte_d_entre_las_cabezas_y_cuenta_1088_con_cualquiera():
    """La lección: d_modelo = 16 con 4 cabezas, 16 / 4 = 4 columnas cada una; 1 088 parámetros con 1, 2, 4, 8 o 16
    cabezas, los mismos que nn.MultiheadAttention."""
    from demos.multicabeza import parametros_por_cabezas

    reparto, *_ = calcular()
    mapa, barras = reparto.paneles
    assert mapa.matriz.shape == (4, 16) and (mapa.matriz.sum(axis=1) == 4).all()
    assert (mapa.matriz.sum(axis=0) == 1).all()  # cada columna es de una sola cabeza
    assert mapa.matriz[1, 4:8].tolist() == [1, 1, 1, 1] and mapa.titulo == "16 columnas ÷ 4 cabezas = 4 por cabeza"
    esperado = {h: sum(p.numel() for p in nn.MultiheadAttention(16, h).parameters()) for h in (1, 2, 4, 8, 16)}
    assert esperado == {h: 1088 for h in (1, 2, 4, 8, 16)}
    assert parametros_por_cabezas(16) == {h: (1088, 1088) for h in (1, 2, 4, 8, 16)}
    assert barras.categorias == ("1", "2", "4", "8", "16")
    assert [s.valores.tolist() for s in barras.series] == [[1088] * 5, [1088] * 5]
    assert barras.titulo == "Parámetros según las cabezas: 1\u202f088 con cualquiera"
    assert barras.series[0].colores[2] == "#ff7f0e"  # la elegida (4 cabezas), resaltada


def test_nn_multiheadattention_promedia_las_cabezas_por_omision():
    r = comparar(16, 4, 5, 0)
    assert r["forma_por_omision"] == (2, 5, 5) and r["dif_promedio"] <= 1e-6
    *_, texto = calcular()
    assert "`average_attn_weights=True`" in texto and "(2, 5, 5)" in texto and "`average_attn_weights=False`" in texto
