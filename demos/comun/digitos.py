"""El dígito que miran las dos pestañas con modelos entrenados: elegirlo, dibujarlo y su predicción.

Un dígito llega del conjunto de prueba de `digitos_sklearn()` o de un
dibujo, que `digito_desde_matriz` prepara como los de sklearn (1, 1, 8, 8).
Un dibujo vacío no es un error: la pestaña muestra una pista en su lugar.
"""

from __future__ import annotations

import json
from typing import Any

import gradio as gr
import numpy as np
import torch

import modelos
from demos.comun.controles import Deslizador, Opcion
from demos.comun.figuras import C0, CLARO, Aviso, Barras, Imagen, Serie
from demos.comun.imagenes import Dibujo, lienzo_digito, tinta_desde_dibujo
from demos.comun.validar import entero
from demos.comun.vista import servido, un_reloj
from modelos.datos import digito_desde_matriz, digitos_sklearn
from modelos.formato import por_ciento

ORIGEN_PRUEBA, ORIGEN_DIBUJO = "conjunto de prueba", "mi dibujo"
ORIGENES = (ORIGEN_PRUEBA, ORIGEN_DIBUJO)
SIN_DIBUJO = "Dibuja un dígito en el recuadro"
PISTA_DIBUJO = "**Dibuja un dígito** (0 a 9) en el recuadro, con trazo grueso, o elige uno del conjunto de prueba."


def digito_elegido(origen: str = ORIGEN_PRUEBA, indice: float = 0, dibujo: Any = None):
    """(x (1, 1, 8, 8) de 0 a 1 en CPU, etiqueta verdadera o None, descripción), o None si el dibujo está vacío.

    `origen`: ORIGEN_PRUEBA (el dígito `indice` del conjunto de prueba de
    `digitos_sklearn`) u ORIGEN_DIBUJO (el dibujo, preparado como los de sklearn).
    """
    if origen not in ORIGENES:
        raise ValueError(f"El origen del dígito debe ser «{ORIGEN_PRUEBA}» o «{ORIGEN_DIBUJO}».")
    if origen == ORIGEN_DIBUJO:
        tinta = tinta_desde_dibujo(dibujo)
        if tinta is None:
            return None
        return digito_desde_matriz(tinta), None, "tu dibujo"
    _, X, _, y = digitos_sklearn()
    i = entero(indice, "El índice del dígito", 0, len(X) - 1)
    return X[i : i + 1], int(y[i]), f"la imagen n.º {i} del conjunto de prueba (un {int(y[i])})"


def modelo_entrenado(nombre: str) -> torch.nn.Module:
    """El checkpoint `nombre` (cargado una vez, compartido), o ValueError en español si falta."""
    try:
        return modelos.cargar(nombre)
    except Exception:
        raise ValueError(
            f"El modelo «{nombre}» no está disponible todavía (falta su checkpoint). "
            f"Genéralo con `python -m modelos.entrenamiento {nombre}`."
        ) from None


def vista_sin_dibujo(*titulos: str) -> tuple:
    """La vista de una sección de dígito con el lienzo vacío: un aviso por figura (con su título) y la pista."""
    return (*(Aviso(SIN_DIBUJO, titulo) for titulo in titulos), PISTA_DIBUJO)


def lectura(quien: str, descripcion: str, p: np.ndarray, verdadera: int | None) -> str:
    """«Para tu dibujo, el ViT dice **8** con probabilidad **97 %** ✓ acierta» (sin punto final)."""
    prediccion = int(p.argmax())
    veredicto = "" if verdadera is None else (" ✓ acierta" if prediccion == verdadera else f" ✗ (era {verdadera})")
    probabilidad = por_ciento(p[prediccion], 0)
    return f"Para {descripcion}, {quien} dice **{prediccion}** con probabilidad **{probabilidad}**{veredicto}"


def probabilidades(logits: torch.Tensor) -> np.ndarray:
    """logits (1, clases) en cualquier dispositivo -> probabilidades (clases,) en CPU."""
    return torch.softmax(logits.float(), dim=-1)[0].cpu().numpy()


