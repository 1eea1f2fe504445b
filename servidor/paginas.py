"""Sesiones reales: las que abrió una carga de la página, no un `session_hash` inventado.

El `session_hash` lo inventa el cliente. Lo que solo tiene quien cargó la página: un token
firmado que el servidor escribe en cada página que sirve (el HTML de «/» y `/config` de cada
montaje), y que la página misma manda en la cabecera `x-atencion-pagina` de cada `queue/join`
(un guion del `<head>`, `GUION`). No es una cookie: en un iframe de otro origen (las
diapositivas) el navegador puede bloquear las de terceros, y la cabecera llega igual.

- `emitir(direccion)`: un token nuevo por página servida, con vida `VIDA_TOKEN_S`. Los primeros
  `PAGINAS_POR_MINUTO` por dirección (holgado: una clase entera detrás de un NAT recarga la
  página sin llegar) vuelven real su sesión; pasado eso, el token es «de visita»: vale para los
  eventos de la página (los privados), pero no vuelve real la sesión. Así quien recarga la
  página sin parar desde la red de una clase no deja a la clase sin sus eventos.
- `sesion_real(blocks, session_hash, token)`: la primera sesión que presenta un token válido
  queda real en su montaje (`gradio_interno.Sesiones.hacer_real`); el mismo token con otra
  sesión no vale. Una sesión real sigue siéndolo sin volver a mirar el token.
- `de_la_pagina(blocks, session_hash, token)`: la sesión es real, o trae un token válido (también
  uno de visita) que es suyo. Los eventos privados lo exigen (servidor/cola.py).

Lo que una sesión real recibe: pasado el tope de sesiones por montaje se desalojan primero las
que nunca fueron reales (servidor/gradio_interno.py), y sus llamadas lentas no comparten el
presupuesto chico de las que llegan sin página (servidor/cola.py). Quien imita la página
(pide el HTML y copia el token) consigue una sesión real por página pedida: su costo es el de
cargar la página, y el tope por dirección lo acota.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import secrets
import threading
import time

import gradio as gr

from servidor.gradio_interno import sesiones_de

MARCA = "__ATENCION_PAGINA__"  # lo que el servidor cambia por el token en cada página que sirve
CABECERA = "x-atencion-pagina"
PAGINAS_POR_MINUTO = 120
VIDA_TOKEN_S = 3600
MAX_TOKENS_USADOS = 8192
MAX_DIRECCIONES = 4096
REAL, VISITA = "r", "v"  # la clase del token, en su cuerpo firmado

# El guion del <head>: añade el token a cada queue/join que la página (su cliente de Gradio) manda.
GUION = (
    "<script>(() => {"
    f'const token = "{MARCA}";'
    'if (!token || token.startsWith("__")) return;'
    "const original = window.fetch;"
    "window.fetch = function (recurso, opciones) {"
    'const url = typeof recurso === "string" ? recurso : (recurso && recurso.url) || String(recurso);'
    'if (url.includes("/queue/join")) {'
    "opciones = { ...(opciones || {}) };"
    "const cabeceras = new Headers(opciones.headers || (recurso instanceof Request ? recurso.headers : undefined));"
    f'cabeceras.set("{CABECERA}", token);'
    "opciones.headers = cabeceras;"
    "}"
    "return original.call(this, recurso, opciones);"
    "};"
    "})();</script>"
)

_SECRETO = secrets.token_bytes(32)  # de este proceso: un token de otro proceso no vale
_cerrojo = threading.Lock()
_usados: collections.OrderedDict[str, str] = collections.OrderedDict()  # token -> sesión que lo usó
_emitidos: collections.OrderedDict[str, collections.deque] = collections.OrderedDict()  # dirección -> horas


def _firma(cuerpo: str) -> str:
    return hmac.new(_SECRETO, cuerpo.encode(), hashlib.sha256).hexdigest()[:32]


def emitir(direccion: str) -> str:
    """Un token para la página que se sirve a `direccion`; de visita si esa dirección ya pidió demasiadas."""
    ahora = time.monotonic()
    with _cerrojo:
        horas = _emitidos.pop(direccion, None) or collections.deque()
        while horas and horas[0] < ahora - 60:
            horas.popleft()
        _emitidos[direccion] = horas
        while len(_emitidos) > MAX_DIRECCIONES:
            _emitidos.popitem(last=False)
        clase = VISITA if len(horas) >= PAGINAS_POR_MINUTO else REAL
        if clase == REAL:
            horas.append(ahora)
    cuerpo = f"{int(time.time())}.{clase}{secrets.token_hex(8)}"
    return f"{cuerpo}.{_firma(cuerpo)}"


def valido(token: str | None) -> bool:
    """Firmado por este proceso y emitido hace menos de `VIDA_TOKEN_S`."""
    if not token or len(token) > 80 or token.count(".") != 2:
        return False
    cuerpo, firma = token.rsplit(".", 1)
    emitido = cuerpo.split(".", 1)[0]
    if not emitido.isdigit() or time.time() - int(emitido) > VIDA_TOKEN_S:
        return False
    return hmac.compare_digest(firma, _firma(cuerpo))


def sesion_real(blocks: gr.Blocks, session_hash: str | None, token: str | None) -> bool:
    """Si `session_hash` es una sesión real del montaje de `blocks` (la vuelve real con un token nuevo)."""
    sesiones = sesiones_de(blocks)
    if sesiones is None or not session_hash:
        return False
    if sesiones.es_real(session_hash):
        return True
    if not _suyo(session_hash, token) or token.split(".")[1][:1] != REAL:
        return False
    sesiones.hacer_real(session_hash)
    return True


def de_la_pagina(blocks: gr.Blocks, session_hash: str | None, token: str | None) -> bool:
    """Si `session_hash` viene de una página servida: es real, o trae un token válido que es suyo."""
    sesiones = sesiones_de(blocks)
    if sesiones is None or not session_hash:
        return False
    return sesiones.es_real(session_hash) or _suyo(session_hash, token)


def _suyo(session_hash: str, token: str | None) -> bool:
    """El token es válido y la primera sesión que lo presentó es `session_hash` (el de otra página no vale)."""
    if not valido(token):
        return False
    with _cerrojo:
        duena = _usados.setdefault(token, session_hash)
        _usados.move_to_end(token)
        while len(_usados) > MAX_TOKENS_USADOS:
            _usados.popitem(last=False)
    return duena == session_hash
