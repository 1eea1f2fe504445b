"""Un log que el visitante no puede falsificar: lo suyo sale con los caracteres de control escapados.

Un `\n`, un `\r` o una secuencia ANSI en una palabra repetida, en el id de sesión o en la ruta de
un cuerpo rechazado escribían líneas falsas en el log («INFO … Checkpoints listos»), o le
cambiaban el color. `SinControles` reescribe los argumentos de texto de cada registro de los
registradores de la app (`REGISTRADORES`) con esos caracteres visibles (`\n` → «\\n»,
ESC → «\\x1b»): el mensaje queda en una línea, tal cual lo mandó el visitante.
"""

from __future__ import annotations

import logging
import re

REGISTRADORES = (
    "atencion.rechazos",
    "atencion.cola",
    "atencion.protecciones",
    "atencion.laterales",
    "atencion.sesiones",
    "servidor.asgi",
)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escapar(texto: str) -> str:
    """Cada carácter de control, escrito con su escape de Python (`\n` → «\\n»)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), texto)


class SinControles(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and not record.args:
            record.msg = escapar(record.msg)
        elif isinstance(record.args, tuple):
            record.args = tuple(escapar(a) if isinstance(a, str) else a for a in record.args)
        return True


def instalar() -> None:
    """Pone `SinControles` en cada registrador de la app (una vez)."""
    for nombre in REGISTRADORES:
        registrador = logging.getLogger(nombre)
        if not any(isinstance(f, SinControles) for f in registrador.filters):
            registrador.addFilter(SinControles())
