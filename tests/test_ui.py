"""El mecanismo común de las pestañas: descargas para diapositivas y ajustes de la URL."""

import json
import re
from pathlib import Path

import gradio as gr
import pytest
from PIL import Image

from demos.comun.controles import Deslizador, Numero, Opcion
from demos.comun.figuras.componente import Figura
from demos.comun.vista import salidas_para_gradio
from demos.escalado import calcular
from demos.servir.conectar import (
    OCULTO_POR_LA_URL,
    acompanantes,
    controles_visibles,
    ocultar_controles,
    valor_desde_url,
)
from demos.servir.descarga import exportar_figuras


def test_descargas_dan_png_a_mas_de_200_ppp_y_svg():
    rutas = [Path(r) for r in exportar_figuras("escalado", calcular())]
    assert sorted(r.suffix for r in rutas) == [".png", ".png", ".svg", ".svg"]  # dos figuras
    for png in (r for r in rutas if r.suffix == ".png"):
        with Image.open(png) as im:
            assert im.info["dpi"][0] >= 200
            assert im.width >= 1200  # 6.4 pulgadas a 220 ppp
    for svg in (r for r in rutas if r.suffix == ".svg"):
        texto = svg.read_text(encoding="utf-8")
        assert texto.lstrip().startswith("<?xml") and "<svg" in texto
        assert "<text" in texto  # el texto queda como texto, editable en el SVG


def test_las_figuras_van_al_navegador_como_plotly_sin_archivos():
    """Escalado describe sus figuras: van como JSON de Plotly (las dibuja el navegador), no como PNG."""
    histogramas, curva = salidas_para_gradio(calcular())[:2]
    assert histogramas.keys() == curva.keys() == {"type", "plot"}
    assert histogramas["type"] == curva["type"] == "plotly"
    assert json.loads(histogramas["plot"])["layout"]["xaxis2"]["matches"] == "x"  # los dos histogramas, mismo eje x
    assert [t["name"] for t in json.loads(curva["plot"])["data"][:2]] == ["sin escala", "con escala (÷ √d)"]


@pytest.mark.parametrize(
    "componente, texto, esperado",
    [
        (lambda: Deslizador(1, 4096, value=2, step=1), "512", 512),
        (lambda: Deslizador(0.05, 10, value=1, step=0.05), "0,5", 0.5),
        (lambda: Numero(0, precision=0), "7", 7),
        (lambda: Numero(1.0), "0.5", 0.5),  # un Number sin precision no redondea
        (lambda: Opcion(["causal", "ventana"], value="causal"), "ventana", "ventana"),
        (lambda: Opcion([1, 2, 4], value=2), "4", 4),
        (lambda: gr.Checkbox(True), "0", False),
    ],
)
def test_valor_desde_url_convierte_al_tipo_del_control(componente, texto, esperado):
    with gr.Blocks():
        c = componente()
    assert valor_desde_url(c, texto) == esperado


@pytest.mark.parametrize(
    "componente, texto, mensaje",
    [
        (lambda: Deslizador(1, 4096, value=2, step=1), "5000", "entre 1 y 4\u202f096"),
        (lambda: Deslizador(1, 4096, value=2, step=1), "abc", "no es un número"),
        (lambda: Deslizador(1, 4096, value=2, step=1), "nan", "finito"),
        (lambda: Opcion(["causal", "ventana"], value="causal"), "otra", "una de"),
        (lambda: gr.Textbox(""), "x" * 600, "más largo"),
    ],
)
def test_valor_desde_url_malo_da_razon_en_espanol(componente, texto, mensaje):
    with gr.Blocks():
        c = componente()
    with pytest.raises(ValueError, match=mensaje):
        valor_desde_url(c, texto)


def _vista(id_: str):
    import app

    return app.vistas(app.demo)[id_]


@pytest.mark.parametrize(
    "texto, visibles, aviso",
    [
        (None, None, None),  # sin el ajuste, todos
        ("w", {"w"}, None),
        (" w , L ", {"w", "L"}, None),
        ("", set(), None),  # ninguno: solo la figura
        ("w,ventana", {"w"}, "«ventana» no es un control de esta pestaña; se ignoró (hay: L, w, g, r, semilla)"),
        ("<b>x</b>", set(), "«<b>x</b>»"),  # el texto se repite tal cual: avisar_url lo escapa
        ("w," * 300, None, "más largo que 500"),
    ],
)
def test_controles_en_la_url_dice_cuales_se_ven_y_avisa_los_que_no_son_de_la_pestana(texto, visibles, aviso):
    parametros = {} if texto is None else {"controles": texto}
    dados, avisos = controles_visibles(_vista("variantes"), parametros)
    assert dados == visibles
    if aviso is None:
        assert avisos == []
    else:
        assert len(avisos) == 1 and aviso in avisos[0], avisos


