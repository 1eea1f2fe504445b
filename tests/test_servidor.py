"""`servidor/`: los montajes perezosos de /demo/<id>/ y los ajustes del proceso.

`MontajesPerezosos` usa partes internas de Gradio (la lista de rutas de Starlette, el contexto de
vida de la app de Gradio, sus eventos de arranque). Estas pruebas fallan si una versión de Gradio
las rompe: un /demo/<id>/ armado al pedirlo responde `/config`, pone a andar su cola (un evento
en cola contesta), queda delante de la raíz y, al apagar, se borran sus archivos.
"""

from __future__ import annotations

import gradio as gr
import httpx

from servidor import disco, proceso
from servidor.asgi import MontajesPerezosos, crear_app
from tests.ayuda import ServidorEnHilo, puerto_libre


def _raiz() -> gr.Blocks:
    with gr.Blocks(title="raíz") as raiz:
        gr.Markdown("raíz")
    return raiz


def _construir_eco(armadas: list[str]):
    def construir_una(id_: str) -> gr.Blocks:
        armadas.append(id_)
        with gr.Blocks(title=id_, delete_cache=(600, 3600)) as una:
            entrada, salida = gr.Number(0), gr.Number()
            entrada.change(lambda x: 2 * x, entrada, salida, api_name="doble")
        return una

    return construir_una


def _perezosos(asgi) -> MontajesPerezosos:
    """El `MontajesPerezosos` detrás de los middlewares de `Protecciones` (cada uno guarda el siguiente en `app`)."""
    while not isinstance(asgi, MontajesPerezosos) and hasattr(asgi, "app"):
        asgi = asgi.app
    return asgi


def test_un_montaje_perezoso_responde_corre_su_cola_y_borra_sus_archivos_al_apagar():
    from gradio_client import Client

    armadas: list[str] = []
    asgi = crear_app(_raiz(), _construir_eco(armadas), {"eco", "otra"}, {}, host_propio="127.0.0.1")
    perezosos = _perezosos(asgi)
    assert isinstance(perezosos, MontajesPerezosos)
    puerto = puerto_libre()
    base = f"http://127.0.0.1:{puerto}"
    archivo = disco.carpeta() / "gradio" / "prueba-servidor" / "figura.png"
    archivo.parent.mkdir(parents=True, exist_ok=True)
    archivo.write_bytes(b"png")
    with ServidorEnHilo(asgi, puerto):
        assert armadas == []  # nada se arma al arrancar
        assert httpx.get(f"{base}/config", timeout=30).json()["title"] == "raíz"

        config = httpx.get(f"{base}/demo/eco/config", timeout=60)
        assert config.status_code == 200 and config.json()["title"] == "eco"
        assert armadas == ["eco"]

        # La cola del montaje anda: un evento en cola contesta (con gradio_client, por /queue/join).
        trabajo = Client(f"{base}/demo/eco/", verbose=False).submit(21, api_name="/doble")
        assert trabajo.result(timeout=30) == 42  # sin los eventos de arranque, la cola no contesta
        montado = perezosos.montadas["eco"]
        assert montado.has_launched and montado._queue._repartida  # montar_protegido() y configurar_cola()

        # Sin barra: redirige a la barra y conserva los ajustes de la URL.
        r = httpx.get(f"{base}/demo/eco?x=1", timeout=10)
        assert r.status_code == 307 and r.headers["location"] == "/demo/eco/?x=1"

        # Un id que no está en la lista no se arma: lo atiende la raíz.
        httpx.get(f"{base}/demo/nadie/config", timeout=10)
        assert armadas == ["eco"]

        # Otra pestaña: un montaje aparte; la primera no se vuelve a armar; la raíz sigue en «/».
        assert httpx.get(f"{base}/demo/otra/config", timeout=60).json()["title"] == "otra"
        httpx.get(f"{base}/demo/eco/config", timeout=10).raise_for_status()
        assert armadas == ["eco", "otra"]
        assert httpx.get(f"{base}/config", timeout=10).json()["title"] == "raíz"

        montado.temp_file_sets[0].add(str(archivo))  # como un archivo que Gradio creó para este montaje
    assert not archivo.exists()


def test_una_sola_pagina_va_en_la_raiz_sin_montajes_perezosos():
    asgi = crear_app(_construir_eco([])("eco"), opciones={}, host_propio="127.0.0.1")
    assert not isinstance(asgi.app, MontajesPerezosos)
    puerto = puerto_libre()
    with ServidorEnHilo(asgi, puerto):
        assert httpx.get(f"http://127.0.0.1:{puerto}/config", timeout=30).json()["title"] == "eco"


def test_preparar_fija_los_hilos_de_torch_y_se_puede_repetir(monkeypatch):
    import torch

    antes = torch.get_num_threads()
    monkeypatch.setenv("ATENCION_HILOS_TORCH", "1")
    try:
        proceso.preparar()
        proceso.preparar()
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(antes)


def test_limitar_arenas_malloc_respeta_la_variable_de_entorno(monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert proceso.limitar_arenas_malloc() is False  # manda la variable
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    assert isinstance(proceso.limitar_arenas_malloc(), bool)


def test_una_direccion_que_pide_demasiadas_paginas_recibe_tokens_de_visita():
    """Las primeras `PAGINAS_POR_MINUTO` páginas de una dirección traen un token que vuelve real la sesión; las
    que siguen, uno de visita (válido para los eventos de la página, no para hacer real otra sesión)."""
    from servidor import admision

    direccion = "203.0.113.77"  # de documentación (RFC 5737): ninguna prueba más la usa
    clases = [admision.emitir(direccion).split(".")[1][0] for _ in range(admision.PAGINAS_POR_MINUTO + 2)]
    assert clases == [admision.REAL] * admision.PAGINAS_POR_MINUTO + [admision.VISITA] * 2
    assert admision.valido(admision.emitir(direccion))
