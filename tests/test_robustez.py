"""Fallos y concurrencia, para todas las pestañas del registro: cola, eventos pesados, subidas, arranque."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gradio as gr
import httpx
import pytest

from demos import PESTANAS
from demos.comun.vista import envolver
from demos.servir.conectar import valor_desde_url
from tests.ayuda import RAIZ, ServidorEnHilo, puerto_libre


def huella(valor):
    """Lo que devuelve el API, comparable: las imágenes por el contenido de su archivo.

    Las diferencias por debajo de 1e-5 escritas en un texto (p. ej. «diferencia máxima con
    PyTorch: 1.2e-07» frente a «0.0e+00») son ruido de redondeo, no otra entrada: se igualan.
    """
    if isinstance(valor, str) and not os.path.isfile(valor):
        return re.sub(r"\d(\.\d+)?e([+-]00|-0[6-9]|-[1-9]\d)", "≈0", valor)
    if isinstance(valor, tuple | list):
        return [huella(v) for v in valor]
    if isinstance(valor, dict):
        return {k: huella(v) for k, v in valor.items()}
    if isinstance(valor, str) and os.path.isfile(valor):
        return hashlib.sha256(Path(valor).read_bytes()).hexdigest()
    return valor


def argumentos_de_ejemplo(id_: str) -> dict:
    """El ajuste de ejemplo de la pestaña (`Vista.ejemplos()`), como argumentos del API."""
    import inspect

    import app

    vista = app.vistas(app.demo)[id_]
    nombres = list(inspect.signature(vista.fn).parameters)
    ejemplo, _ = vista.ejemplos()
    kwargs = {}
    for nombre_url, texto in ejemplo.items():
        componente = vista.url[nombre_url]
        i = next(k for k, c in enumerate(vista.entradas) if c is componente)
        kwargs[nombres[i]] = valor_desde_url(componente, texto)
    return kwargs


@pytest.mark.parametrize("id_", [p.id for p in PESTANAS])
def test_clientes_a_la_vez_reciben_cada_uno_lo_suyo(url_app, id_, monkeypatch):
    """Ocho visitantes con la página abierta, a la vez, alternando dos entradas: lo mismo que en serie,
    0 discrepancias. Cada uno con el token de su página (como el navegador): sin página, las llamadas
    lentas comparten un carril chico (servidor/admision.py) y algunas de las ocho recibirían 429."""
    from gradio_client import Client

    from servidor import admision
    from servidor.admision import CABECERA
    from tests.ataque import token_de_pagina

    # Toda la suite de pruebas llega de 127.0.0.1 y cada Client pide la página dos veces: en un minuto pasa de
    # las `PAGINAS_POR_MINUTO` de una dirección, y los tokens de más salen «de visita» (sin carril propio para
    # las lentas: 429; test_servidor prueba ese tope). Aquí se mira el reparto de la cola, no el tope.
    monkeypatch.setattr(admision, "PAGINAS_POR_MINUTO", 10**6)

    def cliente():
        return Client(url_app, verbose=False, headers={CABECERA: token_de_pagina(url_app)})

    api = "/" + id_.replace("-", "_")
    entradas = [{}, argumentos_de_ejemplo(id_)]
    serie = [huella(cliente().predict(**e, api_name=api)) for e in entradas]
    assert serie[0] != serie[1], f"{id_}: el ejemplo no cambia la vista"

    def llamar(k: int):
        return k % 2, huella(cliente().predict(**entradas[k % 2], api_name=api))

    with ThreadPoolExecutor(8) as pool:
        resultados = list(pool.map(llamar, range(8)))
    discrepancias = [k for k, r in resultados if r != serie[k]]
    assert discrepancias == []


def test_eventos_pesados_tienen_su_propio_limite():
    import app

    pesados = {}
    for fn in app.demo.fns.values():
        if fn.api_name in {"inversion_digitos_entrenar", "memoria_medir"}:
            pesados[fn.api_name] = (fn.concurrency_limit, fn.concurrency_id)
    assert pesados == {
        "inversion_digitos_entrenar": (1, "entrenar"),
        "memoria_medir": (1, "medir"),
    }


def test_exclusivo_no_deja_dos_llamadas_a_la_vez_en_el_proceso():
    dentro, maximo, cerrojo = [0], [0], threading.Lock()

    def pesada(x: int = 0):
        with cerrojo:
            dentro[0] += 1
            maximo[0] = max(maximo[0], dentro[0])
        time.sleep(0.05)
        with cerrojo:
            dentro[0] -= 1
        return x

    # Dos envolturas distintas (como en dos montajes) comparten el cerrojo por su nombre.
    a, b = envolver(pesada, exclusivo_de="prueba"), envolver(pesada, exclusivo_de="prueba")
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda k: (a if k % 2 else b)(k), range(6)))
    assert maximo[0] == 1


def test_cola_llena_contesta_en_vez_de_colgarse():
    """Con `max_size` lleno, la app responde al instante: 429 y «La cola está llena…» (no el 503 en inglés)."""
    from fastapi import FastAPI
    from gradio_client import Client

    from servidor.admision import configurar_cola

    liberar = threading.Event()
    with gr.Blocks() as lenta:
        entrada, salida = gr.Number(0), gr.Number()
        entrada.change(lambda x: liberar.wait(20) and x, entrada, salida, api_name="lenta", concurrency_limit=1)
    configurar_cola(lenta, max_size=2)
    puerto = puerto_libre()
    with ServidorEnHilo(gr.mount_gradio_app(FastAPI(), lenta, path="/"), puerto):
        cliente = Client(f"http://127.0.0.1:{puerto}/", verbose=False)
        trabajos = [cliente.submit(1, api_name="/lenta") for _ in range(6)]
        inicio = time.monotonic()
        llenas = []
        while len(llenas) < 3 and time.monotonic() - inicio < 10:  # 1 corriendo + 2 en cola; 3 no caben
            llenas = [t for t in trabajos if t.done() and t.exception(timeout=0) is not None]
            time.sleep(0.05)
        assert len(llenas) == 3, "la cola llena no respondió a tiempo"
        assert all("429" in repr(t.exception(timeout=0)) for t in llenas)
        join = httpx.post(
            f"http://127.0.0.1:{puerto}/gradio_api/queue/join",
            json={"data": [1], "fn_index": 0, "session_hash": "otra"},
        )
        assert join.status_code == 429 and join.json()["detail"].startswith("La cola está llena")
        liberar.set()
        servidas = [t.result(timeout=20) for t in trabajos if t not in llenas]
        assert servidas == [1, 1, 1]


def test_archivo_por_encima_del_limite_lo_rechaza_gradio(url_app, tmp_path):
    from gradio_client import Client, handle_file

    import app

    gordo = tmp_path / "gordo.png"
    gordo.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(11 * 2**20))
    assert app.TAMANO_MAXIMO_SUBIDA == "10mb"
    with pytest.raises(Exception, match=r"(?i)size|large|grande|413"):
        Client(url_app, verbose=False).predict(subida=handle_file(str(gordo)), api_name="/parches_vit")


def test_arranque_con_un_checkpoint_roto_lo_dice_en_el_log(tmp_path):
    """La app arranca y el log nombra el checkpoint roto y el arreglo; los demás cargan."""
    import shutil

    from modelos import REGISTRO

    for nombre in REGISTRO:
        shutil.copytree(RAIZ / "checkpoints" / nombre, tmp_path / nombre)
    pesos = tmp_path / "vit-digitos" / "model.safetensors"
    pesos.write_bytes(pesos.read_bytes()[:1000])  # truncado
    codigo = (
        "import logging, app; from servidor.proceso import precargar_checkpoints; "
        "logging.basicConfig(level=logging.INFO); print('MALOS', precargar_checkpoints())"
    )
    entorno = {**os.environ, "ATENCION_CHECKPOINTS": str(tmp_path), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(RAIZ)}
    r = subprocess.run(
        [sys.executable, "-c", codigo], cwd=RAIZ, env=entorno, capture_output=True, text=True, timeout=120
    )
    assert "MALOS ['vit-digitos']" in r.stdout, r.stderr[-2000:]
    assert "vit-digitos NO disponible" in r.stderr and "python -m modelos.entrenamiento vit-digitos" in r.stderr
