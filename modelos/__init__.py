"""Modelos de la lección de atención y transformers, en PyTorch puro.

No importa nada de interfaz (gradio, matplotlib, PIL): las pestañas de `demos/`
lo usan, y también las pruebas y el entrenamiento.
"""

from .atencion import AtencionCruzada, AtencionMulticabeza, atencion, mascara_causal
from .clasificador import AgrupacionAtencion, ClasificadorAtencion
from .decodificador import DecodificadorJuguete
from .hub import REGISTRO, cargar, cargar_archivo, dispositivo
from .transformer import BloqueTransformer, TransformerJuguete, posicion_sinusoidal
from .visual import CBAM, AtencionCanal, AtencionEspacial, RedCBAM
from .vit import ViTDiminuto, parches, parches_lote

__all__ = [
    "CBAM",
    "REGISTRO",
    "AgrupacionAtencion",
    "AtencionCanal",
    "AtencionCruzada",
    "AtencionEspacial",
    "AtencionMulticabeza",
    "BloqueTransformer",
    "ClasificadorAtencion",
    "DecodificadorJuguete",
    "RedCBAM",
    "TransformerJuguete",
    "ViTDiminuto",
    "atencion",
    "cargar",
    "cargar_archivo",
    "dispositivo",
    "mascara_causal",
    "parches",
    "parches_lote",
    "posicion_sinusoidal",
]
