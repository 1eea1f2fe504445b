"""Atención y transformers: las demos de la lección, en Gradio.

python app.py                      todas las pestañas en una página
python app.py --demo temperatura   una sola pestaña
gradio app.py                      modo recarga (usa el `demo` de este módulo)
"""

from __future__ import annotations

# ZeroGPU pide importar `spaces` antes que nada que pueda tocar CUDA; fuera de ZeroGPU no hace nada.
import spaces  # noqa: F401

# isort: split
import argparse
import asyncio
import contextlib
import ctypes
import logging
import os
import sys
import threading

import anyio
import gradio as gr
from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse

from servidor import disco

# Antes de importar las pestañas y de crear un solo componente: todo lo que el proceso escriba
# (subidas y caché de Gradio, figuras, descargas) va a su carpeta propia (servidor/disco.py).
disco.preparar()

# isort: split
from demos import PESTANAS, POR_ID, Pestana, buscar  # noqa: E402
from demos.comun import Vista, escapar_html  # noqa: E402
from demos.comun.zerogpu import arrancar_zerogpu  # noqa: E402
from demos.servir.conectar import conectar, vista_inicial  # noqa: E402
from servidor import cola  # noqa: E402
from servidor.entradas import montar  # noqa: E402
from servidor.protecciones import Protecciones  # noqa: E402

log = logging.getLogger("app")

TITULO = "Atención y transformers"

# La barra: arriba los grupos (las partes de la lección), debajo las pestañas del grupo; con
# overflow_behavior="wrap" ninguna se esconde tras «⋯» ni cambia de lugar al elegirla.
# Modo presentación: la figura primero. La explicación se pliega a una línea que se abre con un clic,
# las fórmulas crecen con el texto; el JS pone la figura principal justo bajo sus controles.
CSS = """
#grupos > .tab-wrapper button[role=tab] { font-weight: 600; }
.lienzo .empty.wrap > div { display: none !important; }
.lienzo .empty.wrap::after { content: "Elige el pincel y dibuja"; font-size: var(--text-md); }
.presentacion #cabecera, .presentacion footer { display: none !important; }
.presentacion { font-size: 1.25rem; }
.presentacion .prose { font-size: 1.25rem !important; }
.presentacion .katex { font-size: 1.1em !important; }
.presentacion img { max-height: 72vh; object-fit: contain; }
.presentacion .tab-wrapper { padding-bottom: 0 !important; }
.presentacion .tab-wrapper button[role=tab] { padding-top: 0; padding-bottom: 0; }
.presentacion .explicacion:not(.abierta) { padding-top: 0 !important; padding-bottom: 0 !important; }
.presentacion .explicacion { cursor: pointer; position: relative; padding-right: 7em !important; }
.presentacion .block.explicacion:not(.abierta) .prose > * { display: none; }
.presentacion .block.explicacion:not(.abierta) .prose > :first-child { display: block; margin: 0;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.presentacion .block.explicacion::after { content: "▸ leer más"; position: absolute; right: 0.5em; top: 0.4em;
  font-size: 1rem; color: var(--body-text-color-subdued); }
.presentacion .block.explicacion.abierta { padding-right: 0 !important; }
.presentacion .block.explicacion.abierta::after { content: "▾ cerrar"; }
"""

