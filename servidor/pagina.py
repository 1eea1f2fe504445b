"""La página de cada montaje (su HTML y su `…/config`): armada una vez, servida barata, comprimida y con tope.

Gradio arma la configuración de la página entera en cada `GET /` y `GET /config`, bajo el GIL. Medido (issue 56):
la suite, 1.32 MB y 122 ms de CPU por `GET /` y 1.16 MB y 70 ms por `/config`; una pestaña, 0.31 MB y 15 ms. Nada
lo comprimía ni lo acotaba: 10 pedidos por segundo que cierran el socket a los 50 ms dejaban un movimiento honesto
en 0.89 s de mediana. Aquí (SECURITY.md §9, «La página, barata y con tope»):

- `Plantilla`: la primera petición de cada tipo (HTML o config) de un montaje le pide la página a Gradio una vez, con
  una raíz ficticia (`HOST_FICTICIO`), y la parte en trozos fijos y huecos: la raíz de cada petición (`raiz`, como
  la calcula Gradio) y el token de la página (`admision.MARCA`, que se cambia por `admision.emitir(...)`). Cada trozo
  fijo se guarda en crudo y comprimido (deflate, cada uno con su compresor y vaciado hasta un límite de byte). Por
  petición solo se arman los huecos (en gzip, bloques «stored» de deflate) y el CRC-32 del total se combina con el
  de cada trozo, ya calculado, sin volver a leerlos. Nada de la página se copia por petición: los trozos salen tal
  cual, uno tras otro. El gzip sale si el navegador lo acepta.
- `Tope`: a lo sumo `POR_DIRECCION` páginas (HTML o config, de cualquier montaje) por minuto desde una dirección
  (`admision.direccion`) y `EN_TOTAL` en todo el proceso; la que sobra recibe 429 en español, sin armar nada.

Si algo de la respuesta de Gradio no se puede partir así (un estado que no es 200, la raíz ficticia escrita de otro
modo), esa página no se guarda: se sirve como antes, pasando por el tope igual.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import re
import secrets
import struct
import threading
import time
import weakref
import zlib
from dataclasses import dataclass
from functools import cache

import anyio
import httpx
from starlette.datastructures import Headers
from starlette.requests import Request

from servidor import admision
from servidor.gradio_interno import GUION_API_INFO, ruta_de_montaje
from servidor.protecciones import acepta_gzip

log = logging.getLogger("atencion.pagina")

# Por minuto. Una dirección puede ser una clase entera tras un NAT (y las pruebas sondean `/config` 10 veces por
# segundo desde 127.0.0.1, tests/ataque.py): el tope por dirección es holgado; lo que la acota de verdad es que cada
# página ya armada cuesta ≈ 1 ms de CPU (scripts/ataque_pagina.py). Los tokens reales son menos: 120 por minuto por
# dirección (admision.PAGINAS_POR_MINUTO; las de más, de visita).
POR_DIRECCION = 1200  # 20 por segundo
EN_TOTAL = 3000  # 50 por segundo en todo el proceso
VENTANA_S = 60.0
MAX_DIRECCIONES = 4096
HOST_FICTICIO = "atencion-raiz-" + secrets.token_hex(6) + ".invalid"
MUCHAS_DE_AHI = "Se pidió esta página demasiadas veces desde tu red en el último minuto; espera un momento y recarga."
MUCHAS_EN_TOTAL = "El servidor está sirviendo demasiadas páginas en este momento; recarga en un momento."
_RAIZ_SEGURA = re.compile(r"[A-Za-z0-9:/._~\-\[\]%@+]{1,512}")


# --- el tope -----------------------------------------------------------------------------------------


class Tope:
    """Ventanas deslizantes de `ventana_s`: a lo sumo `por_direccion` desde cada dirección y `total` en el proceso."""

    def __init__(self, por_direccion: int = POR_DIRECCION, total: int = EN_TOTAL, ventana_s: float = VENTANA_S):
        self.por_direccion, self.total, self.ventana_s = por_direccion, total, ventana_s
        self.cerrojo = threading.Lock()
        self.horas: collections.deque[float] = collections.deque()
        self.por: collections.OrderedDict[str, collections.deque] = collections.OrderedDict()

    def admitir(self, desde: str) -> tuple[str, int] | None:
        """None si la página se sirve (y queda contada); si no, (motivo en español, segundos hasta que haya lugar)."""
        ahora = time.monotonic()
        desde_ = ahora - self.ventana_s
        with self.cerrojo:
            while self.horas and self.horas[0] <= desde_:
                self.horas.popleft()
            suyas = self.por.pop(desde, None) or collections.deque()
            while suyas and suyas[0] <= desde_:
                suyas.popleft()
            self.por[desde] = suyas
            while len(self.por) > MAX_DIRECCIONES:
                self.por.popitem(last=False)
            if len(suyas) >= self.por_direccion:
                return MUCHAS_DE_AHI, _espera(suyas[0] - desde_)
            if len(self.horas) >= self.total:
                return MUCHAS_EN_TOTAL, _espera(self.horas[0] - desde_)
            suyas.append(ahora)
            self.horas.append(ahora)
        return None


def _espera(s: float) -> int:
    return max(1, int(s + 0.999))


TOPE = Tope()


# --- la raíz, como la calcula Gradio --------------------------------------------------------------


def _primera(cabeceras: Headers, nombre: str) -> str | None:
    valor = cabeceras.get(nombre)
    return valor.split(",")[0].strip() if valor else None


def raiz(scope, ruta: str, root_path: str | None) -> str:
    """La URL raíz que Gradio escribe en la página de esta petición (`gradio.route_utils.get_root_url`, 6.31: sus
    rutas `/` y `/config` la calculan con `ruta` = "/" y "/config"). tests/test_seguridad_pagina.py compara esta
    con la de Gradio, cabecera por cabecera: una versión que la cambie falla ahí."""
    if root_path and root_path.startswith(("http://", "https://")):
        return root_path.rstrip("/")
    request = Request(scope)
    cabeceras = request.headers
    reenviado = _primera(cabeceras, "x-forwarded-host")
    servidor = _primera(cabeceras, "x-gradio-server")
    url = httpx.URL(f"http://{reenviado}" if reenviado else str(servidor or request.url)).copy_with(query=None)
    texto = str(url).rstrip("/")
    if _primera(cabeceras, "x-forwarded-proto") == "https":
        texto = texto.replace("http://", "https://")
    ruta = ruta.rstrip("/")
    if ruta and not reenviado and texto.endswith(ruta):
        texto = texto[: -len(ruta)]
    url = httpx.URL(texto.rstrip("/"))
    if root_path and url.path != root_path:
        url = url.copy_with(path=root_path)
    return str(url).rstrip("/")


# --- gzip por trozos ----------------------------------------------------------------------------------

_CABEZA_GZIP = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # sin nombre ni fecha; SO «desconocido»
_FIN_DEFLATE = b"\x01\x00\x00\xff\xff"  # un bloque «stored» vacío y final


def _desinflado(datos: bytes) -> bytes:
    """`datos` en deflate crudo, sin bloque final y hasta un límite de byte (se le puede pegar otro bloque)."""
    compresor = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    return compresor.compress(datos) + compresor.flush(zlib.Z_SYNC_FLUSH)


def _guardado(datos: bytes) -> bytes:
    """`datos` como bloques «stored» de deflate (sin comprimir), ninguno final."""
    partes = []
    for i in range(0, len(datos), 65535):
        trozo = datos[i : i + 65535]
        partes.append(b"\x00" + struct.pack("<HH", len(trozo), len(trozo) ^ 0xFFFF) + trozo)
    return b"".join(partes)


# CRC-32 de una concatenación sin releer: crc(A + B) = corrimiento_len(B)(crc(A)) ^ crc(B), con el corrimiento como
# una matriz de 32 × 32 sobre GF(2) (la de `crc32_combine` de zlib), calculada una vez por trozo fijo.


def _por(matriz: list[int], v: int) -> int:
    suma, i = 0, 0
    while v:
        if v & 1:
            suma ^= matriz[i]
        v >>= 1
        i += 1
    return suma


def _componer(a: list[int], b: list[int]) -> list[int]:
    """La matriz de aplicar `b` y después `a`."""
    return [_por(a, columna) for columna in b]


@cache
def _potencia(k: int) -> list[int]:
    """La matriz de 2**k bytes cero."""
    if k == 0:
        matriz = [0xEDB88320] + [1 << i for i in range(31)]  # un bit cero
        for _ in range(3):  # ocho bits
            matriz = _componer(matriz, matriz)
        return matriz
    anterior = _potencia(k - 1)
    return _componer(anterior, anterior)


def corrimiento(n: int) -> list[int]:
    """La matriz que lleva crc(A) a su parte en crc(A + n bytes)."""
    total, k = [1 << i for i in range(32)], 0  # la identidad
    while n:
        if n & 1:
            total = _componer(_potencia(k), total)
        n >>= 1
        k += 1
    return total


def combinar(crc_a: int, crc_b: int, matriz_b: list[int]) -> int:
    return _por(matriz_b, crc_a) ^ crc_b


# --- la plantilla ---------------------------------------------------------------------------------------

RAIZ, RAIZ_API, TOKEN = 0, 1, 2  # los huecos
# En el HTML, la información del API (sus ejemplos de código) lleva la raíz calculada con `root_path` de la app de
# Gradio, no con el del montaje: con `X-Forwarded-Host`, sin la ruta del montaje. Va en este guion de la plantilla.
_API = GUION_API_INFO


@dataclass(frozen=True)
class Fijo:
    crudo: bytes
    desinflado: bytes
    crc: int
    matriz: list[int]


@dataclass(frozen=True)
class Plantilla:
    """Una respuesta de Gradio partida: `partes` alterna `Fijo` y huecos (`RAIZ`, `TOKEN`)."""

    estado: int
    cabeceras: tuple[tuple[bytes, bytes], ...]
    partes: tuple
    html: bool

    @classmethod
    def de(cls, estado: int, cabeceras: list, cuerpo: bytes, raiz_ficticia: str, html: bool) -> Plantilla | None:
        """La plantilla de `cuerpo` (escrito con `raiz_ficticia`), o None si no se puede partir con seguridad."""
        ficticia = json.dumps(raiz_ficticia)[1:-1].encode()
        marca = admision.MARCA.encode()
        api = cuerpo.find(_API[0]) if html else -1
        api_hasta = cuerpo.find(_API[1], api) if api >= 0 else -1
        partes: list = []
        desde = 0
        for i, por_raiz in enumerate(cuerpo.split(ficticia)):
            if i:
                partes.append(RAIZ_API if api <= desde - len(ficticia) < api_hasta else RAIZ)
            for j, trozo in enumerate(por_raiz.split(marca)):
                if j:
                    partes.append(TOKEN)
                partes.append(trozo)
            desde += len(por_raiz) + len(ficticia)
        if any(HOST_FICTICIO.encode() in p for p in partes if isinstance(p, bytes)):
            return None  # la raíz escrita de otro modo (escapada): no se sabría reemplazarla
        fijos = tuple(
            Fijo(p, _desinflado(p), zlib.crc32(p), corrimiento(len(p))) if isinstance(p, bytes) else p for p in partes
        )
        fuera = {b"content-length", b"content-encoding", b"transfer-encoding", b"vary"}
        propias = (*((k, v) for k, v in cabeceras if k.lower() not in fuera), (b"vary", b"Accept-Encoding"))
        return cls(estado, propias, fijos, html)

    def trozos(self, raiz_: str, token: str, gzip: bool, raiz_api: str | None = None) -> list[bytes]:
        """Los trozos del cuerpo para esta petición (los fijos, tal cual: sin copiarlos)."""
        huecos = {RAIZ: raiz_.encode(), RAIZ_API: (raiz_api or raiz_).encode(), TOKEN: token.encode()}
        if not gzip:
            return [huecos[p] if isinstance(p, int) else p.crudo for p in self.partes]
        salida, crc, largo = [_CABEZA_GZIP], 0, 0
        for p in self.partes:
            if isinstance(p, int):
                datos = huecos[p]
                salida.append(_guardado(datos))
                crc, largo = zlib.crc32(datos, crc), largo + len(datos)
            else:
                salida.append(p.desinflado)
                crc, largo = combinar(crc, p.crc, p.matriz), largo + len(p.crudo)
        salida += [_FIN_DEFLATE, struct.pack("<II", crc, largo & 0xFFFFFFFF)]
        return salida


_DE_MONTAJE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Blocks -> sus Paginas


def paginas_de(blocks) -> Paginas | None:
    """Las `Paginas` del montaje de `blocks` (tras su primera petición: Starlette arma entonces sus middlewares)."""
    return _DE_MONTAJE.get(blocks)


class Paginas:
    """Las páginas de un montaje: su HTML (la raíz) y su `…/config`, cada una armada una vez por Gradio."""

    def __init__(self, app, app_gradio, cabeza_html: bytes = b""):
        self.app, self.app_gradio, self.cabeza_html = app, app_gradio, cabeza_html
        self.plantillas: dict[str, Plantilla | None] = {}
        self.armados = 0  # cuántas veces se le pidió la página a Gradio (tests/test_seguridad_pagina.py las cuenta)
        self.cerrojo: asyncio.Lock | None = None
        _DE_MONTAJE[app_gradio.get_blocks()] = self

    @staticmethod
    def tipo(scope) -> str | None:
        """ "html" (la raíz del montaje), "config" o None (otra ruta)."""
        if scope.get("method") not in ("GET", "HEAD"):
            return None
        ruta = scope.get("path", "")
        propia = ruta[len(scope.get("root_path", "")) :] if ruta.startswith(scope.get("root_path", "")) else ruta
        if propia in ("", "/"):
            return "html"
        if propia in ("/config", "/config/"):
            return "config"
        return None

    def _root_path(self, scope) -> str | None:
        blocks = self.app_gradio.get_blocks()
        return self.app_gradio.root_path or scope.get("root_path") or ruta_de_montaje(blocks)

    async def servir(self, scope, send, tipo: str) -> bool:
        """Contesta la página de `tipo` (o el 429 del tope) y devuelve True; False si esta página no se guarda (que
        la arme Gradio, como antes: ya pasó por el tope)."""
        desde = admision.direccion(Request(scope))
        negada = TOPE.admitir(desde)
        if negada is not None:
            motivo, espera = negada
            log.info("Página rechazada (429) a %s: %s", desde, motivo)
            await _negar_429(send, motivo, espera)
            return True
        plantilla = await self._plantilla(scope, tipo)
        raiz_ = raiz(scope, "/" if tipo == "html" else "/config", self._root_path(scope))
        raiz_api = raiz(scope, "/", self.app_gradio.root_path)  # la de sus ejemplos de código (`prepare_api_info`)
        if plantilla is None or not all(_RAIZ_SEGURA.fullmatch(r) for r in (raiz_, raiz_api)):
            return False  # un nombre raro (con ATENCION_HOSTS=*): que Gradio lo escriba, escapado
        gzip = acepta_gzip(scope)
        trozos = plantilla.trozos(raiz_, admision.emitir(desde), gzip, raiz_api)
        cabeceras = [*plantilla.cabeceras, (b"content-length", str(sum(map(len, trozos))).encode())]
        if gzip:
            cabeceras.append((b"content-encoding", b"gzip"))
        await send({"type": "http.response.start", "status": plantilla.estado, "headers": cabeceras})
        if scope.get("method") == "HEAD":
            await send({"type": "http.response.body", "body": b""})
            return True
        for i, trozo in enumerate(trozos):
            await send({"type": "http.response.body", "body": trozo, "more_body": i < len(trozos) - 1})
        return True

    async def _plantilla(self, scope, tipo: str) -> Plantilla | None:
        if tipo in self.plantillas:
            return self.plantillas[tipo]
        self.cerrojo = self.cerrojo or asyncio.Lock()
        async with self.cerrojo:
            if tipo not in self.plantillas:
                self.plantillas[tipo] = await self._armar(scope, tipo)
        return self.plantillas[tipo]

    async def _armar(self, scope, tipo: str) -> Plantilla | None:
        """Le pide la página a Gradio una vez, con la raíz ficticia, y la parte."""
        raiz_de_montaje = scope.get("root_path", "")
        ruta = "/" if tipo == "html" else "/config"
        sintetico = {**scope, "method": "GET", "scheme": "http", "headers": [(b"host", HOST_FICTICIO.encode())]}
        self.armados += 1
        estado, cabeceras, cuerpo = await self._pedir(sintetico, raiz_de_montaje + ruta)
        if estado != 200:
            log.warning("La página (%s) de %s no se guarda: Gradio contestó %s", tipo, raiz_de_montaje or "/", estado)
            return None
        html = Headers(raw=cabeceras).get("content-type", "").startswith("text/html")
        if html and self.cabeza_html and b"</head>" in cuerpo:
            cuerpo = cuerpo.replace(b"</head>", self.cabeza_html + b"</head>", 1)
        ficticia = raiz({**sintetico, "path": raiz_de_montaje + ruta}, ruta, self._root_path(sintetico))
        # Partirla y comprimir sus trozos lleva unas décimas de segundo, una vez: en un hilo, no en el bucle de eventos.
        plantilla = await anyio.to_thread.run_sync(Plantilla.de, 200, cabeceras, cuerpo, ficticia, html)
        if plantilla is None:
            log.warning("La página (%s) de %s no se pudo partir: se arma en cada pedido", tipo, raiz_de_montaje or "/")
        return plantilla

    async def _pedir(self, scope, ruta: str) -> tuple[int | None, list, bytes]:
        """(estado, cabeceras, cuerpo) de un GET a `ruta` de Gradio, con el resto de `scope`."""
        scope = {**scope, "path": ruta, "raw_path": ruta.encode(), "query_string": b""}
        respuesta: dict = {"estado": None, "cabeceras": [], "partes": []}

        async def capturar(mensaje):
            if mensaje["type"] == "http.response.start":
                respuesta["estado"], respuesta["cabeceras"] = mensaje["status"], list(mensaje.get("headers", []))
            elif mensaje["type"] == "http.response.body":
                respuesta["partes"].append(mensaje.get("body", b""))

        enviado = False

        async def recibir():
            nonlocal enviado
            if not enviado:
                enviado = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.Event().wait()  # nunca: un GET no tiene más cuerpo

        sin_comprimir = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"accept-encoding"]
        await self.app({**scope, "headers": sin_comprimir}, recibir, capturar)
        return respuesta["estado"], respuesta["cabeceras"], b"".join(respuesta["partes"])


async def _negar_429(send, motivo: str, espera: int) -> None:
    cuerpo = json.dumps({"detail": motivo}, ensure_ascii=False).encode()
    cabeceras = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"content-length", str(len(cuerpo)).encode()),
        (b"retry-after", str(espera).encode()),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": cabeceras})
    await send({"type": "http.response.body", "body": cuerpo})
