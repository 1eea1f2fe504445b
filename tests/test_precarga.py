"""Plotly.js en la página: el paquete oficial cartesiano, pedido en la cabecera del HTML y una sola vez (#22, #39).

Las figuras son un `gr.HTML` propio (demos/comun/figuras/componente.py) que dibuja con el Plotly.js de
`plotly.js-cartesian-dist-min` (1.4 MB), incluido en el repositorio y servido como `./assets/<archivo>` en cada
montaje (servidor/laterales.py). Gradio no importa el suyo (4.6 MB) y nada de su frontend se reescribe para
las figuras.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.error
import urllib.request

import pytest

from demos.comun.figuras.componente import PLOTLY, RUTA_PLOTLY
from servidor import admision, gradio_interno
from tests.ayuda_navegador import fuente_figura

PAGINAS = ["", "demo/temperatura/"]  # la suite y una pestaña suelta
PESADO = 1_000_000  # bytes: un JS así es Plotly.js; la página no pide otro
# El archivo tal cual lo publica Plotly en npm (plotly.js-cartesian-dist-min@3.7.0, plotly-cartesian.min.js).
SHA256_PLOTLY = "7c593b9eda0e74a1d07335cf89cbf7a55ffc114909980c3729af835453bdb02a"


def _html(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read().decode()


def _configuracion(html: str) -> dict:
    """La configuración que la página servida trae escrita (`window.gradio_config = …;`)."""
    return json.loads(re.search(r"window\.gradio_config = (.*?);</script>", html, re.S).group(1))


def test_plotly_es_el_paquete_oficial_cartesiano_sin_tocar():
    """El archivo incluido es el de npm, byte a byte (su encabezado y su huella), con las trazas de la suite."""
    from demos.comun.figuras.pantalla import TRAZAS_PLOTLY

    js = PLOTLY.read_bytes()
    assert js.startswith(b"/**\n* plotly.js (cartesian - minified) v3.7.0\n")
    assert b"Licensed under the MIT license" in js[:300]
    assert hashlib.sha256(js).hexdigest() == SHA256_PLOTLY
    trazas = set(re.findall(rb'moduleType:"trace",name:"(\w+)"', js))
    assert {t.encode() for t in TRAZAS_PLOTLY} <= trazas, trazas


@pytest.mark.parametrize("camino", PAGINAS)
def test_el_html_servido_pide_plotly_en_su_cabeza_y_cada_figura_en_su_head(url_app, camino):
    """En el HTML mismo (el navegador lo pide mientras lee la página), después del guion de las figuras; y en el
    `head` de cada figura de la configuración, para quien arma la página desde /config. Responde 200 como JS."""
    html = _html(url_app + camino)
    cabeza = html[: html.index("</head>")]
    guion = f'<script async src="{RUTA_PLOTLY}"></script>'
    assert cabeza.count(guion) == 1
    assert cabeza.index("__suite") < cabeza.index(guion), "figuras.mjs va antes que Plotly.js"
    configuracion = _configuracion(html)
    assert admision.CABECERA in configuracion["head"], "el guion del token de la página sigue en la cabecera"
    figuras = [c for c in configuracion["components"] if c.get("props", {}).get("component_class_name") == "Figura"]
    assert figuras, "la página no tiene figuras"
    assert {c["props"]["head"] for c in figuras} == {f'<script src="{RUTA_PLOTLY}"></script>'}
    with urllib.request.urlopen(url_app + camino + RUTA_PLOTLY.removeprefix("./"), timeout=60) as r:
        assert r.status == 200 and "javascript" in r.headers["content-type"]
        assert r.read() == PLOTLY.read_bytes()


@pytest.mark.navegador
@pytest.mark.parametrize("camino,id_", [("", None), ("demo/temperatura/", "temperatura")])
def test_chromium_pide_plotly_una_sola_vez_y_ningun_otro_js_pesado(url_app, pagina, camino, id_):
    """Lo que el navegador pide de verdad: nuestro Plotly.js una vez, no el de Gradio (PlotlyPlot-…), ningún otro
    JS pesado; y figuras.mjs corre antes que el JS de Gradio (en el <head>)."""
    from demos import PESTANAS

    pedidos: list[str] = []
    pagina.on("request", lambda r: r.resource_type == "script" and pedidos.append(r.url))
    pagina.add_init_script(
        "document.addEventListener('DOMContentLoaded', () => {"
        "  window.__alLeerLaPagina = !!(window.__suite && window.__suite.recibir);"
        "});"
    )
    pagina.goto(url_app + camino, wait_until="load")
    fuente_figura(pagina, id_ or PESTANAS[0].id)
    plotly = url_app + camino + RUTA_PLOTLY.removeprefix("./")
    assert pedidos.count(plotly) == 1, pedidos
    assert not [u for u in pedidos if "PlotlyPlot-" in u], pedidos
    pesados = pagina.evaluate(
        """(minimo) => performance.getEntriesByType("resource")
          .filter((e) => e.name.endsWith(".js") && e.decodedBodySize > minimo).map((e) => e.name)""",
        PESADO,
    )
    assert pesados == [plotly], pesados
    assert pagina.evaluate("window.Plotly.version") == "3.7.0"
    assert pagina.evaluate("window.__alLeerLaPagina") is True, "figuras.mjs no corrió antes que el JS de Gradio"


@pytest.mark.parametrize("archivo", ["Index-", "plotly-cartesian-"])
@pytest.mark.parametrize("camino", PAGINAS)
def test_cada_archivo_propio_se_sirve_con_su_etag(url_app, camino, archivo):
    """`…/assets/<archivo>` (servidor/laterales.py) en cada montaje: el trozo de la lista del desplegable, corregido,
    y el Plotly.js de las figuras; con su ETag, 304 sin cuerpo, y en caché."""
    from servidor.laterales import archivos_propios

    ((nombre, cuerpo),) = [(n, js) for n, js in archivos_propios().items() if n.startswith(archivo)]
    if archivo == "Index-":
        assert cuerpo == gradio_interno.trozos_corregidos()[nombre] != (gradio_interno.TROZOS / nombre).read_bytes()
    url = url_app + camino + f"assets/{nombre}"
    with urllib.request.urlopen(url, timeout=60) as r:
        assert r.read() == cuerpo and "javascript" in r.headers["content-type"]
        assert "max-age" in r.headers["cache-control"]
        etiqueta = r.headers["etag"]
    pedido = urllib.request.Request(url, headers={"If-None-Match": etiqueta})
    with pytest.raises(urllib.error.HTTPError) as sin_cambios:
        urllib.request.urlopen(pedido, timeout=60)
    assert sin_cambios.value.code == 304 and sin_cambios.value.read() == b""


@pytest.mark.navegador
def test_plotly_en_la_pagina_dibuja_las_trazas_de_la_suite(url_app, pagina):
    """Las figuras de una pestaña con las cuatro trazas de la suite (imágenes, mapas, barras y puntos) se dibujan
    sin errores con el paquete cartesiano."""
    from demos.comun.figuras.pantalla import TRAZAS_PLOTLY

    errores: list[str] = []
    pagina.on("pageerror", lambda e: errores.append(str(e)))
    pagina.goto(url_app + "demo/parches-vit/", wait_until="load")
    fuente_figura(pagina, "parches-vit")
    registradas = set(pagina.evaluate("() => Object.keys(window.Plotly.PlotSchema.get().traces)"))
    assert set(TRAZAS_PLOTLY) <= registradas
    dibujadas = """() => new Set([...document.querySelectorAll(".js-plotly-plot")]
      .flatMap((g) => (g._fullData || []).filter((t) => t.visible !== false).map((t) => t.type)))"""
    pagina.wait_for_function(f"() => ({dibujadas})().size === 4", timeout=30_000)
    assert set(pagina.evaluate(f"() => [...({dibujadas})()]")) == set(TRAZAS_PLOTLY)
    assert not errores, errores
