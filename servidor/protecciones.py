"""ASGI delante de toda la app: cuerpos acotados, `nosniff`, un `Host` que no se refleja y respuestas comprimidas.

Un middleware pequeño por trabajo (`SinHostAjeno`, `CuerpoAcotado`, `ColaEnEspanol`, `Nosniff`, `Comprimir`),
con las cabeceras de Starlette (`Headers`, `MutableHeaders`); `Protecciones(app)` los encadena.

- Un cuerpo de más de `MAX_CUERPO` (1 MB) se rechaza con 413 antes de leerlo: si trae
  `Content-Length`, sin leer un byte; si llega a trozos, al pasar el límite (lo leído se
  descarta). Las subidas (`…/gradio_api/upload`) tienen `MAX_SUBIDA` (10 MB, como
  `max_file_size`). Sin esto, cuatro JSON de 200 MB llevaban la memoria de 750 MB a 3 GB.
- Toda respuesta lleva `X-Content-Type-Options: nosniff`: un archivo servido no se
  interpreta como otra cosa que su tipo declarado.
- Gradio arma la URL raíz de la página (`config.root`) con `Host` o `X-Forwarded-Host`. Si el
  nombre no es de la app (loopback, una IP, el nombre de la máquina, el del Space o los de
  `ATENCION_HOSTS`), se cambia por el nombre propio antes de que Gradio lo vea.
- Un 503 de `…/queue/join` (la cola detenida) sale como 429 con el motivo en español: con un
  503 la página de Gradio mostraría «This application is currently busy», en inglés.
- Lo que se lee como texto (HTML, CSS, JS, JSON, SVG) sale en gzip si el navegador lo acepta: un archivo
  estático (con `ETag`) se comprime una vez y se guarda (`MAX_COMPRIMIDOS` en total, los menos usados se
  sueltan); una respuesta sin `ETag`, entera en un mensaje, se comprime al salir. Un flujo (`text/event-stream`,
  la cola; o una respuesta a trozos sin `ETag`) sale tal cual, sin esperar a juntarlo. La página y su `/config`
  ya salen comprimidas de servidor/pagina.py, armadas una vez.
"""

from __future__ import annotations

import collections
import ipaddress
import json
import logging
import os
import socket
import threading
import zlib

import anyio
from starlette.datastructures import Headers, MutableHeaders

log = logging.getLogger("atencion.protecciones")

MAX_CUERPO = 2**20
MAX_SUBIDA = 10 * 2**20 + 64 * 2**10  # el archivo de 10 MB y las cabeceras del multipart
RUTA_SUBIDA = "/gradio_api/upload"


def _respuesta(estado: int, mensaje: str) -> tuple[dict, dict]:
    cuerpo = json.dumps({"detail": mensaje}, ensure_ascii=False).encode()
    inicio = {
        "type": "http.response.start",
        "status": estado,
        "headers": [
            (b"content-type", b"application/json; charset=utf-8"),
            (b"content-length", str(len(cuerpo)).encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"connection", b"close"),
        ],
    }
    return inicio, {"type": "http.response.body", "body": cuerpo}


def hosts_propios() -> set[str]:
    """Los nombres que la app reconoce como suyos (sin puerto, en minúsculas)."""
    nombres = {"localhost", socket.gethostname().lower(), f"{socket.gethostname().lower()}.local"}
    for variable in ("SPACE_HOST", "ATENCION_HOSTS"):
        nombres |= {h.strip().lower() for h in os.environ.get(variable, "").split(",") if h.strip()}
    return nombres


