"""Lo privado de Gradio que usa servidor/gradio_interno.py sigue ahí y se porta igual (fijado a la versión).

Si una actualización de Gradio falla aquí, revisa servidor/gradio_interno.py antes de subir la
versión en requirements.txt: las sesiones baratas, el carril de las lentas y los trozos del
lienzo dependen de estos detalles.
"""

from __future__ import annotations

import gradio as gr
import pytest
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


def test_los_trozos_del_plot_son_plotly_la_figura_y_el_componente():
    """Lo que `modulos_del_plot` lee del frontend: el único trozo con Plotly.js, el que lo importa y su componente."""
    plotly, base, componente = gradio_interno.modulos_del_plot()
    trozos = gradio_interno.TROZOS
    con_plotly = [p.name for p in trozos.glob("*.js") if "newPlot" in p.read_text(encoding="utf-8", errors="replace")]
    assert con_plotly == [plotly] and (trozos / plotly).stat().st_size > 1_000_000
    assert f"import(`./{plotly}`)" in (trozos / base).read_text(encoding="utf-8")
    assert f'from"./{base}"' in (trozos / componente).read_text(encoding="utf-8")


def test_sin_el_mapa_de_componentes_no_se_precarga_nada(tmp_path):
    (tmp_path / "core-x.js").write_text("export{}", encoding="utf-8")
    assert gradio_interno.modulos_del_plot(tmp_path) == ()


def test_la_lista_del_desplegable_se_corrige_en_un_solo_trozo_y_solo_ahi():
    """En 6.31.0, un trozo (el de DropdownOptions) con las dos lecturas `choices[i][0]` de su `{#each}`; la
    corrección cambia esas dos y nada más, y el JS sigue siendo el mismo salvo `?.`."""
    corregidos = dict(gradio_interno.trozos_corregidos())
    corregidos.pop(gradio_interno.modulos_del_plot()[0])  # el de Plotly.js: las pruebas de abajo
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


def _registro(js: bytes) -> list[bytes]:
    return gradio_interno._REGISTRO.findall(js)[-1].split(b",")


def test_plotly_registra_solo_las_trazas_de_la_suite_y_lo_demas_queda_igual():
    """En 6.31.0, la lista de `register` del paquete entero tiene 49 elementos (48 trazas y los calendarios); el
    paquete recortado registra bar, heatmap e image (scatter viene con el núcleo), en su orden, y es el mismo JS
    salvo esa lista."""
    from demos.comun.figuras.pantalla import TRAZAS_PLOTLY

    nombre = gradio_interno.modulos_del_plot()[0]
    viejo = (gradio_interno.TROZOS / nombre).read_bytes()
    nuevo = gradio_interno.plotly_con_trazas(viejo, TRAZAS_PLOTLY)
    todos, quedan = _registro(viejo), _registro(nuevo)
    modulos = gradio_interno._modulos(viejo)
    assert len(todos) == 49 and len(quedan) == 3

    def tipo(elemento: bytes) -> str | None:
        return gradio_interno._traza_registrada(modulos, elemento)

    assert [tipo(e) for e in quedan] == ["bar", "heatmap", "image"]
    assert {"box", "violin", "scatter3d", "scattergeo", "candlestick"} <= {tipo(e) for e in todos}
    assert nuevo.replace(b",".join(quedan), b",".join(todos)) == viejo
    assert TRAZAS_PLOTLY == {"bar", "heatmap", "image", "scatter"}


def test_el_plotly_servido_no_llama_a_ningun_modulo_vaciado_y_pesa_menos_de_un_tercio():
    """Lo que sirve `plotly_recortado` en 6.31.0: sin los módulos que nada llama (maplibre, mapbox-gl, regl, d3-geo…)
    pesa menos de un tercio; cada módulo que el JS servido todavía llama conserva su cuerpo (los de las cuatro
    trazas entre ellos), y recortarlo otra vez no cambia nada."""
    nombre = gradio_interno.modulos_del_plot()[0]
    ((servido_a, servido),) = gradio_interno.plotly_recortado().items()
    entero = (gradio_interno.TROZOS / nombre).read_bytes()
    assert servido_a == nombre and len(servido) < len(entero) / 3
    assert all(m in entero and m not in servido for m in (b"createREGL", b"maputnik", b"geoPath"))
    cola = servido.rfind(b"return ", 0, list(gradio_interno._REGISTRO.finditer(servido))[-1].start())
    cuerpos = gradio_interno._cuerpos_limpios(servido, cola)
    vacios = {n for n, (inicio, fin) in cuerpos.items() if inicio == fin}
    llamados = set(gradio_interno._LLAMADA.findall(servido))
    assert len(vacios) > 500 and not (llamados & vacios)
    assert {e[:-2] for e in _registro(servido)} <= set(cuerpos) - vacios
    assert gradio_interno.sin_modulos_muertos(servido) == servido


