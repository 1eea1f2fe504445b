"""Máscaras de atención: de los puntajes Q·Kᵀ/√d a los pesos, con casillas tapadas como −∞."""

from __future__ import annotations

import math
import re

import gradio as gr
import numpy as np
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Numero, Opcion
from demos.comun.figuras import MAX_NUMEROS, Mapa, Paneles
from demos.comun.glosario import seccion
from demos.comun.seguridad import escapar_md
from demos.comun.validar import entero as _entero
from demos.comun.validar import lista_de_palabras
from demos.comun.vista import Barrido, Vista, explicacion, grafico
from demos.mascara_causal.convenciones import construir_convenciones, resumen_fila_tapada
from modelos import atencion, mascara_causal
from modelos.hilos import un_hilo

FRASE = "Ana sacó plata del banco"
D = 8  # largo de los vectores de consulta y clave, como en la lección
MAX_PALABRAS, MAX_LARGO_PALABRA, MAX_TEXTO = 32, 30, 1000
SEMILLA_MAX = 2**31 - 1
TIPOS = {
    "causal": "Causal (no mira el futuro)",
    "relleno": "Relleno al final (k palabras)",
    "ninguna": "Ninguna (todas con todas)",
    "ventana": "Ventana causal (w anteriores)",
}

EXPLICACION = r"""
Una máscara tapa casillas de la matriz de puntajes **antes** del softmax: se les pone $-\infty$, y como
$e^{-\infty} = 0$, su peso queda en 0 exacto mientras el resto de la fila se reparte el 1 completo.

$$\text{pesos} = \text{softmax}\!\left(\frac{Q K^\top}{\sqrt{d}} + M\right), \qquad
M_{ij} = \begin{cases} 0 & \text{si la palabra } i \text{ puede mirar a la } j \\ -\infty & \text{si no} \end{cases}$$

La **causal** deja que cada palabra mire solo a las anteriores y a sí misma (así se entrena un modelo que genera
texto: no puede espiar la palabra que debe adivinar). La de **relleno** tapa las columnas de las palabras de
relleno que se añaden para igualar el largo de las frases de un lote. La de **ventana causal** deja mirar solo a
las $w$ palabras anteriores y a sí misma. $Q$ y $K$ son vectores al azar de largo $d = 8$, como en la lección.
"""


# --- validación ----------------------------------------------------------------------------------


def leer_frase(frase) -> list[str]:
    """«Ana sacó plata del banco» -> ["Ana", "sacó", "plata", "del", "banco"] (separadas por espacios)."""
    return lista_de_palabras(
        frase,
        "una frase",
        separador="espacio",
        max_palabras=MAX_PALABRAS,
        max_letras=MAX_LARGO_PALABRA,
        max_texto=MAX_TEXTO,
    )


def _tipo(tipo) -> str:
    if not isinstance(tipo, str) or tipo not in TIPOS:
        raise ValueError("El tipo de máscara debe ser uno de: " + ", ".join(TIPOS) + ".")
    return tipo


# --- cálculo -------------------------------------------------------------------------------------


def hacer_mascara(tipo: str, L: int, k: int = 0, w: int = 1) -> torch.Tensor | None:
    """Máscara booleana (L, L), True donde la palabra de la fila NO mira a la de la columna; None si no hay.

    relleno: las últimas k palabras son relleno; se tapan sus columnas en todas las filas.
    ventana: la palabra i mira a las j con i − w ≤ j ≤ i (las w anteriores y ella misma).
    """
    if tipo == "ninguna":
        return None
    if tipo == "causal":
        return mascara_causal(L)
    if tipo == "relleno":
        mascara = torch.zeros(L, L, dtype=torch.bool)
        mascara[:, L - k :] = k > 0  # con k = 0, L - 0 = L: ninguna columna
        return mascara
    i = torch.arange(L).unsqueeze(1)  # (L, 1)
    j = torch.arange(L).unsqueeze(0)  # (1, L)
    return (j > i) | (j < i - w)  # (L, L)


