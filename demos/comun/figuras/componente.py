"""El componente de una figura de la suite en la página: un `gr.HTML` que dibuja con Plotly.js (cartesiano).

Antes era un `gr.Plot`: Gradio importaba su Plotly.js entero (4.6 MB) al montar la primera figura, dibujaba
cada valor en un `<div>` nuevo y lo redimensionaba 100 ms después; la suite reescribía al servirlos los trozos
de Gradio (las trazas registradas, los módulos sin uso) y envolvía su `Plotly.react`. Ahora todo eso es público:

- el valor es el mismo que mandaba `gr.Plot` (`{"type": "plotly", "plot": "<JSON de la figura>"}`): el API de
  cada pestaña no cambia;
- `head` pide el paquete oficial `plotly.js-cartesian-dist-min` (MIT; 1.4 MB: bar, heatmap, image, scatter y
  otras seis trazas), que la página sirve como un archivo más de `./assets/` (servidor/laterales.py);
- `js_on_load` entrega cada valor (`watch("value")`) a `demos/comun/navegador` (la página lo carga una vez), que
  lo adapta a la página (modo oscuro, teléfono, proyector) y lo dibuja siempre en el mismo `<div>`.

La plantilla no usa el valor, así Gradio no toca el `<div>` que dibuja Plotly cuando llega otro valor (compara
el HTML de la plantilla antes de cambiar nada).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import gradio as gr

PLOTLY = Path(__file__).with_name("estatico") / "plotly-cartesian-3.7.0.min.js"
RUTA_PLOTLY = "./assets/" + PLOTLY.name  # relativa a la página, como los archivos de Gradio

# Lo que corre una vez por figura montada: entregar cada valor a las figuras de la suite (demos/comun/navegador,
# por su puerta `window.__suite`). Si todavía no arrancaron (la página las trae en su <head>, y en el de la
# configuración para quien la arma desde /config), la figura espera en una lista que ellas vacían al arrancar.
AL_CARGAR = """
const lienzo = element.querySelector(".figura-propia");
const entregar = () => {
  const f = (window.__suite ??= {});
  if (f.recibir) f.recibir(lienzo, props.value);
  else (f.enEspera ??= new Map()).set(lienzo, () => props.value);
};
watch("value", entregar);
entregar();
""".strip()


class Figura(gr.HTML):
    """Una figura de `demos.comun.figuras` en la página. El valor: `valor_de_figura(descripción)` (o None)."""

    def __init__(self, value: Any = None, *, label: str | None = None, **kw):
        nombre = html.escape(label or "Figura", quote=True)
        kw.setdefault("show_label", False)
        # El frontend de gr.HTML no aplica `scale` a su bloque (Gradio 6.31: queda en flex-grow 1): la figura de
        # `scale=3` junto a una columna de `scale=2` medía un tercio de la fila en vez de tres quintos. La clase
        # `escala-N` lo hace en base.css (tests/test_pantallas.py mira los anchos).
        if isinstance(kw.get("scale"), int) and 1 <= kw["scale"] <= 6:
            kw["elem_classes"] = [*(kw.get("elem_classes") or []), f"escala-{kw['scale']}"]
        super().__init__(
            value=value,
            label=label,
            html_template=f'<div class="figura-propia" role="figure" aria-label="{nombre}"></div>',
            js_on_load=AL_CARGAR,
            head=f'<script src="{RUTA_PLOTLY}"></script>',
            apply_default_css=False,
            **kw,
        )

    def preprocess(self, payload: Any) -> Any:
        return payload

    def postprocess(self, value: Any) -> dict | None:
        """None, o el valor de una figura: {"type": "plotly", "plot": str} (lo que arma `valor_de_figura`)."""
        if value is None:
            return None
        if hasattr(value, "model_dump"):  # un PlotData de Gradio
            value = value.model_dump()
        if not (isinstance(value, dict) and value.get("type") == "plotly" and isinstance(value.get("plot"), str)):
            raise TypeError(f"Una Figura recibe el valor de una figura de la suite, no {type(value).__name__}.")
        return {"type": "plotly", "plot": value["plot"]}

    def api_info(self) -> dict[str, Any]:
        return {
            "type": "object",
            "description": "Una figura de Plotly: type = «plotly» y plot = su JSON (data, layout, config).",
            "properties": {"type": {"type": "string", "const": "plotly"}, "plot": {"type": "string"}},
        }

    def example_payload(self) -> Any:
        return None

    def example_value(self) -> Any:
        return None
