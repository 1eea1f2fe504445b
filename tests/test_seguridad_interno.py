"""Lo privado de Gradio que usa servidor/gradio_interno.py sigue ahí y se porta igual (fijado a la versión).

Si una actualización de Gradio falla aquí, revisa servidor/gradio_interno.py antes de subir la
versión en requirements.txt: las sesiones baratas, el carril de las lentas y los trozos del
lienzo dependen de estos detalles.
"""

from __future__ import annotations

import copy
import inspect
import re

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
