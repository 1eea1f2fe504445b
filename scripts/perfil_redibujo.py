"""Cuánto tarda en el navegador un movimiento hasta los píxeles nuevos de la figura (issue 22, el redibujo).

Lanza la app y una página eco de Gradio (un Number conectado a un Textbox) en el mismo proceso y mide en
Chromium, para cada movimiento: del evento del control hasta que se pinta el cuadro en que una figura de la
pestaña tiene sus datos nuevos (la primera que figuras.mjs dibuja; las demás siguen después), y sus fases (la
espera del servidor hasta el mensaje process_completed, Gradio hasta Plotly.react, adaptar, lo síncrono de
Plotly, los cuadros hasta los píxeles).
Con `--perfil` graba además una traza (devtools.timeline) y un perfil de CPU de los movimientos y reparte el
hilo principal: JS de Plotly, de Gradio y de la suite, estilo, maquetación (y quién la pidió), pintura, GC.
`--antes REF` mide cada movimiento también con el disposicion.js del commit REF, en la misma
corrida; `--sin-progreso`, con show_progress="hidden" en los eventos. `--figuras` no mueve nada: dibuja cada figura
de cada pestaña otra vez, tal cual y con variantes (sin los números de las casillas, sin los huecos entre casillas),
para saber qué parte de lo que cuesta Plotly es de qué.

    .venv/bin/python scripts/perfil_redibujo.py [--veces 8] [--perfil] [--antes HEAD] [--sin-progreso]
    .venv/bin/python scripts/perfil_redibujo.py --figuras [--solo parches-vit]

La tabla de la suite con todas las pestañas es de `scripts/bench.py`; esto es la lupa del dibujante.
"""

from __future__ import annotations

import argparse
import json
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
    # Las tres más lentas de `make bench` (su control principal, los valores que mueve allí):
    ("multicabeza", "#multicabeza-cabezas input[type=number]", ["8", "4"], "numero"),
    ("parches-vit", "#parches-vit-P", ["8", "16"], "opcion"),
    ("cbam", "#cbam-indice input[type=number]", ["224", "0"], "numero"),
    # Nombres de un eje que cambian de largo con cada valor:
    ("a-mano", "#a-mano-palabras textarea", ["Ana, sacó, dinero", "Ana, sacó, plata"], "texto"),
    ("clasificador-atencion", "#clasificador-atencion-frase input", ["No me gustó.", "Fue aburrida."], "texto"),
    # Las que quedan apenas sobre 2× el eco en `make bench` (sus valores de allí: el ejemplo y el inicial):
    ("escalado", "#escalado-d input[type=number]", ["2049", "64"], "numero"),
    ("bloque", "#bloque-d_modelo input[type=number]", ["528", "64"], "numero"),
]

# Promesa que se cumple en la tarea que sigue a la pintura del cuadro en que cambian los datos de alguna figura de
# `raiz` (o el texto del eco), con el tiempo desde `t0`. El cambio se ve en un requestAnimationFrame, antes de pintar;
# el setTimeout pedido desde ahí corre después de pintar y antes que las figuras que figuras.mjs deja para después
# del cuadro. Hasta la sesión 18 se cumplía en el segundo cuadro: ≈ un cuadro más, y las otras figuras dentro. Los
# datos cambian cuando Plotly.react pone otro `data` en el <div> (comparar por identidad: serializar las figuras en
# cada cuadro le cargaba la medida a la página). Los <div> se buscan una vez: figuras.mjs dibuja cada valor en el
# mismo.
ESPERA = """([raiz, eco]) => ({p: new Promise((listo) => {
  const figuras = eco ? [] : [...document.querySelectorAll(raiz + " .js-plotly-plot")];
  const firma = () => eco
    ? [document.querySelector(raiz + " textarea, " + raiz + " input").value]
    : figuras.map((g) => g.data);
  const antes = firma();
  const mirar = () => {
    const ahora = firma();
    if (ahora.length !== antes.length || ahora.some((v, i) => v !== antes[i])) {
      const datos = performance.now() - window.__t0;
      setTimeout(() => {
        performance.mark("pixeles");
        listo([datos, performance.now() - window.__t0]);
      }, 0);
    } else requestAnimationFrame(mirar);
  };
  window.__mirar = mirar;
})})"""