PAQUETE = (
    b"var co=h((e,t)=>{t.exports=so()}),so=h((e,t)=>{var n=1;t.exports={moduleType:`trace`,name:`bar`,n}}),"
    b"qo=h((e,t)=>{t.exports=ko()}),ko=h((e,t)=>{t.exports={moduleType:`trace`,name:`heatmap`}}),"
    b"xo=h((e,t)=>{t.exports={moduleType:`trace`,name:`box`}}),"
    b"tT=h((e,t)=>{t.exports={moduleType:`component`,name:`calendars`}});"
    b"var n=Ga();n.register([co(),xo(),qo(),tT()]),t.exports=n"
)


def test_plotly_con_trazas_deja_las_pedidas_y_sin_una_se_sirve_entero():
    recortado = gradio_interno.plotly_con_trazas(PAQUETE, frozenset({"bar", "heatmap", "scatter"}))
    assert recortado == PAQUETE.replace(b"[co(),xo(),qo(),tT()]", b"[co(),qo()]")
    assert gradio_interno.plotly_con_trazas(PAQUETE, frozenset({"bar", "image", "scatter"})) is None  # falta image
    assert gradio_interno.plotly_con_trazas(b"var n=Ga();t.exports=n", frozenset({"bar"})) is None  # sin lista


def test_sin_el_trozo_de_plotly_no_se_recorta_nada(tmp_path):
    assert gradio_interno.plotly_recortado(tmp_path) == {}


def test_sin_modulos_muertos_vacia_solo_los_que_nada_llama_y_terminan_limpios():
    """`a` y `b` se alcanzan desde el registro; `c` no (y con él `d`, que solo `c` llama dentro de una plantilla, tras
    una expresión regular y una cadena con llaves); `f` no, pero tras él viene otro código (`function g`): queda
    entero; `k`, el último, tampoco se alcanza."""
    paquete = (
        b"var a=h((e,t)=>{t.exports=b()}),b=h((e,t)=>{t.exports={x:`}`,y:4/2,z:'{'}}),"
        b"c=h((e,t)=>{t.exports=/}/.test(`${d()}{`)}),d=h(e=>{e.y=1}),f=h(()=>{var q=1});"
        b"function g(){return 2}var k=h((e,t)=>{t.exports=1});"
        b"return h((e,t)=>{var n=Ga();n.register([a()]),t.exports=n})()"
    )
    esperado = (
        b"var a=h((e,t)=>{t.exports=b()}),b=h((e,t)=>{t.exports={x:`}`,y:4/2,z:'{'}}),"
        b"c=h((e,t)=>{}),d=h(e=>{}),f=h(()=>{var q=1});"
        b"function g(){return 2}var k=h((e,t)=>{});"
        b"return h((e,t)=>{var n=Ga();n.register([a()]),t.exports=n})()"
    )
    assert gradio_interno.sin_modulos_muertos(paquete) == esperado
    assert gradio_interno.sin_modulos_muertos(b"var a=h(e=>{})") == b"var a=h(e=>{})"  # sin registro: igual


@pytest.mark.parametrize(
    "js,cierre",
    [
        (b"{a:`}${`{`}}`}x", 13),  # plantillas anidadas con llaves
        (b"{x=/[}]\\//g.test(y)}", 19),  # expresión regular con } en su clase y una / escapada
        (b"{x=a/b/c}", 8),  # divisiones, no una expresión regular
        (b"{return/}/}", 10),  # tras return, / abre una expresión regular
        (b"{/* } */x('}')}", 14),
        (b"{x(`sin cerrar", None),
    ],
)
def test_cierre_salta_cadenas_plantillas_comentarios_y_expresiones_regulares(js, cierre):
    assert gradio_interno._cierre(js, 0) == cierre
