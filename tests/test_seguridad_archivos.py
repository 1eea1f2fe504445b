"""Solo un archivo que un visitante subió llega a una pestaña (SECURITY.md, «Archivos»).

El ataque: un `FileData` cuyo `path` nombra un archivo del servidor. Sin defensa, `/dev/zero`
congelaba todas las rutas del proceso y `/etc/shadow` se copiaba a la caché que Gradio sirve.
Se prueba en cada evento que toma archivos de la suite y de cada /demo/<id>/ (también los
privados: el atacante imita la página y manda su token, `como_pagina`, que es lo que le deja
llamarlos), con `/config` respondiendo durante todo el ataque; y, capa por
capa, que cada una de las dos defensas (la de Gradio, activa por `montar_protegido`, y la revisión previa
de la app) se sostiene sola. El componente de subida revisa además la ruta que le llega
(tests/test_imagenes.py), pero esa tercera capa no basta sola: si Gradio copiara el archivo a
su caché, la copia ya estaría dentro de la carpeta de subidas.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gradio as gr
import httpx
import pytest
from gradio import processing_utils
from gradio.context import LocalContext
from gradio.exceptions import InvalidPathError
from gradio.utils import get_upload_folder

from demos import PESTANAS
from servidor import entradas
from tests.ataque import Sondeo, error_de, file_data, llamar
from tests.ayuda import RAIZ

CHECKPOINT = RAIZ / "checkpoints" / "vit-digitos" / "model.safetensors"
NO_SUBIDO = "no se subió"


@pytest.fixture(scope="module")
def rutas_ajenas(tmp_path_factory):
    """Las rutas del ataque: un archivo del sistema, un dispositivo, un checkpoint y dos enlaces simbólicos."""
    enlace = tmp_path_factory.mktemp("ajenas") / "foto.png"
    enlace.symlink_to("/etc/hostname")
    dentro = Path(get_upload_folder()) / "enlace-ataque" / "foto.png"  # un enlace ya dentro de las subidas
    dentro.parent.mkdir(parents=True, exist_ok=True)
    if not dentro.is_symlink():
        dentro.symlink_to("/etc/hostname")
    return ["/etc/hostname", "/dev/zero", str(CHECKPOINT), str(enlace), str(dentro)]


def _toma_archivos(c) -> bool:
    return isinstance(c, gr.Image | gr.ImageEditor | gr.File)


def _datos(fn, ruta: str, todas: bool = False) -> list:
    """Un valor por entrada: el ataque en cada entrada de archivo (o en todas, con `todas`), None en el resto."""
    ataque = file_data(ruta)
    datos = []
    for c in fn.inputs:
        if isinstance(c, gr.ImageEditor):
            datos.append({"background": ataque, "layers": [ataque], "composite": ataque})
        else:
            datos.append(ataque if todas or _toma_archivos(c) else None)
    return datos


def _montaje(url_app: str, id_: str | None) -> tuple[str, gr.Blocks]:
    """(URL base, Blocks) de la suite (id_ None) o de /demo/<id_>/, montándola si hace falta."""
    base = url_app if id_ is None else f"{url_app}demo/{id_}/"
    httpx.get(f"{base}config", timeout=60).raise_for_status()
    if id_ is None:
        import app

        return base, app.demo
    return base, next(b for b in entradas.montados() if b.custom_mount_path == f"/demo/{id_}")


def _eventos_con_archivo(blocks: gr.Blocks, id_: str | None) -> list[tuple[int, object, bool]]:
    """(fn_index, fn, todas) de cada evento que toma archivos; si no hay, el evento público (ataque en todas)."""
    con_archivo = [(i, fn, False) for i, fn in blocks.fns.items() if any(_toma_archivos(c) for c in fn.inputs)]
    if con_archivo:
        return con_archivo
    api = (id_ or PESTANAS[0].id).replace("-", "_")
    return [(i, fn, True) for i, fn in blocks.fns.items() if fn.api_name == api]


def _tope_config(base: str) -> float:
    """3 s; en una máquina cargada (otros procesos, o estos mismos clientes, que comparten el GIL con el
    servidor), lo que `/config` ya tarda sin ataque: 5 veces su mediana o 2 veces su peor caso. Un
    `/dev/zero` aceptado no deja contestar nunca: cualquiera de los topes lo detecta."""
    with Sondeo(base, cada_s=0.05) as reposo:
        time.sleep(1.5)
    return max(3.0, 5 * statistics.median(reposo.tiempos), 2 * reposo.peor_s)


def _copias_en_la_cache() -> list[Path]:
    """Archivos de la caché de Gradio que serían copias de los del ataque."""
    nombres = {"hostname", "zero", CHECKPOINT.name}
    return [p for p in Path(get_upload_folder()).rglob("*") if p.name in nombres and not p.is_symlink()]


@pytest.mark.parametrize("id_", [None, *(p.id for p in PESTANAS)], ids=["suite", *(p.id for p in PESTANAS)])
def test_ningun_evento_acepta_un_archivo_del_servidor(url_app, rutas_ajenas, id_):
    base, blocks = _montaje(url_app, id_)
    eventos = _eventos_con_archivo(blocks, id_)
    assert eventos, "no se encontró qué atacar"
    ataques = [(fn, i, ruta, todas) for i, fn, todas in eventos for ruta in rutas_ajenas]
    tope = _tope_config(base)

    def atacar(ataque):
        fn, fn_index, ruta, todas = ataque
        respuesta = llamar(base, fn_index, _datos(fn, ruta, todas), timeout=20, como_pagina=True)
        return fn.api_name or fn.name, ruta, error_de(respuesta)

    with Sondeo(base) as sondeo, ThreadPoolExecutor(2) as pool:  # de a dos a la vez
        resultados = list(pool.map(atacar, ataques))
    aceptados = [r for r in resultados if NO_SUBIDO not in r[2]]
    assert aceptados == []
    sondeo.responde(tope)
    assert _copias_en_la_cache() == []


def test_cada_montaje_tiene_la_comprobacion_de_gradio_activa(url_app):
    """Si una versión de Gradio o un cambio del montaje la apagara, esto falla (y la app no arranca)."""
    for p in PESTANAS:
        _montaje(url_app, p.id)
    montados = entradas.montados()
    assert {b.custom_mount_path for b in montados} >= {"/", *(f"/demo/{p.id}" for p in PESTANAS)}
    for blocks in montados:
        assert blocks.has_launched
        entradas.comprobar_candado(blocks)  # no lanza
        componente = next(iter(blocks.blocks.values()))
        marca = LocalContext.blocks.set(blocks)
        try:  # la capa de Gradio sola, sin la revisión de la app: el mismo pedido que haría un atacante
            with pytest.raises(InvalidPathError, match="not uploaded by a user"):
                asyncio.run(
                    processing_utils.async_move_files_to_cache(
                        file_data("/etc/hostname"), componente, check_in_upload_folder=True
                    )
                )
        finally:
            LocalContext.blocks.reset(marca)


def test_un_montaje_sin_la_marca_de_launch_no_arranca():
    with gr.Blocks() as suelto:
        gr.Number()
    with pytest.raises(RuntimeError, match="nadie subió"):
        entradas.comprobar_candado(suelto)
    entradas.montar_protegido(__import__("fastapi").FastAPI(), suelto, path="/")
    assert suelto.has_launched
    entradas.comprobar_candado(suelto)


def _parches(url_app) -> tuple[str, gr.Blocks, int, object]:
    base, blocks = _montaje(url_app, None)
    fn_index, fn = next((i, fn) for i, fn in blocks.fns.items() if fn.api_name == "parches_vit")
    return base, blocks, fn_index, fn


def test_sin_la_revision_de_la_app_gradio_rechaza_igual(url_app, monkeypatch):
    """Capa 1 sola (la de Gradio, activa por `montar_protegido`): un archivo del servidor no entra ni se copia."""
    base, blocks, fn_index, fn = _parches(url_app)
    monkeypatch.setattr(blocks, "validate_inputs", type(blocks).validate_inputs.__get__(blocks))
    respuesta = llamar(base, fn_index, _datos(fn, "/etc/hostname"), como_pagina=True)
    assert not respuesta.get("success")
    assert _copias_en_la_cache() == []


def test_sin_la_marca_de_launch_la_revision_de_la_app_rechaza_igual(url_app, monkeypatch):
    """Capa 2 sola (la revisión previa): aun con la comprobación de Gradio apagada, /dev/zero no se abre."""
    base, blocks, fn_index, fn = _parches(url_app)
    monkeypatch.setattr(blocks, "has_launched", False)
    tope = _tope_config(base)
    with Sondeo(base) as sondeo:
        for ruta in ("/dev/zero", "/etc/hostname"):
            assert NO_SUBIDO in error_de(llamar(base, fn_index, _datos(fn, ruta), timeout=10, como_pagina=True))
    sondeo.responde(tope)
    assert _copias_en_la_cache() == []


def test_una_subida_de_verdad_sigue_funcionando(cliente, tmp_path):
    from gradio_client import handle_file
    from PIL import Image

    foto = tmp_path / "foto.png"
    Image.new("RGB", (40, 30), "white").save(foto)
    *_, texto = cliente.predict(imagen="mi imagen (subida)", subida=handle_file(str(foto)), api_name="/cbam_foto")
    assert "40 × 30" in texto
    assert os.path.exists(get_upload_folder())
