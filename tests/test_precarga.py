"""La página pide Plotly.js en su cabecera, no al montar la primera figura (#22).

Gradio importa el trozo de Plotly.js de su frontend (4.6 MB) recién cuando monta el primer `gr.Plot`;
la cabecera de cada página (la suite y cada /demo/<id>/) lo pide antes con un `modulepreload`, junto
con los otros dos trozos del Plot, leídos del frontend instalado (servidor/gradio_interno.py).
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest

from servidor import gradio_interno, paginas
from tests.ayuda_navegador import fuente_figura

PAGINAS = ["", "demo/temperatura/"]  # la suite y una pestaña suelta
PRECARGA = re.compile(r'<link rel="modulepreload"[^>]*href="([^"]+)"')
PESADO = 1_000_000  # bytes: un trozo de JS así, pedido tarde, es el que retrasa la primera figura


def _configuracion(url: str) -> dict:
    """La configuración que la página servida trae escrita (`window.gradio_config = …;`)."""
    with urllib.request.urlopen(url, timeout=60) as r:
        html = r.read().decode()
    return json.loads(re.search(r"window\.gradio_config = (.*?);</script>", html, re.S).group(1))


@pytest.mark.parametrize("camino", PAGINAS)
def test_la_pagina_precarga_los_trozos_del_plot_y_existen(url_app, camino):
    """En la cabecera de la página, los trozos que importa el Plot; cada uno responde 200 como JS."""
    cabeza = _configuracion(url_app + camino)["head"]
    pedidos = PRECARGA.findall(cabeza)
    assert pedidos == [f"./assets/{n}" for n in gradio_interno.modulos_del_plot()]
    assert any(n.startswith("PlotlyPlot-") for n in gradio_interno.modulos_del_plot())
    assert paginas.CABECERA in cabeza, "el guion del token de la página sigue en la cabecera"
    for href in pedidos:
        with urllib.request.urlopen(url_app + camino + href.removeprefix("./"), timeout=60) as r:
            assert r.status == 200 and "javascript" in r.headers["content-type"], href


@pytest.mark.parametrize("camino", PAGINAS)
def test_el_html_servido_precarga_el_plot_en_su_cabeza(url_app, camino):
    """En el HTML mismo, no solo en el `head` de la configuración (que Gradio pone recién después de
    `load`): el navegador pide Plotly.js mientras lee la página. (Las del `head` de la configuración, escritas
    en el JSON de la página, llevan las comillas escapadas: no cuentan aquí.)"""
    with urllib.request.urlopen(url_app + camino, timeout=60) as r:
        html = r.read().decode()
    cabeza = html[: html.index("</head>")]
    pedidos = PRECARGA.findall(cabeza)
    assert pedidos == [f"./assets/{n}" for n in gradio_interno.modulos_del_plot()]


@pytest.mark.navegador
@pytest.mark.parametrize("camino,id_", [("", None), ("demo/temperatura/", "temperatura")])
def test_chromium_pide_plotly_antes_que_el_plot_y_una_sola_vez(url_app, pagina, camino, id_):
    """Lo que el navegador pide de verdad: Plotly.js antes que el trozo del Plot que lo importa (sin la
    precarga, después: lo pide al montarse), cada trozo una sola vez, y ningún otro JS pesado."""
    from demos import PESTANAS

    pedidos: list[str] = []
    pagina.on("request", lambda r: r.resource_type == "script" and pedidos.append(r.url))
    pagina.add_init_script(
        "document.addEventListener('DOMContentLoaded', () => {"
        "  window.__alLeerLaPagina = !!window.__figurasDeLaSuite;"
        "});"
    )
    pagina.goto(url_app + camino, wait_until="load")
    fuente_figura(pagina, id_ or PESTANAS[0].id)
    trozos = [url_app + camino + f"assets/{n}" for n in gradio_interno.modulos_del_plot()]
    assert [pedidos.count(u) for u in trozos] == [1] * len(trozos), pedidos
    plotly, base, _ = trozos
    assert pedidos.index(plotly) < pedidos.index(base), pedidos
    pesados = pagina.evaluate(
        """(minimo) => performance.getEntriesByType("resource")
          .filter((e) => e.name.endsWith(".js") && e.decodedBodySize > minimo).map((e) => e.name)""",
        PESADO,
    )
    assert pesados == [plotly], pesados
    # Con Plotly.js precargado, la primera figura podía dibujarse antes de que el `js=` de la página (que Gradio
    # corre al terminar de montarla) envolviera Plotly.react: sin navegador.js (ni modo oscuro, ni teléfono, ni
    # proyector). navegador.js corre en el <head>, antes que todo el JS de Gradio (DOMContentLoaded llega después).
    assert pagina.evaluate("window.__alLeerLaPagina") is True, "navegador.js no corrió antes que el JS de Gradio"


@pytest.mark.parametrize("trozo", ["Index-", "PlotlyPlot-"])
@pytest.mark.parametrize("camino", PAGINAS)
def test_cada_trozo_corregido_se_sirve_corregido_con_su_etag(url_app, camino, trozo):
    """`…/assets/<trozo>` corregido (servidor/laterales.py) en cada montaje: el de la lista del desplegable y el de
    Plotly.js con las trazas de la suite; con su ETag, 304 sin cuerpo."""
    ((nombre, corregido),) = [(n, js) for n, js in gradio_interno.trozos_corregidos().items() if n.startswith(trozo)]
    assert corregido != (gradio_interno.TROZOS / nombre).read_bytes()
    url = url_app + camino + f"assets/{nombre}"
    with urllib.request.urlopen(url, timeout=60) as r:
        assert r.read() == corregido and "javascript" in r.headers["content-type"]
        etiqueta = r.headers["etag"]
    pedido = urllib.request.Request(url, headers={"If-None-Match": etiqueta})
    with pytest.raises(urllib.error.HTTPError) as sin_cambios:
        urllib.request.urlopen(pedido, timeout=60)
    assert sin_cambios.value.code == 304 and sin_cambios.value.read() == b""


@pytest.mark.navegador
def test_plotly_en_la_pagina_tiene_solo_las_trazas_de_la_suite_y_las_dibuja(url_app, pagina):
    """El Plotly.js que llega a la página registra `TRAZAS_PLOTLY` y nada más (las otras 45 no se evalúan), y
    las figuras de una pestaña con las cuatro (imágenes, mapas, barras y puntos) se dibujan sin errores."""
    from demos.comun.figuras.pantalla import TRAZAS_PLOTLY

    errores: list[str] = []
    pagina.on("pageerror", lambda e: errores.append(str(e)))
    pagina.goto(url_app + "demo/parches-vit/", wait_until="load")
    fuente_figura(pagina, "parches-vit")
    registradas = pagina.evaluate("() => Object.keys(window.Plotly.PlotSchema.get().traces).sort()")
    assert registradas == sorted(TRAZAS_PLOTLY)
    dibujadas = """() => new Set([...document.querySelectorAll(".js-plotly-plot")]
      .flatMap((g) => (g._fullData || []).filter((t) => t.visible !== false).map((t) => t.type)))"""
    pagina.wait_for_function(f"() => ({dibujadas})().size === 4", timeout=30_000)
    assert set(pagina.evaluate(f"() => [...({dibujadas})()]")) == set(TRAZAS_PLOTLY)
    assert not errores, errores
