"""CPU del servidor por evento, sin la cola de por medio: lo que cuesta mover un control, pestaña por pestaña.

Lanza `app.py` y el endpoint vacío de la clase (Gradio pelado, un Number → Number) en procesos propios; a cada
pestaña le hace llamadas de a una con valores nuevos al azar, por el protocolo HTTP de la cola como el navegador
(scripts/bench_clase.py), y divide la CPU que gastó el proceso servidor (utime + stime de todos sus hilos, de
/proc) por las llamadas. La latencia de la clase depende de la carga de la máquina; esto casi no: es la medida
de lo que compra un cambio (el reloj del kernel cuenta de a 10 ms: con 12 llamadas, ±0.8 ms por llamada).

Como una página: todas las llamadas van con una sesión (la de la página, con su token) y no con una sesión nueva
por llamada. Gradio arma la configuración de cada componente que toca la primera vez que una sesión lo usa
(`SessionState._update_value_in_config`): una sesión por llamada le cobraba eso a cada evento (≈ 1–1.5 ms con
los 8 componentes de memoria) y el navegador lo paga una vez. Tras calentar cada pestaña se espera a que el
servidor quede quieto: lo que el calentamiento dejó corriendo de fondo, una vez por proceso (la tabla de curvas
de escalado: lo que le falta al terminar de calentar, 0.4–1.4 s de CPU), va en su columna y no repartido entre
las 12 llamadas (era la mayor parte de los 75–175 ms por llamada de escalado).

    python scripts/bench.py --solo cpu
"""

from __future__ import annotations

import contextlib
import os
import random
import time
import zlib
from pathlib import Path

from scripts import bench_clase as bc
from scripts.medir import VACIA, Servidor, puerto_libre, tabla

CALENTAR, LLAMADAS = 3, int(os.environ.get("BENCH_CPU_LLAMADAS", "12"))  # más llamadas, menos error del reloj
SESION = f"cpu-pagina-{random.getrandbits(32):08x}"  # la de la página: la misma en todas las llamadas
_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    campos = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(campos[11]) + int(campos[12])) / _TICK  # utime y stime, en ticks del reloj


def _por_llamada(servidor: Servidor, api: str, hacer, n: int, http, token: str | None, semilla: int) -> float:
    """ms de CPU del servidor por llamada, en `n` llamadas de a una con los datos de `hacer(azar)`.

    Todas con la sesión de la página (`SESION`), como un navegador: la misma para todas las pestañas.
    """
    azar = random.Random(semilla)
    antes = _cpu_s(servidor.proceso.pid)
    for _ in range(n):
        with contextlib.suppress(bc.Rechazo):  # un valor que la pestaña no admite: su mensaje es una respuesta
            bc._llamar(http, servidor.url, api, hacer(azar), SESION, token)
    return (_cpu_s(servidor.proceso.pid) - antes) / n * 1000


def _quieto(pid: int, limite_s: float = 60) -> float:
    """Espera a que el servidor no gaste CPU (a lo sumo un tic en 0.3 s); devuelve los ms de CPU que gastó esperando."""
    inicio, previo, t0 = _cpu_s(pid), _cpu_s(pid), time.perf_counter()
    while time.perf_counter() - t0 < limite_s:
        time.sleep(0.3)
        ahora = _cpu_s(pid)
        if ahora - previo <= 1 / _TICK + 1e-9:
            break
        previo = ahora
    return (_cpu_s(pid) - inicio) * 1000


def cpu() -> str:
    import httpx

    import app as suite
    from demos import PESTANAS

    p_app, p_vacia = puerto_libre(), puerto_libre()
    servidor, vacia = Servidor(["app.py", "--port", str(p_app)], p_app), Servidor(["-c", VACIA, str(p_vacia)], p_vacia)
    filas = []
    try:
        servidor.esperar()
        vacia.esperar()
        omision = bc._por_omision(servidor.url)
        with httpx.Client(timeout=120) as http:
            token = bc._token_de_la_pagina(http, servidor.url)
            vacio = lambda azar: [azar.random()]  # noqa: E731
            _por_llamada(vacia, "vacia", vacio, CALENTAR, http, None, 0)
            fondo = _quieto(vacia.proceso.pid)
            ref = _por_llamada(vacia, "vacia", vacio, 8 * LLAMADAS, http, None, 1)
            filas.append(["(endpoint vacío: Gradio pelado)", f"{ref:.1f} ms", "1.00×", _fondo(fondo)])
            total = 0.0
            for p in PESTANAS:
                hacer = bc.datos_al_azar(p, suite.vistas(suite.demo)[p.id], omision[p.api])
                semilla = zlib.crc32(p.id.encode())
                _por_llamada(servidor, p.api, hacer, CALENTAR, http, token, semilla)
                fondo = _quieto(servidor.proceso.pid)
                ms = _por_llamada(servidor, p.api, hacer, LLAMADAS, http, token, semilla + 1)
                total += ms
                filas.append([p.id, f"{ms:.1f} ms", f"{ms / ref:.2f}×", _fondo(fondo)])
            media = total / len(PESTANAS)
            filas.append(["**media de las pestañas**", f"{media:.1f} ms", f"{media / ref:.2f}×", ""])
    finally:
        servidor.cerrar()
        vacia.cerrar()
    titulo = (
        f"CPU del servidor por evento, llamadas de a una ({LLAMADAS} por pestaña con valores nuevos, tras "
        f"{CALENTAR} para calentar; el vacío, {8 * LLAMADAS})"
    )
    return tabla(titulo, ["pestaña", "CPU por llamada", "/ vacío", "de fondo tras calentar (una vez)"], filas)


def _fondo(ms: float) -> str:
    return f"{ms:,.0f} ms" if ms >= 50 else ""  # menos: los tics de esperar quieto
