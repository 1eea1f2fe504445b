"""Lo que una sesión guarda tiene tope: los resultados que nadie lee y lo que queda de sus salidas.

El ataque (issue 56, 1): una sesión con un token de página llamaba `queue/join` sin abrir nunca
`/queue/data`. Gradio guarda cada mensaje de un evento terminado, con sus salidas, hasta que alguien lee el
flujo; la admisión contaba solo los pendientes, y un resultado sin leer no costaba nada: 700–1 000 llamadas
en 30 s, RSS +0.9–1.3 GB, que no volvían. SECURITY.md, §3 («Resultados sin leer») y §9.
"""

from __future__ import annotations

import gc
import time
import uuid

import fastapi
import gradio as gr
import pytest

from servidor import admision, gradio_interno
from servidor.entradas import montar_protegido
from tests.ataque import llamar, unir
from tests.ayuda import ServidorEnHilo, puerto_libre

MB = 1024 * 1024


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / MB


@pytest.fixture(scope="module")
def grande():
    """Un Blocks con un evento que devuelve un texto de `n` MB (como los paquetes de paradas, en grande)."""
    with gr.Blocks() as demo:
        n, salida = gr.Number(0), gr.Textbox()
        gr.Button().click(lambda m: "x" * int(m * MB), n, salida, api_name="grande")
    admision.configurar_cola(demo)
    puerto = puerto_libre()
    with ServidorEnHilo(montar_protegido(fastapi.FastAPI(), demo, path="/"), puerto):
        yield f"http://127.0.0.1:{puerto}/", demo


def _terminados(demo, cuantos: int, limite_s: float = 20) -> None:
    """Espera a que no quede ningún evento corriendo y haya `cuantos` resultados sin leer."""
    limite = time.monotonic() + limite_s
    while time.monotonic() < limite:
        if not demo._queue.event_ids_to_events and len(gradio_interno.sin_leer(demo._queue)) >= cuantos:
            return
        time.sleep(0.05)
    raise AssertionError(f"sin leer: {len(gradio_interno.sin_leer(demo._queue))}, esperaba {cuantos}")


def soltar_sin_leer(limite_s: float = 5) -> None:
    """Deja que el barrido del servidor (en su bucle de eventos) suelte ya todo resultado sin leer del proceso: los
    de otras pruebas (desde 127.0.0.1, como estas) contarían contra el tope de la dirección durante 30 s."""
    vida = admision.VIDA_SIN_LEER_S
    admision.VIDA_SIN_LEER_S = 0.0
    try:
        limite = time.monotonic() + limite_s
        while any(gradio_interno.sin_leer(c) for c in list(admision._colas)) and time.monotonic() < limite:
            time.sleep(0.05)
    finally:
        admision.VIDA_SIN_LEER_S = vida
    assert not any(gradio_interno.sin_leer(c) for c in list(admision._colas))


@pytest.fixture(autouse=True)
def _sin_restos(grande):
    soltar_sin_leer()
    yield
    soltar_sin_leer()


def _soltar_todo(demo, monkeypatch) -> None:
    soltar_sin_leer()
    assert gradio_interno.sin_leer(demo._queue) == {}


def test_los_resultados_sin_leer_cuentan_por_sesion_y_por_direccion(grande, monkeypatch):
    base, demo = grande
    i = next(k for k, f in demo.fns.items() if f.api_name == "grande")
    monkeypatch.setattr(admision, "VIDA_SIN_LEER_S", 3600.0)

    # Una sesión que nunca lee: sus resultados cuentan como pendientes; pasado el tope, 429 en español.
    sesion = uuid.uuid4().hex
    for k in range(admision.MAX_POR_SESION):
        assert unir(base, i, [0.01], sesion).status_code == 200
        _terminados(demo, k + 1)
    negada = unir(base, i, [0.01], sesion)
    assert negada.status_code == 429
    assert negada.json()["detail"].startswith(f"Tienes {admision.MAX_POR_SESION} resultados sin leer")

    # Sesiones inventadas desde la misma dirección: el tope de la dirección.
    aceptadas = admision.MAX_POR_SESION
    for _ in range(admision.MAX_SIN_LEER_POR_DIRECCION + 4):
        r = unir(base, i, [0.01])
        if r.status_code != 200:
            break
        aceptadas += 1
        _terminados(demo, aceptadas)
    assert aceptadas == admision.MAX_SIN_LEER_POR_DIRECCION
    assert r.status_code == 429 and "resultados que nadie leyó" in r.json()["detail"]

    # Quien sí lee su resultado no acumula nada: pasa aunque su dirección esté en el tope… tras el plazo.
    _soltar_todo(demo, monkeypatch)
    leida = llamar(base, i, [0.01], timeout=20)
    assert leida.get("success"), leida
    limite = time.monotonic() + 5  # el lector de Gradio quita el id justo después de entregar el mensaje
    while gradio_interno.sin_leer(demo._queue) and time.monotonic() < limite:
        time.sleep(0.05)
    assert gradio_interno.sin_leer(demo._queue) == {}


