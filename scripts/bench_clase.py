"""La clase como carga: 30 estudiantes moviendo controles a la vez.

    python scripts/bench.py --solo clase
    python scripts/bench.py --solo mezcla

«clase»: cada estudiante elige una pestaña y, cada 0.2–0.6 s, manda valores nuevos (al azar, en
su rango, o entre los que da la página: la d de escalado sale de su deslizador de log₂ d) de todos
sus deslizadores y números, como un navegador: POST a
`/gradio_api/call/<api>`, luego el flujo de eventos por GET, y baja los archivos que la respuesta
nombre por la misma conexión abierta. Los mismos estudiantes repiten contra un endpoint vacío en la
misma corrida: la razón entre ambos es lo que cuesta cada pestaña. Lo que se siente en el
navegador está en scripts/bench_navegador.py.

Desde el barrido (#36), la página ya no manda los movimientos de un control barrido (arrastrarlo no
va al servidor): en «clase», esos movimientos son llamadas directas al API público, que sigue
contestando una vista; sirve de tope (todos los controles movidos a la vez, cada 0.2–0.6 s), no de
retrato de la clase. «mezcla» es la clase de ahora: arrastres que no mandan nada y, cada 3–5 s, una
edición de otra entrada, que es un evento privado (el que la página manda: `queue/join` con su
`fn_index` y el token de la página) que calcula la vista y después las paradas de todos los
barridos; se mide cuándo llega cada una.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from scripts.medir import VACIA, Servidor, ms, percentil, puerto_libre, tabla


def _por_omision(url: str) -> dict[str, list]:
    """Los valores por omisión de cada parámetro de cada endpoint público, según /gradio_api/info."""
    import httpx

    info = httpx.get(url + "gradio_api/info", timeout=30).json()["named_endpoints"]
    return {api.lstrip("/"): [p.get("parameter_default") for p in e["parameters"]] for api, e in info.items()}


def _controles(vista) -> list[tuple[int, float, float, float]]:
    """(posición del parámetro, mínimo, máximo, paso) de cada deslizador y número con rango."""
    import gradio as gr

    salida = []
    for i, c in enumerate(vista.entradas):
        if isinstance(c, gr.Slider | gr.Number) and c.minimum is not None and c.maximum is not None:
            salida.append((i, float(c.minimum), float(c.maximum), float(getattr(c, "step", None) or 1)))
    return salida


def _valor(azar: random.Random, lo: float, hi: float, paso: float) -> float:
    pasos = round((hi - lo) / paso)
    return round(lo + azar.randint(0, pasos) * paso, 9)


class Rechazo(Exception):
    """Valores al azar que la pestaña no admite (p. ej. d que no se divide entre las cabezas)."""


def _ofrecidos(pestana, vista) -> dict[int, tuple]:
    """{posición del parámetro: los valores que la página ofrece} de los controles que no se mueven por su rejilla.

    La d de escalado es un número de 1 a 4096, pero lo que se mueve es el deslizador de log₂ d (paso 0.5), que la
    escribe en el navegador: da 25 valores, de media ≈ 560 (los botones dan tres de ellos). Sortearla pareja en
    1..4096 (media ≈ 2 050) cobraría a escalado ≈ 2× lo que cuesta en clase: su cálculo es proporcional a d
    (sortea (1000 + claves)·d números). Escribir otra d a mano se puede, pero no es mover un control.
    """
    if pestana.id == "escalado":
        from demos.escalado import d_del_deslizador

        return {next(i for i, c in enumerate(vista.entradas) if c is vista.url["d"]): d_del_deslizador()}
    return {}


def datos_al_azar(pestana, vista, base: list):
    """`hacer(azar)`: los datos de una llamada a la pestaña, los de `base` (los de omisión) con valores nuevos al azar
    en cada control numérico (en su rejilla, o entre los que ofrece la página: `_ofrecidos`) y, en la inversión de
    dígitos, ocho dígitos al azar."""
    controles, ofrecidos = _controles(vista), _ofrecidos(pestana, vista)

    def hacer(azar: random.Random) -> list:
        datos = list(base)
        for i, lo, hi, paso in controles:
            datos[i] = azar.choice(ofrecidos[i]) if i in ofrecidos else _valor(azar, lo, hi, paso)
        if pestana.id == "inversion-digitos":  # su control principal es un texto: ocho dígitos al azar
            datos[0] = " ".join(str(azar.randint(0, 9)) for _ in range(8))
        return datos

    return hacer


def _token_de_la_pagina(http, url: str) -> str | None:
    """El token que la página servida trae (servidor/admision.py) y manda en cada evento, como el navegador.

    Sin él, el servidor trata al estudiante como un cliente sin página (presupuesto chico de lentas).
    La página de referencia (Gradio pelado) no lo trae: None.
    """
    cabeza = http.get(f"{url}config").json().get("head") or ""
    m = re.search(r'const token = "([^"_][^"]*)"', cabeza)  # sin servir, el guion trae la marca «__…»
    return m.group(1) if m else None


def _llamar(http, url: str, api: str, datos: list, sesion: str, token: str | None = None) -> int:
    """Una llamada por el protocolo de la cola, como el navegador; devuelve los bytes recibidos.

    Cada estudiante lleva su sesión y el token de su página, como una pestaña del navegador: la
    cola reparte por sesión.
    """
    cabeceras = {"x-atencion-pagina": token} if token else {}  # servidor.admision.CABECERA
    r = http.post(f"{url}gradio_api/call/{api}", json={"data": datos, "session_hash": sesion}, headers=cabeceras)
    r.raise_for_status()
    evento = r.json()["event_id"]
    cuerpo = http.get(f"{url}gradio_api/call/{api}/{evento}").text
    if "event: error" in cuerpo:  # la función rechazó la entrada (con su mensaje): también es una respuesta
        raise Rechazo(cuerpo[-300:])
    if "event: complete" not in cuerpo:
        raise RuntimeError(cuerpo[-300:])
    total = len(r.content) + len(cuerpo)
    datos = json.loads(cuerpo.split("event: complete\ndata:", 1)[1].strip().splitlines()[0])
    for archivo in _urls(datos):
        total += len(http.get(archivo).content)
    return total


def _urls(valor) -> list[str]:
    if isinstance(valor, dict):
        return [valor["url"]] if isinstance(valor.get("url"), str) else [u for v in valor.values() for u in _urls(v)]
    if isinstance(valor, list):
        return [u for v in valor for u in _urls(v)]
    return []


def _motivo(e: Exception) -> str:
    """Lo que la tabla dice de un error: el código HTTP (429: lo rechazó el reparto) o el tipo."""
    respuesta = getattr(e, "response", None)
    return str(respuesta.status_code) if respuesta is not None else type(e).__name__


def _errores(r: dict) -> str:
    motivos = ", ".join(f"{m} × {n}" for m, n in r["motivos"].most_common())
    return f"{r['errores']} ({motivos})" if r["errores"] else "0"


def _sala(url: str, tareas: list[tuple[str, callable]], segundos: float, al_empezar=None) -> dict[str, dict]:
    """Cada tarea (pestaña, hacer_datos) es un estudiante; devuelve tiempos, bytes y errores por pestaña.

    Todos abren su página (el token) antes de que corra el reloj: pedir la configuración cuesta
    ≈ 0.2 s de CPU del servidor por estudiante, una vez, y no es el costo de mover un control.
    `al_empezar` se llama cuando empieza a correr (p. ej. para grabar el perfil).
    """
    import httpx

    res: dict[str, dict] = defaultdict(
        lambda: {"t": [], "b": [], "errores": 0, "motivos": Counter(), "rechazos": 0, "estudiantes": 0}
    )
    cerrojo = threading.Lock()
    fin: list[float] = []

    def empezar() -> None:
        fin.append(time.perf_counter() + segundos)
        if al_empezar:
            al_empezar()

    todos_abrieron = threading.Barrier(len(tareas), action=empezar)

    def estudiante(k: int, api: str, hacer_datos) -> None:
        azar = random.Random(k)
        sesion = f"estudiante{k:02d}{azar.getrandbits(32):08x}"
        with httpx.Client(timeout=120) as http:
            token = _token_de_la_pagina(http, url)  # abrir la página
            todos_abrieron.wait()
            time.sleep(azar.uniform(0, 0.6))  # no todos a la vez al empezar
            while time.perf_counter() < fin[0]:
                t = time.perf_counter()
                try:
                    b = _llamar(http, url, api, hacer_datos(azar), sesion, token)
                    with cerrojo:
                        res[api]["t"].append(time.perf_counter() - t)
                        res[api]["b"].append(b)
                except Rechazo:
                    with cerrojo:
                        res[api]["t"].append(time.perf_counter() - t)
                        res[api]["b"].append(0)
                        res[api]["rechazos"] += 1
                except Exception as e:
                    with cerrojo:
                        res[api]["errores"] += 1
                        res[api]["motivos"][_motivo(e)] += 1
                time.sleep(azar.uniform(0.2, 0.6))

    hilos = []
    for k, (api, hacer_datos) in enumerate(tareas):
        res[api]["estudiantes"] += 1
        hilos.append(threading.Thread(target=estudiante, args=(k, api, hacer_datos)))
    for h in hilos:
        h.start()
    for h in hilos:
        h.join()
    return res


def _calentar(url: str, tareas: list[tuple[str, callable]]) -> float:
    """Una llamada a cada pestaña antes de la sala (lo que paga el primer estudiante que la abre).

    La primera llamada de un proceso importa lo que falta (matplotlib, que Gradio importa alrededor
    de cada función; sklearn, para los dígitos…): en 2 núcleos cargados, decenas de segundos que
    no son el costo por evento. Devuelve los segundos que tardó, que la tabla muestra aparte.
    """
    import httpx

    t = time.perf_counter()
    with httpx.Client(timeout=300) as http:
        for api, hacer in dict(tareas).items():
            with contextlib.suppress(Rechazo):
                _llamar(http, url, api, hacer(random.Random(0)), "calentar")
    return time.perf_counter() - t


def _grabar(pid: int, segundos: float) -> subprocess.Popen | None:
    """Con BENCH_CLASE_PY_SPY=<archivo>, py-spy graba el servidor `segundos` (pilas plegadas, 50 Hz).

    El archivo (formato «raw» de py-spy: una pila por línea con su cuenta de muestras) es lo que
    `reparto_del_perfil` reparte por pestaña y por capa:
    `python -c "from scripts.bench_clase import reparto_del_perfil as r; r('<archivo>')"`.
    """
    destino = os.environ.get("BENCH_CLASE_PY_SPY")
    if not destino:
        return None
    espia = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    orden = [espia, "record", "--pid", str(pid), "--rate", "50", "--format", "raw", "--output", destino]
    return subprocess.Popen([*orden, "--duration", str(round(segundos)), "--nonblocking"], stdout=subprocess.DEVNULL)


_PESTANA = re.compile(r"\(demos/(?!comun/|servir/)([a-z_]+)[/.]")


# (capa, prefijos del archivo del marco): la capa de una muestra es la del marco más interno que cae en una;
# los de la biblioteca estándar, numpy o PIL cuentan para quien los llamó.
def lineas_de_telefono() -> tuple[str, ...]:
    """Los marcos de `figura_plotly` que arman la variante de teléfono (las líneas que llaman a `pantalla_angosta`),
    como los escribe py-spy. Leídas del código: escritas a mano (72–74) quedaron apuntando a `_dominios`."""
    from demos.comun.figuras import pantalla

    fuente, inicio = inspect.getsourcelines(pantalla.figura_plotly)
    return tuple(
        f"demos/comun/figuras/pantalla.py:{inicio + k})" for k, linea in enumerate(fuente) if "angosta." in linea
    )


_CAPAS = (
    ("variante de teléfono", lineas_de_telefono()),
    ("json", ("json/", "orjson")),
    ("figura (ancha)", ("demos/comun/figuras/",)),
    ("cálculo de la pestaña", ("torch/", "modelos/", "demos/")),
    ("/config (abrir la página)", ("gradio/routes.py:1201)",)),
    ("servidor/", ("servidor/",)),
    ("Gradio/anyio", ("gradio/", "gradio_client/", "anyio/", "pydantic", "fastapi/")),
    ("starlette/uvicorn", ("starlette/", "uvicorn/", "h11/", "httptools/", "asyncio/", "selectors")),
)


# Hilos que esperan (el de anyio sin trabajo, el bucle de eventos en epoll): py-spy con --nonblocking
# a veces los cuenta como activos. No son CPU: la tabla los deja fuera.
_ESPERAS = ("Condition.wait (threading.py:", "EpollSelector.select (selectors.py:", "_read_from_self (asyncio/")


def _capa(marcos: list[str]) -> str:
    for capa, prefijos in _CAPAS[:1] + _CAPAS[4:5]:  # las que se reconocen por la línea que llama
        if any(m.endswith(prefijos) for m in marcos):
            return capa
    for m in reversed(marcos):
        archivo = m[m.rfind("(") + 1 :]
        for capa, prefijos in _CAPAS:
            if archivo.startswith(prefijos):
                return capa
    return "otros"


def reparto_del_perfil(archivo: str | Path) -> str:
    """La tabla de un perfil de la clase (BENCH_CLASE_PY_SPY): % de las muestras por pestaña y por capa.

    La pestaña de una muestra es la del marco `demos/<pestaña>` de su pila; lo que corre después de que
    la pestaña devolvió (armar sus figuras en `demos/comun/vista.py`, Gradio, la respuesta) no lleva la
    pestaña en la pila y va en la fila «(común)».
    """
    por: dict[str, Counter] = defaultdict(Counter)
    for linea in Path(archivo).read_text(encoding="utf-8").splitlines():
        pila, _, n = linea.rpartition(" ")
        if pila.rsplit(";", 1)[-1].startswith(_ESPERAS):
            continue
        m = _PESTANA.search(pila)
        por[m.group(1).replace("_", "-") if m else "(común)"][_capa(pila.split(";"))] += int(n)
    total = sum(sum(c.values()) for c in por.values())
    capas = [c for c, _ in sum(por.values(), Counter()).most_common()]
    filas = [
        [p, f"{100 * sum(c.values()) / total:.1f}", *(f"{100 * c[k] / total:.1f}" if c[k] else "" for k in capas)]
        for p, c in sorted(por.items(), key=lambda pc: -sum(pc[1].values()))
    ]
    titulo = f"Perfil de la clase: % de {total:,} muestras de CPU (py-spy, 50 Hz; sin los hilos que esperan)"
    return tabla(titulo, ["", "todo", *capas], filas)


COLUMNAS = [
    "pestaña",
    "estudiantes",
    "respuestas/s",
    "p50",
    "p95",
    "kB/resp.",
    "p50 / vacío",
    "ritmo / vacío",
    "errores",
    "rechazadas",
]


def clase(estudiantes: int = 30, segundos: float = 40) -> str:
    import app as suite
    from demos import PESTANAS

    p_app, p_vacia = puerto_libre(), puerto_libre()
    servidor = Servidor(["app.py", "--port", str(p_app)], p_app)
    vacia = Servidor(["-c", VACIA, str(p_vacia)], p_vacia)
    try:
        servidor.esperar()
        vacia.esperar()
        omision = _por_omision(servidor.url)
        tareas = []
        for k in range(estudiantes):
            p = PESTANAS[k % len(PESTANAS)]
            tareas.append((p.api, datos_al_azar(p, suite.vistas(suite.demo)[p.id], omision[p.api])))
        calentar = _calentar(servidor.url, tareas)
        grabando = []
        res = _sala(servidor.url, tareas, segundos, lambda: grabando.append(_grabar(servidor.proceso.pid, segundos)))
        for g in filter(None, grabando):
            g.wait(timeout=60)
        rss = servidor.rss_pico_mb()
        res_vacia = _sala(vacia.url, [("vacia", lambda azar: [azar.random()])] * estudiantes, segundos)
    finally:
        servidor.cerrar()
        vacia.cerrar()
    v = res_vacia["vacia"]
    p50_v = statistics.median(v["t"])
    ritmo_v = len(v["t"]) / segundos / estudiantes  # respuestas/s por estudiante
    filas = [
        [
            "(endpoint vacío)",
            estudiantes,
            f"{len(v['t']) / segundos:.1f}",
            ms(p50_v),
            ms(percentil(v["t"], 95)),
            f"{statistics.mean(v['b']) / 1e3:.1f}",
            "1.00×",
            "100 %",
            _errores(v),
            "",
        ]
    ]
    for p in PESTANAS:
        r = res.get(p.api)
        if not r or not r["t"]:
            fallos = r["errores"] if r else 0
            filas.append([p.id, r["estudiantes"] if r else 0, "0", "—", "—", "—", "—", "—", fallos, ""])
            continue
        p50 = statistics.median(r["t"])
        ritmo = len(r["t"]) / segundos / r["estudiantes"]
        razon = p50 / p50_v
        filas.append(
            [
                p.id,
                r["estudiantes"],
                f"{len(r['t']) / segundos:.1f}",
                ms(p50),
                ms(percentil(r["t"], 95)),
                f"{statistics.mean([b for b in r['b'] if b] or [0]) / 1e3:.1f}",
                f"**{razon:.2f}×**" if razon <= 3 else f"{razon:.2f}×",
                f"{100 * ritmo / ritmo_v:.0f} %",
                _errores(r),
                f"{100 * r['rechazos'] / len(r['t']):.0f} %" if r["rechazos"] else "",
            ]
        )
    return tabla(
        f"Clase: {estudiantes} estudiantes durante {segundos:.0f} s, valores nuevos cada 0.2–0.6 s "
        f"(HTTP crudo al API público, una vista por llamada; desde el barrido, la página ya no manda así los "
        f"controles barridos: ver «Mezcla de clase»; RSS pico del servidor: {rss:,.0f} MB; antes, una llamada a "
        f"cada pestaña para calentar: {calentar:.1f} s)",
        COLUMNAS,
        filas,
    )


# --- «mezcla»: la clase con el barrido (#36) ------------------------------------------------------------------------

# Opciones que un estudiante no elige sin hacer antes otra cosa (subir una foto, dibujar, entrenar su modelo).
SIN_ELEGIR = {"mi imagen (subida)", "mi dibujo", "el-mio"}
EDICION_CADA_S = (3.0, 5.0)  # de una edición a la siguiente, desde que se vio la vista de la anterior
ARRASTRE_CADA_S = (0.2, 0.6)  # entre ediciones, un arrastre (no manda nada)


@dataclass
class Edicion:
    """Editar una entrada no barrida de una pestaña como la página: el evento que dispara (su fn_index), sus
    entradas (ids de componente, con el valor de la página) y cómo sortear un valor nuevo de lo que cambia."""

    pestana: str
    fn_index: int
    disparador: int  # el id del componente editado (trigger_id)
    entradas: list[int]
    valores: dict[int, object]  # id -> valor de la página al abrirla
    nuevos: dict[int, callable]  # id -> azar -> valor nuevo: la entrada editada
    generador: bool  # la vista y después los paquetes (un evento con dos respuestas)
    solo_vista: int | None = None  # el evento que calcula solo la vista (el que barrido.mjs pide al arrastrar)

    def datos(self, azar: random.Random) -> list:
        valores = dict(self.valores)
        for i, nuevo in self.nuevos.items():
            valores[i] = nuevo(azar)
        return [valores[i] for i in self.entradas]


def _sorteo(c, pestana: str):
    """azar -> un valor nuevo para el control `c` de la página (None si no se edita así)."""
    import gradio as gr

    if isinstance(c, gr.Slider | gr.Number):
        lo, hi = c.minimum, c.maximum
        if lo is None or hi is None:
            return None
        paso = float(getattr(c, "step", None) or 1)
        return lambda azar: _valor(azar, float(lo), float(hi), paso)
    if isinstance(c, gr.Radio | gr.Dropdown):
        opciones = [o[1] if isinstance(o, tuple | list) else o for o in c.choices]
        opciones = [o for o in opciones if o not in SIN_ELEGIR]
        return (lambda azar: azar.choice(opciones)) if len(opciones) > 1 else None
    if isinstance(c, gr.Checkbox):
        return lambda azar: azar.random() < 0.5
    if isinstance(c, gr.Textbox) and pestana == "inversion-digitos":  # ocho dígitos, como en «clase»
        return lambda azar: " ".join(str(azar.randint(0, 9)) for _ in range(8))
    return None


def ediciones_de(config: dict, pestana: str, vista) -> list[Edicion]:
    """Las ediciones de una pestaña: cada entrada de su URL que no es un control barrido (ni la entrada que fija uno) y
    que se edita sin escribir texto (salvo los dígitos), con el evento que la página manda al editarla. Los ids y el
    evento salen de la configuración que sirve la app (la de «/»), por el elem_id `<pestaña>-<nombre>`. Las demás
    entradas, y los controles barridos, van con el valor con que abre la página."""
    por_elem = {c["props"]["elem_id"]: c for c in config["components"] if c.get("props", {}).get("elem_id")}
    figura = por_elem[f"{pestana}-figura1"]["id"]
    # El evento de solo la vista: mismas salidas que el evento público de la pestaña, disparado por el `change` de
    # un número oculto (barrido.py, `pedido_vista`), y no generador (el de los paquetes sí lo es).
    publico = next((d for d in config["dependencies"] if d.get("api_name") == pestana.replace("-", "_")), None)
    solo_vista = next(
        (
            d["id"]
            for d in config["dependencies"]
            if publico is not None
            and d["backend_fn"]
            and d["outputs"] == publico["outputs"]
            and d["targets"]
            and all(t[1] == "change" for t in d["targets"])
            and not (d.get("types") or {}).get("generator")
        ),
        None,
    )
    valores = {c["id"]: c.get("props", {}).get("value") for c in config["components"]}
    barridos = {id(c) for b in vista.barridos for c in (b.control, b.entrada) if c is not None}
    ediciones = []
    for nombre, c in vista.url.items():
        sorteo = _sorteo(c, pestana)
        if id(c) in barridos or sorteo is None or f"{pestana}-{nombre}" not in por_elem:
            continue
        x = por_elem[f"{pestana}-{nombre}"]["id"]
        evento = next(
            (
                d
                for d in config["dependencies"]
                if d["backend_fn"]
                and figura in d["outputs"]
                and any(t[0] == x and t[1] in ("input", "submit", "change", "select") for t in d["targets"])
            ),
            None,
        )
        if evento is None:
            continue
        ediciones.append(
            Edicion(
                pestana=pestana,
                fn_index=evento["id"],
                disparador=x,
                entradas=list(evento["inputs"]),
                valores=valores,
                nuevos={x: sorteo},
                generador=bool((evento.get("types") or {}).get("generator")),
                solo_vista=solo_vista,
            )
        )
    return ediciones


def _editar(
    http, url: str, fn_index: int, disparador: int, datos: list, sesion: str, token: str | None, visto=None
) -> dict:
    """Un evento por la cola, como la página: POST a `queue/join` (con el token de la página) y los mensajes de
    `queue/data` hasta `close_stream`. Devuelve los segundos hasta la primera respuesta (la vista: el primer
    `process_generating`, o `process_completed` si no es un generador), hasta la segunda (los paquetes) y los bytes.
    Da `Rechazo` si la función rechazó la entrada; un fallo inesperado va en "fallo" (con la vista, si llegó).
    `visto` (un threading.Event), si se da, se marca al llegar la vista."""
    cabeceras = {"x-atencion-pagina": token} if token else {}
    cuerpo = {"data": datos, "fn_index": fn_index, "trigger_id": disparador, "session_hash": sesion}
    t0 = time.perf_counter()
    r = http.post(f"{url}gradio_api/queue/join", json=cuerpo, headers=cabeceras)
    r.raise_for_status()
    evento = r.json()["event_id"]
    respuestas, total, final, servidor = [], len(r.content), None, False
    with http.stream("GET", f"{url}gradio_api/queue/data", params={"session_hash": sesion}) as flujo:
        for linea in flujo.iter_lines():
            total += len(linea)
            if not linea.startswith("data:"):
                continue
            m = json.loads(linea[5:])
            if m.get("msg") == "close_stream":
                break
            if m.get("event_id") != evento:
                continue
            if m["msg"] == "process_generating":
                respuestas.append(time.perf_counter() - t0)
                servidor = servidor or (len(respuestas) > 1 and '"servidor"' in linea)
                if visto is not None:
                    visto.set()
            elif m["msg"] == "process_completed":
                final = m
                respuestas.append(time.perf_counter() - t0)
    if final is None:
        raise RuntimeError("la cola cerró el flujo sin process_completed")
    salida = {
        "vista": respuestas[0],
        "paquete": respuestas[1] if len(respuestas) > 2 else None,
        "bytes": total,
        "servidor": servidor,  # un paquete sin paradas (barrido.py: no caben, o el taller estaba lleno)
    }
    if not final.get("success", True):
        error = final.get("output") or {}
        if error.get("title") == "Entrada no válida":  # demos.comun.vista: un ValueError de la pestaña
            raise Rechazo(str(error.get("error", ""))[:300])
        # Un fallo inesperado; en un generador, la vista pudo llegar antes (el estudiante la ve, y después el aviso).
        salida["fallo"] = str(error.get("error", ""))[:90]
        salida["vista"] = respuestas[0] if len(respuestas) > 1 else None
    return salida


def _cpu_s(pid: int) -> float:
    """Segundos de CPU (usuario + sistema) del proceso `pid` hasta ahora."""
    campos = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(campos[11]) + int(campos[12])) / os.sysconf("SC_CLK_TCK")


def _sala_mezcla(url: str, alumnos: list[tuple[str, list[Edicion], bool]], segundos: float) -> dict[str, dict]:
    """Cada alumno (pestaña, sus ediciones, si tiene barridos): edita 3–5 s después de ver la vista de su edición
    anterior y, entre ediciones, arrastra cada 0.2–0.6 s (se cuenta, no se manda). Mientras las paradas de su edición
    no llegan, cada arrastre pide al servidor solo su vista (`barrido.js`: el paquete no vale para las entradas
    nuevas y las paradas vienen en camino), de a una (always_last): «vistas en la espera». Esas van por otra sesión
    con su propio token (el flujo `queue/data` de una sesión lo lee uno solo; en el navegador es el mismo)."""
    import httpx

    res: dict[str, dict] = defaultdict(
        lambda: {
            "vista": [],
            "paquete": [],
            "b": [],
            "arrastres": 0,
            "en_espera": [],
            "sin_paradas": [],
            "ediciones_sin_paradas": 0,
            "errores": 0,
            "motivos": Counter(),
            "rechazos": 0,
            "estudiantes": 0,
        }
    )
    cerrojo = threading.Lock()
    fin: list[float] = []
    todos_abrieron = threading.Barrier(len(alumnos), action=lambda: fin.append(time.perf_counter() + segundos))

    def una(http, r, edicion, datos, sesion, token, visto=None, fn_index=None) -> dict | None:
        try:
            x = _editar(http, url, fn_index or edicion.fn_index, edicion.disparador, datos, sesion, token, visto)
        except Rechazo:
            with cerrojo:
                r["rechazos"] += 1
            return None
        except Exception as e:
            with cerrojo:
                r["errores"] += 1
                r["motivos"][_motivo(e)] += 1
            return None
        with cerrojo:
            if x.get("fallo"):
                r["errores"] += 1
                r["motivos"][f"fallo: {x['fallo']}"] += 1
            if x["vista"] is not None:
                r["vista"].append(x["vista"])
                r["b"].append(x["bytes"])
            if x["paquete"] is not None:
                r["paquete"].append(x["paquete"])
        return x if x["vista"] is not None else None

    def vista_en_espera(http, r, edicion, datos, sesion, token, donde: str = "en_espera") -> None:
        try:
            x = _editar(http, url, edicion.solo_vista, edicion.disparador, datos, sesion, token)
        except Exception as e:  # también un Rechazo: en la espera, la vista es la de la edición
            with cerrojo:
                r["errores"] += 1
                r["motivos"][f"en la espera: {_motivo(e)}"] += 1
            return
        with cerrojo:
            if x.get("fallo") or x["vista"] is None:
                r["errores"] += 1
                r["motivos"][f"en la espera: {x.get('fallo')}"] += 1
            else:
                r[donde].append(x["vista"])

    def estudiante(k: int, pestana: str, ediciones: list[Edicion], barre: bool) -> None:
        azar = random.Random(k)
        sesion = f"estudiante{k:02d}{azar.getrandbits(32):08x}"
        r = res[pestana]
        with httpx.Client(timeout=300) as http, httpx.Client(timeout=300) as http_vistas:
            token = _token_de_la_pagina(http, url)
            token_vistas = _token_de_la_pagina(http_vistas, url)
            todos_abrieron.wait()
            proxima = time.perf_counter() + azar.uniform(0, EDICION_CADA_S[0])  # no todos a la vez al empezar
            sin_paradas, edicion, datos = False, None, None
            while time.perf_counter() < fin[0]:
                if time.perf_counter() < proxima:
                    time.sleep(max(0.0, min(azar.uniform(*ARRASTRE_CADA_S), proxima - time.perf_counter())))
                    if barre and time.perf_counter() < proxima:
                        with cerrojo:
                            r["arrastres"] += 1
                        if sin_paradas:  # el paquete no trajo paradas: cada arrastre pide su vista, de a una
                            vista_en_espera(http_vistas, r, edicion, datos, sesion + "v", token_vistas, "sin_paradas")
                    continue
                edicion = azar.choice(ediciones)
                datos = edicion.datos(azar)
                t = time.perf_counter()
                llego, hecho = threading.Event(), []
                hilo = threading.Thread(
                    target=lambda h=hecho, e=edicion, d=datos, v=llego: h.append(una(http, r, e, d, sesion, token, v)),
                    daemon=True,
                )
                hilo.start()
                while hilo.is_alive() and not llego.wait(0.05):  # la vista de la edición
                    pass
                # Las paradas vienen detrás: cada arrastre de mientras pide solo su vista, de a una.
                while barre and edicion.solo_vista is not None and hilo.is_alive():
                    time.sleep(azar.uniform(*ARRASTRE_CADA_S))
                    if hilo.is_alive():
                        vista_en_espera(http_vistas, r, edicion, datos, sesion + "v", token_vistas)
                hilo.join()
                x = hecho[0] if hecho else None
                sin_paradas = bool(x and x.get("servidor") and edicion.solo_vista is not None)
                if sin_paradas:
                    with cerrojo:
                        r["ediciones_sin_paradas"] += 1
                visto = t + (x["vista"] if x else time.perf_counter() - t)
                proxima = visto + azar.uniform(*EDICION_CADA_S)

    hilos = []
    for k, (pestana, ediciones, barre) in enumerate(alumnos):
        res[pestana]["estudiantes"] += 1
        hilos.append(threading.Thread(target=estudiante, args=(k, pestana, ediciones, barre)))
    for h in hilos:
        h.start()
    for h in hilos:
        h.join()
    return res


def _ediciones_vacias(config: dict) -> list[Edicion]:
    """La edición del endpoint vacío: su único evento, con un número nuevo."""
    d = config["dependencies"][0]
    return [
        Edicion(
            pestana="(endpoint vacío)",
            fn_index=d["id"],
            disparador=d["targets"][0][0],
            entradas=list(d["inputs"]),
            valores={},
            nuevos={d["inputs"][0]: lambda azar: azar.random()},
            generador=False,
        )
    ]


def mezcla(estudiantes: int = 30, segundos: float = 40) -> str:
    """La clase con el barrido: arrastres que no mandan nada y, de vez en cuando, una edición que calcula la vista y
    todas las paradas (el evento privado que la página manda), junto al endpoint vacío con el mismo ritmo."""
    import httpx

    import app as suite
    from demos import PESTANAS

    p_app, p_vacia = puerto_libre(), puerto_libre()
    servidor = Servidor(["app.py", "--port", str(p_app)], p_app)
    vacia = Servidor(["-c", VACIA, str(p_vacia)], p_vacia)
    try:
        servidor.esperar()
        vacia.esperar()
        config = httpx.get(servidor.url + "config", timeout=60).json()
        vistas = suite.vistas(suite.demo)
        por_pestana = {p.id: ediciones_de(config, p.id, vistas[p.id]) for p in PESTANAS}
        alumnos = []
        for k in range(estudiantes):
            p = PESTANAS[k % len(PESTANAS)]
            if por_pestana[p.id]:
                alumnos.append((p.id, por_pestana[p.id], bool(vistas[p.id].barridos)))
        t = time.perf_counter()
        with httpx.Client(timeout=300) as http:  # lo que paga el primero que edita cada pestaña (imports, cachés)
            token = _token_de_la_pagina(http, servidor.url)
            for ediciones in por_pestana.values():
                for e in ediciones[:1]:
                    with contextlib.suppress(Rechazo):
                        _editar(
                            http, servidor.url, e.fn_index, e.disparador, e.datos(random.Random(0)), "calentar", token
                        )
        calentar = time.perf_counter() - t
        cpu = _cpu_s(servidor.proceso.pid)
        res = _sala_mezcla(servidor.url, alumnos, segundos)
        cpu = _cpu_s(servidor.proceso.pid) - cpu
        rss = servidor.rss_pico_mb()
        config_vacia = httpx.get(vacia.url + "config", timeout=60).json()
        res_vacia = _sala_mezcla(
            vacia.url, [("(endpoint vacío)", _ediciones_vacias(config_vacia), False)] * estudiantes, segundos
        )
    finally:
        servidor.cerrar()
        vacia.cerrar()
    v = res_vacia["(endpoint vacío)"]
    p50_v = statistics.median(v["vista"])
    ritmo_v = len(v["vista"]) / segundos / estudiantes
    filas = [
        [
            "(endpoint vacío)",
            estudiantes,
            f"{len(v['vista']) / segundos:.1f}",
            "",
            ms(p50_v),
            ms(percentil(v["vista"], 95)),
            "",
            "",
            f"{statistics.mean(v['b']) / 1e3:.1f}",
            "1.00×",
            "100 %",
            "",
            "",
            _errores(v),
            "",
        ]
    ]
    total_ed = total_arr = total_rep = total_sin = 0
    for p in PESTANAS:
        r = res.get(p.id)
        if not r or not r["vista"]:
            n = r["estudiantes"] if r else 0
            filas.append([p.id, n, "0", "", "—", "—", "—", "—", "—", "—", "—", "", "", r["errores"] if r else 0, ""])
            continue
        n_ed = len(r["vista"]) + r["rechazos"]
        total_ed += n_ed
        total_arr += r["arrastres"]
        total_rep += len(r["en_espera"])
        total_sin += r["ediciones_sin_paradas"]
        razon = statistics.median(r["vista"]) / p50_v
        filas.append(
            [
                p.id,
                r["estudiantes"],
                f"{n_ed / segundos:.2f}",
                f"{r['arrastres'] / segundos:.1f}" if vistas[p.id].barridos else "",
                ms(statistics.median(r["vista"])),
                ms(percentil(r["vista"], 95)),
                ms(statistics.median(r["paquete"])) if r["paquete"] else "",
                ms(percentil(r["paquete"], 95)) if r["paquete"] else "",
                f"{statistics.mean(r['b']) / 1e3:.1f}",
                f"**{razon:.2f}×**" if razon <= 3 else f"{razon:.2f}×",
                f"{100 * len(r['vista']) / segundos / r['estudiantes'] / ritmo_v:.0f} %",
                (f"{len(r['en_espera'])}, p50 {ms(statistics.median(r['en_espera']))}" if r["en_espera"] else ""),
                (
                    f"{r['ediciones_sin_paradas']}; {len(r['sin_paradas'])} vistas, p50 "
                    f"{ms(statistics.median(r['sin_paradas']))}"
                    if r["sin_paradas"]
                    else str(r["ediciones_sin_paradas"] or "")
                ),
                _errores(r),
                f"{100 * r['rechazos'] / n_ed:.0f} %" if r["rechazos"] else "",
            ]
        )
    filas.append(
        [
            "**total**",
            len(alumnos),
            f"{total_ed / segundos:.1f}",
            f"{total_arr / segundos:.1f}",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            f"{total_rep}",
            f"{total_sin}",
            "",
            "",
        ]
    )
    return tabla(
        f"Mezcla de clase: {len(alumnos)} estudiantes durante {segundos:.0f} s; cada uno edita una entrada que no se "
        f"barre (un valor nuevo: una semilla, un número, una opción, los dígitos) {EDICION_CADA_S[0]:g}–"
        f"{EDICION_CADA_S[1]:g} s después de ver la vista de su edición anterior y, entre ediciones, arrastra un "
        f"control barrido cada {ARRASTRE_CADA_S[0]:g}–{ARRASTRE_CADA_S[1]:g} s (no manda nada; en las pestañas sin "
        f"barrido, no hace nada); si arrastra antes de que lleguen las paradas de su edición, la página pide solo "
        f"la vista de cada arrastre, de a una (barrido.js: «vistas en la espera»), y hasta la edición siguiente "
        f"si el paquete llegó sin paradas (el taller de paradas estaba lleno, o no caben). Por la cola, como la página "
        f"(queue/join con el token de la página y queue/data); "
        f"el vacío, con el mismo ritmo. CPU del servidor: {cpu:.0f} s en {segundos:.0f} s "
        f"({100 * cpu / segundos / (os.cpu_count() or 1):.0f} % de {os.cpu_count()} núcleos); RSS pico: {rss:,.0f} MB; "
        f"antes, una edición de cada pestaña para calentar: {calentar:.1f} s",
        [
            "pestaña",
            "estudiantes",
            "ediciones/s",
            "arrastres/s (sin servidor)",
            "vista p50",
            "vista p95",
            "paradas p50",
            "paradas p95",
            "kB por edición",
            "vista p50 / vacío",
            "ritmo / vacío",
            "vistas en la espera",
            "ediciones sin paradas; vistas al arrastrar",
            "errores",
            "rechazadas",
        ],
        filas,
    )
