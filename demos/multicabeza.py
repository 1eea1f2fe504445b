"""Atención multicabeza: los pesos de cada cabeza, su promedio y la comparación con nn.MultiheadAttention."""

from __future__ import annotations

import math

import gradio as gr
import numpy as np
import torch
from torch import nn

from demos import _graficos as G
from demos._ui import Deslizador, Numero, Vista, explicacion, imagen
from demos._validar import entero as _entero
from modelos import AtencionMulticabeza

D_MAX, CABEZAS_MAX, LARGO_MAX, SEMILLA_MAX = 512, 16, 32, 2**31 - 1
TOLERANCIA = 1e-6  # la de la lección: torch.allclose(..., atol=1e-6)
COLUMNAS_FIGURA = 5  # paneles por fila de la figura

EXPLICACION = r"""
Una cabeza de atención compara las palabras de **una** manera. Con varias cabezas, cada una recibe
su propio trozo de $d_\text{modelo} / \text{cabezas}$ columnas de Q, K y V, calcula sus propios
pesos, y al final una capa de salida mezcla lo que encontró cada una:

$$\text{MultiHead}(X) = \text{Concat}(\text{cabeza}_1, \dots, \text{cabeza}_h)\, W^O,
\qquad \text{cabeza}_i = \text{softmax}\!\left(\frac{Q_i K_i^\top}{\sqrt{d_\text{modelo}/h}}\right) V_i$$

Aquí la capa está recién creada (sin entrenar) y la frase son vectores al azar: mira cómo cada
cabeza mira distinto, y que el resultado es idéntico al de `nn.MultiheadAttention` de PyTorch.
"""


def validar(d_modelo, cabezas, largo, semilla) -> tuple[int, int, int, int]:
    d = _entero(d_modelo, "d_modelo", 1, D_MAX)
    h = _entero(cabezas, "El número de cabezas", 1, CABEZAS_MAX)
    if d % h:
        divisores = [k for k in range(1, CABEZAS_MAX + 1) if d % k == 0]
        raise ValueError(
            f"d_modelo = {d} no se reparte entre {h} cabezas: cada cabeza recibe d_modelo / cabezas columnas "
            f"de Q, K y V, y {d} / {h} = {d / h:.3g} no es entero. Usa un d_modelo múltiplo de {h} "
            f"(como {h * max(1, round(d / h))}) o {', '.join(map(str, divisores))} cabezas."
        )
    return d, h, _entero(largo, "El largo de la frase", 1, LARGO_MAX), _entero(semilla, "La semilla", 0, SEMILLA_MAX)


# --- las dos capas, con los mismos pesos -----------------------------------------------------


def crear_capa(d_modelo: int, cabezas: int, g: torch.Generator) -> AtencionMulticabeza:
    """Una AtencionMulticabeza con pesos al azar del generador `g`, sin tocar el RNG global.

    Se construye en el dispositivo «meta» (sin memoria ni números al azar) y se llena después
    con la misma inicialización que nn.Linear: uniforme en ±1/√(entradas).
    """
    with torch.device("meta"):
        capa = AtencionMulticabeza(d_modelo, cabezas)
    capa = capa.to_empty(device="cpu")
    with torch.no_grad():
        for lineal in (capa.qkv, capa.salida):
            cota = 1 / math.sqrt(lineal.in_features)
            lineal.weight.uniform_(-cota, cota, generator=g)
            lineal.bias.uniform_(-cota, cota, generator=g)
    return capa.eval()


def copia_oficial(capa: AtencionMulticabeza) -> nn.MultiheadAttention:
    """nn.MultiheadAttention con los pesos de `capa`: qkv -> in_proj_*, salida -> out_proj."""
    d = capa.qkv.in_features
    with torch.device("meta"):
        oficial = nn.MultiheadAttention(d, capa.cabezas, batch_first=True)
    oficial = oficial.to_empty(device="cpu")
    with torch.no_grad():
        oficial.in_proj_weight.copy_(capa.qkv.weight)  # (3d, d): Q, K y V apilados, como qkv
        oficial.in_proj_bias.copy_(capa.qkv.bias)
        oficial.out_proj.weight.copy_(capa.salida.weight)
        oficial.out_proj.bias.copy_(capa.salida.bias)
    return oficial.eval()


