"""La pestaña dentro de un marco ajeno (SECURITY.md §2 y §5): lo que un padre o un enlace al mazo pueden hacer.

- El cliente de Gradio acepta «supports-zerogpu-headers» de cualquier padre: el oyente de
  `demos/servir/pagina/cabeza/zerogpu.js` lo corta si no viene de huggingface.co. Aquí se fija el oyente de
  Gradio a su versión: si cambia, hay que mirar si el nuestro sigue haciendo falta y sigue alcanzando.
- `docs/diapositivas.html?base=javascript:…` no corre nada: el mazo de ejemplo solo acepta bases http(s).
"""

from __future__ import annotations

import re
from pathlib import Path

import gradio
import pytest

RAIZ = Path(__file__).resolve().parents[1]
ESTATICOS = Path(gradio.__file__).parent / "templates" / "frontend" / "assets"


def test_el_oyente_de_zerogpu_de_gradio_es_el_que_se_corta():
    """Gradio 6.31.0: `window.addEventListener("message", e => { e.data === ft && (window.supports_zerogpu_headers
    = !0) })`, sin mirar el origen. Si una versión nueva lo cambia, esta prueba falla: revisar zerogpu.js."""
    assert gradio.__version__ == "6.31.0", "otra versión de Gradio: revisar demos/servir/pagina/cabeza/zerogpu.js"
    oyentes = [
        p.name
        for p in ESTATICOS.glob("index-*.js")
        if re.search(r"e\.data===\w+&&\(window\.supports_zerogpu_headers=!0\)", p.read_text(encoding="utf-8"))
        and "`supports-zerogpu-headers`" in p.read_text(encoding="utf-8")
    ]
    assert oyentes, "el oyente de Gradio cambió: revisar demos/servir/pagina/cabeza/zerogpu.js"


def test_el_corte_va_en_el_html_servido_antes_que_gradio():
    """Va en `cabeza_html` (el HTML servido), no en el `head` de Gradio, que el cliente pone después de registrar
    su oyente: en Chromium los oyentes de window corren en el orden de registro, sea captura o no."""
    from demos.servir import pagina

    cabeza = pagina.opciones()["cabeza_html"]
    assert "supports-zerogpu-headers" in cabeza and "stopImmediatePropagation" in cabeza
    assert "https://huggingface.co" in cabeza


@pytest.mark.navegador
@pytest.mark.parametrize("base", ["javascript:top.__robado=1//", "data:text/html,<script>top.__robado=1</script>"])
def test_el_mazo_de_ejemplo_solo_acepta_bases_http(navegador, base):
    from urllib.parse import quote

    pagina = navegador.new_page()
    try:
        pagina.goto((RAIZ / "docs" / "diapositivas.html").as_uri() + "?base=" + quote(base, safe=""))
        pagina.wait_for_timeout(800)
        robado = pagina.evaluate("() => window.__robado")
        fuentes = pagina.evaluate("() => [...document.querySelectorAll('iframe')].map(f => f.src)")
    finally:
        pagina.close()
    assert robado is None
    assert fuentes and all(f.startswith("http://127.0.0.1:7860/demo/") for f in fuentes), fuentes
