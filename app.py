"""Atención y transformers: las demos de la lección, en Gradio.

python app.py                      todas las pestañas en una página
python app.py --demo temperatura   una sola pestaña
python app.py --exportar temperatura --salida t.html --param T=0.5   la vista en un HTML sin servidor
gradio app.py                      modo recarga (usa el `demo` de este módulo)

Este módulo arma las páginas (la suite y cada pestaña suelta) y tiene la CLI; lo que sirve y el
proceso viven en `servidor/`. Al importarlo: `servidor.proceso.preparar()` (carpeta propia del
proceso, arenas de malloc, hilos de torch: antes de crear un solo componente) y se arma `demo`,
la suite con su cola, que es lo que `gradio app.py` lanza. Servir (`main`) arranca además la
precarga de checkpoints y la app ASGI de `servidor.asgi`.
"""

from __future__ import annotations

# ZeroGPU pide importar `spaces` antes que nada que pueda tocar CUDA; fuera de ZeroGPU no hace nada.
import spaces  # noqa: F401

# isort: split
import argparse
import json
import logging
import os
import weakref

import gradio as gr

from servidor import proceso

# Antes de importar las pestañas y de crear un solo componente: todo lo que el proceso escriba
# (subidas y caché de Gradio, figuras, descargas) va a su carpeta propia (servidor/disco.py), y
# los hilos de torch y las arenas de malloc quedan fijados para los hilos de trabajo.
proceso.preparar()

# isort: split
from demos import PESTANAS, POR_ID, Pestana, buscar  # noqa: E402
from demos.comun import barrido  # noqa: E402
from demos.comun.vista import Vista, un_reloj  # noqa: E402
from demos.comun.zerogpu import arrancar_zerogpu  # noqa: E402
from demos.servir import pagina  # noqa: E402
from demos.servir.conectar import (  # noqa: E402
    acompanantes,
    conectar,
    figuras_en_la_pagina,
    ocultar_controles,
    vista_inicial,
)
from servidor import disco  # noqa: E402
from servidor.admision import configurar_cola  # noqa: E402
from servidor.asgi import crear_app  # noqa: E402
from servidor.gradio_interno import pagina_en_construccion  # noqa: E402

TITULO = "Atención y transformers"

_VISTAS: weakref.WeakKeyDictionary[gr.Blocks, dict[str, Vista]] = weakref.WeakKeyDictionary()


def vistas(blocks: gr.Blocks) -> dict[str, Vista]:
    """Las vistas de las pestañas de una página armada aquí (`demo` o `construir_una`), por id."""
    return _VISTAS[blocks]


def _parametros(request: gr.Request | None) -> dict[str, str]:
    return dict(request.query_params) if request is not None else {}


def _pestana(p: Pestana) -> Vista:
    """Crea la pestaña `p` en el contexto actual y conecta su evento público.

    Cada componente nuevo queda marcado con `pestana` = el id: el log de una entrada rechazada la nombra.
    """
    raiz = pagina_en_construccion()
    antes = set(raiz.blocks) if raiz is not None else set()
    vista = p.cargar().construir()
    conectar(vista, api_name=p.api, prefijo=p.id)
    for id_bloque, bloque in raiz.blocks.items() if raiz is not None else ():
        if id_bloque not in antes:
            bloque.pestana = p.id
    return vista


