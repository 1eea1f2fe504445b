"""La pestaña «Memoria O(L²)»: la tabla de la lección y la medición en vivo."""

import json

import numpy as np
import pytest
import torch

from demos.comun.figuras.pantalla import figura_plotly_json
from demos.memoria.medida import _figura_medida
from demos.memoria.pestana import calcular, medir, tabla_memoria
from tests.ayuda import espera_error, figura_api

MB_LECCION = ["0.04 MB", "4.00 MB", "400.00 MB", "40 000.00 MB"]


def test_la_tabla_en_float32_da_los_mb_de_la_leccion():
    tabla = tabla_memoria("float32")
    assert [f[0] for f in tabla] == ["100", "1 000", "10 000", "100 000"]
    assert [f[1] for f in tabla] == ["10 000", "1 000 000", "100 000 000", "10 000 000 000"]
    assert [f[2] for f in tabla] == MB_LECCION


def test_vista_inicial_es_la_tabla_de_la_leccion():
    figura, tabla, texto = calcular()
    assert [f[2] for f in tabla] == MB_LECCION
    assert [f[3] for f in tabla] == MB_LECCION  # una frase, una capa, una cabeza
    assert "40.0 GB" in texto
    assert figura.log_x and figura.log_y
    por_cabeza, _ = figura.curvas  # un factor de 1: sin curva del total; la segunda es la de la ventana
    assert por_cabeza.y == pytest.approx(por_cabeza.x**2 * 4 / 1e6)  # L² · 4 bytes, en MB
    assert [n.texto for n in figura.notas if n.marca] == [m.replace(",", "\u202f") for m in MB_LECCION]
    assert [(r.valor, r.texto) for r in figura.horizontales] == [(16_000, "GPU de 16 GB"), (80_000, "GPU de 80 GB")]
    assert len(figura_plotly_json(figura)) < 10_000


def test_sin_ventana_la_vista_es_la_de_antes():
    figura, tabla, texto = calcular(ventana=0)
    (por_cabeza,) = figura.curvas
    assert [f[4] for f in tabla] == ["—"] * 4 and "Sin ventana" in texto
    assert figura.titulo == "Pesos de atención en float32: pendiente 2 en log-log"


def test_ventana_512_guarda_l_por_513_pesos_y_se_dobla_a_pendiente_1():
    figura, tabla, texto = calcular()  # por omisión, w = 512: como la ventana de la pestaña Máscara causal
    _, ventana = figura.curvas
    assert ventana.nombre == "con ventana, por cabeza"  # el título dice cuál: «con ventana causal w = 512»
    assert ventana.y == pytest.approx(ventana.x * np.minimum(ventana.x, 513) * 4 / 1e6)
    # L ≤ 513: la ventana cubre la fila entera (L²); después, L · 513: pendiente 1 en log-log
    assert [f[4] for f in tabla] == ["0.04 MB", "2.05 MB", "20.52 MB", "205.20 MB"]
    assert "**205.2 MB** en vez de 40.0 GB (195 veces menos)" in texto
    assert "L ≈ 7 797 270" in texto  # 16 GB / (4 bytes · 513) palabras
    assert figura.titulo.endswith("\ncon ventana causal w = 512: pendiente 1 desde L = 513")


def test_ventana_mayor_que_lo_que_cabe_no_cambia_el_alcance():
    _, tabla, texto = calcular("bfloat16", cabezas=12, capas=6, lote=8, ventana=4096)
    assert tabla[1][4] == tabla[1][3] == "1 152.00 MB"  # L = 1 000 < w + 1: la ventana no recorta nada
    assert "una GPU de 16 GB llega a L ≈ 3 726" in texto  # tan lejos como sin ventana


def test_con_varias_cabezas_la_figura_suma_la_curva_del_total():
    figura, tabla, _ = calcular("bfloat16", cabezas=12, capas=6, lote=8)
    por_cabeza, total, _, total_ventana = figura.curvas
    assert total_ventana.nombre == "con ventana, total"
    assert total.nombre == "total (× 576)" and total.y == pytest.approx(por_cabeza.y * 576)
    assert "bfloat16" in figura.titulo