@pytest.mark.parametrize(
    "id_, controles, ocultos",
    [
        ("variantes", "w", {"L", "g", "r", "semilla"}),
        # T se escribe también con el deslizador de log T (un Barrido con `entrada`): los dos se ocultan juntos.
        ("temperatura", "palabras", {"puntajes", "T", "log₁₀ T", "n", "semilla"}),
        ("temperatura", "T", {"palabras", "puntajes", "n", "semilla"}),
        # Y d, con log₂ d y los botones «d = 2», «d = 64», «d = 512» que saltan a una parada.
        ("escalado", "", {"d", "log₂ d", "d = 2", "d = 64", "d = 512", "claves", "semilla"}),
    ],
)
def test_controles_en_la_url_oculta_los_demas_y_lo_que_los_escribe(id_, controles, ocultos):
    vista = _vista(id_)
    sin_cambios = [gr.skip()] * len(vista.entradas)
    entradas, acompanan = ocultar_controles(vista, {"controles": controles}, sin_cambios)
    assert len(acompanan) == len(acompanantes(vista))

    def nombre(c) -> str:
        propio = next((n for n, x in vista.url.items() if x is c), None)
        return propio or (c.value if isinstance(c, gr.Button) else c.label.split("  ")[0].split(" (")[0])

    cambios = list(zip([*vista.entradas, *acompanantes(vista)], [*entradas, *acompanan], strict=True))
    assert {nombre(c) for c, u in cambios if OCULTO_POR_LA_URL in u.get("elem_classes", ())} == ocultos
    assert all(u == gr.skip() for c, u in cambios if nombre(c) not in ocultos)
    # Sin ?controles=, nada cambia.
    entradas, acompanan = ocultar_controles(vista, {"T": "2"}, sin_cambios)
    assert all(u == gr.skip() for u in [*entradas, *acompanan])


def test_un_control_oculto_conserva_el_valor_que_le_da_la_url():
    vista = _vista("variantes")
    i = vista.entradas.index(vista.url["L"])
    entradas = [gr.skip()] * len(vista.entradas)
    entradas[i] = 12  # lo que `vista_inicial` manda con ?L=12
    entradas, _ = ocultar_controles(vista, {"controles": "w", "L": "12"}, entradas)
    assert entradas[i] == gr.update(elem_classes=[OCULTO_POR_LA_URL], value=12)


@pytest.mark.parametrize("tab, L", [("variantes", 12), ("escalado", 16)])
def test_la_pestana_de_tab_abre_con_los_ajustes_de_la_url_aunque_su_eleccion_llegue_despues(tab, L):
    """?tab=variantes&L=12: el navegador elige la pestaña al abrir, y esa elección (que llena la pestaña) compite con
    la carga que aplica la URL. Si llegaba después, dejaba L en 12 y la figura y sus paradas en 16 × 16."""
    from types import SimpleNamespace

    import app
    from demos import buscar

    vista = _vista("variantes")
    abrir = app._abrir_si_falta(buscar("variantes"), vista)
    pedido = SimpleNamespace(query_params={"tab": tab, "L": "12"})
    abierta, *resto = abrir(pedido, False, *[c.value for c in vista.entradas])
    entradas, salidas = resto[: len(vista.entradas)], resto[len(vista.entradas) :]
    assert abierta is True
    i = vista.entradas.index(vista.url["L"])
    assert entradas[i] == (12 if L == 12 else gr.skip())  # la de otra pestaña no toma los ajustes
    titulo = json.loads(salidas[0]["plot"])["layout"]["title"]["text"]
    assert f"{L} × {L}" in titulo, titulo


