"""Lo que siente un estudiante en Chromium: del movimiento de un control a los píxeles nuevos.

    python scripts/bench.py --solo navegador

Para cada pestaña del registro, en /demo/<id>/: mueve su control principal (el del ajuste de
ejemplo de su `Vista`, el mismo que mueven las pruebas) de ida y vuelta entre el valor de ejemplo
y el inicial, y mide desde el evento con que el estudiante lo mueve (el `input` de un número o un deslizador,
el clic sobre una opción, el `keydown` del Enter que envía un texto: su propia marca de tiempo, así
no cuenta lo que Playwright tarda en llegar a la página ni sus esperas antes de un clic) hasta el primer cuadro
pintado después de que la primera figura cambió (la que se ve: `navegador.js` dibuja primero las figuras que están en la
pantalla), y hasta el cuadro en que ya están dibujadas también las demás de la pestaña (las de más abajo se
dibujan cuando el navegador queda libre). Junto a una página eco de Gradio (un Number conectado a un
Textbox) en la misma corrida. Cuenta además las peticiones `queue/join` por movimiento (la prueba exacta
está en tests/test_velocidad.py) y cuánto tarda la primera figura después del evento `load` en
cada /demo/<id>/ (la de la suite la mide la sección «apertura», con la caché vacía).

Imprime cuánto se llevó cada fase (arrancar, abrir cada pestaña, esperar la calma, mover) y la
duración total: la sección tiene que caber en `make bench` (#22: menos de 5 minutos).
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections import defaultdict

from scripts.bench import Servidor, ms, puerto_libre, tabla

ECO = """
import sys, gradio as gr
with gr.Blocks() as demo:
    entrada, salida = gr.Number(0, elem_id="eco-entrada"), gr.Textbox(elem_id="eco-salida")
    entrada.input(lambda x: str(x), entrada, salida, api_name="eco")
