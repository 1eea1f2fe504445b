"""Accesorios de pytest: el Hub siempre fuera de línea, una app lanzada para `gradio_client`, Chromium.

Las ayudas que una prueba importa (`espera_error`, `puerto_libre`, `ServidorEnHilo`, `RAIZ`) están en
`tests/ayuda.py`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# huggingface_hub lee estas variables al importarse: antes que nada.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("ATENCION_DISPOSITIVO", "cpu")

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ))

# Como hace `app` al importarse: todo lo que el proceso escriba va a su carpeta (servidor/disco.py),
# y tiene que ser antes de importar cualquier pestaña (las descargas fijan su carpeta al importarse).
from servidor import disco  # noqa: E402

disco.preparar()

import pytest  # noqa: E402

from tests.ayuda import CHROMIUM, ServidorEnHilo, puerto_libre  # noqa: E402


@pytest.fixture(scope="session")
def url_app():
    """La app completa (suite en / y cada pestaña en /demo/<id>/), una vez por sesión, en un puerto libre."""
    import app
    from demos import POR_ID
    from servidor.asgi import crear_app

    puerto = puerto_libre()
    with ServidorEnHilo(crear_app(app.demo, app.construir_una, POR_ID, app.opciones_lanzamiento()), puerto):
        yield f"http://127.0.0.1:{puerto}/"


@pytest.fixture(scope="session")
def cliente(url_app):
    """Cliente del API de la suite (en /)."""
    from gradio_client import Client

    return Client(url_app, verbose=False)


@pytest.fixture(scope="module")
def navegador():
    """Chromium sin cabeza, una vez por módulo de pruebas de navegador."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"Falta {CHROMIUM}: `make test` lo instala con apt-get (paquete chromium).")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
        )
        yield b
        b.close()


@pytest.fixture
def pagina(navegador):
    """Una página nueva de Chromium que junta los errores de la consola (sin el ruido del navegador)."""
    from tests.ayuda_navegador import RUIDO

    contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    pg = contexto.new_page()
    pg.errores = []
    pg.on("console", lambda m: m.type == "error" and not RUIDO.search(m.text) and pg.errores.append(m.text))
    # con la pila: un error que sale 1 de cada 30 corridas tiene que decir de dónde vino
    pg.on("pageerror", lambda e: pg.errores.append(f"{e}\n{e.stack or ''}".strip()))
    yield pg
    contexto.close()
