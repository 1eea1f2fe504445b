"""Admisión: quién entra a la cola de Gradio, cuánto puede pedir y a qué fila va, todo aquí.

Cada montaje (la suite y cada /demo/<id>/) tiene su cola, configurada con `configurar_cola`; cada
`queue/join` pasa por `_push_repartido` antes de que Gradio lo ponga en una fila. El `session_hash`
lo inventa el cliente: un tope por sesión no frena a quien inventa una por petición. Por eso la
admisión mira además tres cosas que sí sabe el servidor, una por sección:

1. **La página** (sesiones reales). El servidor escribe un token firmado en cada página que sirve
   (el HTML de «/» y `/config` de cada montaje: `MARCA`, que servidor/laterales.py cambia por
   `emitir(...)`), y la página misma lo manda en la cabecera `x-atencion-pagina` de cada
   `queue/join` (un guion del `<head>`, `GUION`). No es una cookie: en un iframe de otro origen (las
   diapositivas) el navegador puede bloquear las de terceros, y la cabecera llega igual.
   - `emitir(desde)`: un token nuevo por página servida, con vida `VIDA_TOKEN_S`. Los primeros
     `PAGINAS_POR_MINUTO` por dirección (holgado: una clase entera detrás de un NAT recarga la
     página sin llegar) vuelven real su sesión; pasado eso, el token es «de visita»: vale para los
     eventos de la página (los privados), pero no vuelve real la sesión. Así quien recarga la
     página sin parar desde la red de una clase no deja a la clase sin sus eventos.
   - `procedencia(blocks, session_hash, token)`: la primera sesión que presenta un token válido
     es su dueña; con uno real queda real en su montaje (`gradio_interno.Sesiones.hacer_real`) y
     sigue siéndolo sin volver a mirar el token; el mismo token con otra sesión no vale.
   Lo que recibe una sesión real: pasado el tope de sesiones por montaje se desalojan primero las
   que nunca fueron reales (servidor/gradio_interno.py), y sus llamadas lentas tienen el carril de
   su evento. Un evento privado (`api_visibility="private"`: abrir una pestaña, preparar las
   descargas, los entrenamientos del laboratorio) solo lo llama una sesión que viene de la página
   (real, o con su token de visita); otra recibe 403 en español. Quien imita la página (pide el
   HTML y copia el token) consigue una sesión real por página pedida: su costo es el de cargar la
   página, y el tope por dirección lo acota.

2. **Quién y cuánto: la dirección y el costo.**
   - La dirección (`direccion`). En un Space cada visitante llega por el proxy, que añade su IP al
     final de `X-Forwarded-For`; `ATENCION_PROXIES` dice cuántos proxies de confianza hay delante (1
     en un Space, donde está `SPACE_ID`; 0 en local, donde manda la dirección de la conexión). Lo
     que el cliente escribió antes en esa cabecera no cuenta. Una clase entera puede salir a
     internet por una sola IP (un NAT): el tope por dirección (`MAX_POR_DIRECCION`) es holgado.
   - El costo (`costo`). Cada entrada dice cuánto de su rango usa (un deslizador en su máximo, 1;
     un texto de `TEXTO_LARGO` caracteres, 1; una semilla, 0). Una llamada de costo ≥ `LENTO_DESDE`
     es *lenta*.

3. **La cola y el reparto.** Los números:
   - `MAX_COLA` peticiones en espera por cola (el `max_size` de Gradio); `MAX_POR_SESION` de una
     misma sesión (o, sin sesión, de una misma dirección), así una sola no la llena; y
     `MAX_POR_DIRECCION` desde una misma dirección, para quien inventa sesiones.
   - Un resultado que nadie leyó (el evento terminó y nadie abrió su flujo: Gradio guarda sus mensajes, con
     las salidas) cuenta como pendiente de su sesión; los de una dirección y los del proceso tienen su tope
     (`MAX_SIN_LEER_POR_DIRECCION`, `MAX_SIN_LEER_TOTAL`), y pasados `VIDA_SIN_LEER_S` se sueltan
     (`_barrer_sin_leer`, una tarea del bucle de eventos).
   - Los eventos ligeros corren de a `LIMITE_LIGERO` a la vez, cada uno con su propio
     `concurrency_id` (el de Gradio por omisión): ninguno espera detrás de otro evento.
   - Una lenta no espera en la fila de su evento (delante de las ligeras de todos) sino en su
     carril («lento:<evento>», de a una a la vez), con un presupuesto de lentas pendientes por tipo
     de evento (`LENTOS_POR_TIPO`) y en todo el proceso (`LENTOS_TOTAL`). Las de una sesión que no
     es real comparten un solo carril (`CARRIL_SIN_PAGINA`) y `LENTOS_SIN_PAGINA` pendientes en
     total: 24 sesiones inventadas tienen entre todas lo que tendría un solo evento, y no gastan el
     presupuesto de los visitantes de la página.
   - Los pesados (`PESADOS`: entrenar, medir, preparar descargas) declaran su `concurrency_id` con
     límite 1, y además: a lo sumo uno pendiente por sesión, `Pesado.por_direccion` por dirección (la
     fila corta de cada red) y `Pesado.tope` pendientes en todo el proceso (sumando las colas de todos los
     montajes). El que sobra recibe al instante «Hay N entrenamientos en cola; prueba en un momento.»; el
     que entra pasa, en la fila de su montaje, delante de los que esperan de una red con más en cola.

Gradio contesta «Queue is full» con un 503, y su página muestra entonces «This application is
currently busy», en inglés. Aquí toda negativa sale antes, con 429 y el motivo en español, que la
página muestra tal cual. Con `api_open=False`, los eventos con cola no se pueden llamar por las
rutas que se la saltan (`/gradio_api/run/...`). SECURITY.md, §3, §9 y §10.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import hmac
import logging
import math
import os
import secrets
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import gradio as gr
from fastapi import HTTPException

from demos.comun import barrido
from servidor.gradio_interno import (
    adelantar,
    cola_de,
    envolver_push,
    id_de_evento,
    mover_a_carril,
    peticion_actual,
    sesiones_de,
    sin_leer,
    soltar_sin_leer,
    vivos,
)
from servidor.gradio_interno import eventos as _eventos  # los de una cola, esperando o corriendo

log = logging.getLogger("atencion.cola")

# Tras cada evento, Gradio rehace con pandas el resumen de sus últimos 10 000 eventos (para su
# panel de monitoreo, que aquí no se usa): ≈ 55 ms de CPU por evento con la cola llena de historia,
# lo que a 30 eventos/s se come un núcleo. Se rehace cada 100 eventos, sobre los últimos 2000.
# Gradio lee estas variables al crear cada cola: este módulo se importa antes de armar la app.
os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "100")
os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", "2000")


# --- 1. la página: tokens y sesiones reales --------------------------------------------------------

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
_cerrojo_tokens = threading.Lock()
_usados: collections.OrderedDict[str, str] = collections.OrderedDict()  # token -> sesión que lo usó
_emitidos: collections.OrderedDict[str, collections.deque] = collections.OrderedDict()  # dirección -> horas


def _firma(cuerpo: str) -> str:
    return hmac.new(_SECRETO, cuerpo.encode(), hashlib.sha256).hexdigest()[:32]


def emitir(desde: str) -> str:
    """Un token para la página que se sirve a la dirección `desde`; de visita si de ahí ya se pidieron demasiadas."""
    ahora = time.monotonic()
    with _cerrojo_tokens:
        horas = _emitidos.pop(desde, None) or collections.deque()
        while horas and horas[0] < ahora - 60:
            horas.popleft()
        _emitidos[desde] = horas
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


def procedencia(blocks: gr.Blocks, session_hash: str | None, token: str | None, desde: str = "") -> str | None:
    """De dónde viene `session_hash` en el montaje de `blocks`.

    `REAL`: la sesión es real, o trae un token real válido que es suyo (y desde ahora es real).
    `VISITA`: trae un token de visita válido que es suyo (viene de la página, pero no es real).
    None: no viene de una página servida (sin token, uno falso o vencido, o el de otra sesión).
    """
    sesiones = sesiones_de(blocks)
    if sesiones is None or not session_hash:
        return None
    if sesiones.usar_real(session_hash):  # y no se olvida mientras se use
        return REAL
    if not _suyo(session_hash, token):
        return None
    if token.split(".")[1][:1] != REAL:
        return VISITA
    sesiones.hacer_real(session_hash, desde)
    return REAL


def _suyo(session_hash: str, token: str | None) -> bool:
    """El token es válido y la primera sesión que lo presentó es `session_hash` (el de otra página no vale)."""
    if not valido(token):
        return False
    with _cerrojo_tokens:
        duena = _usados.setdefault(token, session_hash)
        _usados.move_to_end(token)
        while len(_usados) > MAX_TOKENS_USADOS:
            _usados.popitem(last=False)
    return duena == session_hash


# --- 2. quién y cuánto: la dirección y el costo ----------------------------------------------------

LENTO_DESDE = 0.5
RANGO_SIN_COSTO = 10**6  # un número con un rango así es una semilla o un índice, no un tamaño
TEXTO_LARGO = 400
ELEMENTOS_MUCHOS = 400


def proxies() -> int:
    """Cuántos proxies de confianza hay delante (`ATENCION_PROXIES`; en un Space, 1)."""
    valor = os.environ.get("ATENCION_PROXIES", "1" if os.environ.get("SPACE_ID") else "0")
    return int(valor) if valor.isdigit() else 0


def direccion(request) -> str:
    """La IP del visitante: la que añadió el último proxy de confianza, o la de la conexión."""
    saltos = proxies()
    if saltos and request is not None:
        cadena = [p.strip() for h in request.headers.getlist("x-forwarded-for") for p in h.split(",") if p.strip()]
        if len(cadena) >= saltos:
            return cadena[-saltos][:64]
    cliente = getattr(request, "client", None)
    return cliente.host if cliente else "?"


def costo(fn, datos) -> float:
    """De 0 a 1: la fracción más alta de su rango que usa una entrada de la llamada."""
    if not isinstance(datos, list):
        return 0.0
    return max((_fraccion(c, v) for c, v in zip(fn.inputs, datos, strict=False)), default=0.0)


def _fraccion(componente, valor) -> float:
    if isinstance(valor, bool) or valor is None:
        return 0.0
    if isinstance(valor, int | float):
        bajo, alto = getattr(componente, "minimum", None), getattr(componente, "maximum", None)
        try:
            if isinstance(bajo, int | float) and isinstance(alto, int | float) and 0 < alto - bajo < RANGO_SIN_COSTO:
                x = (float(valor) - bajo) / (alto - bajo)
                return 1.0 if math.isnan(x) else min(1.0, max(0.0, x))
            return 0.0
        except OverflowError:  # un entero de 10⁴⁰⁰: la pestaña lo rechazará, pero no es barato
            return 1.0
    if isinstance(valor, str):
        return min(1.0, len(valor) / TEXTO_LARGO)
    if isinstance(valor, list):
        return min(1.0, _elementos(valor) / ELEMENTOS_MUCHOS)
    return 0.0


def _elementos(valor: list) -> int:
    """Elementos de una lista anidada (sin recursión; se deja de contar al pasar `ELEMENTOS_MUCHOS`)."""
    n, pila = 0, [valor]
    while pila and n <= ELEMENTOS_MUCHOS:
        actual = pila.pop()
        if isinstance(actual, list):
            pila.extend(actual)
        else:
            n += 1
    return n


# --- 3. la cola y el reparto -----------------------------------------------------------------------

MAX_COLA = 128
MAX_POR_SESION = 8
MAX_POR_DIRECCION = 64
LIMITE_LIGERO = 4
LENTOS_POR_TIPO = 8
LENTOS_TOTAL = 16
LENTOS_SIN_PAGINA = 4  # las lentas de sesiones que no son reales, en total
PREFIJO_CARRIL = "lento:"
CARRIL_SIN_PAGINA = f"{PREFIJO_CARRIL}sin-pagina"  # uno para todas ellas, de a una por montaje
# Los resultados que nadie leyó (el evento terminó y nadie abrió su flujo): cuentan como pendientes para el tope
# por sesión, tienen su tope por dirección y en todo el proceso, y se sueltan pasados `VIDA_SIN_LEER_S`.
MAX_SIN_LEER_POR_DIRECCION = 32
MAX_SIN_LEER_TOTAL = 128
VIDA_SIN_LEER_S = 30.0
BARRER_SIN_LEER_CADA_S = 1.0
ESTADO_RECHAZO = 429  # con 503 la página de Gradio mostraría su mensaje en inglés
ESTADO_PRIVADO = 403
SIN_SALDO_DE_PARADAS = "Pediste muchas paradas en poco tiempo; espera un momento antes de editar otra vez."
SOLO_LA_PAGINA = "Este evento solo lo llama la página de la app: ábrela (o recárgala) y prueba de nuevo."


@dataclass(frozen=True)
class Pesado:
    uno: str  # «un entrenamiento»
    varios: str  # «entrenamientos»
    tope: int = 4  # pendientes (corriendo o en espera) en todo el proceso
    por_direccion: int = 2  # pendientes de una misma dirección: la fila corta de cada red


PESADOS: dict[str, Pesado] = {
    "entrenar": Pesado("un entrenamiento", "entrenamientos"),
    "medir": Pesado("una medición", "mediciones"),
    "descargas": Pesado("una descarga", "descargas"),
}

_colas: weakref.WeakSet = weakref.WeakSet()  # las colas configuradas del proceso
# Lo aceptado que aún no entró a su cola, por clave: el `concurrency_id` de un pesado, la identidad que lo pidió
# y el carril de una lenta.
_reservas: Counter = Counter()
_cerrojo = threading.Lock()


def configurar_cola(blocks: gr.Blocks, max_size: int = MAX_COLA) -> gr.Blocks:
    """La cola de `blocks` con los tamaños de arriba y el reparto (una vez por Blocks).

    Si ya está configurada con ese `max_size`, no se rehace: `Blocks.queue` crea otra cola y otra app.
    """
    ya = cola_de(blocks)
    if getattr(ya, "_repartida", False) and ya.max_size == max_size and ya in _colas:
        return blocks
    blocks.queue(default_concurrency_limit=LIMITE_LIGERO, max_size=max_size, api_open=False)
    barrido.direccion_de = direccion  # el taller de paradas reparte por la misma dirección que la cola
    barrido.peticion_actual = peticion_actual
    cola = cola_de(blocks)
    if not getattr(cola, "_repartida", False):
        envolver_push(cola, lambda push_de_gradio: _push_repartido(cola, push_de_gradio))
        cola._repartida = True
        cola._identidades = {}
        cola._direcciones = {}
        cola._sin_leer_desde = {}  # id de un resultado sin leer -> cuándo se lo vio terminado
    _colas.add(cola)
    return blocks


def carril(fn) -> str:
    """El carril de las llamadas lentas de un evento."""
    return f"{PREFIJO_CARRIL}{fn.concurrency_id}"


def _identidad(body, request) -> str:
    """La sesión de la página; sin ella (`/gradio_api/call/...`), la dirección del cliente."""
    if body.session_hash:
        return f"s:{body.session_hash}"
    return f"ip:{direccion(request)}"


def _todos():
    """(cola, evento) de cada evento esperando o corriendo, en todas las colas del proceso."""
    for cola in list(_colas):
        for evento in _eventos(cola):
            yield cola, evento


def pendientes(concurrency_id: str) -> int:
    """Eventos con ese `concurrency_id` esperando o corriendo, en todas las colas del proceso."""
    with _cerrojo:
        return sum(ev.fn.concurrency_id == concurrency_id for _, ev in _todos())


def _identidad_del_evento(cola, evento) -> str:
    return cola._identidades.get(id_de_evento(evento)) or f"s:{evento.session_hash}"


def motivo_de_rechazo(
    cola, fn, identidad: str, desde: str, lento: bool, real: bool, sesion: str | None = None
) -> tuple[tuple[str, ...], str | None]:
    """(claves de reserva, motivo en español o None). Cuenta y reserva bajo un cerrojo, sin esperar.

    `desde` es la dirección del visitante (`direccion`) y `lento`, si la llamada es lenta (`costo`):
    va a un carril (`_reservar_carril`), el de su evento si la sesión es `real` y si no el compartido.
    Un resultado que nadie leyó de `sesion` cuenta como una petición pendiente suya; los de la dirección
    y los de todo el proceso tienen además su propio tope (`MAX_SIN_LEER_POR_DIRECCION`, `MAX_SIN_LEER_TOTAL`).
    """
    pesado = PESADOS.get(fn.concurrency_id)
    with _cerrojo:
        eventos = list(_eventos(cola))
        sin_leer_aqui = sin_leer(cola)
        suyos = sum(1 for s in sin_leer_aqui.values() if sesion and s == sesion)
        mias = suyos + sum(1 for ev in eventos if _identidad_del_evento(cola, ev) == identidad)
        if mias >= MAX_POR_SESION:
            if suyos:
                return (), (
                    f"Tienes {suyos} resultados sin leer en esta página (y {mias - suyos} peticiones esperando); "
                    "recarga la página o espera un momento antes de pedir más."
                )
            return (), (
                f"Ya tienes {mias} peticiones esperando en esta página; espera a que terminen antes de pedir más."
            )
        de_ahi = sum(1 for ev in eventos if cola._direcciones.get(id_de_evento(ev)) == desde)
        if de_ahi >= MAX_POR_DIRECCION:
            return (), f"Desde tu red hay {de_ahi} peticiones esperando en esta página; prueba en un momento."
        todos, de_ahi = 0, 0
        for otra in list(_colas):
            ids = sin_leer_aqui if otra is cola else sin_leer(otra)
            todos += len(ids)
            de_ahi += sum(1 for e in ids if otra._direcciones.get(e) == desde)
        if de_ahi >= MAX_SIN_LEER_POR_DIRECCION:
            return (), (
                f"Desde tu red hay {de_ahi} resultados que nadie leyó; prueba en un momento "
                "(o recarga la página, que los lee)."
            )
        if todos >= MAX_SIN_LEER_TOTAL:
            return (), f"Hay {todos} resultados que nadie leyó en el servidor; prueba en un momento."
        if pesado is None:
            return _reservar_carril(fn, real) if lento else ((), None)
        de_su_red = f"{fn.concurrency_id}@{desde}"
        en_cola, en_su_red, mio = _reservas[fn.concurrency_id], _reservas[de_su_red], None
        for otra, ev in _todos():
            if ev.fn.concurrency_id in PESADOS:
                igual = ev.fn.concurrency_id == fn.concurrency_id
                en_cola += igual
                en_su_red += igual and otra._direcciones.get(id_de_evento(ev)) == desde
                if otra is cola and _identidad_del_evento(cola, ev) == identidad:
                    mio = PESADOS[ev.fn.concurrency_id]
        if mio is None and _reservas[identidad]:
            mio = pesado
        if mio is not None:
            return (), f"Ya tienes {mio.uno} en curso; espera a que termine antes de pedir otro."
        if en_su_red >= pesado.por_direccion:
            return (), (
                f"Desde tu red hay {en_su_red} {pesado.varios} en cola; espera a que termine uno antes de pedir otro."
            )
        if en_cola >= pesado.tope:
            return (), f"Hay {en_cola} {pesado.varios} en cola; prueba en un momento."
        _reservas[fn.concurrency_id] += 1
        _reservas[de_su_red] += 1
        _reservas[identidad] += 1
        return (fn.concurrency_id, de_su_red, identidad), None


def _reservar_carril(fn, real: bool) -> tuple[tuple[str, ...], str | None]:
    """El presupuesto de las lentas (con el cerrojo tomado), contando lo que hay en cada carril y lo reservado.

    La de una sesión real: `LENTOS_POR_TIPO` en el carril de su evento y `LENTOS_TOTAL` entre los carriles de
    la página. La de otra: `LENTOS_SIN_PAGINA` en el carril compartido, que no gasta el presupuesto de la página.
    """
    en = Counter(ev.concurrency_id for _, ev in _todos() if str(ev.concurrency_id).startswith(PREFIJO_CARRIL))
    en.update({k: n for k, n in _reservas.items() if k.startswith(PREFIJO_CARRIL)})
    suyo = carril(fn) if real else CARRIL_SIN_PAGINA
    de_la_pagina = sum(n for k, n in en.items() if k != CARRIL_SIN_PAGINA)
    motivo = None
    if not real and en[suyo] >= LENTOS_SIN_PAGINA:
        motivo = (
            f"Hay {en[suyo]} cálculos grandes en cola pedidos sin abrir la página; ábrela (o recárgala), "
            "o prueba en un momento con valores más chicos."
        )
    elif real and en[suyo] >= LENTOS_POR_TIPO:
        nombre = fn.api_name or fn.name
        motivo = (
            f"Hay {en[suyo]} cálculos grandes en cola en «{nombre}»; prueba en un momento o con valores más chicos."
        )
    elif real and de_la_pagina >= LENTOS_TOTAL:
        motivo = f"Hay {de_la_pagina} cálculos grandes en cola; prueba en un momento o con valores más chicos."
    if motivo:
        return (), motivo
    _reservas[suyo] += 1
    return (suyo,), None


def _en_cola_por_red(cola, concurrency_id: str) -> Callable[[object], int]:
    """Para `adelantar`: cuántos pesados de ese tipo tiene en cola (en todo el proceso) la red de un evento."""
    with _cerrojo:
        por_red = Counter(
            otra._direcciones.get(id_de_evento(ev)) for otra, ev in _todos() if ev.fn.concurrency_id == concurrency_id
        )
    return lambda ev: por_red[cola._direcciones.get(id_de_evento(ev))]


def _liberar(claves: tuple[str, ...]) -> None:
    with _cerrojo:
        for k in claves:
            _reservas[k] -= 1
            if _reservas[k] <= 0:
                del _reservas[k]


def _push_repartido(cola, push_de_gradio):
    async def push(body, request, username):
        fn = cola.blocks.fns.get(body.fn_index) if isinstance(body.fn_index, int) else None
        if fn is None:  # Gradio crearía la sesión y contestaría 500 con una traza
            log.info("Petición rechazada en queue/join: no hay un evento %s", str(body.fn_index)[:20])
            raise HTTPException(status_code=404, detail="No hay un evento con ese número en esta página.")
        identidad, desde = _identidad(body, request), direccion(request)
        lento = fn.concurrency_id not in PESADOS and costo(fn, body.data) >= LENTO_DESDE
        origen = procedencia(cola.blocks, body.session_hash, request.headers.get(CABECERA), desde)
        if fn.api_visibility == "private" and origen is None:
            nombre = fn.api_name or fn.name
            log.info("Petición rechazada en queue/join: %s es privado y la sesión no viene de la página", nombre)
            raise HTTPException(status_code=ESTADO_PRIVADO, detail=SOLO_LA_PAGINA)
        real = origen == REAL
        if getattr(fn.fn, "pide_paradas", False) and barrido.TALLER.agotada(body.session_hash or ""):
            log.info("Petición rechazada en %s (%s): sin saldo de paradas", fn.api_name or fn.name, identidad[:14])
            raise HTTPException(status_code=ESTADO_RECHAZO, detail=SIN_SALDO_DE_PARADAS)
        cola._bucle = _barrendero_en_marcha()
        _barrer_sin_leer()
        claves, motivo = motivo_de_rechazo(cola, fn, identidad, desde, lento, real, body.session_hash)
        if motivo:
            log.info("Petición rechazada en %s (%s): %s", fn.api_name or fn.name, identidad[:14], motivo)
            raise HTTPException(status_code=ESTADO_RECHAZO, detail=motivo)
        try:
            ok, resultado, estado = await push_de_gradio(body=body, request=request, username=username)
            if ok and isinstance(resultado, str):
                cola._identidades[resultado] = identidad
                cola._direcciones[resultado] = desde
                if lento:  # sin esperar nada desde que Gradio la puso en la fila de su evento
                    mover_a_carril(cola, resultado, claves[0])  # el carril que se le reservó
                elif fn.concurrency_id in PESADOS:  # delante de los que esperan de una red con más en cola
                    adelantar(cola, resultado, _en_cola_por_red(cola, fn.concurrency_id))
                _olvidar_terminados(cola)
        finally:
            _liberar(claves)
        if not ok and estado == "queue_full":
            log.warning("Cola llena en %s: %d peticiones en espera", fn.api_name or fn.name, len(cola))
            raise HTTPException(
                status_code=ESTADO_RECHAZO,
                detail=f"La cola está llena ({len(cola)} peticiones esperando); prueba en un momento.",
            )
        return ok, resultado, estado

    return push


def _olvidar_terminados(cola) -> None:
    """Las identidades de eventos que Gradio ya olvidó (terminados y leídos, o cancelados) se borran."""
    en_curso = vivos(cola)
    if len(cola._identidades) > 2 * len(en_curso) + 16:
        abiertos = en_curso | set(sin_leer(cola))
        for evento_id in [k for k in cola._identidades if k not in abiertos]:
            cola._identidades.pop(evento_id, None)
            cola._direcciones.pop(evento_id, None)


_ultimo_barrido: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # bucle de eventos -> su último barrido


def _barrer_sin_leer(ahora: float | None = None) -> int:
    """Suelta los resultados que nadie leyó en `VIDA_SIN_LEER_S` (en todas las colas; a lo sumo una vez por
    `BARRER_SIN_LEER_CADA_S`). Corre en el bucle de eventos, como la cola de Gradio. Devuelve cuántos soltó."""
    ahora = time.monotonic() if ahora is None else ahora
    try:
        bucle = asyncio.get_running_loop()
    except RuntimeError:
        bucle = None
    if bucle is not None:
        if ahora - _ultimo_barrido.get(bucle, -math.inf) < BARRER_SIN_LEER_CADA_S:
            return 0
        _ultimo_barrido[bucle] = ahora
    soltados = 0
    with _cerrojo:
        for cola in list(_colas):
            if bucle is not None and getattr(cola, "_bucle", bucle) is not bucle:
                continue  # la cola de otro servidor (en las pruebas): la barre su propio bucle
            ids = sin_leer(cola)
            desde = cola._sin_leer_desde
            for evento in [e for e in desde if e not in ids]:
                del desde[evento]
            vencidos = {}
            for evento, sesion in ids.items():
                if ahora - desde.setdefault(evento, ahora) >= VIDA_SIN_LEER_S:
                    vencidos[evento] = sesion
            if vencidos:
                mensajes = soltar_sin_leer(cola, vencidos)
                soltados += len(vencidos)
                for evento in vencidos:
                    desde.pop(evento, None)
                    cola._identidades.pop(evento, None)
                    cola._direcciones.pop(evento, None)
                log.info("Se soltaron %d resultados que nadie leyó (%d mensajes)", len(vencidos), mensajes)
    return soltados


_barrenderos: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # bucle de eventos -> su tarea


def _barrendero_en_marcha():
    """Una tarea `barrer_sin_leer_siempre` en el bucle de eventos que sirve (una por bucle); devuelve el bucle."""
    bucle = asyncio.get_running_loop()
    tarea = _barrenderos.get(bucle)
    if tarea is None or tarea.done():
        _barrenderos[bucle] = bucle.create_task(barrer_sin_leer_siempre())
    return bucle


async def barrer_sin_leer_siempre(cada_s: float = BARRER_SIN_LEER_CADA_S) -> None:
    """`_barrer_sin_leer` cada `cada_s`, aunque no llegue ninguna petición (una tarea del bucle de eventos)."""
    while True:
        await asyncio.sleep(cada_s)
        try:
            _barrer_sin_leer()
        except Exception:
            log.exception("Falló el barrido de los resultados sin leer")