# En cada página, antes que Gradio: una marca «respuesta» cuando llega el mensaje SSE process_completed (el
# cliente de Gradio lo lee con JSON.parse) para separar la espera del servidor del trabajo del navegador.
MARCAR_RESPUESTA = """(() => {
  const leer = JSON.parse;
  JSON.parse = function (texto) {
    if (typeof texto === "string" && texto.length < 4e6 && texto.includes('"process_completed"')) {
      performance.mark("respuesta");
    }
    return leer.apply(this, arguments);
  };
})();"""

# Por movimiento, de las marcas y medidas de la página (ms): la espera del servidor (hasta process_completed),
# lo que Gradio tarda en pasar la respuesta a Plotly (JSON, Svelte), adaptar (figuras.mjs), lo síncrono de
# Plotly.react, revisar (figuras.mjs, sePisan) y lo que queda hasta los píxeles (cuadros: lo que Plotly deja en rAF,
# estilo, maquetación, pintura).
# Solo los dibujos que empezaron antes de los píxeles: los que figuras.mjs deja para después no los demoran.
FASES = """() => {
  const t0 = window.__t0, e = (n) => performance.getEntriesByName(n).filter((x) => x.startTime >= t0);
  const r = e("respuesta")[0], px = e("pixeles")[0];
  const antes = (l) => l.filter((x) => !px || x.startTime < px.startTime);
  const ad = antes(e("adaptar")), fi = antes(e("figura")), rv = antes(e("revisar"));
  const suma = (l) => l.reduce((s, x) => s + x.duration, 0);
  const fin = fi.length ? Math.max(...fi.map((x) => x.startTime + x.duration)) : null;
  const j = performance.getEntriesByType("resource").find((x) => x.name.includes("queue/join") && x.startTime >= t0);
  const f = {envio: j ? j.startTime - t0 : null, servidor: r ? r.startTime - t0 : null,
    gradio: r && fi.length ? fi[0].startTime - r.startTime : null,
    adaptar: suma(ad), plotly: suma(fi) - suma(ad), revisar: suma(rv),
    cuadros: px && fin !== null ? px.startTime - fin - suma(rv) : null};
  performance.clearMarks(); performance.clearMeasures();
  return f;
}"""


