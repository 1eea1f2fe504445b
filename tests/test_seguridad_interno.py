"""Lo privado de Gradio que usan las dos puertas (servidor/gradio_interno.py y demos/comun/gradio_interno.py) sigue
ahí y se porta igual (fijado a la versión), y nadie más lo toca.

Si una actualización de Gradio falla aquí, revisa esas dos puertas antes de subir la versión en requirements.txt:
las sesiones baratas, la admisión de la cola, la revisión de las entradas, los montajes perezosos, la página
armada una vez, el barrido y los trozos del lienzo dependen de estos detalles.
"""

from __future__ import annotations

import ast
import copy
import inspect
import re
from pathlib import Path

import gradio as gr
from gradio.queueing import Event, EventQueue
from gradio.state_holder import SessionState

from servidor import gradio_interno
from servidor.gradio_interno import SesionBarata, Sesiones


def _pagina() -> gr.Blocks:
    with gr.Blocks() as demo:
        texto = gr.Textbox("hola")
        numero = gr.Slider(1, 10, value=3)
        estado = gr.State(None)
        gr.Button().click(lambda t, n, e: (t, n), [texto, numero, estado], [texto, numero])
    return demo


def test_la_version_de_gradio_es_la_probada():
    assert gr.__version__ == gradio_interno.VERSION_PROBADA, (
        f"Gradio {gr.__version__}: servidor/gradio_interno.py se probó con {gradio_interno.VERSION_PROBADA}"
    )


def test_la_sesion_barata_tiene_lo_mismo_que_la_de_gradio():
    demo = _pagina()
    de_gradio, barata = SessionState(demo), SesionBarata(demo)
    assert set(vars(de_gradio)) == set(vars(barata)) - {"_ids_iniciales"}
    assert not barata.config_values  # nada calculado al crearla
    inicial = copy.deepcopy(list(de_gradio.components))
    assert list(barata.components) == inicial
    clave = next(k for k, b in demo.blocks.items() if isinstance(b, gr.Textbox))
    for sesion in (de_gradio, barata):
        sesion._update_value_in_config(clave, "otro")
    # Gradio copia el valor en `config_values` (lo que la sesión barata no hace: SECURITY.md §9)…
    assert de_gradio.config_values[clave]["props"]["value"] == "otro"
    assert list(barata.components) == inicial


def test_la_sesion_barata_guarda_lo_que_gradio_lee_de_la_sesion():
    """Lo que `Blocks.preprocess_data`/`postprocess_data` leen después (`state[id]`, `id in state`, los `gr.State`
    con su vida) queda igual que en la de Gradio; solo falta la copia de los valores en `config_values`."""
    demo = _pagina()
    texto = next(b for b in demo.blocks.values() if isinstance(b, gr.Textbox))
    estado = next(b for b in demo.blocks.values() if isinstance(b, gr.State))
    otro = gr.Textbox("otro", render=False)
    de_gradio, barata = SessionState(demo), SesionBarata(demo)
    for sesion in (de_gradio, barata):
        sesion[texto._id] = otro
        sesion[estado._id] = {"modelo": 1}
        sesion._update_config(texto._id)
    for clave in (texto._id, estado._id):
        assert (clave in barata, barata[clave]) == (clave in de_gradio, de_gradio[clave])
    assert barata._state_ttl.keys() == de_gradio._state_ttl.keys() == {estado._id}
    assert [v for _, v, _ in barata.state_components] == [v for _, v, _ in de_gradio.state_components]
    assert all(
        "value" not in c.get("props", {}) or c["props"]["value"] != "otro" for c in barata.config_values.values()
    )
    # Las llamadas de Gradio que la sesión barata cambia, todavía con esos nombres y en esos sitios.
    fuente = inspect.getsource(gr.Blocks.postprocess_data) + inspect.getsource(gr.Blocks.preprocess_data)
    assert fuente.count("state._update_value_in_config(") >= 3
    assert "state._update_config(block._id)" in fuente


