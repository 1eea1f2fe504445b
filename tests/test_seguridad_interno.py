"""Lo privado de Gradio que usa servidor/gradio_interno.py sigue ahí y se porta igual (fijado a la versión).

Si una actualización de Gradio falla aquí, revisa servidor/gradio_interno.py antes de subir la
versión en requirements.txt: las sesiones baratas, el carril de las lentas y los trozos del
lienzo dependen de estos detalles.
"""

from __future__ import annotations

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
    assert list(barata.components) == list(de_gradio.components)
    clave = next(k for k, b in demo.blocks.items() if isinstance(b, gr.Textbox))
    for sesion in (de_gradio, barata):
        sesion._update_value_in_config(clave, "otro")
    assert list(barata.components) == list(de_gradio.components)


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
