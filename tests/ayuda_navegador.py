"""Lo que comparten las pruebas de navegador: dónde van las capturas y cómo esperar una figura.

La página de Chromium (`pagina`) es un fixture de `conftest.py`. Ninguna prueba importa de otra.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess

from tests.ayuda import RAIZ

CAPTURAS = RAIZ / "artefactos" / "capturas"
ESPERA_MS = 60_000  # con la máquina cargada, la primera figura tarda
# Ruido de fondo que no es de la app: recursos que el navegador pide por su cuenta.
RUIDO = re.compile(r"favicon|manifest\.json|Failed to load resource.*404")


def carpeta_capturas():
    """artefactos/capturas/, o docs/capturas/ (las del README) con ATENCION_CAPTURAS_DOCS=1."""
    carpeta = RAIZ / "docs" / "capturas" if os.environ.get("ATENCION_CAPTURAS_DOCS") == "1" else CAPTURAS
    carpeta.mkdir(parents=True, exist_ok=True)
    return carpeta


def guardar_captura(pg, ruta) -> None:
    """La captura; para el README (docs/), en 128 colores: pesa la mitad y se lee igual."""
    pg.screenshot(path=str(ruta))
    if ruta.parent.parent == RAIZ / "docs":
        from PIL import Image

        Image.open(ruta).convert("RGB").quantize(colors=128).save(ruta, optimize=True)


# Lo que dibuja la primera figura de la pestaña: los datos de sus trazos de Plotly (o el src de una imagen).
# customdata lleva los nombres que dice la pista: otras palabras con los mismos números cambian la figura.
FIRMA = """(sel) => {
  const g = document.querySelector(sel + " .js-plotly-plot");
  if (g && g.data && g.data.length)
    return JSON.stringify(g.data.map(t => [t.z, t.y, t.x, t.text, t.source, t.customdata]));
  const i = document.querySelector(sel + " img");
  return i && i.src ? i.src : null;
}"""


def fuente_figura(pg, id_: str) -> str:
    """Espera a que la primera figura de la pestaña tenga datos dibujados y devuelve su firma."""
    sel = f"#{id_}-figura1"
    pg.wait_for_function(f"(sel) => ({FIRMA})(sel) !== null", arg=sel, timeout=ESPERA_MS)
    return pg.evaluate(FIRMA, sel)


def espera_cambio(pg, id_: str, antes: str) -> None:
    pg.wait_for_function(
        f"([sel, antes]) => {{ const f = ({FIRMA})(sel); return f !== null && f !== antes; }}",
        arg=[f"#{id_}-figura1", antes],
        timeout=ESPERA_MS,
    )


# --- recorrer la suite con clics, como un docente ---------------------------------------------


def boton(pg, contenedor: str, titulo: str):
    """El botón de la pestaña `titulo` en la barra de `contenedor` (no el de un menú «⋯»)."""
    return pg.locator(f"{contenedor} > .tab-wrapper button[role=tab]").filter(
        has_text=re.compile(rf"^\s*{re.escape(titulo)}")
    )


def recorrer(pg):
    """Elige cada grupo y cada pestaña del registro con clics; da cada pestaña con su figura dibujada."""
    import app
    from demos import GRUPOS

    for grupo, pestanas in GRUPOS.items():
        boton(pg, "#grupos", grupo).click()
        barra = f"#{app._id_grupo(grupo)} .pestanas-del-grupo"
        for p in pestanas:
            boton(pg, barra, app._titulo(p)).click()
            fuente_figura(pg, p.id)
            yield p


# --- ni una palabra en inglés ---------------------------------------------------------------------

# Textos de Gradio, de Plotly (su barra) o de Python que no deben verse nunca, ni leerse en una etiqueta para
# lectores de pantalla (aria-label, title, placeholder).
INGLES = (
    "Drop Image Here", "Built with Gradio", "Use via API", "select the draw tool", "True", "False",
    "Warning", "Reset to default value", "number input for", "range slider for", "Copy table data",
    "Fullscreen", "Table actions", "Open cell menu", "File upload", "Upload file", "Click to upload",
    "Drop an image file", "Capture from camera", "Paste from clipboard", "Clear canvas", "Undo", "Redo",
    "Zoom in", "Zoom out", "Brush", "Erase", "Drop CSV", "Close",
    "Autoscale", "Reset axes", "Download plot", "Box Select", "Lasso Select", "Produced with Plotly",
)  # fmt: skip
PATRON_INGLES = re.compile("|".join(rf"\b{re.escape(t)}\b" for t in INGLES), re.IGNORECASE)

# El texto que se ve, fuera del código (`True` en un fragmento de código es PyTorch, no una fuga de
# Python), y las etiquetas de lo que se ve.
TEXTO_VISIBLE = """() => {
  const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const partes = [];
  for (let n = w.nextNode(); n; n = w.nextNode()) {
    const e = n.parentElement;
    if (!e || e.closest("code, pre, .katex, script, style, [aria-hidden=true]")) continue;
    if (e.checkVisibility({visibilityProperty: true, opacityProperty: true})) partes.push(n.textContent);
  }
  for (const e of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
    if (e.closest("code, pre, .js-plotly-plot") || !e.checkVisibility()) continue;
    for (const a of ["aria-label", "title", "placeholder"]) if (e.hasAttribute(a)) partes.push(e.getAttribute(a));
  }
  // La barra de Plotly: sus nombres (data-title) salen al pasar el ratón por una figura que se ve.
  for (const b of document.querySelectorAll(".js-plotly-plot .modebar-btn[data-title]")) {
    if (b.closest(".js-plotly-plot").checkVisibility()) partes.push(b.getAttribute("data-title"));
  }
  return partes.join(" ");
}"""


def ingles_visible(pg) -> list[str]:
    return sorted({m.group(0) for m in PATRON_INGLES.finditer(pg.evaluate(TEXTO_VISIBLE))})


# --- lo instalado con npm (make npm): axe-core y reveal.js ----------------------------------------

NODE_MODULES = RAIZ / "node_modules"
AXE = NODE_MODULES / "axe-core" / "axe.min.js"
REVEAL = NODE_MODULES / "reveal.js" / "dist"


def requiere_npm() -> None:
    import pytest

    for ruta in (AXE, REVEAL / "reveal.js"):
        if not ruta.exists():
            pytest.fail(f"Falta {ruta.relative_to(RAIZ)}: `make npm` (o `make test`) instala axe-core y reveal.js.")


AXE_GRAVES = """async () => {
  const r = await axe.run(document, {resultTypes: ["violations"]});
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.nodes.length}): ` + v.nodes.slice(0, 2).map((n) => n.target.join(" ")).join(" | "));
}"""


QUIETA_MS = 400
# Verdadero cuando la página lleva `ms` sin ninguna salida `.pending` (se llama cada 50 ms).
QUIETA = """(ms) => {
  const ahora = performance.now();
  if (document.querySelector(".pending") || window.__quietaDesde === undefined) window.__quietaDesde = ahora;
  return ahora - window.__quietaDesde >= ms;
}"""


def violaciones_graves(pg) -> list[str]:
    """Las violaciones serias o críticas de axe-core en lo que se ve de la página, ya quieta.

    Mientras un evento corre, Gradio deja sus salidas a opacidad 0.2 (`.pending`): axe ve ese texto
    desvaído como falta de contraste (pasó en el CI limpio con una tabla de variantes). Se espera a que
    no quede ninguna durante `QUIETA_MS` seguidos: un evento que sale justo después de la figura (lo que la
    pestaña llena al abrirse) ponía `.pending` entre la espera y axe (los enlaces de Variantes, con la máquina
    cargada). Si alguna no se va, axe lo dice igual.
    """
    import playwright.sync_api

    pg.evaluate("() => { delete window.__quietaDesde; }")  # la cuenta empieza ahora, no en la llamada anterior
    with contextlib.suppress(playwright.sync_api.TimeoutError):
        pg.wait_for_function(QUIETA, arg=QUIETA_MS, timeout=15_000, polling=50)
    if not pg.evaluate("typeof axe !== 'undefined'"):
        pg.add_script_tag(path=str(AXE))
    return pg.evaluate(AXE_GRAVES)


# --- textos que se pisan dentro de una figura (#37) -----------------------------------------------

# Por figura de Plotly que se ve (el id de su bloque), los pares de textos de su SVG cuyas cajas se cruzan más de
# 1 px en cada sentido: dos nombres de un eje que se tocan, un número de casilla sobre un rótulo. Solo los textos
# que se ven (sin opacidad 0 ni visibility: hidden) y con caja.
# Con `derechos`, solo los textos sin girar o girados a ±90° (el título de un eje y, de lado): la caja de un nombre
# girado a −45° cruza la del vecino sin que sus letras se toquen; la de uno de lado es la de sus letras.
SOLAPES = """(derechos) => {
  const res = {};
  const ver = {visibilityProperty: true, opacityProperty: true};
  const girado = (t) => {
    const giro = (t.getAttribute("transform") || "").match(/rotate\\((-?[\\d.]+)/);
    return !!giro && Math.abs(parseFloat(giro[1])) % 90 !== 0;
  };
  let n = 0;
  for (const g of document.querySelectorAll(".js-plotly-plot")) {
    if (!g.checkVisibility(ver)) continue;
    const cajas = [...g.querySelectorAll("text")]
      .filter((t) => t.textContent.trim() && t.checkVisibility(ver) && !(derechos && girado(t)))
      .map((t) => [t.textContent.trim(), t.getBoundingClientRect()]).filter(([, r]) => r.width > 0 && r.height > 0);
    const pares = [];
    for (let i = 0; i < cajas.length; i++) for (let j = i + 1; j < cajas.length; j++) {
      const [a, ra] = cajas[i], [b, rb] = cajas[j];
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 1 && y > 1) pares.push(`«${a}» y «${b}»`);
    }
    const bloque = g.closest(".block[id]");
    if (pares.length) res[bloque ? bloque.id : `figura ${++n}`] = pares;
  }
  return res;
}"""


def textos_que_se_solapan(pg, derechos: bool = False) -> dict[str, list[str]]:
    """Los pares de textos que se pisan en cada figura que se ve (las de abajo también: se llega a ellas); con
    `derechos`, entre los que no van girados."""
    pg.evaluate("""() => new Promise((listo) => {
      window.scrollTo(0, document.body.scrollHeight);  // las de abajo se dibujan al acercarse a la vista
      setTimeout(() => { window.scrollTo(0, 0); setTimeout(listo, 800); }, 800);
    })""")
    return pg.evaluate(SOLAPES, derechos)


NODE = shutil.which("node")
MAQUETAR = RAIZ / "tests" / "js" / "maquetar_desde_python.mjs"


def en_telefono(fig: dict, ancho: float | None = None) -> dict:
    """La figura `fig` (pantalla.figura_plotly) como la maqueta el navegador en un teléfono, sin navegador: la misma
    `maquetar` de maqueta.mjs, en Node, con los ajustes de Python. `ancho`: el de la figura en la página (por
    omisión, el de un teléfono de 390 px, `ANCHO_FIGURA`). El navegador es el único que ajusta los textos al ancho:
    una prueba de Python del teléfono mira lo que él haría."""
    import pytest

    from demos.comun import navegador
    from demos.comun.figuras.pantalla_angosta import ANCHO_FIGURA

    if NODE is None:
        pytest.skip("sin Node.js")
    pagina = {"angosto": True, "oscuro": False, "ancho": ancho or ANCHO_FIGURA, "alto": None, "escala": 1}
    entrada = json.dumps(
        {"figura": fig, "pagina": pagina | {"elegido": 0, "fondo": None}, "ajustes": navegador.ajustes()}
    )
    r = subprocess.run([NODE, str(MAQUETAR)], input=entrada, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    data, layout = json.loads(r.stdout)
    return {"data": data, "layout": layout, "config": fig.get("config", {})}
