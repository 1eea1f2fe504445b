"""La página: tema, idioma, CSS y JS de cada montaje (la suite y cada pestaña suelta).

Cada `*.css`, `*.js` y `*.html` (en el `<head>`) de esta carpeta entra en la página, en orden alfabético: para añadir
estilo o comportamiento se agrega un archivo aquí, sin tocar `app.py`. Un `.js` es una sola
expresión de función (`() => { … }`) que corre una vez al cargar la página; un error en una no
impide que corran las demás.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import gradio as gr

from demos.comun import navegador
from demos.comun.seguridad import escapar_html

CARPETA = Path(__file__).parent


def archivos(extension: str) -> list[Path]:
    return sorted(CARPETA.glob(f"*.{extension}"))


@cache
def js() -> str:
    """Las funciones de los `*.js`, en una que las llama una tras otra (el `js=` de Gradio es una)."""
    funciones = [f"/* {p.name} */ ({p.read_text(encoding='utf-8').strip()})" for p in archivos("js")]
    lista = ",\n".join(funciones)
    return (
        "() => {\n  for (const f of [\n" + lista + "\n  ]) {\n    try { f(); } catch (e) { console.error(e); }\n  }\n}"
    )


def tema() -> gr.themes.Base:
    """Soft con colores que se leen (WCAG AA, 4.5:1): las etiquetas en índigo 700 y no 500 (3.6:1),
    el texto tenue (los extremos del deslizador) en gris 600 y no 400 (2.5:1), y el blanco sobre
    índigo 600 en las opciones elegidas y los botones; los enlaces en índigo 700, y 300 en el modo oscuro."""
    return gr.themes.Soft().set(
        block_label_text_color="*primary_700",
        block_title_text_color="*primary_700",
        body_text_color_subdued="*neutral_600",
        body_text_color_subdued_dark="*neutral_300",
        checkbox_label_background_fill_selected="*primary_600",
        checkbox_label_background_fill_selected_dark="*primary_700",
        button_primary_background_fill="*primary_600",
        button_primary_background_fill_hover="*primary_700",
        button_primary_background_fill_dark="*primary_700",
        button_primary_background_fill_hover_dark="*primary_600",
        link_text_color="*primary_700",
        link_text_color_visited="*primary_700",
        link_text_color_dark="*primary_300",
        link_text_color_visited_dark="*primary_300",
        link_text_color_hover_dark="*primary_200",
    )


# Las claves que Gradio pide a su i18n y que no trae en español (ni en inglés: se vería la clave).
TRADUCCIONES = {"es": {"common.complete": "Listo"}}


def opciones() -> dict:
    """Lo que va a `gr.mount_gradio_app` para la página: tema, CSS, JS y lo que va en el `<head>`; y en
    `cabeza_html` (la pone servidor/laterales.py en el HTML servido) lo que tiene que correr antes que Gradio:
    las figuras y los barridos (`demos.comun.navegador`: envuelven Plotly.js antes de que llegue), y los guiones
    de `cabeza/` (el oyente de zerogpu.js tiene que registrarse antes que el del cliente de Gradio). Para quien arma
    la página desde /config, el mismo guion va en el `head` de la configuración (app.opciones_lanzamiento)."""
    return {
        "theme": tema(),
        "css_paths": archivos("css"),
        "js": js(),
        "head_paths": archivos("html"),
        "i18n": gr.I18n(**TRADUCCIONES),
        "cabeza_html": navegador.cabeza()
        + "".join(
            f"<script>{p.read_text(encoding='utf-8')}</script>" for p in sorted((CARPETA / "cabeza").glob("*.js"))
        ),
    }


def en_presentacion(parametros: dict[str, str]) -> bool:
    return parametros.get("presentacion") in ("1", "true")


def avisar_url(texto: str, parametros: dict[str, str]) -> None:
    """El aviso de un ajuste de la URL que se ignoró (el texto repite la URL: nada de HTML).

    En modo presentación queda hasta que se cierra: una diapositiva carga antes de mostrarse, y
    un aviso de 10 s ya se habría ido cuando el público la ve.
    """
    duracion = None if en_presentacion(parametros) else 10
    gr.Warning(escapar_html(texto), title="Ajuste de la URL", duration=duracion)
