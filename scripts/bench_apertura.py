"""Al abrir una página: cuánto tarda la primera figura, en Chromium, con la caché vacía.

    python scripts/bench.py --solo apertura

Para cada /demo/<id>/ del registro, para la suite (la primera pestaña y ?tab=temperatura) y para una
página con parámetros en la URL, en un contexto nuevo de Chromium (como el primer visitante): desde
que empieza la navegación hasta que la primera figura de la pestaña está dibujada, y esa misma
cifra contada desde el evento `load` (negativa: llegó antes). Cuenta también los `queue/join` que
manda la página al abrir. Junto a una página de referencia de Gradio con una sola figura de Plotly
en su configuración, medida en la misma corrida.
"""

from __future__ import annotations

import statistics
import sys
import time

from scripts.bench_navegador import PRIMERA
from scripts.medir import Servidor, ms, puerto_libre, tabla

# La referencia: lo mínimo de Gradio para abrir con una figura, un gr.Plot con su valor en la página.
REFERENCIA = """
import sys, gradio as gr, plotly.graph_objects as go
with gr.Blocks() as demo:
    gr.Plot(go.Figure(go.Heatmap(z=[[1, 2], [3, 4]])), elem_id="referencia-figura1")
demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]))
"""

# ms desde el comienzo de la navegación: la primera figura y el evento `load`.
TIEMPOS = """() => {
  const n = performance.getEntriesByType("navigation")[0];
  return [window.__primera ?? null, n && n.loadEventStart > 0 ? n.loadEventStart : null];
}"""

ESPERA_MS = 120_000


def _abrir(navegador, url: str, id_: str) -> tuple[float | None, float | None, int]:
    """(s hasta la figura, s de `load` a la figura, queue/join al abrir) en un contexto nuevo; None si no abrió."""
    contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    pagina = contexto.new_page()
    pagina.add_init_script(PRIMERA % id_)
    joins: list[str] = []
    pagina.on("request", lambda r: "queue/join" in r.url and joins.append(r.url))
    try:
        pagina.goto(url, wait_until="load", timeout=ESPERA_MS)
        pagina.wait_for_function("() => window.__primera !== undefined", timeout=ESPERA_MS)
        pagina.wait_for_timeout(1500)  # lo que la página mande después de dibujar también cuenta
        figura, load = pagina.evaluate(TIEMPOS)
    except Exception:
        figura = load = None
    finally:
        contexto.close()
    if figura is None:
        return None, None, len(joins)
    return figura / 1000, None if load is None else (figura - load) / 1000, len(joins)


def _fila(nombre: str, medida: tuple, referencia: float | None) -> list:
    figura, tras_load, joins = medida
    if figura is None:
        return [nombre, "—", "—", "—", joins]
    razon = f"{figura / referencia:.2f}×" if referencia else "—"
    return [nombre, ms(figura), razon, "antes de `load`" if tras_load <= 0 else ms(tras_load), joins]


def apertura() -> str:
    from playwright.sync_api import sync_playwright

    from demos import PESTANAS

    p_app, p_ref = puerto_libre(), puerto_libre()
    servidor = Servidor(["app.py", "--port", str(p_app)], p_app)
    ref = Servidor(["-c", REFERENCIA, str(p_ref)], p_ref)
    inicio = time.perf_counter()
    try:
        servidor.esperar()
        ref.esperar()
        with sync_playwright() as pw:
            nav = pw.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            referencias = [_abrir(nav, ref.url, "referencia") for _ in range(3)]
            r = statistics.median(m[0] for m in referencias if m[0] is not None)
            filas = [_fila("(referencia: Gradio con una figura en la página)", sorted(referencias)[1], r)]
            paginas = [(f"/demo/{p.id}/", f"demo/{p.id}/", p.id) for p in PESTANAS]
            paginas += [
                ("/demo/temperatura/?T=0.25 (con URL)", "demo/temperatura/?T=0.25", "temperatura"),
                ("suite, 1.ª pestaña", "", PESTANAS[0].id),
                ("suite, ?tab=temperatura", "?tab=temperatura", "temperatura"),
            ]
            for nombre, camino, id_ in paginas:
                filas.append(_fila(nombre, _abrir(nav, servidor.url + camino, id_), r))
                print(f"  {nombre}: {filas[-1][1]}", file=sys.stderr, flush=True)
            nav.close()
    finally:
        servidor.cerrar()
        ref.cerrar()
    return tabla(
        "Apertura en Chromium con la caché vacía: de la navegación a la primera figura "
        f"(la sección tardó {time.perf_counter() - inicio:.0f} s)",
        ["página", "1.ª figura", "/ referencia", "tras `load`", "queue/join al abrir"],
        filas,
    )