def consultas_y_claves(L: int, semilla: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Q y K al azar (L, D) como en la lección, con un generador propio y no el global de torch."""
    g = torch.Generator().manual_seed(semilla)
    q = torch.randn(L, D, generator=g)  # (L, D)
    k = torch.randn(L, D, generator=g)  # (L, D)
    return q, k


def tuberia(L: int, semilla: int, mascara: torch.Tensor | None) -> dict[str, np.ndarray]:
    """Los pasos: puntajes Q·Kᵀ/√d (L, L), los mismos con −∞ en lo tapado, y los pesos del softmax (L, L)."""
    q, k = consultas_y_claves(L, semilla)
    puntajes = q @ k.T / math.sqrt(D)  # (L, L)
    tapados = puntajes if mascara is None else puntajes.masked_fill(mascara, float("-inf"))
    _, pesos = atencion(q, k, k, mascara)  # V = K, como en la lección
    return {"puntajes": puntajes.numpy(), "tapados": tapados.numpy(), "pesos": pesos.numpy()}


# --- figuras -------------------------------------------------------------------------------------

ALTO_FILA, ALTO_FILA_LARGA = 400, 680  # píxeles de pantalla; con más de MAX_NUMEROS palabras, filas más altas
GRIS_SUMA = 16  # la columna de sumas va en grises de 0 a 16: una suma de 1 queda gris muy claro, no parece un peso


def _etiquetas(palabras: list[str], relleno: int) -> tuple[str, ...]:
    """Las palabras de los ejes y de la pista: las de relleno van entre corchetes, como [PAD]."""
    reales = len(palabras) - relleno
    return tuple(p if i < reales else f"[{p}]" for i, p in enumerate(palabras))


def _a_la_vista(m: np.ndarray) -> np.ndarray:
    """Con más de MAX_NUMEROS palabras no hay números en las casillas y la pista da 3 decimales: mandar
    más no se ve y pesa (32 × 32 casillas en 3 mapas: ≈ 9 kB menos)."""
    return m if max(m.shape) <= MAX_NUMEROS else np.round(m, 3)


def _leyenda(relleno: int, que: str) -> str:
    """La leyenda de las casillas tapadas (Plotly le añade «(−∞)» si las casillas lo dicen)."""
    return f"{que}; el relleno va entre [ ]" if relleno else que


def _figura_tuberia(pasos, palabras, tapada: np.ndarray, relleno: int) -> Paneles:
    """Los puntajes y los mismos con −∞ en las tapadas, con una sola escala de color."""
    L = len(palabras)
    ejes = _etiquetas(palabras, relleno)
    comun = {
        "x": ejes,
        "eje_x": "Palabra que se mira",
        "vmin": float(pasos["puntajes"].min()),
        "vmax": float(pasos["puntajes"].max()),
        "formato": ".2f" if L <= 8 else ".1f",
        "barra": "Puntaje",
        "pista": "«{y}» mira a «{x}»: puntaje {v}",
    }
    puntajes = Mapa(
        _a_la_vista(pasos["puntajes"]), y=ejes, titulo="1) Puntajes Q·Kᵀ/√d", eje_y="Palabra que mira", **comun
    )
    tapados = Mapa(
        _a_la_vista(pasos["tapados"]),
        y=("",) * L,  # las filas ya tienen nombre a la izquierda; la pista sí dice la palabra
        nombres_y=ejes,
        titulo="2) Con la máscara: tapadas = −∞",
        tapada=tapada,
        texto_tapada="−∞",
        leyenda_tapada=_leyenda(relleno, "tapada antes del softmax"),
        **comun,
    )
    return Paneles((puntajes, tapados), columnas=2, alto_fila=ALTO_FILA if L <= MAX_NUMEROS else ALTO_FILA_LARGA)


def _figura_pesos(pesos, palabras, tapada: np.ndarray, relleno: int, titulo: str) -> Paneles:
    """Los pesos y, en una columna gris aparte, la suma de cada fila (1: el softmax reparte todo el peso)."""
    L = len(palabras)
    ejes = _etiquetas(palabras, relleno)
    mapa = Mapa(
        _a_la_vista(pesos),
        x=ejes,
        y=ejes,
        eje_x="Palabra que se mira",
        eje_y="Palabra que mira",
        tapada=tapada,
        leyenda_tapada=_leyenda(relleno, "tapada: peso 0 exacto"),
        barra="Peso" if L > MAX_NUMEROS else None,  # sin números en las casillas, hace falta la escala
        pista="«{y}» mira a «{x}»: peso {v}",
    )
    sumas = Mapa(
        pesos.sum(axis=1, keepdims=True),  # (L, 1)
        x=("Σ fila",),
        y=("",) * L,
        nombres_y=ejes,
        numeros=True,  # también con 32 filas: es lo que la columna quiere decir
        vmin=0,
        vmax=GRIS_SUMA,
        colores="grises",
        barra=None,
        pista="la fila de «{y}» suma {v}",
    )
    return Paneles(
        (mapa, sumas),
        columnas=2,
        titulo=f"3) Pesos = softmax de cada fila, {titulo}",
        anchos=(L, max(1.2, L / 12)),
        alto_fila=ALTO_FILA if L <= MAX_NUMEROS else ALTO_FILA_LARGA,
    )


# --- la vista ------------------------------------------------------------------------------------

NOMBRES = {"causal": "causal", "relleno": "de relleno", "ninguna": "ninguna", "ventana": "de ventana"}


def _descripcion(tipo: str, palabras: list[str], k: int, w: int) -> str:
    L = len(palabras)
    if tipo == "causal":
        return (
            "Con la máscara causal, la palabra n.º i mira a las palabras 1 … i: "
            f"«{escapar_md(palabras[0])}» solo se ve a sí misma."
        )
    if tipo == "relleno":
        reales = ", ".join(f"«{escapar_md(p)}»" for p in palabras[: L - k][:6]) + (", …" if L - k > 6 else "")
        return (
            ("La última palabra hace" if k == 1 else f"Las últimas {k} palabras hacen")
            + " de relleno: sus columnas se tapan en todas las filas. "
            + f"Cada fila, también la de una palabra de relleno, reparte su peso entre las palabras reales ({reales})."
        )
    if tipo == "ventana":
        return (
            f"Con una ventana causal de w = {w}, la palabra n.º i mira a las palabras i − {w} … i "
            f"(las {w} anteriores y ella misma); lo que queda más atrás o en el futuro se tapa."
        )
    return "Sin máscara, cada palabra mira a todas, también a las que vienen después."


def calcular(frase: str = FRASE, tipo: str = "causal", k: float = 2, w: float = 2, semilla: float = 1):
    """La vista: (figura de puntajes y puntajes tapados, figura de los pesos, texto)."""
    palabras = leer_frase(frase)
    L = len(palabras)
    tipo = _tipo(tipo)
    k = _entero(k, "El número de palabras de relleno k", 1, MAX_PALABRAS - 1)
    w = _entero(w, "El ancho de la ventana causal w", 1, MAX_PALABRAS - 1)
    semilla = _entero(semilla, "La semilla", 0, SEMILLA_MAX)
    if tipo == "relleno" and k >= L:
        raise ValueError(
            f"Con relleno, k debe ser menor que el número de palabras ({L}): "
            "tiene que quedar al menos una palabra real."
        )
    with un_hilo():  # matrices de a lo sumo 32 × 32: con más hilos de torch, cada softmax esperaba al otro ≈ 15 ms
        mascara = hacer_mascara(tipo, L, k, w)
        pasos = tuberia(L, semilla, mascara)
    tapada = np.zeros((L, L), dtype=bool) if mascara is None else mascara.numpy()
    relleno = k if tipo == "relleno" else 0
    error = float(np.abs(pasos["pesos"].sum(axis=1) - 1).max())
    tapadas = int(tapada.sum())
    texto = (
        f"{_descripcion(tipo, palabras, k, w)}\n\n"
        f"Tapadas: **{tapadas} de {L * L}** casillas. Cada fila de los pesos suma 1 "
        f"({'exacto' if error == 0 else f'a {error:.0e} de 1: redondeo de float32'}): lo que pierden las tapadas "
        "se lo reparten las demás de la fila.\n\n"
        "Si una fila quedara con todas sus claves tapadas, el softmax daría 0/0, un número indefinido (NaN). "
        f"`modelos.atencion` deja esa fila en **ceros**; {resumen_fila_tapada()} (el acordeón de abajo lo calcula). "
        "Aquí no pasa: la causal y la ventana siempre dejan la diagonal, y el relleno deja al "
        "menos una palabra real."
    )
    return (
        _figura_tuberia(pasos, palabras, tapada, relleno),
        _figura_pesos(pasos["pesos"], palabras, tapada, relleno, f"máscara {NOMBRES[tipo]}"),
        texto,
    )


# k solo importa con relleno; w solo con ventana. En el navegador (`js=`): elegir la máscara no va a la cola.
JS_MOSTRAR_CONTROLES = """(tipo) => [
  {__type__: "update", visible: tipo === "relleno"},
  {__type__: "update", visible: tipo === "ventana"},
]"""


# --- aprender: predecir y comprobarse (las respuestas las lee de lo que muestra `calcular`) ----------


def _peso_primera(salida) -> float:
    """El peso de la primera palabra sobre sí misma en el mapa de pesos de la vista."""
    return float(salida[1].paneles[0].matriz[0, 0])


def _fila_tapada(salida) -> dict:
    """Lo que el texto de la vista dice que da `nn.MultiheadAttention` (need_weights=True) con una fila tapada."""
    da = re.search(r"`nn.MultiheadAttention` da \*\*(NaN|ceros)\*\*", salida[2]).group(1)
    return {"respuesta": "NaN" if da == "NaN" else "0"}


def _tapadas(salida) -> dict:
    tapadas, total = map(int, re.search(r"Tapadas: \*\*(\d+) de (\d+)\*\*", salida[2]).groups())
    return {"respuesta": tapadas, "L": math.isqrt(total)}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "Con la máscara causal, ¿cuánto pesa la primera palabra («Ana») sobre sí misma? (de 0 a 1)",
        verdad=ap.EnLaPestana(calcular, _peso_primera),
        porque="La primera palabra no tiene pasado: todas las demás casillas de su fila quedan en −∞, su peso es "
        "e^(−∞) = 0, y el softmax le da todo a la única que queda.",
    ),
    preguntas=(
        ap.Pregunta(
            "Una fila toda tapada con −∞ (una consulta que no puede mirar a nadie): ¿qué pesos da "
            "`nn.MultiheadAttention` si devuelve los pesos (`need_weights=True`, por omisión)?",
            (
                ap.Alternativa(
                    "NaN",
                    "NaN",
                    "La suma del softmax es 0 y queda 0/0. Con `need_weights=False` va por SDPA y da ceros, "
                    "y con −1e9 en vez de −∞ da pesos parejos, 1/L.",
                ),
                ap.Alternativa(
                    "0",
                    "ceros",
                    "Ceros da `nn.MultiheadAttention` con `need_weights=False` (va por SDPA), o "
                    "un código que lo cuida aparte, como `modelos.atencion`; el softmax con −∞ da 0/0 = NaN.",
                ),
                ap.Alternativa(
                    "1/L",
                    "pesos parejos, 1/L",
                    "Eso pasa con −1e9 en vez de −∞: todos los puntajes quedan "
                    "iguales. Con −∞ la suma del softmax es 0, y 0/0 = NaN.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _fila_tapada),
        ),
        ap.Pregunta(
            "¿Cuántas casillas tapa la máscara causal de «Ana sacó plata del banco»?",
            (
                ap.Alternativa(10, "10", "Las de arriba de la diagonal: L(L − 1)/2 = {respuesta} con L = {L}."),
                ap.Alternativa(
                    5,
                    "5",
                    "Eso es una por palabra. Se tapa todo lo de arriba de la diagonal: L(L − 1)/2 = {respuesta}.",
                ),
                ap.Alternativa(
                    20,
                    "20",
                    "L² − L = 20 son todas las de fuera de la diagonal, pero solo se tapa el futuro, la mitad: "
                    "{respuesta}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _tapadas),
            tipo=ap.CANTIDAD,
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        frase = gr.Textbox(FRASE, label=f"Frase (palabras separadas por espacios; hasta {MAX_PALABRAS})", scale=3)
        semilla = Numero(1, precision=0, minimum=0, maximum=SEMILLA_MAX, label="Semilla de Q y K", scale=1)
    tuberia_ = grafico("Puntajes Q·Kᵀ/√d, y los mismos con las casillas tapadas en −∞")
    with gr.Row():
        tipo = Opcion([(nombre, valor) for valor, nombre in TIPOS.items()], value="causal", label="Máscara", scale=2)
        k = Deslizador(1, MAX_PALABRAS - 1, value=2, step=1, visible=False, label="k: palabras de relleno al final")
        w = Deslizador(1, MAX_PALABRAS - 1, value=2, step=1, visible=False, label="w: palabras anteriores visibles")
    with gr.Row():
        pesos = grafico("Pesos después del softmax, con la suma de cada fila", scale=3)
        texto = gr.Markdown()
    tipo.change(None, tipo, [k, w], js=JS_MOSTRAR_CONTROLES, api_visibility="private", show_progress="hidden")
    construir_convenciones()  # True contra 1, −∞ contra −1e9 y la fila toda tapada: un acordeón debajo
    seccion(
        ("máscara", "relleno", "ventana w", "palabra que mira", "puntaje", "softmax", "pesos", "ficha"),
        "mascara-causal",
    )
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[frase, tipo, k, w, semilla],
        salidas=[tuberia_, pesos, texto],
        url={"frase": frase, "tipo": tipo, "k": k, "w": w, "semilla": semilla},
        ejemplo={"semilla": "2"},  # k y w empiezan ocultos: el ejemplo usa un control visible
        invalido={"semilla": "-5"},
        # k solo se ve con relleno y w con ventana: sus paradas, con esa máscara (siguen valiendo al elegirla).
        barridos=(Barrido(tipo), Barrido(k, con=((tipo, "relleno"),)), Barrido(w, con=((tipo, "ventana"),))),
    )
