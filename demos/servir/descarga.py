"""Las descargas: cada figura de un resultado -> un PNG a 220 ppp y un SVG, en archivos que sirve Gradio.

Solo corre cuando alguien pulsa «Preparar descargas» (no al mover un control). El dibujo es de
`demos.comun.figuras.papel` (matplotlib, con el estilo claro de la lección); aquí quedan los archivos:
dónde se escriben y cuándo se borran.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import gradio as gr

from demos.comun.figuras import es_figura
from demos.comun.figuras.papel import a_bytes

VIDA_DESCARGA_S = 3600  # Gradio ya copió los archivos a su caché; los nuestros se borran después


def _carpeta_descargas() -> Path:
    """Bajo la carpeta temporal del proceso (la fija `servidor.disco` al arrancar), resuelta al escribir."""
    return Path(tempfile.gettempdir()) / "descargas"


def exportar_figuras(prefijo: str, resultado: Any) -> list[str]:
    """Dibuja cada figura del resultado con matplotlib en PNG (220 ppp) y SVG; devuelve las rutas."""
    figuras = [v for v in (resultado if isinstance(resultado, tuple) else (resultado,)) if es_figura(v)]
    if not figuras:
        raise gr.Error("Esta vista no tiene figuras que descargar.", title="Sin figuras")
    base = _carpeta_descargas()
    base.mkdir(parents=True, exist_ok=True)
    viejas = time.time() - VIDA_DESCARGA_S
    for vieja in base.glob("*"):
        if vieja.stat().st_mtime < viejas:
            for archivo in vieja.glob("*"):
                archivo.unlink(missing_ok=True)
            vieja.rmdir()
    carpeta = base / uuid.uuid4().hex
    carpeta.mkdir()
    rutas = []
    for k, fig in enumerate(figuras, start=1):
        for formato in ("png", "svg"):
            ruta = carpeta / f"{prefijo}-figura{k}.{formato}"
            ruta.write_bytes(a_bytes(fig, formato))
            rutas.append(str(ruta))
    return rutas