def _sin_puerto(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:7860
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def host_reconocido(host: str, propios: set[str]) -> bool:
    nombre = _sin_puerto(host)
    if "*" in propios or nombre in propios:
        return True
    try:
        ipaddress.ip_address(nombre)  # a una máquina de la red local se llega por su IP
        return True
    except ValueError:
        return False


def Protecciones(app, host_propio: str = "localhost", max_cuerpo: int = MAX_CUERPO, max_subida: int = MAX_SUBIDA):
    """Los cinco middlewares de este módulo, en orden: el `Host` primero (también en websockets),
    luego el cuerpo acotado, el 503 de la cola en español, `nosniff` en toda respuesta y gzip."""
    return SinHostAjeno(CuerpoAcotado(ColaEnEspanol(Nosniff(Comprimir(app))), max_cuerpo, max_subida), host_propio)


class SinHostAjeno:
    """Quita `X-Forwarded-Host` (si no es propio) y `X-Gradio-Server`, y cambia un `Host` ajeno por el propio."""

    def __init__(self, app, host_propio: str = "localhost"):
        self.app, self.host_propio, self.propios = app, host_propio, hosts_propios()

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            scope = self._sin_host_ajeno(scope)
        await self.app(scope, receive, send)

    def _ajeno(self, valores: list[str]) -> bool:
        return any(not host_reconocido(v.split(",")[0], self.propios) for v in valores)

    def _sin_host_ajeno(self, scope) -> dict:
        cabeceras = Headers(scope=scope)
        quitar = {"x-gradio-server"} & set(cabeceras.keys())
        if self._ajeno(cabeceras.getlist("x-forwarded-host")):
            quitar.add("x-forwarded-host")
        cambiar_host = self._ajeno(cabeceras.getlist("host"))
        if not (quitar or cambiar_host):
            return scope
        nuevo = {**scope, "headers": list(scope.get("headers", []))}
        mutables = MutableHeaders(scope=nuevo)
        for nombre in quitar:
            del mutables[nombre]
        if cambiar_host:
            mutables["host"] = self.host_propio
        return nuevo


class CuerpoAcotado:
    """Un cuerpo de más de `max_cuerpo` (las subidas, `max_subida`) recibe 413 antes de leerse, o al pasar el límite."""

    def __init__(self, app, max_cuerpo: int = MAX_CUERPO, max_subida: int = MAX_SUBIDA):
        self.app, self.max_cuerpo, self.max_subida = app, max_cuerpo, max_subida

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        ruta = scope.get("path", "")
        limite = self.max_subida if ruta.rstrip("/").endswith(RUTA_SUBIDA) else self.max_cuerpo
        declarado = Headers(scope=scope).get("content-length")
        if declarado is not None:
            if not declarado.strip().isdigit():
                return await _negar(send, 400, "La cabecera Content-Length no es un número.", ruta)
            if int(declarado) > limite:
                return await _negar(send, 413, _demasiado(limite), ruta)
        excedido, leidos = False, 0

        async def recibir():
            nonlocal excedido, leidos
            if excedido:
                return {"type": "http.disconnect"}
            mensaje = await receive()
            if mensaje["type"] == "http.request":
                leidos += len(mensaje.get("body", b""))
                if leidos > limite:  # llegó a trozos y pasó el límite: no se entrega, ni se sigue leyendo
                    excedido = True
                    return {"type": "http.disconnect"}
            return mensaje

        async def enviar(mensaje):
            if not excedido:
                await send(mensaje)

        try:
            await self.app(scope, recibir, enviar)
        except Exception:
            if not excedido:
                raise
        if excedido:
            await _negar(send, 413, _demasiado(limite), ruta)


class ColaEnEspanol:
    """Un 503 de `…/queue/join` (la cola detenida) sale como 429 con el motivo en español."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope.get("path", "").rstrip("/").endswith("/queue/join"):
            return await self.app(scope, receive, send)
        propia = False

        async def enviar(mensaje):
            nonlocal propia
            if propia:
                return
            if mensaje["type"] == "http.response.start" and mensaje["status"] == 503:
                propia = True
                for m in _respuesta(429, "La app no acepta peticiones en este momento; prueba en un momento."):
                    await send(m)
                return
            await send(mensaje)

        await self.app(scope, receive, enviar)


class Nosniff:
    """Toda respuesta HTTP lleva `X-Content-Type-Options: nosniff`."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def enviar(mensaje):
            if mensaje["type"] == "http.response.start":
                cabeceras = MutableHeaders(raw=list(mensaje.get("headers", [])))
                cabeceras.setdefault("x-content-type-options", "nosniff")
                mensaje = {**mensaje, "headers": cabeceras.raw}
            await send(mensaje)

        await self.app(scope, receive, enviar)


def acepta_gzip(scope) -> bool:
    """¿La petición acepta gzip (`Accept-Encoding`, sin `q=0`)?"""
    for parte in Headers(scope=scope).get("accept-encoding", "").lower().split(","):
        nombre, _, parametros = parte.strip().partition(";")
        q = parametros.replace(" ", "").removeprefix("q=")
        if nombre.strip() in ("gzip", "*") and not (q and q.replace(".", "").strip("0") == ""):
            return True
    return False


COMPRIMIBLES = (
    "text/html",
    "text/css",
    "text/javascript",
    "text/plain",
    "application/javascript",
    "application/json",
    "application/manifest+json",
    "image/svg+xml",
)
MIN_COMPRIMIR = 1024  # menos que esto, gzip no ahorra lo que cuesta
MAX_COMPRIMIR = 8 * 2**20  # más que esto no se junta: sale tal cual
MAX_COMPRIMIDOS = 64 * 2**20  # los estáticos ya comprimidos, en todo el proceso


def gzip_de(datos: bytes, nivel: int = 6) -> bytes:
    """`datos` en gzip (sin fecha: el mismo archivo da los mismos bytes)."""
    return zlib.compress(datos, nivel, 31)


class Comprimir:
    """gzip para HTML, CSS, JS, JSON y SVG si la petición lo acepta: los estáticos (con `ETag`), una vez."""

    def __init__(self, app, max_comprimidos: int = MAX_COMPRIMIDOS):
        self.app, self.max_comprimidos = app, max_comprimidos
        self.guardados: collections.OrderedDict[tuple[str, str], bytes] = collections.OrderedDict()
        self.bytes = 0
        self.cerrojo = threading.Lock()

    async def __call__(self, scope, receive, send):
        cabeceras = Headers(scope=scope) if scope["type"] == "http" else None
        if cabeceras is None or scope.get("method") != "GET" or "range" in cabeceras or not acepta_gzip(scope):
            return await self.app(scope, receive, send)
        estado: dict = {}

        async def tal_cual(partes: list[bytes], mas: bool):
            estado["paso"] = True
            await send(estado.pop("inicio"))
            await send({"type": "http.response.body", "body": b"".join(partes), "more_body": mas})

        async def enviar(mensaje):
            if estado.get("paso") or mensaje["type"] not in ("http.response.start", "http.response.body"):
                return await send(mensaje)
            if mensaje["type"] == "http.response.start":
                suyas = Headers(raw=mensaje.get("headers", []))
                tipo = suyas.get("content-type", "").lower()
                if mensaje["status"] != 200 or "content-encoding" in suyas or not tipo.startswith(COMPRIMIBLES):
                    estado["paso"] = True
                    return await send(mensaje)
                estado.update(inicio=mensaje, partes=[], etag=suyas.get("etag"), largo=0)
                return None
            partes, mas = estado["partes"], mensaje.get("more_body", False)
            partes.append(mensaje.get("body", b""))
            estado["largo"] += len(partes[-1])
            if mas and (not estado["etag"] or estado["largo"] > MAX_COMPRIMIR):  # un flujo, o algo enorme
                return await tal_cual(partes, mas)
            if mas:
                return None
            cuerpo = b"".join(partes)
            if len(cuerpo) < MIN_COMPRIMIR:
                return await tal_cual([cuerpo], False)
            comprimido = await self._comprimido(scope, estado["etag"], cuerpo)
            inicio = estado.pop("inicio")
            sin_largo = [(k, v) for k, v in inicio.get("headers", []) if k.lower() != b"content-length"]
            nuevas = MutableHeaders(raw=sin_largo)
            nuevas["content-encoding"] = "gzip"
            nuevas["content-length"] = str(len(comprimido))
            nuevas.add_vary_header("Accept-Encoding")
            estado["paso"] = True
            await send({**inicio, "headers": nuevas.raw})
            await send({"type": "http.response.body", "body": comprimido, "more_body": False})

        await self.app(scope, receive, enviar)

    async def _comprimido(self, scope, etag: str | None, cuerpo: bytes) -> bytes:
        if etag is None:  # dinámica: al salir (en un hilo si es grande; zlib suelta el GIL)
            return gzip_de(cuerpo) if len(cuerpo) < 2**18 else await anyio.to_thread.run_sync(gzip_de, cuerpo)
        clave = (scope.get("root_path", "") + "|" + scope.get("path", ""), etag)
        with self.cerrojo:
            if clave in self.guardados:
                self.guardados.move_to_end(clave)
                return self.guardados[clave]
        comprimido = await anyio.to_thread.run_sync(gzip_de, cuerpo, 9)
        with self.cerrojo:
            if clave not in self.guardados:
                self.guardados[clave] = comprimido
                self.bytes += len(comprimido)
            while self.bytes > self.max_comprimidos and self.guardados:
                self.bytes -= len(self.guardados.popitem(last=False)[1])
        return comprimido


async def _negar(send, estado: int, mensaje: str, ruta: str) -> None:
    log.info("Petición rechazada (%d) en %s: %s", estado, ruta[:80], mensaje)
    for m in _respuesta(estado, mensaje):
        await send(m)


def _demasiado(limite: int) -> str:
    return (
        f"La petición pesa más de {limite / 2**20:.0f} MB: no se acepta. "
        "Las imágenes se suben como archivo (hasta 10 MB), no dentro del texto de la petición."
    )
