"""La pestaña «Temperatura» reproduce las cuatro filas de la lección: softmax(s / T)."""

import math

import gradio as gr
import numpy as np
import pytest
import torch

from demos.servir.conectar import aplicar_url
from demos.temperatura import (
    _log_desde_t,
    _t_desde_log,
    calcular,
    construir,
    entropia,
    leer_palabras,
    leer_puntajes,
    muestrear,
    pesos,
)
from tests.ayuda import espera_error, figura_api

S_LECCION = [2.0, 1.0, 0.5, -1.0]  # plata, sacó, Ana, del
COLUMNA = {0.25: 4, 0.5: 5, 1.0: 6, 4.0: 7}  # columna de cada T de la lección en la tabla


def _redondeo(p):
    return [round(float(x), 2) for x in p]


def test_temperatura_025_da_098():
    assert _redondeo(pesos(S_LECCION, 0.25)) == [0.98, 0.02, 0.00, 0.00]


def test_temperatura_05_da_084():
    assert _redondeo(pesos(S_LECCION, 0.5)) == [0.84, 0.11, 0.04, 0.00]


def test_temperatura_1_da_061():
    assert _redondeo(pesos(S_LECCION, 1.0)) == [0.61, 0.22, 0.14, 0.03]


def test_temperatura_4_da_034():
    assert _redondeo(pesos(S_LECCION, 4.0)) == [0.34, 0.27, 0.23, 0.16]


@pytest.mark.parametrize(
    "T, fila",
    [(0.25, [0.98, 0.02, 0.0, 0.0]), (0.5, [0.84, 0.11, 0.04, 0.0]), (1.0, [0.61, 0.22, 0.14, 0.03]),
     (4.0, [0.34, 0.27, 0.23, 0.16])],
)  # fmt: skip
def test_la_tabla_de_la_vista_inicial_tiene_las_filas_de_la_leccion(T, fila):
    _, _, tabla, _, _ = calcular()
    assert [r[0] for r in tabla] == ["plata", "sacó", "Ana", "del"]
    assert [r[COLUMNA[T]] for r in tabla] == fila
    # La columna «Peso a T» con T = 1 (vista inicial) es la fila de T = 1.
    assert [r[2] for r in tabla] == [0.61, 0.22, 0.14, 0.03]


def test_igual_que_softmax_de_torch_en_float32():
    s = torch.tensor(S_LECCION)
    for T in (0.05, 0.3, 1.0, 7.5):
        np.testing.assert_allclose(pesos(S_LECCION, T), torch.softmax(s / T, dim=0).numpy(), atol=1e-6)


def test_dividir_por_raiz_de_d_es_temperatura_raiz_de_d():
    d = 64
    s = torch.tensor(S_LECCION) * 3
    np.testing.assert_allclose(pesos(s, math.sqrt(d)), torch.softmax(s / math.sqrt(d), dim=0).numpy(), atol=1e-6)
    *_, texto, _ = calcular()
    assert "T = √d" in texto


def test_entropia_en_bits_como_categorical():
    for T in (0.25, 1.0, 4.0):
        p = pesos(S_LECCION, T)
        esperada = torch.distributions.Categorical(probs=torch.tensor(p)).entropy().item() / math.log(2)
        assert entropia(p) == pytest.approx(esperada, abs=1e-6)
    assert entropia(pesos(S_LECCION, 0.05)) < 0.01  # casi todo el peso en «plata»
    assert entropia(pesos(S_LECCION, 10.0)) == pytest.approx(2.0, abs=0.1)  # casi parejos: log₂ 4
    assert entropia(np.array([1.0, 0.0])) == 0.0  # 0 · log 0 = 0, sin NaN


def test_muestreo_reproducible_suma_n_y_se_acerca_a_los_pesos():
    p = pesos(S_LECCION, 1.0)
    cuentas = muestrear(p, 10_000, semilla=3)
    assert cuentas.sum() == 10_000
    np.testing.assert_array_equal(cuentas, muestrear(p, 10_000, semilla=3))
    assert np.abs(cuentas / 10_000 - p).max() < 0.02
    torch.manual_seed(123)  # el estado global no cambia el resultado: generador propio
    np.testing.assert_array_equal(cuentas, muestrear(p, 10_000, semilla=3))


def test_una_sola_ficha_y_temperatura_minima():
    _, _, tabla, texto, _ = calcular(T=0.05, n=1)
    assert [r[3] for r in tabla] == [1, 0, 0, 0]  # con T = 0.05 el peso de «plata» es 1.00
    assert "0.00 bits" in texto


def test_32_palabras_de_30_caracteres_se_aceptan():
    palabras = ", ".join(f"{i:02d}" + "x" * 28 for i in range(32))
    puntajes = ", ".join(str(i % 7 - 3) for i in range(32))
    _, _, tabla, _, _ = calcular(palabras, puntajes, T=2.0, n=500, semilla=1)
    assert len(tabla) == 32
    assert sum(r[3] for r in tabla) == 500


