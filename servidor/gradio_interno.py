"""Las partes privadas de Gradio que usa el servidor, todas aquí (probadas con `VERSION_PROBADA`).

Gradio no da un modo público de acotar lo que cuesta una sesión, ni de poner una guardia
delante de una de sus rutas. Lo que el kit de las pestañas toca (la página que se arma, el `_id` de un bloque,
`GradioModel`, la carpeta de subidas, los trozos del lienzo) vive en demos/comun/gradio_interno.py, que las
pestañas pueden importar y este módulo reexporta. Lo que este módulo toca de Gradio, y nada más:

- `gradio.state_holder.StateHolder` / `SessionState`: cada `session_hash` nuevo (lo inventa el
  cliente) crea un `SessionState` que calcula al instante la configuración de cada bloque de la
  página (≈ 0.5 MB y ≈ 0.1 s de CPU en el bucle de eventos para la suite), y Gradio guarda hasta
  10 000. `Sesiones` las crea baratas (`SesionBarata`: esa configuración se calcula solo si se
  pide, y no copia ahí el último valor de cada entrada y salida) y guarda pocas, desalojando la más
  vieja que nunca fue real (servidor/admision.py) y llamando al `delete_callback` de sus `gr.State`,
  que Gradio no llama al desalojar.
- La app de Gradio montada (`Mount.app`, un FastAPI): `poner_delante` le añade un middleware
  antes de su primera petición (las guardias de servidor/laterales.py).
- `gr.ImageEditor.blob_storage`: `guardar_trozos_en` cambia el dict donde `accept_blobs` deja los trozos de un
  dibujo por uno acotado (servidor/laterales.py).
- El montaje: `Blocks.has_launched` (`marcar_lanzado`: lo que `launch()` marca y `mount_gradio_app` no; sin eso
  `processing_utils._check_allowed` acepta cualquier ruta), `_check_allowed` mismo (`acepta_ruta_ajena`, el candado
  que se prueba al montar), `Blocks.validate_inputs` (`revisar_antes`: servidor/entradas.py mira los valores crudos
  antes que Gradio), los eventos de arranque y el contexto de vida de un montaje hecho con la app ya andando
  (`arrancar_montaje`, servidor/asgi.py) y `Blocks.custom_mount_path` (`ruta_de_montaje`, servidor/pagina.py).
- La página: el guion `window.gradio_api_info = ` de la plantilla `index.html` (`GUION_API_INFO`), donde
  servidor/pagina.py pone la raíz de los ejemplos de código.
- `gradio.context.LocalContext.request`: `peticion_actual`, el pedido del evento que corre (el taller de
  paradas reparte por su sesión y su dirección sin cambiar la firma de `recalcular`).
- La cola (`Blocks._queue`, `gradio.queueing.Queue`): `cola_de` la da; `envolver_push` pone la admisión
  (servidor/admision.py) delante de `Queue.push`, por donde entra todo `queue/join`; `eventos` recorre lo que espera
  o corre (`Event`: `_id`, `fn`, `session_hash`, `concurrency_id`; `id_de_evento`). Sus filas por `concurrency_id`:
  `mover_a_carril` pasa una llamada lenta a la fila de su carril y `adelantar` pone un pesado delante
  de los de una red con más en cola (servidor/admision.py). Y los
  mensajes que guarda hasta que alguien lee el flujo de una sesión (`pending_messages_per_session`,
  `pending_event_ids_session`): `sin_leer` cuenta los resultados que nadie leyó y `soltar_sin_leer`
  los olvida (los topes y el plazo, en servidor/admision.py).
- Los trozos del frontend instalado (`gradio/templates/frontend/assets/`): `trozos_corregidos` arregla
  un error de la lista del desplegable (servidor/laterales.py los sirve así). Las figuras no tocan nada de
  Gradio: son un `gr.HTML` con el Plotly.js oficial (demos/comun/figuras/componente.py).

tests/test_seguridad_interno.py falla si una versión de Gradio cambia algo de esto.
"""