def test_bfloat16_ocupa_la_mitad_y_la_tabla_multiplica():
    _, tabla, texto = calcular("bfloat16", cabezas=12, capas=6, lote=8)
    assert [f[2] for f in tabla] == ["0.02 MB", "2.00 MB", "200.00 MB", "20 000.00 MB"]
    assert tabla[1][3] == "1 152.00 MB"  # 2.00 MB · 12 · 6 · 8
    assert "**576**" in texto


@pytest.mark.parametrize(
    "kwargs, mensaje",
    [
        ({"tipo": "float64"}, "float32, bfloat16"),
        ({"tipo": ""}, "float32, bfloat16"),
        ({"tipo": None}, "float32, bfloat16"),
        ({"tipo": ["float32"]}, "float32, bfloat16"),
        ({"tipo": "x" * 100_000}, "float32, bfloat16"),
        ({"cabezas": 0}, "cabezas debe ser un número entero entre 1 y 128"),
        ({"cabezas": 129}, "entre 1 y 128"),
        ({"capas": 1.5}, "capas debe ser un número entero"),
        ({"capas": 10**9}, "entre 1 y 128"),
        ({"lote": float("nan")}, "lote debe ser un número entero"),
        ({"lote": -1}, "entre 1 y 1\u202f024"),
        ({"lote": "muchos"}, "entre 1 y 1\u202f024"),
        ({"ventana": -1}, "La ventana w debe ser un número entero entre 0 y 65\u202f536"),
        ({"ventana": 10**7}, "entre 0 y 65\u202f536"),
        ({"ventana": 2.5}, "ventana w debe ser un número entero"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kwargs, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**kwargs)


def test_medicion_en_vivo_con_largos_pequenos():
    figura, tabla, texto = medir(256)
    assert [f[0] for f in tabla] == ["64", "128", "256"]
    for fila in tabla:
        L = int(fila[0])
        ingenua, sdpa = float(fila[3]) * 1e6, float(fila[4]) * 1e6
        # la ingenua guarda puntajes y pesos (2 · L² · 4 bytes), más la salida y poco más
        assert 2 * L * L * 4 <= ingenua <= 2 * L * L * 4 + 200_000
        assert sdpa < ingenua or L == 64
        assert "flash" in fila[5] or "math" in fila[5]
    assert "pendiente" in texto and "perfilador" in texto
    tiempo, memoria = figura.paneles
    assert tiempo.log_x and tiempo.log_y and memoria.log_x and memoria.log_y
    ingenua, sdpa, una_matriz = memoria.curvas  # en la CPU se mide la memoria: las dos, y L² · 4 bytes de guía
    assert list(ingenua.x) == [64, 128, 256] and tiempo.marcas_x == (64, 128, 256)
    assert [f"{v:,.2f}" for v in ingenua.y] == [f[3] for f in tabla]  # los MB de la tabla
    assert [f"{v:,.2f}" for v in sdpa.y] == [f[4] for f in tabla]
    assert [f"{v:.2f}" for v in tiempo.curvas[0].y] == [f[1] for f in tabla]  # los ms de la tabla
    assert una_matriz.y == pytest.approx([L * L * 4 / 1e6 for L in (64, 128, 256)])
    assert "pendiente: ingenua" in memoria.titulo


@pytest.mark.parametrize(
    "largo_maximo, tipo, mensaje",
    [
        (300, "float32", "potencia de 2 entre 256 y 2\u202f048"),
        (128, "float32", "potencia de 2"),
        (4096, "float32", "en este dispositivo \\(cpu\\)"),
        (float("inf"), "float32", "potencia de 2"),
        ("grande", "float32", "potencia de 2"),
        (256, "float16", "float32, bfloat16"),
    ],
)
def test_medicion_rechaza_entrada_mala(largo_maximo, tipo, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        medir(largo_maximo, tipo)


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    figura, tabla, texto = cliente.predict(api_name="/memoria")
    assert json.loads(figura["plot"])["layout"]["title"]["text"].startswith("Pesos de atención en float32: pendiente 2")
    assert [f[2] for f in tabla["data"]] == MB_LECCION


def test_api_rechaza_entrada_mala_y_sigue_respondiendo(cliente):
    assert "float32, bfloat16" in espera_error(cliente, "/memoria", tipo="float64")
    assert "entre 1 y 1\u202f024" in espera_error(cliente, "/memoria", lote=10**6)
    _, tabla, _ = cliente.predict(tipo="bfloat16", api_name="/memoria")
    assert tabla["data"][0][2] == "0.02 MB"


def test_api_de_la_medicion(cliente):
    assert "potencia de 2" in espera_error(cliente, "/memoria_medir", largo_maximo=10**6)
    figura, tabla, texto = cliente.predict(largo_maximo=256, tipo="bfloat16", api_name="/memoria_medir")
    tipos, textos = figura_api(figura)
    assert set(tipos) == {"scatter"} and [t.split("\n")[0] for t in textos] == [
        "Tiempo (mediana), bfloat16",
        "Memoria pico, bfloat16",
    ]
    assert len(tabla["data"]) == 3
    assert "bfloat16" in texto


def test_donde_no_se_mide_la_memoria_el_panel_lo_dice():
    """En MPS (u otro dispositivo) no hay contador de memoria: el panel avisa en lugar de quedar vacío."""
    res = {m: {"tiempo": [1e-3, 4e-3], "memoria": [None, None]} for m in ("ingenua", "SDPA")}
    tiempo, memoria = _figura_medida([64, 128], res, "float32", torch.device("mps")).paneles
    assert [c.nombre for c in tiempo.curvas] == ["ingenua", "SDPA"] and tiempo.curvas[0].y == pytest.approx([1, 4])
    assert memoria.curvas == () and memoria.mensaje == "En mps no se mide la memoria"
    assert "En mps no se mide la memoria" in figura_plotly_json(memoria)


def test_longformer_512_es_centrada_256_a_cada_lado_y_ocupa_lo_mismo():
    """La ventana de Longformer (w = 512) es centrada: 256 a cada lado y ella misma, 513 casillas por fila,
    las mismas que la ventana causal de la pestaña (512 anteriores y ella misma)."""
    from demos.memoria.pestana import VENTANAS, longformer
    from modelos.dispersa import por_fila, ventana

    centrada, causal = por_fila(ventana(2048, 512, centrada=True)), por_fila(ventana(2048, 512))
    assert centrada[1024] == centrada.max() == causal.max() == 513
    assert ((~ventana(2048, 512, centrada=True))[1024].nonzero().squeeze() - 1024).tolist() == list(range(-256, 257))
    assert longformer() == {"a_cada_lado": 256, "centrada": 513, "causal": 513}
    assert dict((v, k) for k, v in VENTANAS)[512] == "512 (el ancho de Longformer)"
    *_, texto = calcular()
    assert "**centrada**: 256 palabras a cada lado y ella misma, 513 casillas por fila" in texto


def test_el_titulo_llama_l_al_largo_y_la_tabla_es_de_la_leccion():
    from demos import buscar

    assert buscar("memoria").titulo == "Memoria O(L²)" and not buscar("memoria").del_tutorial
    *_, texto = calcular()
    assert "La tabla es la de la lección" in texto


def test_attn_implementation_del_tutorial_no_es_un_argumento_de_multiheadattention():
    from torch import nn

    from demos.memoria.pestana import flash_en_mha

    with pytest.raises(TypeError, match="attn_implementation"):
        nn.MultiheadAttention(16, 4, batch_first=True, attn_implementation="flash_attention_2")
    assert flash_en_mha().startswith("TypeError") and "attn_implementation" in flash_en_mha()
    *_, texto = calcular()
    assert "ese argumento no existe (`TypeError`)" in texto