@pytest.mark.parametrize("modulo", ["demos.memoria.medida", "demos.comun.figuras", "modelos"])
def test_se_importa_sin_gradio(modulo):
    """La medición de memoria corre en una máquina sin gradio (scripts/gpu_smoke.py): ni ella ni las
    figuras que describe lo importan. Un proceso aparte, con gradio escondido, lo comprueba."""
    import subprocess
    import sys

    codigo = (
        "import sys, importlib.abc\n"
        "class Sin(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, nombre, *a):\n"
        "        if nombre.split('.')[0] in ('gradio', 'plotly', 'matplotlib'):\n"
        "            raise ImportError(f'{nombre} no está en esta máquina')\n"
        "sys.meta_path.insert(0, Sin())\n"
        f"import {modulo}\n"
    )
    r = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]


@pytest.mark.parametrize("ruta", ["", "demo/temperatura/"])
def test_sin_historial_de_llamadas(url_app, ruta):
    """El historial de Gradio (run_history) guardaba cada llamada, con su figura, en el localStorage del
    alumno y la reescribía entera en cada movimiento (scripts/perfil_redibujo.py --sin-historial); además
    abría /gradio_api/runs y rutas para conectar un bucket del Hub. Apagado en cada montaje."""
    import httpx

    assert httpx.get(f"{url_app}{ruta}config").json()["run_history"] is False
    assert httpx.get(f"{url_app}{ruta}gradio_api/runs").status_code == 404
    assert httpx.post(f"{url_app}{ruta}gradio_api/run-history/connect", json={}).status_code in (404, 405)


def test_un_reloj_por_evento_en_su_primera_figura_y_ninguno_en_el_navegador():
    """Un evento que recalcula figuras muestra el reloj de Gradio solo en la primera (`vista.un_reloj`): en cada
    salida eran varios relojes reescritos en cada cuadro (≈ 40 ms por movimiento en multicabeza y cbam). Uno que
    corre en el navegador (`js=`, sin cola) no muestra ninguno. Todos los eventos de la suite; y el de cada pestaña
    lo muestra («minimal»). Los de progreso «full» (entrenar, medir, el laboratorio) quedan como están: son
    trabajos largos, con su barra de avance."""
    import app
    from demos import PESTANAS

    for fn in app.demo.fns.values():
        figuras = [o for o in fn.outputs if isinstance(o, Figura)]
        if fn.fn is None:
            assert fn.show_progress == "hidden", (fn.name, [type(o).__name__ for o in fn.outputs])
        elif figuras and fn.show_progress == "minimal":  # los «full» son trabajos largos, con su barra de avance
            assert fn.show_progress_on == figuras[:1], (fn.name, fn.api_name)
    principales = {f.api_name: f for f in app.demo.fns.values()}
    assert all(principales[p.api].show_progress == "minimal" for p in PESTANAS)


# Una fórmula en línea: $…$ con algo de TeX adentro (una barra, ^, _ o llaves).
FORMULA_EN_LINEA = re.compile(r"(?<!\$)\$(?!\$)[^$\n]*[\\^_{][^$\n]*\$")


def test_un_texto_con_formulas_en_linea_las_dibuja():
    """Gradio dibuja por omisión solo las fórmulas entre $$…$$: un `gr.Markdown` sin `latex_delimiters` con $…$
    mostraba el TeX crudo («$H = -\\sum_j p_{ij} \\log_2 p_{ij}$» en el laboratorio de fallos de la inversión). Cada
    texto de la suite con una fórmula en línea, fijo o de la vista inicial de su pestaña, la dibuja."""
    import app

    def en_linea(md: gr.Markdown) -> bool:
        return any(d.get("left") == "$" and not d.get("display") for d in md.latex_delimiters or ())

    crudos = [
        (md.elem_id, FORMULA_EN_LINEA.search(md.value)[0])
        for md in app.demo.blocks.values()
        if isinstance(md, gr.Markdown) and isinstance(md.value, str) and FORMULA_EN_LINEA.search(md.value)
        if not en_linea(md)
    ]
    for nombre, v in app.vistas(app.demo).items():
        salida = v.fn(*[getattr(c, "value", None) for c in v.entradas])
        for md, valor in zip(v.salidas, salida if isinstance(salida, tuple) else (salida,), strict=False):
            formula = isinstance(valor, str) and FORMULA_EN_LINEA.search(valor)
            if isinstance(md, gr.Markdown) and formula and not en_linea(md):
                crudos.append((nombre, formula[0]))
    assert not crudos, crudos
