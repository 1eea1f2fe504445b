"""El taller de paradas se reparte por lo que cuesta: un visitante no se queda con la fila (issue 56, 3).

El ataque: doce conexiones de un visitante, cada una con su token de página, llamaban `recalcular` en bucle
con una semilla nueva. Para `admision.costo` es ligero, pero cada llamada pide al taller de 16 a 116 paradas:
la fila de 6 quedaba llena y 20 de 20 ediciones honestas recibían el aviso «servidor», sin paradas.
SECURITY.md, §3 («Las paradas del barrido»). Aquí el taller es el de verdad y el cálculo, un sueño de 40 ms.
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from demos.comun import barrido

COSTO = 116  # las paradas de memoria, la pestaña del informe
CALCULO_S = 0.04


@pytest.fixture
def taller(monkeypatch):
    """Un taller con fila de 6 y un cálculo falso: ni vistas reales ni lo guardado (cada pedido calcula)."""
    monkeypatch.setattr(barrido, "guardados_de", lambda vista, valores: None)
    monkeypatch.setattr(barrido, "costo_de", lambda vista: COSTO)
    monkeypatch.setattr(barrido, "_cabecera", lambda vista, b, valores: {})

    def calcular(vista, valores, hecha=None):
        time.sleep(CALCULO_S)
        return [{"salidas": valores}]

    monkeypatch.setattr(barrido, "paquetes_de", calcular)
    return barrido.Taller(max_en_fila=6)


VISTA = SimpleNamespace(barridos=[None])


def _inundar(taller, fin: threading.Event, sesiones: int, direccion: str, cuenta: dict) -> list[threading.Thread]:
    def bucle(k):
        while not fin.is_set():
            p = taller.paquetes(VISTA, [k], None, f"atacante-{k}", direccion)[0]
            clave = "salidas" if "salidas" in p else p["servidor"]
            cuenta[clave] = cuenta.get(clave, 0) + 1
            time.sleep(0.005)  # la vuelta por la red

    hilos = [threading.Thread(target=bucle, args=(k,), daemon=True) for k in range(sesiones)]
    for h in hilos:
        h.start()
    return hilos


@pytest.mark.parametrize("direccion_honesta", ["10.0.0.1", "10.0.0.2"], ids=["misma-red", "otra-red"])
def test_las_ediciones_honestas_reciben_sus_paradas_bajo_la_inundacion_de_un_visitante(taller, direccion_honesta):
    fin, cuenta = threading.Event(), {}
    hilos = _inundar(taller, fin, 12, "10.0.0.1", cuenta)
    try:
        time.sleep(1.0)  # la fila, llena de pedidos del atacante
        honestas, esperas = [], []
        for k in range(10):
            inicio = time.monotonic()
            p = taller.paquetes(VISTA, ["honesta", k], None, "honesta", direccion_honesta)[0]
            esperas.append(time.monotonic() - inicio)
            honestas.append("salidas" in p)
            time.sleep(0.2)
    finally:
        fin.set()
        for h in hilos:
            h.join(timeout=5)
    assert sum(honestas) >= 8, f"{sum(honestas)} de 10 ediciones honestas con paradas; atacante: {cuenta}"
    assert max(esperas) < 3 * CALCULO_S * 6, esperas  # no espera detrás de la fila del atacante
    assert cuenta.get(barrido.SIN_PRESUPUESTO, 0) > 0, cuenta  # el atacante gastó sus presupuestos


def test_una_red_tiene_a_lo_sumo_la_mitad_de_la_fila_y_una_sesion_un_pedido(taller, monkeypatch):
    soltar = threading.Event()
    monkeypatch.setattr(barrido, "paquetes_de", lambda vista, valores, hecha=None: soltar.wait(10) and [{"salidas": 1}])
    resultados = {}

    def pedir(nombre, sesion, direccion):
        resultados[nombre] = taller.paquetes(VISTA, [nombre], None, sesion, direccion)[0]

    hilos = [threading.Thread(target=pedir, args=(f"a{k}", f"a{k}", "10.0.0.1")) for k in range(5)]
    hilos += [threading.Thread(target=pedir, args=("a0-otra", "a0", "10.0.0.1"))]
    for h in hilos:
        h.start()
        time.sleep(0.05)
    time.sleep(0.2)
    # 3 de 6 lugares (la mitad) para la red del atacante: los demás reciben el aviso al instante (el que llega
    # desplaza al que espera de una sesión que ya gastó más); la segunda de a0, también.
    en_fila = [*taller._corren, *taller._esperan]
    assert len(en_fila) == 3 and len(resultados) == 3 and "a0-otra" in resultados
    assert all(resultados[k]["servidor"] == barrido.OCUPADO for k in resultados)
    otra = threading.Thread(target=pedir, args=("b", "b", "10.0.0.2"))
    otra.start()
    time.sleep(0.2)
    assert "b" not in resultados  # otra red sí tiene lugar: espera su turno
    soltar.set()
    for h in [*hilos, otra]:
        h.join(timeout=10)
    calculados = [k for k in resultados if "salidas" in resultados[k]]
    assert len(calculados) == 4 and "b" in calculados


def test_el_presupuesto_cuenta_vistas_y_se_repone():
    presupuesto = barrido.Presupuesto(capacidad=300, por_s=10)
    assert presupuesto.saldo("s", 0.0) == 300
    presupuesto.gastar("s", 2 * COSTO, 0.0)
    assert presupuesto.saldo("s", 0.0) == 300 - 2 * COSTO < COSTO
    assert presupuesto.saldo("s", 10.0) == pytest.approx(300 - 2 * COSTO + 100)
    assert presupuesto.uso("otra", 5.0) == 0


def test_una_sesion_que_insiste_sin_saldo_recibe_429_antes_de_calcular_la_vista():
    """La que sigue pidiendo paradas sin saldo (debe la mitad de su presupuesto) recibe 429 en la admisión: su
    edición no calcula ni la vista. Una sesión que no pidió nada, pasa."""
    import fastapi
    import gradio as gr

    from servidor import admision, gradio_interno
    from servidor.entradas import montar_protegido
    from tests.ataque import unir
    from tests.ayuda import ServidorEnHilo, puerto_libre

    vistas_calculadas, sesiones_vistas = [], []

    def recalcular(x):
        vistas_calculadas.append(x)
        sesiones_vistas.append(gradio_interno.peticion_actual().session_hash)  # lo que usa el taller
        return x

    recalcular.pide_paradas = True
    with gr.Blocks() as demo:
        n = gr.Number(0)
        gr.Button().click(recalcular, n, n, api_name="recalcular")
    admision.configurar_cola(demo)
    puerto = puerto_libre()
    insiste = "insiste"
    barrido.TALLER.por_sesion.gastar(insiste, 2 * barrido.TALLER.por_sesion.capacidad, time.monotonic())
    assert barrido.TALLER.agotada(insiste) and not barrido.TALLER.agotada("nueva")
    with ServidorEnHilo(montar_protegido(fastapi.FastAPI(), demo, path="/"), puerto):
        base = f"http://127.0.0.1:{puerto}/"
        r = unir(base, 0, [1], insiste)
        assert r.status_code == 429 and r.json()["detail"] == admision.SIN_SALDO_DE_PARADAS
        assert unir(base, 0, [2], "nueva").status_code == 200
        time.sleep(0.5)
    assert vistas_calculadas == [2] and sesiones_vistas == ["nueva"]
    assert gradio_interno.peticion_actual() is None  # fuera de un evento
