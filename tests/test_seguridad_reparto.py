"""Un reparto que no confía en el `session_hash` (SECURITY.md §3): sesiones inventadas que inundan.

El ataque del issue: 32 sesiones inventadas × 8 eventos ligeros lentos (entradas grandes que la
pestaña permite) llenaban la cola, y un visitante honesto esperaba 8 s o recibía «La cola está
llena». Aquí, a escala de la prueba: 24 sesiones × 8 de Posición en su máximo (512 × 512).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest
from starlette.datastructures import Headers

from servidor import admision
from tests.ataque import error_de, llamar, unir


@pytest.fixture(scope="module")
def indices(url_app):
    import app

    fns = app.demo.fns.values()
    return {nombre: next(fn._id for fn in fns if fn.api_name == nombre) for nombre in ("posicion", "temperatura")}


def _temperatura(url, indice) -> float:
    """Una llamada ligera con los valores de la página; su duración. Falla si la rechazan."""
    inicio = time.monotonic()
    respuesta = llamar(url, indice, ["plata, sacó, Ana, del", "2, 1, 0.5, -1", 1.0, 1000, 0], timeout=60)
    assert not error_de(respuesta), f"al visitante honesto le dijeron: {error_de(respuesta)}"
    return time.monotonic() - inicio


# El atacante en otro proceso, como en la vida real: en este, sus hilos le quitarían el GIL al servidor.
INUNDAR = """
import json, sys, uuid
from concurrent.futures import ThreadPoolExecutor
import httpx
url, fn_index, sesiones, por_sesion = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def inundar(_):
    sesion = uuid.uuid4().hex  # una sesión inventada por atacante
    cuerpo = {"data": [512, 512, "coseno"], "fn_index": fn_index, "session_hash": sesion, "trigger_id": None}
    with httpx.Client(timeout=60) as c:
        return [c.post(url + "gradio_api/queue/join", json=cuerpo).status_code for _ in range(por_sesion)]
with ThreadPoolExecutor(8) as ex:
    print(json.dumps([e for lista in ex.map(inundar, range(sesiones)) for e in lista]))
"""


def test_sesiones_inventadas_que_inundan_no_frenan_al_visitante_honesto(url_app, indices):
    import app

    sin_ataque = statistics.median(_temperatura(url_app, indices["temperatura"]) for _ in range(3))
    cola, carril = app.demo._queue, admision.carril(app.demo.fns[indices["posicion"]])
    orden = [sys.executable, "-c", INUNDAR, url_app, str(indices["posicion"]), "24", "8"]
    atacante = subprocess.Popen(orden, stdout=subprocess.PIPE, text=True)
    en_carril, honesto = [], []
    try:
        time.sleep(1.0)
        for _ in range(3):
            en_carril.append(sum(ev.concurrency_id == carril for ev in admision._eventos(cola)))
            honesto.append(_temperatura(url_app, indices["temperatura"]))
        estados = json.loads(atacante.communicate(timeout=120)[0])
    finally:
        atacante.kill()
    tope = max(3.0, 5 * sin_ataque)
    assert max(honesto) < tope, f"el visitante honesto tardó {honesto} s (sin ataque {sin_ataque:.2f} s)"
    assert max(en_carril) <= admision.LENTOS_POR_TIPO, f"lentas pendientes: {en_carril}"
    assert set(estados) == {200, 429}, estados  # las que pasan del presupuesto, rechazadas al instante


def test_la_lenta_que_sobra_recibe_el_motivo_en_espanol(url_app, indices):
    grande = [512, 512, "coseno"]
    n = admision.LENTOS_POR_TIPO + 4
    # Todas a la vez: de a una, con Posición en 512 × 512 a ≈ 20 ms, el servidor terminaba cada lenta antes de que
    # llegara la siguiente y ninguna sobraba (el CI de 5a7d741 falló así, con las figuras más baratas de armar).
    barrera = threading.Barrier(n)

    def una(_):
        barrera.wait()
        return unir(url_app, indices["posicion"], grande, timeout=30)

    with ThreadPoolExecutor(n) as hilos:
        respuestas = list(hilos.map(una, range(n)))
    negadas = [r.json()["detail"] for r in respuestas if r.status_code == 429]
    assert negadas and all("cálculos grandes" in d and "valores más chicos" in d for d in negadas)


def _pedido(cabeceras: dict, cliente="10.0.0.9"):
    return SimpleNamespace(headers=Headers(headers=cabeceras), client=SimpleNamespace(host=cliente))


def test_la_direccion_la_da_el_ultimo_proxy_de_confianza(monkeypatch):
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("ATENCION_PROXIES", raising=False)
    falsa = {"x-forwarded-for": "1.2.3.4"}
    assert admision.direccion(_pedido(falsa)) == "10.0.0.9"  # en local, X-Forwarded-For no cuenta
    monkeypatch.setenv("SPACE_ID", "usuario/atencion")  # en un Space, el proxy añade la IP real al final
    assert admision.direccion(_pedido({"x-forwarded-for": "1.2.3.4, 5.6.7.8"})) == "5.6.7.8"
    monkeypatch.setenv("ATENCION_PROXIES", "2")
    assert admision.direccion(_pedido({"x-forwarded-for": "9.9.9.9, 5.6.7.8, 10.1.1.1"})) == "5.6.7.8"


def test_el_costo_sale_de_lo_que_usa_cada_entrada_de_su_rango(indices):
    import app

    posicion, temperatura = app.demo.fns[indices["posicion"]], app.demo.fns[indices["temperatura"]]
    assert admision.costo(posicion, [512, 512, "coseno"]) == 1.0
    assert admision.costo(posicion, [50, 32, "coseno"]) < 0.1  # lo que abre la página
    assert admision.costo(temperatura, ["plata, sacó", "2, 1", 1.0, 1000, 2**31 - 1]) < 0.2  # la semilla no cuenta
    assert admision.costo(temperatura, ["x" * admision.TEXTO_LARGO, "", 1.0, 1, 0]) == 1.0
    assert admision.costo(posicion, [10**400, 1, "coseno"]) == 1.0
