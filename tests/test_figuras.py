"""Las figuras descritas una vez (`demos.comun.figuras`): válidas para Plotly, y las descargas dicen lo mismo."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go
import pytest

from demos import PESTANAS
from demos.comun.figuras import (
    C0,
    C1,
    TIPOS,
    TIPOS_DE_PANEL,
    Aviso,
    Barras,
    Caja,
    Curva,
    Curvas,
    Diagrama,
    Flecha,
    Histograma,
    Imagen,
    Mapa,
    Nota,
    Paneles,
    Referencia,
    Serie,
    es_figura,
    maqueta,
    numero,
    pantalla,
    pantalla_lienzo,
    papel,
)
from demos.comun.figuras import pantalla_angosta as angosta
from demos.comun.figuras.pantalla import figura_plotly, figura_plotly_json
from demos.comun.figuras.pantalla_lienzo import ANCHO_LETRA
from demos.comun.figuras.papel import a_bytes, a_matplotlib
from tests.ayuda_navegador import en_telefono

TAPADA = np.triu(np.ones((4, 4), bool), 1)
PESOS = np.array([[1, 0, 0, 0], [0.27, 0.73, 0, 0], [0.1, 0.2, 0.7, 0], [0.25, 0.25, 0.25, 0.25]])
EJEMPLOS = {
    "mapa": Mapa(PESOS, x=("el", "gato", "el", "pez"), y=("el", "gato", "el", "pez"), tapada=TAPADA, texto_tapada="−∞"),
    "barras": Barras(("a", "b"), (Serie("peso", np.array([0.6, 0.4])),), referencias=(Referencia(0.5, "parejos"),)),
    "curvas": Curvas(
        (Curva("sin escala", np.array([2, 64, 512]), np.array([0.5, 0.9, 1.0])),),
        log_x=True,
        marcas_x=(2, 64, 512),
        notas=(Nota(64, 0.9, "d = 64"),),
    ),
    "histograma": Histograma.de({"sin": np.arange(100.0), "con": np.arange(100.0) / 8}, bins=10),
    "imagen": Imagen(np.eye(8), capa=np.full((4, 4), 0.5), numeros_capa=True, barra="peso", rejilla=2),
    "foto": Imagen(
        np.zeros((100, 120, 3), np.uint8), rejilla=20, recuadros=((0, 0, 20, 20),), rotulos=(Nota(9, 9, "0"),)
    ),
    "diagrama": Diagrama((Caja(4, 1, "x"), Caja(4, 3, "atención", resaltada=True)), (Flecha(4, 1.4, 4, 2.6),)),
    "aviso": Aviso("Pulsa «Medir»"),
}
EJEMPLOS["paneles"] = Paneles(tuple(EJEMPLOS[k] for k in ("mapa", "barras", "curvas")), columnas=2, titulo="Tres")


def textos_pantalla(fig: dict) -> set[str]:
    """Los números escritos en la figura de Plotly: texto de casillas y de barras."""
    textos = set()
    for trazo in fig["data"]:
        for t in np.ravel(np.asarray(trazo.get("text", []), dtype=object)):
            if t:
                textos.add(str(t))
    return textos


def textos_descarga(fig) -> set[str]:
    """Los textos escritos en los ejes de matplotlib (números de casillas y `bar_label`)."""
    return {t.get_text() for eje in fig.axes for t in eje.texts if t.get_text()}


@pytest.mark.parametrize("dibujante", [pantalla, papel], ids=["pantalla", "papel"])
def test_cada_dibujante_tiene_una_funcion_para_cada_tipo(dibujante):
    """Un tipo nuevo es una dataclass en `Figura` y una función en cada `DIBUJOS`: si falta, esto la nombra."""
    faltan = sorted(t.__name__ for t in TIPOS_DE_PANEL if t not in dibujante.DIBUJOS)
    sobran = sorted(t.__name__ for t in dibujante.DIBUJOS if t not in TIPOS_DE_PANEL)
    assert not faltan, f"{dibujante.__name__}.DIBUJOS no dibuja: {', '.join(faltan)}"
    assert not sobran, f"{dibujante.__name__}.DIBUJOS dibuja tipos que no están en `Figura`: {', '.join(sobran)}"
    assert set(TIPOS) == {*TIPOS_DE_PANEL, Paneles}


def test_los_ejemplos_cubren_cada_tipo():
    """Las pruebas de abajo recorren EJEMPLOS: cada tipo tiene al menos uno."""
    assert {type(f) for f in EJEMPLOS.values()} == set(TIPOS)


def test_un_tipo_sin_dibujo_es_un_error_que_lo_nombra():
    class Nueva:
        titulo = ""

    with pytest.raises(TypeError, match="Nueva"):
        figura_plotly(Nueva())
    with pytest.raises(TypeError, match="Nueva"):
        a_matplotlib(Nueva())


def test_las_reglas_de_maqueta_son_las_mismas_en_pantalla_y_en_papel():
    """Las marcas de un eje de 100 palabras: una de cada 3, las mismas en los dos dibujantes."""
    palabras = tuple(f"p{i}" for i in range(100))
    f = Mapa(np.zeros((2, 100)), x=palabras, y=("a", "b"), numeros=False)
    eje = figura_plotly(f)["layout"]["xaxis"]
    posiciones, textos = maqueta.marcas(palabras)
    assert maqueta.paso(100) == 3 and eje["tickvals"] == posiciones == list(range(0, 100, 3))
    assert eje["ticktext"] == textos
    ejes = a_matplotlib(f).axes[0]
    assert [t.get_text() for t in ejes.get_xticklabels()] == textos
    assert [int(v) for v in ejes.get_xticks()] == posiciones


@pytest.mark.parametrize("nombre", EJEMPLOS)
def test_cada_tipo_da_una_figura_valida_de_plotly(nombre):
    f = figura_plotly(EJEMPLOS[nombre])
    go.Figure(f)  # lanza si alguna propiedad no existe en el esquema de Plotly
    assert json.loads(figura_plotly_json(EJEMPLOS[nombre]))["data"] == json.loads(json.dumps(f["data"]))
    assert f["config"]["locale"] == "es" and f["config"]["displaylogo"] is False  # la barra, en español


@pytest.mark.parametrize("nombre", EJEMPLOS)
def test_cada_tipo_se_descarga_en_png_y_svg(nombre):
    png, svg = a_bytes(EJEMPLOS[nombre], "png"), a_bytes(EJEMPLOS[nombre], "svg")
    assert png.startswith(b"\x89PNG") and b"<svg" in svg[:400]


def test_mapa_escribe_cada_peso_y_tapa_con_menos_infinito():
    f = EJEMPLOS["mapa"]
    assert f.textos()[1] == ["0.27", "0.73", "−∞", "−∞"]
    pantalla = figura_plotly(f)
    calor = pantalla["data"][0]
    assert calor["z"][0][1] is None  # tapada: sin color ni número
    assert calor["customdata"][1][0] == ["gato", "el", "0.270"]  # la pista dice qué casilla es
    leyenda = [t["name"] for t in pantalla["data"] if t.get("showlegend")]
    assert leyenda == ["casilla tapada: no se mira (−∞)"]


def test_mapa_con_palabras_repetidas_no_junta_columnas():
    """«el» aparece dos veces: cada palabra conserva su columna (el eje es numérico, con rótulos)."""
    eje = figura_plotly(EJEMPLOS["mapa"])["layout"]["xaxis"]
    assert eje["tickvals"] == [0, 1, 2, 3] and eje["ticktext"] == ["el", "gato", "el", "pez"]


@pytest.mark.parametrize("nombre", ["mapa", "barras", "imagen", "paneles"])
def test_la_descarga_y_la_pantalla_escriben_los_mismos_numeros(nombre):
    f = EJEMPLOS[nombre]
    en_pantalla = textos_pantalla(figura_plotly(f))
    assert en_pantalla and en_pantalla == textos_descarga(a_matplotlib(f))


def test_numero_usa_menos_tipografico_y_espacio_fino():
    assert numero(-0.5) == "−0.50"
    assert numero(13674, ",.0f") == "13\u202f674"
    assert numero(float("nan")) == ""


@pytest.mark.parametrize(
    ("valor", "formato", "texto"),
    [
        (-0.001, ".2f", "0.00"),
        (-0.004, ".2f", "0.00"),
        (-0.0, ".2f", "0.00"),
        (-0.4, ".0f", "0"),
        (-0.005, ".2f", "−0.01"),
        (-0.001, ".3f", "−0.001"),
        (-1e-9, ".2e", "−1.00e−09"),
        (-0.0001, ",.0f", "0"),
    ],
)
def test_un_cero_con_signo_se_escribe_sin_menos(valor, formato, texto):
    """«−0.00» diría que es negativo un número que se escribe cero: el cero va sin signo (la entropía
    de 0 bits, no «−0.00 bits»); lo que redondeado no es cero conserva su menos."""
    assert numero(valor, formato) == texto


def test_una_foto_va_como_jpeg_y_pesa_poco():
    rng = np.random.default_rng(0)
    foto = (rng.random((224, 224, 3)) * 255).astype(np.uint8)
    texto = figura_plotly_json(Imagen(foto))
    assert "data:image/jpeg;base64," in texto
    assert len(texto) < 100_000  # ruido puro: lo peor para JPEG; una foto real pesa mucho menos


def test_una_matriz_con_nan_no_muestra_nan():
    f = Mapa(np.array([[np.nan, 0.5]]), vmin=None, vmax=None)
    texto = figura_plotly_json(f)
    assert "NaN" not in texto and "nan" not in texto.lower().replace("nano", "")
    assert f.textos() == [["", "0.50"]]


def test_descripcion_mala_se_rechaza_al_construirla():
    with pytest.raises(ValueError, match="etiquetas"):
        Mapa(np.zeros((2, 2)), x=("a",))
    with pytest.raises(ValueError, match="un valor por categoría"):
        Barras(("a", "b"), (Serie("s", np.array([1.0])),))
    with pytest.raises(ValueError, match="demasiados"):
        Mapa(np.zeros((1000, 1000)))


def test_cada_panel_lleva_sus_ejes_al_pie_y_a_su_izquierda():
    """Sin `anchor`, el eje x del panel de abajo se dibujaba al pie del de arriba (sus marcas y su título)."""
    f = Paneles((EJEMPLOS["curvas"], EJEMPLOS["barras"], EJEMPLOS["histograma"]), columnas=2)
    layout = figura_plotly(f)["layout"]
    assert [layout[f"xaxis{k}"]["anchor"] for k in (2, 3)] == ["y2", "y3"]
    assert [layout[f"yaxis{k}"]["anchor"] for k in (2, 3)] == ["x2", "x3"]
    go.Figure(figura_plotly(f))


def test_paneles_comparten_eje_si_se_pide():
    f = Paneles((EJEMPLOS["histograma"], EJEMPLOS["histograma"]), columnas=2, compartir_x=True)
    assert figura_plotly(f)["layout"]["xaxis2"]["matches"] == "x"


def test_curvas_en_escala_log_con_marcas_legibles():
    eje = figura_plotly(EJEMPLOS["curvas"])["layout"]["xaxis"]
    assert eje["type"] == "log" and eje["ticktext"] == ["2", "64", "512"]


def test_mapa_con_umbral_escribe_solo_los_pesos_grandes_y_nombra_las_casillas_en_la_pista():
    f = Mapa(
        PESOS,
        x=("el\n0", "gato\n1", "el\n2", "pez\n3"),
        nombres_x=("«el» (0)", "«gato» (1)", "«el» (2)", "«pez» (3)"),
        umbral=0.3,
    )
    assert f.textos()[1] == ["", "0.73", "", ""] and f.textos()[3] == ["", "", "", ""]
    pantalla = figura_plotly(f)
    assert textos_pantalla(pantalla) == textos_descarga(a_matplotlib(f)) == {"1.00", "0.73", "0.70"}
    assert pantalla["data"][0]["customdata"][1][0] == ["1", "«el» (0)", "0.270"]  # filas sin nombres: su etiqueta
    assert pantalla["layout"]["xaxis"]["ticktext"][1] == "gato<br>1"  # Plotly cambiaría «\n» por un espacio
    with pytest.raises(ValueError, match="etiquetas en nombres_y"):
        Mapa(PESOS, nombres_y=("a", "b"))


def test_titulo_en_dos_lineas_y_un_nombre_una_vez_en_la_leyenda():
    en_los_dos = Referencia(3.0, "instantánea 3")
    arriba = Curvas((Curva("pérdida", np.arange(5.0), np.arange(5.0)),), verticales=(en_los_dos,))
    abajo = Curvas((Curva("exactitud", np.arange(5.0), np.arange(5.0)),), verticales=(en_los_dos,))
    f = Paneles((arriba, abajo), columnas=1, titulo="Entrenamiento\npaso 3", compartir_x=True)
    pantalla = figura_plotly(f)
    go.Figure(pantalla)
    assert pantalla["layout"]["title"]["text"] == "Entrenamiento<br>paso 3"
    assert (
        pantalla["layout"]["margin"]["t"] > figura_plotly(replace(f, titulo="Entrenamiento"))["layout"]["margin"]["t"]
    )
    leyenda = [t["name"] for t in pantalla["data"] if t.get("showlegend", True)]
    assert sorted(leyenda) == ["exactitud", "instantánea 3", "pérdida"]
    assert [t.get("legendgroup") for t in pantalla["data"] if t["name"] == "instantánea 3"] == ["instantánea 3"] * 2


def test_una_serie_de_barras_sola_no_va_en_la_leyenda_que_deja_otro_panel():
    """Como en la descarga (una leyenda por panel, si tiene más de una serie): sola, su nombre es el título de su
    eje. En CBAM, la «probabilidad» iba en la leyenda de los pesos con el color de su primera barra (el claro), el
    mismo de «solo la media», y la barra predicha es la oscura."""
    sola = Barras(("0", "1", "2"), (Serie("probabilidad", np.array([0.1, 0.8, 0.1]), colores=(C1, C0, C1)),))
    dos = Barras(("a", "b"), (Serie("w", np.array([1.0, 0.5])), Serie("media", np.array([0.7, 0.6]), color=C1)))
    pantalla = figura_plotly(Paneles((sola, dos), columnas=2))
    assert pantalla["layout"]["showlegend"]
    assert [t["name"] for t in pantalla["data"] if t.get("showlegend", True)] == ["w", "media"]
    con_referencia = replace(sola, referencias=(Referencia(0.5, "la mitad"),))
    assert all(t.get("showlegend", True) for t in figura_plotly(con_referencia)["data"])


def test_el_nombre_de_una_linea_va_arriba_o_abajo_de_ella_a_unos_pixeles_con_cualquier_escala():
    """Memoria: «GPU de 16 GB» iba a 1/1.8 de su línea en los datos; en el proyector, con el panel más bajo, la línea
    lo tachaba. Con `lado`, Plotly lo pone arriba o abajo del punto, y matplotlib igual."""
    curvas = (Curva("c", np.array([1.0, 10.0]), np.array([1.0, 10.0])),)
    notas = (Nota(1.0, 5.0, "abajo", marca=False, lado="abajo"), Nota(1.0, 5.0, "arriba", lado="arriba"))
    f = Curvas(curvas, notas=notas)
    posiciones = {t["text"][0]: t["textposition"] for t in figura_plotly(f)["data"] if "textposition" in t}
    assert posiciones == {"abajo": "bottom right", "arriba": "top right"}
    textos = {t.get_text(): t.get_verticalalignment() for t in a_matplotlib(f).axes[0].texts}
    assert textos == {"abajo": "top", "arriba": "bottom"}
    with pytest.raises(ValueError, match="lado 'izquierda'"):
        Nota(0, 0, "x", lado="izquierda")


def test_colores_de_la_leccion():
    assert C1 == "#ff7f0e"


@pytest.mark.parametrize("p", PESTANAS, ids=lambda p: p.id)
def test_la_vista_inicial_de_cada_pestana_da_figuras_descritas(p):
    """Ninguna pestaña entrega figuras de matplotlib: la pantalla las dibuja el navegador."""
    import gradio as gr

    with gr.Blocks():
        vista = p.cargar().construir()
    salida = vista.fn()
    salida = salida if isinstance(salida, tuple) else (salida,)
    viejas = [type(v).__name__ for v in salida if type(v).__name__ in ("Figure", "FiguraHecha")]
    assert not viejas, f"{p.id} aún dibuja en el servidor: {viejas}"
    assert any(es_figura(v) for v in salida), f"{p.id}: su vista inicial no tiene figuras"


def _trazas(valor) -> set[str]:
    """Los `type` de las trazas de cada figura de Plotly dentro de `valor` (también la variante de teléfono)."""
    if isinstance(valor, dict):
        propias = {t.get("type", "scatter") for t in valor["data"]} if isinstance(valor.get("data"), list) else set()
        return propias.union(*(_trazas(v) for v in valor.values()))
    if isinstance(valor, list | tuple):
        return set().union(*(_trazas(v) for v in valor))
    return set()


def _figuras_que_manda(p) -> list[dict]:
    """Las figuras de la vista inicial y de la del ajuste de ejemplo de la pestaña `p`, como las manda (JSON)."""
    import gradio as gr

    from demos.servir.conectar import aplicar_url

    with gr.Blocks():
        vista = p.cargar().construir()
    iniciales = [c.value for c in vista.entradas]
    salidas = [vista.fn(*iniciales), vista.fn(*aplicar_url(vista, vista.ejemplos()[0], iniciales)[0])]
    tuplas = [s if isinstance(s, tuple) else (s,) for s in salidas]
    return [json.loads(figura_plotly_json(v)) for t in tuplas for v in t if es_figura(v)]


@pytest.mark.parametrize("p", PESTANAS, ids=lambda p: p.id)
def test_cada_figura_de_la_pestana_usa_solo_las_trazas_que_la_pagina_registra(p):
    """La página registra en Plotly.js solo `TRAZAS_PLOTLY` (servidor/gradio_interno.plotly_con_trazas): una traza
    de otro tipo no se dibujaría. La vista inicial y la del ajuste de ejemplo de cada pestaña, como las manda."""
    from demos.comun.figuras.pantalla import TRAZAS_PLOTLY

    figuras = _figuras_que_manda(p)
    assert figuras and _trazas(figuras) <= TRAZAS_PLOTLY, _trazas(figuras) - TRAZAS_PLOTLY
    assert _trazas([figura_plotly(f) for f in EJEMPLOS.values()]) == TRAZAS_PLOTLY


@pytest.mark.parametrize("p", PESTANAS, ids=lambda p: p.id)
def test_ningun_eje_ni_barra_de_color_mide_sus_marcas_contra_la_pagina(p):
    """Cada figura lleva la plantilla con `ticklabeloverflow: "allow"` para todos sus ejes y la barra de color de sus
    mapas, y ningún eje ni barra la contradice: con el valor de Plotly («hide past div» en un eje numérico y en una
    barra) Plotly mide cada marca contra el <div> una vez por marca dibujada, en cada movimiento
    (scripts/perfil_redibujo.py: ≈ 15 ms de multicabeza y de cbam). Que Plotly la aplica a xaxis2, yaxis9 y a la
    barra lo mira tests/test_figuras_navegador.py."""
    from demos.comun.figuras.pantalla_lienzo import PLANTILLA

    figuras = [*_figuras_que_manda(p), *(figura_plotly(f) for f in EJEMPLOS.values())]
    assert all(f["layout"]["template"] == PLANTILLA for f in figuras)
    ejes = [e for f in figuras for k, e in f["layout"].items() if re.fullmatch(r"[xy]axis\d*", k)]
    barras = [t["colorbar"] for f in figuras for t in f["data"] if "colorbar" in t]
    assert ejes and not any("ticklabeloverflow" in e for e in [*ejes, *barras])
    assert {t["type"] for f in figuras for t in f["data"] if "colorbar" in t} <= {"heatmap"}  # los de la plantilla


def test_capa_que_cubre_solo_los_parches_dice_el_numero_de_cada_uno():
    """Una capa invisible (opacidad 0) de 2 × 3 parches de 16 px sobre una foto de 40 × 50: el borde queda fuera."""
    numeros = np.arange(6.0).reshape(2, 3)
    f = Imagen(
        np.zeros((40, 50, 3), np.uint8),
        capa=numeros,
        opacidad=0,
        vmax=5,
        caja_capa=(-0.5, -0.5, 47.5, 31.5),
        formato=".0f",
        pista="parche {v}",
    )
    calor = figura_plotly(f)["data"][1]
    assert (calor["x0"], calor["dx"], calor["y0"], calor["dy"]) == (7.5, 16, 7.5, 16)  # centro del parche (0, 0)
    assert calor["hovertemplate"] == "parche %{z:.0f}<extra></extra>" and calor["opacity"] == 0
    eje = a_matplotlib(f).axes[0]
    assert eje.images[1].get_extent() == [-0.5, 47.5, 31.5, -0.5]
    con_numeros = Imagen(np.zeros((8, 8)), capa=np.full((4, 4), 0.125), numeros_capa=True, formato=".3f")
    assert con_numeros.textos_capa()[0][0] == "0.125"
    assert Imagen(np.zeros((8, 8)), capa=np.ones((4, 4))).extension_capa() == (-0.5, -0.5, 7.5, 7.5)


def test_las_palabras_de_un_visitante_no_son_html_en_plotly():
    """Plotly lee <a href>, <b>… en marcas y pistas: una palabra así se muestra tal cual, no como enlace."""
    enlace = '<a href="https://otro.example">aquí</a>'
    mapa = figura_plotly(Mapa(np.eye(2), x=(enlace, "b&c"), y=("<b>", "d")))
    assert mapa["layout"]["xaxis"]["ticktext"] == ['&lt;a href="https://otro.example"&gt;aquí&lt;/a&gt;', "b&amp;c"]
    assert mapa["data"][0]["customdata"][0][0][:2] == ["&lt;b&gt;", mapa["layout"]["xaxis"]["ticktext"][0]]
    barras = figura_plotly(Barras((enlace,), (Serie("s", np.array([1.0])),)))
    assert "<a" not in json.dumps(barras["data"][0]["customdata"]) + json.dumps(barras["layout"]["xaxis"])


def test_un_mapa_sin_nombres_no_repite_la_casilla_en_cada_pista():
    """Filas y columnas 0, 1, 2…: la pista lee x, y y el valor de Plotly; la respuesta pesa la cuarta parte."""
    m = np.linspace(-1, 1, 50 * 32).reshape(32, 50)
    sin_nombres = figura_plotly(Mapa(m, numeros=False, pista="posición {x}, columna {y}: {v}"))["data"][0]
    assert "customdata" not in sin_nombres
    assert sin_nombres["hovertemplate"] == "posición %{x}, columna %{y}: %{z:.3f}<extra></extra>"
    assert len(figura_plotly_json(Mapa(m, numeros=False))) < 1.1 * len(
        json.dumps(sin_nombres["z"])
    )  # casi solo los valores


def test_titulos_de_paneles_centrados_y_leyenda_al_pie_bajo_el_eje_x():
    """Plotly alinea una anotación a la izquierda si x < 1/3: el título del panel izquierdo pisaba al derecho."""
    dos = Paneles(tuple(Histograma.de({k: np.arange(10.0)}, bins=5, titulo=k, eje_x="Puntaje") for k in "ab"))
    f = figura_plotly(dos)
    titulos = {n["text"]: n for n in f["layout"]["annotations"]}
    assert titulos["a"]["xanchor"] == titulos["b"]["xanchor"] == "center"
    assert titulos["a"]["x"] < 0.5 < titulos["b"]["x"]
    leyenda = figura_plotly(EJEMPLOS["barras"])["layout"]["legend"]  # al pie: el título del eje x queda encima
    assert (leyenda["yref"], leyenda["y"], leyenda["yanchor"]) == ("container", 0, "bottom")


def test_imagen_estirada_llena_el_panel_con_pixeles_no_cuadrados():
    """Una secuencia de 6 × 96 números: estirada no queda como una tira de 1/16 del alto del panel."""
    tira = np.zeros((6, 96, 3), np.uint8)
    assert figura_plotly(Imagen(tira))["layout"]["yaxis"]["scaleanchor"] == "x"
    assert (
        figura_plotly(Imagen(tira, estirar=True))["layout"]["yaxis"]["scaleanchor"] is False
    )  # plotly.js no la cuadra
    assert a_matplotlib(Imagen(tira)).axes[0].get_aspect() == 1
    assert a_matplotlib(Imagen(tira, estirar=True)).axes[0].get_aspect() == "auto"


def test_un_mapa_grande_sin_nombres_lleva_marcas_redondas_en_las_dos_salidas():
    """50 posiciones sin etiquetas propias: 0, 10, 20… y no 25 números apiñados; con nombres, todos."""
    grande = Mapa(np.zeros((32, 50)), numeros=False)
    ejes = figura_plotly(grande)["layout"]
    assert "tickvals" not in ejes["xaxis"] and "tickvals" not in ejes["yaxis"]
    marcas = a_matplotlib(grande).axes[0].get_xticks()
    assert len(marcas) <= 8 and all(m % 10 == 0 for m in marcas)
    con_nombres = Mapa(np.zeros((20, 20)), x=tuple("abcdefghijklmnopqrst"), numeros=False)
    assert figura_plotly(con_nombres)["layout"]["xaxis"]["ticktext"][:3] == ["a", "b", "c"]
    assert len(figura_plotly(Mapa(np.zeros((4, 4))))["layout"]["xaxis"]["tickvals"]) == 4  # pequeño: cada casilla


def test_diagrama_dice_cada_caja_al_pasar_el_raton_y_rotula_el_tramo_pedido():
    """Un atajo residual sale de lado y sube: su rótulo va junto al tramo que sube (tramo=1), en las dos salidas."""
    atajo = Flecha(4, 1, 3, 4, codos=((1, 1), (1, 4)), texto="residual", tramo=1)
    f = Diagrama((Caja(4, 1, "entrada", nota="L × 64"), Caja(4, 4, "+", redonda=True)), (atajo,))
    pantalla = figura_plotly(f)
    (cajas,) = pantalla["data"]
    assert cajas["text"] == ["entrada: L × 64", "+"] and cajas["x"] == [4, 4]
    (rotulo,) = [n for n in pantalla["layout"]["annotations"] if n.get("text") == "residual"]
    assert rotulo["y"] == 2.5 and rotulo["x"] < 1  # junto al tramo de (1, 1) a (1, 4), a su izquierda
    (texto,) = [t for t in a_matplotlib(f).axes[0].texts if t.get_text() == "residual"]
    assert texto.get_position()[1] == 2.5 and texto.get_position()[0] < 1
    with pytest.raises(ValueError, match="tramo 2"):
        Flecha(0, 0, 1, 1, codos=((0, 1),), tramo=2)


def test_la_pista_de_una_barra_puede_repetir_su_texto():
    """Un conteo: «Atención: 16 640 (33.3%)» al pasar el ratón, no «16640.000»."""
    serie = Serie("parámetros", np.array([16640.0]), numeros=("16 640 (33.3%)",))
    f = Barras(("Atención",), (serie,), pista="{c}: {t}")
    barra = figura_plotly(f)["data"][0]
    assert barra["hovertemplate"] == "%{customdata[0]}: %{customdata[2]}<extra></extra>"
    assert barra["customdata"] == [["Atención", "16640.000", "16 640 (33.3%)"]]


def test_un_mapa_grande_con_nombres_los_dice_por_fila_y_columna_no_en_cada_casilla():
    """32 × 32 palabras (la máscara causal): ejes de categorías; una palabra repetida o que parece un número
    («1») sigue siendo su propia columna."""
    palabras = ("el", "1", "el", *(f"palabra{i}" for i in range(29)))
    m = Mapa(np.full((32, 32), 0.5), x=palabras, y=palabras, tapada=np.triu(np.ones((32, 32), bool), 1))
    f = figura_plotly(m)
    calor, tapadas = f["data"][:2]
    assert "customdata" not in calor and calor["hovertemplate"] == "fila %{y}, columna %{x}: %{z:.3f}<extra></extra>"
    assert calor["x"][:4] == ["el", "1", "el\u200b", "palabra0"] and len(set(calor["x"])) == 32
    assert tapadas["x"] == calor["x"] and tapadas["y"] == calor["y"]
    eje = f["layout"]["xaxis"]
    assert eje["type"] == "category" and eje["tickvals"] == calor["x"] and eje["ticktext"][:3] == ["el", "1", "el"]
    assert "text" not in tapadas  # sin números, ni «−∞» ni 1024 textos vacíos
    go.Figure(f)
    pequeno = figura_plotly(Mapa(np.full((4, 4), 0.5), x=palabras[:4], y=palabras[:4]))
    assert "customdata" in pequeno["data"][0] and "type" not in pequeno["layout"]["xaxis"]
    assert len(figura_plotly_json(m)) < 20_000


def test_barras_horizontales_nombran_los_ejes_igual_en_pantalla_y_en_la_descarga():
    """eje_x nombra las categorías y eje_y los valores: en horizontal, los valores van en el eje x."""
    serie = Serie("p", np.array([16640.0, 256.0]))
    f = Barras(("Atención", "LayerNorm"), (serie,), eje_x="Parte", eje_y="Parámetros", horizontal=True)
    pantalla = figura_plotly(f)["layout"]
    assert (pantalla["xaxis"]["title"]["text"], pantalla["yaxis"]["title"]["text"]) == ("Parámetros", "Parte")
    assert pantalla["yaxis"]["automargin"]  # «LayerNorm» no se corta a la izquierda
    eje = a_matplotlib(f).axes[0]
    assert (eje.get_xlabel(), eje.get_ylabel()) == ("Parámetros", "Parte")


def test_la_pista_de_una_curva_dice_lo_que_mide():
    """Por omisión «nombre, x =, y =»; con `pista`, en palabras de la pestaña."""
    curva = Curva("ingenua", np.array([64.0, 128.0]), np.array([0.1, 0.4]))
    por_omision = figura_plotly(Curvas((curva,)))["data"][0]["hovertemplate"]
    assert por_omision == "ingenua<br>x = %{x}<br>y = %{y:.3g}<extra></extra>"
    propia = Curvas((curva,), formato=".2f", pista="{n}, L = {x}: {y} ms")
    assert figura_plotly(propia)["data"][0]["hovertemplate"] == "ingenua, L = %{x}: %{y:.2f} ms<extra></extra>"


def test_un_titulo_de_panel_de_dos_lineas_no_se_corta_arriba():
    """«Tiempo (mediana)\\npendiente: …» sobre el panel: el margen de arriba crece una línea."""
    curva = Curvas((Curva("a", np.array([1.0, 2.0]), np.array([1.0, 4.0])),), titulo="Tiempo")
    una = figura_plotly(Paneles((curva, curva)))["layout"]["margin"]["t"]
    dos = figura_plotly(Paneles((dataclasses.replace(curva, titulo="Tiempo\npendiente: a 2.0"), curva)))
    assert dos["layout"]["margin"]["t"] == una + 22
    assert "Tiempo<br>pendiente: a 2.0" in [n["text"] for n in dos["layout"]["annotations"]]


def test_imagen_chica_de_pocos_colores_va_en_png_con_paleta_y_los_mismos_pixeles():
    """Un mapa pintado (32 × 32, blanco→azul en 256 tonos): un byte por píxel en lugar de tres."""
    import base64
    import io

    from PIL import Image as PILImage

    rng = np.random.default_rng(0)
    t = rng.integers(0, 256, (32, 32, 1)) / 255
    rgb = np.round(255 + t * (np.array([31, 119, 180]) - 255)).astype(np.uint8)  # (32, 32, 3)
    fuente = figura_plotly(Imagen(rgb))["data"][0]["source"]
    png = base64.b64decode(fuente.removeprefix("data:image/png;base64,"))
    imagen = PILImage.open(io.BytesIO(png))
    assert imagen.mode == "P" and (np.asarray(imagen.convert("RGB")) == rgb).all()
    sin_paleta = io.BytesIO()
    PILImage.fromarray(rgb).save(sin_paleta, format="png")
    assert len(png) < 0.6 * len(sin_paleta.getvalue())


def test_un_mapa_sin_ejes_se_ve_como_una_imagen():
    """Un valor por píxel de una foto (80 × 54): sin marcas ni números en los ejes, en pantalla y en la descarga."""
    f = Mapa(np.zeros((54, 80)), numeros=False, ejes=False)
    layout = figura_plotly(f)["layout"]
    assert layout["xaxis"]["visible"] is False and layout["yaxis"]["visible"] is False
    assert not a_matplotlib(f).axes[0].axison
    assert figura_plotly(Mapa(np.eye(2)))["layout"]["xaxis"].get("visible", True)


def test_descarga_leyenda_de_tapadas_al_pie_una_vez_y_32_etiquetas_de_pie():
    """Junto al eje, la leyenda pisaba el título del eje x; 32 palabras giradas 45° se encimaban."""
    tapada = np.triu(np.ones((32, 32), bool), 1)
    palabras = tuple(f"palabra{i}" for i in range(32))
    mapa = Mapa(np.full((32, 32), 0.5), x=palabras, y=palabras, tapada=tapada, eje_x="Palabra que se mira")
    fig = a_matplotlib(Paneles((mapa, mapa)))
    assert [[t.get_text() for t in leyenda.get_texts()] for leyenda in fig.legends] == [[mapa.leyenda_tapada]]
    assert all(eje.get_legend() is None for eje in fig.axes)
    marcas = fig.axes[0].get_xticklabels()
    assert len(marcas) == 32 and {m.get_rotation() for m in marcas} == {90}
    assert {m.get_rotation() for m in a_matplotlib(EJEMPLOS["mapa"]).axes[0].get_xticklabels()} == {0}


def test_paneles_con_la_misma_escala_llevan_una_barra_tambien_en_la_descarga():
    """Cinco mapas blanco→azul (las cabezas y su promedio): una barra, la del último, en las dos salidas."""
    mapas = tuple(Mapa(np.full((3, 3), k / 5), vmax=1, titulo=f"Cabeza {k}") for k in range(5))
    f = Paneles(mapas, columnas=3)
    assert f.con_barra() == (False, False, False, False, True)
    assert [t["showscale"] for t in figura_plotly(f)["data"]] == [False, False, False, False, True]
    assert len(a_matplotlib(f).axes) == 6 + 1  # 2 × 3 paneles (uno vacío) y una barra
    distintos = Paneles((mapas[0], dataclasses.replace(mapas[1], colores="divergente", vmin=-1)))
    assert distintos.con_barra() == (True, True) and len(a_matplotlib(distintos).axes) == 2 + 2


def test_un_mapa_enorme_sin_nombres_va_promediado_en_bloques_y_la_descarga_completa():
    """512 × 512 valores son 3 MB de JSON: en pantalla va el promedio de bloques k × k, y una nota lo dice."""
    m = np.sin(np.arange(512)[:, None] / 7.0) * np.cos(np.arange(512)[None, :] / 11.0)
    f = Mapa(m, vmin=-1, vmax=1, colores="divergente", numeros=False)
    pantalla = figura_plotly(f)
    calor = pantalla["data"][0]
    k = calor["dx"]
    assert k > 1 and len(calor["z"]) * len(calor["z"][0]) <= 5000
    assert calor["z"][0][0] == pytest.approx(m[:k, :k].mean(), abs=1e-3)  # el promedio del primer bloque
    assert any("promedio de" in n["text"] for n in pantalla["layout"]["annotations"])
    assert len(figura_plotly_json(f)) < 40_000
    descargada = a_matplotlib(f)
    assert descargada.axes[0].get_images()[0].get_array().shape == (512, 512)


@pytest.mark.parametrize(
    ("filas", "columnas", "k"), [(512, 512, 8), (500, 509, 8), (73, 300, 3), (100, 51, 2), (7, 999, 4)]
)
def test_el_promedio_en_bloques_da_los_bits_de_nanmean_con_relleno(filas, columnas, k):
    """`_promedios` hace las cuentas de np.nanmean sobre la matriz rellena de NaN hasta un múltiplo de k, sin buscar
    NaN: los mismos bits, también con el borde a medias y con una matriz en orden de Fortran."""
    from demos.comun.figuras.pantalla_mapas import _promedios

    m = np.random.default_rng(filas * columnas).standard_normal((filas, columnas)) * 1e3
    relleno = np.full((-(-filas // k) * k, -(-columnas // k) * k), np.nan)
    relleno[:filas, :columnas] = m
    h, w = relleno.shape[0] // k, relleno.shape[1] // k
    esperado = np.nanmean(relleno.reshape(h, k, w, k), axis=(1, 3))
    assert _promedios(m, k).tobytes() == esperado.tobytes()
    assert _promedios(np.asfortranarray(m), k).tobytes() == esperado.tobytes()


def _en_telefono(fig: dict, ancho: float | None = None) -> dict:
    """La figura como la maqueta el navegador en un teléfono (maqueta.mjs, en Node: tests/ayuda_navegador.py)."""
    return en_telefono(fig, ancho)


def test_apilados_en_un_telefono_cada_mapa_dice_que_eje_es_cual_si_es_el_mismo_eje():
    """La rejilla titula el eje y en su primera columna y el x en su fila de abajo (variantes, a mano). Apilados en un
    teléfono, cada mapa se lee solo: toma el título de eje del primer mapa con los mismos nombres en ese eje. La
    columna «Σ fila» de atención a mano no es «Palabra que se mira»: su eje x queda sin título."""
    palabras = ("Ana", "sacó", "plata")
    m = np.eye(3)
    figura = Paneles(
        (
            Mapa(m, x=palabras, y=palabras, eje_x="Palabra que se mira", eje_y="Palabra que mira"),
            Mapa(m, x=palabras, y=palabras),
            Mapa(m[:, :1], x=("Σ fila",), y=palabras),
        ),
        columnas=3,
    )
    normal = figura_plotly(figura)
    telefono = _en_telefono(normal)["layout"]

    def titulo(layout, eje):
        return ((layout.get(eje) or {}).get("title") or {}).get("text", "").replace("<br>", " ")

    assert [titulo(telefono, f"yaxis{k}") for k in ("", "2", "3")] == ["Palabra que mira"] * 3
    assert [titulo(telefono, f"xaxis{k}") for k in ("", "2", "3")] == ["Palabra que se mira"] * 2 + [""]
    # En la figura de siempre, la rejilla los escribe una vez.
    assert titulo(normal["layout"], "yaxis2") == titulo(normal["layout"], "xaxis2") == ""


def test_en_un_telefono_los_paneles_se_apilan_a_todo_el_ancho():
    seis = Paneles(tuple(Mapa(np.eye(4), titulo=f"Cabeza {k}") for k in range(6)), columnas=3, titulo="Seis")
    normal, telefono = figura_plotly(seis), _en_telefono(figura_plotly(seis))
    dominios = [telefono["layout"][f"xaxis{k if k > 1 else ''}"]["domain"] for k in range(1, 7)]
    assert dominios == [[0.0, 1.0]] * 6
    altos = [telefono["layout"][f"yaxis{k if k > 1 else ''}"]["domain"] for k in range(1, 7)]
    assert all(a[0] > b[1] for a, b in itertools.pairwise(altos))  # uno bajo otro, sin pisarse
    assert telefono["layout"]["height"] > normal["layout"]["height"]
    go.Figure(telefono)


def test_en_un_telefono_los_numeros_caben_en_su_casilla_o_no_van():
    """12 columnas de «−0.97»: en un teléfono no caben a 8 px, así que no van (quedan al pasar el dedo);
    5 columnas sí, en letra más chica; la figura de siempre no cambia. Lo decide el navegador (maqueta.mjs,
    numerosDelTelefono; sus casos, en tests/js/maqueta.test.mjs): el servidor manda la letra de siempre."""
    anchas = figura_plotly(Mapa(-np.ones((12, 12)) * 0.97, vmin=-1))
    assert anchas["data"][0]["texttemplate"] == "%{text}"
    cambia = anchas["layout"]["meta"]["angosto"]["datos"]["0"]  # ni la letra ni los números cambian en el servidor
    assert not {"text", "texttemplate", "textfont"} & set(cambia), cambia
    assert _en_telefono(anchas)["data"][0]["texttemplate"] == ""
    cinco = _en_telefono(figura_plotly(Mapa(-np.ones((5, 5)) * 0.97, vmin=-1, barra="Peso")))
    assert cinco["data"][0]["texttemplate"] == "%{text}"
    tam = cinco["data"][0]["textfont"]["size"]
    casilla = (330 - 45 - 30) / 5  # el área de dibujo entre 5 columnas: la barra de color va al pie
    assert 8 <= tam < 16 and tam * 0.7 * len("−0.97") <= casilla
    assert cinco["data"][0]["colorbar"]["orientation"] == "h"


def test_en_un_telefono_la_unica_barra_de_color_va_al_pie_y_las_casillas_crecen():
    """La barra de color a la derecha se llevaba ≈ 85 px de los 255 del área de un teléfono: con una sola barra, la
    del panel de abajo, va acostada al pie (sobre la leyenda, si hay) y los números de las casillas crecen. Con dos
    barras (dos escalas), cada una sigue junto a su panel; la figura de siempre no cambia."""
    pesos = np.full((6, 5), 0.2)
    sola = figura_plotly(Mapa(pesos, vmin=0, barra="Peso"))
    assert "orientation" not in sola["data"][0]["colorbar"]  # ancha: a la derecha
    telefono = _en_telefono(sola)
    barra = telefono["data"][0]["colorbar"]
    assert barra["orientation"] == "h" and barra["yref"] == "container" and barra["y"] == 0
    assert telefono["data"][0]["textfont"]["size"] >= 13  # 5 columnas de «0.20» (antes, con la barra al lado: 9)
    # Bajo los nombres del eje x: el margen de abajo crece lo que ocupa la barra.
    assert telefono["layout"]["margin"]["b"] >= angosta.ALTO_BARRA_ABAJO + 40
    # Dos mapas apilados con una sola barra, la del de abajo: al pie; y su alto no se estira (va al pie, en píxeles).
    con_tapadas = Mapa(pesos, vmin=0, barra="Peso", tapada=np.triu(np.ones((6, 5), bool), 1))
    dos = _en_telefono(figura_plotly(Paneles((Mapa(pesos), con_tapadas), columnas=2)))
    barras = [t["colorbar"] for t in dos["data"] if t.get("showscale")]
    assert len(barras) == 1 and barras[0]["orientation"] == "h" and barras[0]["y"] == 0
    # Con la leyenda de las tapadas, la barra va sobre ella: su hueco cuenta la leyenda.
    assert barras[0]["ypad"] >= 12 + angosta.ALTO_LEYENDA
    # Dos barras (dos escalas): cada una junto a su panel, de pie.
    dos_barras = _en_telefono(
        figura_plotly(Paneles((Mapa(pesos, barra="a"), Mapa(pesos, barra="b", colores="divergente")), columnas=2))
    )
    assert all("orientation" not in t["colorbar"] for t in dos_barras["data"] if t.get("showscale"))
    go.Figure(telefono)
    go.Figure(dos)


def test_en_un_telefono_la_figura_declara_sus_paneles_de_proporcion_fija_para_el_ancho_de_verdad():
    """La figura de teléfono se arma para uno de 390 px; el navegador rehace el alto de cada panel de proporción fija
    con el ancho de la página (maqueta.mjs, `estirarPaneles`). Para eso, `meta.angosto.medida` dice de cada uno su eje,
    su ancho en px, su proporción y su tope, y a 390 px eso da el alto que el servidor le dio (si no llegó al tope).
    Un panel de curvas o de barras no va: su alto no depende del ancho."""
    foto = np.random.default_rng(0).random((107, 160))
    curvas = Curvas((Curva("a", np.arange(3.0), np.arange(3.0)),), titulo="Curvas")
    figura = Paneles((Imagen(foto, titulo="Foto"), curvas, Imagen(foto[:50], titulo="Tira")), columnas=3)
    angosto = figura_plotly(figura)["layout"]["meta"]["angosto"]
    medida = {eje: (ancho, proporcion, tope) for eje, ancho, proporcion, tope in angosto["medida"]}
    assert set(medida) == {"yaxis", "yaxis3"}  # las dos fotos; las curvas, no
    assert medida["yaxis"][1] == pytest.approx(107 / 160, abs=1e-3) and medida["yaxis3"][1] == pytest.approx(50 / 160)
    telefono = _en_telefono(figura_plotly(figura))
    for eje, (ancho, proporcion, tope) in medida.items():
        assert _panel_en_px(telefono["layout"], eje) == pytest.approx(min(tope, ancho * proporcion), abs=2)
    # Sola, una foto también lo declara, con el alto de la figura de tope.
    [[eje, ancho, proporcion, tope]] = figura_plotly(Imagen(foto))["layout"]["meta"]["angosto"]["medida"]
    assert eje == "yaxis" and ancho * proporcion < tope
    # Un mapa sin casillas cuadradas, o una figura sin paneles de proporción fija, no declara nada.
    assert "medida" not in figura_plotly(Mapa(np.eye(3)))["layout"]["meta"].get("angosto", {})
    assert "medida" not in figura_plotly(curvas)["layout"]["meta"].get("angosto", {})


def test_en_un_telefono_un_panel_de_proporcion_fija_mide_lo_que_pide_a_lo_ancho():
    """Apilados en un teléfono, una foto apaisada medía el alto de una fila (≈ 330 px) y dejaba 140 px de papel en
    blanco debajo, y un mapa 7 × 7 de casillas cuadradas iba en casillas de 21 px (números de 8 px) en una fila de
    150. Ahora cada panel de proporción fija mide lo que pide a su ancho, bajo una imagen va solo el título del
    panel siguiente, y la figura de siempre no cambia."""
    foto = np.random.default_rng(0).random((107, 160))
    tuberia = Paneles(
        tuple(Imagen(foto, titulo=f"Paso {k}") for k in range(4)), columnas=3, titulo="La tubería", alto_fila=330
    )
    normal = figura_plotly(tuberia)
    telefono = _en_telefono(normal)
    layout = telefono["layout"]
    area = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    ejes = ["yaxis", "yaxis2", "yaxis3", "yaxis4"]
    for eje in ejes:  # del alto de una foto de 160 × 107 en el ancho del área (≈ 250 px): ≈ 167 px, no una fila
        assert _panel_en_px(layout, eje) == pytest.approx(angosta.AREA * 107 / 160, abs=2)
    for arriba, abajo in itertools.pairwise(ejes):  # entre dos, el título de una línea del de abajo
        hueco = (layout[arriba]["domain"][0] - layout[abajo]["domain"][1]) * area
        assert 30 <= hueco <= angosta.HUECO_SIN_EJES + 22 + 1
    assert layout["margin"]["b"] == 20  # al pie, bajo una imagen, nada
    # La figura mide sus márgenes, las cuatro fotos y tres títulos: nada más (antes, 4 filas de 205 px y 3 huecos de
    # 135).
    fotos_y_titulos = 4 * (angosta.AREA * 107 / 160) + 3 * (angosta.HUECO_SIN_EJES + 22)
    assert area == pytest.approx(fotos_y_titulos, abs=4)
    # La figura de siempre, en su rejilla de 3 columnas, no cambia.
    assert normal["layout"]["height"] == 2 * 330 + 70 and normal["layout"]["margin"]["b"] == 70
    # Dos mapas 7 × 7 de casillas cuadradas, una sola barra: las casillas, del ancho del área, y números de ≥ 11 px.
    pesos = np.round(np.random.default_rng(1).random((7, 7)), 1)
    mapas = Paneles(
        tuple(Mapa(pesos, titulo=t, cuadrado=True, eje_x="columna", eje_y="fila", formato=".1f") for t in "ab"),
        columnas=2,
        alto_fila=300,
    )
    dos = _en_telefono(figura_plotly(mapas))
    assert min(t["textfont"]["size"] for t in dos["data"] if t.get("text")) >= 11
    assert _panel_en_px(dos["layout"], "yaxis") >= 180  # antes, ≈ 150
    # Sola, una foto apaisada tampoco deja papel en blanco arriba y abajo.
    sola = _en_telefono(figura_plotly(Imagen(foto, titulo="Una foto")))
    assert _panel_en_px(sola["layout"], "yaxis") == pytest.approx(angosta.AREA * 107 / 160, abs=2)
    for f in (telefono, dos, sola):
        go.Figure(f)


def test_en_un_telefono_cada_mapa_con_numeros_dice_el_ancho_de_sus_casillas():
    """La figura de teléfono se arma para `ANCHO_FIGURA` px; en una página más angosta (360 px) maqueta.mjs achica
    los números a lo que cabe, con el ancho de casilla que trae `meta.angosto.casillas` (por trazo). Lo trae cada
    mapa con números (y su capa de tapadas con «−∞»), no uno sin números; la figura ancha no lo necesita."""
    pesos = np.full((6, 5), 0.2)
    tapada = np.triu(np.ones((6, 5), bool), 1)
    figura = Paneles((Mapa(pesos, tapada=tapada, texto_tapada="−∞"), Mapa(np.zeros((40, 40)))), columnas=2)
    normal = figura_plotly(figura)
    casillas = normal["layout"]["meta"]["angosto"]["casillas"]
    telefono = _en_telefono(normal)
    assert set(casillas) == {"0", "1"}  # el mapa y sus tapadas; no el de 40 × 40, sin números
    assert telefono["data"][1]["text"][0][1] == "−∞"
    # La letra del teléfono es la que cabe en esa casilla (4 letras de ANCHO_LETRA de la letra cada una), y el ancho
    # es el de una de 5 columnas en el área de un teléfono, sin lo que ocupan los nombres del eje y.
    (ancho, columnas), _ = casillas["0"], casillas["1"]
    assert columnas == 5 and casillas["1"] == casillas["0"]
    assert telefono["data"][0]["textfont"]["size"] == min(16, int(ancho / (ANCHO_LETRA * 4)))
    assert 0.6 * angosta.AREA / 5 < ancho <= angosta.AREA / 5
    # En una página más angosta (la figura mide 270 px), letra más chica: el navegador la mide con ese ancho.
    assert _en_telefono(normal, 270)["data"][0]["textfont"]["size"] == int((ancho - 60 / 5) / (ANCHO_LETRA * 4)) < 16
    assert "casillas" not in normal["layout"]["meta"]  # va con lo del teléfono


def test_en_un_telefono_los_titulos_se_parten():
    largo = "Los pesos de cada cabeza (capa sin entrenar: distintos solo porque sus proyecciones al azar lo son)"
    telefono = _en_telefono(figura_plotly(Mapa(np.eye(3), titulo=largo)))
    lineas = telefono["layout"]["title"]["text"].split("<br>")
    assert len(lineas) >= 3 and " ".join(lineas) == largo
    assert max(map(len, lineas)) * 0.55 * 17 <= 330
    assert telefono["layout"]["margin"]["t"] >= 70 + 22 * (len(lineas) - 1)


def _panel_en_px(layout: dict, eje: str) -> float:
    a, b = layout[eje].get("domain", [0, 1])
    return (layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]) * (b - a)


def test_en_un_telefono_el_titulo_del_eje_y_de_una_curva_cabe_en_el_alto_de_su_panel():
    """Memoria: «Memoria de los pesos (MB, escala log)» mide 346 px en Chromium (0.52 × 18 px por letra) y, con un
    título de cuatro líneas y cuatro series en la leyenda, el panel medía 164 px. En un teléfono el panel crece a
    `ALTO_PANEL` y el título se parte en líneas que caben; la figura de siempre no cambia."""
    eje_y = "Memoria de los pesos (MB, escala log)"
    x = np.array([10.0, 100, 1000, 10_000, 100_000, 1_000_000])
    series = tuple(Curva(f"serie {k}", x, x**k) for k in range(1, 5))
    titulo = (
        "Pesos de atención en float32: pendiente 2 en log-log\ncon ventana causal w = 512: pendiente 1 desde L = 513"
    )
    f = Curvas(series, titulo=titulo, eje_x="Largo de la frase L (palabras, escala log)", eje_y=eje_y, log_x=True)
    normal, telefono = figura_plotly(f), _en_telefono(figura_plotly(f))
    assert normal["layout"]["yaxis"]["title"]["text"] == eje_y
    lineas = telefono["layout"]["yaxis"]["title"]["text"].split("<br>")
    alto = _panel_en_px(telefono["layout"], "yaxis")
    assert len(lineas) >= 2 and " ".join(lineas) == eje_y
    assert alto >= angosta.ALTO_PANEL and max(map(len, lineas)) * 0.52 * 18 <= alto
    go.Figure(telefono)


def test_en_un_telefono_los_paneles_de_curvas_apilados_crecen_con_sus_titulos_y_huecos():
    """Dos curvas apiladas en filas de 200 px (las de inversión: medían 96 px cada una): cada panel crece a
    `ALTO_PANEL`, el hueco entre ellos conserva sus píxeles y el título de cada panel sigue justo encima del suyo."""
    x = np.arange(10.0)
    dos = Paneles(
        (
            Curvas((Curva("a", x, x), Curva("b", x, -x)), titulo="Pérdida", eje_y="Pérdida en validación"),
            Curvas((Curva("c", x, x), Curva("d", x, 2 * x)), titulo="Exactitud", eje_y="Exactitud (%)"),
        ),
        columnas=2,
        titulo="Pérdida y exactitud durante el entrenamiento",
        alto_fila=200,
    )
    telefono = _en_telefono(figura_plotly(dos))["layout"]
    assert min(_panel_en_px(telefono, e) for e in ("yaxis", "yaxis2")) >= angosta.ALTO_PANEL - 1
    notas = {n["text"]: n["y"] for n in telefono["annotations"]}
    assert notas["Pérdida"] == telefono["yaxis"]["domain"][1] and notas["Exactitud"] == telefono["yaxis2"]["domain"][1]
    hueco = (telefono["yaxis"]["domain"][0] - telefono["yaxis2"]["domain"][1]) * (
        telefono["height"] - telefono["margin"]["t"] - telefono["margin"]["b"]
    )
    assert hueco <= 135 + 1  # el de pantalla.py entre dos paneles apilados (crecido con el área, medía 0.3 de ella)


@pytest.mark.parametrize("columnas", [1, 3])
def test_la_descarga_no_corta_un_titulo_largo(columnas):
    """Un título más ancho que su panel (el clasificador, la atención cruzada) se parte: cabe en el PNG."""
    largo = "Peso α de cada posición en la agrupación (suman 1): positiva, 1.000 y algo más de texto"
    f = Paneles(tuple(Mapa(np.eye(3), titulo=largo) for _ in range(columnas)), columnas=columnas, titulo=largo * 2)
    fig = a_matplotlib(f)
    fig.canvas.draw()
    caja = fig.bbox
    titulos = [e.title for e in fig.axes if e.get_title()] + [fig._suptitle]
    for t in titulos:
        borde = t.get_window_extent()
        assert borde.x0 >= caja.x0 - 1 and borde.x1 <= caja.x1 + 1, t.get_text()
    assert " ".join(titulos[0].get_text().split()) == largo


def test_la_figura_de_telefono_comparte_las_listas_de_la_de_siempre_y_cada_figura_las_suyas():
    """Los mismos arreglos dan la misma lista en las dos variantes de una figura (se calculan una vez y
    `angosto` no las repite); dos figuras distintas, o fuera de una figura, no comparten nada."""
    nombres = tuple(f"p{k}" for k in range(5))
    pesos = np.random.default_rng(0).random((5, 5))
    dos = Paneles((Mapa(pesos, x=nombres, y=nombres, titulo="A"), Mapa(pesos, x=nombres, y=nombres)), columnas=2)
    fig = figura_plotly(dos)
    cambios = fig["layout"]["meta"]["angosto"]["datos"]
    assert cambios and not any({"z", "customdata"} & set(c) for c in cambios.values())
    assert fig["data"][0]["z"] is fig["data"][1]["z"]  # el mismo contenido dentro de una figura
    otra = figura_plotly(dos)
    assert otra["data"][0]["z"] == fig["data"][0]["z"] and otra["data"][0]["z"] is not fig["data"][0]["z"]
    assert pantalla_lienzo.a_lista(pesos) is not pantalla_lienzo.a_lista(pesos)  # fuera de `recordando`
    with pantalla_lienzo.recordando():
        assert pantalla_lienzo.a_lista(pesos) is pantalla_lienzo.a_lista(pesos.copy())
        assert pantalla_lienzo.a_lista(pesos) is not pantalla_lienzo.a_lista(pesos.T)  # otro contenido


def test_el_json_de_una_figura_lee_nan_como_null():
    """orjson escribe null donde `json` escribía NaN (que JSON.parse del navegador no lee)."""
    texto = figura_plotly_json(Curvas((Curva("a", np.arange(3.0), np.array([1.0, np.nan, 3.0])),)))
    assert "NaN" not in texto and json.loads(texto)["data"][0]["y"][1] is None


def test_los_numeros_de_los_parches_van_en_un_trazo_de_cuadritos_y_un_rotulo_largo_como_nota():
    """Tres letras o menos: un cuadrito de color por rótulo, todos en un trazo (60 anotaciones tardaban 216 ms
    por valor en Chromium; el trazo, 75). Uno más largo sigue siendo una anotación con su caja."""
    rotulos = (Nota(2, 3, "0", marca=False, color=C0), Nota(9, 3, "117", marca=False, color=C1))
    rotulos += (Nota(5, 8, "parche 7", marca=False, color=C1),)
    fig = figura_plotly(Imagen(np.zeros((16, 16, 3), np.uint8), rotulos=rotulos))
    (cuadritos,) = [t for t in fig["data"] if t["type"] == "scatter"]
    assert (cuadritos["x"], cuadritos["y"], cuadritos["text"]) == ([2, 9], [3, 3], ["0", "117"])
    assert cuadritos["marker"]["color"] == [C0, C1] and cuadritos["hoverinfo"] == "skip"
    assert cuadritos["marker"]["size"][1] > cuadritos["marker"]["size"][0]  # el cuadrito cabe su texto
    (nota,) = [n for n in fig["layout"]["annotations"] if n.get("bgcolor")]
    assert nota["text"] == "parche 7" and nota["bgcolor"] == C1
    go.Figure(fig)


def test_en_un_telefono_un_panel_sin_nombres_no_lleva_numeros_que_no_caben_en_el_de_al_lado():
    """Como las cabezas del clasificador con una frase de 5 palabras: los nombres del eje y solo en el primer
    panel de cada fila. En el teléfono el automargin de Plotly corre el margen de toda la figura por esos nombres,
    así que los paneles sin nombres son igual de angostos: llevaban sus números encimados en casillas de ≈ 19 px."""
    palabras = ("la", "película", "fue", "muy", "aburrida")
    m = np.random.default_rng(0).dirichlet(np.ones(5), size=5)
    paneles = tuple(
        Mapa(
            m,
            x=palabras,
            y=palabras if k % 3 == 0 else ("",) * 5,
            titulo=f"Cabeza {k + 1}",
            eje_y="Palabra que mira (consulta)" if k % 3 == 0 else "",
            vmin=0,
            vmax=1,
        )
        for k in range(6)
    )
    telefono = _en_telefono(figura_plotly(Paneles(paneles, columnas=3)))
    con_numeros = [bool(t.get("texttemplate")) for t in telefono["data"] if t["type"] == "heatmap"]
    assert con_numeros == [con_numeros[0]] * 6, con_numeros  # todos igual de angostos: todos o ninguno
    assert figura_plotly(Paneles(paneles, columnas=3))["data"][1].get("texttemplate")  # en la ancha, sí


def test_las_marcas_van_en_letra_chica_solo_si_son_muchas_palabras():
    """Con 0, 1, 2…, Plotly elige marcas redondas (0, 5, 10, 15) que caben en la letra de siempre: en multicabeza, las
    16 columnas de Q, K y V iban a 11 px (a lo lejos, en un proyector, no se leían). 16 palabras sí van chicas."""
    indices = figura_plotly(Mapa(np.eye(4, 16)))["layout"]
    assert "tickfont" not in indices["xaxis"]
    # En el eje y, sí: el «0» de arriba iría junto al título del panel (variantes).
    assert figura_plotly(Mapa(np.eye(16, 4)))["layout"]["yaxis"]["tickfont"]["size"] == 11
    palabras = tuple(f"p{k}" for k in range(16))
    nombradas = figura_plotly(Mapa(np.eye(16), x=palabras, y=palabras))["layout"]
    assert nombradas["xaxis"]["tickfont"]["size"] == 11 and nombradas["yaxis"]["tickfont"]["size"] == 11


def test_en_un_telefono_los_nombres_bajo_barras_de_pie_los_ralea_el_navegador():
    """32 canales bajo barras de pie (CBAM): el servidor manda todas las marcas (a lo sumo `maqueta.MAX_MARCAS`) y, en
    `meta.angosto.marcas`, lo que el eje y se lleva del ancho; el navegador deja una de cada tantas con el ancho de
    verdad (maqueta.mjs, marcasQueCaben; antes el servidor las raleaba para 390 px y el navegador no las tocaba en un
    teléfono): derechas si son cortas, menos en una página más angosta, y la figura ancha no lo declara."""
    canales = tuple(str(k) for k in range(32))
    f = Barras(canales, (Serie("w", np.linspace(1, 0, 32)),), eje_x="Canal", eje_y="Peso w")
    normal = figura_plotly(f)
    assert normal["layout"]["xaxis"]["ticktext"] == list(canales)
    angosto = normal["layout"]["meta"]["angosto"]
    assert set(angosto["marcas"]) == {"xaxis"} and 0 < angosto["marcas"]["xaxis"] < angosta.AREA / 4
    assert "marcas" not in normal["layout"]["meta"]
    de390, de360 = (_en_telefono(normal, ancho)["layout"]["xaxis"] for ancho in (angosta.ANCHO_FIGURA, 300))
    assert de390["tickangle"] == 0 and 4 <= len(de390["tickvals"]) < 32
    assert len(de360["tickvals"]) <= len(de390["tickvals"]) and de390["ticktext"][0] == "0"