def test_los_resultados_sin_leer_se_sueltan_y_la_memoria_vuelve(grande, monkeypatch):
    base, demo = grande
    i = next(k for k, f in demo.fns.items() if f.api_name == "grande")
    monkeypatch.setattr(admision, "VIDA_SIN_LEER_S", 3600.0)
    gc.collect()
    antes = _rss_mb()
    n = admision.MAX_SIN_LEER_POR_DIRECCION
    for k in range(n):  # 32 resultados de 4 MB que nadie lee
        assert unir(base, i, [4]).status_code == 200
        _terminados(demo, k + 1)
    lleno = _rss_mb()
    assert lleno - antes > 0.5 * 4 * n, f"RSS {antes:.0f} -> {lleno:.0f} MB: el ataque no guardó sus resultados"
    assert len(demo._queue.pending_messages_per_session) >= n

    # Pasado el plazo, el barrido (una tarea del bucle de eventos) los suelta sin que llegue otra petición.
    monkeypatch.setattr(admision, "VIDA_SIN_LEER_S", 0.5)
    limite = time.monotonic() + 10
    while gradio_interno.sin_leer(demo._queue) and time.monotonic() < limite:
        time.sleep(0.1)
    assert gradio_interno.sin_leer(demo._queue) == {}
    assert not any(demo._queue.pending_event_ids_session.values())
    gc.collect()
    despues = _rss_mb()
    assert despues - antes < 0.25 * (lleno - antes), f"RSS {antes:.0f} -> {lleno:.0f} -> {despues:.0f} MB"
    assert unir(base, i, [0.01]).status_code == 200


def _propio_kb(sesion, compartidos: set[int]) -> float:
    """kB de lo que cuelga de la sesión y no es del montaje: se recorren sus referencias (`gc.get_referents`) sin
    entrar en los objetos de `compartidos` (el Blocks, sus bloques y funciones) ni en módulos, clases o código.

    No es tracemalloc: ese cuenta todo el proceso, y en la corrida entera los hilos de otras pruebas asignaban a la
    vez (la barata «guardaba» 81–85 kB en la CI de un clon limpio, con la menor de tres medidas)."""
    import sys
    import types

    vistos, pendientes, total = set(compartidos), [sesion], 0
    parar = (type, types.ModuleType, types.FunctionType, types.CodeType, types.BuiltinFunctionType)
    while pendientes:
        o = pendientes.pop()
        if id(o) in vistos or isinstance(o, parar):
            continue
        vistos.add(id(o))
        total += sys.getsizeof(o)
        pendientes.extend(gc.get_referents(o))
    return total / 1024


def test_la_sesion_no_guarda_los_paquetes_de_paradas_que_mando():
    """Una edición de memoria manda sus paquetes de paradas (salidas `gr.JSON`): la sesión de Gradio se quedaba con
    una copia de cada uno (≈ 7 MB por sesión que editó en la suite); la barata no (SECURITY.md §9: lo que cuesta una
    sesión y un montaje)."""
    import asyncio

    from gradio.state_holder import SessionState

    import app
    from demos.comun import barrido

    una = app.construir_una("memoria")
    vista = app._VISTAS[una]["memoria"]
    fn = next(f for f in una.fns.values() if f.name == "recalcular")
    valores = [c.value for c in vista.entradas]
    paquetes = barrido.paquetes_de(vista, valores)
    assert barrido.tamano(paquetes) > 50_000  # lo que pesa lo que se manda
    final = (*[gr.skip()] * len(vista.salidas), *paquetes, *[gr.skip()] * len(vista.barridos))

    def editar(sesion):
        asyncio.run(una.postprocess_data(fn, list(final), sesion))

    # Lo del montaje no es de la sesión: el Blocks, sus bloques, sus funciones y su configuración por omisión.
    compartidos = {id(una), id(una.default_config), *map(id, una.blocks.values()), *map(id, una.fns.values())}
    compartidos |= {id(x) for x in gc.get_referents(una.default_config)}
    de_gradio, barata = SessionState(una), gradio_interno.SesionBarata(una)
    editar(de_gradio)
    editar(barata)
    # Todo lo que la sesión tiene tras la edición, no lo que creció: la de Gradio ya copia los valores iniciales al
    # crearse (≈ 1.2 MB en memoria) y la edición solo los reemplaza.
    kb_gradio, kb_barata = _propio_kb(de_gradio, compartidos), _propio_kb(barata, compartidos)
    assert kb_gradio > 0.5 * barrido.tamano(paquetes) / 1024, kb_gradio  # la de Gradio se queda con la copia
    assert kb_barata < 64, f"la sesión barata guardó {kb_barata:.0f} kB tras una edición (Gradio: {kb_gradio:.0f} kB)"
    assert barata.config_values == {}  # ninguna configuración (ni valor) copiada en la sesión


def test_una_red_que_abre_miles_de_paginas_no_desaloja_a_la_clase():
    """Issue 56, 7: con 1 100 sesiones reales de una red, la de un estudiante de otra red dejaba de ser real (403 en
    cada edición hasta recargar) y se desalojaba con su modelo. Ahora cada red olvida primero las suyas, y una
    sesión que se usa no se olvida."""
    demo = gr.Blocks()
    sesiones = gradio_interno.Sesiones(capacidad=8, vida_s=3600)
    sesiones.set_blocks(demo)
    sesiones.hacer_real("estudiante", "10.0.0.1")
    sesiones["estudiante"]
    for k in range(1100):
        sesiones.hacer_real(f"atacante-{k}", "10.0.0.66")
        sesiones[f"atacante-{k}"]
    assert sesiones.es_real("estudiante") and "estudiante" in sesiones.session_data
    assert len(sesiones.reales) <= 4 * sesiones.capacidad and len(sesiones.session_data) <= sesiones.capacidad

    # En una sola red (una clase tras un NAT), la que se usa queda, aunque haya otras 1 100 después.
    sesiones.hacer_real("en-uso", "10.0.0.66")
    for k in range(1100):
        sesiones.hacer_real(f"otra-{k}", "10.0.0.66")
        if k % 16 == 0:
            assert sesiones.usar_real("en-uso")
    assert sesiones.es_real("en-uso")
