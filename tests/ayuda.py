"""Ayudas de las pruebas que se importan por su nombre (`from tests.ayuda import espera_error`).

`conftest.py` queda para los accesorios de pytest y la preparación del proceso; lo que una prueba
llama directamente vive aquí.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"  # el de Debian: Playwright no puede bajar el suyo aquí


def puerto_libre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServidorEnHilo:
    """uvicorn en un hilo, en loopback, hasta que la sesión de pruebas termina."""

    def __init__(self, asgi, puerto: int):
        import uvicorn

        self.servidor = uvicorn.Server(uvicorn.Config(asgi, host="127.0.0.1", port=puerto, log_level="warning"))
        self.hilo = threading.Thread(target=self.servidor.run, daemon=True)

    def __enter__(self):
        self.hilo.start()
        limite = time.monotonic() + 60
        while not self.servidor.started:
            if time.monotonic() > limite or not self.hilo.is_alive():
                raise RuntimeError("El servidor de pruebas no arrancó")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.servidor.should_exit = True
        self.hilo.join(timeout=10)


def espera_error(cliente, api_name: str, **kwargs) -> str:
    """Llama al endpoint esperando un error de la app; devuelve su mensaje (en español)."""
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError) as info:
        cliente.predict(api_name=api_name, **kwargs)
    return str(info.value)


def figura_api(valor) -> tuple[list[str], list[str]]:
    """Lo que el API manda por un `gr.Plot` de la suite -> (los tipos de sus trazos, sus textos).

    Falla si no es una figura Plotly de la suite (`layout.meta.figura`); los textos son el título y las
    anotaciones (títulos de panel), con `<br>` como salto de línea.
    """
    assert isinstance(valor, dict) and valor.get("type") == "plotly", f"no es una figura Plotly: {valor!r:.120}"
    figura = json.loads(valor["plot"])
    assert figura["layout"]["meta"]["figura"] == 1, "una figura Plotly que no es de la suite"
    titulo = figura["layout"].get("title", {}).get("text")
    notas = [a["text"] for a in figura["layout"].get("annotations", [])]
    return [t["type"] for t in figura["data"]], [t.replace("<br>", "\n") for t in [titulo, *notas] if t]
