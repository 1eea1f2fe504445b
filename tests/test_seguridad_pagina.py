"""La página, barata y con tope (SECURITY.md §9; issue 56, punto 2): servidor/pagina.py y protecciones.Comprimir.

Gradio armaba la configuración de la página entera en cada `GET /` y `GET /config` (la suite: 1.32 MB y 122 ms de
CPU), sin comprimir ni tope: 10 pedidos por segundo que cierran el socket a los 50 ms dejaban a un movimiento
honesto en 0.89 s de mediana. Aquí: cada página se le pide a Gradio una vez por montaje y se sirve partida (el token y
la raíz, en sus huecos), comprimida, con un tope por dirección y en total; el código de barrido va una vez.
"""

from __future__ import annotations

import gzip
import json
import re
import socket
import statistics
import subprocess
import sys
import time
import uuid
import zlib

import httpx
import pytest
from gradio import route_utils
from starlette.requests import Request

from servidor import admision, pagina
from servidor.protecciones import acepta_gzip

_TOKEN = re.compile(rb'const token = \\?"([0-9a-z.]+)\\?"')


def _montaje(id_: str | None):
    import app

    if id_ is None:
        return app.demo
    from servidor.entradas import montados

    return next(b for b in montados() if b.title.startswith(app.buscar(id_).titulo))


def _base(url_app: str, id_: str | None) -> str:
    return url_app if id_ is None else f"{url_app}demo/{id_}/"


def _token(cuerpo: bytes) -> bytes:
    encontrado = _TOKEN.search(cuerpo)
    assert encontrado, "la página no trae su token"
    return encontrado.group(1)


def _desde(direccion: str) -> httpx.Client:
    """Un cliente que llega desde otra dirección de loopback (otro visitante para el tope por dirección)."""
    return httpx.Client(timeout=60, transport=httpx.HTTPTransport(local_address=direccion))


@pytest.fixture
def sin_tope(monkeypatch):
    monkeypatch.setattr(pagina, "TOPE", pagina.Tope(por_direccion=10**6, total=10**6))


@pytest.mark.parametrize("id_", [None, "temperatura"], ids=["suite", "pestana"])
def test_la_pagina_se_arma_una_vez_y_cada_pedido_trae_su_token(url_app, id_, sin_tope):
    """Diez `GET /` y diez `/config`: Gradio arma cada una una vez (la primera); cada respuesta trae un token nuevo."""
    base = _base(url_app, id_)
    httpx.get(base, timeout=60)
    httpx.get(f"{base}config", timeout=60)
    paginas = pagina.paginas_de(_montaje(id_))
    armados = paginas.armados
    assert armados <= 2 and set(paginas.plantillas) == {"html", "config"}
    assert all(p is not None for p in paginas.plantillas.values()), "una página no se pudo partir"
    tokens = set()
    for _ in range(10):
        for url in (base, f"{base}config"):
            r = httpx.get(url, timeout=60)
            assert r.status_code == 200
            tokens.add(_token(r.content))
    assert paginas.armados == armados, "la página se volvió a armar"
    assert len(tokens) == 20
    assert all(admision.valido(t.decode()) for t in tokens)


def test_los_trozos_fijos_no_se_copian_por_pedido():
    """Cada pedido arma solo los huecos: los trozos fijos son los mismos objetos, en crudo y en gzip."""
    marca = admision.MARCA
    cuerpo = f'<html><head><script>const token = "{marca}";</script></head>"http://r.invalid/x" y {marca}'.encode()
    plantilla = pagina.Plantilla.de(200, [(b"content-type", b"text/html")], cuerpo * 50, "http://r.invalid/x", True)
    for gz in (False, True):
        a, b = plantilla.trozos("http://127.0.0.1:1/x", "t1", gz), plantilla.trozos("http://127.0.0.1:1/x", "t2", gz)
        fijos = [i for i, p in enumerate(plantilla.partes) if not isinstance(p, int)]
        assert all(a[i + gz] is b[i + gz] for i in fijos)  # en gzip, después de la cabecera
    crudo = b"".join(plantilla.trozos("http://127.0.0.1:1/x", "t1", False))
    assert crudo == cuerpo.replace(marca.encode(), b"t1").replace(b"http://r.invalid/x", b"http://127.0.0.1:1/x") * 50
    assert gzip.decompress(b"".join(plantilla.trozos("http://127.0.0.1:1/x", "t1", True))) == crudo