def parametros(modulo: nn.Module) -> int:
    return sum(p.numel() for p in modulo.parameters())


def comparar(d_modelo: int = 16, cabezas: int = 4, largo: int = 5, semilla: int = 0) -> dict:
    """Nuestra capa y la de PyTorch sobre la misma frase al azar x: (1, largo, d_modelo).

    Devuelve los pesos (cabezas, largo, largo), las diferencias máximas de salidas y
    pesos, y los parámetros de cada parte.
    """
    g = torch.Generator().manual_seed(semilla)
    x = torch.randn(1, largo, d_modelo, generator=g)  # una frase de `largo` palabras
    capa = crear_capa(d_modelo, cabezas, g)
    oficial = copia_oficial(capa)
    with torch.inference_mode():
        nuestra, pesos = capa(x)  # (1, L, d), (1, cabezas, L, L)
        # Autoatención: la misma x hace de consultas, claves y valores
        suya, pesos_suyos = oficial(x, x, x, average_attn_weights=False)
    return {
        "pesos": pesos[0].numpy(),
        "dif_salidas": (nuestra - suya).abs().max().item(),
        "dif_pesos": (pesos - pesos_suyos).abs().max().item(),
        "qkv": parametros(capa.qkv),
        "salida": parametros(capa.salida),
        "total": parametros(capa),
        "total_oficial": parametros(oficial),
    }


# --- la vista ---------------------------------------------------------------------------------


def _marcas(L: int) -> tuple[list[int], list[str]]:
    """Posiciones y nombres de las marcas: todas hasta 8 palabras; si no, 4 o 5 repartidas."""
    paso = 1 if L <= 8 else math.ceil(L / 4)
    posiciones = list(range(0, L, paso))
    return posiciones, [str(i + 1) for i in posiciones]


def _figura(pesos: np.ndarray):
    """Un mapa por cabeza y uno del promedio, en filas de COLUMNAS_FIGURA paneles."""
    h, L, _ = pesos.shape
    paneles = h + 1 if h > 1 else 1  # con una cabeza, el promedio es ella misma
    columnas = min(paneles, COLUMNAS_FIGURA)
    filas = math.ceil(paneles / columnas)
    lado = 3.4 if columnas <= 2 else (2.3 if filas <= 2 else 2.0)
    fig, ejes = G.figura(lado * columnas + 1.3, lado * filas + 0.6, filas, columnas)  # + barra de color
    ejes = np.asarray(ejes, dtype=object).reshape(filas, columnas)
    posiciones, nombres = _marcas(L)
    # Números solo si caben (≈ 0.42 pulgadas por casilla a 10 pt) y, en las cabezas, si son
    # pocos: cada número escrito cuesta tiempo de dibujo.
    caben = L * 0.42 <= lado - 0.1
    numeros_cabezas = caben and h * L * L <= 64
    # Una escala común a todos los paneles, de 0 al peso más alto: con una capa sin entrenar
    # los pesos son casi parejos (≈ 1/L) y en una escala de 0 a 1 todo se vería blanco.
    vmax = max(float(pesos.max()), 1e-6)
    for k, eje in enumerate(ejes.flat):
        if k >= paneles:
            eje.axis("off")
            continue
        promedio = k == h
        matriz = pesos.mean(axis=0) if promedio else pesos[k]
        numeros = caben if promedio or h == 1 else numeros_cabezas
        imagen_ = G.mapa_calor(eje, matriz, numeros=numeros, vmax=vmax, tam_numeros=10)
        for t in eje.texts:  # dentro de las casillas: no cuentan para el diseño (y dibuja más rápido)
            t.set_in_layout(False)
        eje.set_xticks(posiciones, nombres if k + columnas >= paneles else [])
        eje.set_yticks(posiciones, nombres if k % columnas == 0 else [])
        titulo = "Promedio" if promedio else f"Cabeza {k + 1}"
        eje.set_title(titulo, fontsize=11, fontweight="bold" if promedio else "normal")
        eje.set_aspect("equal")
    fig.colorbar(imagen_, ax=ejes.ravel().tolist(), shrink=0.8 if filas > 1 else 1.0, pad=0.01, label="Peso")
    fig.supxlabel("Palabra que se mira (n.º)", fontsize=11)
    fig.supylabel("Palabra que mira (n.º)", fontsize=11)
    return fig


