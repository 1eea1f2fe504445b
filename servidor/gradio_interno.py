"""Las partes privadas de Gradio que usa el servidor, todas aquí (probadas con `VERSION_PROBADA`).

Gradio no da un modo público de acotar lo que cuesta una sesión, ni de poner una guardia
delante de una de sus rutas. Lo que este módulo toca de Gradio, y nada más:

- `gradio.state_holder.StateHolder` / `SessionState`: cada `session_hash` nuevo (lo inventa el
  cliente) crea un `SessionState` que calcula al instante la configuración de cada bloque de la
  página (≈ 0.5 MB y ≈ 0.1 s de CPU en el bucle de eventos para la suite), y Gradio guarda hasta
  10 000. `Sesiones` las crea baratas (`SesionBarata`: esa configuración se calcula solo si se
  pide) y guarda pocas, desalojando la más vieja que nunca fue real (servidor/paginas.py) y
  llamando al `delete_callback` de sus `gr.State`, que Gradio no llama al desalojar.
- La app de Gradio montada (`Mount.app`, un FastAPI): `poner_delante` le añade un middleware
  antes de su primera petición (las guardias de servidor/laterales.py).
- `gr.ImageEditor.blob_storage`: el dict donde `accept_blobs` deja los trozos de un dibujo.
- La cola (`gradio.queueing.Queue`: sus filas por `concurrency_id` y `Event.concurrency_id`):
  `mover_a_carril` pasa una llamada lenta a la fila de su carril (servidor/reparto.py).
- Los trozos del frontend instalado (`gradio/templates/frontend/assets/`): `modulos_del_plot` lee
  qué archivos importa la página para montar un `gr.Plot` con Plotly (el de Plotly.js pesa 4.6 MB y
  Gradio lo pide recién al montar la primera figura), y `precarga_del_plot` los pide en la cabecera;
  `trozos_corregidos` arregla un error de la lista del desplegable y deja que Plotly.js registre solo las
  trazas de la suite (`plotly_con_trazas`), sin los módulos que entonces nada llama (`sin_modulos_muertos`);
  servidor/laterales.py los sirve.

tests/test_seguridad_interno.py falla si una versión de Gradio cambia algo de esto.
"""

from __future__ import annotations

import collections
import datetime
import logging
import os
import re
import threading
import weakref
from collections.abc import Iterator
from copy import copy
from functools import cache
from pathlib import Path

import gradio as gr
from gradio.queueing import EventQueue
from gradio.state_holder import SessionState, StateHolder
from starlette.routing import Mount

log = logging.getLogger("atencion.sesiones")

VERSION_PROBADA = "6.31.0"


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


