"""Variantes de la atención (tutorial §6.2): de dónde salen Q, K y V, y qué casillas se calculan.

    autoatención, cruzada, dispersa:   softmax(Q·Kᵀ/√d)·V, con Q, K, V de una o dos secuencias
    canal (SE, CBAM), espacial (CBAM): un peso de 0 a 1 por canal o por píxel (sigmoide), sin Q·Kᵀ

Las máscaras dispersas (ventana, fichas globales, bloques al azar, BigBird) salen de `modelos.dispersa`.
"""

from __future__ import annotations

import re
from functools import lru_cache

import gradio as gr
import numpy as np
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Numero
from demos.comun.figuras import Mapa, Paneles, miles
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.validar import entero
from demos.comun.vista import Barrido, Vista, explicacion, grafico, servido
from modelos import CBAM, dispersa
from modelos.formato import por_ciento
from modelos.hilos import un_hilo

L_MAX, GLOBALES_MAX, AZAR_MAX, SEMILLA_MAX = 64, 4, 4, 2**31 - 1
BLOQUE = 2  # lado de un bloque al azar (BigBird usa 64 con frases de miles de fichas; aquí, frases de decenas)
L_GRANDE = 2048  # el largo en que se cuentan las casillas de cada máscara en el texto
LONGFORMER = 512  # el ancho de su ventana
CANALES, LADO = 32, 8
TITULOS = {  # los de demos.PESTANAS (una pestaña no importa el registro)
    "multicabeza": "Multicabeza",
    "atencion-cruzada": "Atención cruzada",
    "cbam": "CBAM en imagen",
    "memoria": "Memoria O(L²)",
    "mascara-causal": "Máscara causal",
}  # el CBAM de la pestaña «CBAM en imagen»: 32 mapas de 8 × 8

EXPLICACION = r"""
Todas las variantes de la tabla calculan pesos y mezclan con ellos; cambian **de dónde salen** las consultas
$Q$, las claves $K$ y los valores $V$, y **qué casillas** de la matriz se calculan. La autoatención, la cruzada y
la dispersa son $\mathrm{softmax}(Q K^\top / \sqrt{d})\, V$; las de canal y espacial no comparan $Q$ con $K$: un
MLP o una convolución dan un peso de 0 a 1 por canal o por píxel ($\sigma$, no suman 1). Abajo, la atención
**dispersa** como máscaras: con una ventana centrada de $w$ ($w/2$ vecinas a cada lado, y la ficha misma), $g$
fichas globales y $r$ bloques al azar de $b$ fichas, una fila calcula en promedio $\approx w + 1 + 2g + r \cdot b$
casillas en vez de $L$ (las $g$ filas globales calculan las $L$; las demás, $g$ columnas globales), y la memoria
pasa de $O(L^2)$ a $O(L)$.
"""


def validar(L, w, g, r, semilla) -> tuple[int, int, int, int, int]:
    L = entero(L, "El largo L", 4, L_MAX)
    return (
        L,
        entero(w, "La ventana centrada w", 0, L_MAX),  # mayor que L: la ventana cubre la fila entera
        entero(g, "Las fichas globales g", 0, min(GLOBALES_MAX, L)),
        entero(r, "Los bloques al azar r", 0, AZAR_MAX),
        entero(semilla, "La semilla", 0, SEMILLA_MAX),
    )


@lru_cache(maxsize=1)
def compuertas_cbam() -> tuple[int, int]:
    """(pesos de canal, pesos espaciales) que da un CBAM de 32 canales sobre mapas de 8 × 8, contados al correrlo."""
    with torch.inference_mode():
        _, w, m = CBAM(CANALES, 8).eval()(torch.zeros(1, CANALES, LADO, LADO))
    return w.numel(), m.numel()


def mascaras(L: int, w: int, g: int, r: int, semilla: int) -> dict[str, torch.Tensor]:
    """Las máscaras (L, L), True donde NO se calcula, en el orden de la figura."""
    return {
        "completa": torch.zeros(L, L, dtype=torch.bool),
        "causal": dispersa.ventana(L, L),  # w = L: todas las anteriores
        f"ventana centrada (w = {w}: {w // 2} a cada lado)": dispersa.ventana(L, w, centrada=True),
        f"{g} {'ficha global' if g == 1 else 'fichas globales'}": dispersa.globales(L, g),
        f"{r} {'bloque' if r == 1 else 'bloques'} al azar por fila": dispersa.aleatoria(L, BLOQUE, r, semilla),
        "BigBird: ventana ∪ globales ∪ azar": dispersa.bigbird(L, w, g, BLOQUE, r, semilla),
    }


@lru_cache(maxsize=1)
def lado_longformer() -> int:
    """Cuántas fichas mira a cada lado una fila del medio con la ventana centrada de Longformer (w = 512)."""
    fila = (~dispersa.ventana(2 * LONGFORMER + 1, LONGFORMER, centrada=True))[LONGFORMER]  # la fila del medio
    return int(fila.nonzero().max()) - LONGFORMER


