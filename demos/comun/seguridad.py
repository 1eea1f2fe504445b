"""Lo que un visitante escribe vuelve a la página como texto, nunca como HTML ni Markdown.

Un enlace de diapositiva (`?tab=<img src=//otro/x>`) o una palabra escrita en una pestaña
(`![](//otro/x)`) no debe hacer que el navegador de un alumno pida nada a un tercero ni
muestre un enlace que no puso la app. Los avisos de Gradio (toasts) muestran HTML; los
`gr.Markdown` interpretan Markdown (y el HTML que su limpiador deja pasar, como `<img>`).
Las tablas (`datatype="str"`) y los cuadros de texto ya muestran texto plano.

También viven aquí las otras dos reglas de lo que llega de fuera: solo un archivo que un
visitante subió de verdad llega a una pestaña (`exigir_subida`), y una entrada rechazada deja
una línea en el log, sin traza, y un mensaje en español (`rechazo`).
"""

from __future__ import annotations

import html
import logging
import os
import re
import stat
from pathlib import Path

import gradio as gr

from demos.comun.gradio_interno import carpeta_de_subidas

log = logging.getLogger("atencion.rechazos")

TITULO_ERROR = "Entrada no válida"
SOLO_SUBIDOS = (
    "Ese archivo no se subió desde esta página: solo se aceptan imágenes que subas tú "
    "(arrastrándolas o eligiéndolas), o el lienzo."
)
NO_ESTA = "El archivo ya no está en el servidor (las subidas se borran a la hora) o nunca se subió; vuelve a subirlo."

# Todo signo ASCII que no sea letra, cifra ni espacio: cualquiera puede abrir sintaxis de Markdown
# (![]() [] * _ ` # | ~ > …), de HTML (< & ") o de autoenlace (www. http:// a@b.c).
_SIGNOS = re.compile(r"[!-/:-@\[-`{-~]")
_ESPACIOS = re.compile(r"\s+")
# Controles bidireccionales (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI, LRM, RLM, ALM): un U+202E en un
# valor de la URL daría vuelta el resto del aviso. Se quitan de todo texto que se repite.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def sin_bidi(texto: object) -> str:
    """`texto` sin controles bidireccionales (no cambian lo que se lee, solo el orden en que se dibuja)."""
    return _BIDI.sub("", str(texto))


def escapar_md(texto: object) -> str:
    """Un texto del visitante listo para ir dentro de un `gr.Markdown`: se lee igual, no se interpreta.

    Cada signo ASCII va como referencia numérica (`&#60;`), que el navegador muestra como el
    signo pero que ni Markdown ni HTML leen como sintaxis; los saltos de línea pasan a espacios
    (un salto abriría un título o una lista).
    """
    return _SIGNOS.sub(lambda m: f"&#{ord(m[0])};", _ESPACIOS.sub(" ", sin_bidi(texto)))


def escapar_html(texto: object) -> str:
    """Un texto para un aviso de Gradio (`gr.Warning`, `gr.Error`), que se muestra como HTML."""
    return html.escape(sin_bidi(texto), quote=False)  # en el texto de un aviso, solo < > & abren HTML


def rechazo(mensaje: str, donde: str = "?") -> gr.Error:
    """El error en español para una entrada rechazada: una línea en el log (pestaña y motivo), sin traza.

    El mensaje se escapa: puede repetir lo que escribió el visitante y el aviso se muestra como HTML.
    """
    log.info("Entrada rechazada en %s: %s", donde, mensaje[:300])
    return gr.Error(escapar_html(mensaje), title=TITULO_ERROR, print_exception=False)


def exigir_subida(ruta: object) -> str:
    """`ruta` si nombra un archivo normal dentro de la carpeta de subidas de Gradio; si no, ValueError.

    Se rechazan rutas relativas, enlaces simbólicos (también el archivo final), dispositivos
    (`/dev/zero`), carpetas y cualquier cosa que, resuelta, quede fuera de la carpeta de subidas
    (`/etc/hostname`, un checkpoint, `subidas/../../etc/passwd`). No se abre el archivo.
    """
    if not isinstance(ruta, str) or not ruta or "\x00" in ruta or not os.path.isabs(ruta):
        raise ValueError(SOLO_SUBIDOS)
    subidas = carpeta_de_subidas().resolve()
    try:
        datos = os.lstat(ruta)
        real = Path(ruta).resolve(strict=True)
    except FileNotFoundError:
        raise ValueError(NO_ESTA) from None
    except (OSError, RuntimeError, ValueError):  # bucle de enlaces, nombre imposible
        raise ValueError(SOLO_SUBIDOS) from None
    if not real.is_relative_to(subidas) or stat.S_ISLNK(datos.st_mode) or not stat.S_ISREG(datos.st_mode):
        raise ValueError(SOLO_SUBIDOS)
    return ruta