# Modo presentación (?presentacion=1): se marca el documento; el CSS hace el resto, salvo abrir
# y cerrar la explicación con un clic.
JS = """
() => {
  const p = new URLSearchParams(window.location.search).get("presentacion");
  if (p !== "1" && p !== "true") return;
  document.documentElement.classList.add("presentacion");
  document.body.classList.add("presentacion");
  document.addEventListener("click", (e) => {
    const ex = e.target.closest && e.target.closest(".block.explicacion");
    if (ex && !e.target.closest("a")) ex.classList.toggle("abierta");
  });
  // La figura primero: en cada columna que la contiene, arriba la explicación plegada, luego la fila
  // de controles principal (de las de antes, la primera con un deslizador o si no la primera) y la figura.
  const controles = "input, textarea, select";
  const ordenar = (f) => {
    for (let e = f; e.parentElement && !e.parentElement.matches(".tabitem, .gradio-container"); e = e.parentElement) {
      const padre = e.parentElement;
      if (getComputedStyle(padre).flexDirection !== "column") continue;
      const hermanos = [...padre.children].filter((h) => h !== e);
      const antes = hermanos.filter((h) => h.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING);
      const filas = antes.filter((h) => h.querySelector(controles) && !h.querySelector(".figura, table"));
      const fila = filas.find((h) => h.querySelector("input[type=range]")) || filas[0];
      for (const h of hermanos) h.style.order = h.matches(".explicacion") ? "-3" : h === fila ? "-2" : "";
      e.style.order = "-1";
    }
  };
  // Si la figura principal no cabe bajo lo que tiene arriba, se achica (zoom) hasta caber, no menos de 0.5.
  const ajustar = () => {
    for (const f of document.querySelectorAll('[id$="-figura1"]')) {
      if (!f.offsetParent) continue;
      ordenar(f);
      f.style.zoom = "";
      const caja = f.getBoundingClientRect();
      const arriba = caja.top + window.scrollY;
      const cabe = window.innerHeight - arriba - 4;
      if (caja.height > cabe && cabe > 0) f.style.zoom = String(Math.max(0.5, cabe / caja.height));
    }
  };
  let pendiente = false;
  const pedir = () => {
    if (pendiente) return;
    pendiente = true;
    requestAnimationFrame(() => { pendiente = false; ajustar(); });
  };
  new MutationObserver(pedir).observe(document.body, {childList: true, subtree: true});
  window.addEventListener("resize", pedir);
  document.addEventListener("click", () => setTimeout(pedir, 50));
}
"""


def _parametros(request: gr.Request | None) -> dict[str, str]:
    return dict(request.query_params) if request is not None else {}


def _pestana(p: Pestana) -> Vista:
    """Crea la pestaña `p` en el contexto actual y conecta su evento público.

    Cada componente nuevo queda marcado con `pestana` = el id: el log de una entrada rechazada la nombra.
    """
    raiz = gr.context.Context.root_block
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
        suite.vistas = {p.id: vista for p, vista, _, _ in partes}  # para inspeccionarlas (pruebas)

        def al_cargar(request: gr.Request, *valores):
            parametros = _parametros(request)
            elegida = parametros.get("tab", pestanas[0].id)
            if elegida not in {p.id for p in pestanas}:
                if "tab" in parametros:
                    aviso = f"No hay una pestaña «{elegida[:40]}»; se abre la primera."
                    gr.Warning(escapar_html(aviso), title="Ajuste de la URL")  # repite la URL: nada de HTML
                elegida = pestanas[0].id
            grupo = next(p.grupo for p in pestanas if p.id == elegida)
            salida: list = [gr.Tabs(selected=_id_grupo(grupo))]
            salida += [gr.Tabs(selected=elegida) if g == grupo else gr.skip() for g in grupos]
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
        # La pestaña pedida va dentro de su grupo: se eligen los dos, el grupo arriba y ella dentro.
        todas_salidas = [tabs, *(tabs_grupo for _, tabs_grupo, _ in grupos.values())]
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
        for tab_grupo, _, del_grupo in grupos.values():
            tab_grupo.select(
                _abrir_grupo_si_falta(del_grupo),
                inputs=[c for _, vista, abierta, _ in del_grupo for c in (abierta, *vista.entradas)],
                outputs=[c for _, vista, abierta, _ in del_grupo for c in (abierta, *vista.entradas, *vista.salidas)],
                api_visibility="private",
                show_progress="minimal",
            )
    return suite


def _id_grupo(grupo: str) -> str:
    """«La arquitectura» -> «grupo-la-arquitectura»: el id y el elem_id de la pestaña del grupo."""
    return "grupo-" + "-".join(grupo.lower().split())


def _titulo(p: Pestana) -> str:
    return f"{p.titulo} · del tutorial" if p.del_tutorial else p.titulo


def _abrir_grupo_si_falta(partes: list):
    """Al elegir un grupo se ve la pestaña que tenga elegida: se llenan todas las del grupo que falten."""
    abrir = [_abrir_si_falta(p, vista) for p, vista, _, _ in partes]
    tamanos = [1 + len(vista.entradas) for _, vista, _, _ in partes]

    def abrir_todas(*valores):
        salida, k = [], 0
        for f, n in zip(abrir, tamanos, strict=True):
            salida += f(*valores[k : k + n])
            k += n
        return salida

    return abrir_todas


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
        una.vistas = {p.id: vista}

        def al_cargar(request: gr.Request, *valores):
            entradas, salidas = vista_inicial(p.id, vista, _parametros(request), list(valores))
            return [*entradas, *salidas]

        una.load(al_cargar, inputs=vista.entradas, outputs=[*vista.entradas, *vista.salidas], api_visibility="private")
    return una


