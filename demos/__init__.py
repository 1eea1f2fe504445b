"""Registro ordenado de las pestañas: id, título y módulo.

Cada módulo de pestaña tiene tres partes: funciones de cálculo puras arriba
(valores simples dentro, valores simples y figuras de matplotlib fuera,
`ValueError` en español para la entrada mala), luego `construir() -> Vista`,
que crea los componentes y declara entradas, salidas y ajustes de la URL, y un
`__main__` opcional que sirve la pestaña sola. El evento público, la vista
inicial, la URL y las descargas los arma `demos._ui` para todas por igual.

Para añadir una pestaña: escribe `demos/mi_idea.py` y añade una línea aquí, con su grupo
(la parte de la lección a la que pertenece: la barra de arriba muestra los grupos, cada
uno con sus pestañas) y `del_tutorial=True` si va más allá de la lección.
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
    grupo: str  # la parte de la lección: la barra de arriba (GRUPOS), cada grupo con sus pestañas
    del_tutorial: bool = False  # va más allá de la lección: sale del tutorial (mecanismo_de_atencion_pytorch)

    @property
    def api(self) -> str:
        """Nombre del evento público: el id con guiones bajos."""
        return self.id.replace("-", "_")

    def cargar(self) -> ModuleType:
        return importlib.import_module(self.modulo)


MECANISMO, ARQUITECTURA, ENTRENADOS = "El mecanismo", "La arquitectura", "Modelos entrenados"

# En el orden de la lección (atencion_y_transformers); las marcadas `del_tutorial` salen del
# segundo documento (mecanismo_de_atencion_pytorch): la pestaña lo dice en su título.
PESTANAS: tuple[Pestana, ...] = (
    Pestana("a-mano", "Atención a mano", "demos.a_mano", MECANISMO),
    Pestana("escalado", "¿Por qué √d?", "demos.escalado", MECANISMO),
    Pestana("temperatura", "Temperatura", "demos.temperatura", MECANISMO),
    Pestana("multicabeza", "Multicabeza", "demos.multicabeza", MECANISMO),
    Pestana("mascara-causal", "Máscara causal", "demos.mascara_causal", MECANISMO),
    Pestana("posicion", "Posición", "demos.posicion", MECANISMO),
    Pestana("bloque", "Bloque transformer", "demos.bloque", ARQUITECTURA),
    Pestana("memoria", "Memoria O(n²)", "demos.memoria", ARQUITECTURA, del_tutorial=True),
    Pestana("atencion-cruzada", "Atención cruzada", "demos.atencion_cruzada", ARQUITECTURA, del_tutorial=True),
    Pestana("inversion-digitos", "Inversión de dígitos", "demos.inversion_digitos", ENTRENADOS),
    Pestana("parches-vit", "Parches ViT", "demos.parches_vit", ENTRENADOS),
    Pestana("cbam", "CBAM en imagen", "demos.cbam", ENTRENADOS, del_tutorial=True),
    Pestana(
        "clasificador-atencion",
        "Clasificador con atención",
        "demos.clasificador_atencion",
        ENTRENADOS,
        del_tutorial=True,
    ),
)

# Los grupos en el orden de la lección; cada uno, sus pestañas en el orden de PESTANAS.
GRUPOS: dict[str, tuple[Pestana, ...]] = {
    g: tuple(p for p in PESTANAS if p.grupo == g) for g in dict.fromkeys(p.grupo for p in PESTANAS)
}

POR_ID: dict[str, Pestana] = {p.id: p for p in PESTANAS}


def buscar(id_: str) -> Pestana:
    if id_ not in POR_ID:
        raise ValueError(f"No hay una pestaña «{id_}». Las hay: {', '.join(POR_ID)}.")
    return POR_ID[id_]
