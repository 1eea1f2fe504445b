"""Lo privado de Gradio que usa el kit de las pestañas (demos/comun, app.py), todo aquí (probado: `VERSION_PROBADA`).

La puerta del servidor es servidor/gradio_interno.py, que reexporta esta: las pestañas y su kit no importan el
servidor (tests/test_arquitectura.py), así que lo que el kit toca de Gradio vive un piso más abajo. Nada más:

- `gradio.context.Context.root_block`: `pagina_en_construccion`, el Blocks que se está armando (su evento `load`
  para el barrido; app.py marca cada componente nuevo con su pestaña).
- `Block._id`: `id_de`, el número de un componente en su página (la clave de un paquete de paradas, el `elem_id`
  de una figura barrida).
- `gradio.data_classes.GradioModel`: el modelo pydantic de lo que llega a un componente (`controles.tolerante`).
- `gradio.utils.get_upload_folder`: `carpeta_de_subidas`, donde Gradio guarda lo subido.
- `gr.ImageEditor.blob_storage`: `trozos_del_lienzo`, el dict donde `accept_blobs` deja los trozos de un dibujo.

tests/test_seguridad_interno.py falla si una versión de Gradio cambia algo de esto, y que nadie más lo toque.
"""

from __future__ import annotations

from pathlib import Path

import gradio as gr
from gradio.context import Context
from gradio.data_classes import GradioModel
from gradio.utils import get_upload_folder

__all__ = [
    "VERSION_PROBADA",
    "GradioModel",
    "carpeta_de_subidas",
    "id_de",
    "pagina_en_construccion",
    "trozos_del_lienzo",
]

VERSION_PROBADA = "6.31.0"


def pagina_en_construccion() -> gr.Blocks | None:
    """El Blocks cuyo `with` está abierto (None fuera de uno)."""
    return Context.root_block


def id_de(bloque: gr.blocks.Block) -> int:
    """El número de un componente en su página (el de la configuración y de `blocks.blocks`)."""
    return bloque._id


def carpeta_de_subidas() -> Path:
    """La carpeta donde Gradio guarda lo que llega a `/gradio_api/upload`."""
    return Path(get_upload_folder())


def trozos_del_lienzo(editor: gr.ImageEditor) -> dict:
    """El dict donde `accept_blobs` del lienzo deja los trozos de un dibujo (id -> trozo)."""
    return editor.blob_storage
