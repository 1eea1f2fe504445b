"""Dispositivo y carga de los checkpoints: del Hub a una revisión fija, o la copia incluida.

(Versión inicial: solo la copia incluida en `checkpoints/`. El camino del Hub
se completa en el issue del núcleo.)
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

log = logging.getLogger(__name__)

CARPETA = Path(__file__).resolve().parent.parent / "checkpoints"
VARIABLE_DISPOSITIVO = "ATENCION_DISPOSITIVO"
VARIABLE_ORG = "ATENCION_HUB_ORG"


def dispositivo() -> torch.device:
    """CUDA si hay, luego MPS, luego CPU. `ATENCION_DISPOSITIVO=cpu|cuda|mps` fuerza uno."""
    forzado = os.environ.get(VARIABLE_DISPOSITIVO, "").strip().lower()
    if forzado:
        return torch.device(forzado)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


@dataclass(frozen=True)
class Checkpoint:
    nombre: str
    clase: str  # nombre de la clase en `modelos`
    revision: str | None  # commit del Hub fijado; None si aún no se publicó

    @property
    def repo(self) -> str:
        return f"{os.environ.get(VARIABLE_ORG, 'atencion-transformers')}/{self.nombre}"


REGISTRO: dict[str, Checkpoint] = {
    c.nombre: c
    for c in (
        Checkpoint("inversion-digitos", "TransformerJuguete", None),
        Checkpoint("inversion-digitos-sin-posicion", "TransformerJuguete", None),
        Checkpoint("vit-digitos", "ViTDiminuto", None),
        Checkpoint("cbam-digitos", "RedCBAM", None),
    )
}

_cerrojo = threading.Lock()
_cargados: dict[str, nn.Module] = {}


def _clase(nombre_clase: str) -> type[nn.Module]:
    import modelos

    return getattr(modelos, nombre_clase)


def cargar_archivo(nombre: str, archivo: str) -> Path:
    """Ruta local de un archivo del checkpoint `nombre` (p. ej. sus instantáneas)."""
    if nombre not in REGISTRO:
        raise ValueError(f"Checkpoint desconocido «{nombre}»; los hay: {', '.join(REGISTRO)}.")
    ruta = CARPETA / nombre / archivo
    if not ruta.is_file():
        raise FileNotFoundError(f"Falta {ruta}. Genéralo con `python -m modelos.entrenar {nombre}`.")
    return ruta


def cargar(nombre: str) -> nn.Module:
    """El modelo `nombre`, en modo eval y en `dispositivo()`, cargado una vez por proceso."""
    if nombre not in REGISTRO:
        raise ValueError(f"Checkpoint desconocido «{nombre}»; los hay: {', '.join(REGISTRO)}.")
    with _cerrojo:
        if nombre not in _cargados:
            carpeta = CARPETA / nombre
            modelo = _clase(REGISTRO[nombre].clase).from_pretrained(carpeta)
            _cargados[nombre] = modelo.eval().to(dispositivo())
            log.info("Checkpoint %s: copia incluida (%s)", nombre, carpeta)
        return _cargados[nombre]