def _miles(n: int) -> str:
    return f"{n:,}".replace(",", " ")


def _si_no(dif: float) -> str:
    return "sí" if dif <= TOLERANCIA else "no"


def calcular(d_modelo: float = 16, cabezas: float = 4, largo: float = 5, semilla: float = 0):
    """La vista: (figura de pesos, comprobación contra PyTorch, parámetros, texto)."""
    d, h, L, semilla = validar(d_modelo, cabezas, largo, semilla)
    r = comparar(d, h, L, semilla)
    comprobacion = [
        ["Salidas (1, L, d_modelo)", _si_no(r["dif_salidas"]), f"{r['dif_salidas']:.1e}"],
        ["Pesos (1, cabezas, L, L)", _si_no(r["dif_pesos"]), f"{r['dif_pesos']:.1e}"],
    ]
    tabla = [
        ["qkv: d → 3d (Q, K y V juntos)", f"{d}·{3 * d} + {3 * d}", r["qkv"]],
        ["salida: d → d (mezcla las cabezas)", f"{d}·{d} + {d}", r["salida"]],
        ["Total (nuestra capa)", "4d² + 4d", r["total"]],
        ["Total (nn.MultiheadAttention)", "in_proj + out_proj", r["total_oficial"]],
    ]
    iguales = "los mismos" if r["total"] == r["total_oficial"] else "distintos de los"
    texto = (
        f"Cada una de las **{h} cabezas** recibe **{d} / {h} = {d // h} columnas** de Q, K y V y divide sus "
        f"puntajes por √{d // h}. Los parámetros no dependen del número de cabezas: son {_miles(r['total'])} "
        f"con cualquier número de cabezas, {iguales} de `nn.MultiheadAttention` ({_miles(r['total_oficial'])}). "
        f"«¿Iguales?» usa la tolerancia de la lección: diferencia máxima ≤ {TOLERANCIA:g}.\n\n"
        f"La capa no está entrenada: sus pesos salen de números al azar (el más alto es {r['pesos'].max():.2f}; "
        f"parejos serían 1/{L} = {1 / L:.2f}), así que la escala de color va de 0 al peso más alto. "
        "Al entrenar, cada cabeza aprende a fijarse en algo distinto."
    )
    return _figura(r["pesos"]), comprobacion, tabla, texto


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        d = Deslizador(8, D_MAX, value=16, step=8, label="d_modelo (números por palabra)")
        cabezas = Deslizador(1, CABEZAS_MAX, value=4, step=1, label="Cabezas")
        largo = Deslizador(2, LARGO_MAX, value=5, step=1, label="Largo de la frase (palabras)")
        semilla = Numero(0, precision=0, minimum=0, maximum=SEMILLA_MAX, label="Semilla")
    figura = imagen("Pesos de cada cabeza y su promedio")
    with gr.Row():
        comprobacion = gr.Dataframe(
            headers=["Comparación con nn.MultiheadAttention", "¿iguales?", "Diferencia máxima"],
            label="Mismos pesos, misma frase",
            interactive=False,
        )
        tabla = gr.Dataframe(headers=["Parte", "Cuenta", "Parámetros"], label="Parámetros", interactive=False)
    texto = gr.Markdown()
    return Vista(
        fn=calcular,
        entradas=[d, cabezas, largo, semilla],
        salidas=[figura, comprobacion, tabla, texto],
        url={"d_modelo": d, "cabezas": cabezas, "largo": largo, "semilla": semilla},
        ejemplo={"cabezas": "8"},
    )


if __name__ == "__main__":
    from app import construir_una, opciones_lanzamiento

    construir_una("multicabeza").launch(**opciones_lanzamiento())
