"""Registro ordenado de las pestañas: id, título, módulo y grupo.

`demos/` tiene tres clases de módulo:
- las pestañas: un módulo por pestaña chica (`escalado.py`…) y un paquete por pestaña grande
  (`inversion_digitos/`…: `pestana.py` más sus partes, que se importan entre sí directamente);
- `demos.comun`: el kit que importan las pestañas, un módulo por tarea (`from demos.comun.figuras import Mapa`);
- `demos.servir`: lo que arma la página (evento público, vista inicial, URL, descargas); solo
  lo importa `app.py`, nunca una pestaña.

Cada pestaña tiene dos partes: funciones de cálculo puras arriba (valores simples dentro;
valores simples y descripciones de figuras de `demos.comun` fuera, que dibuja el navegador;
`ValueError` en español para la entrada mala), y luego `construir() -> Vista`, que crea los
componentes y declara entradas, salidas y ajustes de la URL. Una pestaña sola se sirve con
`python app.py --demo ID`; ninguna importa `app`.

Para añadir una pestaña: escribe `demos/mi_idea.py` y añade su entrada aquí, con su grupo
(la parte de la lección a la que pertenece: la barra de arriba muestra los grupos, cada
uno con sus pestañas), su línea «Qué mirar» y `del_tutorial=True` si va más allá de la lección.
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
    que_mirar: str  # la línea «Qué mirar» de la ruta guiada (la ruta es el orden de PESTANAS, el de la lección)
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
    Pestana(
        "a-mano",
        "Atención a mano",
        "demos.a_mano",
        MECANISMO,
        "cada fila de pesos es el softmax de una fila de Q·Kᵀ/√d, y suma 1 (con dropout, al entrenar, solo en "
        "promedio).",
    ),
    Pestana(
        "escalado",
        "¿Por qué √d?",
        "demos.escalado",
        MECANISMO,
        "sin dividir por √d, al crecer d un solo peso se lleva casi todo.",
    ),
    Pestana(
        "temperatura",
        "Temperatura",
        "demos.temperatura",
        MECANISMO,
        "con T pequeña el peso se junta en una palabra; con T grande se reparte casi por igual.",
    ),
    Pestana(
        "multicabeza",
        "Multicabeza",
        "demos.multicabeza",
        MECANISMO,
        "cada cabeza tiene su propio trozo de d/h columnas; el total de parámetros no cambia con h, "
        "y la capa da lo mismo que nn.MultiheadAttention.",
    ),
    Pestana(
        "dropout",
        "Dropout y model.eval()",
        "demos.dropout",
        MECANISMO,
        "en entrenamiento el dropout apaga pesos y multiplica los demás por 1/(1 − p): una fila ya no suma 1, solo en "
        "promedio; model.eval() lo apaga.",
        del_tutorial=True,
    ),
    Pestana(
        "autoatencion-rnn",
        "Autoatención frente a una RNN",
        "demos.autoatencion_rnn",
        MECANISMO,
        "de la palabra 1 a la L, la RNN da L − 1 pasos y la autoatención 1; el gradiente de la RNN cae con L.",
        del_tutorial=True,
    ),
    Pestana(
        "mascara-causal",
        "Máscara causal",
        "demos.mascara_causal.pestana",
        MECANISMO,
        "el −∞ antes del softmax deja en 0 exacto el peso de las palabras del futuro.",
    ),
    Pestana(
        "generacion",
        "Generación autorregresiva",
        "demos.generacion",
        MECANISMO,
        "el bucle escribe un dígito por pasada y lo realimenta; al entrenar, la misma máscara causal da las 8 "
        "predicciones en una pasada, con los mismos logits.",
        del_tutorial=True,
    ),
    Pestana(
        "posicion",
        "Posición",
        "demos.posicion",
        MECANISMO,
        "sin posición la atención no ve el orden: el modelo sin ella no aprende a invertir.",
    ),
    Pestana(
        "bloque",
        "Bloque transformer",
        "demos.bloque.pestana",
        ARQUITECTURA,
        "la salida tiene la forma de la entrada, dónde están los parámetros y qué pasa sin los atajos.",
    ),
    # memoria: su tabla L²·4 bytes es de la lección
    Pestana(
        "memoria",
        "Memoria O(L²)",
        "demos.memoria.pestana",
        ARQUITECTURA,
        "los pesos crecen como L²: diez veces más palabras, cien veces más memoria.",
    ),
    Pestana(
        "atencion-cruzada",
        "Atención cruzada",
        "demos.atencion_cruzada.pestana",
        ARQUITECTURA,
        "las consultas salen de una frase y las claves de otra: la matriz no es cuadrada.",
        del_tutorial=True,
    ),
    Pestana(
        "variantes",
        "Variantes de la atención",
        "demos.variantes",
        ARQUITECTURA,
        "de dónde salen Q, K y V en cada variante, y qué casillas calcula la atención dispersa.",
        del_tutorial=True,
    ),
    Pestana(
        "inversion-digitos",
        "Inversión de dígitos",
        "demos.inversion_digitos.pestana",
        ENTRENADOS,
        "la diagonal invertida del mapa: cada posición mira a su espejo.",
    ),
    Pestana(
        "proyecciones",
        "De x a Q, K y V",
        "demos.proyecciones",
        ENTRENADOS,
        "la antidiagonal sale de las proyecciones entrenadas W_q y W_k; con K = Q los puntajes son simétricos y cada "
        "fila se mira a sí misma. qkv es w_q, w_k y w_v apiladas en una sola capa.",
    ),
    Pestana(
        "parches-vit",
        "Parches ViT",
        "demos.parches_vit.pestana",
        ENTRENADOS,
        "una imagen se vuelve una secuencia de parches, y cada parche una ficha.",
    ),
    Pestana(
        "cbam",
        "CBAM en imagen",
        "demos.cbam.pestana",
        ENTRENADOS,
        "la atención también pesa canales y píxeles de una imagen, no solo palabras.",
        del_tutorial=True,
    ),
    Pestana(
        "clasificador-atencion",
        "Clasificador con atención",
        "demos.clasificador_atencion.pestana",
        ENTRENADOS,
        "a qué posición da peso α la agrupación, por qué ese peso no es lo que decide la opinión, y qué pasa al "
        "quitar una palabra.",
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
