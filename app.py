"""Atención y transformers: las demos de la lección, en Gradio.

python app.py                      todas las pestañas en una página
python app.py --demo temperatura   una sola pestaña
gradio app.py                      modo recarga (usa el `demo` de este módulo)
"""

from __future__ import annotations

import argparse
import logging

import gradio as gr

from demos import PESTANAS, Pestana, buscar
from demos._ui import Vista, conectar, vista_inicial

TITULO = "Atención y transformers"

CSS = """
.presentacion #cabecera, .presentacion footer { display: none !important; }
.presentacion { font-size: 1.25rem; }
.presentacion .prose { font-size: 1.25rem !important; }
.presentacion img { max-height: 72vh; object-fit: contain; }
"""

# Modo presentación (?presentacion=1): se marca el documento; el CSS hace el resto.
JS = """
() => {
  const p = new URLSearchParams(window.location.search).get("presentacion");
  if (p === "1" || p === "true") {
    document.documentElement.classList.add("presentacion");
    document.body.classList.add("presentacion");
  }
}
"""


def _parametros(request: gr.Request | None) -> dict[str, str]:
    return dict(request.query_params) if request is not None else {}


def _pestana(p: Pestana) -> Vista:
    """Crea la pestaña `p` en el contexto actual y conecta su evento público."""
    vista = p.cargar().construir()
    conectar(vista, api_name=p.api, prefijo=p.id)
    return vista


def construir_suite(pestanas: tuple[Pestana, ...] = PESTANAS) -> gr.Blocks:
    """Todas las pestañas en una página. `/?tab=<id>` abre en esa pestaña."""
    with gr.Blocks(title=TITULO, delete_cache=(600, 3600)) as suite:
        gr.Markdown(
            f"# {TITULO}\nDemos interactivas de la lección. Mueve un control y mira la figura.", elem_id="cabecera"
        )
        partes = []
        with gr.Tabs() as tabs:
            for p in pestanas:
                with gr.Tab(p.titulo, id=p.id, elem_id=f"pestana-{p.id}") as tab:
                    vista = _pestana(p)
                    abierta = gr.State(False)
                partes.append((p, vista, abierta, tab))

        def al_cargar(request: gr.Request, *valores):
            parametros = _parametros(request)
            elegida = parametros.get("tab", pestanas[0].id)
            if elegida not in {p.id for p in pestanas}:
                if "tab" in parametros:
                    gr.Warning(f"No hay una pestaña «{elegida[:40]}»; se abre la primera.", title="Ajuste de la URL")
                elegida = pestanas[0].id
            salida: list = [gr.Tabs(selected=elegida)]
            k = 0
            for p, vista, _, _ in partes:
                n = len(vista.entradas)
                if p.id == elegida:
                    entradas, salidas = vista_inicial(p.id, vista, parametros, list(valores[k : k + n]))
                    salida += [True, *entradas, *salidas]
                else:
                    salida += [gr.skip()] * (1 + n + len(vista.salidas))
                k += n
            return salida

        todas_entradas = [c for _, v, _, _ in partes for c in v.entradas]
        todas_salidas = [tabs]
        for _, v, abierta, _ in partes:
            todas_salidas += [abierta, *v.entradas, *v.salidas]
        suite.load(al_cargar, inputs=todas_entradas, outputs=todas_salidas, api_visibility="private")

        for p, vista, abierta, tab in partes:
            tab.select(
                _abrir_si_falta(p, vista),
                inputs=[abierta, *vista.entradas],
                outputs=[abierta, *vista.entradas, *vista.salidas],
                api_visibility="private",
                show_progress="minimal",
            )
    return suite


def _abrir_si_falta(p: Pestana, vista: Vista):
    """Al elegir una pestaña por primera vez, llena su vista inicial (calculada una vez por proceso)."""

    def abrir(abierta, *valores):
        if abierta:
            return [gr.skip()] * (1 + len(vista.entradas) + len(vista.salidas))
        entradas, salidas = vista_inicial(p.id, vista, {}, list(valores))
        return [True, *entradas, *salidas]

    return abrir


def construir_una(id_: str) -> gr.Blocks:
    """Una sola pestaña, para incrustarla en diapositivas."""
    p = buscar(id_)
    with gr.Blocks(title=f"{p.titulo} · {TITULO}", delete_cache=(600, 3600)) as una:
        gr.Markdown(f"## {p.titulo}", elem_id="cabecera")
        vista = _pestana(p)

        def al_cargar(request: gr.Request, *valores):
            entradas, salidas = vista_inicial(p.id, vista, _parametros(request), list(valores))
            return [*entradas, *salidas]

        una.load(al_cargar, inputs=vista.entradas, outputs=[*vista.entradas, *vista.salidas], api_visibility="private")
    return una


def opciones_lanzamiento() -> dict:
    return {"css": CSS, "js": JS, "theme": gr.themes.Soft(), "footer_links": ["api", "gradio"]}


demo = construir_suite()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=TITULO)
    parser.add_argument("--demo", metavar="ID", help="sirve una sola pestaña: " + ", ".join(p.id for p in PESTANAS))
    parser.add_argument("--host", default="127.0.0.1", help="dirección (0.0.0.0 para la red local)")
    parser.add_argument("--port", type=int, default=7860)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = construir_una(args.demo) if args.demo else demo
    app.queue(default_concurrency_limit=4, max_size=64)
    app.launch(server_name=args.host, server_port=args.port, **opciones_lanzamiento())


if __name__ == "__main__":
    main()
