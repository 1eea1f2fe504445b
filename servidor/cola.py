"""La cola de Gradio, con tamaños explícitos y un reparto justo del trabajo pesado.

Cada montaje (la suite y cada /demo/<id>/) tiene su cola. Los números, todos aquí:

- `MAX_COLA` peticiones en espera por cola (el `max_size` de Gradio); `MAX_POR_SESION` de una
  misma sesión (o, sin sesión, de una misma dirección), así una sola no la llena.
- Los eventos ligeros corren de a `LIMITE_LIGERO` a la vez, cada uno con su propio
  `concurrency_id` (el de Gradio por omisión): ninguno espera detrás de otro evento.
- Los pesados (`PESADOS`: entrenar, medir, preparar descargas) declaran su `concurrency_id`
  con límite 1, y además: a lo sumo uno pendiente por sesión y `Pesado.tope` pendientes en todo
  el proceso (sumando las colas de todos los montajes). El que sobra recibe al instante
  «Hay N entrenamientos en cola; prueba en un momento.»

Un evento privado (`api_visibility="private"`: abrir una pestaña, preparar las descargas, los
entrenamientos del laboratorio) solo lo llama una sesión que viene de la página
(`paginas.de_la_pagina`: su token en la cabecera `x-atencion-pagina`); otra recibe 403 en español.

Gradio contesta «Queue is full» con un 503, y su página muestra entonces «This application is
currently busy», en inglés. Aquí toda negativa sale antes, con 429 y el motivo en español, que
la página muestra tal cual. Con `api_open=False`, los eventos con cola no se pueden llamar por
las rutas que se la saltan (`/gradio_api/run/...`).
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections import Counter
from dataclasses import dataclass

import gradio as gr
from fastapi import HTTPException

from servidor import paginas
from servidor.gradio_interno import mover_a_carril
from servidor.reparto import (
    CARRIL_SIN_PAGINA,
    LENTO_DESDE,
    LENTOS_POR_TIPO,
    LENTOS_SIN_PAGINA,
    LENTOS_TOTAL,
    MAX_POR_DIRECCION,
    PREFIJO_CARRIL,
    carril,
    costo,
    direccion,
)

log = logging.getLogger("atencion.cola")

MAX_COLA = 128
MAX_POR_SESION = 8
LIMITE_LIGERO = 4
ESTADO_RECHAZO = 429  # con 503 la página de Gradio mostraría su mensaje en inglés
ESTADO_PRIVADO = 403
SOLO_LA_PAGINA = "Este evento solo lo llama la página de la app: ábrela (o recárgala) y prueba de nuevo."


@dataclass(frozen=True)
class Pesado:
    uno: str  # «un entrenamiento»
    varios: str  # «entrenamientos»
    tope: int = 4  # pendientes (corriendo o en espera) en todo el proceso


PESADOS: dict[str, Pesado] = {
    "entrenar": Pesado("un entrenamiento", "entrenamientos"),
    "medir": Pesado("una medición", "mediciones"),
    "descargas": Pesado("una descarga", "descargas"),
}

# Tras cada evento, Gradio rehace con pandas el resumen de sus últimos 10 000 eventos (para su
# panel de monitoreo, que aquí no se usa): ≈ 55 ms de CPU por evento con la cola llena de historia,
# lo que a 30 eventos/s se come un núcleo. Se rehace cada 100 eventos, sobre los últimos 2000.
# Gradio lee estas variables al crear cada cola: este módulo se importa antes de armar la app.
os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "100")
os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", "2000")

_colas: weakref.WeakSet = weakref.WeakSet()  # las colas configuradas del proceso
_reservas: Counter = Counter()  # pesados aceptados que aún no entraron a su cola
_cerrojo = threading.Lock()


def configurar_cola(blocks: gr.Blocks, max_size: int = MAX_COLA) -> gr.Blocks:
    """La cola de `blocks` con los tamaños de arriba y el reparto (una vez por Blocks).

    Si ya está configurada con ese `max_size`, no se rehace: `Blocks.queue` crea otra cola y otra app.
    """
    ya = blocks._queue
    if getattr(ya, "_repartida", False) and ya.max_size == max_size and ya in _colas:
        return blocks
    blocks.queue(default_concurrency_limit=LIMITE_LIGERO, max_size=max_size, api_open=False)
    cola = blocks._queue
    if not getattr(cola, "_repartida", False):
        cola.push = _push_repartido(cola, cola.push)
        cola._repartida = True
        cola._identidades = {}
        cola._direcciones = {}
    _colas.add(cola)
    return blocks


def _identidad(body, request) -> str:
    """La sesión de la página; sin ella (`/gradio_api/call/...`), la dirección del cliente."""
    if body.session_hash:
        return f"s:{body.session_hash}"
    return f"ip:{direccion(request)}"


def _eventos(cola):
    """Los eventos de `cola`, esperando o corriendo."""
    for fila in list(cola.event_queue_per_concurrency_id.values()):
        yield from list(fila.queue)
    for trabajo in list(cola.active_jobs):
        yield from trabajo or ()


def pendientes(concurrency_id: str) -> int:
    """Eventos con ese `concurrency_id` esperando o corriendo, en todas las colas del proceso."""
    with _cerrojo:
        return sum(ev.fn.concurrency_id == concurrency_id for c in list(_colas) for ev in _eventos(c))


def _identidad_del_evento(cola, evento) -> str:
    return cola._identidades.get(evento._id) or f"s:{evento.session_hash}"


def motivo_de_rechazo(
    cola, fn, identidad: str, desde: str = "", lento: bool = False, real: bool = True
) -> tuple[tuple[str, ...], str | None]:
    """(claves de reserva, motivo en español o None). Cuenta y reserva bajo un cerrojo, sin esperar.

    `desde` es la dirección del visitante (`reparto.direccion`) y `lento`, si la llamada es lenta
    (`reparto.costo`): va a su carril, con el presupuesto de lentas por tipo y en total. Una lenta
    de una sesión que no es real (`paginas.sesion_real`) va al carril compartido de las que llegan
    sin página, con su propio presupuesto chico: no gasta el de los visitantes de la página.
    """
    pesado = PESADOS.get(fn.concurrency_id)
    with _cerrojo:
        eventos = list(_eventos(cola))
        mias = sum(1 for ev in eventos if _identidad_del_evento(cola, ev) == identidad)
        if mias >= MAX_POR_SESION:
            return (), (
                f"Ya tienes {mias} peticiones esperando en esta página; espera a que terminen antes de pedir más."
            )
        de_ahi = sum(1 for ev in eventos if cola._direcciones.get(ev._id) == desde) if desde else 0
        if de_ahi >= MAX_POR_DIRECCION:
            return (), f"Desde tu red hay {de_ahi} peticiones esperando en esta página; prueba en un momento."
        if lento and pesado is None:
            return _reservar_lenta(fn) if real else _reservar_sin_pagina()
        if pesado is None:
            return (), None
        pendientes, mio = _reservas[fn.concurrency_id], None
        for otra in list(_colas):
            for ev in _eventos(otra):
                if ev.fn.concurrency_id in PESADOS:
                    pendientes += ev.fn.concurrency_id == fn.concurrency_id
                    if otra is cola and _identidad_del_evento(cola, ev) == identidad:
                        mio = PESADOS[ev.fn.concurrency_id]
        if mio is None and _reservas[identidad]:
            mio = pesado
        if mio is not None:
            return (), f"Ya tienes {mio.uno} en curso; espera a que termine antes de pedir otro."
        if pendientes >= pesado.tope:
            return (), f"Hay {pendientes} {pesado.varios} en cola; prueba en un momento."
        _reservas[fn.concurrency_id] += 1
        _reservas[identidad] += 1
        return (fn.concurrency_id, identidad), None


def _reservar_lenta(fn) -> tuple[tuple[str, ...], str | None]:
    """El presupuesto de las llamadas lentas (con el cerrojo tomado): por tipo de evento y en total."""
    suyo = carril(fn)
    lentas = Counter(ev.concurrency_id for c in list(_colas) for ev in _eventos(c) if _es_lenta(ev.concurrency_id))
    lentas.update({k: n for k, n in _reservas.items() if _es_lenta(k)})
    nombre = fn.api_name or fn.name
    if lentas[suyo] >= LENTOS_POR_TIPO or sum(lentas.values()) >= LENTOS_TOTAL:
        return (), (
            f"Hay {lentas[suyo] if lentas[suyo] >= LENTOS_POR_TIPO else sum(lentas.values())} cálculos grandes "
            f"en cola{f' en «{nombre}»' if lentas[suyo] >= LENTOS_POR_TIPO else ''}; "
            "prueba en un momento o con valores más chicos."
        )
    _reservas[suyo] += 1
    return (suyo,), None


def _reservar_sin_pagina() -> tuple[tuple[str, ...], str | None]:
    """El presupuesto de las lentas que llegan sin página (con el cerrojo tomado), en todo el proceso."""
    n = sum(ev.concurrency_id == CARRIL_SIN_PAGINA for c in list(_colas) for ev in _eventos(c))
    n += _reservas[CARRIL_SIN_PAGINA]
    if n >= LENTOS_SIN_PAGINA:
        return (), (
            f"Hay {n} cálculos grandes en cola pedidos sin abrir la página; ábrela (o recárgala), "
            "o prueba en un momento con valores más chicos."
        )
    _reservas[CARRIL_SIN_PAGINA] += 1
    return (CARRIL_SIN_PAGINA,), None


def _es_lenta(concurrency_id) -> bool:
    """Una lenta de la página (las que llegan sin página tienen su propio presupuesto)."""
    return (
        isinstance(concurrency_id, str)
        and concurrency_id.startswith(PREFIJO_CARRIL)
        and concurrency_id != CARRIL_SIN_PAGINA
    )


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
        token = request.headers.get(paginas.CABECERA)
        real = paginas.sesion_real(cola.blocks, body.session_hash, token)
        if fn.api_visibility == "private" and not (real or paginas.de_la_pagina(cola.blocks, body.session_hash, token)):
            nombre = fn.api_name or fn.name
            log.info("Petición rechazada en queue/join: %s es privado y la sesión no viene de la página", nombre)
            raise HTTPException(status_code=ESTADO_PRIVADO, detail=SOLO_LA_PAGINA)
        claves, motivo = motivo_de_rechazo(cola, fn, identidad, desde, lento, real)
        if motivo:
            log.info("Petición rechazada en %s (%s): %s", fn.api_name or fn.name, identidad[:14], motivo)
            raise HTTPException(status_code=ESTADO_RECHAZO, detail=motivo)
        try:
            ok, resultado, estado = await push_de_gradio(body=body, request=request, username=username)
            if ok and isinstance(resultado, str):
                cola._identidades[resultado] = identidad
                cola._direcciones[resultado] = desde
                if lento:  # sin esperar nada desde que Gradio la puso en la fila de su evento
                    mover_a_carril(cola, resultado, carril(fn) if real else CARRIL_SIN_PAGINA)
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
    """Las identidades de eventos que Gradio ya olvidó (terminados o cancelados) se borran."""
    vivos = cola.event_ids_to_events
    if len(cola._identidades) > 2 * len(vivos) + 16:
        for evento_id in [k for k in cola._identidades if k not in vivos]:
            cola._identidades.pop(evento_id, None)
            cola._direcciones.pop(evento_id, None)
