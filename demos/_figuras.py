"""Las figuras de una respuesta, hacia Gradio: Plotly para la pantalla, archivos para las descargas."""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import gradio as gr

from demos.figuras import es_figura
from demos.figuras.pantalla import a_plot

VIDA_DESCARGA_S = 3600  # Gradio ya copió los archivos a su caché; los nuestros se borran después


def a_gradio(resultado: Any) -> Any:
    """Cada descripción de figura del resultado -> el JSON de Plotly que `gr.Plot` pasa al navegador.

    El resto (tablas, textos) pasa igual. Acepta un valor o una tupla.
    """
    if isinstance(resultado, tuple):
        return tuple(a_plot(v) if es_figura(v) else v for v in resultado)
    return a_plot(resultado) if es_figura(resultado) else resultado


def _carpeta_descargas() -> Path:
    """Bajo la carpeta temporal del proceso (la fija `servidor.disco` al arrancar), resuelta al escribir."""
    return Path(tempfile.gettempdir()) / "descargas"


def exportar_figuras(prefijo: str, resultado: Any) -> list[str]:
    """Dibuja cada figura del resultado con matplotlib en PNG (220 ppp) y SVG; devuelve las rutas."""
    from demos.figuras.descarga import a_bytes

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
