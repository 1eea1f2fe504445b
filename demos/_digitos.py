"""El dígito que miran las dos pestañas con modelos entrenados: elegirlo, dibujarlo y su predicción.

Un dígito llega de la partición de prueba de `digitos_sklearn()` o de un
dibujo, que `digito_desde_matriz` prepara como los de sklearn (1, 1, 8, 8).
Un dibujo vacío no es un error: la pestaña muestra una pista en su lugar.
"""

from __future__ import annotations

from typing import Any

import gradio as gr
import numpy as np
import torch

from demos import _graficos as G
from demos._imagenes import Dibujo, lienzo_digito, tinta_desde_dibujo
from demos._ui import Deslizador, Opcion
from demos._validar import entero
from modelos.datos import digito_desde_matriz, digitos_sklearn

ORIGEN_PRUEBA, ORIGEN_DIBUJO = "partición de prueba", "mi dibujo"
ORIGENES = (ORIGEN_PRUEBA, ORIGEN_DIBUJO)
PISTA_DIBUJO = "**Dibuja un dígito** (0 a 9) en el recuadro, con trazo grueso, o elige uno de la partición de prueba."


def digito_elegido(origen: str = ORIGEN_PRUEBA, indice: float = 0, dibujo: Any = None):
    """(x (1, 1, 8, 8) de 0 a 1 en CPU, etiqueta verdadera o None, descripción), o None si el dibujo está vacío.

    `origen`: ORIGEN_PRUEBA (el dígito `indice` de la partición de prueba de
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
    return X[i : i + 1], int(y[i]), f"el dígito {i} de la partición de prueba"


def probabilidades(logits: torch.Tensor) -> np.ndarray:
    """logits (1, clases) en cualquier dispositivo -> probabilidades (clases,) en CPU."""
    return torch.softmax(logits.float(), dim=-1)[0].cpu().numpy()


# --- dibujar un dígito y su predicción (comunes a las dos pestañas) ---------------------------


def dibujar_digito(eje, digito, mapa=None, *, opacidad: float = 0.6, vmax: float = 1.0, numeros: bool = False):
    """El dígito (8, 8) en gris y, encima, `mapa` (h, w) estirado a 8 × 8 con la `opacidad` dada.

    Un mapa de 4 × 4 (un valor por parche de 2 × 2) cubre el dígito entero.
    Con `numeros`, escribe el valor de cada casilla del mapa.
    """
    digito = np.asarray(digito, dtype=float)
    lado = digito.shape[0]
    extension = (-0.5, lado - 0.5, lado - 0.5, -0.5)
    eje.imshow(digito, cmap="gray_r", vmin=0, vmax=1, extent=extension, interpolation="nearest")
    if mapa is not None:
        mapa = np.asarray(mapa, dtype=float)
        eje.imshow(
            mapa, cmap=G.BLANCO_TINTA, vmin=0, vmax=vmax, alpha=opacidad, extent=extension, interpolation="nearest"
        )
        if numeros:
            h, w = mapa.shape
            paso = lado / w
            for i in range(h):
                for j in range(w):
                    v = mapa[i, j]
                    eje.text(
                        (j + 0.5) * paso - 0.5,
                        (i + 0.5) * paso - 0.5,
                        f"{v:.2f}",
                        ha="center",
                        va="center",
                        fontsize=9 if w > 4 else 10,
                        color="white" if v > 0.6 * vmax else "black",
                    )
    eje.set_xticks([])
    eje.set_yticks([])


def barras_probabilidades(eje, p: np.ndarray, verdadera: int | None = None) -> None:
    """Barras de probabilidad por clase (0–9), la predicha en C0 más oscuro y la verdadera marcada."""
    clases = np.arange(len(p))
    prediccion = int(np.argmax(p))
    colores = [G.C0 if k == prediccion else "#aec7e8" for k in clases]
    eje.bar(clases, p, color=colores)
    eje.set_ylim(0, 1.12)
    eje.set_xticks(clases, [str(k) for k in clases])
    eje.set_xlabel("Dígito" + ("" if verdadera is None else f" (el verdadero: {verdadera})"))
    eje.set_ylabel("Probabilidad")
    eje.text(prediccion, p[prediccion] + 0.02, f"{p[prediccion]:.0%}", ha="center", va="bottom", fontsize=10)
    if verdadera is not None:
        eje.get_xticklabels()[verdadera].set_fontweight("bold")


# --- el selector de dígito de las dos pestañas ------------------------------------------------


def selector_digito() -> tuple[gr.Radio, gr.Slider, Dibujo]:
    """Crea (origen, índice en la partición de prueba, lienzo) en el contexto actual."""
    origen = Opcion(list(ORIGENES), value=ORIGEN_PRUEBA, label="Dígito")
    indice = Deslizador(0, 449, value=0, step=1, label="Índice en la partición de prueba (0–449)")
    gr.Markdown("Para dibujar: elige el pincel (✎) y traza un dígito grande, de 0 a 9.")
    dibujo = lienzo_digito(show_label=False)
    return origen, indice, dibujo


def _fijar(valor: str):
    return lambda: valor


def al_elegir_digito(origen, indice, dibujo, calculo, entradas: list, salidas: list) -> None:
    """Mover el índice o dibujar cambia también el origen (a «partición de prueba» o «mi dibujo»), y recalcula."""
    for disparador, valor in ((indice.input, ORIGEN_PRUEBA), (dibujo.input, ORIGEN_DIBUJO)):
        disparador(_fijar(valor), None, origen, api_visibility="private", trigger_mode="always_last").then(
            calculo, entradas, salidas, api_visibility="private", show_progress="minimal"
        )
