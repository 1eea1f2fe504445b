"""El tope de las subidas aguanta una ráfaga, y un cuerpo cortado no deja un archivo a medias (SECURITY.md §7).

El ataque del issue #38: 60 subidas de 9.9 MB a la vez a `/gradio_api/upload`, que ningún evento
usa. La guardia comparaba con el tope la medida de la carpeta (guardada 1 s) antes de que llegara
el cuerpo: todas las de la ráfaga veían la misma medida vieja y entraban (594 MB con un tope de
256). Aquí, a escala pequeña: el tope se baja a unos MB por encima de lo que ya hay.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest

from servidor import disco

MB = 2**20
PNG = b"\x89PNG\r\n\x1a\n"  # el servidor no lo abre: lo guarda hasta el evento


def _archivos() -> set[Path]:
    """Todos los archivos de la carpeta de subidas (los de Gradio van en una carpeta por contenido)."""
    carpeta = disco.subidas()
    return {p.resolve() for p in carpeta.rglob("*") if p.is_file()} if carpeta.is_dir() else set()


def _multipart(*archivos: bytes, campo: str = "files") -> tuple[bytes, str]:
    """El cuerpo multipart con `archivos` en `campo` (como lo manda la página), y su frontera."""
    frontera = uuid.uuid4().hex
    cabeza = f'--{frontera}\r\nContent-Disposition: form-data; name="{campo}"; filename="a.png"\r\n\r\n'.encode()
    partes = b"".join(cabeza + datos + b"\r\n" for datos in archivos)
    return partes + f"--{frontera}--\r\n".encode(), frontera


def _a_trozos(url: str, *archivos: bytes, trozo: int = 256 * 2**10) -> httpx.Response:
    """Sube `archivos` a trozos, sin Content-Length (el servidor no sabe cuánto pesan hasta recibirlos)."""
    cuerpo, frontera = _multipart(*archivos)
    partes = (cuerpo[i : i + trozo] for i in range(0, len(cuerpo), trozo))
    tipo = {"content-type": f"multipart/form-data; boundary={frontera}"}
    return httpx.post(f"{url}gradio_api/upload", content=partes, headers=tipo, timeout=30)


def _sin_reservas() -> bool:
    """Lo que cuenta contra el tope es lo que hay en la carpeta: ninguna subida dejó su reserva tomada."""
    return disco.bytes_ocupados(vigencia_s=0) == disco.bytes_de_subidas(vigencia_s=0)


@pytest.mark.parametrize("a_trozos", [False, True], ids=["content-length", "a-trozos"])
def test_una_rafaga_de_subidas_no_pasa_el_tope(url_app, monkeypatch, a_trozos):
    """8 subidas de 1 MB a la vez con 3 MB de lugar: entran las que caben, y las demás no dejan nada.

    Con `Content-Length` caben dos. A trozos, cada una reserva lo que un cuerpo puede pesar (10 MB) o
    lo que quede: la primera toma los 3 MB y las demás esperan a que termine; entra al menos una.
    """
    antes = _archivos()
    monkeypatch.setattr(disco, "MAX_SUBIDAS", disco.bytes_de_subidas(vigencia_s=0) + 3 * MB)
    n = 8
    listas = threading.Barrier(n)

    def subir(i: int) -> httpx.Response:
        datos = PNG + os.urandom(16) + bytes([i]) * MB  # distintas: Gradio guarda una vez cada contenido
        listas.wait()
        if a_trozos:
            return _a_trozos(url_app, datos)
        return httpx.post(f"{url_app}gradio_api/upload", files={"files": (f"r{i}.png", datos)}, timeout=30)

    with ThreadPoolExecutor(n) as hilos:
        respuestas = list(hilos.map(subir, range(n)))
    aceptadas = [r for r in respuestas if r.status_code == 200]
    negadas = [r for r in respuestas if r.status_code == 429]
    assert len(aceptadas) + len(negadas) == n, [r.status_code for r in respuestas]
    assert len(aceptadas) >= (1 if a_trozos else 2), f"{len(aceptadas)} aceptadas de {n}"
    assert len(aceptadas) <= 3, f"{len(aceptadas)} aceptadas de {n}: el tope no aguantó la ráfaga"
    assert all("demasiados archivos subidos" in r.json()["detail"] for r in negadas)
    assert disco.bytes_de_subidas(vigencia_s=0) <= disco.MAX_SUBIDAS
    rutas = {Path(ruta).resolve() for r in aceptadas for ruta in r.json()}
    assert _archivos() - antes == rutas  # las negadas no dejaron nada, ni a medias
    assert _sin_reservas()


def test_una_subida_a_trozos_cuenta_mientras_llega_y_se_corta_en_el_tope(url_app, monkeypatch):
    """Sin Content-Length no hay nada que reservar al empezar: se cuenta trozo a trozo y se corta sin restos."""
    antes = _archivos()
    monkeypatch.setattr(disco, "MAX_SUBIDAS", disco.bytes_de_subidas(vigencia_s=0) + 2 * MB)
    datos = PNG + os.urandom(MB)
    r = _a_trozos(url_app, datos)  # una que cabe entra entera
    assert r.status_code == 200, r.text
    (ruta,) = r.json()
    assert Path(ruta).read_bytes() == datos
    r = _a_trozos(url_app, PNG + os.urandom(4 * MB))  # una que no cabe se corta a mitad
    assert r.status_code == 429 and "demasiados archivos subidos" in r.json()["detail"]
    assert _archivos() - antes == {Path(ruta).resolve()}  # sin el archivo a medias que Gradio estaba escribiendo
    assert _sin_reservas()


def test_un_cuerpo_cortado_por_su_tamano_no_deja_un_archivo_a_medias(url_app):
    """Dos archivos de 6 MB a trozos: `CuerpoAcotado` corta en 10 MB con 413; Gradio no borra lo que había escrito.

    (Cada archivo, bajo los 10 MB de Gradio: con uno de 11 MB, a veces Gradio lo rechazaba antes, y borraba.)
    """
    antes = _archivos()
    r = _a_trozos(url_app, PNG + os.urandom(6 * MB), PNG + os.urandom(6 * MB), trozo=MB)
    assert r.status_code == 413
    assert _archivos() == antes
    assert _sin_reservas()


def test_un_archivo_en_otro_campo_no_queda_en_la_carpeta(url_app):
    """Gradio guarda solo el campo `files`; el archivo de otro campo quedaba como temporal, sin dueño ni vida."""
    antes = _archivos()
    cuerpo, frontera = _multipart(PNG + os.urandom(200_000), campo="otro")
    tipo = {"content-type": f"multipart/form-data; boundary={frontera}"}
    r = httpx.post(f"{url_app}gradio_api/upload", content=cuerpo, headers=tipo, timeout=10)
    assert r.status_code == 200 and r.json() == []
    assert _archivos() == antes


def test_un_cliente_que_se_va_a_mitad_no_deja_archivo_ni_traza(url_app, caplog, capfd):
    """Gradio deja a medias el archivo de una subida cuyo cliente se fue, y su `ClientDisconnect` dejaba una traza."""
    caplog.set_level(logging.INFO, logger="atencion.laterales")
    antes = _archivos()
    cuerpo, frontera = _multipart(PNG + os.urandom(2 * MB))
    u = urlparse(url_app)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        cabecera = f"POST /gradio_api/upload HTTP/1.1\r\nHost: {u.hostname}\r\nContent-Length: {len(cuerpo)}\r\n"
        s.sendall(f"{cabecera}Content-Type: multipart/form-data; boundary={frontera}\r\n\r\n".encode())
        s.sendall(cuerpo[:MB])  # la mitad, y se va
        limite = time.monotonic() + 10
        while _archivos() == antes and time.monotonic() < limite:  # Gradio ya escribe su temporal
            time.sleep(0.02)
        assert _archivos() != antes
    limite = time.monotonic() + 10
    while _archivos() != antes and time.monotonic() < limite:
        time.sleep(0.02)
    assert _archivos() == antes
    assert any("interrumpida" in r.getMessage() and r.exc_info is None for r in caplog.records)
    salida = capfd.readouterr()
    assert "Traceback" not in salida.out + salida.err
    assert _sin_reservas()
