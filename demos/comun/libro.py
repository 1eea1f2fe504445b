"""Modo libro: softmax(Q·Kᵀ/√d)·V un paso a la vez, con el término de la fórmula y sus casillas resaltados.

Cinco pasos: productos punto Q·Kᵀ → ÷ √d (los puntajes) → exp → ÷ suma de la fila → · V. Cada paso da la fórmula entera
con su término en naranja (KaTeX `\\textcolor`) y la matriz que ese término produce, con las casillas
de la fila que se detalla recuadradas en el mismo naranja (`Mapa.marcas`), y una frase con los números
de esa fila antes y después. Los pasos se calculan en float64 y terminan igual que `modelos.atencion`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from modelos.formato import numero

from .figuras import C1, Mapa
from .seguridad import escapar_md

NARANJA = C1  # el de `Mapa.marcas` (las casillas recuadradas): término y casillas, del mismo color
NOMBRES = ("productos punto Q·Kᵀ", "÷ √d (los puntajes)", "exp", "÷ suma de la fila", "· V")
_S = r"\quad s = \frac{Q K^\top}{\sqrt{d}}"  # los puntajes: s_ij es el de la fila i y la columna j
TERMINOS = (  # la fórmula con el término del paso k entre \textcolor
    r"\mathrm{softmax}\!\left(\frac{\textcolor{N}{Q K^\top}}{\sqrt{d}}\right) V",
    r"\mathrm{softmax}\!\left(\frac{Q K^\top}{\textcolor{N}{\sqrt{d}}}\right) V",
    r"\mathrm{salida}_i = \sum_j \frac{\textcolor{N}{e^{\,s_{ij}}}}{\sum_k e^{\,s_{ik}}}\, v_j," + _S,
    r"\mathrm{salida}_i = \sum_j \frac{e^{\,s_{ij}}}{\textcolor{N}{\sum_k e^{\,s_{ik}}}}\, v_j," + _S,
    r"\mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d}}\right) \textcolor{N}{V}",
)
PASOS = len(NOMBRES)
DESBORDE = 700.0  # e^700 todavía cabe en float64; más allá se resta el máximo de la fila, como torch.softmax


@dataclass(frozen=True)
class Paso:
    nombre: str
    formula: str  # LaTeX, con el término del paso en naranja
    matriz: np.ndarray  # (L, L) o, el último, (L, dv)
    antes: np.ndarray | None  # la matriz del paso anterior (para la frase)


def pasos(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> tuple[list[Paso], bool]:
    """Los cinco pasos de Q (L, d), K (L, d), V (L, dv); y si exp restó el máximo de cada fila."""
    Q, K, V = (np.asarray(t, dtype=np.float64) for t in (Q, K, V))
    d = Q.shape[1]
    producto = Q @ K.T  # (L, L)
    s = producto / math.sqrt(d)  # (L, L)
    restar = bool(np.abs(s).max() > DESBORDE)
    e = np.exp(s - s.max(axis=1, keepdims=True)) if restar else np.exp(s)  # (L, L)
    pesos = e / e.sum(axis=1, keepdims=True)  # (L, L): cada fila suma 1
    salida = pesos @ V  # (L, dv)
    matrices = [producto, s, e, pesos, salida]
    return [
        Paso(NOMBRES[k], TERMINOS[k].replace("{N}", "{" + NARANJA + "}"), m, matrices[k - 1] if k else None)
        for k, m in enumerate(matrices)
    ], restar


def _fila(v: np.ndarray) -> str:
    return "(" + ", ".join(numero(float(x), ".2f") for x in v) + ")"


def frase(k: int, paso: Paso, i: int, palabra: str, d: int, restar: bool) -> str:
    """Lo que hace el paso k en la fila i, con sus números."""
    fila = paso.matriz[i]
    palabra = escapar_md(palabra)  # va dentro de un gr.Markdown: `![](//otro/x)` no se pide ni se enlaza
    if k == 0:
        return f"Cada casilla es un producto punto: la fila de «{palabra}» da {_fila(fila)}."
    if k == 1:
        return f"Se divide por √{d} = {numero(math.sqrt(d), '.2f')}: {_fila(paso.antes[i])} → {_fila(fila)}."
    if k == 2:
        nota = " (restando antes el máximo de la fila, como `torch.softmax`: si no, desbordaría)" if restar else ""
        return f"Se toma e elevado a cada puntaje{nota}: {_fila(paso.antes[i])} → {_fila(fila)}."
    if k == 3:
        suma = float(paso.antes[i].sum())
        return (
            f"Se divide por la suma de la fila, {numero(suma, '.2f')}: {_fila(fila)}, que suma "
            f"{numero(float(fila.sum()), '.2f')}. Son los pesos."
        )
    return f"Cada salida promedia las filas de V con esos pesos: la de «{palabra}» es {_fila(fila)}."


def vista_paso(palabras: list[str], Q, K, V, paso: int, i: int) -> tuple[str, Mapa]:
    """(la fórmula con el término resaltado y la frase, la matriz del paso con la fila i recuadrada)."""
    lista, restar = pasos(Q, K, V)
    k = min(max(int(paso), 1), PASOS) - 1
    p = lista[k]
    L, columnas = p.matriz.shape
    texto = f"**Paso {k + 1} de {PASOS}: {p.nombre}.**\n\n$${p.formula}$$\n\n" + frase(
        k, p, i, palabras[i], np.asarray(Q).shape[1], restar
    )
    x = tuple(palabras) if k < 4 else tuple(f"v{j + 1}" for j in range(columnas))
    es_peso = k == 3
    mapa = Mapa(
        p.matriz,
        x=x,
        y=tuple(palabras),
        titulo=f"Paso {k + 1}: {p.nombre}",
        vmin=0.0 if es_peso else None,
        vmax=1.0 if es_peso else None,
        barra="Peso" if es_peso else "Valor",
        marcas=tuple((i, j) for j in range(columnas)),
        pista="fila «{y}», columna «{x}»: {v}",
    )
    return texto, mapa
