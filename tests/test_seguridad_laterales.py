"""Las rutas laterales de Gradio y las sesiones inventadas (SECURITY.md §8 y §9).

Los ataques del issue «Security, second round», a escala pequeña (las cifras grandes, en
scripts/ataques.py): un pedido de 600 bytes a `component_server` con un índice de capa enorme
(+760 MB que nunca se soltaban), cada `session_hash` inventado costando ≈ 0.5 MB y 0.1 s de CPU
en el bucle de eventos, un `api_name` desconocido con 500 y traza, enlaces profundos que escriben
archivos que nadie borra, subidas sin tope que ningún evento usa.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

import gradio as gr
import httpx
import pytest

from servidor import disco, laterales
from servidor.gradio_interno import Sesiones, editores

MB = 2**20
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200  # el servidor no lo abre: lo guarda hasta el evento


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(linea.split()[1]) for linea in f if linea.startswith("VmRSS")) / 1024


@pytest.fixture(scope="module")
def suite(url_app):
    import app

    return app.demo


@pytest.fixture(scope="module")
def lienzo(suite) -> int:
    (primero, *_) = editores(suite)
    return primero


def _trozo(url, componente, sesion=None, indice="0", tipo="layer", datos=PNG, fn="accept_blobs", id_=None):
    campos = {
        "component_id": str(componente),
        "fn_name": fn,
        "session_hash": sesion or uuid.uuid4().hex[:12],
        "id": id_ or uuid.uuid4().hex[:12],
        "type": tipo,
        "index": indice,
    }
    archivos = {"file": ("layer_0.png", datos, "image/png")}
    return httpx.post(f"{url}gradio_api/component_server/", data=campos, files=archivos, timeout=30)


def test_un_indice_de_capa_enorme_se_rechaza_y_la_memoria_no_crece(url_app, lienzo, suite):
    """El ataque crítico: Gradio extendía la lista de capas hasta el índice pedido (8 bytes por lugar)."""
    assert _trozo(url_app, lienzo).status_code == 200  # el trozo que manda la página, con su capa 0
    antes = _rss_mb()
    r = _trozo(url_app, lienzo, indice=str(4_000_000))  # 32 MB de lista en Gradio; el ataque real, 100 veces más
    despues = _rss_mb()
    assert r.status_code == 400, r.text
    assert "índice de capa" in r.json()["detail"]
    assert despues - antes < 8, f"RSS creció {despues - antes:.0f} MB con un solo pedido"
    assert all(len(t.layers) <= laterales.MAX_CAPA for t in editores(suite)[lienzo].blob_storage.values())


@pytest.mark.parametrize(
    "cambio",
    [
        {"fn": "preprocess"},  # un método del componente que no es función de servidor
        {"fn": "__init__"},
        {"componente": 0},  # un bloque que no es un lienzo
        {"tipo": "otra"},
        {"indice": "-1"},
        {"sesion": "a\nb"},
    ],
    ids=["otra-funcion", "dunder", "no-lienzo", "tipo", "indice-negativo", "sesion-rara"],
)
def test_component_server_solo_acepta_los_trozos_del_lienzo(url_app, lienzo, cambio):
    componente = cambio.pop("componente", lienzo)
    r = _trozo(url_app, componente, **cambio)
    assert r.status_code in (400, 404), r.text
    assert r.json()["detail"][0].isupper() and "not found" not in r.text.lower()


def test_component_server_en_json_no_existe(url_app, lienzo):
    cuerpo = {"component_id": lienzo, "fn_name": "accept_blobs", "session_hash": "abc", "data": {}}
    r = httpx.post(f"{url_app}gradio_api/component_server/", json=cuerpo, timeout=10)
    assert r.status_code == 404
    assert r.json()["detail"] == "Esa función de componente no existe en esta página."


def test_los_trozos_tienen_tope_por_sesion_en_total_y_vida(url_app, lienzo, suite, monkeypatch):
    monkeypatch.setattr(laterales, "MAX_POR_SESION", 100_000)
    datos = PNG + b"\x00" * 60_000
    sesion = uuid.uuid4().hex[:12]
    assert _trozo(url_app, lienzo, sesion, datos=datos).status_code == 200
    r = _trozo(url_app, lienzo, sesion, datos=datos)
    assert r.status_code == 429 and "espera unos minutos" in r.json()["detail"]

    monkeypatch.setattr(laterales, "MAX_TROZOS", 150_000)
    for _ in range(4):  # cuatro sesiones: 240 kB, más que el tope total
        assert _trozo(url_app, lienzo, datos=datos).status_code == 200
    assert laterales.bytes_de_trozos() <= 150_000

    monkeypatch.setattr(laterales, "VIDA_TROZO_S", 0.2)
    time.sleep(0.3)
    assert laterales.bytes_de_trozos() == 0
    assert not editores(suite)[lienzo].blob_storage  # lo vencido se soltó del lienzo


def test_sesiones_inventadas_no_cuestan_memoria(url_app, lienzo, suite):
    """400 sesiones inventadas (fn_index desconocido y trozos de dibujo): Gradio guardaba ≈ 0.5 MB por cada una."""
    antes = _rss_mb()
    with httpx.Client(timeout=30) as c:
        for i in range(200):
            cuerpo = {"data": [], "fn_index": 10_000 + i, "session_hash": uuid.uuid4().hex, "trigger_id": None}
            r = c.post(f"{url_app}gradio_api/queue/join", json=cuerpo)
            assert r.status_code == 404 and r.json()["detail"] == "No hay un evento con ese número en esta página."
    for _ in range(200):
        assert _trozo(url_app, lienzo).status_code == 200
    crecio = _rss_mb() - antes
    assert crecio < 25, f"400 sesiones inventadas: +{crecio:.0f} MB"
    sesiones = suite.state_holder
    assert isinstance(sesiones, Sesiones) and len(sesiones.session_data) <= laterales.CAPACIDAD_SESIONES


def test_la_sesion_mas_vieja_se_desaloja_y_suelta_su_estado():
    soltados = []
    with gr.Blocks() as demo:
        estado = gr.State(None, delete_callback=soltados.append)
        gr.Textbox()
    sesiones = Sesiones(capacidad=3, vida_s=3600)
    sesiones.set_blocks(demo)
    for s in "abcd":
        sesiones[s][estado._id] = f"modelo de {s}"
    assert list(sesiones.session_data) == ["b", "c", "d"]
    assert soltados == ["modelo de a"]
    sesiones.vida_s = 0
    sesiones.delete_all_expired_state()
    assert not sesiones.session_data
    assert sorted(soltados) == [f"modelo de {s}" for s in "abcd"]


def test_el_modelo_entrenado_tiene_vida_y_se_suelta(suite):
    import app

    (propio,) = [c for c in app.vistas(suite)["inversion-digitos"].entradas if isinstance(c, gr.State)]
    assert propio.time_to_live <= 3600
    modelo = {"config": {"d": 1}, "pesos": {"w": 1}}
    propio.delete_callback(modelo)
    assert modelo == {}


def test_un_api_name_desconocido_o_privado_recibe_404_sin_traza(url_app, suite, caplog, capfd):
    caplog.set_level(logging.INFO)
    privado = next(fn.api_name for fn in suite.fns.values() if fn.api_visibility == "private" and fn.api_name)
    for nombre in ("no-existe", privado):
        r = httpx.post(f"{url_app}gradio_api/call/{nombre}", json={"data": []}, timeout=10)
        assert r.status_code == 404, r.text
        assert r.json()["detail"] == "No hay un evento público con ese nombre en esta página."
    assert not [r for r in caplog.records if r.exc_info]
    assert "Traceback" not in capfd.readouterr().err


def test_un_evento_privado_sin_la_pagina_recibe_403_y_con_ella_pasa(url_app, suite, caplog, capfd):
    """Lo privado exige la página (SECURITY.md §10): por queue/join con su fn_index, sin el token que el
    servidor escribió en la página, un evento privado (y uno pesado privado) recibe 403 en español y una
    línea en el log; la misma llamada con el token de una página servida pasa."""
    from servidor import admision
    from tests.ataque import llamar, token_de_pagina, unir

    caplog.set_level(logging.INFO)
    privados = [(i, fn) for i, fn in suite.fns.items() if fn.api_visibility == "private" and fn.queue and fn.fn]
    (ligero, _), *_ = [(i, fn) for i, fn in privados if not fn.inputs and fn.concurrency_id not in admision.PESADOS]
    (pesado, _), *_ = [(i, fn) for i, fn in privados if not fn.inputs and fn.concurrency_id in admision.PESADOS]
    for indice in (ligero, pesado):
        r = unir(url_app, indice, [])
        assert r.status_code == 403, r.text
        assert r.json()["detail"] == admision.SOLO_LA_PAGINA
    falso = token_de_pagina(url_app)[:-4] + "0000"
    assert unir(url_app, ligero, [], token=falso).status_code == 403
    rechazos = [r for r in caplog.records if "es privado" in r.getMessage()]
    assert len(rechazos) == 3 and not [r for r in caplog.records if r.exc_info]
    assert "Traceback" not in capfd.readouterr().err
    respuesta = llamar(url_app, ligero, [], como_pagina=True)  # como la página: con su token
    assert respuesta.get("success"), respuesta


def test_los_enlaces_profundos_estan_apagados(url_app):
    r = httpx.get(f"{url_app}gradio_api/deep_link", params={"session_hash": "abc"}, timeout=10)
    assert r.status_code == 404 and r.json()["detail"] == "Esta app no usa enlaces profundos."


def test_la_carpeta_de_subidas_tiene_tope(url_app, monkeypatch):
    """Lugar para dos: la tercera ya no cabe, sin esperar a que se mida otra vez la carpeta (una vez por segundo).

    Las ráfagas, a trozos y los cuerpos cortados: tests/test_seguridad_subidas.py.
    """
    monkeypatch.setattr(disco, "MAX_SUBIDAS", disco.bytes_de_subidas(vigencia_s=0) + 700_000)
    estados = []
    for i in range(3):  # 3 × 300 kB distintos (Gradio guarda una sola vez un mismo contenido)
        archivo = {"files": (f"a{i}.png", PNG + bytes([i]) * 300_000, "image/png")}
        r = httpx.post(f"{url_app}gradio_api/upload", files=archivo, timeout=10)
        estados.append(r.status_code)
    assert estados == [200, 200, 429]
    assert r.json()["detail"] == laterales.SIN_LUGAR
    assert disco.bytes_de_subidas(vigencia_s=0) <= disco.MAX_SUBIDAS


def test_una_subida_que_ningun_evento_uso_vence(url_app, suite, monkeypatch):
    def subir(datos):
        return httpx.post(f"{url_app}gradio_api/upload", files={"files": ("b.png", datos)}, timeout=10)

    (sin_uso,) = subir(PNG + b"sin uso").json()
    (usada,) = subir(PNG + b"usada").json()
    disco.usada(usada)  # lo que hace `servidor.entradas.revisar` con cada ruta que llega a un evento
    monkeypatch.setattr(disco, "VIDA_SIN_USO_S", 0)
    disco.barrer_subidas([suite.upload_file_set], ahora=time.time() + 1)
    assert not disco.Path(sin_uso).exists() and sin_uso not in suite.upload_file_set
    assert disco.Path(usada).exists()


# --- sesiones reales (servidor/admision.py) -------------------------------------------------------


def _token_de(html: str) -> str:
    """El token que el servidor escribió en el guion del <head> de la página (o de su configuración)."""
    (token,) = set(re.findall(r'const token = \\?"([0-9a-z.]+)\\?"', html))
    return token


def test_sesiones_inventadas_no_desalojan_a_una_real():
    """Más sesiones inventadas que el tope: se desalojan entre ellas, la que abrió la página se queda."""
    with gr.Blocks() as demo:
        estado = gr.State(None)
    sesiones = Sesiones(capacidad=4, vida_s=3600)
    sesiones.set_blocks(demo)
    sesiones["honesta"][estado._id] = "su modelo"
    sesiones.hacer_real("honesta")
    for i in range(300):
        sesiones[f"inventada-{i}"]
    assert len(sesiones.session_data) == 4
    assert sesiones["honesta"][estado._id] == "su modelo"
    for s in "abcde":  # si todas son reales, se va la menos usada
        sesiones[s]
        sesiones.hacer_real(s)
    assert list(sesiones.session_data) == ["b", "c", "d", "e"]


def test_la_pagina_trae_un_token_que_vuelve_real_su_sesion(url_app, suite, monkeypatch):
    from servidor import admision
    from servidor.admision import CABECERA, MARCA
    from servidor.gradio_interno import sesiones_de

    # Toda la suite de pruebas llega de 127.0.0.1: si las de antes pidieron más de `PAGINAS_POR_MINUTO` páginas en el
    # último minuto, este token sale «de visita» y no vuelve real la sesión (el CI de 5f9a806 falló así). El tope
    # mismo lo prueba test_servidor; aquí se mira el token.
    monkeypatch.setattr(admision, "PAGINAS_POR_MINUTO", 10**6)
    html = httpx.get(url_app, timeout=60).text
    assert MARCA not in html
    token, otro = _token_de(html), _token_de(httpx.get(f"{url_app}config", timeout=60).text)
    assert token != otro  # uno por página servida
    (temperatura,) = [i for i, fn in suite.fns.items() if fn.api_name == "temperatura"]
    cuerpo = {"data": ["a, b", "1, 0", 1.0, 1000, 0], "fn_index": temperatura, "trigger_id": None}

    def unir(sesion: str, cabeceras: dict) -> None:
        r = httpx.post(f"{url_app}gradio_api/queue/join", json={**cuerpo, "session_hash": sesion}, headers=cabeceras)
        assert r.status_code == 200, r.text

    sesiones = sesiones_de(suite)
    unir("con-pagina", {CABECERA: token})
    unir("copiona", {CABECERA: token})  # el token de otra página
    unir("falsa", {CABECERA: token[:-4] + "0000"})
    unir("sin-pagina", {})
    assert sesiones.es_real("con-pagina")
    assert not any(sesiones.es_real(s) for s in ("copiona", "falsa", "sin-pagina"))
    unir("con-pagina", {})  # ya real: no necesita el token otra vez
    assert sesiones.es_real("con-pagina")