from __future__ import annotations

import collections
import datetime
import logging
import os
import re
import weakref
from collections.abc import Iterator
from copy import copy
from functools import cache
from pathlib import Path

import gradio as gr
from gradio import processing_utils
from gradio.context import LocalContext
from gradio.exceptions import InvalidPathError
from gradio.queueing import EventQueue
from gradio.state_holder import SessionState, StateHolder
from starlette.routing import Mount

from demos.comun.gradio_interno import (  # la puerta del kit, reexportada
    VERSION_PROBADA,
    GradioModel,
    carpeta_de_subidas,
    id_de,
    pagina_en_construccion,
    trozos_del_lienzo,
)

__all__ = [
    "VERSION_PROBADA",
    "GradioModel",
    "carpeta_de_subidas",
    "id_de",
    "pagina_en_construccion",
    "trozos_del_lienzo",
]

log = logging.getLogger("atencion.sesiones")


# --- el montaje ---------------------------------------------------------------------------------


def marcar_lanzado(blocks: gr.Blocks) -> None:
    """Lo que `launch()` marca y `gr.mount_gradio_app` no: con eso `_check_allowed` deja de saltarse."""
    blocks.has_launched = True


def acepta_ruta_ajena(blocks: gr.Blocks, ruta: str) -> bool:
    """Si Gradio aceptaría `ruta` (que nadie subió) como un archivo subido a `blocks`."""
    marca = LocalContext.blocks.set(blocks)
    try:
        processing_utils._check_allowed(ruta, True)
    except InvalidPathError:
        return False
    finally:
        LocalContext.blocks.reset(marca)
    return True


def revisar_antes(blocks: gr.Blocks, revisar) -> None:
    """`revisar(block_fn, inputs)` antes de `Blocks.validate_inputs`, lo primero que Gradio hace con los valores
    crudos de un evento (una vez por Blocks)."""
    if getattr(blocks, "_revisado", False):
        return
    validar_de_gradio = blocks.validate_inputs

    def validate_inputs(block_fn, inputs):
        revisar(block_fn, inputs)
        return validar_de_gradio(block_fn, inputs)

    blocks.validate_inputs = validate_inputs
    blocks._revisado = True


async def arrancar_montaje(vidas, app_gradio) -> None:
    """Lo que Gradio hace al arrancar la app, para un montaje hecho con la app ya andando: su contexto de vida
    (el que borra sus archivos con `delete_cache`) entra en `vidas` (un `AsyncExitStack`) y su cola arranca."""
    await vidas.enter_async_context(app_gradio.router.lifespan_context(app_gradio))
    app_gradio.get_blocks().run_startup_events()
    await app_gradio.get_blocks().run_extra_startup_events()


def ruta_de_montaje(blocks: gr.Blocks) -> str | None:
    """La ruta con la que `gr.mount_gradio_app` montó `blocks` (None si no se montó)."""
    return getattr(blocks, "custom_mount_path", None)


# En el HTML de la página, la información del API (sus ejemplos de código), en este guion de la plantilla.
GUION_API_INFO = (b"<script>window.gradio_api_info = ", b"</script>")


def guardar_trozos_en(editor: gr.ImageEditor, almacen: type[dict]) -> None:
    """Cambia el dict de los trozos de dibujo del lienzo por un `almacen()` (una vez)."""
    if not isinstance(editor.blob_storage, almacen):
        editor.blob_storage = almacen()


def app_de_gradio(app, blocks: gr.Blocks):
    """La app de Gradio que `gr.mount_gradio_app` montó en `app` para `blocks`."""
    for ruta in reversed(app.router.routes):
        if isinstance(ruta, Mount) and getattr(ruta.app, "get_blocks", None) and ruta.app.get_blocks() is blocks:
            return ruta.app
    raise RuntimeError("No se encontró el montaje de Gradio de este Blocks (¿cambió gr.mount_gradio_app?).")