# `--figuras`: las páginas (las de cada pestaña, y parches con P = 8: 240 números sobre la foto) y las variantes de
# los datos de cada figura. Los textos de las casillas: `texttemplate` de los mapas y el `text` de los puntos con
# texto (los cuadritos de los rótulos quedan como puntos); los huecos: `xgap`/`ygap` de un mapa, que Plotly dibuja en
# un lienzo del tamaño del área y pasa a PNG (sin ellos, un lienzo de una casilla por píxel); «huecos como líneas»,
# sin ellos y con las rayas entre casillas en un trazo de líneas encima.
PAGINAS_FIGURAS = ("parches-vit/?P=8",)
VARIANTES = """({
  "tal cual": (d) => d,
  "sin textos": (d) => d.map((t) => {
    const c = {...t};
    delete c.texttemplate;
    if ((c.mode || "").includes("text")) c.mode = c.mode === "text" ? "none" : c.mode.replace("+text", "");
    if (c.type === "bar") delete c.text;
    return c;
  }),
  "sin huecos": (d) => d.map((t) => { const c = {...t}; delete c.xgap; delete c.ygap; return c; }),
  "huecos como líneas": (d) => d.flatMap((t) => {
    if (t.type !== "heatmap" || !t.xgap || !Array.isArray(t.z)) return [t];
    const c = {...t}; delete c.xgap; delete c.ygap;
    const n = t.z.length, m = t.z[0].length, x = [], y = [];
    for (let j = 0; j <= m; j++) x.push(j - 0.5, j - 0.5, null), y.push(-0.5, n - 0.5, null);
    for (let i = 0; i <= n; i++) x.push(-0.5, m - 0.5, null), y.push(i - 0.5, i - 0.5, null);
    return [c, {type: "scatter", mode: "lines", x, y, xaxis: t.xaxis, yaxis: t.yaxis, hoverinfo: "skip",
      showlegend: false, line: {color: "white", width: 1}}];
  }),
})"""
# Cada figura que se ve, en un <div> aparte de su tamaño: cada dibujo con una copia de sus datos (Plotly la rehace
# entera, como con un valor nuevo), hasta la tarea que sigue a la pintura; las variantes intercaladas dibujo a dibujo
# (la máquina cambia de un segundo a otro) y el primero de cada una no cuenta.
COSTO_FIGURAS = """async (veces) => {
  const V = __VARIANTES__, filas = [];
  for (const g of document.querySelectorAll(".figura-propia")) {
    const figura = window.__suite.figura(g);
    if (!figura || g.clientWidth === 0) continue;
    const {data, layout, config} = figura;
    const aparte = document.createElement("div");
    aparte.style.cssText = `width:${g.clientWidth}px;height:${g.clientHeight}px`;
    document.body.appendChild(aparte);
    const ms = {};
    for (let k = 0; k <= veces; k++) for (const [nombre, f] of Object.entries(V)) {
      const l = structuredClone(layout);
      delete l.meta; // sin meta.figura: lo dibuja el Plotly.react de Plotly, no el de figuras.mjs
      const t0 = performance.now();
      await window.Plotly.react(aparte, f(structuredClone(data)), l, config);
      await new Promise((listo) => requestAnimationFrame(() => setTimeout(listo, 0)));
      if (k) (ms[nombre] = ms[nombre] || []).push(performance.now() - t0);
    }
    aparte.remove();
    const textos = data.reduce((s, t) => s + (t.texttemplate || (t.mode || "").includes("text")
      ? [t.text].flat(2).filter((x) => x !== "" && x != null).length : 0), 0);
    const figura = (g.closest(".block[id]") || {}).id || "(sin id)";
    filas.push({figura, textos, huecos: data.some((t) => t.xgap), ms});
  }
  return filas;
}""".replace("__VARIANTES__", VARIANTES)


def costo_figuras(pg, url: str, veces: int) -> list[dict]:
    """Las figuras de la página `url`: por variante de sus datos, la mediana de dibujarla entera (ms)."""
    pg.goto(url)
    pg.wait_for_function("() => document.querySelector('.figura-propia')?.data", timeout=60_000)
    pg.wait_for_timeout(1500)  # lo que `load` manda y las figuras de más abajo
    filas = pg.evaluate(COSTO_FIGURAS, veces)
    for f in filas:
        f["ms"] = {k: statistics.median(v) for k, v in f["ms"].items()}
    return filas


def _imprimir_figuras(filas: list[tuple[str, dict]]) -> None:
    nombres = list(filas[0][1]["ms"]) if filas else []
    print("\n| página | figura | textos | " + " | ".join(nombres) + " |")
    print("|---|---|---|" + "---|" * len(nombres))
    for pagina, f in filas:
        base = f["ms"][nombres[0]]
        celdas = [f"{base:.0f} ms"]
        for n in nombres[1:]:  # sin huecos, las dos de los huecos dibujan lo mismo que «tal cual»
            sin_cambio = "huecos" in n and not f["huecos"]
            celdas.append("–" if sin_cambio else f"{f['ms'][n]:.0f} ms ({f['ms'][n] / base:.2f}×)")
        print(f"| {pagina} | {f['figura']} | {f['textos']} | " + " | ".join(celdas) + " |")


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
    from scripts.bench_navegador import MARCAR_INICIO  # el movimiento empieza con el evento del estudiante

    if modo == "texto":  # escribir el texto no cuenta: el movimiento es el Enter que lo envía
        pg.fill(selector, valor)
    pg.evaluate(f"() => {{ ({MARCAR_INICIO})(); performance.mark('mover'); }}")
    if modo == "texto":
        pg.press(selector, "Enter")
    elif modo == "tecla":
        pg.press(selector, valor)
    elif modo == "opcion":  # un botón de radio: la etiqueta con ese texto
        pg.locator(f"{selector} label").filter(has_text=valor).first.click()
    else:
        pg.fill(selector, valor)


