"""El log no se falsifica (SECURITY.md §6): lo que manda el visitante sale en una línea, sin controles."""

from __future__ import annotations

import logging
import socket
from urllib.parse import urlparse

import pytest

from servidor import registro

ATAQUE = "x\nINFO servidor.asgi: Checkpoints listos\r\x1b[31mrojo\u2028"


def _sin_controles(texto: str) -> bool:
    return not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" for c in texto)


@pytest.mark.parametrize("nombre", registro.REGISTRADORES)
def test_cada_registrador_de_la_app_escapa_lo_del_visitante(nombre, caplog):
    registro.instalar()
    caplog.set_level(logging.INFO, logger=nombre)
    logging.getLogger(nombre).info("Entrada rechazada en %s: %s", "temperatura", ATAQUE)
    (linea,) = [r.getMessage() for r in caplog.records if r.name == nombre]
    assert _sin_controles(linea) and "\\n" in linea and "\\x1b" in linea and "\\u2028" in linea


def test_la_ruta_de_un_cuerpo_rechazado_no_escribe_lineas_falsas(url_app, caplog):
    caplog.set_level(logging.INFO, logger="atencion.protecciones")
    u = urlparse(url_app)
    ruta = "/gradio_api/x%0aINFO%20falso%1b%5b31m"
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(f"POST {ruta} HTTP/1.1\r\nHost: {u.hostname}\r\nContent-Length: {10**9}\r\n\r\n".encode())
        assert b" 413 " in s.recv(200)
    (linea,) = [r.getMessage() for r in caplog.records if "413" in r.getMessage()]
    assert _sin_controles(linea) and "x\\nINFO falso\\x1b" in linea


def test_crear_la_app_pone_el_filtro_en_cada_registrador():
    """Sin depender del orden de las pruebas (la de arriba instala el filtro ella misma): en un intérprete nuevo,
    solo crear la app, como hace `app.py`, deja `SinControles` en cada registrador. Sin `registro.instalar()` en
    `servidor/asgi.py`, falla."""
    import subprocess
    import sys

    from tests.ayuda import RAIZ

    codigo = (
        "import logging, gradio as gr\n"
        "from servidor import disco, registro\n"
        "disco.preparar()\n"
        "from servidor.asgi import crear_app\n"
        "tiene = lambda n: any(isinstance(f, registro.SinControles) for f in logging.getLogger(n).filters)\n"
        "assert not any(tiene(n) for n in registro.REGISTRADORES), 'ya estaba puesto'\n"
        "with gr.Blocks() as raiz:\n"
        "    gr.Markdown('eco')\n"
        "crear_app(raiz, host_propio='127.0.0.1')\n"
        "print([n for n in registro.REGISTRADORES if not tiene(n)])\n"
    )
    hecho = subprocess.run(
        [sys.executable, "-c", codigo], cwd=RAIZ, capture_output=True, text=True, timeout=120, check=False
    )
    assert hecho.returncode == 0, hecho.stderr[-2000:]
    assert hecho.stdout.strip().splitlines()[-1] == "[]", hecho.stdout
