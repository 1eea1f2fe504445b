"""CBAM en imagen: qué canales y qué posiciones pesa la red `cbam-digitos` al mirar un dígito."""

from __future__ import annotations

from typing import Any

import gradio as gr
import numpy as np
import torch

import modelos
from demos import _cbam_foto
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
from demos._recordar import figura_recordada
from demos._ui import Deslizador, Vista, envolver, explicacion, imagen

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


def _modelo():
    try:
        return modelos.cargar(NOMBRE)
    except Exception:
        raise ValueError(
            f"El modelo «{NOMBRE}» no está disponible todavía (falta su checkpoint). "
            f"Genéralo con `python -m modelos.entrenar {NOMBRE}`."
        ) from None


def _interruptor(valor: Any, nombre: str) -> bool:
    if isinstance(valor, bool | np.bool_):
        return bool(valor)
    raise ValueError(f"«{nombre}» debe ser verdadero o falso; llegó {valor!s:.20}.")


def _opacidad(valor: Any) -> float:
    try:
        v = float(valor)
    except (TypeError, ValueError):
        v = float("nan")
    if not np.isfinite(v) or not 0 <= v <= 1:
        raise ValueError(f"La opacidad del mapa debe ser un número entre 0 y 1; llegó {valor!s:.20}.")
    return v


def mirar(x: torch.Tensor, canal: bool = True, espacial: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x (1, 1, 8, 8) en CPU -> (probabilidades (10,), pesos de canal (C,), mapa espacial (8, 8)), en CPU."""
    modelo = _modelo()
    with torch.inference_mode():
        logits, w, m = modelo(x.to(modelos.dispositivo()), con_pesos=True, canal=canal, espacial=espacial)
    return probabilidades(logits), w[0, :, 0, 0].float().cpu().numpy(), m[0, 0].float().cpu().numpy()


def _figura_mapas(digito: np.ndarray, mapa: np.ndarray, opacidad: float, espacial: bool):
    fig, ejes = G.figura(8.6, 3.1, 1, 3)
    dibujar_digito(ejes[0], digito)
    ejes[0].set_title("Entrada (8 × 8)", fontsize=11)
    G.mapa_calor(ejes[1], mapa, formato="{:.2f}", tam_numeros=9)
    ejes[1].set_xticks([])
    ejes[1].set_yticks([])
    ejes[1].set_title("Mapa espacial m" + ("" if espacial else " (apagado: 1)"), fontsize=11)
    dibujar_digito(ejes[2], digito, mapa, opacidad=opacidad)
    ejes[2].set_title("m sobre la entrada", fontsize=11)
    return fig


@figura_recordada  # no depende de la opacidad: moverla no la vuelve a dibujar
def _figura_pesos(p: np.ndarray, w: np.ndarray, verdadera: int | None, canal: bool):
    fig, ejes = G.figura(8.6, 3.1, 1, 2, width_ratios=[1, 1.9])
    barras_probabilidades(ejes[0], p, verdadera)
    ejes[0].set_title("Predicción", fontsize=11)
    orden = np.argsort(-w, kind="stable")
    ejes[1].bar(np.arange(len(w)), w[orden], color=G.C0 if canal else "0.7")
    ejes[1].set_xticks(np.arange(len(w)), [str(k) for k in orden], fontsize=8, rotation=90)
    ejes[1].set_xlim(-0.7, len(w) - 0.3)
    ejes[1].set_ylim(0, 1.05)
    ejes[1].set_xlabel("Canal (ordenados de mayor a menor peso)")
    ejes[1].set_ylabel("Peso w")
    titulo = f"Pesos de canal w ({len(w)} canales)" if canal else "Rama de canal apagada: todos los w valen 1"
    ejes[1].set_title(titulo, fontsize=11)
    return fig


def _vacias(mensaje: str):
    figuras = []
    for _ in range(2):
        fig, eje = G.figura(8.6, 3.1)
        G.sin_datos(eje, mensaje)
        figuras.append(fig)
    return figuras


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
    opacidad = _opacidad(opacidad)
    elegido = digito_elegido(origen, indice, dibujo)
    if elegido is None:
        return *_vacias("Dibuja un dígito en el recuadro"), PISTA_DIBUJO
    x, verdadera, descripcion = elegido
    p, w, m = mirar(x, canal, espacial)
    prediccion = int(p.argmax())
    veredicto = "" if verdadera is None else (" ✓ acierta" if prediccion == verdadera else f" ✗ (era {verdadera})")
    texto = f"Para {descripcion}, la red dice **{prediccion}** con probabilidad **{p[prediccion]:.0%}**{veredicto}"
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
            mapas = imagen("Entrada, mapa espacial y su superposición")
            pesos = imagen("Predicción y pesos de canal ordenados")
            texto = gr.Markdown()
    entradas = [origen, indice, dibujo, canal, espacial, opacidad]
    salidas = [mapas, pesos, texto]
    al_elegir_digito(origen, indice, dibujo, envolver(calcular, recordar=True), entradas, salidas)
    _cbam_foto.seccion(aparece=texto)
    return Vista(
        fn=calcular,
        entradas=entradas,
        salidas=salidas,
        url={"origen": origen, "indice": indice, "canal": canal, "espacial": espacial, "opacidad": opacidad},
        disparadores=[origen.input, canal.input, espacial.input, opacidad.input],
    )


if __name__ == "__main__":
    from app import construir_una, opciones_lanzamiento

    construir_una("cbam").launch(**opciones_lanzamiento())
