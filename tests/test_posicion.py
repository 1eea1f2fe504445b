"""La pestaña «Posición»: la codificación sinusoidal de la lección y por qué hace falta."""

import numpy as np
import pytest
import torch

from demos.comun.figuras.pantalla import figura_plotly_json
from demos.posicion import calcular, exactitudes_inversion, experimento_inversion_frase, repetir_leccion, similitudes
from modelos import AtencionMulticabeza, cargar, posicion_sinusoidal
from modelos.datos import secuencias_digitos
from modelos.entrenamiento.leccion import epoca_1
from modelos.estrategia import es_moda_de_los_otros, tope_sin_posicion
from modelos.formato import por_ciento
from modelos.hub import carpeta_incluida
from tests.ayuda import espera_error, figura_api

PE_LECCION = [[0.00, 1.00, 0.00, 1.00], [0.84, 0.54, 0.53, 0.85], [0.91, -0.42, 0.90, 0.43]]
hay_checkpoints = pytest.mark.skipif(
    not all(
        (carpeta_incluida() / n / "config.json").is_file()
        for n in ("inversion-digitos", "inversion-digitos-sin-posicion")
    ),
    reason="faltan los checkpoints de inversión de dígitos",
)


def test_pe_50x32_da_los_valores_de_la_leccion():
    pe = posicion_sinusoidal(50, 32)
    assert pe.shape == (50, 32)
    assert torch.allclose(pe[:3, :4].round(decimals=2), torch.tensor(PE_LECCION))


def test_vista_inicial_muestra_los_valores_de_la_leccion():
    mapa, sim, texto, *_ = calcular()
    assert "posición 1:  0.84  0.54  0.53  0.85" in texto
    assert "posición 2:  0.91 -0.42  0.90  0.43" in texto
    assert mapa.matriz.shape == (32, 50)  # columnas en y, posiciones en x
    assert np.allclose(mapa.matriz[:4, :3].T, PE_LECCION, atol=0.005)  # pe.T: la posición va en la columna
    assert mapa.rango() == (-1, 1) and mapa.colores == "divergente"  # −1 rojo, 0 blanco, 1 azul
    assert mapa.barra == "Valor (de −1 a 1)"
    assert (mapa.eje_x, mapa.eje_y) == ("Posición en la frase", "Columna del vector")
    curva, S = sim.paneles
    assert S.matriz.shape == (50, 50) and S.titulo == "Coseno entre posiciones"
    assert S.rango() == pytest.approx((S.matriz.min(), 1.0))  # la escala va del mínimo al máximo que hay
    assert curva.curvas[0].y == pytest.approx(S.matriz[0])  # la posición 0 contra las demás


def test_las_figuras_de_la_vista_inicial_pesan_poco():
    mapa, sim, *_ = calcular()
    assert len(figura_plotly_json(mapa)) + len(figura_plotly_json(sim)) < 60_000


@pytest.mark.parametrize("largo, d_modelo", [(1, 2), (7, 3), (512, 511), (512, 512)])
def test_largos_y_d_modelo_pares_e_impares(largo, d_modelo):
    mapa, sim, texto, *_ = calcular(largo, d_modelo, "producto punto")
    assert mapa.matriz.shape == (d_modelo, largo)
    assert sim.paneles[1].matriz.shape == (largo, largo) and len(sim.paneles[0].curvas[0].y) == largo
    assert np.isfinite(mapa.matriz).all() and np.isfinite(sim.paneles[1].matriz).all()
    assert "pe[:" in texto


@pytest.mark.parametrize("similitud", ["coseno", "producto punto"])
def test_la_similitud_depende_solo_de_la_distancia(similitud):
    S = similitudes(posicion_sinusoidal(40, 16), similitud)
    # matriz de Toeplitz: igual a lo largo de cada diagonal
    assert S[1:, 1:] == pytest.approx(S[:-1, :-1], abs=1e-4)
    assert S.diagonal() == pytest.approx(1.0 if similitud == "coseno" else 8.0, abs=1e-5)


def test_sin_posicion_invertir_la_frase_da_el_mismo_resultado_en_otro_orden():
    e = experimento_inversion_frase()
    assert e["iguales_sin"] and e["sin"] < 1e-6
    assert not e["iguales_con"] and e["con"] > 0.1
    _, _, texto, *_ = calcular()
    assert "Sin posición: mismo resultado, en otro orden: **sí**" in texto
    assert "Con posición (sumando la sinusoidal): mismo resultado, en otro orden: **no**" in texto