def test_el_crc_combinado_es_el_de_zlib():
    for a, b in [(b"", b"x"), (b"hola", b""), (b"abc" * 1000, bytes(range(256)) * 300), (b"\0", b"\xff" * 70000)]:
        assert pagina.combinar(zlib.crc32(a), zlib.crc32(b), pagina.corrimiento(len(b))) == zlib.crc32(a + b)


CABECERAS = [
    {},
    {"host": "localhost:7860"},
    {"host": "10.1.2.3"},
    {"host": "[::1]:7860"},
    {"x-forwarded-host": "localhost:9000", "x-forwarded-proto": "https"},
    {"x-forwarded-proto": "https, http"},
]


@pytest.mark.parametrize("cabeceras", CABECERAS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "nada")
@pytest.mark.parametrize(
    ("ruta", "root_path", "ruta_gradio"), [("/", "", "/"), ("/demo/x/config", "/demo/x", "/config")]
)
def test_la_raiz_es_la_que_calcula_gradio(cabeceras, ruta, root_path, ruta_gradio):
    """`pagina.raiz` repite `gradio.route_utils.get_root_url`: una versión de Gradio que la cambie falla aquí."""
    crudas = [(b"host", cabeceras.get("host", "127.0.0.1:7860").encode())]
    crudas += [(k.encode(), v.encode()) for k, v in cabeceras.items() if k != "host"]
    scope = {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "server": ("127.0.0.1", 7860),
        "path": ruta,
        "root_path": root_path,
        "query_string": b"tab=a",
        "headers": crudas,
    }
    de_gradio = route_utils.get_root_url(request=Request(scope), route_path=ruta_gradio, root_path=root_path or None)
    assert pagina.raiz(scope, ruta_gradio, root_path or None) == de_gradio


@pytest.mark.parametrize("id_", [None, "temperatura"], ids=["suite", "pestana"])
@pytest.mark.parametrize("cabeceras", CABECERAS[:3] + CABECERAS[4:5], ids=["nada", "localhost", "ip", "reenviado"])
def test_la_pagina_servida_es_la_que_arma_gradio(url_app, id_, cabeceras, sin_tope):
    """Byte a byte (con el token de la respuesta en lugar de la marca, y la cabeza de laterales en el HTML), lo que
    se sirve es lo que Gradio arma para esa petición, con su raíz; y el gzip es lo mismo comprimido."""
    import asyncio

    base = _base(url_app, id_)
    httpx.get(base, timeout=60)
    paginas = pagina.paginas_de(_montaje(id_))
    puerto = int(url_app.rstrip("/").rsplit(":", 1)[1])
    root_path = "" if id_ is None else f"/demo/{id_}"
    for sufijo, html in [("", True), ("config", False)]:
        servida = httpx.get(f"{base}{sufijo}", headers={**cabeceras, "accept-encoding": "identity"}, timeout=60)
        comprimida = httpx.get(f"{base}{sufijo}", headers={**cabeceras, "accept-encoding": "gzip"}, timeout=60)
        assert comprimida.headers["content-encoding"] == "gzip"
        assert _sin_token(comprimida.content) == _sin_token(servida.content)  # httpx la descomprimió
        transporte = httpx.ASGITransport(app=paginas.app, root_path=root_path, client=("127.0.0.1", 1))
        host = cabeceras.get("host", f"127.0.0.1:{puerto}")

        async def de_gradio(url=f"http://{host}{root_path}/{sufijo}", transporte=transporte):
            async with httpx.AsyncClient(transport=transporte) as c:
                return await c.get(url, headers={**cabeceras, "accept-encoding": "identity"})

        propia = asyncio.run(de_gradio()).content
        if html:
            propia = propia.replace(b"</head>", paginas.cabeza_html + b"</head>", 1)
        assert _sin_token(servida.content) == propia, f"{sufijo or 'HTML'} con {cabeceras}"


def _sin_token(cuerpo: bytes) -> bytes:
    return _TOKEN.sub(lambda m: m.group(0).replace(m.group(1), admision.MARCA.encode()), cuerpo)