def _tarea_ms(cdp) -> float:
    """El tiempo de CPU del hilo principal de la página hasta ahora (ms), de las métricas de CDP."""
    metricas = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return metricas["TaskDuration"] * 1000


def medir(pg, url: str, selector: str, valores: list[str], modo: str, raiz: str, veces: int, eco=False, lupa=None):
    """Por movimiento: (datos nuevos, píxeles, CPU de la página, {fase: ms}). `lupa` (una `Lupa`) graba los
    movimientos medidos (no la carga ni el que calienta)."""
    cdp = pg.context.new_cdp_session(pg)
    cdp.send("Performance.enable")
    pg.goto(url)
    pg.wait_for_selector(selector, timeout=60_000)
    if not eco:
        pg.wait_for_function(f"() => document.querySelector('{raiz} .js-plotly-plot')?.data", timeout=60_000)
    pg.wait_for_timeout(1500)
    tiempos = []
    for k in range(veces + 1):
        if k == 1 and lupa:
            lupa.empezar(pg)
        promesa = pg.evaluate_handle(ESPERA, [raiz if not eco else "#eco-t", eco])
        pg.evaluate("() => window.__mirar && requestAnimationFrame(window.__mirar)")
        cpu = _tarea_ms(cdp)
        _mover(pg, selector, valores[k % 2], modo)
        datos, pixeles = promesa.evaluate("(o) => o.p")
        cpu = _tarea_ms(cdp) - cpu
        fases = pg.evaluate(FASES)
        if k:  # el primero calienta
            tiempos.append((datos, pixeles, cpu, fases))
        pg.wait_for_timeout(400)
    if lupa:
        lupa.terminar(pg)
    return tiempos


# El hilo principal de la página en la traza, por lo que hace (tiempo propio de cada evento). El JS se reparte
# después entre Plotly, Gradio y la suite con el perfil de CPU (las muestras caen en el mismo reloj).
CLASES = {
    "estilo": ("UpdateLayoutTree", "RecalculateStyles"),
    "maquetación": ("Layout",),
    "pintura y capas": ("Paint", "PrePaint", "Layerize", "UpdateLayer", "UpdateLayerTree", "Commit", "PaintImage"),
    "JS": (
        "FunctionCall",
        "EvaluateScript",
        "V8.Execute",
        "v8.run",
        "v8.callFunction",
        "TimerFire",
        "RunMicrotasks",
        "FireAnimationFrame",
        "EventDispatch",
        "v8.compile",
        "V8.Compile",
        "FireIdleCallback",
        "ResizeObserver",
    ),
    "GC": ("MinorGC", "MajorGC", "V8.GC", "BlinkGC", "ThreadState::", "V8.Scavenge"),
}
CATEGORIAS = "devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.stack,"
CATEGORIAS += "blink.user_timing,v8,disabled-by-default-v8.gc"


def _clase(nombre: str) -> str:
    return next((c for c, prefijos in CLASES.items() if nombre.startswith(prefijos)), "otro")


def _guion(url: str) -> str:
    if "PlotlyPlot" in url:
        return "JS: Plotly"
    # Sin archivo: el guion de la suite (en el <head>), disposicion.js (Gradio lo evalúa) y lo que corre la medida.
    return "JS: Gradio (cliente, Svelte)" if url.startswith("http") else "JS sin archivo: la suite y la medida"