def construir_suite(pestanas: tuple[Pestana, ...] = PESTANAS) -> gr.Blocks:
    """Todas las pestañas en una página. `/?tab=<id>` abre en esa pestaña."""
    with gr.Blocks(title=TITULO, delete_cache=(600, 3600)) as suite:
        gr.Markdown(
            f"# {TITULO}\nDemos interactivas de la lección. Mueve un control y mira la figura.", elem_id="cabecera"
        )
        partes = []
        grupos: dict[str, tuple[gr.Tab, gr.Tabs, list]] = {}  # grupo -> (su pestaña, sus Tabs, sus partes)
        # La barra: arriba los grupos (las partes de la lección), debajo las pestañas del grupo; con
        # overflow_behavior="wrap" ninguna se esconde tras «⋯» ni cambia de lugar al elegirla.
        with gr.Tabs(elem_id="grupos", overflow_behavior="wrap") as tabs:
            for g in dict.fromkeys(p.grupo for p in pestanas):
                with (
                    gr.Tab(g, id=_id_grupo(g), elem_id=_id_grupo(g)) as tab_grupo,
                    gr.Tabs(elem_classes=["pestanas-del-grupo"], overflow_behavior="wrap") as tabs_grupo,
                ):
                    grupos[g] = (tab_grupo, tabs_grupo, [])
                    for p in (p for p in pestanas if p.grupo == g):
                        with gr.Tab(_titulo(p), id=p.id, elem_id=f"pestana-{p.id}") as tab:
                            vista = _pestana(p)
                            abierta = gr.State(False)
                        partes.append((p, vista, abierta, tab))
                        grupos[g][2].append(partes[-1])
        _VISTAS[suite] = {p.id: vista for p, vista, _, _ in partes}
        # La pestaña que abre sin ?tab= trae sus figuras en la página, como /demo/<id>/; las demás
        # llegan al elegirlas (o con `load`, si la URL las pide): la página no carga las de todas.
        figuras_en_la_pagina(pestanas[0].id, partes[0][1])

        def al_cargar(request: gr.Request, *valores):
            parametros = _parametros(request)
            elegida = parametros.get("tab", pestanas[0].id)
            if elegida not in {p.id for p in pestanas}:
                if "tab" in parametros:
                    aviso = f"No hay una pestaña «{elegida[:40]}»; se abre la primera."
                    pagina.avisar_url(aviso, parametros)
                elegida = pestanas[0].id
            # La pestaña la elige el navegador al abrir (ELEGIR_PESTANA_JS): elegirla aquí, al llegar la respuesta,
            # deshacía un «Siguiente» o un clic en otra pestaña que el estudiante hiciera antes.
            salida: list = []
            acompanan: list = []  # ?controles=: al final, lo que escribe un control oculto (log T, «d = 64»)
            k = 0
            for p, vista, _, _ in partes:
                n = len(vista.entradas)
                if p.id == elegida:
                    entradas, salidas = vista_inicial(p.id, vista, parametros, list(valores[k : k + n]))
                    entradas, suyos = ocultar_controles(vista, parametros, entradas)
                    salida += [True, *entradas, *salidas]
                    acompanan += suyos
                else:
                    salida += [gr.skip()] * (1 + n + len(vista.salidas_de_pagina))
                    acompanan += [gr.skip()] * len(acompanantes(vista))
                k += n
            return [*salida, *acompanan]

        todas_entradas = [c for _, v, _, _ in partes for c in v.entradas]
        # `?tab=<id>`: la elige el navegador en cuanto se arma la página, sin esperar al servidor (que llena su vista
        # con la carga de abajo). La pestaña pedida va dentro de su grupo: se eligen los dos, el grupo y ella dentro.
        por_grupo = list(grupos)
        suite.load(
            None,
            outputs=[tabs, *(tabs_grupo for _, tabs_grupo, _ in grupos.values())],
            js=elegir_pestana_js({p.id: (_id_grupo(p.grupo), por_grupo.index(p.grupo)) for p in pestanas}),
            api_visibility="private",
            show_progress="hidden",
        )
        todas_salidas = []
        for _, v, abierta, _ in partes:
            todas_salidas += [abierta, *v.entradas, *v.salidas_de_pagina]
        todas_salidas += [c for _, v, _, _ in partes for c in acompanantes(v)]
        # El reloj, solo en la primera figura de la pestaña que abre sin ?tab= (con «full» en las 134 salidas,
        # cada una ponía su capa animada mientras la página carga).
        suite.load(
            al_cargar,
            inputs=todas_entradas,
            outputs=todas_salidas,
            api_visibility="private",
            **un_reloj(partes[0][1].salidas),
        )

        for p, vista, abierta, tab in partes:
            tab.select(
                _abrir_si_falta(p, vista),
                inputs=[abierta, *vista.entradas],
                outputs=[abierta, *vista.entradas, *vista.salidas_de_pagina],
                api_visibility="private",
                **un_reloj(vista.salidas),
            )
        for tab_grupo, _, del_grupo in grupos.values():
            tab_grupo.select(
                _abrir_grupo_si_falta(del_grupo),
                inputs=[c for _, vista, abierta, _ in del_grupo for c in (abierta, *vista.entradas)],
                outputs=[
                    c
                    for _, vista, abierta, _ in del_grupo
                    for c in (abierta, *vista.entradas, *vista.salidas_de_pagina)
                ],
                api_visibility="private",
                **un_reloj(del_grupo[0][1].salidas),  # la primera del grupo: la que se ve al abrirlo
            )
    return suite