TAMANO_MAXIMO_SUBIDA = "10mb"  # Gradio rechaza antes de leer lo que pase de aquí


def opciones_lanzamiento() -> dict:
    """Lo mismo para `launch()` y para cada montaje: estilo, modo presentación, límite de subida."""
    return {
        "css": CSS,
        "js": JS,
        "theme": gr.themes.Soft(),
        "footer_links": [],  # sin pie: sus enlaces («Use via API · Built with Gradio») no se traducen
        "max_file_size": TAMANO_MAXIMO_SUBIDA,
    }


def configurar_cola(blocks: gr.Blocks, max_size: int = cola.MAX_COLA) -> gr.Blocks:
    """La cola de cada montaje, con todos sus tamaños explícitos (servidor/cola.py los explica).

    - `max_size` = 128 en espera por montaje; a lo sumo 8 de una misma sesión, así una sola no la llena.
    - Eventos ligeros: de a 4 a la vez, cada uno con su `concurrency_id` (nunca esperan a los pesados).
    - Pesados (`concurrency_id` «entrenar», «medir», «descargas»): 1 a la vez por montaje, un
      cerrojo de proceso entre montajes (`_ui.exclusivo`), uno pendiente por sesión y 4 por tipo en
      todo el proceso; el que sobra recibe «Hay N entrenamientos en cola; prueba en un momento.»
    - Toda negativa sale en español (429), nunca el «Queue is full» de Gradio.
    """
    return cola.configurar_cola(blocks, max_size=max_size)


def precargar_checkpoints() -> list[str]:
    """Carga cada checkpoint del registro y dice en el log cuál falla y por qué.

    Corre en un hilo al arrancar: la app no espera, el primer visitante de una
    pestaña con modelo no paga la carga, y nadie usa una app a medias sin que el
    log lo diga. Devuelve los nombres que fallaron.
    """
    from modelos import REGISTRO, cargar

    malos = []
    for nombre in REGISTRO:
        try:
            cargar(nombre)
        except Exception as e:
            malos.append(nombre)
            log.error("Checkpoint %s NO disponible; sus pestañas darán error hasta arreglarlo: %s", nombre, e)
    if not malos:
        log.info("Checkpoints listos: %s", ", ".join(REGISTRO))
    return malos


def crear_app(solo: str | None = None, host_propio: str = "localhost"):
    """La aplicación ASGI: la suite en / y cada pestaña en /demo/<id>/ (o una sola pestaña en /).

    Las pestañas sueltas se arman la primera vez que alguien las pide (`MontajesPerezosos`):
    armar y montar las doce al arrancar costaba ~4 s de arranque en frío. Todo montaje pasa por
    `servidor.entradas.montar` (la comprobación de archivos subidos de Gradio, activa) y todo va
    detrás de `Protecciones` (cuerpos acotados, nosniff, Host); `host_propio` es el nombre que
    reemplaza a un `Host` ajeno.
    """
    disco.arrancar_barrendero()
    app = FastAPI(title=TITULO, docs_url=None, redoc_url=None)
    opciones = {**opciones_lanzamiento(), "show_error": False}
    if solo is not None:
        return Protecciones(montar(app, configurar_cola(construir_una(solo)), path="/", **opciones), host_propio)

    @app.get("/demo/{id_}", include_in_schema=False)
    def con_barra(id_: str, request: Request):
        """/demo/<id> -> /demo/<id>/, conservando los ajustes de la URL."""
        consulta = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"{request.scope.get('root_path', '')}/demo/{id_}/{consulta}", status_code=307)

    montar(app, configurar_cola(demo), path="/", **opciones)
    return Protecciones(MontajesPerezosos(app, opciones), host_propio)