class Sesiones(StateHolder):
    """El `state_holder` de un montaje: sesiones baratas, a lo sumo `capacidad`, y ninguna eterna.

    Pasada la capacidad se desaloja la menos usada de las que nunca fueron reales (las que no
    abrió una carga de la página, `hacer_real`); si todas lo son, la menos usada. Una sesión sin
    uso por `vida_s` se borra (el barrido de Gradio, cada segundo). En los dos casos se llama el
    `delete_callback` de cada `gr.State` de la sesión (así un modelo entrenado se suelta), cosa que
    Gradio no hace al desalojar.
    """

    def __init__(self, capacidad: int, vida_s: float):
        super().__init__()
        self.capacidad, self.vida_s = capacidad, vida_s
        self.reales: collections.OrderedDict[str, None] = collections.OrderedDict()

    def hacer_real(self, session_id: str) -> None:
        with self.lock:
            self.reales[session_id] = None
            self.reales.move_to_end(session_id)
            while len(self.reales) > 4 * self.capacidad:
                self.reales.popitem(last=False)

    def es_real(self, session_id: str) -> bool:
        return session_id in self.reales

    def _desalojable(self, excepto: str) -> str:
        """La menos usada de las que nunca fueron reales (sin contar `excepto`); si todas lo son, la menos usada."""
        return next(
            (s for s in self.session_data if s not in self.reales and s != excepto), next(iter(self.session_data))
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
                self.reales.pop(s, None)
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


def mover_a_carril(cola, evento_id: str, carril: str, limite: int = 1) -> bool:
    """Saca un evento recién puesto en la fila de su evento y lo pone en la fila `carril` (de a `limite`).

    Gradio elige la fila por `Event.concurrency_id` al sacarlo y al terminarlo: basta con cambiarlo
    y moverlo. Sin `await` en medio: el bucle de la cola no lo ve a medio mover. False si ya corría.
    """
    evento = cola.event_ids_to_events.get(evento_id)
    fila = cola.event_queue_per_concurrency_id.get(getattr(evento, "concurrency_id", None))
    if evento is None or fila is None or evento not in fila.queue:
        return False
    if carril not in cola.event_queue_per_concurrency_id:
        cola.event_queue_per_concurrency_id[carril] = EventQueue(carril, limite)
    fila.queue.remove(evento)
    evento.concurrency_id = carril
    cola.event_queue_per_concurrency_id[carril].queue.append(evento)
    return True


def editores(blocks: gr.Blocks) -> dict[int, gr.ImageEditor]:
    """Los lienzos (`gr.ImageEditor` y sus hijas) de la página, por id de bloque."""
    return {k: b for k, b in blocks.blocks.items() if isinstance(b, gr.ImageEditor)}


# --- el frontend ---------------------------------------------------------------------------------

TROZOS = Path(gr.__file__).parent / "templates" / "frontend" / "assets"

# En el mapa de componentes del frontend (core-*.js): `plot:{base:()=>v(()=>import(`./Plot-….js`),…),
# component:()=>v(()=>import(`./Index-….js`),…)`; en Plot-….js, `plotly:()=>d(()=>import(`./PlotlyPlot-….js`),…)`.
_IMPORTA = r"\(\)=>\w+\(\(\)=>import\(`\./([\w.-]+\.js)`\)"
_PLOT = re.compile(r"\bplot:\{base:" + _IMPORTA + r"[^}]*?component:" + _IMPORTA)
_PLOTLY = re.compile(r"\bplotly:" + _IMPORTA)


@cache
def modulos_del_plot(trozos: Path = TROZOS) -> tuple[str, ...]:
    """Los archivos de `trozos` que la página importa para dibujar un `gr.Plot` de Plotly, el más pesado primero.

    (Plotly.js, la figura, el componente), leídos del frontend instalado; () si no se encuentran (con
    otra versión de Gradio): la página anda igual, solo que pide Plotly.js al montar la figura.
    """
    for mapa in sorted(trozos.glob("core-*.js")):
        hallado = _PLOT.search(mapa.read_text(encoding="utf-8", errors="replace"))
        if hallado is None:
            continue
        base, componente = hallado.groups()
        plotly = _PLOTLY.search((trozos / base).read_text(encoding="utf-8", errors="replace"))
        nombres = (plotly.group(1),) if plotly else ()
        nombres += (base, componente)
        if all((trozos / n).is_file() for n in nombres):
            return nombres
    log.warning("No se encontraron los trozos del gr.Plot en %s: la página no los precarga", trozos)
    return ()


def precarga_del_plot() -> str:
    """Para el `<head>`: un `modulepreload` por archivo de `modulos_del_plot`, relativos a la página como los de Gradio.

    `crossorigin` como los `modulepreload` que pone Vite (el frontend) al importar: el mismo pedido, una vez.
    """
    return "".join(f'<link rel="modulepreload" crossorigin href="./assets/{n}">' for n in modulos_del_plot())


# La lista abierta de un gr.Dropdown (DropdownOptions) dibuja `choices[i][0]` por cada índice de
# `filtered_indices`, y Gradio 6.31 rehace esos índices en un `$effect`, después de dibujar: si llegan
# opciones nuevas más cortas con la lista abierta (las palabras de otra frase en el clasificador), un
# índice viejo no tiene opción y la página lanza «Cannot read properties of undefined (reading '0')»
# en medio del dibujo. `?.[0]`: esa fila sale vacía un instante y el efecto la quita.
_OPCION_VIEJA = re.compile(rb"(\b\w+\.choices\[\w+\(\w+\)\])\[0\]")
_DE_LA_LISTA = b"filtered_indices"
CORRECCIONES_ESPERADAS = 2  # las dos filas del `{#each}` de DropdownOptions en 6.31.0: aria-label y texto


_cerrojo_trozos = threading.Lock()


def trozos_corregidos(trozos: Path = TROZOS) -> dict[str, bytes]:
    """{nombre del archivo de `trozos`: su JS corregido}: los trozos del frontend con el error de la lista y el
    de Plotly.js con las trazas de la suite (`plotly_recortado`).

    Sin los que no se encuentran tal cual (otra versión de Gradio): esos se sirven sin tocar. Se arman una vez
    (≈ 0.5 s de CPU; `calentar_trozos` lo hace al montar, en un hilo): quien los pide mientras tanto, espera.
    """
    with _cerrojo_trozos:
        return _trozos_corregidos(trozos)


@cache
def _trozos_corregidos(trozos: Path) -> dict[str, bytes]:
    return {**_listas_corregidas(trozos), **plotly_recortado(trozos)}


@cache
def calentar_trozos() -> threading.Thread:
    """Arma `trozos_corregidos()` en un hilo (una vez por proceso): la primera página no lo espera."""
    hilo = threading.Thread(target=trozos_corregidos, name="trozos-corregidos", daemon=True)
    hilo.start()
    return hilo


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


# Plotly.js entero registra, al evaluarse, sus 48 tipos de traza y los calendarios: `<x>.register([co(),So(),…])`
# al final de su paquete, donde cada `co()` evalúa (una vez, perezoso) el módulo de un tipo. La suite dibuja
# cuatro (`TRAZAS_PLOTLY`; scatter viene con el núcleo): registrar solo esos le ahorra a cada página ≈ 150–220 ms
# de evaluar el trozo en 2 núcleos (BENCHMARKS.md). Cada elemento de la lista es `co=h((e,t)=>{t.exports=so()})`
# y el módulo `so` del tipo lleva `moduleType:`trace`,name:`bar``.
_REGISTRO = re.compile(rb"\b[\w$]+\.register\(\[((?:[\w$]+\(\),)*[\w$]+\(\))\]\)")
_PEREZOSO = re.compile(rb"[,;{ ]([\w$]+)=[\w$]+\((?:\(\w*(?:,\w+)?\)|\w+)=>\{")
_REEXPORTA = re.compile(rb"\w+\.exports=([\w$]+)\(\)\}\)[,;]?")
_TRAZA = re.compile(rb"moduleType:[`\"']trace[`\"'],name:[`\"'](\w+)[`\"']")


def _modulos(js: bytes) -> dict[bytes, bytes]:
    """{nombre: cuerpo} de los módulos perezosos del paquete (`nombre=h((e,t)=>{cuerpo`, hasta el siguiente)."""
    inicios = [(m.group(1), m.start(), m.end()) for m in _PEREZOSO.finditer(js)]
    fines = [s for _, s, _ in inicios[1:]] + [len(js)]
    return {nombre: js[fin_cabeza:fin] for (nombre, _, fin_cabeza), fin in zip(inicios, fines, strict=True)}


def _traza_registrada(modulos: dict[bytes, bytes], elemento: bytes) -> str | None:
    """El tipo de traza que registra `elemento` (`co()`) de la lista de `register`, o None si no es una traza."""
    cuerpo = modulos.get(elemento[:-2], b"")
    if reexporta := _REEXPORTA.fullmatch(cuerpo):  # `co` solo reexporta el módulo del tipo
        cuerpo = modulos.get(reexporta.group(1), b"")
    tipo = _TRAZA.search(cuerpo)
    return tipo.group(1).decode() if tipo else None


def plotly_con_trazas(js: bytes, trazas: frozenset[str]) -> bytes | None:
    """El paquete de Plotly.js `js` registrando solo las `trazas` (las demás no se evalúan), o None si no se
    reconoce la lista de `register` o falta alguna de las `trazas` que no vienen con el núcleo."""
    registros = list(_REGISTRO.finditer(js))
    if not registros:
        return None
    lista = registros[-1]  # la del paquete entero; las de antes son del núcleo (scatter y los componentes)
    elementos, modulos = lista.group(1).split(b","), _modulos(js)
    tipos = [_traza_registrada(modulos, e) for e in elementos]
    quedan = [e for e, t in zip(elementos, tipos, strict=True) if t in trazas]
    if sorted(t for t in tipos if t in trazas) != sorted(trazas - {"scatter"}):
        return None
    inicio, fin = lista.span(1)
    return js[:inicio] + b",".join(quedan) + js[fin:]


# --- Plotly.js sin los módulos que nada llama -------------------------------------------------------
# Con la lista de `register` recortada, la mayor parte del paquete queda sin quien la llame: maplibre y mapbox-gl
# (≈ 1.5 MB), regl y lo de WebGL, d3-geo… V8 igual la lee entera antes de evaluar (≈ 75 % del trozo). Cada módulo
# perezoso es `X=h((e,t)=>{cuerpo})` y se usa solo llamándolo, `X()`: desde lo que queda fuera de los módulos, se
# siguen las llamadas a módulos; los que no se alcanzan quedan con el cuerpo vacío. Solo se vacía un módulo cuyo
# cuerpo termina justo donde empieza el siguiente (`}),Y=h(`): si entre dos hay otro código, o si la lectura de
# llaves no llega ahí (una expresión regular que no se reconoce), ese módulo se deja entero.
_PALABRA_ANTES_DE_VALOR = re.compile(
    rb"(?:return|typeof|case|do|else|in|of|new|delete|void|throw|instanceof|yield|await)"
)
_INTERES = re.compile(rb"[{}()\[\]\"'`/]")
_CADENA = {ord('"'): re.compile(rb'"(?:[^"\\\n]|\\.)*"'), ord("'"): re.compile(rb"'(?:[^'\\\n]|\\.)*'")}
_PLANTILLA = re.compile(rb"(?:[^`\\$]|\\.|\$(?!\{))*", re.S)  # hasta el ` que la cierra o un ${
_EXPRESION_REGULAR = re.compile(rb"/(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[a-z]*")
_PAR = {ord("{"): ord("}"), ord("("): ord(")"), ord("["): ord("]")}
_LLAMADA = re.compile(rb"(?<![\w$.])([\w$]+)\(\)")


def _division(js: bytes, i: int) -> bool:
    """Si la `/` en `i` divide (viene tras un valor) en vez de abrir una expresión regular."""
    antes = js[max(0, i - 64) : i].rstrip()[-16:]  # minificado: sin espacios largos
    if not antes:
        return False
    if antes[-1:].isalnum() or antes[-1:] in b"_$":
        palabra = re.search(rb"[\w$]+$", antes).group()
        return not _PALABRA_ANTES_DE_VALOR.fullmatch(palabra)
    return antes[-1:] in b")]}\"'`"


def _tras_plantilla(js: bytes, i: int, pila: list[int]) -> int | None:
    """Desde dentro de una plantilla: la posición tras su ` de cierre, o tras un `${` (que queda en `pila`)."""
    fin = _PLANTILLA.match(js, i).end()
    if js[fin : fin + 1] == b"`":
        return fin + 1
    if js[fin : fin + 2] == b"${":
        pila.append(ord("$"))
        return fin + 2
    return None


def _cierre(js: bytes, i: int) -> int | None:
    """La posición del `}` que cierra el `{` de `i` en el JS minificado `js`, o None si no se entiende.

    Salta cadenas, plantillas (con sus `${…}`), comentarios y expresiones regulares (una `/` que no viene tras
    un valor)."""
    pila: list[int] = []
    while hallado := _INTERES.search(js, i):
        i, c = hallado.start(), js[hallado.start()]
        if c in _PAR:
            pila.append(c)
            i += 1
        elif c in b")]}":
            if not pila:
                return None
            abre = pila.pop()
            if abre == ord("$") and c == ord("}"):  # fin de un ${…}: sigue la plantilla
                i = _tras_plantilla(js, i + 1, pila)
            elif abre in _PAR and _PAR[abre] == c:
                if not pila:
                    return i
                i += 1
            else:
                return None
        elif c in _CADENA:
            cadena = _CADENA[c].match(js, i)
            i = cadena.end() if cadena else None
        elif c == ord("`"):
            i = _tras_plantilla(js, i + 1, pila)
        elif js[i + 1 : i + 2] in (b"/", b"*"):  # comentario
            fin = js.find(b"\n" if js[i + 1] == ord("/") else b"*/", i + 2)
            i = None if fin < 0 else fin + 2
        elif _division(js, i):
            i += 1
        else:
            regex = _EXPRESION_REGULAR.match(js, i)
            i = regex.end() if regex else None
        if i is None:
            return None
    return None


def _cuerpos_limpios(js: bytes, fin: int) -> dict[bytes, tuple[int, int]]:
    """{nombre: (inicio, fin) de su cuerpo} de los módulos perezosos de `js[:fin]` que terminan donde empieza el
    siguiente (el último, en `fin`) sin otro código entre ambos."""
    cabezas = [(m.group(1), m.end(), m.start()) for m in _PEREZOSO.finditer(js, 0, fin)]
    limpios = {}
    for (nombre, inicio, _), (_, _, siguiente) in zip(cabezas, [*cabezas[1:], (b"", 0, fin)], strict=True):
        cierre = _cierre(js, inicio - 1)
        if cierre is not None and js[cierre : cierre + 2] == b"})" and not js[cierre + 2 : siguiente].strip(b",;"):
            limpios[nombre] = (inicio, cierre)
    return limpios


def sin_modulos_muertos(js: bytes) -> bytes:
    """`js` (el paquete de Plotly.js) con vacíos los cuerpos de los módulos que ninguna llamada alcanza."""
    registros = list(_REGISTRO.finditer(js))
    if not registros:
        return js
    cola = js.rfind(b"return ", 0, registros[-1].start())  # lo del final: registra y devuelve Plotly
    cuerpos = _cuerpos_limpios(js, cola if cola > 0 else len(js))
    fuera = bytearray(js)
    for inicio, fin in cuerpos.values():
        fuera[inicio:fin] = bytes(fin - inicio)
    alcanzados: set[bytes] = set()
    pendientes = [n for n in _LLAMADA.findall(fuera) if n in cuerpos]
    while pendientes:
        nombre = pendientes.pop()
        if nombre not in alcanzados:
            alcanzados.add(nombre)
            pendientes.extend(n for n in _LLAMADA.findall(js, *cuerpos[nombre]) if n in cuerpos)
    partes, desde = [], 0
    for inicio, fin in sorted(v for n, v in cuerpos.items() if n not in alcanzados):
        partes.append(js[desde:inicio])
        desde = fin
    return b"".join([*partes, js[desde:]])


def plotly_recortado(trozos: Path = TROZOS) -> dict[str, bytes]:
    """{el trozo de Plotly.js del frontend: registrando solo `TRAZAS_PLOTLY` y sin los módulos que entonces nada
    llama}, o {} si no se reconoce la lista de trazas."""
    from demos.comun.figuras.pantalla import TRAZAS_PLOTLY

    nombre = next((n for n in modulos_del_plot(trozos) if n.startswith("PlotlyPlot-")), None)
    recortado = plotly_con_trazas((trozos / nombre).read_bytes(), TRAZAS_PLOTLY) if nombre else None
    if recortado is None:
        log.warning("No se reconoció la lista de trazas de Plotly.js en %s: se sirve entero", trozos)
        return {}
    return {nombre: sin_modulos_muertos(recortado)}
