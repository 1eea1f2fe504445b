"""Nadie deja sin servicio a la clase: la cola tiene tamaños explícitos y el trabajo pesado se reparte.

El ataque: una sesión encolaba 65 entrenamientos; la cola de 64 se llenaba y todos los demás
recibían «Queue is full», en inglés, durante unos 6 minutos (SECURITY.md, «Cola»).
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import gradio as gr
import httpx
import pytest

from servidor import admision
from servidor.entradas import montar_protegido
from tests.ataque import llamar, unir
from tests.ayuda import ServidorEnHilo, puerto_libre

MAXIMO = [5, True, 4, 3]  # épocas, con posición, cabezas, bloques: el entrenamiento más largo (≈ 30 s)


def _indice(blocks, api_name: str) -> int:
    return next(i for i, fn in blocks.fns.items() if fn.api_name == api_name)


def test_la_cola_tiene_sus_tamanos_explicitos_y_los_pesados_su_concurrency_id():
    import app

    q = app.demo._queue
    assert (q.max_size, q.default_concurrency_limit, app.demo.api_open) == (
        admision.MAX_COLA,
        admision.LIMITE_LIGERO,
        False,
    )
    pesados = {fn.concurrency_id for fn in app.demo.fns.values() if fn.concurrency_id in admision.PESADOS}
    assert pesados == set(admision.PESADOS)
    for fn in app.demo.fns.values():
        if fn.name == "descargar" or fn.api_name in {"inversion_digitos_entrenar", "memoria_medir"}:
            assert fn.concurrency_id in admision.PESADOS, fn.name
        if fn.concurrency_id in admision.PESADOS:  # todo pesado (también los que sumen las pestañas), de a uno
            assert fn.concurrency_limit == 1, fn.name


def _temperatura(base: str, i: int) -> float:
    inicio = time.monotonic()
    respuesta = llamar(base, i, ["plata, sacó, Ana, del", "2, 1, 0.5, -1", 0.5, 100, 0], timeout=60)
    assert respuesta.get("success"), respuesta
    return time.monotonic() - inicio


def _cancelar(base: str, fn_index: int, aceptadas: list[tuple[str, str]]) -> None:
    for sesion, evento in aceptadas:
        cuerpo = {"session_hash": sesion, "fn_index": fn_index, "event_id": evento}
        httpx.post(f"{base}gradio_api/cancel", json=cuerpo, timeout=10)
    limite = time.monotonic() + 60
    while admision.pendientes("entrenar") and time.monotonic() < limite:
        time.sleep(0.2)
    assert admision.pendientes("entrenar") == 0
    _soltar_sin_leer()


def test_una_sesion_que_inunda_el_entrenamiento_no_deja_sin_servicio_a_otra(url_app, monkeypatch):
    import app

    monkeypatch.setenv("ATENCION_PROXIES", "1")  # cada visitante, con su dirección (la del proxy)

    entrenar, temperatura = _indice(app.demo, "inversion_digitos_entrenar"), _indice(app.demo, "temperatura")
    _temperatura(url_app, temperatura)  # calienta
    normal = statistics.median(_temperatura(url_app, temperatura) for _ in range(3))

    atacante = uuid.uuid4().hex
    with ThreadPoolExecutor(8) as pool:
        respuestas = list(pool.map(lambda _: unir(url_app, entrenar, MAXIMO, atacante, desde="10.1.0.1"), range(20)))
    aceptadas = [(atacante, r.json()["event_id"]) for r in respuestas if r.status_code == 200]
    try:
        negadas = [r for r in respuestas if r.status_code != 200]
        assert len(aceptadas) == 1 and len(negadas) == 19
        assert {r.status_code for r in negadas} == {429}
        assert all("Ya tienes un entrenamiento en curso" in r.json()["detail"] for r in negadas)

        # Otras sesiones (o la misma con otro session_hash): hasta el tope del proceso, y luego un mensaje claro.
        otras = [
            (s, unir(url_app, entrenar, MAXIMO, s, desde=f"10.1.0.{k + 2}"))
            for k, s in enumerate(uuid.uuid4().hex for _ in range(6))
        ]
        aceptadas += [(s, r.json()["event_id"]) for s, r in otras if r.status_code == 200]
        tope = admision.PESADOS["entrenar"].tope
        assert len(aceptadas) == tope
        for _, r in otras[tope - 1 :]:
            assert r.status_code == 429
            assert r.json()["detail"] == f"Hay {tope} entrenamientos en cola; prueba en un momento."

        # Con un entrenamiento corriendo y tres esperando, otro visitante mueve un control: contesta como siempre.
        time.sleep(1)
        assert admision.pendientes("entrenar") == tope
        durante = _temperatura(url_app, temperatura)
        assert durante < max(2.0, 5 * normal), f"{durante:.2f} s con la inundación, {normal:.2f} s sin ella"
    finally:
        _cancelar(url_app, entrenar, aceptadas)


@pytest.fixture(scope="module")
def lenta():
    """Un Blocks con un evento de cada tipo pesado y uno ligero lento (esperan a que se los suelte), y uno rápido."""
    soltar = threading.Event()
    with gr.Blocks() as demo:
        entrada, salida = gr.Number(0), gr.Number()
        for pesado in admision.PESADOS:
            gr.Button(pesado).click(
                lambda x: soltar.wait(30) and x,
                entrada,
                salida,
                api_name=pesado,
                concurrency_id=pesado,
                concurrency_limit=1,
            )
        gr.Button("lento").click(lambda x: soltar.wait(30) and x, entrada, salida, api_name="lento")
        gr.Button("rapido").click(lambda x: x + 1, entrada, salida, api_name="rapido")
    admision.configurar_cola(demo, max_size=6)
    puerto = puerto_libre()
    with ServidorEnHilo(montar_protegido(__import__("fastapi").FastAPI(), demo, path="/"), puerto):
        yield f"http://127.0.0.1:{puerto}/", demo, soltar
        soltar.set()


def _vaciar(soltar: threading.Event, demo: gr.Blocks) -> None:
    soltar.set()
    limite = time.monotonic() + 20
    while list(admision._eventos(demo._queue)) and time.monotonic() < limite:
        time.sleep(0.05)
    assert list(admision._eventos(demo._queue)) == []
    _soltar_sin_leer()


def _soltar_sin_leer() -> None:
    """Lo que estas pruebas unieron sin leer, suelto ya por el barrido del servidor (si no, contaría 30 s contra el
    tope de resultados sin leer de 127.0.0.1 en las pruebas que siguen)."""
    from servidor.gradio_interno import sin_leer

    vida, admision.VIDA_SIN_LEER_S = admision.VIDA_SIN_LEER_S, 0.0
    try:
        limite = time.monotonic() + 5
        while any(sin_leer(c) for c in list(admision._colas)) and time.monotonic() < limite:
            time.sleep(0.05)
    finally:
        admision.VIDA_SIN_LEER_S = vida


@pytest.mark.parametrize("pesado", list(admision.PESADOS))
def test_cada_tipo_pesado_uno_por_sesion_y_un_tope_en_espanol(lenta, pesado, monkeypatch):
    base, demo, soltar = lenta
    soltar.clear()
    monkeypatch.setenv("ATENCION_PROXIES", "1")
    i, tope = _indice(demo, pesado), admision.PESADOS[pesado].tope
    sesion = uuid.uuid4().hex
    primera, segunda = unir(base, i, [1], sesion, desde="10.2.0.1"), unir(base, i, [1], sesion, desde="10.2.0.1")
    assert primera.status_code == 200 and segunda.status_code == 429
    assert (
        segunda.json()["detail"]
        == f"Ya tienes {admision.PESADOS[pesado].uno} en curso; espera a que termine antes de pedir otro."
    )
    mas = [unir(base, i, [1], desde=f"10.2.0.{k + 2}") for k in range(tope)]
    assert [r.status_code for r in mas] == [200] * (tope - 1) + [429]
    assert mas[-1].json()["detail"] == f"Hay {tope} {admision.PESADOS[pesado].varios} en cola; prueba en un momento."
    rapido = llamar(base, _indice(demo, "rapido"), [1], timeout=10)  # lo ligero no espera a lo pesado
    assert rapido["output"]["data"] == [2]
    _vaciar(soltar, demo)


def test_una_sesion_no_llena_la_cola_y_la_cola_llena_contesta_en_espanol(lenta):
    base, demo, soltar = lenta
    soltar.clear()
    lento = _indice(demo, "lento")
    propias = [unir(base, lento, [1], "una-sola-sesion") for _ in range(admision.MAX_POR_SESION + 2)]
    assert [r.status_code for r in propias] == [200] * admision.MAX_POR_SESION + [429, 429]
    assert propias[-1].json()["detail"].startswith(f"Ya tienes {admision.MAX_POR_SESION} peticiones esperando")
    time.sleep(0.5)  # 4 corren (el límite ligero), 4 esperan: la cola de 6 aún tiene sitio para otros
    otras = [unir(base, lento, [1]) for _ in range(5)]
    assert [r.status_code for r in otras[:2]] == [200, 200]
    llenas = [r for r in otras if r.status_code != 200]
    assert llenas and {r.status_code for r in llenas} == {429}  # con 503, la página diría «currently busy»
    assert all(r.json()["detail"].startswith("La cola está llena") for r in llenas)
    _vaciar(soltar, demo)


def test_los_pesados_de_una_red_tienen_su_fila_corta_y_el_de_otra_pasa_adelante(lenta, monkeypatch):
    """Una red que inunda (una sesión inventada por pedido) tiene a lo sumo `por_direccion` pendientes de cada tipo
    pesado; el de otra red entra al instante y corre antes que los que esperan de la red que inunda."""
    base, demo, soltar = lenta
    soltar.clear()
    monkeypatch.setenv("ATENCION_PROXIES", "1")
    i, pesado = _indice(demo, "entrenar"), admision.PESADOS["entrenar"]
    inunda = [unir(base, i, [1], desde="10.3.0.1") for _ in range(pesado.por_direccion + 3)]
    assert [r.status_code for r in inunda] == [200] * pesado.por_direccion + [429] * 3
    detalle = f"Desde tu red hay {pesado.por_direccion} {pesado.varios} en cola; espera a que termine uno"
    assert inunda[-1].json()["detail"].startswith(detalle)
    time.sleep(0.3)  # el primero ya corre; los demás de esa red esperan en la fila
    honesto = unir(base, i, [1], desde="10.3.0.2")
    assert honesto.status_code == 200
    fila = demo._queue.event_queue_per_concurrency_id["entrenar"].queue
    assert fila[0]._id == honesto.json()["event_id"]  # el próximo en correr
    _vaciar(soltar, demo)
