"""La segunda parte de «Parches ViT»: el ViT diminuto entrenado (`vit-digitos`) mirando un dígito.

Un dígito de 8 × 8 se corta en 16 parches de 2 × 2; el token [CLS] los mira en
cada bloque y cabeza. El «attention rollout» (Abnar y Zuidema, 2020,
https://arxiv.org/abs/2005.00928) sigue la atención a través de los bloques:

    Ã_b = normalizar_filas(promedio_cabezas(A_b) + I)      R = Ã_B · … · Ã_1

y la fila del [CLS] de R dice cuánto de cada parche llegó al resumen.
"""

from __future__ import annotations

from typing import Any

import gradio as gr
import numpy as np
import torch
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from torch import Tensor

import modelos
from demos import _graficos as G
from demos._digitos import (
    ORIGEN_PRUEBA,
    PISTA_DIBUJO,
    al_elegir_digito,
    barras_probabilidades,
    dibujar_digito,
    digito_elegido,
    probabilidades,
    selector_digito,
)
from demos._ui import envolver, imagen, llenar_al_abrir

NOMBRE = "vit-digitos"
API = "parches_vit_digito"

EXPLICACION = r"""
### El ViT diminuto entrenado, mirando un dígito
`vit-digitos` corta un dígito de 8 × 8 en 16 parches de 2 × 2 (4 × 4) y les antepone el [CLS].
Abajo, a qué parches mira el [CLS] en cada bloque y cabeza. El *attention rollout* (Abnar y Zuidema, 2020)
promedia las cabezas, suma la identidad (la conexión residual), renormaliza cada fila y multiplica los bloques:
$\tilde A_b = \mathrm{norm}(\bar A_b + I)$, $R = \tilde A_B \cdots \tilde A_1$; la fila del [CLS] de $R$ es el mapa.
"""


def _modelo():
    try:
        return modelos.cargar(NOMBRE)
    except Exception:
        raise ValueError(
            f"El modelo «{NOMBRE}» no está disponible todavía (falta su checkpoint). "
            f"Genéralo con `python -m modelos.entrenar {NOMBRE}`."
        ) from None


def rollout(pesos: list[Tensor]) -> Tensor:
    """Pesos de cada bloque, (cabezas, L, L) -> rollout (L, L); cada fila suma 1."""
    L = pesos[0].shape[-1]
    identidad = torch.eye(L, dtype=pesos[0].dtype)
    R = identidad
    for A in pesos:
        A_tilde = A.mean(dim=0) + identidad  # (L, L): promedio de cabezas + residual
        A_tilde = A_tilde / A_tilde.sum(dim=-1, keepdim=True)
        R = A_tilde @ R  # (L, L)
    return R


def atender(x: Tensor) -> tuple[np.ndarray, list[Tensor]]:
    """x (1, 1, 8, 8) en CPU -> (probabilidades (10,), pesos de cada bloque (cabezas, N+1, N+1) en CPU)."""
    modelo = _modelo()
    with torch.inference_mode():
        logits, pesos = modelo(x.to(modelos.dispositivo()), con_pesos=True)
    return probabilidades(logits), [p[0].float().cpu() for p in pesos]


def _figura_prediccion(digito: np.ndarray, mapa: np.ndarray, p: np.ndarray, verdadera: int | None):
    fig, ejes = G.figura(8.6, 3.0, 1, 3, width_ratios=[1, 1, 1.5])
    dibujar_digito(ejes[0], digito)
    for k in range(1, 4):  # la rejilla de parches de 2 × 2
        ejes[0].axhline(2 * k - 0.5, color=G.C1, linewidth=1)
        ejes[0].axvline(2 * k - 0.5, color=G.C1, linewidth=1)
    ejes[0].set_title("Entrada: 4 × 4 parches", fontsize=11)
    dibujar_digito(ejes[1], digito, mapa, opacidad=0.7, vmax=max(mapa.max(), 1e-6), numeros=True)
    ejes[1].set_title("Rollout: [CLS] → parches", fontsize=11)
    barras_probabilidades(ejes[2], p, verdadera)
    ejes[2].set_title("Predicción", fontsize=11)
    return fig


