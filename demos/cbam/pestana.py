"""CBAM en imagen: qué canales y qué posiciones pesa la red `cbam-digitos` al mirar un dígito."""

from __future__ import annotations

from typing import Any

import gradio as gr
import numpy as np
import torch

import modelos
from demos.cbam.foto import seccion as seccion_foto
from demos.comun.controles import Deslizador
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
from demos.comun.figuras import C0, GRIS, Barras, Mapa, Paneles, Serie
from demos.comun.validar import real
from demos.comun.vista import Vista, envolver, explicacion, grafico

NOMBRE = "cbam-digitos"

EXPLICACION = r"""
CBAM (Woo et al., 2018) pone dos compuertas en serie sobre los mapas de rasgos $x$ de una red convolucional.
La de **canal** decide qué canales importan: $w = \sigma(\mathrm{MLP}(\mathrm{prom}(x)) + \mathrm{MLP}(\max(x)))$,
un número de 0 a 1 por canal. La **espacial** decide qué posiciones importan:
$m = \sigma(\mathrm{conv}_{7\times 7}([\mathrm{media}_c(x),\ \max_c(x)]))$, un número de 0 a 1 por píxel. Entonces

$$y = m \odot (w \odot x)$$

Aquí, la red pequeña `cbam-digitos`, entrenada con los dígitos de 8 × 8 de scikit-learn. Apaga una rama
(su compuerta pasa a valer 1) y mira cómo cambian la predicción y los mapas.
"""


def _interruptor(valor: Any, nombre: str) -> bool:
    if isinstance(valor, bool | np.bool_):
        return bool(valor)
    raise ValueError(f"«{nombre}» debe ser verdadero o falso; llegó {valor!s:.20}.")


def mirar(x: torch.Tensor, canal: bool = True, espacial: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x (1, 1, 8, 8) en CPU -> (probabilidades (10,), pesos de canal (C,), mapa espacial (8, 8)), en CPU."""
    modelo = modelo_entrenado(NOMBRE)
    with torch.inference_mode():
        logits, w, m = modelo(x.to(modelos.dispositivo()), con_pesos=True, canal=canal, espacial=espacial)
    return probabilidades(logits), w[0, :, 0, 0].float().cpu().numpy(), m[0, 0].float().cpu().numpy()


def _figura_mapas(digito: np.ndarray, mapa: np.ndarray, opacidad: float, espacial: bool) -> Paneles:
    return Paneles(
        (
            imagen_digito(digito, "Entrada (8 × 8)"),
            Mapa(
                mapa,
                titulo="Mapa espacial m" + ("" if espacial else " (apagado: 1)"),
                barra="m",
                pista="m en (fila {y}, columna {x}): {v}",
                cuadrado=True,
            ),
            imagen_digito(digito, "m sobre la entrada", mapa, opacidad=opacidad, pista="m = {v}"),
        ),
        columnas=3,
        anchos=(1, 1.5, 1),  # el mapa lleva un número en cada casilla: más ancho
        alto_fila=340,
    )


def _figura_pesos(p: np.ndarray, w: np.ndarray, verdadera: int | None, canal: bool) -> Paneles:
    orden = np.argsort(-w, kind="stable")
    titulo = f"Pesos de canal w ({len(w)} canales)" if canal else "Rama de canal apagada: todos los w valen 1"
    pesos = Barras(
        tuple(str(k) for k in orden),
        (Serie("w", w[orden], color=C0 if canal else GRIS),),
        titulo=titulo,
        eje_x="Canal (ordenados de mayor a menor peso)",
        eje_y="Peso w",
        numeros=False,
        rango=(0, 1.05),
        pista="canal {c}: w = {v}",
    )
    return Paneles((barras_probabilidades(p, verdadera), pesos), columnas=2, anchos=(1, 1.9), alto_fila=300)


def calcular(
    origen: str = ORIGEN_PRUEBA,
    indice: float = 0,
    dibujo: Any = None,
    canal: bool = True,
    espacial: bool = True,
    opacidad: float = 0.5,
):
    """La vista: (entrada y mapa espacial, predicción y pesos de canal, texto)."""
    canal, espacial = _interruptor(canal, "Rama de canal"), _interruptor(espacial, "Rama espacial")
    opacidad = real(opacidad, "La opacidad del mapa", 0, 1)
    elegido = digito_elegido(origen, indice, dibujo)
    if elegido is None:
        return vista_sin_dibujo("Entrada y mapa espacial", "Predicción y pesos de canal")
    x, verdadera, descripcion = elegido
    p, w, m = mirar(x, canal, espacial)
    texto = lectura("la red", descripcion, p, verdadera)
    if canal and espacial:
        texto += "."
    else:
        p_completa, *_ = mirar(x)
        apagadas = " y ".join(n for n, activa in (("de canal", canal), ("espacial", espacial)) if not activa)
        texto += (
            f" con la rama {apagadas} apagada. Con las dos ramas decía **{int(p_completa.argmax())}** "
            f"({p_completa.max():.0%})."
        )
    if canal:
        bajos = int((w < 0.5).sum())
        texto += (
            f" Pesos de canal: de {w.min():.2f} a {w.max():.2f}; {bajos} de {len(w)} canales quedan por debajo de 0.5."
        )
    if espacial:
        texto += f" Mapa espacial: de {m.min():.2f} a {m.max():.2f}"
        texto += " (casi parejo: aquí la rama espacial apenas distingue posiciones)." if np.ptp(m) < 0.05 else "."
    return _figura_mapas(x[0, 0].numpy(), m, opacidad, espacial), _figura_pesos(p, w, verdadera, canal), texto


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        with gr.Column(scale=2):
            origen, indice, dibujo = selector_digito()
        with gr.Column(scale=5):
            with gr.Row():
                canal = gr.Checkbox(value=True, label="Rama de canal (w) encendida")
                espacial = gr.Checkbox(value=True, label="Rama espacial (m) encendida")
                opacidad = Deslizador(0, 1, value=0.5, step=0.05, label="Opacidad del mapa sobre la entrada (0–1)")
            mapas = grafico("Entrada, mapa espacial y su superposición")
            pesos = grafico("Predicción y pesos de canal ordenados")
            texto = gr.Markdown()
    entradas = [origen, indice, dibujo, canal, espacial, opacidad]
    salidas = [mapas, pesos, texto]
    al_elegir_digito(origen, indice, dibujo, envolver(calcular), entradas, salidas)
    seccion_foto(aparece=texto)
    return Vista(
        fn=calcular,
        entradas=entradas,
        salidas=salidas,
        url={"origen": origen, "indice": indice, "canal": canal, "espacial": espacial, "opacidad": opacidad},
        disparadores=[origen.input, canal.input, espacial.input, opacidad.input],
    )
