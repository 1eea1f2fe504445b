"""ASGI delante de toda la app: cuerpos acotados, `nosniff` y un `Host` que no se refleja.

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
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket

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


class Protecciones:
    def __init__(self, app, host_propio: str = "localhost", max_cuerpo: int = MAX_CUERPO, max_subida: int = MAX_SUBIDA):
        self.app, self.host_propio = app, host_propio
        self.max_cuerpo, self.max_subida = max_cuerpo, max_subida
        self.propios = hosts_propios()

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        scope = self._sin_host_ajeno(scope)
        if scope["type"] == "websocket":
            return await self.app(scope, receive, send)
        ruta = scope.get("path", "")
        limite = self.max_subida if ruta.rstrip("/").endswith(RUTA_SUBIDA) else self.max_cuerpo
        declarado = _cabecera(scope, b"content-length")
        if declarado is not None:
            if not declarado.isdigit():
                return await self._negar(send, 400, "La cabecera Content-Length no es un número.", ruta)
            if int(declarado) > limite:
                return await self._negar(send, 413, _demasiado(limite), ruta)
        excedido = [False]
        leidos = [0]

        async def recibir():
            if excedido[0]:
                return {"type": "http.disconnect"}
            mensaje = await receive()
            if mensaje["type"] == "http.request":
                leidos[0] += len(mensaje.get("body", b""))
                if leidos[0] > limite:  # llegó a trozos y pasó el límite: no se entrega, ni se sigue leyendo
                    excedido[0] = True
                    return {"type": "http.disconnect"}
            return mensaje

        cola_detenida = ruta.rstrip("/").endswith("/queue/join")
        respuesta_propia = [False]

        async def enviar(mensaje):
            if excedido[0] or respuesta_propia[0]:
                return
            if mensaje["type"] == "http.response.start":
                if cola_detenida and mensaje["status"] == 503:
                    respuesta_propia[0] = True
                    for m in _respuesta(429, "La app no acepta peticiones en este momento; prueba en un momento."):
                        await send(m)
                    return
                cabeceras = list(mensaje.get("headers", []))
                if not any(k.lower() == b"x-content-type-options" for k, _ in cabeceras):
                    cabeceras.append((b"x-content-type-options", b"nosniff"))
                mensaje = {**mensaje, "headers": cabeceras}
            await send(mensaje)

        try:
            await self.app(scope, recibir, enviar)
        except Exception:
            if not excedido[0]:
                raise
        if excedido[0]:
            await self._negar(send, 413, _demasiado(limite), ruta)

    async def _negar(self, send, estado: int, mensaje: str, ruta: str) -> None:
        log.info("Petición rechazada (%d) en %s: %s", estado, ruta[:80], mensaje)
        for m in _respuesta(estado, mensaje):
            await send(m)

    def _sin_host_ajeno(self, scope) -> dict:
        """El scope sin `X-Forwarded-Host`/`X-Gradio-Server` ajenos y con `Host` propio si el que vino no lo es."""
        cabeceras, cambio = [], False
        for k, v in scope.get("headers", []):
            nombre = k.lower()
            valor = v.decode("latin-1")
            if nombre in (b"x-forwarded-host", b"x-gradio-server") and not (
                nombre == b"x-forwarded-host" and host_reconocido(valor.split(",")[0], self.propios)
            ):
                cambio = True
                continue
            if nombre == b"host" and not host_reconocido(valor, self.propios):
                cambio = True
                v = self.host_propio.encode()
            cabeceras.append((k, v))
        return {**scope, "headers": cabeceras} if cambio else scope


def _cabecera(scope, nombre: bytes) -> str | None:
    for k, v in scope.get("headers", []):
        if k.lower() == nombre:
            return v.decode("latin-1").strip()
    return None


def _demasiado(limite: int) -> str:
    return (
        f"La petición pesa más de {limite / 2**20:.0f} MB: no se acepta. "
        "Las imágenes se suben como archivo (hasta 10 MB), no dentro del texto de la petición."
    )
