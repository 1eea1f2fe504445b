"""Sesiones reales: las que abrió una carga de la página, no un `session_hash` inventado.

El `session_hash` lo inventa el cliente. Lo que solo tiene quien cargó la página: un token
firmado que el servidor escribe en cada página que sirve (el HTML de «/» y `/config` de cada
montaje), y que la página misma manda en la cabecera `x-atencion-pagina` de cada `queue/join`
(un guion del `<head>`, `GUION`). No es una cookie: en un iframe de otro origen (las
diapositivas) el navegador puede bloquear las de terceros, y la cabecera llega igual.

- `emitir(direccion)`: un token nuevo por página servida, a lo sumo `PAGINAS_POR_MINUTO` por
  dirección (holgado: una clase entera detrás de un NAT recarga la página sin llegar), con
  vida `VIDA_TOKEN_S` hasta su primer uso.
- `sesion_real(blocks, session_hash, token)`: la primera sesión que presenta un token válido
  queda real en su montaje (`gradio_interno.Sesiones.hacer_real`); el mismo token con otra
  sesión no vale. Una sesión real sigue siéndolo sin volver a mirar el token.

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
    """Un token para la página que se sirve a `direccion`; "" si esa dirección ya pidió demasiadas."""
    ahora = time.monotonic()
    with _cerrojo:
        horas = _emitidos.pop(direccion, None) or collections.deque()
        while horas and horas[0] < ahora - 60:
            horas.popleft()
        _emitidos[direccion] = horas
        while len(_emitidos) > MAX_DIRECCIONES:
            _emitidos.popitem(last=False)
        if len(horas) >= PAGINAS_POR_MINUTO:
            return ""
        horas.append(ahora)
    cuerpo = f"{int(time.time())}.{secrets.token_hex(8)}"
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
    if not valido(token):
        return False
    with _cerrojo:
        duena = _usados.setdefault(token, session_hash)
        _usados.move_to_end(token)
        while len(_usados) > MAX_TOKENS_USADOS:
            _usados.popitem(last=False)
    if duena != session_hash:  # el token de otra página
        return False
    sesiones.hacer_real(session_hash)
    return True