# --- el dígito y su predicción como figuras (comunes a las dos pestañas) ----------------------


def imagen_digito(digito, titulo: str = "", mapa=None, *, opacidad: float = 0.6, vmax: float = 1.0, **kw) -> Imagen:
    """El dígito (8, 8) en gris y, encima, `mapa` (h, w) estirado a 8 × 8 con la `opacidad` dada.

    Un mapa de 4 × 4 (un valor por parche de 2 × 2) cubre el dígito entero. `kw` pasa a
    `Imagen` (p. ej. `numeros_capa`, `pista`, `barra`, `rejilla`).
    """
    return Imagen(np.asarray(digito, dtype=float), titulo=titulo, capa=mapa, opacidad=opacidad, vmax=vmax, **kw)


def barras_probabilidades(p: np.ndarray, verdadera: int | None = None, titulo: str = "Predicción") -> Barras:
    """Barras de probabilidad por clase (0–9): la predicha en C0 con su porcentaje, las demás en C0 claro.

    El título repite la predicha y su probabilidad: sobre una barra angosta, Plotly achica el rótulo.
    """
    prediccion = int(np.argmax(p))
    clases = range(len(p))
    return Barras(
        tuple(map(str, clases)),
        (
            Serie(
                "probabilidad",
                p,
                colores=tuple(C0 if k == prediccion else CLARO for k in clases),
                numeros=tuple(por_ciento(p[k], 0) if k == prediccion else "" for k in clases),
            ),
        ),
        titulo=f"{titulo}: {prediccion} ({por_ciento(p[prediccion], 0)})",
        eje_x="Dígito" + ("" if verdadera is None else f" (el verdadero: {verdadera})"),
        eje_y="Probabilidad",
        rango=(0, 1.12),
        pista="dígito {c}: probabilidad {v}",
    )


# --- el selector de dígito de las dos pestañas ------------------------------------------------


# El lienzo se ve solo con «mi dibujo»: en un teléfono, el lienzo vacío con su barra de herramientas iba antes de la
# figura también con «conjunto de prueba». Mostrarlo u ocultarlo es cosa del navegador (`js=`): no va a la cola.
JS_VER_LIENZO = f"(origen) => ({{__type__: 'update', visible: origen === {json.dumps(ORIGEN_DIBUJO)}}})"


def selector_digito() -> tuple[gr.Radio, gr.Slider, Dibujo]:
    """Crea (origen, índice en el conjunto de prueba, lienzo) en el contexto actual; el lienzo, solo con «mi dibujo»."""
    origen = Opcion(list(ORIGENES), value=ORIGEN_PRUEBA, label="Dígito")
    indice = Deslizador(0, 449, value=0, step=1, label="Índice en el conjunto de prueba (0–449)")
    servido(indice, "450 imágenes (más de 256 paradas)")
    with gr.Column(visible=False, elem_classes=["lienzo-digito"]) as caja:
        gr.Markdown("Para dibujar: elige el pincel (✎) y traza un dígito grande, de 0 a 9.")
        dibujo = lienzo_digito(show_label=False)
    origen.change(None, origen, caja, js=JS_VER_LIENZO, api_visibility="private", show_progress="hidden")
    return origen, indice, dibujo


def al_elegir_digito(origen, indice, dibujo, calculo, entradas: list, salidas: list) -> None:
    """Mover el índice o dibujar cambia también el origen (a «conjunto de prueba» o «mi dibujo»), y recalcula."""
    # Fijar el origen es pura interfaz: corre en el navegador (`js=`), y el movimiento manda un solo
    # evento a la cola, el del cálculo (tests/test_velocidad.py).
    recalcular = {"api_visibility": "private", "trigger_mode": "always_last", **un_reloj(salidas)}
    for disparador, valor in ((indice.input, ORIGEN_PRUEBA), (dibujo.input, ORIGEN_DIBUJO)):
        fijar = disparador(
            None, None, origen, js=f"() => {json.dumps(valor)}", api_visibility="private", show_progress="hidden"
        )
        fijar.then(calculo, entradas, salidas, **recalcular)
