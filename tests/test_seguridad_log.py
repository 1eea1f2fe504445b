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