def test_la_configuracion_trae_una_copia_del_barrido(url_app, sin_tope):
    """La función de barrido va una vez en la página (el `head`); cada evento de barrido la llama con sus datos.
    Antes, cada uno de los 35 eventos de la suite llevaba su copia: 230 kB de los 1.16 MB de `/config`."""
    from demos.comun import barrido

    linea = "copias.set(paquete, JSON.parse(JSON.stringify(paquete)))"  # demos/comun/navegador/barrido.mjs
    assert linea in barrido.funcion_js()
    for base in (url_app, f"{url_app}demo/temperatura/"):
        config = httpx.get(f"{base}config", timeout=60).json()
        texto = json.dumps(config, ensure_ascii=False)
        assert texto.count(linea) == 1, base
        llamadas = [d["js"] for d in config["dependencies"] if "window.__suite.barrido(" in (d.get("js") or "")]
        assert llamadas and all(len(js) < 600 for js in llamadas)
        assert "window.__suite" in config["head"]
    # Por pestaña, no un total fijo: la suite crece con cada pestaña nueva (16: 1.01 MB, 63 kB cada una); una copia
    # del barrido por evento volvería a sumar ≈ 230 kB y pasaría el tope.
    from demos import PESTANAS

    assert len(httpx.get(f"{url_app}config", timeout=60).content) < 70_000 * len(PESTANAS)


def test_las_respuestas_van_comprimidas_y_el_flujo_de_la_cola_no(url_app, sin_tope):
    """Con `Accept-Encoding: gzip`: la página, su configuración, Plotly.js y el JSON del API salen en gzip (sin él, en
    crudo); el flujo de la cola (`text/event-stream`) sale tal cual, sin juntarlo."""
    from demos.comun.figuras.componente import RUTA_PLOTLY

    for url in (url_app, f"{url_app}config", url_app + RUTA_PLOTLY.removeprefix("./"), f"{url_app}gradio_api/info"):
        r = httpx.get(url, headers={"accept-encoding": "gzip"}, timeout=60)
        assert r.status_code == 200 and r.headers.get("content-encoding") == "gzip", url
        assert int(r.headers["content-length"]) < len(r.content) / 2, url
        assert "accept-encoding" in r.headers.get("vary", "").lower(), url
        crudo = httpx.get(url, headers={"accept-encoding": "identity"}, timeout=60)
        assert "content-encoding" not in crudo.headers and len(crudo.content) == len(r.content), url
    config = httpx.get(f"{url_app}config", timeout=60).json()
    fn_index = next(d["id"] for d in config["dependencies"] if d.get("api_name") == "temperatura")
    sesion = uuid.uuid4().hex
    union = {"data": ["plata, sacó, Ana, del", "2, 1, 0.5, -1", 1.0, 1000, 0], "fn_index": fn_index}
    assert httpx.post(f"{url_app}gradio_api/queue/join", json={**union, "session_hash": sesion}).status_code == 200
    flujo = f"{url_app}gradio_api/queue/data"
    with httpx.stream("GET", flujo, params={"session_hash": sesion}, headers={"accept-encoding": "gzip"}) as s:
        assert s.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in s.headers
        mensajes = []
        for linea in s.iter_lines():
            if linea.startswith("data:"):
                mensajes.append(json.loads(linea[5:])["msg"])
                if mensajes[-1] == "process_completed":
                    break
    assert mensajes[0] != "process_completed" and mensajes[-1] == "process_completed", mensajes


def test_acepta_gzip():
    def con(valor):
        return {"type": "http", "headers": [(b"accept-encoding", valor.encode())]}

    assert acepta_gzip(con("gzip, deflate, br")) and acepta_gzip(con("br;q=1, gzip;q=0.5")) and acepta_gzip(con("*"))
    assert not acepta_gzip(con("identity")) and not acepta_gzip(con("gzip;q=0")) and not acepta_gzip(con("br"))
    assert not acepta_gzip({"type": "http", "headers": []})