class MontajesPerezosos:
    """ASGI delante de la app: monta /demo/<id>/ (un Blocks nuevo) en la primera petición que lo pide.

    El montaje nuevo va antes del de la suite en «/» (que si no lo taparía), y como la app ya
    arrancó, se corren a mano los eventos de arranque de Gradio que ponen a andar su cola. Su
    contexto de vida (el que borra sus archivos con `delete_cache`) se cierra al apagarse la app,
    como el de la suite: así lo que creó un montaje también se borra al salir.
    """

    def __init__(self, app: FastAPI, opciones: dict):
        self.app, self.opciones = app, opciones
        self.montadas: dict[str, gr.Blocks] = {}
        self.cerrojo: asyncio.Lock | None = None
        self.vidas = contextlib.AsyncExitStack()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, self._al_apagar(send))
        if scope["type"] in ("http", "websocket"):
            partes = scope["path"].split("/", 3)
            if len(partes) > 3 and partes[1] == "demo" and partes[2] in POR_ID and partes[2] not in self.montadas:
                await self._montar(partes[2])
        await self.app(scope, receive, send)

    def _al_apagar(self, send):
        async def enviar(mensaje):
            if mensaje["type"] == "lifespan.shutdown.complete":  # la suite ya cerró la suya
                await self.cerrar()
            await send(mensaje)

        return enviar

    async def cerrar(self) -> None:
        """Cierra el contexto de vida de cada montaje: su cola se detiene y sus archivos se borran."""
        await self.vidas.aclose()

    async def _montar(self, id_: str) -> None:
        self.cerrojo = self.cerrojo or asyncio.Lock()
        async with self.cerrojo:
            if id_ in self.montadas:
                return
            blocks = configurar_cola(await anyio.to_thread.run_sync(construir_una, id_))
            rutas = self.app.router.routes
            montar(self.app, blocks, path=f"/demo/{id_}", **self.opciones)
            montaje = rutas.pop()
            raiz = next(i for i, r in enumerate(rutas) if getattr(r, "path", None) == "")
            rutas.insert(raiz, montaje)  # antes de la suite en «/»
            gradio_app = montaje.app
            await self.vidas.enter_async_context(gradio_app.router.lifespan_context(gradio_app))
            gradio_app.get_blocks().run_startup_events()
            await gradio_app.get_blocks().run_extra_startup_events()
            self.montadas[id_] = blocks
            log.info("Montada /demo/%s/", id_)


def configurar_hilos() -> None:
    """Un hilo de torch por petición (ATENCION_HILOS_TORCH cambia el número).

    Gradio atiende varias peticiones a la vez, cada una en su hilo; con modelos tan chicos,
    repartir además cada operación entre núcleos solo los hace pelear: en 2 núcleos ocupados
    una predicción del transformer de juguete tarda ~28 ms con 2 hilos y ~0,2 ms con 1.
    Se fija antes de crear los hilos de trabajo, que lo heredan.
    """
    import torch

    torch.set_num_threads(int(os.environ.get("ATENCION_HILOS_TORCH", "1")))


def limitar_arenas_malloc(arenas: int = 2) -> bool:
    """Pide a glibc a lo sumo `arenas` zonas de memoria para todos los hilos.

    Por omisión glibc abre una arena por hilo que reserva a la vez (hasta 8 por núcleo), y
    cada una retiene lo que ya no se usa: con una clase entera dibujando a la vez, la memoria
    del servidor crece aunque nada quede vivo. Con 2, medido con 16 clientes durante 60 s,
    el pico bajó ≈ 120 MB sin servir menos (BENCHMARKS.md). Si MALLOC_ARENA_MAX ya está
    fijada, manda ella. Devuelve si se aplicó (solo Linux con glibc).
    """
    if sys.platform != "linux" or "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        return ctypes.CDLL("libc.so.6").mallopt(-8, arenas) == 1  # -8 = M_ARENA_MAX
    except (OSError, AttributeError):  # otra libc (musl) o sin mallopt
        return False


limitar_arenas_malloc()
configurar_hilos()
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
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    import uvicorn

    arrancar_zerogpu()  # en ZeroGPU lo haría launch(); aquí sirve uvicorn
    threading.Thread(target=precargar_checkpoints, name="precarga", daemon=True).start()
    print(f"* Atención y transformers en http://{args.host}:{args.port}/", flush=True)
    print(f"* Archivos de este proceso en {disco.carpeta()} (se borran al salir)", flush=True)
    propio = f"{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}"
    asgi = crear_app(args.demo, host_propio=os.environ.get("SPACE_HOST") or propio)
    uvicorn.run(asgi, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
