"""Atención cruzada: las palabras de una frase objetivo miran las de una frase fuente (como al traducir)."""

from __future__ import annotations

import math

import gradio as gr
import numpy as np

from demos.atencion_cruzada.cuello import seccion as seccion_cuello
from demos.atencion_cruzada.frases import (
    AL_AZAR,
    CABEZAS,
    D_MODELO,
    IDENTIDAD,
    MAX_TEXTO,
    SEMILLA_MAX,
    crear_capa,
    leer_frase,
    pesos_cruzados,
    vector_palabra,
    vectores,
)
from demos.comun import aprender as ap
from demos.comun.controles import Numero, Opcion
from demos.comun.figuras import Mapa, Paneles
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.seguridad import escapar_md
from demos.comun.validar import entero
from demos.comun.vista import Barrido, Vista, envolver, explicacion, grafico, un_reloj

__all__ = ["AL_AZAR", "CABEZAS", "D_MODELO", "crear_capa", "pesos_cruzados", "vector_palabra", "vectores"]

OBJETIVO, FUENTE = "Ana took money from the bank", "Ana sacó plata del banco"
EJEMPLOS = [
    [OBJETIVO, FUENTE],
    ["the central station", "la estación central"],
    ["the information is important", "la información es importante"],
]

EXPLICACION = r"""
En la **autoatención** una frase se mira a sí misma: Q, K y V salen de la misma secuencia y los
pesos forman una matriz cuadrada. En la **atención cruzada** las consultas Q salen de una
secuencia (la frase *objetivo*, la que un traductor va escribiendo) y las claves K y los valores V
de otra (la frase *fuente*, la que se traduce). Los pesos son una matriz de
$L_\text{objetivo} \times L_\text{fuente}$, que casi nunca es cuadrada; cada fila sigue sumando 1. Con $h$
cabezas, cada una compara su trozo de $d/h$ columnas:

$$\text{pesos} = \text{softmax}\!\left(\frac{Q_\text{objetivo}\, K_\text{fuente}^\top}{\sqrt{d/h}}\right)$$
"""

HONESTIDAD = (
    "**Esto no es un traductor entrenado.** Cada palabra recibe un vector al azar armado con sus trozos "
    "de tres letras, sin tildes (la misma palabra da siempre el mismo vector), así que dos palabras se parecen solo "
    "si se **escriben** parecido: «bank» y «banco» comparten «ban», pero «money» y «plata» no comparten "
    "nada. Los pesos muestran la mecánica de la atención, no una alineación aprendida: un modelo "
    "entrenado aprende vectores en que «money» y «plata» sí se parecen."
)

SIN_ENTRENAR = "Sin entrenar: pesa lo que se escribe parecido; mira la forma, no la alineación"


# --- validar ----------------------------------------------------------------------------------


def validar(objetivo, fuente, proyecciones, semilla) -> tuple[list[str], list[str], str, int]:
    objetivo, fuente = leer_frase(objetivo, "objetivo"), leer_frase(fuente, "fuente")
    if proyecciones not in (IDENTIDAD, AL_AZAR):
        raise ValueError(f"Las proyecciones deben ser «{IDENTIDAD}» o «{AL_AZAR}».")
    return objetivo, fuente, proyecciones, entero(semilla, "La semilla", 0, SEMILLA_MAX)


# --- figuras y texto --------------------------------------------------------------------------


def _vmax(pesos: np.ndarray) -> float:
    """La escala de color va de 0 al peso más alto: sin entrenar, los pesos suelen ser casi parejos."""
    return max(float(pesos.max()), 1e-6)


def _mapa(pesos: np.ndarray, objetivo, fuente, vmax: float, x=None, y=None, **kw) -> Mapa:
    """Filas: las palabras del objetivo (Q); columnas: las de la fuente (K, V).

    x, y: lo que se escribe en cada eje, si no son todas las palabras; la pista de cada casilla
    dice siempre sus dos palabras.
    """
    return Mapa(
        pesos,
        x=x or tuple(fuente),
        y=y or tuple(objetivo),
        nombres_x=tuple(fuente),
        nombres_y=tuple(objetivo),
        vmin=0.0,
        vmax=vmax,
        pista="«{y}» mira a «{x}»: {v}",
        **kw,
    )


