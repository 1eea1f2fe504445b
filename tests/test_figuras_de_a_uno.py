"""Paneles de a uno en un teléfono (`Paneles.de_a_uno`, #37): un panel a la vez, elegido con un desplegable.

Como las cabezas del clasificador: en la rejilla de siempre, las palabras van solo en la columna de la izquierda y
en la fila de abajo. Apiladas en un teléfono eran nueve mapas de ≈ 80 px de ancho, y las cabezas de arriba no
decían qué palabra era cuál.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import plotly.graph_objects as go
import pytest

from demos.clasificador_atencion.pestana import calcular
from demos.comun.figuras import Mapa, Paneles
from demos.comun.figuras.pantalla import figura_plotly
from tests.ayuda_navegador import en_telefono

PALABRAS = ("la", "película", "no", "fue", "nada", "aburrida", ".")
COLUMNAS = 3


def _cabezas(de_a_uno: bool, n: int = 6) -> Paneles:
    """Mapas de L × L con las palabras solo en la columna de la izquierda y en la fila de abajo (el clasificador)."""
    L = len(PALABRAS)
    pesos = np.random.default_rng(0).dirichlet(np.ones(L), size=(n, L))  # (n, L, L)
    abajo = n - COLUMNAS
    paneles = tuple(
        Mapa(
            np.round(pesos[k], 3),
            x=PALABRAS if k >= abajo else ("",) * L,
            y=PALABRAS if k % COLUMNAS == 0 else ("",) * L,
            titulo=f"Cabeza {k + 1}",
            eje_x="Palabra que se mira (clave)" if k >= abajo else "",
            eje_y="Palabra que mira (consulta)" if k % COLUMNAS == 0 else "",
            numeros=False,
        )
        for k in range(n)
    )
    return Paneles(paneles, columnas=COLUMNAS, titulo="Bloque 1", de_a_uno=de_a_uno)


def _en_telefono(fig: dict, ancho: float | None = None) -> dict:
    """La figura como la maqueta el navegador en un teléfono (maqueta.mjs, en Node: tests/ayuda_navegador.py)."""
    return en_telefono(fig, ancho)


def _elegir(fig: dict, k: int) -> dict:
    """La figura tras elegir la opción k del desplegable (lo que hace Plotly con el método «update»)."""
    fig = json.loads(json.dumps(fig))
    trazos, cambios = fig["layout"]["updatemenus"][0]["buttons"][k]["args"]
    for t, v in zip(fig["data"], trazos["visible"], strict=True):
        t["visible"] = v
    for ruta, v in cambios.items():
        destino = fig["layout"]
        partes = ruta.replace("[", ".").replace("]", "").split(".")
        for p in partes[:-1]:
            destino = destino[int(p)] if p.isdigit() else destino[p]
        destino[partes[-1]] = v
    return fig


def _lo_que_se_ve(fig: dict) -> list[dict]:
    """Por mapa que se ve: sus nombres de fila y de columna, los títulos de sus ejes y su barra de color."""
    vistos = []
    for t in fig["data"]:
        if t["type"] != "heatmap" or t.get("visible") is False:
            continue
        ex = fig["layout"]["xaxis" + t["xaxis"][1:]]
        ey = fig["layout"]["yaxis" + t["yaxis"][1:]]
        assert ex.get("visible", True) and ey.get("visible", True), "el mapa que se ve tiene sus ejes a la vista"
        vistos.append(
            {
                "x": ex.get("ticktext"),
                "y": ey.get("ticktext"),
                "eje_x": ex["title"]["text"],
                "eje_y": ey["title"]["text"],
                "barra": t.get("showscale") and t["colorbar"].get("orientation"),
            }
        )
    return vistos


def test_de_a_uno_en_un_telefono_cada_cabeza_se_ve_sola_con_todas_sus_palabras():
    telefono = _en_telefono(figura_plotly(_cabezas(True)))
    (menu,) = telefono["layout"]["updatemenus"]
    assert [b["label"] for b in menu["buttons"]] == [f"Cabeza {k}" for k in range(1, 7)]
    assert menu["type"] == "dropdown" and menu["active"] == 0
    for k in range(6):  # la inicial y cada opción: un solo mapa, con las palabras de sus filas y columnas
        elegida = telefono if k == 0 else _elegir(telefono, k)
        (visto,) = _lo_que_se_ve(elegida)
        assert visto["x"] == list(PALABRAS) and visto["y"] == list(PALABRAS), (k, visto)
        assert visto["eje_x"].replace("<br>", " ") == "Palabra que se mira (clave)"
        assert visto["eje_y"].replace("<br>", " ") == "Palabra que mira (consulta)"
        assert visto["barra"] == "h", "la barra de color, acostada al pie: no le quita ancho a las casillas"
        assert "Cabeza" not in json.dumps(elegida["layout"]["annotations"]), "el título es la opción elegida"
    go.Figure(telefono)


def test_de_a_uno_el_mapa_del_telefono_llena_el_ancho_y_su_alto_es_el_de_una_fila():
    """Sin la barra de color a la derecha ni ocho mapas más abajo: la figura mide lo de un mapa."""
    apilada, de_a_uno = (_en_telefono(figura_plotly(_cabezas(d)))["layout"] for d in (False, True))
    assert de_a_uno["height"] < apilada["height"] / 3
    alto_area = de_a_uno["height"] - de_a_uno["margin"]["t"] - de_a_uno["margin"]["b"]
    assert alto_area >= 190


def test_de_a_uno_no_cambia_la_figura_de_siempre():
    con, sin = figura_plotly(_cabezas(True)), figura_plotly(_cabezas(False))
    con["layout"].pop("meta"), sin["layout"].pop("meta")
    assert con == sin


def test_las_cabezas_del_clasificador_en_un_telefono_van_de_a_una_con_sus_palabras():
    """La pestaña: con la frase de inicio (7 fichas), cada una de las 9 opciones (8 cabezas y el promedio) muestra un
    mapa con las 7 palabras en filas y columnas."""
    *_, cabezas = calcular()
    telefono = _en_telefono(figura_plotly(cabezas))
    (menu,) = telefono["layout"]["updatemenus"]
    assert len(menu["buttons"]) == 9 and menu["buttons"][-1]["label"] == "Promedio de las cabezas"
    for k in range(9):
        (visto,) = _lo_que_se_ve(_elegir(telefono, k))
        assert len(visto["x"]) == len(visto["y"]) == 7 and all(visto["x"]) and all(visto["y"]), (k, visto)


def test_de_a_uno_con_las_cabezas_como_imagenes_cada_panel_lleva_sus_ejes():
    """Con más de 24 fichas las cabezas son imágenes y el promedio un mapa: no comparten ejes, así que cada opción
    muestra los suyos (los de una imagen siguen ocultos) y esconde los de los demás."""
    frase = " ".join(["la película no fue nada aburrida"] * 5)
    *_, cabezas = calcular(frase)
    telefono = _en_telefono(figura_plotly(cabezas))
    promedio = _elegir(telefono, 8)
    (visto,) = _lo_que_se_ve(promedio)
    # El mapa del promedio, con palabras en sus filas (en la rejilla no las lleva: va en la tercera columna y las
    # de la primera son imágenes): las de la pista, una cada tantas.
    assert 10 <= sum(map(bool, visto["y"])) <= 12 and visto["y"][:3] == ["la", "", ""], visto
    imagen = _elegir(telefono, 3)
    assert _lo_que_se_ve(imagen) == []  # una cabeza: solo su imagen, sin el mapa del promedio ni sus ejes
    assert [t.get("visible") for t in imagen["data"]].count(True) == 1
    assert not any(e.get("visible", True) for k, e in imagen["layout"].items() if k.startswith(("xaxis", "yaxis")))


@pytest.mark.parametrize(("cabezas", "largo"), [(2, 5), (4, 5), (8, 5), (8, 12)])
def test_las_cabezas_de_multicabeza_en_un_telefono_van_de_a_una_con_sus_posiciones(cabezas, largo):
    """Multicabeza: una opción por cabeza y una por el promedio; cada una muestra un solo mapa, con las posiciones en
    filas y columnas. (Con las cabezas como imágenes, 16 de 32 posiciones, siguen apiladas: la prueba de abajo.)"""
    from demos.multicabeza import calcular as multicabeza

    figura = multicabeza(d_modelo=64, cabezas=cabezas, largo=largo)[1]
    telefono = _en_telefono(figura_plotly(figura))
    (menu,) = telefono["layout"]["updatemenus"]
    assert [b["label"] for b in menu["buttons"]] == [f"Cabeza {k}" for k in range(1, cabezas + 1)] + [
        "Promedio de las cabezas"
    ]
    for k in range(cabezas + 1):
        elegida = _elegir(telefono, k)
        vistos = _lo_que_se_ve(elegida)
        visibles = [t for t in elegida["data"] if t.get("visible", True) is not False and t["type"] != "scatter"]
        assert len(visibles) == 1, (k, [t["type"] for t in visibles])
        (visto,) = vistos
        assert len(visto["x"]) == len(visto["y"]) == largo and all(visto["x"]) and all(visto["y"]), (k, visto)
    sin = dataclasses.replace(figura, de_a_uno=False)
    con, de_siempre = figura_plotly(figura), figura_plotly(sin)
    con["layout"].pop("meta"), de_siempre["layout"].pop("meta")
    assert con == de_siempre, "la figura de siempre no cambia"


def test_las_cabezas_de_multicabeza_como_imagenes_siguen_apiladas_en_un_telefono():
    from demos.multicabeza import calcular as multicabeza

    figura = multicabeza(d_modelo=64, cabezas=16, largo=32)[1]
    assert not figura.de_a_uno and "updatemenus" not in _en_telefono(figura_plotly(figura))["layout"]
