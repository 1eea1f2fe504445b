"""Registro ordenado de las pestañas: id, título y módulo.

Cada módulo de pestaña tiene tres partes: funciones de cálculo puras arriba
(valores simples dentro, valores simples y figuras de matplotlib fuera,
`ValueError` en español para la entrada mala), luego `construir() -> Vista`,
que crea los componentes y declara entradas, salidas y ajustes de la URL, y un
`__main__` opcional que sirve la pestaña sola. El evento público, la vista
inicial, la URL y las descargas los arma `demos._ui` para todas por igual.

Para añadir una pestaña: escribe `demos/mi_idea.py` y añade una línea aquí.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Pestana:
    id: str  # también su ruta: /demo/<id>/ y /?tab=<id>
    titulo: str
    modulo: str

    @property
    def api(self) -> str:
        """Nombre del evento público: el id con guiones bajos."""
        return self.id.replace("-", "_")

    def cargar(self) -> ModuleType:
        return importlib.import_module(self.modulo)


PESTANAS: tuple[Pestana, ...] = (
    Pestana("a-mano", "Atención a mano", "demos.a_mano"),
    Pestana("escalado", "¿Por qué √d?", "demos.escalado"),
    Pestana("temperatura", "Temperatura", "demos.temperatura"),
    Pestana("mascara-causal", "Máscara causal", "demos.mascara_causal"),
    Pestana("multicabeza", "Multicabeza", "demos.multicabeza"),
    Pestana("posicion", "Posición", "demos.posicion"),
    Pestana("bloque", "Bloque transformer", "demos.bloque"),
    Pestana("memoria", "Memoria O(n²)", "demos.memoria"),
    Pestana("atencion-cruzada", "Atención cruzada", "demos.atencion_cruzada"),
    Pestana("inversion-digitos", "Inversión de dígitos", "demos.inversion_digitos"),
    Pestana("parches-vit", "Parches ViT", "demos.parches_vit"),
    Pestana("cbam", "CBAM en imagen", "demos.cbam"),
    Pestana("clasificador-atencion", "Clasificador con atención", "demos.clasificador_atencion"),
)

POR_ID: dict[str, Pestana] = {p.id: p for p in PESTANAS}


def buscar(id_: str) -> Pestana:
    if id_ not in POR_ID:
        raise ValueError(f"No hay una pestaña «{id_}». Las hay: {', '.join(POR_ID)}.")
    return POR_ID[id_]
