"""Lo que siente un estudiante en Chromium: del movimiento de un control a los píxeles nuevos.

    python scripts/bench.py --solo navegador

Para cada pestaña del registro, en /demo/<id>/: mueve su control principal (el del ajuste de
ejemplo de su `Vista`, el mismo que mueven las pruebas) de ida y vuelta entre el valor de ejemplo
y el inicial, y mide desde el evento con que el estudiante lo mueve (el `input` de un número o un deslizador,
el clic sobre una opción, el `keydown` del Enter que envía un texto: su propia marca de tiempo, así
no cuenta lo que Playwright tarda en llegar a la página ni sus esperas antes de un clic) hasta el primer cuadro
pintado después de que la primera figura cambió (la que se ve: `figuras.mjs` dibuja primero las figuras que están en la
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
from dataclasses import dataclass, field

from scripts.medir import Servidor, ms, puerto_libre, tabla

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

# Antes de mover (GUARDAR): guarda lo que se ve ahora y empieza a mirar cada cuadro; después (ESPERAR): espera el
# primero que pinta otra cosa. Cada cuadro, la mirada es un setTimeout pedido desde su requestAnimationFrame: corre en
# la tarea que sigue a la pintura de ese cuadro, y antes que lo que la página dejó para después del cuadro (las otras
# figuras, figuras.mjs). Así cuenta lo que cambió en cualquier momento antes de pintar, también en los
# requestAnimationFrame de Gradio (un clic en una opción se procesa ahí, después del de la mirada).
# Hasta la sesión 27 la mirada empezaba en ESPERAR, después de que Playwright devolvía la tecla o el clic: si el cuadro
# con la figura nueva ya se había pintado (un clic: Playwright tarda en devolverlo), contaba el siguiente que llegara,
# 30–50 ms más tarde (una traza de atención cruzada: la figura nueva, pintada a los 33 ms del clic; la medida, 70–87).
# Si el cambio llega en una tarea entre la pintura y la mirada (la respuesta del eco), cuenta un cuadro de menos: el
# error favorece al eco.
GUARDAR = (
    """([sel, limite]) => {
  const ahora = () => {
    const g = document.querySelector(sel + " .js-plotly-plot");
    // lo que se ve: la figura viva o una instantánea (demos/comun/navegador/figuras.mjs)
    if (g) return window.__suite.estado(g).enPantalla ?? g.data;
    const t = document.querySelector(sel + " textarea");
    return t ? t.value : null;
  };
  const antes = ahora();
  ("""
    + MARCAR_INICIO
    + """)();
  window.__espera = new Promise((listo) => {
    const mirar = () => setTimeout(() => {
      const v = ahora();
      if (v !== null && v !== undefined && v !== antes) listo(performance.now() - window.__t0);
      else if (performance.now() - window.__t0 > limite) listo(null);
      else requestAnimationFrame(mirar);
    }, 0);
    requestAnimationFrame(mirar);
  });
}"""
)
ESPERAR = "() => window.__espera"


# Después de la figura que se ve: las demás, que figuras.mjs dibuja después (mientras tanto llevan `data-diferida`),
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
    pagina.evaluate(GUARDAR, [sel_figura, ESPERA_S * 1000])
    disparar()
    t = pagina.evaluate(ESPERAR)
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


# --- «barrido» (#36): arrastrar un control barrido, una tecla sobre su riel, y qué camino de Plotly conviene ---------


@dataclass
class Barrer:
    """Un control barrido de una pestaña, como lo mueve el estudiante en /demo/<id>/."""

    id_: str
    nombre: str  # en la tabla
    tipo: str  # "deslizador" o "opcion"
    control: str  # selector del <input type=range>, o del bloque de la lista
    figura: str  # selector del bloque de la primera figura que cambia entre paradas
    paradas: list
    errores: set[int]  # las paradas que la función rechaza (el motivo va bajo el control; la figura se queda)
    opciones: list = field(default_factory=list)  # (etiqueta, valor) de una lista
    inicial: object = None
    mostrar: list = field(default_factory=list)  # (selector de una lista, etiqueta): lo que lo hace visible
    dibujos: tuple[str, ...] = ()  # figuras de varios paneles en las que se comparan Plotly.react y restyle


# Las figuras de varios paneles en las que se compara Plotly.react con restyle + relayout (#36), por pestaña: las
# del primer barrido de cada una (cabezas, w, cabezas, P, log₁₀ T).
DIBUJOS = {
    "multicabeza": ("multicabeza-figura2",),
    "variantes": ("variantes-figura1",),
    "memoria": ("memoria-figura1",),
    "parches-vit": ("parches-vit-figura3", "parches-vit-figura1"),
    "temperatura": ("temperatura-figura2",),
}
ARRASTRES = 3  # por deslizador: izquierda → derecha, derecha → izquierda, izquierda → derecha
PASOS_DEL_ARRASTRE, ESPERA_ENTRE_PASOS_MS, DURACION_DEL_ARRASTRE_S = 60, 16, 1.0


def barridos_de(vistas: dict) -> list[Barrer]:
    """Los controles barridos de las vistas (sus `Vista.barridos`) y la instantánea de la inversión de dígitos (una
    `Seccion` de su panel «Mira cómo aprende», que no está en la vista). Las paradas rechazadas y la primera figura que
    cambia salen del paquete que la página recibe con los valores iniciales."""
    import gradio as gr

    from demos.comun.barrido import paquete, paradas_de
    from demos.comun.figuras.componente import Figura

    casos = []
    for id_, vista in vistas.items():
        valores = [c.value for c in vista.entradas]
        for k, b in enumerate(vista.barridos):
            c = b.control
            nombre = next((n for n, x in vista.url.items() if x is c), None)
            p = paquete(vista, b, valores)
            figuras = [
                s.elem_id
                for s, q in zip(vista.salidas, p.get("salidas", []), strict=False)
                if isinstance(s, Figura) and q["cambios"]
            ] or [f"{id_}-figura1"]
            mostrar = []
            for otro, valor in b.con:  # k y w de la máscara se ven con «relleno» y «ventana»
                n = next(n for n, x in vista.url.items() if x is otro)
                mostrar.append((f"#{id_}-{n}", next(e for e, v in otro.choices if v == valor)))
            caso = Barrer(
                id_=id_,
                nombre=nombre or c.label.split("(")[0].strip(),
                tipo="opcion" if isinstance(c, gr.Radio) else "deslizador",
                control=(
                    f"#{id_}-{nombre}"
                    if isinstance(c, gr.Radio)
                    else f"#{id_}-{nombre} input[type=range]"
                    if nombre
                    else f'input[type=range][aria-label="deslizador: {c.label}"]'
                ),
                figura=f"#{figuras[0]}",
                paradas=paradas_de(b),
                errores={int(i) for i in p.get("errores", {})},
                opciones=[tuple(o) for o in c.choices] if isinstance(c, gr.Radio) else [],
                inicial=c.value,
                mostrar=mostrar,
                dibujos=DIBUJOS.get(id_, ()) if k == 0 else (),
            )
            casos.append(caso)
    if "inversion-digitos" in vistas:
        from demos.inversion_digitos.entrenar import INSTANTANEA, cuantas_instantaneas

        casos.append(
            Barrer(
                id_="inversion-digitos",
                nombre="instantánea",
                tipo="deslizador",
                control='input[type=range][aria-label*="Instantánea"]',
                figura=f"#{INSTANTANEA}",
                paradas=list(range(cuantas_instantaneas())),
                errores=set(),
                inicial=0,
            )
        )
    return casos


# El arrastre, en la página: entre el pointerdown y el pointerup, los cuadros (requestAnimationFrame), los cuadros en
# que la figura muestra otro valor (`estado(g).enPantalla` de demos/comun/navegador/figuras.mjs: el texto del valor
# que se ve, dibujado por Plotly o
# puesto como instantánea; guarda esos valores, para contar después las paradas distintas) y los valores del riel que
# pasaron por `input`. Las medidas «figura» e «instantánea» de figuras.mjs (una por dibujo de Plotly o instantánea
# puesta, con el id del bloque) se cuentan al final.
ARMAR_ARRASTRE = """([sel, rango]) => {
  performance.clearMeasures("figura");
  performance.clearMeasures("instantánea");
  const g = document.querySelector(sel + " .js-plotly-plot");
  const a = {abajo: null, arriba: null, cuadros: 0, datos: [], tiempos: [], valores: [], fin: false};
  window.__arrastre = a;
  const visto = () => (g ? window.__suite.estado(g).enPantalla ?? g.data : null);
  let antes = visto();
  const mirar = () => {
    if (a.fin) return;
    const ahora = performance.now();
    if (a.abajo !== null && a.arriba === null) a.cuadros++;
    if (g && visto() !== antes) { antes = visto(); a.datos.push(antes); a.tiempos.push(ahora); }
    requestAnimationFrame(mirar);
  };
  requestAnimationFrame(mirar);
  window.addEventListener("pointerdown", (e) => { a.abajo = e.timeStamp; }, {capture: true, once: true});
  window.addEventListener("pointerup", (e) => { a.arriba = e.timeStamp; }, {capture: true, once: true});
  rango.addEventListener("input", () => a.valores.push(rango.value));
}"""

LEER_ARRASTRE = """(sel) => {
  const a = window.__arrastre;
  a.fin = true;
  const bloque = document.querySelector(sel).id;
  const durante = (t) => t >= a.abajo && t <= a.arriba;
  const dibujos = [...performance.getEntriesByName("figura"), ...performance.getEntriesByName("instantánea")]
    .filter((m) => m.detail === bloque && m.startTime >= a.abajo);
  const cambios = a.tiempos.filter(durante);
  let hueco = 0, previo = a.abajo;
  for (const t of [...cambios, a.arriba]) { hueco = Math.max(hueco, t - previo); previo = t; }
  const dibujados = dibujos.filter((m) => durante(m.startTime));
  const ultima = a.tiempos.length ? a.tiempos[a.tiempos.length - 1] : a.arriba;
  return {
    ms: a.arriba - a.abajo, cuadros: a.cuadros, cambios: cambios.length, dibujos: dibujados.length,
    paradas: new Set(a.datos.map((d) => (typeof d === "string" ? d : JSON.stringify(d)))).size,
    recorridas: new Set(a.valores).size, hueco,
    tras_soltar: Math.max(0, ultima - a.arriba),
  };
}"""


def _arrastrar(pagina, rango, hacia_la_derecha: bool) -> int:
    """Un arrastre con el ratón de una punta a la otra del riel en ≈ 1 s: pasos cada 16 ms, cada uno donde estaría
    la mano a esa hora (`DURACION_DEL_ARRASTRE_S`). Playwright espera a que la página reciba cada movimiento: con el
    hilo principal ocupado dibujando, un movimiento tarda un cuadro, y los pasos se espacian, como los movimientos
    de una mano real que el navegador junta en uno por cuadro. Sin el reloj, los 60 pasos durarían 60 cuadros
    (minutos con la máquina cargada). Devuelve cuántos movimientos recibió la página."""
    rango.scroll_into_view_if_needed()
    caja = rango.bounding_box()
    y = caja["y"] + caja["height"] / 2
    inicio, fin = caja["x"] + 4, caja["x"] + caja["width"] - 4
    if not hacia_la_derecha:
        inicio, fin = fin, inicio
    pagina.mouse.move(inicio, y)
    pagina.mouse.down()
    t0, movimientos = time.perf_counter(), 0
    for _ in range(PASOS_DEL_ARRASTRE):
        fraccion = min(1.0, (time.perf_counter() - t0) / DURACION_DEL_ARRASTRE_S)
        pagina.mouse.move(inicio + (fin - inicio) * fraccion, y)
        movimientos += 1
        if fraccion >= 1:
            break
        pagina.wait_for_timeout(ESPERA_ENTRE_PASOS_MS)
    else:
        pagina.mouse.move(fin, y)
        movimientos += 1
    pagina.mouse.up()
    return movimientos


def _etiqueta(pagina, sel: str, etiqueta: str):
    import re

    return pagina.locator(f"{sel} label").filter(has_text=re.compile(rf"^\s*{re.escape(str(etiqueta))}\s*$")).first


def _ida_y_vuelta(pagina, caso: Barrer, rango) -> tuple[list, str]:
    """Las dos acciones (ir, volver) de un movimiento corto y lo que la tabla dice de él. Un deslizador: una tecla
    sobre el riel enfocado, a la parada válida más cercana (a la derecha, si hay) y de vuelta; las rechazadas de en
    medio (multicabeza: de 4 a 8 cabezas pasa por 5, 6 y 7) se pasan antes de armar la medida. Una lista: un clic
    en la opción siguiente que la función admite, y otro en la de antes."""
    if caso.tipo == "opcion":
        valores = [v for _, v in caso.opciones]
        i = valores.index(caso.inicial)
        j = next(j % len(valores) for j in range(i + 1, i + len(valores)) if j % len(valores) not in caso.errores)
        ir, volver = (_etiqueta(pagina, caso.control, caso.opciones[x][0]) for x in (j, i))
        texto = f"clic: {caso.opciones[i][0]} ↔ {caso.opciones[j][0]}"
        return [(None, ir.click), (None, volver.click)], texto
    valor = float(rango.input_value())
    i = min(range(len(caso.paradas)), key=lambda j: abs(float(caso.paradas[j]) - valor))
    validas = [j for j in range(len(caso.paradas)) if j != i and j not in caso.errores]
    derecha = [j for j in validas if j > i]
    j = min(derecha) if derecha else max(validas)
    n = abs(j - i)
    teclas = ("ArrowRight", "ArrowLeft") if j > i else ("ArrowLeft", "ArrowRight")

    def accion(tecla: str):
        def preparar():
            rango.focus()
            for _ in range(n - 1):
                pagina.keyboard.press(tecla)
            if n > 1:
                pagina.wait_for_timeout(200)

        return preparar, lambda: pagina.keyboard.press(tecla)

    flecha = "→" if j > i else "←"
    texto = f"{flecha}{'×' + str(n) if n > 1 else ''}: {caso.paradas[i]:g} ↔ {caso.paradas[j]:g}"
    return [accion(t) for t in teclas], texto


# Las figuras de dos paradas seguidas, para comparar caminos de Plotly: la de ahora (A) antes del primer movimiento y
# la de la otra parada (B) después de él (el valor que Gradio dio al bloque, sin lo que figuras.mjs adapta).
GUARDAR_FIGURA = """([ids, cual]) => {
  window.__figurasAB = window.__figurasAB || {};
  for (const id of ids) {
    const g = document.querySelector("#" + id + " .figura-propia");
    window.__figurasAB[id] = window.__figurasAB[id] || {};
    window.__figurasAB[id][cual] = g && window.__suite.figura(g) ? structuredClone(window.__suite.figura(g)) : null;
  }
}"""

# Cambiar de una parada a la otra en dos <div> aparte del tamaño de la figura, alternando (el orden también alterna)
# hasta la tarea que sigue a la pintura: (a) Plotly.react con la figura nueva entera (lo que hace la app: figuras.mjs
# le da una copia, y Plotly la rehace), (b) Plotly.update (restyle de lo que cambia en cada traza, con undefined en
# las que no, y relayout de lo que cambia en el layout), y si cambia el número de trazas, además deleteTraces o
# addTraces. Todo lo que cada llamada recibe se arma antes del reloj. El primero de cada uno no cuenta.
COMPARAR_DIBUJO = """async ([id, veces]) => {
  const g = document.querySelector("#" + id + " .figura-propia");
  const {A, B} = window.__figurasAB[id];
  const trasPintar = () => new Promise((listo) => requestAnimationFrame(() => setTimeout(listo, 0)));
  const sinMeta = (l) => { const c = structuredClone(l); delete c.meta; return c; };
  const figura = (f) => [structuredClone(f.data), sinMeta(f.layout), f.config];
  // {ruta: valor nuevo} de lo que cambia de `de` a `a`; un contenedor que falta de un lado (un eje nuevo) va entero, y
  // lo que desaparece, en null. Las listas van enteras (los arreglos de datos se cambian enteros).
  const objeto = (v) => v && typeof v === "object" && !Array.isArray(v);
  const diferencias = (de, a, pre = "", d = {}) => {
    for (const k of new Set([...Object.keys(de), ...Object.keys(a)])) {
      const ruta = pre ? pre + "." + k : k;
      if (objeto(de[k]) && objeto(a[k])) diferencias(de[k], a[k], ruta, d);
      else if (JSON.stringify(de[k]) !== JSON.stringify(a[k])) d[ruta] = a[k] === undefined ? null : a[k];
    }
    return d;
  };
  const camino = (de, a) => {
    const n = Math.min(de.data.length, a.data.length);
    const porTraza = [];
    for (let i = 0; i < n; i++) porTraza.push(diferencias(de.data[i], a.data[i]));
    // Plotly no acepta en un mismo restyle una ruta y la de su padre («line» y «line.color»): si el padre cambia
    // entero en una traza, en las demás también va entero.
    const padres = new Set(porTraza.flatMap((d) => Object.keys(d)));
    porTraza.forEach((d, i) => {
      for (const r of Object.keys(d)) {
        const partes = r.split(".");
        for (let j = 1; j < partes.length; j++) {
          const padre = partes.slice(0, j).join(".");
          if (!padres.has(padre)) continue;
          const valor = padre.split(".").reduce((o, k) => (o == null ? o : o[k]), a.data[i]);
          d[padre] = valor === undefined ? null : valor;
          delete d[r];
          break;
        }
      }
    });
    const indices = [...porTraza.keys()].filter((i) => Object.keys(porTraza[i]).length);
    const rutas = [...new Set(indices.flatMap((i) => Object.keys(porTraza[i])))];
    const estilo = {};
    for (const r of rutas) estilo[r] = indices.map((i) => (r in porTraza[i] ? porTraza[i][r] : undefined));
    const quitar = [];
    for (let i = n; i < de.data.length; i++) quitar.push(i);
    return {estilo, indices, rutas, layout: diferencias(sinMeta(de.layout), sinMeta(a.layout)),
      agregar: a.data.slice(n), quitar};
  };
  const aplicar = async (div, c) => {
    if (c.quitar.length) await window.Plotly.deleteTraces(div, c.quitar);
    if (c.indices.length) await window.Plotly.update(div, c.estilo, c.layout, c.indices);
    else if (Object.keys(c.layout).length) await window.Plotly.relayout(div, c.layout);
    if (c.agregar.length) await window.Plotly.addTraces(div, c.agregar);
  };
  const limpios = (d) => JSON.stringify(Object.fromEntries(d.map((t, i) => {
    const c = {...t};
    delete c.uid;
    return [i, c];
  })));
  const nuevo = () => {
    const d = document.createElement("div");
    d.style.cssText = `width:${g.clientWidth}px;height:${g.clientHeight}px`;
    document.body.appendChild(d);
    return d;
  };
  const divReact = nuevo(), divRestyle = nuevo();
  await window.Plotly.react(divReact, ...figura(A));
  await window.Plotly.react(divRestyle, ...figura(A));
  await trasPintar();
  const ida = camino(A, B), vuelta = camino(B, A);
  const ms = {react: [], restyle: []};
  let igual = true;
  for (let k = 0; k <= 2 * veces; k++) {
    const destino = k % 2 === 0 ? B : A;
    const preparado = {react: figura(destino), restyle: structuredClone(k % 2 === 0 ? ida : vuelta)};
    for (const cual of k % 4 < 2 ? ["react", "restyle"] : ["restyle", "react"]) {
      const t0 = performance.now();
      if (cual === "react") await window.Plotly.react(divReact, ...preparado.react);
      else await aplicar(divRestyle, preparado.restyle);
      await trasPintar();
      if (k) ms[cual].push(performance.now() - t0);
    }
    if (k < 2 && igual) {
      // restyle de zmax (o cmax) pone además zauto: false, que ya era el efecto de dar zmax: no cuenta.
      const d = diferencias(JSON.parse(limpios(divRestyle.data)), JSON.parse(limpios(destino.data)));
      const otras = Object.keys(d).filter((r) => !/auto$/.test(r) || d[r] !== undefined && d[r] !== null);
      if (otras.length) igual = otras.slice(0, 4).join(", ");
    }
  }
  divReact.remove();
  divRestyle.remove();
  return {ms, igual, trazas: [A.data.length, B.data.length], rutas: ida.rutas, cambian: ida.indices.length,
    layout: Object.keys(ida.layout)};
}"""


def _comparar_dibujo(pagina, caso: Barrer, veces: int) -> list[list]:
    """Filas de la tabla de caminos de Plotly para las figuras de varios paneles del caso."""
    filas = []
    for id_figura in caso.dibujos:
        try:
            r = pagina.evaluate(COMPARAR_DIBUJO, [id_figura, veces])
        except Exception as e:  # Plotly no acepta el restyle armado: se anota, sin perder las otras medidas
            fila = [f"{caso.id_} ({caso.nombre})", id_figura.removeprefix(f"{caso.id_}-"), "", "—", "—", "—"]
            filas.append([*fila, f"**error**: {str(e).splitlines()[0][:90]}"])
            continue
        react, restyle = (statistics.median(r["ms"][k]) for k in ("react", "restyle"))
        rutas = ", ".join(sorted({x.split(".")[0] for x in r["rutas"]}))
        cambia = f"{rutas or '—'} de {r['cambian']} de {min(r['trazas'])} trazas"
        if r["trazas"][0] != r["trazas"][1]:
            cambia += f"; trazas {r['trazas'][0]} → {r['trazas'][1]} (deleteTraces/addTraces)"
        if r["layout"]:
            cambia += f"; layout: {len(r['layout'])} claves"
        filas.append(
            [
                f"{caso.id_} ({caso.nombre})",
                id_figura.removeprefix(f"{caso.id_}-"),
                cambia,
                ms(react / 1000),
                ms(restyle / 1000),
                f"{restyle / react:.2f}×",
                "sí" if r["igual"] is True else f"**no** ({r['igual']})",
            ]
        )
    return filas


# Tras un movimiento: cuándo empezó (desde el evento del estudiante), cuánto duró lo síncrono del primer dibujo de la
# figura (la medida «figura» de figuras.mjs, un Plotly.react, o «instantánea», un valor ya dibujado que se vuelve a
# poner; con el id del bloque) y cuál de los dos fue.
PRIMER_DIBUJO = """(sel) => {
  const bloque = document.querySelector(sel).id;
  const m = [...performance.getEntriesByName("figura"), ...performance.getEntriesByName("instantánea")]
    .filter((x) => x.detail === bloque && x.startTime >= window.__t0)
    .sort((x, y) => x.startTime - y.startTime)[0];
  return m ? [m.startTime - window.__t0, m.duration, m.name] : null;
}"""


def _un_barrido(pagina, url: str, caso: Barrer, veces: int, joins: Joins, fases: Fases, medir_eco) -> dict:
    """Abre la pestaña, mueve el control `veces` (una tecla o un clic, de ida y vuelta), lo arrastra (si es un
    deslizador) y compara los caminos de Plotly en sus figuras de varios paneles."""
    with fases("abrir cada /demo/<id>/ (hasta su 1.ª figura)"):
        pagina.bring_to_front()
        pagina.goto(f"{url}demo/{caso.id_}/?predecir=0", wait_until="load", timeout=60_000)
        pagina.wait_for_function("() => window.__primera !== undefined", timeout=60_000)
    with fases("esperar la calma (lo que manda `load`, eventos encadenados)"):
        joins.calma(pagina, CALMA_AL_ABRIR_MS)
        for sel, etiqueta in caso.mostrar:
            _etiqueta(pagina, sel, etiqueta).click()
        if caso.mostrar:
            joins.calma(pagina, CALMA_TRAS_MOVER_MS)
    rango = pagina.locator(caso.control).first if caso.tipo == "deslizador" else None
    acciones, texto = _ida_y_vuelta(pagina, caso, rango)
    with fases("el eco, intercalado"):
        medir_eco(2)
    tiempos, dibujos, fallidos = [], [], 0
    antes = joins.enviadas
    with fases(f"tecla o clic ({veces} por control)"):
        pagina.evaluate(GUARDAR_FIGURA, [list(caso.dibujos), "A"])
        for k in range(veces):
            t = _mover(pagina, caso.figura, acciones[k % 2])
            if k == 0:
                pagina.evaluate(GUARDAR_FIGURA, [list(caso.dibujos), "B"])
            if t is None:
                fallidos += 1
            else:
                tiempos.append(t[0])
                if d := pagina.evaluate(PRIMER_DIBUJO, caso.figura):
                    dibujos.append(d)
            pagina.wait_for_timeout(100)
        joins.calma(pagina, CALMA_TRAS_MOVER_MS)
    por_mov = (joins.enviadas - antes) / veces
    arrastres = []
    if caso.tipo == "deslizador":
        with fases(f"arrastrar ({ARRASTRES} por deslizador)"):
            for k in range(ARRASTRES):
                antes = joins.enviadas
                pagina.evaluate(ARMAR_ARRASTRE, [caso.figura, rango.element_handle()])
                movimientos = _arrastrar(pagina, rango, k % 2 == 0)
                joins.calma(pagina, CALMA_TRAS_MOVER_MS)
                leido = pagina.evaluate(LEER_ARRASTRE, caso.figura)
                arrastres.append({**leido, "joins": joins.enviadas - antes, "movimientos": movimientos})
    with fases("Plotly.react contra restyle"):
        comparados = _comparar_dibujo(pagina, caso, veces) if caso.dibujos else []
    return {
        "texto": texto,
        "tiempos": tiempos,
        "hasta_plotly": [d[0] / 1000 for d in dibujos],
        "plotly": [d[1] / 1000 for d in dibujos],
        "instantaneas": sum(d[2] == "instantánea" for d in dibujos),
        "fallidos": fallidos,
        "joins": por_mov,
        "arrastres": arrastres,
        "dibujos": comparados,
    }


def barrido(veces: int = 8, pestanas: list[str] | None = None) -> str:
    """Cada control barrido en Chromium: una tecla o un clic hasta los píxeles junto al eco (intercalado, en la misma
    corrida), arrastrarlo (dibujos por segundo, paradas, queue/join) y Plotly.react contra restyle + relayout.
    `pestanas`: solo los controles de esas pestañas (para volver a medir una)."""
    from playwright.sync_api import sync_playwright

    fases = Fases()
    p_app, p_eco = puerto_libre(), puerto_libre()
    servidor = Servidor(["app.py", "--port", str(p_app)], p_app)
    eco = Servidor(["-c", ECO, str(p_eco)], p_eco)
    eco_t, resultados = [], []
    try:
        with fases("arrancar la app y el eco (y armar aquí las vistas y sus paquetes)"):
            import app as suite
            from demos import PESTANAS

            casos = [c for c in barridos_de(suite.vistas(suite.demo)) if not pestanas or c.id_ in pestanas]
            servidor.esperar()
            eco.esperar()
        with sync_playwright() as pw:
            with fases("lanzar Chromium"):
                nav = pw.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
                )
                # Cada página en su contexto (su ventana), y al frente la que se mide: una página de fondo recibe
                # requestAnimationFrame una vez por segundo, y cada medida (hasta el cuadro tras la pintura) valdría
                # ≈ 1 s.
                vista_1280 = {"viewport": {"width": 1280, "height": 900}}
                pagina, pagina_eco = nav.new_context(**vista_1280).new_page(), nav.new_context(**vista_1280).new_page()
                pagina.add_init_script(PRIMERA % PESTANAS[0].id)
                joins = Joins(pagina)
            with fases("el eco, intercalado"):
                pagina_eco.goto(eco.url)
                caja_eco = pagina_eco.locator("#eco-entrada input").first
                caja_eco.wait_for()

            def medir_eco(n: int) -> None:
                pagina_eco.bring_to_front()
                for _ in range(n):
                    valor = str(len(eco_t) + 1)
                    t = _mover(pagina_eco, "#eco-salida", (None, lambda v=valor: caja_eco.fill(v)))
                    if t is not None:
                        eco_t.append(t[0])
                pagina.bring_to_front()

            with fases("el eco, intercalado"):
                medir_eco(veces)
            for caso in casos:
                try:
                    r = _un_barrido(pagina, servidor.url, caso, veces, joins, fases, medir_eco)
                except Exception as e:  # el control no se pudo mover: se anota y se sigue
                    r = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"}
                print(f"  {caso.id_} ({caso.nombre}): {fases.total():.0f} s", file=sys.stderr, flush=True)
                resultados.append((caso, r))
            nav.close()
    finally:
        with fases("cerrar los servidores"):
            servidor.cerrar()
            eco.cerrar()
    return _tablas_del_barrido(resultados, eco_t, veces, fases)


def _tablas_del_barrido(resultados: list, eco_t: list[float], veces: int, fases: Fases) -> str:
    m_eco = statistics.median(eco_t)
    mov = [["(eco: Number → Textbox)", "", "", ms(m_eco), "1.00×", "", "", "", "1", ""]]
    arr, dibujos, razones, sin_joins, con_joins = [], [], [], [], []
    for caso, r in resultados:
        nombre = f"{caso.id_} ({caso.nombre})"
        if "error" in r:
            mov.append([nombre, "", "", "—", "—", "—", "—", "—", "—", r["error"]])
            continue
        m = statistics.median(r["tiempos"]) if r["tiempos"] else float("nan")
        razones.append((nombre, m / m_eco))
        a = r["arrastres"]
        joins_arrastre = sum(x["joins"] for x in a)
        (sin_joins if joins_arrastre == 0 and r["joins"] == 0 else con_joins).append(nombre)
        mov.append(
            [
                nombre,
                caso.figura.removeprefix(f"#{caso.id_}-"),
                r["texto"],
                ms(m),
                f"{m / m_eco:.2f}×",
                ms(statistics.median(r["hasta_plotly"])) if r["hasta_plotly"] else "—",
                ms(statistics.median(r["plotly"])) if r["plotly"] else "—",
                f"{r.get('instantaneas', 0)} de {len(r['plotly'])}",
                f"{r['joins']:g}",
                f"{r['fallidos']} sin cambio" if r["fallidos"] else "",
            ]
        )
        if a:

            def med(f, a=a) -> float:
                return statistics.median(f(x) for x in a)

            arr.append(
                [
                    nombre,
                    f"{med(lambda x: x['ms']) / 1000:.2f} s ({med(lambda x: x['movimientos']):g})",
                    f"{med(lambda x: 1000 * x['dibujos'] / x['ms']):.1f}",
                    f"{med(lambda x: 1000 * x['cambios'] / x['ms']):.1f}",
                    f"{med(lambda x: 1000 * x['cuadros'] / x['ms']):.0f}",
                    f"{med(lambda x: x['paradas']):g} / {med(lambda x: x['recorridas']):g} de {len(caso.paradas)}",
                    ms(med(lambda x: x["hueco"]) / 1000),
                    ms(med(lambda x: x["tras_soltar"]) / 1000),
                    f"{joins_arrastre}",
                ]
            )
        dibujos += r["dibujos"]
    duracion = fases.total()
    texto = tabla(
        f"Barrido: una tecla sobre el riel enfocado o un clic en una opción de cada control barrido, en Chromium, "
        f"/demo/<id>/?predecir=0, hasta la tarea tras la pintura del cuadro con la figura nueva (como «navegador»; "
        f"el dibujo: Plotly.react, o la instantánea de un valor ya dibujado que figuras.mjs vuelve a poner; "
        f"mediana de {veces}, de ida y vuelta; el eco, intercalado entre los controles; la sección tardó "
        f"{duracion:.0f} s)",
        [
            "pestaña (control)",
            "figura",
            "movimiento",
            "→ píxeles",
            "/ eco",
            "hasta el dibujo",
            "dibujo (síncrono)",
            "instantáneas (sin Plotly)",
            "joins por movimiento",
            "",
        ],
        mov,
    )
    if arr:
        texto += tabla(
            f"Arrastre de cada deslizador barrido con el ratón, de una punta a la otra del riel en ≈ 1 s (mediana de "
            f"{ARRASTRES}; por segundo del arrastre, entre apretar y soltar el botón)",
            [
                "pestaña (control)",
                "duración (movimientos del ratón)",
                "dibujos de la figura/s",
                "cuadros con figura nueva/s",
                "cuadros/s de la página",
                "paradas dibujadas / recorridas",
                "mayor hueco sin figura nueva",
                "última figura tras soltar",
                "joins en los arrastres",
            ],
            arr,
        )
    cumplen = [n for n, x in razones if x <= 1.0]
    veredicto = (
        f"\n- **0 queue/join al arrastrar o elegir: {len(sin_joins)} de {len(sin_joins) + len(con_joins)} controles**"
        + (f" (con alguno: {', '.join(con_joins)})" if con_joins else "")
        + f".\n- **Tecla o clic → píxeles ≤ 1.0× el eco: {len(cumplen)} de {len(razones)}**"
        + (f" ({min(x for _, x in razones):.2f}–{max(x for _, x in razones):.2f}×)" if razones else "")
        + f"; el eco, {ms(m_eco)} (mediana de {len(eco_t)}, intercalado entre los controles).\n"
    )
    print(veredicto, flush=True)
    texto += "\n" + veredicto
    if dibujos:
        texto += tabla(
            f"Dibujo de una parada en las figuras de varios paneles: Plotly.react con la figura entera contra "
            f"Plotly.update (restyle de lo que cambia + relayout), en dos <div> aparte del mismo tamaño, alternando, "
            f"hasta la tarea tras la pintura (mediana de {2 * veces} cambios de cada uno, de ida y vuelta)",
            [
                "página (control)",
                "figura",
                "qué cambia entre las dos paradas",
                "Plotly.react",
                "restyle + relayout",
                "razón",
                "misma figura",
            ],
            dibujos,
        )
    texto += tabla("Fases de la sección barrido", ["fase", "segundos", "del total"], fases.filas())
    print(f"La sección barrido tardó {duracion:.0f} s.", file=sys.stderr, flush=True)
    return texto
