"""La clase como carga: 30 estudiantes moviendo controles a la vez.

    python scripts/bench.py --solo clase

«clase»: cada estudiante elige una pestaña y, cada 0.2–0.6 s, manda valores nuevos (al azar, en
su rango, o entre los que da la página: la d de escalado sale de su deslizador de log₂ d) de todos
sus deslizadores y números, como un navegador: POST a
`/gradio_api/call/<api>`, luego el flujo de eventos por GET, y baja los archivos que la respuesta
nombre por la misma conexión abierta. Los mismos estudiantes repiten contra un endpoint vacío en la
misma corrida: la razón entre ambos es lo que cuesta cada pestaña. Lo que se siente en el
navegador está en scripts/bench_navegador.py.
"""

from __future__ import annotations

import contextlib
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
from pathlib import Path

from scripts.bench import VACIA, Servidor, ms, percentil, puerto_libre, tabla


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
    """El token que la página servida trae (servidor/paginas.py) y manda en cada evento, como el navegador.

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
    cabeceras = {"x-atencion-pagina": token} if token else {}  # servidor.paginas.CABECERA
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
_CAPAS = (
    (
        "variante de teléfono",
        (
            "demos/comun/figuras/pantalla.py:72)",
            "demos/comun/figuras/pantalla.py:73)",
            "demos/comun/figuras/pantalla.py:74)",
        ),
    ),
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
        f"(HTTP crudo, como el navegador; RSS pico del servidor: {rss:,.0f} MB; antes, una llamada a cada "
        f"pestaña para calentar: {calentar:.1f} s)",
        COLUMNAS,
        filas,
    )
