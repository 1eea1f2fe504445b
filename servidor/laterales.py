"""Las rutas laterales de Gradio (fuera de la cola), cerradas o acotadas en cada montaje.

- `…/gradio_api/component_server`: solo `accept_blobs` de un lienzo de la página (lo único que la
  página llama), en multipart, con una capa de índice menor que `MAX_CAPA`, un solo archivo de
  hasta `MAX_TROZO`, y los bytes de trozos acotados por sesión (`MAX_POR_SESION` cada
  `VIDA_TROZO_S`) y en total (`MAX_TROZOS`, los más viejos se sueltan); un trozo que ningún evento
  usó se suelta a los `VIDA_TROZO_S`. Sin esto, un pedido de 600 bytes con un índice de capa
  enorme hacía crecer una lista de Gradio sin tope (+760 MB que nunca se soltaban).
- `…/gradio_api/call/<nombre>`: un nombre que no es un evento público de la página recibe 404 en
  español (Gradio contestaba 500 con una traza de 100 líneas, y corría los eventos privados).
- `…/gradio_api/deep_link`: apagada (la app no tiene botón de enlace profundo; cada llamada
  escribía un archivo de ≈ 300 kB que nada borraba).
- `…/gradio_api/upload`: cada subida reserva sus bytes (`disco.Reserva`) antes de que llegue el
  primero: lo que declara su `Content-Length` (sin él, lo que un cuerpo puede pesar o lo que quede
  libre), y lo que llegue de más, mientras llega. La que no cabe bajo `disco.MAX_SUBIDAS` (lo que
  hay en disco más lo que está llegando) recibe 429; la que deja de caber a mitad se corta con el
  mismo 429. El archivo a medias que Gradio estaba escribiendo (o el de un campo que Gradio no
  guarda) se borra al terminar la petición, corte o no: Gradio solo borra los suyos si el
  multipart está mal, no si el cuerpo se corta. Sin la reserva, 60 subidas de 9.9 MB a la vez
  veían todas la misma medida de la carpeta y entraban todas (594 MB con un tope de 256).
- `…/assets/<trozo>.js`: los trozos del frontend de Gradio que `gradio_interno.trozos_corregidos`
  arregla (la lista de un desplegable que recibe opciones más cortas estando abierta) salen corregidos, y
  `…/assets/plotly-cartesian-<versión>.min.js` es el Plotly.js de las figuras (demos/comun/figuras/
  componente.py); todos con su ETag (304 si el navegador ya lo tiene) y en caché un día.
- La página (el HTML de la raíz del montaje) y `…/config`: servidor/pagina.py (`Paginas`) las pide a Gradio
  una vez y las sirve partidas, con un token nuevo en lugar de la marca `admision.MARCA` que el guion
  del `<head>` trae (servidor/admision.py: sesiones reales), comprimidas y con tope. En el HTML, antes
  de `</head>`, la `cabeza_html` del montaje (servidor/asgi.py: Plotly.js y el guion de las figuras): el
  `head` de la configuración Gradio lo agrega recién después de `load`, tarde para pedir Plotly.js
  mientras el navegador lee la página. Otra respuesta HTML que trajera la marca recibe su token aquí
  (`_con_token`), como antes.

Toda negativa: un JSON {"detail": motivo en español} y una línea en el log, sin traza.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import hashlib
import json
import logging
import os
import re
import sys
import threading
import time
from functools import cache

import gradio as gr
from starlette.datastructures import Headers, UploadFile
from starlette.requests import ClientDisconnect, Request

from demos.comun.figuras.componente import PLOTLY
from servidor import admision, disco
from servidor.gradio_interno import (
    app_de_gradio,
    editores,
    guardar_trozos_en,
    instalar_sesiones,
    poner_delante,
    trozos_corregidos,
)
from servidor.pagina import Paginas
from servidor.protecciones import MAX_SUBIDA

log = logging.getLogger("atencion.laterales")

CAPACIDAD_SESIONES = 256  # por montaje (Gradio: 10 000)
VIDA_SESION_S = 2 * 3600  # una sesión sin uso en dos horas se borra
MAX_CAPA = 32
MAX_TROZO = 2**20
MAX_POR_SESION = 4 * 2**20
MAX_TROZOS = 64 * 2**20
VIDA_TROZO_S = 300
TIPOS = {"background", "layer", "composite"}
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def cerrar(app, blocks: gr.Blocks, cabeza_html: str = "") -> None:
    """Las sesiones baratas y las guardias de las rutas laterales en el montaje de `blocks` en `app`."""
    app_gradio = app_de_gradio(app, blocks)
    instalar_sesiones(app_gradio, CAPACIDAD_SESIONES, VIDA_SESION_S)
    for editor in editores(blocks).values():
        guardar_trozos_en(editor, Trozos)
    poner_delante(app_gradio, Laterales, blocks=blocks, cabeza_html=cabeza_html.encode(), gradio=app_gradio)


_POR_NOMBRE = re.compile(r".*/gradio_api/call/(?:v2/)?([^/]+)/?")


class Laterales:
    """El middleware de cada montaje de Gradio: cada ruta lateral pasa por su guardia."""

    def __init__(self, app, blocks: gr.Blocks, cabeza_html: bytes = b"", gradio=None):
        self.app, self.blocks, self.cabeza_html = app, blocks, cabeza_html
        self.paginas = Paginas(app, gradio, cabeza_html) if gradio is not None else None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        ruta, metodo = scope.get("path", "").rstrip("/"), scope.get("method")
        if ruta.endswith("/gradio_api/component_server") and metodo == "POST":
            return await _componentes(scope, receive, send, self.app, self.blocks)
        if ruta.endswith("/gradio_api/deep_link"):
            return await negar(send, 404, "Esta app no usa enlaces profundos.", "deep_link")
        if ruta.endswith("/gradio_api/upload") and metodo == "POST":
            return await _subida(scope, receive, send, self.app)
        por_nombre = _POR_NOMBRE.fullmatch(ruta) if metodo == "POST" else None
        if por_nombre and por_nombre.group(1) not in _publicos(self.blocks):
            return await negar(send, 404, "No hay un evento público con ese nombre en esta página.", "call")
        if metodo in ("GET", "HEAD"):
            _, es_trozo, nombre = ruta.rpartition("/assets/")
            if es_trozo and nombre in archivos_propios():
                return await _archivo_propio(scope, send, nombre)
            tipo = Paginas.tipo(scope)
            if tipo and self.paginas is not None and await self.paginas.servir(scope, send, tipo):
                return None
            return await self.app(scope, receive, _con_token(scope, send, self.cabeza_html))
        return await self.app(scope, receive, send)


MAX_PAGINA = 8 * 2**20  # una respuesta más grande no es la página ni su configuración: pasa tal cual


def _con_token(scope, send, cabeza_html: bytes = b""):
    """`send` que, en una página HTML o un JSON de `/config`, cambia `admision.MARCA` por un token nuevo
    (y en el HTML pone `cabeza_html` al final de su `<head>`)."""
    marca, guardado = admision.MARCA.encode(), {}

    async def enviar(mensaje):
        if mensaje["type"] == "http.response.start":
            tipo = Headers(raw=mensaje.get("headers", [])).get("content-type", "")
            if tipo.startswith("text/html") or scope.get("path", "").rstrip("/").endswith("/config"):
                guardado["inicio"], guardado["partes"] = mensaje, []
                guardado["html"] = tipo.startswith("text/html")
                return
            return await send(mensaje)
        if mensaje["type"] != "http.response.body" or "inicio" not in guardado:
            return await send(mensaje)
        guardado["partes"].append(mensaje.get("body", b""))
        if mensaje.get("more_body") and sum(map(len, guardado["partes"])) < MAX_PAGINA:
            return
        cuerpo = b"".join(guardado.pop("partes"))
        if marca in cuerpo:
            token = admision.emitir(admision.direccion(Request(scope)))
            cuerpo = cuerpo.replace(marca, token.encode())
        if guardado.pop("html") and cabeza_html and b"</head>" in cuerpo:
            cuerpo = cuerpo.replace(b"</head>", cabeza_html + b"</head>", 1)
        inicio = guardado.pop("inicio")
        cabeceras = [(k, v) for k, v in inicio.get("headers", []) if k.lower() != b"content-length"]
        if not mensaje.get("more_body"):
            cabeceras.append((b"content-length", str(len(cuerpo)).encode()))
        await send({**inicio, "headers": cabeceras})
        await send({**mensaje, "body": cuerpo})

    return enviar


@cache
def archivos_propios() -> dict[str, bytes]:
    """{nombre: bytes} de lo que la página pide en `./assets/` y no sirve Gradio tal cual: sus trozos corregidos y
    el Plotly.js de las figuras."""
    return {**trozos_corregidos(), PLOTLY.name: PLOTLY.read_bytes()}


@cache
def _etiqueta(nombre: str) -> bytes:
    """El ETag del archivo propio `nombre` (una vez por proceso)."""
    return b'"' + hashlib.sha256(archivos_propios()[nombre]).hexdigest()[:32].encode() + b'"'


async def _archivo_propio(scope, send, nombre: str) -> None:
    """El archivo propio `nombre`; con su ETag, 304 si el navegador ya lo tiene."""
    cuerpo, etiqueta = archivos_propios()[nombre], _etiqueta(nombre)
    cabeceras = [
        (b"content-type", b"text/javascript; charset=utf-8"),
        (b"etag", etiqueta),
        (b"cache-control", b"public, max-age=86400"),
    ]
    if Headers(scope=scope).get("if-none-match", "").encode() == etiqueta:
        await send({"type": "http.response.start", "status": 304, "headers": cabeceras})
        return await send({"type": "http.response.body", "body": b""})
    cabeceras.append((b"content-length", str(len(cuerpo)).encode()))
    await send({"type": "http.response.start", "status": 200, "headers": cabeceras})
    await send({"type": "http.response.body", "body": b"" if scope.get("method") == "HEAD" else cuerpo})


def _publicos(blocks: gr.Blocks) -> set[str]:
    """Los nombres de los eventos que se pueden llamar por `/gradio_api/call/<nombre>` (no los privados)."""
    return {fn.api_name for fn in blocks.fns.values() if fn.api_name and fn.api_visibility != "private"}


# --- respuestas ----------------------------------------------------------------------------------


async def negar(send, estado: int, motivo: str, donde: str) -> None:
    """Responde `estado` con el motivo en español y deja una línea en el log (sin traza)."""
    log.info("Petición rechazada (%d) en %s: %s", estado, donde, motivo)
    cuerpo = json.dumps({"detail": motivo}, ensure_ascii=False).encode()
    cabeceras = [(b"content-type", b"application/json; charset=utf-8"), (b"content-length", str(len(cuerpo)).encode())]
    await send({"type": "http.response.start", "status": estado, "headers": cabeceras})
    await send({"type": "http.response.body", "body": cuerpo})


async def _leer(receive) -> bytes | None:
    """El cuerpo entero (Protecciones ya lo acotó a 1 MB); None si el cliente se fue."""
    partes = []
    while True:
        mensaje = await receive()
        if mensaje["type"] == "http.disconnect":
            return None
        partes.append(mensaje.get("body", b""))
        if not mensaje.get("more_body"):
            return b"".join(partes)


def _repetir(cuerpo: bytes):
    enviado = [False]

    async def receive():
        if enviado[0]:
            return {"type": "http.disconnect"}
        enviado[0] = True
        return {"type": "http.request", "body": cuerpo, "more_body": False}

    return receive


# --- upload ----------------------------------------------------------------------------------------

SIN_LUGAR = "El servidor tiene demasiados archivos subidos en este momento; prueba en unos minutos."

# Los archivos temporales que se crean mientras se atiende una subida (los de Gradio, uno por archivo).
_temporales: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("temporales", default=None)


def _anotar_temporal(evento: str, argumentos: tuple) -> None:
    """Gancho de auditoría: Python anuncia cada `tempfile` que crea; dentro de una subida, se anota."""
    if evento == "tempfile.mkstemp":
        anotados = _temporales.get()
        if anotados is not None:
            anotados.append(argumentos[0])


@cache
def _anotar_temporales() -> None:
    """Instala el gancho, una vez por proceso (no se puede quitar; fuera de una subida no hace nada)."""
    sys.addaudithook(_anotar_temporal)


async def _subida(scope, receive, send, siguiente) -> None:
    """`/gradio_api/upload` con sus bytes reservados contra `disco.MAX_SUBIDAS` mientras llegan, y sin restos.

    Reserva el `Content-Length` antes de leer (429 si no cabe); sin él (a trozos), lo que el cuerpo
    pueda pesar o lo que quede libre. Mientras el cuerpo llega, reserva lo que pase de lo reservado:
    si no cabe, el cuerpo se corta (Gradio ve que el cliente se fue y no recibe un byte más) y la
    respuesta es el mismo 429. Como `protecciones.CuerpoAcotado`, pero con el tope que dejan las
    otras subidas. Al terminar, se borra todo temporal de Gradio de esta petición que siga en la
    carpeta de subidas: el de un cuerpo cortado (aquí, por `CuerpoAcotado` o porque el cliente se
    fue) queda a medias y Gradio no lo borra. Lo que llegó bien ya no es un temporal: Gradio lo
    movió a la carpeta de su contenido. El final de la respuesta sale después de borrar y soltar la
    reserva. Un cliente que se va a mitad deja una línea en el log, no la traza de `ClientDisconnect`.
    """
    _anotar_temporales()
    declarado = Headers(scope=scope).get("content-length", "").strip()  # CuerpoAcotado ya negó uno que no es número
    reserva = disco.Reserva()
    if declarado.isdigit() and not reserva.ampliar(int(declarado)):
        return await negar(send, 429, SIN_LUGAR, "upload")
    # a trozos: lo que pueda pesar (`CuerpoAcotado` la corta en MAX_SUBIDA), o lo que quede; el resto, al llegar
    if not declarado.isdigit() and not reserva.tomar(MAX_SUBIDA):
        return await negar(send, 429, SIN_LUGAR, "upload")
    cortada = respondida = se_fue = False
    recibidos = 0

    async def recibir():
        nonlocal cortada, recibidos, se_fue
        if cortada:
            return {"type": "http.disconnect"}
        mensaje = await receive()
        se_fue = se_fue or mensaje["type"] == "http.disconnect"
        if mensaje["type"] == "http.request":
            recibidos += len(mensaje.get("body", b""))
            if recibidos > reserva.bytes and not reserva.ampliar(recibidos - reserva.bytes):
                cortada = True  # no se entrega, ni se sigue leyendo
                return {"type": "http.disconnect"}
        return mensaje

    ultimo = None  # el final de la respuesta sale cuando ya no quedan temporales ni reserva

    async def enviar(mensaje):
        nonlocal respondida, ultimo
        if cortada:
            return
        respondida = respondida or mensaje["type"] == "http.response.start"
        if mensaje["type"] == "http.response.body" and not mensaje.get("more_body"):
            ultimo = mensaje
            return
        await send(mensaje)

    temporales: list[str] = []
    marca = _temporales.set(temporales)
    try:
        await siguiente(scope, recibir, enviar)
    except Exception as error:
        if not (cortada or (se_fue and isinstance(error, ClientDisconnect))):
            raise
        if se_fue:  # el cliente (o `CuerpoAcotado`, que contesta su 413) cortó: una línea, no una traza
            log.info("Subida interrumpida a mitad por el cliente (%d bytes recibidos)", recibidos)
    finally:
        _temporales.reset(marca)
        _borrar_a_medias(temporales)
        reserva.soltar(recibidos)
    if ultimo is not None:
        await send(ultimo)
    elif cortada and not respondida:
        await negar(send, 429, SIN_LUGAR, "upload")


def _borrar_a_medias(temporales: list[str]) -> None:
    """Borra los temporales anotados que siguen en la carpeta de subidas (no los que Gradio ya movió)."""
    carpeta = os.path.realpath(disco.subidas())
    for ruta in temporales:
        if os.path.dirname(os.path.realpath(ruta)) == carpeta:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(ruta)
                log.info("Borrado un temporal que Gradio dejó de una subida: %s", os.path.basename(ruta))


# --- component_server ----------------------------------------------------------------------------


class Trozos(dict):
    """El `blob_storage` de un lienzo: cada trozo vive `VIDA_TROZO_S` y todos juntos pesan a lo sumo `MAX_TROZOS`.

    Los bytes se cuentan en todo el proceso (todos los lienzos de todos los montajes).
    """

    def __setitem__(self, clave, valor):
        _contabilidad.guardar(self, clave, _bytes(valor))
        super().__setitem__(clave, valor)

    def pop(self, clave, *defecto):
        _contabilidad.soltar(self, clave)
        return super().pop(clave, *defecto)


def _bytes(valor) -> int:
    partes = [getattr(valor, "background", None), getattr(valor, "composite", None)]
    partes += list(getattr(valor, "layers", None) or [])
    return sum(len(p) for p in partes if isinstance(p, bytes | bytearray))


class _Contabilidad:
    def __init__(self):
        self.cerrojo = threading.Lock()
        self.vivos: collections.OrderedDict = collections.OrderedDict()  # (id(dict), clave) -> (dict, bytes, hora)
        self.total = 0
        self.por_sesion: dict[str, collections.deque] = {}  # sesión -> [(hora, bytes)]

    def guardar(self, dueno: dict, clave, n: int) -> None:
        with self.cerrojo:
            llave = (id(dueno), clave)
            if llave in self.vivos:
                self.total -= self.vivos.pop(llave)[1]
            self.vivos[llave] = (dueno, n, time.monotonic())
            self.total += n
            self._barrer(MAX_TROZOS)

    def soltar(self, dueno: dict, clave) -> None:
        with self.cerrojo:
            viejo = self.vivos.pop((id(dueno), clave), None)
            if viejo is not None:
                self.total -= viejo[1]

    def _barrer(self, tope: int) -> None:
        """Suelta los trozos vencidos y, si pasan de `tope`, los más viejos (con el cerrojo tomado)."""
        ahora = time.monotonic()
        while self.vivos:
            (_, clave), (dueno, n, hora) = next(iter(self.vivos.items()))
            if self.total <= tope and ahora - hora < VIDA_TROZO_S:
                break
            self.vivos.popitem(last=False)
            self.total -= n
            dict.pop(dueno, clave, None)

    def barrer(self) -> None:
        with self.cerrojo:
            self._barrer(MAX_TROZOS)

    def admitir(self, sesion: str, n: int) -> bool:
        """¿Puede la sesión subir `n` bytes más? (los suyos de los últimos `VIDA_TROZO_S`, hasta `MAX_POR_SESION`)."""
        ahora = time.monotonic()
        with self.cerrojo:
            for s in [s for s, d in self.por_sesion.items() if not d or ahora - d[-1][0] > VIDA_TROZO_S]:
                del self.por_sesion[s]
            suyos = self.por_sesion.setdefault(sesion, collections.deque())
            while suyos and ahora - suyos[0][0] > VIDA_TROZO_S:
                suyos.popleft()
            if sum(b for _, b in suyos) + n > MAX_POR_SESION:
                return False
            suyos.append((ahora, n))
            return True


_contabilidad = _Contabilidad()


def bytes_de_trozos() -> int:
    """Lo que pesan ahora los trozos de dibujo guardados en todo el proceso (tras soltar los vencidos)."""
    _contabilidad.barrer()
    return _contabilidad.total


async def _componentes(scope, receive, send, siguiente, blocks: gr.Blocks) -> None:
    donde = "component_server"
    cuerpo = await _leer(receive)
    if cuerpo is None:
        return
    tipo = Headers(scope=scope).get("content-type", "")
    if not tipo.startswith("multipart/form-data"):
        return await negar(send, 404, "Esa función de componente no existe en esta página.", donde)
    try:
        formulario = await Request(scope, _repetir(cuerpo)).form(max_files=1, max_fields=8, max_part_size=MAX_TROZO)
    except Exception:
        return await negar(send, 400, "El formulario no se pudo leer.", donde)
    try:
        motivo, estado = _revisar_trozo(formulario, blocks)
    finally:
        await formulario.close()
    if motivo:
        return await negar(send, estado, motivo, donde)
    await siguiente(scope, _repetir(cuerpo), send)


def _revisar_trozo(formulario, blocks: gr.Blocks) -> tuple[str, int]:
    """('', 0) si es un trozo de dibujo aceptable; si no, (motivo en español, estado HTTP)."""
    campo = {k: v for k, v in formulario.multi_items() if isinstance(v, str)}
    archivos = [v for _, v in formulario.multi_items() if isinstance(v, UploadFile)]
    componente = campo.get("component_id", "")
    if campo.get("fn_name") != "accept_blobs" or not componente.isdigit() or int(componente) not in editores(blocks):
        return "Esa función de componente no existe en esta página.", 404
    if not _ID.fullmatch(campo.get("session_hash", "")) or not _ID.fullmatch(campo.get("id", "")):
        return "La sesión o el id del dibujo no son válidos.", 400
    if campo.get("type") not in TIPOS:
        return "El trozo de dibujo debe ser fondo, capa o composición.", 400
    indice = campo.get("index", "null")
    if indice not in ("", "null") and (not indice.isdigit() or int(indice) >= MAX_CAPA):
        return f"El índice de capa debe ser un entero entre 0 y {MAX_CAPA - 1}.", 400
    if len(archivos) != 1 or archivos[0].size is None or archivos[0].size > MAX_TROZO:
        return f"Cada trozo de dibujo es un solo archivo de hasta {MAX_TROZO // 2**20} MB.", 400
    if not _contabilidad.admitir(campo["session_hash"], archivos[0].size):
        return "Ya enviaste muchos dibujos en poco tiempo; espera unos minutos.", 429
    return "", 0