@lru_cache(maxsize=64)
def casillas_grandes(w: int, g: int, r: int, semilla: int) -> tuple[int, int]:
    """(casillas de BigBird, de la matriz entera) con L = L_GRANDE y bloques de 64, como en el artículo."""
    with un_hilo():  # vectores de L_GRANDE: con más hilos en una máquina ocupada, solo se estorban
        return dispersa.casillas_bigbird(L_GRANDE, w, g, 64, r, semilla), L_GRANDE**2


def _figura(m: dict[str, torch.Tensor], L: int) -> Paneles:
    paneles, columnas = [], 3
    for k, (nombre, tapada) in enumerate(m.items()):
        n = int((~tapada).sum())
        paneles.append(
            Mapa(
                np.ones((L, L)),
                titulo=f"{nombre}\n{miles(n)} de {miles(L * L)} casillas ({por_ciento(n / (L * L), 0)})",
                eje_x="Ficha que se mira (K)" if k + columnas >= len(m) else "",  # solo la fila de abajo
                eje_y="Ficha que mira (Q)" if k % columnas == 0 else "",
                tapada=tapada.numpy(),
                leyenda_tapada="casilla que no se calcula",
                numeros=False,
                barra=None,
                pista="la ficha {y} mira a la {x}",
                cuadrado=True,
            )
        )
    titulo = f"Qué casillas de la matriz {L} × {L} se calculan"
    # 250 px por fila: entra en 1280 × 800 también con la predicción sin revelar encima.
    return Paneles(tuple(paneles), columnas=columnas, titulo=titulo, alto_fila=250)


def enlace(id_: str, texto: str = "") -> str:
    """Un enlace en Markdown a otra pestaña de la suite (`/?tab=<id>`), con su título del registro si no hay texto."""
    return f"[{texto or TITULOS[id_]}](/?tab={id_})"


def tabla(m: dict[str, torch.Tensor], L: int) -> list[list[str]]:
    """La tabla del §6.2 con un número calculado por fila y la pestaña que la muestra."""
    canal, espacial = compuertas_cbam()
    dispersas = int((~m["BigBird: ventana ∪ globales ∪ azar"]).sum())
    return [
        [
            "Autoatención",
            "la secuencia",
            "la misma secuencia",
            "que cada ficha mire a todas las de su frase",
            f"{miles(L * L)} pesos (L²)",
            enlace("multicabeza"),
        ],
        [
            "Cruzada",
            "la secuencia objetivo",
            "la secuencia fuente",
            "traducir: lo que se escribe consulta lo que se lee",
            "L_obj × L_fuente: no es cuadrada",
            enlace("atencion-cruzada"),
        ],
        [
            "Canal (SE, CBAM)",
            "el resumen de cada canal: media sobre las posiciones (y también máximo en el CBAM del artículo y en "
            "el de esta suite; el código del tutorial, §4.3, solo usa la media)",
            "no hay K: V es el canal mismo, que se multiplica por su peso",
            "qué canales (rasgos) importan",
            f"{canal} pesos, uno por canal (σ)",
            enlace("cbam"),
        ],
        [
            "Espacial (CBAM)",
            "media y máximo sobre los canales en cada píxel",
            "no hay K: una convolución 7 × 7 mezcla los vecinos; V es el píxel",
            "qué posiciones de la imagen importan",
            f"{espacial} pesos, uno por píxel de 8 × 8 (σ)",
            enlace("cbam"),
        ],
        [
            "Dispersa (ventana, Longformer, BigBird)",
            "la secuencia",
            "solo algunas posiciones: la máscara",
            "secuencias largas: O(L) casillas en vez de O(L²)",
            f"{miles(dispersas)} de {miles(L * L)} (BigBird, L = {L})",
            f"{enlace('memoria')} (ventana), {enlace('mascara-causal')}",
        ],
    ]


COLUMNAS = ("Variante", "De dónde sale Q", "De dónde salen K y V", "Para qué", "Cuántos pesos", "Dónde verla")


def tabla_markdown(filas: list[list[str]]) -> str:
    """Las filas de `tabla` como una tabla de Markdown: se lee en un teléfono y sus enlaces se pulsan."""
    lineas = ["| " + " | ".join(COLUMNAS) + " |", "|" + "---|" * len(COLUMNAS)]
    return "\n".join(lineas + ["| " + " | ".join(f) + " |" for f in filas])


