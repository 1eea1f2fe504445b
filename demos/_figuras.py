"""Figuras de las funciones de cálculo -> archivos para el navegador y para las descargas."""

from __future__ import annotations

import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np


class FiguraHecha:
    """Una figura ya convertida en el PNG de pantalla, que se vuelve a construir solo si hace falta.

    La devuelve una función de dibujo decorada con `demos._recordar.figura_recordada`. Para el
    navegador basta el PNG guardado; las descargas (220 ppp, SVG) y quien mire sus ejes (las
    pruebas) reciben la figura de matplotlib, construida la primera vez que se pide.
    """

    def __init__(self, png: bytes, construir: Callable[[], Any]):
        self.png = png
        self._construir = construir
        self._figura = None

    def figura(self):
        if self._figura is None:
            self._figura = self._construir()
        return self._figura

    def savefig(self, destino, format: str = "png", dpi: float | None = None, **kw) -> None:
        from ._graficos import DPI_PANTALLA

        if format == "png" and dpi == DPI_PANTALLA and not kw:
            Path(destino).write_bytes(self.png)
        else:
            self.figura().savefig(destino, format=format, dpi=dpi, **kw)

    def __getattr__(self, nombre: str) -> Any:  # axes, texts…: los de la figura de matplotlib
        if nombre.startswith("__"):
            raise AttributeError(nombre)
        return getattr(self.figura(), nombre)


def _es_figura(valor: Any) -> bool:
    return isinstance(valor, FiguraHecha) or (type(valor).__name__ == "Figure" and hasattr(valor, "savefig"))


def png_pantalla(fig, destino) -> None:
    """Dibuja `fig` como el PNG de pantalla en `destino` (ruta o archivo), reusando el diseño si se puede."""
    from demos import _disenos

    from ._graficos import DPI_PANTALLA

    clave = _disenos.preparar(fig)
    fig.savefig(destino, format="png", dpi=DPI_PANTALLA)
    _disenos.recordar(fig, clave)


def figura_a_imagen(fig, dpi: int | None = None) -> np.ndarray:
    """Rasteriza una figura de matplotlib a un arreglo RGB (alto, ancho, 3)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from ._graficos import DPI_PANTALLA

    fig.set_dpi(dpi or DPI_PANTALLA)
    lienzo = FigureCanvasAgg(fig)
    lienzo.draw()
    return np.asarray(lienzo.buffer_rgba())[..., :3].copy()


# Las figuras van al navegador como PNG en archivos propios, con nombre único. Si se le diera a
# Gradio el arreglo de píxeles, lo codificaría en su caché en una ruta que depende del contenido y
# la reescribiría sin cuidado: dos visitantes con la misma vista (la inicial, en clase) se pisan,
# y uno descarga un archivo a medio escribir (visto en las pruebas de concurrencia). Con un archivo,
# Gradio copia a su caché de forma atómica.
_FIGURAS = Path(tempfile.gettempdir()) / "atencion-figuras"
VIDA_FIGURA_S = 600  # Gradio ya copió el archivo a su caché; el nuestro se borra después
_ultima_limpieza = [0.0]


def _limpiar_figuras_viejas() -> None:
    ahora = time.time()
    with _cerrojo_limpieza:
        if ahora - _ultima_limpieza[0] < 60:
            return
        _ultima_limpieza[0] = ahora
    for vieja in (_FIGURAS / "efimeras").glob("*.png"):
        try:
            if vieja.stat().st_mtime < ahora - VIDA_FIGURA_S:
                vieja.unlink()
        except OSError:
            pass


_cerrojo_limpieza = threading.Lock()


def a_png(valor: Any, carpeta: str = "efimeras") -> str:
    """Una figura (o un arreglo RGB/RGBA uint8) a un PNG con nombre único; devuelve su ruta."""
    destino = _FIGURAS / carpeta
    destino.mkdir(parents=True, exist_ok=True)
    ruta = destino / f"{uuid.uuid4().hex}.png"
    if isinstance(valor, FiguraHecha):
        ruta.write_bytes(valor.png)
    elif _es_figura(valor):
        png_pantalla(valor, ruta)
    else:
        from PIL import Image

        Image.fromarray(valor).save(ruta, format="png")
    _limpiar_figuras_viejas()
    return str(ruta)


def _es_imagen(valor: Any) -> bool:
    return _es_figura(valor) or (isinstance(valor, np.ndarray) and valor.dtype == np.uint8 and valor.ndim == 3)


def _convertir(valor: Any, carpeta: str) -> Any:
    from demos.figuras import es_figura
    from demos.figuras.pantalla import a_plot

    if es_figura(valor):
        return a_plot(valor)
    return a_png(valor, carpeta) if _es_imagen(valor) else valor


def a_gradio(resultado: Any, carpeta: str = "efimeras") -> Any:
    """Descripciones de figuras -> Plotly para `gr.Plot`; figuras viejas e imágenes -> PNG; el resto igual."""
    if isinstance(resultado, tuple):
        return tuple(_convertir(v, carpeta) for v in resultado)
    return _convertir(resultado, carpeta)


_CARPETA_DESCARGAS = Path(tempfile.gettempdir()) / "atencion-descargas"


def exportar_figuras(prefijo: str, resultado: Any) -> list[str]:
    """Guarda cada figura del resultado en PNG (DPI_DESCARGA) y SVG; devuelve las rutas."""
    from demos.figuras import es_figura
    from demos.figuras.descarga import a_bytes

    from ._graficos import DPI_DESCARGA

    valores = resultado if isinstance(resultado, tuple) else (resultado,)
    figuras = [v for v in valores if _es_figura(v) or es_figura(v)]
    if not figuras:
        raise gr.Error("Esta vista no tiene figuras que descargar.", title="Sin figuras")
    _CARPETA_DESCARGAS.mkdir(exist_ok=True)
    hace_una_hora = time.time() - 3600
    for vieja in _CARPETA_DESCARGAS.glob("*/*"):
        if vieja.stat().st_mtime < hace_una_hora:
            vieja.unlink(missing_ok=True)
    carpeta = _CARPETA_DESCARGAS / uuid.uuid4().hex
    carpeta.mkdir()
    rutas = []
    for k, fig in enumerate(figuras, start=1):
        for formato in ("png", "svg"):
            ruta = carpeta / f"{prefijo}-figura{k}.{formato}"
            if es_figura(fig):
                ruta.write_bytes(a_bytes(fig, formato))
            else:
                fig.savefig(ruta, format=formato, dpi=DPI_DESCARGA)
            rutas.append(str(ruta))
    return rutas