# --- sesiones ----------------------------------------------------------------------------------


class SesionBarata(SessionState):
    """Un `SessionState` que no calcula la configuración de cada bloque al crearse.

    Gradio la usa solo para los enlaces profundos (`components`) y para anotar los cambios de
    un bloque; aquí se calcula al pedirla, bloque por bloque, con el mismo resultado.
    """

    def __init__(self, blocks: gr.Blocks):  # sin super(): su __init__ es justo lo caro
        self.blocks_config = copy(blocks.default_config)
        self._ids_iniciales = tuple(k for k in self.blocks_config.blocks if k in blocks.blocks)
        self.config_values = {}
        self.state_data = {}
        self._state_ttl = {}
        self.is_closed = False
        self.STATE_TTL_WHEN_CLOSED = 1 if os.getenv("GRADIO_IS_E2E_TEST", None) else 3600

    @property
    def components(self) -> Iterator[dict]:
        for k in self._ids_iniciales:
            if k not in self.config_values:
                self.config_values[k] = self.blocks_config.config_for_block(k, [], self.blocks_config.blocks[k])
        for config in self.config_values.values():
            if config:
                yield config

    # Gradio copia en `config_values` el último valor de cada entrada y de cada salida de la sesión (para los
    # enlaces profundos, que esta app apaga: servidor/laterales.py). Los paquetes de paradas son salidas
    # (`gr.JSON`): ≈ 7 MB por sesión que editó, hasta 256 sesiones por montaje. La sesión barata no copia
    # valores: guarda lo que Gradio lee después (el bloque con sus props actualizadas y los `gr.State`), y su
    # configuración sale del bloque, con el valor inicial, si alguien la pide.

    def __setitem__(self, key: int, value) -> None:
        block = self.blocks_config.blocks.get(key)
        if isinstance(block, gr.State):
            self._state_ttl[key] = (block.time_to_live, datetime.datetime.now())
            self.state_data[key] = value
        else:
            self.blocks_config.blocks[key] = value
        self.config_values.pop(key, None)

    def _update_config(self, key: int) -> None:
        self.config_values.pop(key, None)

    def _update_value_in_config(self, key: int, value) -> None:
        return None


