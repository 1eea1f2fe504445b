"""Generación autorregresiva: el bucle de 8 pasos, el mapa que crece y la pasada única que da lo mismo."""

from __future__ import annotations

import re

import numpy as np
import pytest

from demos.generacion import APRENDER, LECCION, calcular, correr, leer_digitos


def test_la_leccion_se_escribe_al_reves_en_8_pasadas_y_el_entrenamiento_en_1():
    punto, *_ = calcular()
    assert "hizo **8** pasadas (de 9 a 16 fichas) para escribir `0 4 9 6 9 3 3 8`" in punto
    assert "en **1** pasada de 16 fichas, con los mismos logits (difieren en" in punto
    diferencia = float(re.search(r"difieren en ([\d.e+-]+)", punto).group(1))
    assert diferencia == pytest.approx(correr((8, 3, 3, 9, 6, 9, 4, 0))["diferencia"], rel=0.05) and diferencia < 1e-4


@pytest.mark.parametrize("t", range(1, 9))
def test_el_mapa_crece_una_fila_por_paso_y_no_mira_el_futuro(t):
    _, figura, texto, pasada, _ = calcular(LECCION, t)
    barras, mapa = figura.paneles
    n = 8 + t
    visibles = ~mapa.tapada  # (8, 16): las filas de «→», y₁ … y₇
    assert mapa.matriz.shape == (8, 16) and visibles.any(axis=1).sum() == t  # una fila más por paso
    assert not np.triu(visibles, 9).any()  # la fila de «→» (posición 8) no mira nada a su derecha
    assert mapa.matriz[:t].sum(axis=1) == pytest.approx(np.ones(t), abs=0.01)  # suma 1 (a 3 decimales)
    escrito = [0, 4, 9, 6, 9, 3, 3, 8][t - 1]
    assert f"escribe **{escrito}**" in texto and int(np.argmax(barras.series[0].valores)) == escrito
    # La fila que escribe mira al espejo: y_t sale de x_{9 − t}.
    assert mapa.marcas == ((t - 1, 8 - t),) and f"x{'₀₁₂₃₄₅₆₇₈₉'[9 - t]} = " in texto and n == 8 + t
    # En la pasada única la misma fila está recuadrada, con todas las filas ya escritas.
    assert pasada.paneles[0].marcas == ((t - 1, 8 - t),) and (~pasada.paneles[0].tapada).any(axis=1).all()


def test_la_columna_de_logits_da_lo_mismo_en_el_bucle_y_en_la_pasada():
    _, _, _, pasada, texto = calcular()
    columna = pasada.paneles[1].matriz  # (8, 2): bucle, pasada
    assert np.array_equal(columna[:, 0], columna[:, 1])
    assert "una sola pasada" not in texto and "teacher forcing" in texto and "los mismos pesos" in texto


@pytest.mark.parametrize(
    ("texto", "motivo"),
    [
        ("8 3 3 9", "Hay 4 dígitos"),
        ("8 3 3 9 6 9 4 a", "«a» no es un dígito"),
        ("³" * 8, "no es un dígito"),
        (None, "texto corto"),
    ],
)
def test_entrada_mala_da_un_motivo_en_espanol(texto, motivo):
    with pytest.raises(ValueError, match=motivo):
        leer_digitos(texto)


def test_paso_fuera_de_rango_se_rechaza():
    with pytest.raises(ValueError, match="paso"):
        calcular(LECCION, 9)


def test_las_respuestas_salen_de_lo_que_muestra_la_pestana():
    assert APRENDER.prediccion.cifras()["respuesta"] == "8 y 1"
    mira, tapa = (p.cifras() for p in APRENDER.preguntas)
    assert mira == {"respuesta": "x6", "mirada": "x₆ = 9"}
    assert tapa == {"respuesta": "no", "peso": "0"}
