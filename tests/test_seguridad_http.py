"""Cuerpos acotados, cabeceras, números enormes, argumentos que faltan, log y disco (SECURITY.md).

El ataque de los cuerpos: cuatro JSON de 200 MB a la vez a /gradio_api/call/temperatura
llevaban la memoria del servidor de 750 MB a 3 GB, y quedaba en 2.5 GB.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

import gradio as gr
import httpx
import pytest

from servidor import disco
from servidor.protecciones import MAX_CUERPO
from tests.ataque import error_de, file_data, llamar
from tests.ayuda import RAIZ, ServidorEnHilo, espera_error, puerto_libre

MB = 2**20


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(linea.split()[1]) for linea in f if linea.startswith("VmRSS")) / 1024


def _enviar_cuerpo(url: str, ruta: str, total: int, a_trozos: bool) -> tuple[int | None, int]:
    """Manda `total` bytes de JSON basura a `ruta` (con Content-Length o a trozos) y devuelve
    (estado de la respuesta, bytes que el servidor llegó a aceptar antes de cortar)."""
    u = urlparse(url)
    trozo = b"[" + b"1," * (MB // 2 - 1) + b"1]"  # 1 MB que se reutiliza: el cliente no gasta memoria
    cabecera = f"POST {ruta} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nContent-Type: application/json\r\n"
    cabecera += "Transfer-Encoding: chunked\r\n\r\n" if a_trozos else f"Content-Length: {total}\r\n\r\n"
    enviados = 0
    with socket.create_connection((u.hostname, u.port), timeout=30) as s:
        s.sendall(cabecera.encode())
        try:
            while enviados < total:
                s.sendall(f"{len(trozo):x}\r\n".encode() + trozo + b"\r\n" if a_trozos else trozo)
                enviados += len(trozo)
            if a_trozos:
                s.sendall(b"0\r\n\r\n")
        except OSError:  # el servidor ya contestó y cerró
            pass
        try:
            linea = s.recv(200).split(b"\r\n", 1)[0]
        except OSError:
            return None, enviados
    return (int(linea.split()[1]) if linea.startswith(b"HTTP/") else None), enviados


@pytest.mark.parametrize("a_trozos", [False, True], ids=["content-length", "a-trozos"])
def test_cuerpos_de_200_mb_se_rechazan_sin_leerlos_y_la_memoria_no_crece(url_app, a_trozos):
    httpx.get(f"{url_app}demo/temperatura/config", timeout=60)  # el montaje perezoso ya armado
    rutas = ["/gradio_api/call/temperatura", "/gradio_api/queue/join", "/demo/temperatura/gradio_api/queue/join"]
    antes, pico = _rss_mb(), [0.0]
    fin = threading.Event()

    def vigilar():
        while not fin.is_set():
            pico[0] = max(pico[0], _rss_mb())
            fin.wait(0.02)

    vigia = threading.Thread(target=vigilar, daemon=True)
    vigia.start()
    with ThreadPoolExecutor(4) as pool:  # cuatro a la vez, como en el ataque
        resultados = list(pool.map(lambda k: _enviar_cuerpo(url_app, rutas[k % 3], 200 * MB, a_trozos), range(4)))
    fin.set()
    vigia.join()
    despues = _rss_mb()
    assert [estado for estado, _ in resultados] == [413] * 4
    assert all(aceptados < 40 * MB for _, aceptados in resultados), resultados  # cortó al principio
    assert pico[0] - antes < 60, f"RSS {antes:.0f} → pico {pico[0]:.0f} MB"
    assert despues - antes < 30, f"RSS {antes:.0f} → {despues:.0f} MB"


def test_413_en_espanol_y_las_subidas_tienen_su_propio_limite(url_app):
    grande = httpx.post(f"{url_app}gradio_api/call/temperatura", content=b"[" + b" " * MAX_CUERPO + b"]")
    assert grande.status_code == 413 and "pesa más de 1 MB" in grande.json()["detail"]
    archivo = {"files": ("foto.png", b"\x89PNG" + os.urandom(3 * MB), "image/png")}
    assert httpx.post(f"{url_app}gradio_api/upload", files=archivo, timeout=30).status_code == 200
    enorme = {"files": ("foto.png", b"\x89PNG" + os.urandom(11 * MB), "image/png")}
    assert httpx.post(f"{url_app}gradio_api/upload", files=enorme, timeout=30).status_code == 413


def test_todo_se_sirve_con_nosniff(url_app, cliente):
    *_, tabla, _, _ = cliente.predict(api_name="/temperatura")
    assert [fila[0] for fila in tabla["data"]] == ["plata", "sacó", "Ana", "del"]  # la vista inicial, servida
    for ruta in ("", "config", "demo/escalado/", "gradio_api/info", "theme.css"):
        r = httpx.get(f"{url_app}{ruta}", timeout=60)
        assert r.headers.get("x-content-type-options") == "nosniff", ruta


@pytest.mark.parametrize("cabecera", ["host", "x-forwarded-host", "x-gradio-server"])
def test_un_host_ajeno_no_se_refleja(url_app, cabecera):
    valor = "http://atacante.example" if cabecera == "x-gradio-server" else "atacante.example"
    for ruta in ("", "config", "demo/temperatura/config", "demo/temperatura/"):
        r = httpx.get(f"{url_app}{ruta}", headers={cabecera: valor}, timeout=60)
        assert r.status_code == 200 and "atacante" not in r.text, ruta
    propio = httpx.get(f"{url_app}config", timeout=60).json()["root"]
    assert urlparse(propio).hostname == "127.0.0.1"  # una IP (una máquina de la red local) sí se respeta


def test_un_503_de_la_cola_sale_en_espanol():
    """Con un 503 en queue/join la página de Gradio diría «This application is currently busy», en inglés."""
    import asyncio

    from servidor.protecciones import Protecciones

    async def cola_detenida(scope, receive, send):
        await send({"type": "http.response.start", "status": 503, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b'{"detail": "Queue is stopped."}'})

    enviados = []

    async def enviar(mensaje):
        enviados.append(mensaje)

    async def recibir():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    scope = {"type": "http", "method": "POST", "path": "/demo/temperatura/gradio_api/queue/join", "headers": []}
    asyncio.run(Protecciones(cola_detenida)(scope, recibir, enviar))
    assert enviados[0]["status"] == 429
    cuerpo = b"".join(m.get("body", b"") for m in enviados[1:]).decode()
    assert "prueba en un momento" in cuerpo and "Queue" not in cuerpo


# --- entradas raras, log -------------------------------------------------------------------------


def _numericos() -> list[tuple[str, str]]:
    import app

    pares = []
    for id_, vista in app.vistas(app.demo).items():
        for nombre, c in vista.url.items():
            if isinstance(c, gr.Slider | gr.Number):
                pares.append((id_.replace("-", "_"), nombre))
    return pares


@pytest.mark.parametrize("api, parametro", _numericos())
def test_un_numero_enorme_recibe_el_mensaje_de_rango(cliente, api, parametro):
    mensaje = espera_error(cliente, f"/{api}", **{parametro: 10**400})
    assert "Algo falló" not in mensaje and "Error" != mensaje.strip()
    assert any(p in mensaje for p in ("entre", "hasta", "a lo sumo", "de 1 a")), mensaje


def test_una_llamada_con_argumentos_de_menos_recibe_un_mensaje(url_app):
    import app

    i = next(k for k, fn in app.demo.fns.items() if fn.api_name == "temperatura")
    error = error_de(llamar(url_app, i, ["plata, Ana"]))
    assert error.startswith("Faltan valores: este evento recibe 5") and "llegaron 1" in error


def test_cada_entrada_rechazada_deja_una_linea_sin_traza(url_app, caplog, capfd):
    import app

    fns = {fn.api_name: k for k, fn in app.demo.fns.items() if fn.api_name}
    caplog.set_level(logging.INFO, logger="atencion")
    capfd.readouterr()
    errores = [
        error_de(llamar(url_app, fns["temperatura"], ["a, b", "1, 2", 10**6, 10, 0])),
        error_de(llamar(url_app, fns["parches_vit"], [None, file_data("/etc/hostname"), 16, 1])),
        error_de(llamar(url_app, fns["mascara_causal"], [])),
    ]
    assert all(errores)
    lineas = [r for r in caplog.records if r.name == "atencion.rechazos"]
    assert [r.getMessage().split(":")[0] for r in lineas] == [
        "Entrada rechazada en temperatura",
        "Entrada rechazada en parches_vit",
        "Entrada rechazada en mascara_causal",
    ]
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in lineas)
    salida = capfd.readouterr()
    assert "Traceback" not in salida.out + salida.err


def test_un_fallo_de_verdad_si_deja_su_traza(caplog):
    from demos.comun.vista import error_en_espanol as _error

    caplog.set_level(logging.INFO)
    try:
        raise RuntimeError("se rompió algo")
    except RuntimeError as e:
        error = _error(e, "prueba")
    assert "Algo falló" in str(error)
    (registro,) = [r for r in caplog.records if "Fallo inesperado en prueba" in r.getMessage()]
    assert registro.exc_info is not None


# --- disco ---------------------------------------------------------------------------------------


def test_todo_lo_que_escribe_el_proceso_va_a_su_carpeta(url_app):
    import tempfile

    from gradio.utils import get_upload_folder

    propia = disco.carpeta()
    assert propia.parent == disco.raiz() and propia.name == f"proceso-{os.getpid()}"
    assert Path(get_upload_folder()).is_relative_to(propia)
    assert Path(tempfile.gettempdir()) == propia


def test_al_arrancar_se_borran_los_restos_y_al_salir_la_propia(tmp_path):
    muerto = tmp_path / "proceso-999999999"
    (muerto / "gradio" / "abc").mkdir(parents=True)
    (muerto / "gradio" / "abc" / "figura.png").write_bytes(b"x" * 1000)
    vivo = tmp_path / "proceso-1"  # el pid 1 siempre corre: lo suyo no se toca
    vivo.mkdir()
    codigo = "from servidor import disco; p = disco.preparar(); (p / 'algo.txt').write_text('x'); print(p)"
    entorno = {**os.environ, "ATENCION_CARPETA": str(tmp_path), "PYTHONPATH": str(RAIZ)}
    r = subprocess.run([sys.executable, "-c", codigo], env=entorno, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert not muerto.exists() and vivo.exists()
    assert not Path(r.stdout.strip()).exists()  # al salir se borró la suya


def test_el_barrendero_quita_las_carpetas_vacias(tmp_path):
    (tmp_path / "gradio" / "hash1").mkdir(parents=True)
    (tmp_path / "gradio" / "hash2").mkdir(parents=True)
    (tmp_path / "gradio" / "hash2" / "f.png").write_bytes(b"x")
    (tmp_path / "atencion-descargas" / "uuid").mkdir(parents=True)
    assert disco.barrer(tmp_path) == 0  # recién creadas: pueden estar por recibir su archivo
    assert disco.barrer(tmp_path, ahora=time.time() + 600) == 3  # hash1, uuid y la carpeta de descargas vacía
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "gradio",
        "gradio/hash2",
        "gradio/hash2/f.png",
    ]


def test_los_archivos_de_un_montaje_perezoso_se_borran_al_apagar():
    """El contexto de vida de /demo/<id>/ se cierra con la app: `delete_cache` borra lo suyo, como en la suite."""
    import fastapi

    import app
    from servidor.asgi import MontajesPerezosos

    raiz = fastapi.FastAPI()
    with gr.Blocks() as portada:
        gr.Markdown("portada")
    gr.mount_gradio_app(raiz, portada, path="/")
    perezosos = MontajesPerezosos(
        raiz, app.construir_una, {"escalado"}, {**app.opciones_lanzamiento(), "show_error": False}
    )
    puerto = puerto_libre()
    archivo = disco.carpeta() / "gradio" / "prueba-montaje" / "figura.png"
    archivo.parent.mkdir(parents=True, exist_ok=True)
    archivo.write_bytes(b"png")
    with ServidorEnHilo(perezosos, puerto):
        httpx.get(f"http://127.0.0.1:{puerto}/demo/escalado/config", timeout=60).raise_for_status()
        montado = perezosos.montadas["escalado"]
        assert montado.has_launched and montado.delete_cache == (600, 3600)
        montado.temp_file_sets[0].add(str(archivo))  # como un archivo que Gradio creó para este montaje
    assert not archivo.exists()