def elegir_pestana_js(grupos: dict[str, tuple[str, int]]) -> str:
    """El `js=` de la carga que elige la pestaña de `?tab=<id>` en el navegador. `grupos`: id -> (id de su grupo,
    su lugar entre los grupos). Devuelve un cambio para la barra de grupos y otro para las pestañas de ese grupo;
    `undefined` deja las demás como están (y un id que no existe, todas: la carga del servidor lo avisa)."""
    return """() => {
  const grupos = __GRUPOS__;
  const id = new URLSearchParams(location.search).get("tab");
  if (!id || !Object.hasOwn(grupos, id)) return [];
  const [grupo, k] = grupos[id];
  const salida = [{__type__: "update", selected: grupo}];
  salida[1 + k] = {__type__: "update", selected: id};
  return salida;
}""".replace("__GRUPOS__", json.dumps(grupos))


def _id_grupo(grupo: str) -> str:
    """«La arquitectura» -> «grupo-la-arquitectura»: el id y el elem_id de la pestaña del grupo."""
    return "grupo-" + "-".join(grupo.lower().split())


def _titulo(p: Pestana) -> str:
    return f"{p.titulo} · del tutorial" if p.del_tutorial else p.titulo


def _abrir_grupo_si_falta(partes: list):
    """Al elegir un grupo se ve la pestaña que tenga elegida: se llenan todas las del grupo que falten."""
    abrir = [_abrir_si_falta(p, vista) for p, vista, _, _ in partes]
    tamanos = [1 + len(vista.entradas) for _, vista, _, _ in partes]

    def abrir_todas(request: gr.Request, *valores):
        salida, k = [], 0
        for f, n in zip(abrir, tamanos, strict=True):
            salida += f(request, *valores[k : k + n])
            k += n
        return salida

    return abrir_todas


def _abrir_si_falta(p: Pestana, vista: Vista):
    """Al elegir una pestaña por primera vez, llena su vista inicial (calculada una vez por proceso)."""

    def abrir(request: gr.Request, abierta, *valores):
        if abierta:
            return [gr.skip()] * (1 + len(vista.entradas) + len(vista.salidas_de_pagina))
        # La pestaña de ?tab= la elige el navegador al abrir la página, antes de que llegue la carga (`al_cargar`,
        # con los ajustes de la URL): esta elección llega antes o después que ella. Con la vista de siempre, si
        # llegaba después, ?tab=variantes&L=12 dejaba L en 12 y la figura y sus paradas en 16 × 16. Con los mismos
        # ajustes, las dos dan lo mismo (los avisos, solo la carga).
        parametros = _parametros(request)
        propios = parametros if parametros.get("tab") == p.id else {}
        entradas, salidas = vista_inicial(p.id, vista, propios, list(valores), avisar=False)
        return [True, *entradas, *salidas]

    return abrir


def construir_una(id_: str) -> gr.Blocks:
    """Una sola pestaña, para incrustarla en diapositivas."""
    p = buscar(id_)
    with gr.Blocks(title=f"{p.titulo} · {TITULO}", delete_cache=(600, 3600)) as una:
        gr.Markdown(f"## {p.titulo}", elem_id="cabecera")
        vista = _pestana(p)
        figuras_en_la_pagina(p.id, vista)  # la primera figura llega con la página, no con `load`
        _VISTAS[una] = {p.id: vista}

        def al_cargar(request: gr.Request, *valores):
            parametros = _parametros(request)
            entradas, salidas = vista_inicial(p.id, vista, parametros, list(valores))
            entradas, acompanan = ocultar_controles(vista, parametros, entradas)  # ?controles=
            return [*entradas, *salidas, *acompanan]

        una.load(
            al_cargar,
            inputs=vista.entradas,
            outputs=[*vista.entradas, *vista.salidas_de_pagina, *acompanantes(vista)],
            api_visibility="private",
        )
    return una