class Sesiones(StateHolder):
    """El `state_holder` de un montaje: sesiones baratas, a lo sumo `capacidad`, y ninguna eterna.

    Pasada la capacidad se desaloja la menos usada de las que nunca fueron reales (las que no
    abrió una carga de la página, `hacer_real`); si todas lo son, la menos usada de la red con más. Una sesión sin
    uso por `vida_s` se borra (el barrido de Gradio, cada segundo). En los dos casos se llama el
    `delete_callback` de cada `gr.State` de la sesión (así un modelo entrenado se suelta), cosa que
    Gradio no hace al desalojar.
    """

    def __init__(self, capacidad: int, vida_s: float):
        super().__init__()
        self.capacidad, self.vida_s = capacidad, vida_s
        self.reales: collections.OrderedDict[str, str] = collections.OrderedDict()  # sesión -> su dirección
        self._reales_por_red: collections.Counter = collections.Counter()

    def hacer_real(self, session_id: str, direccion: str = "") -> None:
        """La sesión es real (y se recuerda su dirección). Pasadas `4 × capacidad`, se olvida la menos usada de la red
        con más sesiones reales: quien abre miles de páginas desde una red olvida las suyas, no las de la clase."""
        with self.lock:
            if session_id in self.reales:
                self.reales.move_to_end(session_id)
                return
            self.reales[session_id] = direccion
            self._reales_por_red[direccion] += 1
            while len(self.reales) > 4 * self.capacidad:
                red = self._reales_por_red.most_common(1)[0][0]
                self._olvidar_real(next(s for s, d in self.reales.items() if d == red))

    def _olvidar_real(self, session_id: str) -> None:
        red = self.reales.pop(session_id, None)
        if red is not None:
            self._reales_por_red[red] -= 1
            if self._reales_por_red[red] <= 0:
                del self._reales_por_red[red]

    def usar_real(self, session_id: str) -> bool:
        """Si la sesión es real, la marca como recién usada (no se olvida mientras se use) y devuelve True."""
        with self.lock:
            if session_id not in self.reales:
                return False
            self.reales.move_to_end(session_id)
            return True

    def es_real(self, session_id: str) -> bool:
        return session_id in self.reales

    def _desalojable(self, excepto: str) -> str:
        """La menos usada de las que nunca fueron reales (sin contar `excepto`); si todas lo son, la menos usada de la
        red con más sesiones guardadas."""
        sin_pagina = next((s for s in self.session_data if s not in self.reales and s != excepto), None)
        if sin_pagina is not None:
            return sin_pagina
        por_red = collections.Counter(self.reales.get(s) for s in self.session_data if s != excepto)
        red = por_red.most_common(1)[0][0] if por_red else None
        return next(
            (s for s in self.session_data if s != excepto and self.reales.get(s) == red), next(iter(self.session_data))
        )

    def set_blocks(self, blocks: gr.Blocks) -> None:
        super().set_blocks(blocks)
        self.capacity = self.capacidad

    def __getitem__(self, session_id: str) -> SessionState:
        desalojadas = []
        with self.lock:
            sesion = self.session_data.get(session_id)
            if sesion is None:
                sesion = self.session_data[session_id] = SesionBarata(self.blocks)
            self.session_data.move_to_end(session_id)
            self.time_last_used[session_id] = datetime.datetime.now()
            while len(self.session_data) > self.capacidad:
                viejo = self._desalojable(session_id)
                desalojadas.append(self.session_data.pop(viejo))
                self.time_last_used.pop(viejo, None)
        for estado in desalojadas:
            _soltar(estado)
        return sesion

    def update(self, session_id: str) -> None:  # lo hace __getitem__
        return None

    def delete_all_expired_state(self) -> None:
        super().delete_all_expired_state()
        limite = datetime.datetime.now() - datetime.timedelta(seconds=self.vida_s)
        with self.lock:
            viejas = [s for s, t in self.time_last_used.items() if t < limite]
            estados = [self.session_data.pop(s, None) for s in viejas]
            for s in viejas:
                self.time_last_used.pop(s, None)
                self._olvidar_real(s)
        for estado in estados:
            if estado is not None:
                _soltar(estado)


def _soltar(estado: SessionState) -> None:
    """El `delete_callback` de cada `gr.State` de una sesión que se va."""
    for componente, valor, _ in list(estado.state_components):
        try:
            componente.delete_callback(valor)
        except Exception:
            log.exception("Falló el delete_callback de un gr.State")
    estado.state_data.clear()


_SESIONES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Blocks -> Sesiones de su montaje


def instalar_sesiones(app_gradio, capacidad: int, vida_s: float) -> Sesiones:
    """Cambia el `state_holder` de un montaje recién hecho por `Sesiones` (antes de la primera petición)."""
    ya = app_gradio.state_holder
    if isinstance(ya, Sesiones):
        return ya
    sesiones = Sesiones(capacidad, vida_s)
    sesiones.set_blocks(app_gradio.get_blocks())
    app_gradio.state_holder = sesiones
    _SESIONES[app_gradio.get_blocks()] = sesiones
    return sesiones


def sesiones_de(blocks: gr.Blocks) -> Sesiones | None:
    """Las `Sesiones` del montaje de `blocks` (None si no se montó con `instalar_sesiones`)."""
    return _SESIONES.get(blocks)


# --- rutas -------------------------------------------------------------------------------------


def poner_delante(app_gradio, middleware, **opciones) -> None:
    """Un middleware ASGI delante de las rutas de la app de Gradio (antes de su primera petición)."""
    if any(m.cls is middleware for m in app_gradio.user_middleware):
        return
    app_gradio.add_middleware(middleware, **opciones)


