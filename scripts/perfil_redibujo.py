"""Cuánto tarda en el navegador un movimiento hasta los píxeles nuevos de la figura (issue 22, el redibujo).

Lanza la app y una página eco de Gradio (un Number conectado a un Textbox) en el mismo proceso y mide en
Chromium, para cada movimiento: del evento del control hasta el segundo cuadro después de que la figura
(todas las de la pestaña) tiene sus datos nuevos. Con `--perfil` graba además un perfil de CPU (CDP) de
los movimientos y da las funciones de JS que más tiempo propio se llevan.

    .venv/bin/python scripts/perfil_redibujo.py [--veces 8] [--perfil] [--ancho 1280]

La tabla de la suite con todas las pestañas es de `scripts/bench.py`; esto es la lupa del dibujante.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("ATENCION_DISPOSITIVO", "cpu")

CHROMIUM = "/usr/bin/chromium"

# (pestaña, selector del control, las dos teclas o valores que alterna, cómo se mueve)
MOVIMIENTOS = [
    ("temperatura", "#temperatura-T input", ["0.5", "1"], "numero"),
    ("temperatura", "#temperatura-T input", ["0.75", "1.25"], "numero"),
    ("mascara-causal", "#mascara-causal-semilla input", ["2", "1"], "numero"),
    ("multicabeza", "#multicabeza-largo input[type=range]", ["ArrowRight", "ArrowLeft"], "tecla"),
]

# Promesa que se cumple en el segundo cuadro tras el cambio de datos de todas las figuras de `raiz`
# (o del texto del eco), con el tiempo desde `t0`.
ESPERA = """([raiz, eco]) => ({p: new Promise((listo) => {
  const firma = () => eco
    ? document.querySelector(raiz + " textarea, " + raiz + " input").value
    : [...document.querySelectorAll(raiz + " .js-plotly-plot")]
        .map((g) => JSON.stringify((g.data || []).map((t) => [t.z, t.y, t.x, t.text]))).join("|");
  const antes = firma();
  const mirar = () => {
    if (firma() !== antes) {
      const datos = performance.now() - window.__t0;
      requestAnimationFrame(() => requestAnimationFrame(() => listo([datos, performance.now() - window.__t0])));
    } else requestAnimationFrame(mirar);
  };
  window.__mirar = mirar;
})})"""


def _puerto() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _servir(asgi, puerto: int):
    import uvicorn

    servidor = uvicorn.Server(uvicorn.Config(asgi, host="127.0.0.1", port=puerto, log_level="warning"))
    threading.Thread(target=servidor.run, daemon=True).start()
    while not servidor.started:
        time.sleep(0.05)
    return servidor


def _eco():
    import gradio as gr

    with gr.Blocks() as eco:
        n = gr.Number(0, elem_id="eco-n")
        t = gr.Textbox(elem_id="eco-t")
        n.change(lambda x: f"{x}", n, t)
    return eco


def _mover(pg, selector: str, valor: str, modo: str) -> None:
    pg.evaluate("() => { window.__t0 = performance.now(); }")
    if modo == "tecla":
        pg.press(selector, valor)
    else:
        pg.fill(selector, valor)


def _tarea_ms(cdp) -> float:
    """El tiempo de CPU del hilo principal de la página hasta ahora (ms), de las métricas de CDP."""
    metricas = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return metricas["TaskDuration"] * 1000


def _medidas(pg) -> float:
    """Lo que llevó Plotly dibujar las figuras del movimiento (las medidas «figura» de navegador.js), en ms."""
    return pg.evaluate(
        "() => { const m = performance.getEntriesByName('figura'); performance.clearMeasures('figura');"
        " return m.reduce((s, e) => s + e.duration, 0); }"
    )


def medir(pg, url: str, selector: str, valores: list[str], modo: str, raiz: str, veces: int, eco=False):
    cdp = pg.context.new_cdp_session(pg)
    cdp.send("Performance.enable")
    pg.goto(url)
    pg.wait_for_selector(selector, timeout=60_000)
    if not eco:
        pg.wait_for_function(f"() => document.querySelector('{raiz} .js-plotly-plot')?.data", timeout=60_000)
    pg.wait_for_timeout(1500)
    tiempos = []
    for k in range(veces + 1):
        promesa = pg.evaluate_handle(ESPERA, [raiz if not eco else "#eco-t", eco])
        pg.evaluate("() => window.__mirar && requestAnimationFrame(window.__mirar)")
        cpu = _tarea_ms(cdp)
        _mover(pg, selector, valores[k % 2], modo)
        datos, pixeles = promesa.evaluate("(o) => o.p")
        cpu = _tarea_ms(cdp) - cpu
        if k:  # el primero calienta
            tiempos.append((datos, pixeles, cpu, _medidas(pg)))
        pg.wait_for_timeout(400)
    return tiempos


def _funciones(perfil: dict, n: int = 15) -> list[tuple[str, float]]:
    nodos = {x["id"]: x for x in perfil["nodes"]}
    propio: Counter = Counter()
    pasos = perfil.get("timeDeltas", [])
    for muestra, dt in zip(perfil.get("samples", []), pasos, strict=False):
        f = nodos[muestra]["callFrame"]
        archivo = f["url"].rsplit("/", 1)[-1][:28]
        propio[f"{f['functionName'] or '(anónima)'} {archivo}:{f['lineNumber']}"] += dt / 1000
    return propio.most_common(n)


def main() -> None:
    argumentos = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    argumentos.add_argument("--veces", type=int, default=8)
    argumentos.add_argument("--perfil", action="store_true")
    argumentos.add_argument("--ancho", type=int, default=1280)
    argumentos.add_argument("--solo", default="", help="solo esta pestaña")
    argumentos.add_argument(
        "--sin-historial",
        action="store_true",
        help="cada movimiento también contra una app con run_history=False (sin guardar cada llamada en localStorage)",
    )
    argumentos.add_argument(
        "--antes", action="store_true", help="cada movimiento también con el dibujo de antes (en el <div> de Gradio)"
    )
    a = argumentos.parse_args()

    from servidor import disco

    disco.preparar()
    import gradio as gr
    from playwright.sync_api import sync_playwright

    import app
    from demos import POR_ID
    from servidor.asgi import crear_app

    puerto, puerto_eco = _puerto(), _puerto()
    _servir(crear_app(app.demo, app.construir_una, POR_ID, app.opciones_lanzamiento()), puerto)
    _servir(gr.mount_gradio_app(__import__("fastapi").FastAPI(), _eco().queue(), path="/"), puerto_eco)
    puerto_sin = _puerto()
    if a.sin_historial:  # Gradio 6 guarda cada llamada (entradas y salidas) en localStorage; launch(run_history=False)

        def sin_historial(id_):
            b = app.construir_una(id_)
            b.run_history = False
            return b

        _servir(crear_app(app.demo, sin_historial, POR_ID, app.opciones_lanzamiento()), puerto_sin)

    filas = []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        pg = b.new_context(viewport={"width": a.ancho, "height": 800}, locale="es-ES").new_page()
        eco = medir(pg, f"http://127.0.0.1:{puerto_eco}/", "#eco-n input", ["1", "2"], "numero", "", a.veces, True)
        mediana_eco = statistics.median(x[1] for x in eco)
        filas.append(("eco (Number → Textbox)", eco))
        cdp = pg.context.new_cdp_session(pg) if a.perfil else None
        # El antes, en la misma corrida: navegador.js dibuja cada valor en el <div> nuevo de Gradio.
        antes = None
        if a.antes:
            antes = b.new_context(viewport={"width": a.ancho, "height": 800}, locale="es-ES").new_page()
            antes.add_init_script("window.__figurasSinDivPropio = true;")
        for id_, selector, valores, modo in MOVIMIENTOS:
            if a.solo and id_ != a.solo:
                continue
            if cdp:
                cdp.send("Profiler.enable")
                cdp.send("Profiler.setSamplingInterval", {"interval": 200})
                cdp.send("Profiler.start")
            url = f"http://127.0.0.1:{puerto}/demo/{id_}/"
            if antes:
                t = medir(antes, url, selector, valores, modo, "body", a.veces)
                filas.append((f"{id_} ({selector.split()[0]}, {modo}), antes", t))
            if a.sin_historial:
                t = medir(pg, url.replace(str(puerto), str(puerto_sin)), selector, valores, modo, "body", a.veces)
                filas.append((f"{id_} ({selector.split()[0]}, {modo}), sin historial", t))
            t = medir(pg, url, selector, valores, modo, "body", a.veces)
            filas.append((f"{id_} ({selector.split()[0]}, {modo})", t))
            if cdp:
                perfil = cdp.send("Profiler.stop")["profile"]
                print(f"\n{id_}: funciones con más tiempo propio (ms, {a.veces + 1} movimientos y la carga)")
                for nombre, ms in _funciones(perfil):
                    print(f"  {ms:8.1f}  {nombre}")
        b.close()
    cpu_eco = statistics.median(x[2] for x in eco)
    print(
        f"\n| movimiento | datos nuevos | píxeles | × eco ({mediana_eco:.0f} ms) | CPU de la página | × eco | Plotly |"
    )
    print("|---|---|---|---|---|---|---|")
    for nombre, t in filas:
        d, px, c, f = (statistics.median(x[i] for x in t) for i in range(4))
        veces_eco = f"{px / mediana_eco:.1f}× | {c:.0f} ms | {c / cpu_eco:.1f}×"
        print(f"| {nombre} | {d:.0f} ms | {px:.0f} ms | {veces_eco} | {f:.0f} ms |")


if __name__ == "__main__":
    main()
