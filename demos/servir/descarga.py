"""Las descargas: cada figura de un resultado -> un PNG a 220 ppp y un SVG, y la vista en un HTML interactivo que
funciona sin conexión (`exportar_html`), en archivos que sirve Gradio.

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
    carpeta = _carpeta_nueva()
    rutas = []
    for k, fig in enumerate(figuras, start=1):
        for formato in ("png", "svg"):
            ruta = carpeta / f"{prefijo}-figura{k}.{formato}"
            ruta.write_bytes(a_bytes(fig, formato))
            rutas.append(str(ruta))
    return rutas


NOMBRE_HTML = "html-interactivo-sin-conexion"  # el archivo: «<pestaña>-html-interactivo-sin-conexion.html»


def exportar_html(prefijo: str, vista: Any, valores: list) -> list[str]:
    """«HTML interactivo (funciona sin conexión)»: la vista que se ve, con las paradas de sus barridos, en un archivo
    (`demos.servir.exportar`). Lo llama un evento privado de la cola de las descargas (un pesado: uno por sesión, 4
    en el proceso) y, con un cerrojo del proceso, de a uno entre todos los montajes. Los valores llegan de un
    visitante: los valida la función de la pestaña, como en una vista, y el archivo tiene su tope (3 MB)."""
    from demos import POR_ID
    from demos.comun.vista import exclusivo
    from demos.servir.exportar import Pedido, exportar

    if prefijo not in POR_ID or len(valores) != len(vista.entradas):
        raise ValueError("Esta vista no se puede exportar.")
    with exclusivo("exportar-html"):
        pagina = exportar(Pedido(POR_ID[prefijo], vista, list(valores)))
    carpeta = _carpeta_nueva()
    ruta = carpeta / f"{prefijo}-{NOMBRE_HTML}.html"
    ruta.write_text(pagina, encoding="utf-8")
    return [str(ruta)]


def _carpeta_nueva() -> Path:
    """Una carpeta nueva bajo la de las descargas, tras borrar las de más de `VIDA_DESCARGA_S`."""
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
    return carpeta