def calcular(L: float = 16, w: float = 4, g: float = 1, r: float = 1, semilla: float = 0):
    """La vista: (máscaras, tabla de variantes, texto)."""
    L, w, g, r, semilla = validar(L, w, g, r, semilla)
    m = mascaras(L, w, g, r, semilla)
    filas = dispersa.por_fila(m["BigBird: ventana ∪ globales ∪ azar"])
    n, total = casillas_grandes(w, g, r, semilla)
    globales = f" (las de {g} {'ficha global' if g == 1 else 'fichas globales'}, las {L})" if g else ""
    texto = (
        f"Con L = {L}, la máscara de BigBird calcula de {int(filas.min())} a {int(filas.max())} casillas por fila"
        f"{globales}. Por fila no crece con L: con L = {miles(L_GRANDE)} y bloques de 64, como en el artículo, "
        f"calcula **{miles(n)}** de {miles(total)} casillas (**{por_ciento(n / total)}**), ≈ {n / L_GRANDE:.0f} "
        f"por fila, cerca de w + 1 + 2g + 64·r = {w // 2 * 2 + 1 + 2 * g + 64 * r}. La ventana centrada es la de "
        "Longformer "
        f"({LONGFORMER}: {lado_longformer()} a cada lado); la causal, la de *Máscara causal*."
    )
    return _figura(m, L), tabla_markdown(tabla(m, L)), texto


# --- aprender: predecir (la respuesta la lee de los títulos de las máscaras que muestra `calcular`) ------


def _casillas(salida, nombre: str) -> int:
    """Las casillas que calcula la máscara `nombre` (el principio de su título: «74 de 256 casillas»)."""
    panel = next(p for p in salida[0].paneles if p.titulo.startswith(nombre))
    return int(re.sub(r"\D", "", panel.titulo.split("\n")[1].split(" de ")[0]))


def _al_doblar_l(antes, despues) -> dict:
    """Cuántas veces crecen las casillas de la ventana centrada (y las de la completa) al pasar de L a 2L."""
    v0, v1 = _casillas(antes, "ventana centrada"), _casillas(despues, "ventana centrada")
    c0, c1 = _casillas(antes, "completa"), _casillas(despues, "completa")
    veces = v1 / v0
    que = "igual" if veces < 1.3 else "doble" if veces < 3 else "cuadruple"
    return {
        "respuesta": que,
        "v0": miles(v0),
        "v1": miles(v1),
        "c0": miles(c0),
        "c1": miles(c1),
        "veces": f"{veces:.1f}",
        "veces_completa": f"{c1 / c0:.0f}",
    }


L_PREDICCION = 32

APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        f"La ventana centrada (w = 4: cada palabra mira a las w/2 de cada lado y a sí misma) con L = 16: si pasas a "
        f"L = {L_PREDICCION}, las casillas que calcula…",
        verdad=ap.EnLaPestana(calcular, _al_doblar_l, cambio={"L": L_PREDICCION}),
        opciones=(
            ap.Alternativa(
                "igual",
                "quedan casi iguales",
                "Lo que no cambia es lo que calcula cada fila (w + 1 casillas); con el doble de filas, el total "
                "va de {v0} a {v1}.",
            ),
            ap.Alternativa(
                "doble",
                "se duplican, más o menos",
                "Cada fila calcula a lo sumo w + 1 casillas, así que el total crece como L: de {v0} a {v1}.",
            ),
            ap.Alternativa(
                "cuadruple",
                "se cuadruplican, como la completa",
                "La completa sí se cuadruplica ({c0} → {c1}), porque cada fila crece con L; la ventana no: de {v0} "
                "a {v1}.",
            ),
        ),
        porque="De {v0} a {v1} casillas: {veces} veces. La completa pasa de {c0} a {c1} ({veces_completa} veces): "
        "la ventana crece como L y la completa como L².",
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        L = Deslizador(4, L_MAX, value=16, step=1, label="Largo L (fichas)")
        w = Deslizador(0, L_MAX, value=4, step=2, label="Ventana centrada w")
        g = Deslizador(0, GLOBALES_MAX, value=1, step=1, label="Fichas globales g")
        r = Deslizador(0, AZAR_MAX, value=1, step=1, label="Bloques al azar r")
        semilla = Numero(0, precision=0, minimum=0, maximum=SEMILLA_MAX, label="Semilla")
    figura = grafico("Máscaras de atención dispersa")
    gr.Markdown("### Variantes de la atención (tutorial §6.2)")
    tabla_ = gr.Markdown(elem_classes=["tabla-variantes"])
    texto = gr.Markdown()
    seccion_glosario(("consulta, clave y valor", "pesos", "máscara", "ventana w", "ficha"), "variantes")
    servido(L, "cambia la forma de cada máscara: 61 paradas, 4.5 MB")
    servido(r, "5 paradas, 48 kB: con las de w (118 kB) y g (49 kB) pasarían de los 200 kB")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[L, w, g, r, semilla],
        salidas=[figura, tabla_, texto],
        url={"L": L, "w": w, "g": g, "r": r, "semilla": semilla},
        ejemplo={"g": "2"},  # cambia tres máscaras sin agrandar la figura
        # L cambia el tamaño de cada máscara (61 formas, 4.5 MB): queda en el servidor, como r (pasaría de 200 kB).
        barridos=(Barrido(w), Barrido(g)),
    )