def test_la_cola_guarda_los_mensajes_hasta_que_alguien_lee_el_flujo():
    """`pending_messages_per_session` (una cola de mensajes por sesión) y `pending_event_ids_session` (los ids que
    aún no se entregaron): `gradio_interno.sin_leer` y `soltar_sin_leer` cuentan con eso; el lector del flujo quita
    el id al entregar su `process_completed` (tests/test_seguridad_memoria.py lo prueba con un servidor)."""
    import asyncio

    from gradio import routes
    from gradio.queueing import Queue
    from gradio.server_messages import ProcessCompletedMessage

    demo = _pagina()
    cola = Queue(False, 1, 1.0, None, demo)
    assert isinstance(cola.pending_event_ids_session, dict) and isinstance(cola.event_ids_to_events, dict)
    cola.pending_messages_per_session["s"] = asyncio.Queue()
    cola.pending_event_ids_session["s"] = {"a", "b"}
    cola.event_ids_to_events["b"] = object()  # «b» corre todavía; «a» terminó y nadie lo leyó
    for evento in ("a", "b"):
        cola.pending_messages_per_session["s"].put_nowait(ProcessCompletedMessage(output={}, success=True))
        cola.pending_messages_per_session["s"]._queue[-1].event_id = evento
    assert gradio_interno.sin_leer(cola) == {"a": "s"}
    assert gradio_interno.soltar_sin_leer(cola, {"a": "s"}) == 1
    assert cola.pending_event_ids_session == {"s": {"b"}}
    assert [m.event_id for m in cola.pending_messages_per_session["s"]._queue] == ["b"]
    fuente = inspect.getsource(routes.App.create_app)
    assert re.search(r"pending_event_ids_session\[\s*session_hash\s*\]\.remove\(message\.event_id\)", fuente)
    assert "def send_message" in inspect.getsource(Queue) and "pending_messages_per_session[event.session_hash]" in (
        inspect.getsource(Queue.send_message)
    )


def test_el_state_holder_tiene_lo_que_sesiones_reemplaza():
    sesiones = Sesiones(capacidad=2, vida_s=60)
    sesiones.set_blocks(_pagina())
    assert sesiones.capacity == 2 and sesiones.blocks.state_holder is sesiones
    for nombre in ("session_data", "time_last_used", "lock", "delete_all_expired_state", "delete_state"):
        assert hasattr(sesiones, nombre), nombre
    assert isinstance(sesiones["a"], SesionBarata)


def test_la_cola_elige_la_fila_por_el_concurrency_id_del_evento():
    demo = _pagina()
    fn = next(iter(demo.fns.values()))
    evento = Event("sesion", fn, None, None)
    assert evento.concurrency_id == fn.concurrency_id
    fila = EventQueue("lento:x", 1)
    assert (fila.concurrency_id, fila.concurrency_limit, fila.queue) == ("lento:x", 1, [])


def test_el_lienzo_guarda_sus_trozos_en_blob_storage():
    editor = gr.ImageEditor()
    assert isinstance(editor.blob_storage, dict)
    assert getattr(editor.accept_blobs, "_is_server_fn", False)
    assert "accept_blobs" in editor.get_config().get("server_fns", [])


def test_la_lista_del_desplegable_se_corrige_en_un_solo_trozo_y_solo_ahi():
    """En 6.31.0, un trozo (el de DropdownOptions) con las dos lecturas `choices[i][0]` de su `{#each}`; la
    corrección cambia esas dos y nada más, y el JS sigue siendo el mismo salvo `?.`."""
    corregidos = dict(gradio_interno.trozos_corregidos())
    assert len(corregidos) == 1, (
        f"La corrección del desplegable se aplicó a {len(corregidos)} trozos (se esperaba 1, el de DropdownOptions): "
        "revisa `_OPCION_VIEJA` en servidor/gradio_interno.py, o si esta versión de Gradio ya no tiene el error"
    )
    ((nombre, nuevo),) = corregidos.items()
    assert nombre.startswith("Index-")
    viejo = (gradio_interno.TROZOS / nombre).read_bytes()
    assert viejo.count(b"][0]") - nuevo.count(b"][0]") == gradio_interno.CORRECCIONES_ESPERADAS
    assert nuevo.count(b"]?.[0]") - viejo.count(b"]?.[0]") == gradio_interno.CORRECCIONES_ESPERADAS
    assert nuevo.replace(b"?.[0]", b"[0]") == viejo.replace(b"?.[0]", b"[0]")
    assert b"aria-posinset" in nuevo  # la lista de opciones, no otro `choices`


