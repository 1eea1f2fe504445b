"""Accesorios comunes: el Hub siempre fuera de línea y una app lanzada para `gradio_client`."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

# huggingface_hub lee estas variables al importarse: antes que nada.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("ATENCION_DISPOSITIVO", "cpu")

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ))

import pytest  # noqa: E402


def puerto_libre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def url_app():
    """La suite completa lanzada una vez por sesión de pruebas, en un puerto libre."""
    import app

    puerto = puerto_libre()
    app.demo.queue(default_concurrency_limit=4, max_size=64)
    app.demo.launch(
        server_name="127.0.0.1", server_port=puerto, prevent_thread_lock=True, quiet=True, **app.opciones_lanzamiento()
    )
    yield f"http://127.0.0.1:{puerto}/"
    app.demo.close()


@pytest.fixture(scope="session")
def cliente(url_app):
    from gradio_client import Client

    return Client(url_app, verbose=False)


def espera_error(cliente, api_name: str, **kwargs) -> str:
    """Llama al endpoint esperando un error de la app; devuelve su mensaje (en español)."""
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError) as info:
        cliente.predict(api_name=api_name, **kwargs)
    return str(info.value)
