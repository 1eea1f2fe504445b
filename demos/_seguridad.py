"""Lo que un visitante escribe vuelve a la página como texto, nunca como HTML ni Markdown.

Un enlace de diapositiva (`?tab=<img src=//otro/x>`) o una palabra escrita en una pestaña
(`![](//otro/x)`) no debe hacer que el navegador de un alumno pida nada a un tercero ni
muestre un enlace que no puso la app. Los avisos de Gradio (toasts) muestran HTML; los
`gr.Markdown` interpretan Markdown (y el HTML que su limpiador deja pasar, como `<img>`).
Las tablas (`datatype="str"`) y los cuadros de texto ya muestran texto plano.
"""

from __future__ import annotations

import html
import re

# Todo signo ASCII que no sea letra, cifra ni espacio: cualquiera puede abrir sintaxis de Markdown
# (![]() [] * _ ` # | ~ > …), de HTML (< & ") o de autoenlace (www. http:// a@b.c).
_SIGNOS = re.compile(r"[!-/:-@\[-`{-~]")
_ESPACIOS = re.compile(r"\s+")


def escapar_md(texto: object) -> str:
    """Un texto del visitante listo para ir dentro de un `gr.Markdown`: se lee igual, no se interpreta.

    Cada signo ASCII va como referencia numérica (`&#60;`), que el navegador muestra como el
    signo pero que ni Markdown ni HTML leen como sintaxis; los saltos de línea pasan a espacios
    (un salto abriría un título o una lista).
    """
    return _SIGNOS.sub(lambda m: f"&#{ord(m[0])};", _ESPACIOS.sub(" ", str(texto)))


def escapar_html(texto: object) -> str:
    """Un texto para un aviso de Gradio (`gr.Warning`, `gr.Error`), que se muestra como HTML."""
    return html.escape(str(texto), quote=True)