def test_sin_la_lista_del_desplegable_no_se_corrige_nada(tmp_path):
    (tmp_path / "Index-x.js").write_bytes(b"const filtered_indices=[];e.choices[0][1]")
    (tmp_path / "Index-y.js").write_bytes(b"t.choices[g(n)][0]")  # sin la lista: otro componente
    assert gradio_interno.trozos_corregidos(tmp_path) == {}


def test_el_pedido_del_evento_esta_en_el_contexto_de_gradio():
    """`gradio_interno.peticion_actual` lee `LocalContext.request`, que Gradio pone antes de cada llamada y de cada
    paso de un generador (tests/test_seguridad_taller.py lo prueba con un servidor)."""
    from contextvars import ContextVar

    from gradio import utils
    from gradio.context import LocalContext

    assert isinstance(LocalContext.request, ContextVar)
    fuente = inspect.getsource(utils.get_function_with_locals)
    assert "LocalContext.request.set(request)" in fuente and "before_fn" in fuente
    assert "before_fn(*before_args)" in inspect.getsource(utils.function_wrapper)
    assert gradio_interno.peticion_actual() is None


# --- las puertas: lo que cada una toca, todavía ahí --------------------------------------------------


def test_la_puerta_del_kit_es_la_misma_del_servidor():
    from demos.comun import gradio_interno as del_kit

    assert del_kit.VERSION_PROBADA == gradio_interno.VERSION_PROBADA == gr.__version__
    for nombre in del_kit.__all__:
        assert getattr(gradio_interno, nombre) is getattr(del_kit, nombre), nombre


def test_la_pagina_en_construccion_es_el_blocks_abierto_y_id_de_su_clave():
    """`Context.root_block` (el barrido engancha su `load`; app.py marca los bloques de cada pestaña) y `Block._id`
    (la clave de un paquete de paradas): el número con que el bloque está en `blocks.blocks` y en la configuración."""
    assert gradio_interno.pagina_en_construccion() is None
    with gr.Blocks() as demo:
        assert gradio_interno.pagina_en_construccion() is demo
        texto = gr.Textbox()
        assert demo.blocks[gradio_interno.id_de(texto)] is texto
    assert gradio_interno.pagina_en_construccion() is None
    ids = {c["id"] for c in demo.get_config_file()["components"]}
    assert gradio_interno.id_de(texto) in ids


def test_gradio_model_es_el_modelo_de_lo_que_llega_a_un_componente():
    """controles.tolerante hereda del `data_model` de un componente, que es un `GradioModel` (pydantic)."""
    from pydantic import BaseModel

    assert issubclass(gradio_interno.GradioModel, BaseModel)
    assert issubclass(gr.Image.data_model, gradio_interno.GradioModel)
    assert issubclass(gr.ImageEditor.data_model, gradio_interno.GradioModel)


def test_la_carpeta_de_subidas_es_la_de_gradio_temp_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))
    assert gradio_interno.carpeta_de_subidas() == tmp_path


def test_el_lienzo_lee_y_guarda_sus_trozos_en_blob_storage():
    """demos/comun/imagenes.py saca el dibujo de `trozos_del_lienzo`; laterales lo cambia por uno acotado."""
    from gradio.components import image_editor

    editor = gr.ImageEditor()
    assert gradio_interno.trozos_del_lienzo(editor) is editor.blob_storage
    fuente = inspect.getsource(image_editor.ImageEditor)
    assert "self.blob_storage[id] = current" in fuente and "self.blob_storage.get(payload.id)" in fuente

    class Acotado(dict):
        pass

    gradio_interno.guardar_trozos_en(editor, Acotado)
    assert isinstance(gradio_interno.trozos_del_lienzo(editor), Acotado)