def test_una_inundacion_de_paginas_recibe_429_en_espanol_sin_armar_nada(url_app, monkeypatch):
    """Pasado el tope por dirección, la página y `/config` reciben 429 en español (con `Retry-After`), sin que Gradio
    arme nada; otra dirección sigue recibiendo la suya; pasado el tope total, nadie."""
    httpx.get(f"{url_app}config", timeout=60)
    paginas = pagina.paginas_de(_montaje(None))
    armados = paginas.armados
    monkeypatch.setattr(pagina, "TOPE", pagina.Tope(por_direccion=5, total=8))
    with _desde("127.0.0.3") as c:
        estados = [c.get(url_app if k % 2 else f"{url_app}config").status_code for k in range(7)]
        assert estados == [200] * 5 + [429] * 2
        negada = c.get(f"{url_app}demo/temperatura/")  # el tope es por dirección, no por montaje
        assert negada.status_code == 429 and int(negada.headers["retry-after"]) >= 1
        assert negada.json()["detail"] == pagina.MUCHAS_DE_AHI
    with _desde("127.0.0.4") as otra:
        assert [otra.get(f"{url_app}config").status_code for _ in range(4)] == [200, 200, 200, 429]
        assert otra.get(f"{url_app}config").json()["detail"] == pagina.MUCHAS_EN_TOTAL
    assert paginas.armados == armados


def test_el_tope_se_libera_con_la_ventana(monkeypatch):
    ahora = [1000.0]
    monkeypatch.setattr(pagina.time, "monotonic", lambda: ahora[0])
    tope = pagina.Tope(por_direccion=2, total=3, ventana_s=60)
    assert tope.admitir("a") is None and tope.admitir("a") is None
    assert tope.admitir("a") == (pagina.MUCHAS_DE_AHI, 60)
    assert tope.admitir("b") is None and tope.admitir("c")[0] == pagina.MUCHAS_EN_TOTAL
    ahora[0] += 30
    assert tope.admitir("a")[1] == 30
    ahora[0] += 30.5
    assert tope.admitir("a") is None and tope.admitir("c") is None


# El atacante, en otro proceso: 10 pedidos de la página por segundo; con «cerrar», cada uno cierra el socket a los
# 50 ms sin leer (60 bytes, sin sesión ni token).
INUNDAR = r"""
import socket, sys, threading, time
host, puerto, modo, segundos = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
pedido = f"GET / HTTP/1.1\r\nHost: {host}:{puerto}\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n".encode()

def uno():
    try:
        with socket.create_connection((host, puerto), timeout=30) as s:
            s.sendall(pedido)
            if modo == "cerrar":
                time.sleep(0.05)
                return
            while s.recv(1 << 20):
                pass
    except OSError:
        pass

fin = time.monotonic() + segundos
while time.monotonic() < fin:
    threading.Thread(target=uno, daemon=True).start()
    time.sleep(0.1)
"""


@pytest.mark.parametrize("modo", ["cerrar", "leer"])
def test_un_movimiento_honesto_no_se_atrasa_con_10_paginas_por_segundo(url_app, modo, sin_tope):
    """Con 10 `GET /` por segundo desde otra conexión (cerrando a los 50 ms, o leyendo la página entera), un movimiento
    honesto tarda como sin ellos (mediana, a lo sumo 3 veces más, con 0.3 s de holgura por la máquina compartida).
    Antes: 0.89 s de mediana y 8.6 s el peor, contra ≈ 0.07 s sin ataque."""
    from tests.ataque import llamar

    config = httpx.get(f"{url_app}config", timeout=60).json()
    fn_index = next(d["id"] for d in config["dependencies"] if d.get("api_name") == "temperatura")
    datos = ["plata, sacó, Ana, del", "2, 1, 0.5, -1", 1.0, 1000, 0]

    def movimiento() -> float:
        inicio = time.monotonic()
        respuesta = llamar(url_app, fn_index, datos, timeout=60)
        assert respuesta.get("success"), respuesta
        return time.monotonic() - inicio

    httpx.get(url_app, timeout=60)  # la página, ya armada
    movimiento()
    quieto = statistics.median(movimiento() for _ in range(5))
    puerto = url_app.rstrip("/").rsplit(":", 1)[1]
    atacante = subprocess.Popen([sys.executable, "-c", INUNDAR, "127.0.0.1", puerto, modo, "8"])
    try:
        time.sleep(1.0)
        tiempos = [movimiento() for _ in range(7)]
    finally:
        atacante.wait(30)
    assert statistics.median(tiempos) <= 3 * quieto + 0.3, f"sin ataque {quieto:.3f} s; con ataque {tiempos}"


def test_un_socket_que_cierra_antes_de_leer_no_deja_trazas(url_app, caplog, capfd, sin_tope):
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", int(url_app.rstrip("/").rsplit(":", 1)[1]))) as s:
            s.sendall(b"GET /config HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n")
    time.sleep(0.5)
    assert "Traceback" not in caplog.text + capfd.readouterr().err
