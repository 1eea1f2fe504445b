"""La segunda parte de «Parches ViT»: el ViT diminuto entrenado (`vit-digitos`) mirando un dígito.

Un dígito de 8 × 8 se corta en 16 parches de 2 × 2; la ficha [CLS] los mira en
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
from torch import Tensor

import modelos
from demos.comun.digitos import (
    ORIGEN_PRUEBA,
    al_elegir_digito,
    barras_probabilidades,
    digito_elegido,
    imagen_digito,
    lectura,
    modelo_entrenado,
    probabilidades,
    selector_digito,
    vista_sin_dibujo,
)
from demos.comun.figuras import C1, Paneles
from demos.comun.vista import LATEX, envolver, grafico, llenar_al_abrir, un_reloj
from modelos.formato import por_ciento

NOMBRE = "vit-digitos"
API = "parches_vit_digito"

EXPLICACION = r"""
### El ViT diminuto entrenado, mirando un dígito
`vit-digitos` corta un dígito de 8 × 8 en 16 parches de 2 × 2 (4 × 4) y les antepone el [CLS].
Abajo, a qué parches mira el [CLS] en cada bloque y cabeza. El *attention rollout* (Abnar y Zuidema, 2020)
promedia las cabezas, suma la identidad (la conexión residual), renormaliza cada fila y multiplica los bloques:
$\tilde A_b = \mathrm{norm}(\bar A_b + I)$, $R = \tilde A_B \cdots \tilde A_1$; la fila del [CLS] de $R$ es el mapa.
"""


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
    modelo = modelo_entrenado(NOMBRE)
    with torch.inference_mode():
        logits, pesos = modelo(x.to(modelos.dispositivo()), con_pesos=True)
    return probabilidades(logits), [p[0].float().cpu() for p in pesos]


def _figura_prediccion(digito: np.ndarray, mapa: np.ndarray, p: np.ndarray, verdadera: int | None) -> Paneles:
    return Paneles(
        (
            imagen_digito(digito, "Entrada: 4 × 4 parches", rejilla=2, color_rejilla=C1),
            imagen_digito(
                digito,
                "Rollout: [CLS] → parches",
                mapa,
                opacidad=0.7,
                vmax=max(float(mapa.max()), 1e-6),
                numeros_capa=True,
                pista="lo que llega de este parche al [CLS]: {v}",
            ),
            barras_probabilidades(p, verdadera),
        ),
        columnas=3,
        anchos=(1, 1, 2),  # barras anchas: el «100 %» de la predicha cabe sobre la suya
        alto_fila=300,
    )


def _figura_cabezas(digito: np.ndarray, pesos: list[Tensor]) -> Paneles:
    bloques, cabezas = len(pesos), pesos[0].shape[0]
    lado = round((pesos[0].shape[-1] - 1) ** 0.5)
    mapas = [[A[h, 0, 1:].reshape(lado, lado).numpy() for h in range(cabezas)] for A in pesos]  # (lado, lado)
    vmax = max(max(float(m.max()) for m in fila) for fila in mapas)
    paneles = [
        imagen_digito(
            digito,
            f"bloque {b + 1} · cabeza {h + 1}: {por_ciento(mapas[b][h].sum(), 0)}",
            mapas[b][h],
            opacidad=0.75,
            vmax=vmax,
            barra="Peso del [CLS] en el parche",
            pista=f"bloque {b + 1}, cabeza {h + 1}: el [CLS] pone {{v}} en este parche",
        )
        for b in range(bloques)
        for h in range(cabezas)
    ]
    return Paneles(
        tuple(paneles),
        columnas=cabezas,
        titulo="¿A qué parches mira el [CLS]? (% del peso que va a parches; el resto, al [CLS] mismo)",
        alto_fila=230,
    )


def digito(origen: str = ORIGEN_PRUEBA, indice: float = 0, dibujo: Any = None):
    """La vista del ViT entrenado: (predicción con rollout, atención del [CLS] por cabeza, texto)."""
    elegido = digito_elegido(origen, indice, dibujo)
    if elegido is None:
        return vista_sin_dibujo("Entrada, rollout y predicción", "Atención del [CLS] por bloque y cabeza")
    x, verdadera, descripcion = elegido
    p, pesos = atender(x)
    R = rollout(pesos)
    lado = round((R.shape[-1] - 1) ** 0.5)
    mapa = R[0, 1:].reshape(lado, lado).numpy()  # (4, 4): fila del [CLS], sin él mismo
    img = x[0, 0].numpy()
    texto = (
        lectura("el ViT", descripcion, p, verdadera) + ". "
        f"El rollout reparte {por_ciento(mapa.sum(), 0)} del resumen entre los 16 parches; el parche que más aporta "
        f"es el {int(mapa.argmax())} (fila {int(mapa.argmax()) // lado}, columna {int(mapa.argmax()) % lado})."
    )
    return _figura_prediccion(img, mapa, p, verdadera), _figura_cabezas(img, pesos), texto


def seccion(aparece) -> None:
    """Crea la sección del ViT entrenado y conecta su evento público `parches_vit_digito`.

    Se llena cuando `aparece` (una salida de la vista principal) cambia por primera vez.
    """
    gr.Markdown(EXPLICACION, latex_delimiters=LATEX)
    with gr.Row():
        with gr.Column(scale=2):
            origen, indice, dibujo = selector_digito()
        with gr.Column(scale=5):
            prediccion = grafico("Entrada, rollout y predicción del ViT")
            texto = gr.Markdown()
    cabezas = grafico("Atención del [CLS] a los parches, por bloque y cabeza")
    entradas, salidas = [origen, indice, dibujo], [prediccion, cabezas, texto]
    calculo = envolver(digito)
    gr.on([origen.input], calculo, entradas, salidas, api_name=API, trigger_mode="always_last", **un_reloj(salidas))
    al_elegir_digito(origen, indice, dibujo, calculo, entradas, salidas)
    llenar_al_abrir(aparece, calculo, entradas, salidas)