def _figura_promedio(pesos: np.ndarray, objetivo, fuente) -> Mapa:
    Lo, Lf = len(objetivo), len(fuente)
    return _mapa(
        pesos.mean(axis=0),
        objetivo,
        fuente,
        _vmax(pesos),
        titulo=f"Pesos {Lo} × {Lf} (L_objetivo × L_fuente), promedio de las {CABEZAS} cabezas\n{SIN_ENTRENAR}",
        eje_x="Fuente: palabra que se mira (clave, K y V)",
        eje_y="Objetivo: palabra que mira (consulta, Q)",
    )


def _una_de_cada(palabras, maximo: int) -> tuple[str, ...]:
    """Con muchas palabras, solo una de cada tantas se escribe en el eje (para que se lean)."""
    paso = math.ceil(len(palabras) / maximo)
    return tuple(p if i % paso == 0 else "" for i, p in enumerate(palabras))


def _figura_cabezas(pesos: np.ndarray, objetivo, fuente) -> Paneles:
    """Una cabeza por panel, con la misma escala de color (una sola barra); las filas, rotuladas en el primero."""
    vmax = _vmax(pesos)
    x, y = _una_de_cada(fuente, 8), _una_de_cada(objetivo, 16)
    cabezas = tuple(
        _mapa(
            np.round(pesos[k], 3),  # sin números en las casillas: 3 cifras, las de la pista, y la respuesta pesa menos
            objetivo,
            fuente,
            vmax,
            x=x,
            y=y if k == 0 else ("",) * len(objetivo),
            titulo=f"Cabeza {k + 1}",
            eje_x="Fuente (K, V)",
            eje_y="Objetivo (Q)" if k == 0 else "",
            numeros=False,
        )
        for k in range(CABEZAS)
    )
    return Paneles(
        cabezas, columnas=CABEZAS, titulo=SIN_ENTRENAR, alto_fila=int(np.clip(160 + 14 * len(objetivo), 300, 600))
    )


def _resumen(pesos: np.ndarray, objetivo, fuente, proyecciones: str) -> str:
    Lo, Lf = len(objetivo), len(fuente)
    promedio = pesos.mean(axis=0)
    mayores = promedio.argmax(axis=1)  # (Lo,): la palabra de la fuente con más peso, por fila
    miradas = [
        f"«{escapar_md(o)}» → «{escapar_md(fuente[j])}» ({promedio[i, j]:.2f})"
        for i, (o, j) in enumerate(zip(objetivo, mayores, strict=True))
    ]
    if len(miradas) > 12:
        miradas = [*miradas[:12], "…"]
    forma = (
        f"**Formas:** Q sale del objetivo, (1, {Lo}, {D_MODELO}); K y V de la fuente, (1, {Lf}, {D_MODELO}). "
        f"Los pesos son (1, {CABEZAS}, {Lo}, {Lf}): **{Lo} filas** (una por palabra que mira) × "
        f"**{Lf} columnas** (una por palabra que se mira)"
        + (": esta vez es cuadrada, pero solo porque las frases tienen el mismo largo." if Lo == Lf else ".")
        + f" Parejos serían 1/{Lf} = {1 / Lf:.2f} por casilla."
    )
    modo = (
        "Con W = identidad, cada cabeza compara un trozo de "
        f"{D_MODELO // CABEZAS} números de los vectores tal cual: pesa más la palabra que se escribe parecido."
        if proyecciones == IDENTIDAD
        else "Con una capa al azar recién creada, Q y K son proyecciones sin sentido: los pesos salen casi parejos."
    )
    return (
        f"{forma}\n\n{HONESTIDAD}\n\n**A quién mira más cada palabra** (con estos vectores sin entrenar: "
        f"no es una alineación de traducción): {', '.join(miradas)}.\n\n{modo}"
    )


def calcular(objetivo: str = OBJETIVO, fuente: str = FUENTE, proyecciones: str = IDENTIDAD, semilla: float = 0):
    """La vista: (figura del promedio, figura por cabeza, texto)."""
    objetivo, fuente, proyecciones, semilla = validar(objetivo, fuente, proyecciones, semilla)
    pesos = pesos_cruzados(objetivo, fuente, proyecciones, semilla)  # (cabezas, Lo, Lf)
    return (
        _figura_promedio(pesos, objetivo, fuente),
        _figura_cabezas(pesos, objetivo, fuente),
        _resumen(pesos, objetivo, fuente, proyecciones),
    )