def _figura_cabezas(digito: np.ndarray, pesos: list[Tensor]):
    bloques, cabezas = len(pesos), pesos[0].shape[0]
    lado = round((pesos[0].shape[-1] - 1) ** 0.5)
    mapas = [[A[h, 0, 1:].reshape(lado, lado).numpy() for h in range(cabezas)] for A in pesos]
    vmax = max(max(m.max() for m in fila) for fila in mapas)
    fig, ejes = G.figura(1.75 * cabezas + 0.8, 2.0 * bloques + 0.5, bloques, cabezas)
    ejes = np.asarray(ejes).reshape(bloques, cabezas)
    for b in range(bloques):
        for h in range(cabezas):
            eje = ejes[b, h]
            dibujar_digito(eje, digito, mapas[b][h], opacidad=0.75, vmax=vmax)
            eje.set_title(f"bloque {b + 1} · cabeza {h}", fontsize=10)
            eje.set_xlabel(f"{mapas[b][h].sum():.0%} a parches", fontsize=10)
    barra = fig.colorbar(ScalarMappable(Normalize(0, vmax), G.BLANCO_TINTA), ax=ejes, shrink=0.8, pad=0.02)
    barra.set_label("Peso del [CLS] en el parche")
    fig.suptitle("¿A qué parches mira el [CLS]? (el resto del peso va al [CLS] mismo)", fontsize=12)
    return fig


def _vacias(mensaje: str):
    figuras = []
    for ancho, alto in ((8.6, 3.0), (7.8, 4.5)):
        fig, eje = G.figura(ancho, alto)
        G.sin_datos(eje, mensaje)
        figuras.append(fig)
    return figuras


def digito(origen: str = ORIGEN_PRUEBA, indice: float = 0, dibujo: Any = None):
    """La vista del ViT entrenado: (predicción con rollout, atención del [CLS] por cabeza, texto)."""
    elegido = digito_elegido(origen, indice, dibujo)
    if elegido is None:
        return *_vacias("Dibuja un dígito en el recuadro"), PISTA_DIBUJO
    x, verdadera, descripcion = elegido
    p, pesos = atender(x)
    R = rollout(pesos)
    lado = round((R.shape[-1] - 1) ** 0.5)
    mapa = R[0, 1:].reshape(lado, lado).numpy()  # (4, 4): fila del [CLS], sin él mismo
    img = x[0, 0].numpy()
    prediccion = int(p.argmax())
    veredicto = "" if verdadera is None else (" ✓ acierta" if prediccion == verdadera else f" ✗ (era {verdadera})")
    texto = (
        f"Para {descripcion}, el ViT dice **{prediccion}** con probabilidad **{p[prediccion]:.0%}**{veredicto}. "
        f"El rollout reparte {mapa.sum():.0%} del resumen entre los 16 parches; el parche que más aporta es el "
        f"{int(mapa.argmax())} (fila {int(mapa.argmax()) // lado}, columna {int(mapa.argmax()) % lado})."
    )
    return _figura_prediccion(img, mapa, p, verdadera), _figura_cabezas(img, pesos), texto


def seccion(aparece) -> None:
    """Crea la sección del ViT entrenado y conecta su evento público `parches_vit_digito`.

    Se llena cuando `aparece` (una salida de la vista principal) cambia por primera vez.
    """
    gr.Markdown(EXPLICACION, latex_delimiters=[{"left": "$", "right": "$", "display": False}])
    with gr.Row():
        with gr.Column(scale=2):
            origen, indice, dibujo = selector_digito()
        with gr.Column(scale=5):
            prediccion = imagen("Entrada, rollout y predicción del ViT")
            texto = gr.Markdown()
    cabezas = imagen("Atención del [CLS] a los parches, por bloque y cabeza")
    entradas, salidas = [origen, indice, dibujo], [prediccion, cabezas, texto]
    calculo = envolver(digito)
    gr.on([origen.input], calculo, entradas, salidas, api_name=API, trigger_mode="always_last", show_progress="minimal")
    al_elegir_digito(origen, indice, dibujo, calculo, entradas, salidas)
    llenar_al_abrir(aparece, calculo, entradas, salidas)
