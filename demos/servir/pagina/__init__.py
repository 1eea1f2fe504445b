"""La página: tema, idioma, CSS y JS de cada montaje (la suite y cada pestaña suelta).

Cada `*.css` y cada `*.js` de esta carpeta entra en la página, en orden alfabético: para añadir
estilo o comportamiento se agrega un archivo aquí, sin tocar `app.py`. Un `.js` es una sola
expresión de función (`() => { … }`) que corre una vez al cargar la página; un error en una no
impide que corran las demás.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import gradio as gr

CARPETA = Path(__file__).parent


def archivos_css() -> list[Path]:
    return sorted(CARPETA.glob("*.css"))


@cache
def js() -> str:
    """Las funciones de los `*.js`, en una que las llama una tras otra (el `js=` de Gradio es una)."""
    funciones = [f"/* {p.name} */ ({p.read_text(encoding='utf-8').strip()})" for p in sorted(CARPETA.glob("*.js"))]
    lista = ",\n".join(funciones)
    return (
        "() => {\n  for (const f of [\n" + lista + "\n  ]) {\n    try { f(); } catch (e) { console.error(e); }\n  }\n}"
    )


def tema() -> gr.themes.Base:
    return gr.themes.Soft()


def opciones() -> dict:
    """Lo que va a `gr.mount_gradio_app` para la página: tema, CSS y JS."""
    return {"theme": tema(), "css_paths": archivos_css(), "js": js()}