def test_lectura_de_palabras_y_puntajes():
    assert leer_palabras(" plata ,sacó,  Ana del ") == ["plata", "sacó", "Ana del"]
    assert leer_puntajes("2, 1, 0.5, −1") == [2.0, 1.0, 0.5, -1.0]  # el signo menos tipográfico también


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"palabras": ""}, "Escribe las palabras"),
        ({"puntajes": "  "}, "Escribe los puntajes"),
        ({"palabras": None}, "Escribe las palabras"),
        ({"puntajes": "2, uno, 0.5, -1"}, "no es un número"),
        ({"puntajes": "2, 1, 0,5, -1"}, "4 palabras y 5 puntajes"),  # coma decimal: se lee como otro número
        ({"puntajes": "2, nan, 0.5, -1"}, "número finito"),
        ({"puntajes": "2, inf, 0.5, -1"}, "número finito"),
        ({"puntajes": "2, 1e400, 0.5, -1"}, "número finito"),
        ({"puntajes": "2, 1, 0.5"}, "4 palabras y 3 puntajes"),
        ({"palabras": "a, , b, c"}, "La palabra 2 está vacía"),
        ({"palabras": ", ".join(["a"] * 33), "puntajes": ", ".join(["1"] * 33)}, "a lo sumo 32"),
        ({"palabras": "plata, sacó, Ana, " + "x" * 31}, "a lo sumo 30"),
        ({"palabras": "a" * 100_000}, "demasiado largo"),
        ({"puntajes": "1, " * 50_000}, "demasiado largo"),
        ({"T": 0.01}, "entre 0.05 y 10"),
        ({"T": 10.5}, "entre 0.05 y 10"),
        ({"T": float("nan")}, "entre 0.05 y 10"),
        ({"T": "caliente"}, "entre 0.05 y 10"),
        ({"n": 0}, "entre 1 y 10\u202f000"),
        ({"n": 10_001}, "entre 1 y 10\u202f000"),
        ({"n": 2.5}, "entero"),
        ({"n": float("inf")}, "entre 1 y 10\u202f000"),
        ({"semilla": -1}, "La semilla"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**kw)


def test_deslizador_de_log_t_y_numero_de_t_se_sincronizan():
    assert _t_desde_log(-1.3) == pytest.approx(0.0501)  # dentro del rango de T
    assert _t_desde_log(0) == 1.0
    assert _t_desde_log(1) == 10.0
    assert _log_desde_t(0.5, 0.0) == -0.3  # T escrita a mano: el deslizador se mueve
    assert _log_desde_t(_t_desde_log(-0.3), -0.3) == gr.skip()  # vino del deslizador: no lo toca
    assert _log_desde_t("abc", 0.0) == gr.skip()
    assert _log_desde_t(50, 0.0) == gr.skip()


def test_la_url_acepta_t_directamente():
    with gr.Blocks():
        vista = construir()
    valores = [c.value for c in vista.entradas]
    assert valores[2:] == [1.0, 1000, 0]  # T, n, semilla = los valores por omisión de calcular
    nuevos, avisos = aplicar_url(vista, {"T": "0.5", "n": "50"}, valores)
    assert avisos == []
    assert nuevos[2] == 0.5 and nuevos[3] == 50
    _, _, tabla, _, _ = calcular(*nuevos)
    assert [r[2] for r in tabla] == [0.84, 0.11, 0.04, 0.0]


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    barras, paneles, tabla, texto, muestreo = cliente.predict(api_name="/temperatura")
    assert figura_api(barras) == (["bar", "scatter"], ["softmax(s / T) con T = 1   (entropía 1.46 bits)"])
    tipos, textos = figura_api(paneles)
    assert tipos == ["bar"] * 4 and textos[2] == "T = 1   (1.46 bits)  ◀ la T elegida"
    assert figura_api(muestreo) == (["bar", "bar"], ["1\u202f000 muestras con T = 1"])
    assert [r[COLUMNA[0.25]] for r in tabla["data"]] == [0.98, 0.02, 0.0, 0.0]
    assert [r[COLUMNA[4.0]] for r in tabla["data"]] == [0.34, 0.27, 0.23, 0.16]
    assert "1.46 bits" in texto


def test_api_con_t_05(cliente):
    _, _, tabla, texto, _ = cliente.predict(T=0.5, n=200, semilla=7, api_name="/temperatura")
    assert [r[2] for r in tabla["data"]] == [0.84, 0.11, 0.04, 0.0]
    assert sum(r[3] for r in tabla["data"]) == 200
    assert "T = 0.5" in texto


def test_api_rechaza_entrada_mala_y_sigue_respondiendo(cliente):
    assert "no es un número" in espera_error(cliente, "/temperatura", puntajes="2, x, 0.5, -1")
    assert "entre 0.05 y 10" in espera_error(cliente, "/temperatura", T=1e9)
    assert "entre 1 y 10\u202f000" in espera_error(cliente, "/temperatura", n=10**9)
    assert "debe haber un puntaje por palabra" in espera_error(cliente, "/temperatura", palabras="a, b")
    *_, texto, _ = cliente.predict(T=4, api_name="/temperatura")
    assert "T = 4" in texto


@pytest.mark.parametrize(("T", "resaltado"), [(0.25, 0), (0.05, 0), (0.7, 1), (1.0, 2), (2.5, 3), (10, 3)])
def test_los_cuatro_paneles_resaltan_el_mas_cercano_a_la_T_elegida(T, resaltado):
    from demos.comun.figuras import C0, C1

    _, paneles, *_ = calcular(T=T)
    colores = [p.series[0].color for p in paneles.paneles]
    assert colores == [C1 if k == resaltado else C0 for k in range(4)]
    titulos = [p.titulo for p in paneles.paneles]
    assert sum("◀" in t for t in titulos) == 1 and "◀" in titulos[resaltado]
    assert ("◀ la T elegida" in titulos[resaltado]) == (T in (0.25, 0.5, 1.0, 4.0))


def test_sortear_saca_muestras_no_fichas():
    """«Ficha» es un token (el glosario): lo que se saca al sortear son muestras."""
    *_, texto, muestreo = calcular(n=500)
    assert "en 500 muestras salió" in texto and muestreo.titulo.startswith("500 muestras con T = 1")
    assert "ficha" not in (texto + muestreo.titulo + muestreo.series[1].nombre).lower()