@pytest.mark.parametrize("d_modelo, cabezas, largo", [(16, 4, 5), (32, 2, 9), (8, 8, 3)])
def test_la_autoatencion_sin_posicion_es_equivariante_a_permutaciones(d_modelo, cabezas, largo):
    torch.manual_seed(1)
    capa = AtencionMulticabeza(d_modelo, cabezas).eval()
    x = torch.randn(2, largo, d_modelo)
    orden = torch.randperm(largo)
    with torch.inference_mode():
        y, pesos = capa(x)
        y_perm, pesos_perm = capa(x[:, orden])
    assert torch.allclose(y_perm, y[:, orden], atol=1e-6)
    assert torch.allclose(pesos_perm, pesos[:, :, orden][:, :, :, orden], atol=1e-6)


@hay_checkpoints
def test_sin_posicion_la_inversion_de_digitos_no_se_aprende():
    filas, ejemplo = exactitudes_inversion()
    (_, con_d, con_s), (_, sin_d, sin_s) = filas
    assert float(con_d.rstrip("%")) > 95 and float(con_s.rstrip("%")) > 80
    assert float(sin_d.rstrip("%")) < 50 and float(sin_s.rstrip("%")) < 5  # la lección: 31.7 % y 0.0 %
    assert ejemplo["Objetivo"] == ejemplo["Entrada"][::-1]
    _, _, _, tabla, texto, punto = calcular()
    assert [f[0] for f in tabla] == ["Con posición", "Sin posición"]
    assert "2\u202f000 secuencias nuevas" in texto and "solo puede adivinar" not in texto
    # El punto de la pestaña, en una frase hecha con la tabla: los dos números y la dirección.
    punto = punto.replace("\u00a0", " ")  # los números y su «%», sin partirse en la columna de los controles
    assert f"acierta **{con_d}** con posición y **{sin_d}** sin ella (azar: 10 %)" in punto
    assert (con_d, sin_d) == ("100.0 %", "31.7 %")
    # La estrategia: lo que escribe es casi siempre el dígito más frecuente de los otros siete.
    X, Y = secuencias_digitos(2000, semilla=777)
    with torch.inference_mode():
        pred = cargar("inversion-digitos-sin-posicion")(X).argmax(dim=-1)
    moda = es_moda_de_los_otros(X, pred).float().mean().item()
    assert moda > 0.99 and f"({por_ciento(moda)} de sus dígitos lo son)" in texto
    assert f"el {por_ciento(float(tope_sin_posicion()))}: los repetidos" in texto
    assert calcular()[4] == texto  # la caché no cambia entre una vista y la siguiente


def test_la_epoca_1_sin_posicion_de_la_leccion_da_321_y_01():
    """Con la receta exacta de la lección (su DataLoader y sus semillas): «Época 1: pérdida 1.867 dígitos 32.1%
    secuencias 0.1%». Tarda unos segundos: una época de 313 pasos."""
    r = epoca_1(con_posicion=False)
    assert (round(r["perdida"], 3), f"{r['digitos']:.1%}", f"{r['secuencias']:.1%}") == (1.867, "32.1%", "0.1%")
    assert "pérdida 1.867 · dígitos 32.1 % · secuencias 0.1 %" in repetir_leccion()


@pytest.mark.parametrize(
    "largo, d_modelo, similitud, mensaje",
    [
        (0, 32, "coseno", "entre 1 y 512"),
        (513, 32, "coseno", "entre 1 y 512"),
        (50, 1, "coseno", "entre 2 y 512"),
        (50, 10**9, "coseno", "entre 2 y 512"),
        (2.5, 32, "coseno", "entero"),
        (float("nan"), 32, "coseno", "entero"),
        (float("inf"), 32, "coseno", "entero"),
        ("abc", 32, "coseno", "entero"),
        (None, 32, "coseno", "entero"),
        (50, 32, "euclídea", "coseno, producto punto"),
        (50, 32, "x" * 100_000, "coseno, producto punto"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(largo, d_modelo, similitud, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(largo, d_modelo, similitud)


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    mapa, sim, texto, tabla, _, punto = cliente.predict(api_name="/posicion")
    assert figura_api(mapa) == (["heatmap"], ["Codificación posicional sinusoidal (50 × 32)"])
    assert figura_api(sim) == (["scatter", "heatmap"], ["La posición 0 contra las demás", "Coseno entre posiciones"])
    assert "0.84  0.54  0.53  0.85" in texto
    assert "mismo resultado, en otro orden: **sí**" in texto
    assert "**Por qué hace falta:**" in punto


def test_api_rechaza_entrada_mala_y_sigue_respondiendo(cliente):
    assert "entre 1 y 512" in espera_error(cliente, "/posicion", largo=10**6)
    assert "coseno, producto punto" in espera_error(cliente, "/posicion", similitud="manhattan")
    *_, texto, _, _, _ = cliente.predict(largo=8, d_modelo=7, similitud="producto punto", api_name="/posicion")
    assert "pe[:3, :4]" in texto