def cola_de(blocks: gr.Blocks):
    """La cola de Gradio de `blocks` (la que crea `Blocks.queue`), o None."""
    return blocks._queue


def envolver_push(cola, envolver) -> None:
    """`cola.push = envolver(cola.push)`: todo `queue/join` pasa por ahí (`push(body=, request=, username=)`)."""
    cola.push = envolver(cola.push)


def eventos(cola) -> Iterator:
    """Los eventos de `cola` (`gradio.queueing.Event`), esperando en sus filas o corriendo."""
    for fila in list(cola.event_queue_per_concurrency_id.values()):
        yield from list(fila.queue)
    for trabajo in list(cola.active_jobs):
        yield from trabajo or ()


def id_de_evento(evento) -> str:
    """El id de un evento de la cola (el `event_id` que recibe el cliente)."""
    return evento._id


def mover_a_carril(cola, evento_id: str, carril: str) -> bool:
    """Saca un evento recién puesto en la fila de su evento y lo pone en la fila `carril` (de a uno).

    Gradio elige la fila por `Event.concurrency_id` al sacarlo y al terminarlo: basta con cambiarlo
    y moverlo. Sin `await` en medio: el bucle de la cola no lo ve a medio mover. False si ya corría.
    """
    evento = cola.event_ids_to_events.get(evento_id)
    fila = cola.event_queue_per_concurrency_id.get(getattr(evento, "concurrency_id", None))
    if evento is None or fila is None or evento not in fila.queue:
        return False
    if carril not in cola.event_queue_per_concurrency_id:
        cola.event_queue_per_concurrency_id[carril] = EventQueue(carril, 1)
    fila.queue.remove(evento)
    evento.concurrency_id = carril
    cola.event_queue_per_concurrency_id[carril].queue.append(evento)
    return True


# --- los resultados sin leer ------------------------------------------------------------------------
#
# Gradio deja cada mensaje de un evento (con sus salidas) en `pending_messages_per_session[sesión]`, una
# `asyncio.Queue`, hasta que alguien lee el flujo de esa sesión (`/queue/data`, o `/call/<nombre>/<id>`);
# el id del evento queda en `pending_event_ids_session[sesión]` hasta que el lector entrega su
# `process_completed`. Un evento terminado (fuera de `event_ids_to_events`) cuyo id sigue ahí es un
# resultado que nadie leyó: ocupa memoria y Gradio no lo suelta nunca (salvo que la sesión salga de su
# LRU de 2000). Todo lo que se toca de eso, aquí; los topes y el plazo, en servidor/admision.py.


def vivos(cola) -> set[str]:
    """Los ids de los eventos de `cola` esperando o corriendo."""
    return set(cola.event_ids_to_events)


def sin_leer(cola) -> dict[str, str]:
    """{id de evento: sesión} de los eventos terminados de `cola` cuyo mensaje final nadie leyó."""
    activos = cola.event_ids_to_events
    return {
        evento: sesion
        for sesion, ids in list(cola.pending_event_ids_session.items())
        for evento in list(ids)
        if evento not in activos
    }


def soltar_sin_leer(cola, eventos: dict[str, str]) -> int:
    """Olvida los resultados `eventos` ({id: sesión}): sus ids y sus mensajes. Devuelve los mensajes soltados.

    Se llama en el bucle de eventos (como Gradio, sin `await` en medio). Una sesión que no tiene nada más
    pendiente pierde su cola de mensajes entera; si no, se quitan solo los mensajes de esos eventos.
    """
    por_sesion: dict[str, set[str]] = collections.defaultdict(set)
    for evento, sesion in eventos.items():
        por_sesion[sesion].add(evento)
    soltados = 0
    for sesion, ids in por_sesion.items():
        pendientes = cola.pending_event_ids_session.get(sesion)
        if pendientes is not None:
            pendientes -= ids
            if not pendientes:
                cola.pending_event_ids_session.pop(sesion, None)
        mensajes = cola.pending_messages_per_session.get(sesion)
        if mensajes is None:
            continue
        if sesion not in cola.pending_event_ids_session:
            soltados += mensajes.qsize()
            cola.pending_messages_per_session.pop(sesion, None)
            continue
        quedan = []
        while not mensajes.empty():
            m = mensajes.get_nowait()
            if getattr(m, "event_id", None) in ids:
                soltados += 1
            else:
                quedan.append(m)
        for m in quedan:
            mensajes.put_nowait(m)
    return soltados