TAMANO_MAXIMO_SUBIDA = "10mb"  # Gradio rechaza antes de leer lo que pase de aquí


def opciones_lanzamiento() -> dict:
    """Las opciones de cada montaje (`gr.mount_gradio_app`): estilo, modo presentación, límite de subida."""
    return {
        **pagina.opciones(),  # tema, idioma, CSS y JS: demos/servir/pagina/
        # barrido.js, una vez por página: el `js=` de cada evento de barrido (35 en la suite) llama a esta función.
        "head": barrido.cabeza_js(),
        "footer_links": [],  # sin pie: sus enlaces («Use via API · Built with Gradio») no se traducen
        # Sin historial de llamadas: Gradio guardaba cada una, con su figura, en el localStorage del alumno y lo
        # reescribía entero en cada movimiento (scripts/perfil_redibujo.py --sin-historial), y abría rutas para
        # conectarlo a un bucket del Hub.
        "run_history": False,
        "max_file_size": TAMANO_MAXIMO_SUBIDA,
    }


demo = configurar_cola(construir_suite())  # también para `gradio app.py`, que lanza este `demo`


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=TITULO)
    parser.add_argument("--demo", metavar="ID", choices=[p.id for p in PESTANAS], help="sirve una sola pestaña")
    parser.add_argument(
        "--host",
        default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        help="dirección (0.0.0.0 para la red local; en un Space la fija GRADIO_SERVER_NAME)",
    )
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    # --- exportar: la vista de una pestaña en un solo HTML que funciona sin servidor (demos/servir/exportar) ---
    parser.add_argument("--exportar", metavar="ID", help="escribe la vista de esa pestaña en un HTML sin servidor")
    parser.add_argument("--salida", metavar="ARCHIVO.html", help="dónde escribe --exportar")
    parser.add_argument(
        "--param", metavar="nombre=valor", action="append", default=[], help="un ajuste de la URL de la pestaña"
    )
    parser.add_argument("--base", metavar="URL", help="la dirección de la app para el enlace a la pestaña en vivo")
    args = parser.parse_args(argv)
    if args.exportar is not None:
        raise SystemExit(exportar(args.exportar, args.salida, args.param, args.base))
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    import uvicorn

    arrancar_zerogpu()  # en ZeroGPU lo haría launch(); aquí sirve uvicorn
    proceso.arrancar_precarga()
    print(f"* Atención y transformers en http://{args.host}:{args.port}/", flush=True)
    print(f"* Archivos de este proceso en {disco.carpeta()} (se borran al salir)", flush=True)
    propio = f"{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}"
    host_propio = os.environ.get("SPACE_HOST") or propio
    if args.demo is not None:  # una sola pestaña en «/»
        asgi = crear_app(construir_una(args.demo), opciones=opciones_lanzamiento(), host_propio=host_propio)
    else:  # la suite en «/» y cada pestaña en /demo/<id>/
        asgi = crear_app(demo, construir_una, POR_ID, opciones_lanzamiento(), host_propio)
    uvicorn.run(asgi, host=args.host, port=args.port, log_level="warning")


def exportar(id_: str, salida: str | None, pares: list[str], base: str | None) -> int:
    """`--exportar`: escribe el archivo y devuelve 0, o dice en español qué no sirve (y lo que hay) y devuelve 2."""
    import sys

    from demos.servir.exportar.orden import exportar_id, leer_parametros

    try:
        if not salida:
            raise ValueError("Falta --salida ARCHIVO.html: dónde escribir la vista exportada.")
        pagina = exportar_id(id_, leer_parametros(pares), base)
    except ValueError as e:
        print(f"No se exportó: {e}", file=sys.stderr)
        return 2
    try:
        with open(salida, "w", encoding="utf-8") as f:
            f.write(pagina)
    except OSError as e:
        print(f"No se exportó: no se puede escribir «{salida}» ({e.strerror}).", file=sys.stderr)
        return 2
    print(f"* {id_} en {salida} ({len(pagina.encode()) / 1e6:.2f} MB): ábrelo en el navegador, sin servidor.")
    return 0


if __name__ == "__main__":
    main()
