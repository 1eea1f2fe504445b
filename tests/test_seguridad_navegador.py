"""Lo que viene de la URL o escribe un visitante se muestra como texto, en un Chromium real (SECURITY.md).

El ataque: un enlace de diapositiva con `?tab=<img src=//otro/x>` hacía que el navegador del
alumno pidiera una baliza a un tercero (por el aviso), `<a href=…>Inicia sesión aquí</a>` daba
un enlace de verdad, y las palabras que se repiten en Markdown (`![](//otro/x)`) también.
Aquí el «tercero» es una baliza en loopback que cuenta cada petición: debe quedar en 0, no debe
aparecer ningún elemento ni enlace hacia ella, y el texto del ataque se ve tal cual.
"""

from __future__ import annotations

import contextlib
import http.server
import threading
import time
from urllib.parse import quote

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.ayuda import puerto_libre

pytestmark = pytest.mark.navegador

ESPERA_MS = 30_000


@pytest.fixture(scope="module")
def baliza():
    """Un servidor «de un tercero» en loopback que cuenta las peticiones que recibe."""
    pedidas: list[str] = []

    class Contador(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            pedidas.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    servidor = http.server.ThreadingHTTPServer(("127.0.0.1", puerto_libre()), Contador)
    threading.Thread(target=servidor.serve_forever, daemon=True).start()
    yield servidor.server_address[1], pedidas
    servidor.shutdown()


# (ruta con {B} = host:puerto de la baliza, pestaña que se abre, el texto del ataque que se debe ver, ¿aviso?)
# 127.1 es 127.0.0.1 escrito corto: cabe en las 20 letras por palabra de «a mano».
ATAQUES = [
    ("?tab=<img src=//{B}/x>", "a-mano", "<img src=//{B}/x>", True),
    ("?tab=<a href=//{B}>Inicia sesión aquí</a>", "a-mano", "<a href=//{B}>", True),
    ("demo/temperatura/?T=<img src=//{B}/x>", "temperatura", "<img src=//{B}/x>", True),
    ("demo/variantes/?controles=w,<img src=//{B}/x>", "variantes", "<img src=//{B}/x>", True),
    ("demo/temperatura/?palabras=![](//{B}/x),sacó,Ana,del", "temperatura", "«![](//{B}/x)»", False),
    ("demo/temperatura/?palabras=[aquí](//{B}/),sacó,Ana,del", "temperatura", "«[aquí](//{B}/)»", False),
    ("demo/a-mano/?palabras=![](//{B}),sacó,plata", "a-mano", "«![](//{B})»", False),
    ("demo/atencion-cruzada/?objetivo=![](//{B}/x) took money", "atencion-cruzada", "«![](//{B}/x)»", False),
    ("demo/mascara-causal/?frase=![](//{B}/x) sacó plata del banco", "mascara-causal", "«![](//{B}/x)»", False),
]

FIGURA_LISTA = """(sel) => {
  const g = document.querySelector(sel + " .js-plotly-plot");
  if (g && g.data && g.data.length) return true;
  const i = document.querySelector(sel + " img");
  return !!(i && i.src);
}"""


@pytest.mark.parametrize("ruta, pestana, se_ve, aviso", ATAQUES, ids=[a[0].split("=")[0] for a in ATAQUES])
def test_lo_que_escribe_un_visitante_no_es_html(navegador, url_app, baliza, ruta, pestana, se_ve, aviso):
    puerto, pedidas = baliza
    host = f"127.1:{puerto}"
    contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    pagina = contexto.new_page()
    hacia_la_baliza = []
    pagina.on("request", lambda r: f":{puerto}" in r.url and hacia_la_baliza.append(r.url))
    antes = len(pedidas)
    try:
        destino = ruta.format(B=host)
        camino, _, consulta = destino.partition("?")
        pagina.goto(url_app + camino + "?" + "&".join(quote(p, safe="=") for p in consulta.split("&")))
        pagina.wait_for_function(FIGURA_LISTA, arg=f"#{pestana}-figura1", timeout=ESPERA_MS)
        if aviso:
            pagina.locator("[data-testid='toast-body']").first.wait_for(timeout=ESPERA_MS)
        pagina.wait_for_timeout(1500)  # lo que se fuera a pedir tarde, se pediría ya
        # Con una predicción, las salidas de texto no se dibujan hasta revelar (demos/servir/aprender.py):
        # el alumno pulsa «Ver sin predecir», y entonces el ataque se tiene que leer como texto.
        sin_predecir = pagina.locator(f"#{pestana}-sin-predecir")
        if sin_predecir.count() and sin_predecir.is_visible():
            sin_predecir.click()
            pagina.wait_for_function(
                "(sel) => !document.querySelector(sel).closest('.velada')",
                arg=f"#{pestana}-sin-predecir",
                timeout=ESPERA_MS,
            )
            pagina.wait_for_timeout(500)
        inyectados = pagina.evaluate(
            "(p) => [...document.querySelectorAll('[src], [href], [srcset], image, use')]"
            ".filter(e => ['src', 'href', 'srcset', 'xlink:href'].some(a => (e.getAttribute(a) || '').includes(p)))"
            ".map(e => e.outerHTML)",
            f":{puerto}",
        )
        # Se espera a leerlo, no se lee una sola vez: con la máquina cargada, el texto de la página llegó a leerse
        # en medio de un dibujo de Gradio, sin sus controles ni sus tablas. Si el ataque fuera HTML, no llegaría.
        with contextlib.suppress(PlaywrightError):  # si no llega, el assert de abajo dice qué se leyó
            pagina.wait_for_function(
                "(s) => document.body.innerText.includes(s)", arg=se_ve.format(B=host), timeout=ESPERA_MS
            )
        texto = pagina.locator("body").inner_text()
    finally:
        contexto.close()
    assert hacia_la_baliza == [] and len(pedidas) == antes, (hacia_la_baliza, pedidas[antes:])
    assert inyectados == []
    assert se_ve.format(B=host) in texto  # el ataque se lee como texto, escapado


def test_la_pagina_en_un_iframe_de_otro_origen_vuelve_real_su_sesion(navegador, url_app):
    """Como en las diapositivas: la página dentro de un iframe de otro origen manda su token en cada
    queue/join (una cabecera, no una cookie de terceros) y su sesión queda real (servidor/admision.py)."""
    from servidor import admision, entradas
    from servidor.gradio_interno import sesiones_de

    contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    pagina = contexto.new_page()
    tokens, contestados = [], []
    pagina.on("request", lambda r: "/queue/join" in r.url and tokens.append(r.headers.get(admision.CABECERA)))
    pagina.on("requestfinished", lambda r: "/queue/join" in r.url and contestados.append(r.url))
    try:
        pagina.set_content(f'<iframe src="{url_app}demo/temperatura/" width="1200" height="850"></iframe>')
        pagina.wait_for_function("() => window.frames.length === 1", timeout=ESPERA_MS)
        marco = next(f for f in pagina.frames if "/demo/temperatura/" in f.url)
        marco.wait_for_function(FIGURA_LISTA, arg="#temperatura-figura1", timeout=ESPERA_MS)
        # La figura viene con la página: el queue/join de `load` puede salir después de dibujarla
        limite = time.monotonic() + ESPERA_MS / 1000
        while not contestados and time.monotonic() < limite:
            pagina.wait_for_timeout(100)
    finally:
        contexto.close()
    assert tokens and all(admision.valido(t) for t in tokens), tokens
    (blocks,) = [b for b in entradas.montados() if b.custom_mount_path == "/demo/temperatura"]
    assert sesiones_de(blocks).reales


def test_un_padre_ajeno_no_activa_las_cabeceras_de_zerogpu(navegador, url_app):
    """Un mazo (o cualquier sitio) que enmarca la pestaña y le manda «supports-zerogpu-headers» no la deja
    esperando cabeceras que nunca llegan (demos/servir/pagina/zerogpu.html; sin él, la bandera queda en true)."""
    contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    pagina = contexto.new_page()
    try:
        pagina.set_content(f'<iframe src="{url_app}demo/temperatura/" width="1200" height="850"></iframe>')
        pagina.wait_for_function("() => window.frames.length === 1", timeout=ESPERA_MS)
        marco = next(f for f in pagina.frames if "/demo/temperatura/" in f.url)
        marco.wait_for_function(FIGURA_LISTA, arg="#temperatura-figura1", timeout=ESPERA_MS)
        pagina.evaluate(
            "() => document.querySelector('iframe').contentWindow.postMessage('supports-zerogpu-headers', '*')"
        )
        marco.wait_for_timeout(500)
        bandera = marco.evaluate("() => window.supports_zerogpu_headers")
    finally:
        contexto.close()
    assert bandera is not True