def test_la_cola_del_blocks_recibe_cada_join_por_push():
    """admision.configurar_cola envuelve `Queue.push` (`envolver_push`): la ruta `queue/join` de Gradio lo llama
    con esos nombres, y `eventos` y `id_de_evento` leen las filas, los trabajos en curso y el `_id` de un evento."""
    from gradio import routes
    from gradio.queueing import Queue

    assert list(inspect.signature(Queue.push).parameters) == ["self", "body", "request", "username"]
    assert re.search(
        r"await blocks\._queue\.push\(\s*body=body, request=request, username=username",
        (inspect.getsource(routes.App.create_app)),
    )
    demo = _pagina().queue()
    cola = gradio_interno.cola_de(demo)
    assert isinstance(cola, Queue)
    vistos = []
    gradio_interno.envolver_push(cola, lambda push: vistos.append(push) or "envuelto")
    assert cola.push == "envuelto" and vistos[0].__func__ is Queue.push
    fn = next(iter(demo.fns.values()))
    evento = Event("sesion", fn, None, None)
    cola.event_queue_per_concurrency_id[fn.concurrency_id] = fila = EventQueue(fn.concurrency_id, 1)
    fila.queue.append(evento)
    cola.active_jobs = [None, [Event("otra", fn, None, None)]]
    assert [e.session_hash for e in gradio_interno.eventos(cola)] == ["sesion", "otra"]
    assert isinstance(gradio_interno.id_de_evento(evento), str) and gradio_interno.id_de_evento(evento)
    assert evento.fn is fn and len(cola) == 1  # los que esperan (el mensaje de la cola llena)


def test_revisar_antes_corre_antes_de_la_validacion_de_gradio():
    """`Blocks.validate_inputs` es lo primero que Gradio hace con los valores crudos (`preprocess_data`)."""
    assert "self.validate_inputs(block_fn, inputs)" in inspect.getsource(gr.Blocks.preprocess_data)
    demo = _pagina()
    fn = next(iter(demo.fns.values()))
    vistos = []
    gradio_interno.revisar_antes(demo, lambda block_fn, inputs: vistos.append(inputs))
    gradio_interno.revisar_antes(demo, lambda block_fn, inputs: vistos.append("dos veces"))
    demo.validate_inputs(fn, ["hola", 3, None])
    assert vistos == [["hola", 3, None]]


def test_el_candado_de_archivos_depende_de_has_launched():
    """Sin `has_launched`, `_check_allowed` acepta cualquier ruta: `marcar_lanzado` lo marca como `launch()`."""
    from gradio import processing_utils

    assert "blocks.has_launched" in inspect.getsource(processing_utils._check_allowed)
    demo = _pagina()
    assert not demo.has_launched
    assert gradio_interno.acepta_ruta_ajena(demo, "/no-la-subio-nadie.png")
    gradio_interno.marcar_lanzado(demo)
    assert not gradio_interno.acepta_ruta_ajena(demo, "/no-la-subio-nadie.png")


def test_un_montaje_arranca_como_en_mount_gradio_app():
    """`arrancar_montaje` hace lo que `gr.mount_gradio_app` pone en el contexto de vida de la app (que ya corrió
    cuando asgi.MontajesPerezosos monta una pestaña), y `ruta_de_montaje` lee lo que marca."""
    from gradio import routes

    fuente = inspect.getsource(routes.mount_gradio_app)
    assert "async with gradio_app.router.lifespan_context(gradio_app):" in fuente
    assert "gradio_app.get_blocks().run_startup_events()" in fuente
    assert "await gradio_app.get_blocks().run_extra_startup_events()" in fuente
    assert "blocks.custom_mount_path = path" in fuente
    puerta = inspect.getsource(gradio_interno.arrancar_montaje)
    for linea in ("router.lifespan_context(app_gradio)", "run_startup_events()", "run_extra_startup_events()"):
        assert linea in puerta