# --- aprender: predecir (la respuesta la lee de la figura que muestra `calcular`) ------------------------


def _forma(salida) -> dict:
    """Filas × columnas del mapa de pesos (promedio de las cabezas) de la vista."""
    filas, columnas = salida[0].matriz.shape  # (L_objetivo, L_fuente)
    cuadrada = (
        "La matriz no es cuadrada."
        if filas != columnas
        else "Sale cuadrada solo porque las dos frases tienen el mismo largo."
    )
    return {"respuesta": f"{filas}x{columnas}", "filas": filas, "columnas": columnas, "cuadrada": cuadrada}


_LO, _LF = len(OBJETIVO.split()), len(FUENTE.split())

APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        f"La frase objetivo, «{OBJETIVO}», tiene {_LO} palabras y la fuente, «{FUENTE}», {_LF}. Las consultas "
        "salen del objetivo y las claves de la fuente: ¿qué forma tiene la matriz de pesos?",
        verdad=ap.EnLaPestana(calcular, _forma),
        opciones=(
            ap.Alternativa(
                f"{_LO}x{_LF}",
                f"{_LO} × {_LF}",
                "Una fila por consulta (cada palabra del objetivo) y una columna por clave (cada palabra de la "
                "fuente).",
            ),
            ap.Alternativa(
                f"{_LF}x{_LO}",
                f"{_LF} × {_LO}",
                "Las filas son las consultas, y las consultas salen del objetivo: van primero sus {filas} palabras.",
            ),
            ap.Alternativa(
                f"{_LO}x{_LO}",
                f"{_LO} × {_LO}",
                "Cuadrada sería en la autoatención, donde consultas y claves salen de la misma frase; aquí las "
                "claves son las {columnas} palabras de la fuente.",
            ),
            ap.Alternativa(
                f"{_LO + _LF}x{_LO + _LF}",
                f"{_LO + _LF} × {_LO + _LF} (las dos frases juntas)",
                "Las frases no se juntan: una da las consultas y la otra las claves, así que son {filas} filas y "
                "{columnas} columnas.",
            ),
        ),
        porque="Es {filas} × {columnas}: cada palabra del objetivo mira a cada palabra de la fuente, y cada fila "
        "de pesos suma 1 sobre la fuente. {cuadrada}",
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        objetivo = gr.Textbox(OBJETIVO, label="Frase objetivo (pregunta: Q)", max_length=MAX_TEXTO)
        fuente = gr.Textbox(FUENTE, label="Frase fuente (se mira: K y V)", max_length=MAX_TEXTO)
    promedio = grafico("Pesos objetivo × fuente, promedio de las cabezas")
    with gr.Row():
        proyecciones = Opcion(
            [("Identidad: compara los vectores tal cual", IDENTIDAD), ("Al azar: capa recién creada", AL_AZAR)],
            value=IDENTIDAD,
            label="Proyecciones W_Q, W_K, W_V",
            scale=3,
        )
        semilla = Numero(0, precision=0, minimum=0, maximum=SEMILLA_MAX, label="Semilla (vectores y capa)", scale=1)
    ejemplos = gr.Examples(EJEMPLOS, inputs=[objetivo, fuente], label="Pares de ejemplo", api_visibility="private")
    texto = gr.Markdown()
    cabezas = grafico("Pesos de cada cabeza")
    seccion_cuello(texto, objetivo, fuente, semilla)
    entradas, salidas = [objetivo, fuente, proyecciones, semilla], [promedio, cabezas, texto]
    # Un ejemplo solo llena las frases; esto recalcula la vista con ellas.
    ejemplos.load_input_event.then(
        envolver(calcular),
        inputs=entradas,
        outputs=salidas,
        api_visibility="private",
        **un_reloj(salidas),
    )
    seccion_glosario(
        ("consulta, clave y valor", "palabra que mira", "pesos", "cabeza", "parámetros"), "atencion-cruzada"
    )
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=entradas,
        salidas=salidas,
        url={"objetivo": objetivo, "fuente": fuente, "proyecciones": proyecciones, "semilla": semilla},
        ejemplo={"objetivo": "the central station"},
        barridos=(Barrido(proyecciones),),
    )
