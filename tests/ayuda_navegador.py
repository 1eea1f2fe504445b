"""Lo que comparten las pruebas de navegador: dónde van las capturas y cómo esperar una figura.

La página de Chromium (`pagina`) es un fixture de `conftest.py`. Ninguna prueba importa de otra.
"""

from __future__ import annotations

import re

from tests.ayuda import RAIZ

CAPTURAS = RAIZ / "artefactos" / "capturas"
ESPERA_MS = 30_000
# Ruido de fondo que no es de la app: recursos que el navegador pide por su cuenta.
RUIDO = re.compile(r"favicon|manifest\.json|Failed to load resource.*404")


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