def test_la_plantilla_trae_el_guion_de_la_informacion_del_api():
    """servidor/pagina.py pone la raíz de los ejemplos de código en este guion del HTML de Gradio."""
    plantilla = (gradio_interno.TROZOS.parent / "index.html").read_bytes()
    inicio, fin = gradio_interno.GUION_API_INFO
    assert plantilla.count(inicio) == 1 and fin in plantilla.split(inicio)[1]


# --- nadie más toca lo privado -------------------------------------------------------------------------

PUERTAS = {"servidor/gradio_interno.py", "demos/comun/gradio_interno.py"}
# Atributos de objetos de Gradio que no son su API pública: solo las puertas los leen o los cambian.
PRIVADOS = {
    "_queue", "_id", "root_block", "has_launched", "validate_inputs", "blob_storage", "custom_mount_path",
    "pending_messages_per_session", "pending_event_ids_session", "event_queue_per_concurrency_id",
    "event_ids_to_events", "active_jobs", "run_startup_events", "run_extra_startup_events", "lifespan_context",
    "state_holder", "_check_allowed", "user_middleware", "default_config",
}  # fmt: skip
# Módulos de Gradio que `import gradio as gr` no da como API (gr.context, gr.utils, …).
MODULOS_PRIVADOS = {
    "blocks", "components", "context", "data_classes", "exceptions", "helpers", "processing_utils", "queueing",
    "route_utils", "routes", "server_messages", "state_holder", "utils",
}  # fmt: skip


def _fuentes_del_proyecto():
    raiz = Path(__file__).resolve().parent.parent
    yield raiz / "app.py"
    for paquete in ("demos", "servidor"):
        yield from sorted((raiz / paquete).rglob("*.py"))


def _toques(archivo) -> list[str]:
    """Lo privado de Gradio que toca un archivo (con su línea): imports de sus módulos y atributos de la lista."""
    toques = []
    for nodo in ast.walk(ast.parse(archivo.read_text(encoding="utf-8"))):
        if isinstance(nodo, ast.ImportFrom) and (nodo.module or "").startswith("gradio."):
            nombres = [f"from {nodo.module} import …"]
        elif isinstance(nodo, ast.ImportFrom) and nodo.module == "gradio":
            nombres = [f"from gradio import {a.name}" for a in nodo.names if a.name in MODULOS_PRIVADOS]
        elif isinstance(nodo, ast.Import):
            nombres = [f"import {a.name}" for a in nodo.names if a.name.startswith("gradio.")]
        elif isinstance(nodo, ast.Attribute) and nodo.attr in PRIVADOS:
            nombres = [f".{nodo.attr}"]
        elif isinstance(nodo, ast.Attribute) and isinstance(nodo.value, ast.Name) and nodo.value.id == "gr":
            nombres = [f"gr.{nodo.attr}"] if nodo.attr in MODULOS_PRIVADOS else []
        else:
            nombres = []
        toques += [f"{n} (línea {nodo.lineno})" for n in nombres]
    return toques


def test_lo_privado_de_gradio_se_toca_solo_en_las_dos_puertas():
    """Un `gr.context…`, un `from gradio.utils import …` o un `blocks._queue` fuera de las puertas falla aquí:
    va a servidor/gradio_interno.py (o, si lo usa el kit de las pestañas, a demos/comun/gradio_interno.py), con su
    prueba en este archivo."""
    raiz = Path(__file__).resolve().parent.parent
    fuera = {
        str(a.relative_to(raiz)): t
        for a in _fuentes_del_proyecto()
        if str(a.relative_to(raiz)) not in PUERTAS and (t := _toques(a))
    }
    assert not fuera, f"Lo privado de Gradio fuera de las puertas: {fuera}"


def test_la_busqueda_de_lo_privado_ve_cada_forma(tmp_path):
    archivo = tmp_path / "x.py"
    archivo.write_text(
        "import gradio as gr\nfrom gradio.utils import f\nfrom gradio import context\nimport gradio.routes\n"
        "r = gr.context.Context\nq = demo._queue\nbloque._id\n"
    )
    assert len(_toques(archivo)) == 6