demo.queue(default_concurrency_limit=4, max_size=64)
demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]))
"""

ESPERA_S = 15  # un movimiento que no se ve en este tiempo cuenta como fallido
# Sin eventos corriendo ni queue/join nuevos durante esto: lo que manda la página ya salió. Al abrir es más
# largo: Parches ViT manda su segundo evento ≈ 1 s después de que el de `load` terminó (máquina cargada).
CALMA_AL_ABRIR_MS, CALMA_TRAS_MOVER_MS = 1000, 500


class Fases:
    """Cuánto se lleva cada fase de la sección, sumada sobre las pestañas: dónde se va el tiempo."""

    def __init__(self):
        self.inicio = time.perf_counter()
        self.segundos: dict[str, float] = defaultdict(float)

    @contextlib.contextmanager
    def __call__(self, nombre: str):
        t = time.perf_counter()
        try:
            yield
        finally:
            self.segundos[nombre] += time.perf_counter() - t

    def total(self) -> float:
        return time.perf_counter() - self.inicio

    def filas(self) -> list[list]:
        total = self.total()
        filas = [[n, f"{s:.1f} s", f"{s / total:.0%}"] for n, s in self.segundos.items()]
        return [*filas, ["**total**", f"{total:.1f} s", ""]]


class Joins:
    """Las peticiones `queue/join` de la página: cuántas salieron y cuántas siguen sin respuesta."""

    def __init__(self, pagina):
        self.enviadas = self.abiertas = 0
        pagina.on("request", lambda r: "queue/join" in r.url and self._cambia(1, 1))
        pagina.on("requestfinished", lambda r: "queue/join" in r.url and self._cambia(0, -1))
        pagina.on("requestfailed", lambda r: "queue/join" in r.url and self._cambia(0, -1))

    def _cambia(self, enviadas: int, abiertas: int) -> None:
        self.enviadas += enviadas
        self.abiertas += abiertas

    def calma(self, pagina, quieta_ms: int, limite_s: float = 15) -> None:
        """Espera (como mucho `limite_s`) a que no corra ningún evento (ni join abierto ni salida `.pending`
        de Gradio: un evento encadenado sale al terminar el anterior) y pasen `quieta_ms` sin joins nuevos."""
        fin = time.perf_counter() + limite_s
        while time.perf_counter() < fin:
            antes = self.enviadas
            pagina.wait_for_timeout(quieta_ms)
            quieta = pagina.evaluate("() => !document.querySelector('.pending')")
            if self.enviadas == antes and self.abiertas <= 0 and quieta:
                return


# Desde el primer script de cada página: cuándo (ms desde que empezó la navegación) aparece la primera
# figura dibujada de la pestaña que se abrió (/demo/<id>/, ?tab=<id> o la primera de la suite).
PRIMERA = """(() => {
  const m = location.pathname.match(/\\/demo\\/([^/]+)/);
  const id = m ? m[1] : (new URLSearchParams(location.search).get("tab") || "%s");
  const mirar = () => {
    const g = document.querySelector("#" + id + "-figura1 .js-plotly-plot");
    if (g && g.data && g.data.length) { window.__primera = performance.now(); return; }
    requestAnimationFrame(mirar);
  };
  requestAnimationFrame(mirar);
})();"""

TRAS_LOAD = """() => {
  const n = performance.getEntriesByType("navigation")[0];
  return n && n.loadEventStart > 0 && window.__primera !== undefined ? window.__primera - n.loadEventStart : null;
}"""

# El comienzo de un movimiento: el primer evento del estudiante después de armarla (una tecla, un clic, o el `input`
# de escribir un número), con su `timeStamp` (el reloj de performance.now()). Un clic cuenta desde que se suelta el
# botón, cuando la página reacciona (el de una persona dura ≈ 100 ms apretado). Si no llega ninguno, queda la hora
# en que se armó.
MARCAR_INICIO = """() => {
  window.__t0 = performance.now();
  window.__armado = true;
  if (window.__marcador) return;
  window.__marcador = true;
  const marcar = (e) => {
    if (!window.__armado) return;
    window.__armado = false;
    window.__t0 = e.timeStamp;
  };
  for (const tipo of ["keydown", "click", "input"]) window.addEventListener(tipo, marcar, true);
}"""

# Antes de mover: guarda lo que se ve ahora. Después: espera a que cambie y a que se pinte. El cambio se ve en un
# requestAnimationFrame, antes de pintar ese cuadro; la medida cierra en la tarea que sigue a la pintura (un
# setTimeout pedido desde ahí, que corre antes que lo que la página dejó para después del cuadro: las otras figuras,
# navegador.js). Hasta la sesión 18 cerraba en el requestAnimationFrame del cuadro siguiente: ≈ un cuadro más, y la
# segunda figura dentro.
GUARDAR = (
    """(sel) => {
  const g = document.querySelector(sel + " .js-plotly-plot");
  const t = document.querySelector(sel + " textarea");
  window.__antes = g ? g.data : t ? t.value : null;
  ("""
    + MARCAR_INICIO
    + """)();
}"""
)
ESPERAR = """([sel, limite]) => new Promise((listo) => {
  const ahora = () => {
    const g = document.querySelector(sel + " .js-plotly-plot");
    if (g) return g.data;
    const t = document.querySelector(sel + " textarea");
    return t ? t.value : null;
  };
  const mirar = () => {
    const v = ahora();
    if (v !== null && v !== undefined && v !== window.__antes) {
      setTimeout(() => listo(performance.now() - window.__t0), 0);
    } else if (performance.now() - window.__t0 > limite) {
      listo(null);
    } else {
      requestAnimationFrame(mirar);
    }
  };
  requestAnimationFrame(mirar); // el cambio se mira siempre antes de pintar un cuadro
})"""


# Después de la figura que se ve: las demás, que navegador.js dibuja después (mientras tanto llevan `data-diferida`),
# hasta que se pintan.
ESPERAR_TODAS = """(limite) => new Promise((listo) => {
  const mirar = () => {
    if (!document.querySelector(".figura-propia[data-diferida]")) {
      setTimeout(() => listo(performance.now() - window.__t0), 0);
    } else if (performance.now() - window.__t0 > limite) {
      listo(null);
    } else {
      requestAnimationFrame(mirar);
    }
  };
  requestAnimationFrame(mirar);
})"""


def _mover(pagina, sel_figura: str, accion) -> tuple[float, float] | None:
    """Segundos del evento que dispara `accion` (preparar, disparar) al primer cuadro con la figura nueva, y a las
    demás figuras de la pestaña dibujadas (None si la figura no cambió a tiempo)."""
    preparar, disparar = accion
    if preparar:
        preparar()
    pagina.evaluate(GUARDAR, sel_figura)
    disparar()
    t = pagina.evaluate(ESPERAR, [sel_figura, ESPERA_S * 1000])
    if t is None:
        return None
    todas = pagina.evaluate(ESPERAR_TODAS, ESPERA_S * 1000)
    return t / 1000, (todas or float("nan")) / 1000


def _accion(pagina, id_: str, nombre: str, c, valor: str):
    """Mover el control `c` a `valor` como un estudiante: (preparar, disparar). Escribir el número; escribir el
    texto y enviarlo (lo que se mide empieza en la tecla); elegir la opción."""
    import gradio as gr

    sel = f"#{id_}-{nombre}"
    if isinstance(c, gr.Radio):
        etiqueta = next((e for e, v in c.choices if str(v) == valor), valor)
        return None, lambda: pagina.locator(f"{sel} label").filter(has_text=str(etiqueta)).first.click()
    if isinstance(c, gr.Textbox):  # recalcula al enviarlo (Enter) o al salir (Tab, si es de varias líneas)
        tecla = "Enter" if (c.lines or 1) == 1 else "Tab"
        caja = pagina.locator(f"{sel} textarea, {sel} input").first
        return lambda: caja.fill(valor), lambda: caja.press(tecla)
    caja = pagina.locator(f"{sel} input[type=number]").first
    return None, lambda: caja.fill(valor)


def _principal(vista) -> tuple[str, object, str, str]:
    """(nombre, componente, valor de ejemplo, valor inicial) del control principal de la vista."""
    ejemplo, _ = vista.ejemplos()
    nombre, valor = next(iter(ejemplo.items()))
    c = vista.url[nombre]
    inicial = f"{c.value:g}" if isinstance(c.value, int | float) else str(c.value)
    return nombre, c, valor, inicial


def _una_pestana(pagina, url: str, id_: str, vista, veces: int, joins: Joins, fases: Fases):
    """(tiempos de cada movimiento, queue/join por movimiento, movimientos fallidos, 1.ª figura tras `load`)."""
    with fases("abrir cada /demo/<id>/ (hasta su 1.ª figura)"):
        pagina.goto(f"{url}demo/{id_}/", wait_until="load", timeout=60_000)
        pagina.wait_for_function("() => window.__primera !== undefined", timeout=60_000)
    primera = pagina.evaluate(TRAS_LOAD)
    primera = None if primera is None else primera / 1000
    with fases("esperar la calma (lo que manda `load`, eventos encadenados)"):
        joins.calma(pagina, CALMA_AL_ABRIR_MS)  # lo que llega con `load` y lo que se llena al abrir
    nombre, c, ejemplo, inicial = _principal(vista)
    acciones = [_accion(pagina, id_, nombre, c, v) for v in (ejemplo, inicial)]
    antes = joins.enviadas
    tiempos, fallidos = [], 0
    with fases(f"mover ({veces} por pestaña)"):
        for k in range(veces):
            t = _mover(pagina, f"#{id_}-figura1", acciones[k % 2])
            if t is None:
                fallidos += 1
            else:
                tiempos.append(t)
    with fases("esperar la calma (lo que manda `load`, eventos encadenados)"):
        joins.calma(pagina, CALMA_TRAS_MOVER_MS)  # un evento encadenado que salga tarde también cuenta
    return tiempos, (joins.enviadas - antes) / veces, fallidos, primera


def _tras_load(t: float | None) -> str:
    if t is None:
        return "—"
    return "antes de `load`" if t <= 0 else ms(t)


def navegador(veces: int = 8) -> str:
    """Mediana, en Chromium, de mover el control principal de cada pestaña hasta ver la figura nueva."""
    from playwright.sync_api import sync_playwright

    fases = Fases()
    p_app, p_eco = puerto_libre(), puerto_libre()
    servidor = Servidor(["app.py", "--port", str(p_app)], p_app)  # los dos arrancan a la vez
    eco = Servidor(["-c", ECO, str(p_eco)], p_eco)
    filas = []
    try:
        with fases("arrancar la app y el eco (y armar las vistas aquí)"):
            import app as suite  # mientras arrancan los servidores
            from demos import PESTANAS

            vistas = suite.vistas(suite.demo)
            servidor.esperar()
            eco.esperar()
        with sync_playwright() as pw:
            with fases("lanzar Chromium"):
                nav = pw.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
                )
                pagina = nav.new_page(viewport={"width": 1280, "height": 900})
                pagina.add_init_script(PRIMERA % PESTANAS[0].id)
                joins = Joins(pagina)

            with fases("el eco (abrir y mover)"):
                pagina.goto(eco.url)
                caja_eco = pagina.locator("#eco-entrada input").first
                caja_eco.wait_for()
                escribir = [(None, lambda k=k: caja_eco.fill(str(k + 1))) for k in range(veces)]
                eco_t = [_mover(pagina, "#eco-salida", accion) for accion in escribir]
            m_eco = statistics.median(t for t, _ in filter(None, eco_t))
            filas.append(["(eco: Number → Textbox)", ms(m_eco), "1.00×", "", "1", "", ""])

            for p in PESTANAS:
                vista = vistas[p.id]
                nombre = _principal(vista)[0]
                try:
                    tiempos, por_mov, fallidos, primera = _una_pestana(
                        pagina, servidor.url, p.id, vista, veces, joins, fases
                    )
                except Exception as e:  # la pestaña no abrió: se anota y se sigue
                    filas.append([f"{p.id} ({nombre})", "—", "—", "—", "—", "—", f"no abrió: {type(e).__name__}"])
                    continue
                m = statistics.median(t for t, _ in tiempos) if tiempos else float("nan")
                m_todas = statistics.median(t for _, t in tiempos) if tiempos else float("nan")
                print(
                    f"  {p.id}: {ms(m)}, {por_mov:g} joins por movimiento ({fases.total():.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
                filas.append(
                    [
                        f"{p.id} ({nombre})",
                        ms(m),
                        f"{m / m_eco:.2f}×",
                        ms(m_todas) if m_todas == m_todas else "—",
                        f"{por_mov:g}",
                        _tras_load(primera),
                        f"{fallidos} sin cambio" if fallidos else "",
                    ]
                )
            nav.close()
    finally:
        with fases("cerrar los servidores"):
            servidor.cerrar()
            eco.cerrar()
    duracion = fases.total()
    texto = tabla(
        f"Navegador: del movimiento a los píxeles en Chromium, /demo/<id>/ (mediana de {veces} movimientos; "
        f"la sección tardó {duracion:.0f} s)",
        ["pestaña (control)", "mediana", "/ eco", "todas sus figuras", "joins por mov.", "1.ª figura tras `load`", ""],
        filas,
    )
    texto += tabla("Tiempo de la sección navegador, por fase", ["fase", "segundos", "del total"], fases.filas())
    print(f"La sección navegador tardó {duracion:.0f} s.", file=sys.stderr, flush=True)
    return texto