class Lupa:
    """Graba una traza (devtools.timeline) y un perfil de CPU de los movimientos medidos de una página y
    reparte el tiempo del hilo principal entre cada «mover» y su «pixeles»."""

    def __init__(self, navegador):
        self.navegador, self.cdp = navegador, None

    def empezar(self, pg) -> None:
        self.cdp = pg.context.new_cdp_session(pg)
        self.cdp.send("Profiler.enable")
        self.cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        self.cdp.send("Profiler.start")
        self.navegador.start_tracing(page=pg, categories=CATEGORIAS.split(","))

    def terminar(self, pg) -> None:
        crudo = json.loads(self.navegador.stop_tracing())
        self.eventos = crudo["traceEvents"] if isinstance(crudo, dict) else crudo
        self.perfil = self.cdp.send("Profiler.stop")["profile"]
        self.cdp.detach()

    def reparto(self) -> tuple[dict[str, Counter], Counter, dict[str, Counter]]:
        """ms por movimiento del hilo principal: {fase: {clase: ms}} (fase «espera» hasta process_completed,
        «dibujo» de ahí a los píxeles), quién pidió estilo y maquetación, y qué funciones de JS pesaron."""
        nombres = ("mover", "respuesta", "pixeles")
        marcas = [e for e in self.eventos if e.get("name") in nombres and "user_timing" in e.get("cat", "")]
        pid = next(e["pid"] for e in marcas if e["name"] == "mover")
        hilo = next(
            e["tid"]
            for e in self.eventos
            if e.get("pid") == pid and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
        )
        ts = {n: sorted(e["ts"] for e in marcas if e["name"] == n and e["pid"] == pid) for n in nombres}
        ventanas = [(a, *(next(b for b in ts[n] if b > a) for n in nombres[1:])) for a in ts["mover"]]

        def fase(t: float) -> str | None:
            return next(("espera" if t < r else "dibujo" for a, r, b in ventanas if a <= t <= b), None)

        propios = {"espera": Counter(), "dibujo": Counter()}
        forzado: Counter = Counter()
        pila: list[list] = []  # [fin, tiempo de los hijos, evento]
        completos = [e for e in self.eventos if e.get("pid") == pid and e.get("tid") == hilo and e.get("ph") == "X"]
        for e in [*sorted(completos, key=lambda e: (e["ts"], -e.get("dur", 0))), {"ts": float("inf"), "dur": 0}]:
            while pila and pila[-1][0] <= e["ts"]:
                _, hijos, ev = pila.pop()
                if pila:
                    pila[-1][1] += ev.get("dur", 0)
                if f := fase(ev["ts"]):
                    clase, propio = _clase(ev["name"]), (ev.get("dur", 0) - hijos) / 1000
                    propios[f]["JS" if ev["name"] == "RunTask" else clase] += propio  # RunTask propio: microtareas
                    if clase in ("estilo", "maquetación"):
                        pila_js = (ev.get("args", {}).get("beginData") or {}).get("stackTrace") or []
                        quien = next(
                            (f"{x['functionName'] or '(anónima)'} ({_guion(x['url'])[4:]})" for x in pila_js), ""
                        )
                        forzado[f"{clase} ← {quien or 'el cuadro (sin JS que lo pida)'}"] += propio
            if e["ts"] != float("inf"):
                pila.append([e["ts"] + e.get("dur", 0), 0, e])
        # El JS, repartido por guion según las muestras del perfil de CPU (su tiempo) que caen en cada fase.
        nodos = {x["id"]: x for x in self.perfil["nodes"]}
        padres = {h: x["id"] for x in self.perfil["nodes"] for h in x.get("children", [])}
        guiones = {"espera": Counter(), "dibujo": Counter()}
        funciones = {"espera": Counter(), "dibujo": Counter()}
        t = self.perfil["startTime"]
        for muestra, dt in zip(self.perfil.get("samples", []), self.perfil.get("timeDeltas", []), strict=False):
            t += dt
            x = nodos[muestra]["callFrame"]
            if not (f := fase(t)) or x["functionName"] in ("(idle)", "(program)", "(garbage collector)", "(root)"):
                continue
            arriba = muestra  # una función nativa (setAttribute, toDataURL) cuenta para el guion que la llamó
            while nodos[arriba]["callFrame"]["lineNumber"] < 0 and arriba in padres:
                arriba = padres[arriba]
            guion = _guion(nodos[arriba]["callFrame"]["url"])
            guiones[f][guion] += dt
            funciones[f][f"{x['functionName'] or '(anónima)'} ({guion[4:]}, {x['url'].rsplit('/', 1)[-1][:20]})"] += dt
        n = len(ventanas)
        escala = {}
        for f, c in propios.items():
            js, total = c.pop("JS", 0), sum(guiones[f].values()) or 1
            for g, us in guiones[f].items():
                c[g] = js * us / total
            escala[f] = js / total
        funciones_ms = {f: Counter({k: v * escala[f] / n for k, v in c.items()}) for f, c in funciones.items()}
        return (
            {f: Counter({k: v / n for k, v in c.items()}) for f, c in propios.items()},
            Counter({k: v / n for k, v in forzado.items()}),
            funciones_ms,
        )


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
    argumentos.add_argument(
        "--perfil",
        action="store_true",
        help="traza y perfil de CPU: dónde va el tiempo del hilo principal en cada movimiento",
    )
    argumentos.add_argument("--ancho", type=int, default=1280)
    argumentos.add_argument("--solo", default="", help="solo esta pestaña")
    argumentos.add_argument(
        "--sin-historial",
        action="store_true",
        help="cada movimiento también contra una app con run_history=False (sin guardar cada llamada en localStorage)",
    )
    argumentos.add_argument(
        "--sin-progreso",
        action="store_true",
        help='cada movimiento también contra una app con show_progress="hidden" en todos los eventos',
    )
    argumentos.add_argument(
        "--antes",
        metavar="REF",
        help="cada movimiento también con el disposicion.js del commit REF (p. ej. HEAD), la misma corrida",
    )
    argumentos.add_argument(
        "--figuras",
        action="store_true",
        help="sin mover nada: cada figura dibujada otra vez, tal cual y sin sus textos o sus huecos entre casillas",
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
    puerto_oculto = _puerto()
    if a.sin_progreso:  # el aviso de carga de Gradio (show_progress) de cada evento, fuera

        def sin_progreso(id_):
            b = app.construir_una(id_)
            for fn in b.fns.values():
                fn.show_progress = "hidden"
            return b

        _servir(crear_app(app.demo, sin_progreso, POR_ID, app.opciones_lanzamiento()), puerto_oculto)

    filas = []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        pg = b.new_context(viewport={"width": a.ancho, "height": 800}, locale="es-ES").new_page()
        if a.figuras:
            paginas = [f"{id_}/" for id_ in POR_ID] + list(PAGINAS_FIGURAS)
            for pagina in paginas:
                if not a.solo or pagina.startswith(a.solo + "/"):
                    url = f"http://127.0.0.1:{puerto}/demo/{pagina}"
                    filas += [(pagina, f) for f in costo_figuras(pg, url, a.veces)]
            b.close()
            _imprimir_figuras(filas)
            return
        pg.add_init_script(MARCAR_RESPUESTA)
        eco = medir(pg, f"http://127.0.0.1:{puerto_eco}/", "#eco-n input", ["1", "2"], "numero", "", a.veces, True)
        filas.append(("eco (Number → Textbox)", eco))
        # El antes, en la misma corrida: la misma app con el disposicion.js de `--antes REF`.
        puerto_antes = _puerto()
        if a.antes:
            _servir(crear_app(app.demo, app.construir_una, POR_ID, _opciones_de(a.antes)), puerto_antes)
        lupas = []
        for id_, selector, valores, modo in MOVIMIENTOS:
            if a.solo and id_ != a.solo:
                continue
            url = f"http://127.0.0.1:{puerto}/demo/{id_}/"
            nombre = f"{id_} ({selector.split()[0]}, {' ↔ '.join(valores)})"
            casos = [("", puerto)] + ([(f", antes ({a.antes})", puerto_antes)] if a.antes else [])
            casos += [(", sin historial", puerto_sin)] if a.sin_historial else []
            casos += [(', show_progress="hidden"', puerto_oculto)] if a.sin_progreso else []
            for sufijo, puerto_caso in casos:
                lupa = Lupa(b) if a.perfil else None
                t = medir(
                    pg, url.replace(str(puerto), str(puerto_caso)), selector, valores, modo, "body", a.veces, lupa=lupa
                )
                filas.append((nombre + sufijo, t))
                if lupa:
                    lupas.append((nombre + sufijo, lupa.reparto()))
        b.close()
    _imprimir(filas, lupas)


def _opciones_de(ref: str) -> dict:
    """Las opciones de la página con disposicion.js como estaba en el commit `ref` (las figuras, demos/comun/navegador,
    van en el <head> y son las de ahora)."""
    import subprocess

    import app

    opciones = app.opciones_lanzamiento()

    def viejo(ruta: str) -> str:
        git = ["git", "show", f"{ref}:{ruta}"]
        return subprocess.run(git, cwd=RAIZ, check=True, capture_output=True, text=True).stdout

    disposicion = "demos/servir/pagina/disposicion.js"
    ahora, antes = (RAIZ / disposicion).read_text(encoding="utf-8").strip(), viejo(disposicion).strip()
    assert ahora in opciones["js"]
    opciones["js"] = opciones["js"].replace(ahora, antes)
    return opciones


def _imprimir(filas, lupas) -> None:
    eco = filas[0][1]
    mediana_eco, cpu_eco = (statistics.median(x[i] for x in eco) for i in (1, 2))
    fases = ("envio", "servidor", "gradio", "adaptar", "plotly", "revisar", "cuadros")
    print(
        f"\n| movimiento | píxeles | × eco ({mediana_eco:.0f} ms) | CPU de la página | × eco | "
        + " | ".join(fases)
        + " |"
    )
    print("|---|---|---|---|---|" + "---|" * len(fases))
    for nombre, t in filas:
        px, c = (statistics.median(x[i] for x in t) for i in (1, 2))
        medianas = [[x[3][f] for x in t if x[3][f] is not None] for f in fases]
        cifras = " | ".join(f"{statistics.median(m):.0f} ms" if m else "–" for m in medianas)
        print(f"| {nombre} | {px:.0f} ms | {px / mediana_eco:.1f}× | {c:.0f} ms | {c / cpu_eco:.1f}× | {cifras} |")
    print("\n(envio: hasta que sale el queue/join; servidor: hasta el mensaje process_completed; gradio: de ahí al")
    print(" primer Plotly.react; adaptar y plotly: los dibujos antes de los píxeles; revisar: si los textos de la")
    print(" figura de siempre se pisan, ya dibujada; cuadros: del último dibujo a la tarea que sigue a la pintura,")
    print(" sin revisar)")
    for nombre, (fases_ms, forzado, funciones) in lupas:
        print(f"\n{nombre}: el hilo principal entre el movimiento y los píxeles (ms por movimiento; traza y perfil)")
        print("| en qué | mientras espera al servidor | de la respuesta a los píxeles |\n|---|---|---|")
        clases = sorted(set(fases_ms["espera"]) | set(fases_ms["dibujo"]), key=lambda c: -fases_ms["dibujo"][c])
        for c in clases:
            print(f"| {c} | {fases_ms['espera'][c]:.0f} ms | {fases_ms['dibujo'][c]:.0f} ms |")
        print("| **total** | " + " | ".join(f"{sum(fases_ms[f].values()):.0f} ms" for f in ("espera", "dibujo")) + " |")
        print("  estilo y maquetación, quién las pidió:")
        for quien, ms in forzado.most_common(6):
            print(f"  {ms:7.1f}  {quien}")
        for fase, texto in (("espera", "mientras espera"), ("dibujo", "tras la respuesta")):
            print(f"  funciones de JS con más tiempo propio, {texto} (las nativas con su nombre):")
            for f, ms in funciones[fase].most_common(6):
                print(f"  {ms:7.1f}  {f}")


if __name__ == "__main__":
    main()