def adelantar(cola, evento_id: str, en_cola_de_su_red) -> bool:
    """Pone un evento recién encolado delante de los que esperan en su fila y cuya red (`en_cola_de_su_red(evento)`:
    cuántos tiene en cola) tiene más que la suya: cada red tiene su fila corta y se turnan. Sin `await` en medio.
    False si ya corría o no había a quién pasar."""
    evento = cola.event_ids_to_events.get(evento_id)
    fila = cola.event_queue_per_concurrency_id.get(getattr(evento, "concurrency_id", None))
    if evento is None or fila is None or evento not in fila.queue:
        return False
    suyo = en_cola_de_su_red(evento)
    i = next((k for k, otro in enumerate(fila.queue) if otro is not evento and en_cola_de_su_red(otro) > suyo), None)
    if i is None or i > fila.queue.index(evento):
        return False
    fila.queue.remove(evento)
    fila.queue.insert(i, evento)
    return True


def peticion_actual():
    """El `gr.Request` del evento que corre en este hilo (Gradio lo pone en `LocalContext.request` antes de cada
    llamada y de cada paso de un generador), o None fuera de un evento. Para el reparto del taller de paradas."""
    return LocalContext.request.get(None)


def editores(blocks: gr.Blocks) -> dict[int, gr.ImageEditor]:
    """Los lienzos (`gr.ImageEditor` y sus hijas) de la página, por id de bloque."""
    return {k: b for k, b in blocks.blocks.items() if isinstance(b, gr.ImageEditor)}


# --- el frontend ---------------------------------------------------------------------------------

TROZOS = Path(gr.__file__).parent / "templates" / "frontend" / "assets"

# La lista abierta de un gr.Dropdown (DropdownOptions) dibuja `choices[i][0]` por cada índice de
# `filtered_indices`, y Gradio 6.31 rehace esos índices en un `$effect`, después de dibujar: si llegan
# opciones nuevas más cortas con la lista abierta (las palabras de otra frase en el clasificador), un
# índice viejo no tiene opción y la página lanza «Cannot read properties of undefined (reading '0')»
# en medio del dibujo. `?.[0]`: esa fila sale vacía un instante y el efecto la quita.
_OPCION_VIEJA = re.compile(rb"(\b\w+\.choices\[\w+\(\w+\)\])\[0\]")
_DE_LA_LISTA = b"filtered_indices"
CORRECCIONES_ESPERADAS = 2  # las dos filas del `{#each}` de DropdownOptions en 6.31.0: aria-label y texto


@cache
def trozos_corregidos(trozos: Path = TROZOS) -> dict[str, bytes]:
    """{nombre del archivo de `trozos`: su JS corregido}: los trozos del frontend con el error de la lista.

    Sin los que no se encuentran tal cual (otra versión de Gradio): esos se sirven sin tocar.
    """
    return _listas_corregidas(trozos)


def _listas_corregidas(trozos: Path) -> dict[str, bytes]:
    corregidos = {}
    for trozo in sorted(trozos.glob("Index-*.js")):
        js = trozo.read_bytes()
        if _DE_LA_LISTA not in js:
            continue
        nuevo, n = _OPCION_VIEJA.subn(rb"\1?.[0]", js)
        if n:
            corregidos[trozo.name] = nuevo
    if not corregidos:
        log.warning("No se encontró la lista del desplegable en %s: se sirve sin corregir", trozos)
    return corregidos
