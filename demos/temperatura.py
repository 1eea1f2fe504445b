"""Temperatura: softmax(s / T) reparte los pesos de una fila de puntajes, y muestrear con ellos."""

from __future__ import annotations

import math
import re

import gradio as gr
import numpy as np
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Numero
from demos.comun.figuras import C0, C1, Barras, Paneles, Referencia, Serie, miles
from demos.comun.glosario import seccion
from demos.comun.seguridad import escapar_md
from demos.comun.validar import entero, lista_de_numeros, lista_de_palabras, real
from demos.comun.vista import Barrido, Vista, explicacion, grafico, servido

PALABRAS = "plata, sacó, Ana, del"
PUNTAJES = "2, 1, 0.5, -1"
T_LECCION = (0.25, 0.5, 1.0, 4.0)
T_MIN, T_MAX = 0.05, 10.0
LOG_T_MIN, LOG_T_MAX = -1.3, 1.0  # el deslizador: log₁₀ T
PASO_LOG_T = 0.02  # 116 paradas que el navegador barre sin servidor (demos/comun/barrido.py)
MAX_PALABRAS, MAX_LARGO_PALABRA, MAX_TEXTO = 32, 30, 1200
MAX_PUNTAJE = 1000.0
NUMERO_DE_PALABRA = "Palabra n.º (el orden de la tabla)"
N_MAX, SEMILLA_MAX = 10_000, 2**31 - 1

EXPLICACION = r"""
La temperatura $T$ divide los puntajes antes del softmax. Con $T$ pequeña, la diferencia entre
puntajes se agranda y casi todo el peso va a la palabra con el puntaje más alto; con $T$ grande,
los pesos se igualan. $T = 1$ es el softmax de siempre:

$$p_i = \frac{e^{s_i / T}}{\sum_j e^{s_j / T}}$$

La **entropía** $H = -\sum_i p_i \log_2 p_i$ mide qué tan repartidos están los pesos: 0 bits si todo el
peso está en una palabra, $\log_2 n$ bits si los $n$ pesos son iguales.

La atención **no sortea nada**: usa todos los pesos a la vez para promediar los valores. Sacar muestras al
azar es lo que hace un modelo de lenguaje al elegir la **siguiente palabra**, con el softmax de su capa
de salida, y ahí la temperatura actúa igual. Abajo, ese sorteo muestra qué significa un peso como
probabilidad.
"""

PUENTE = (
    "Dividir los puntajes por √d (pestaña *¿Por qué √d?*) es usar una **temperatura T = √d**: "
    "sin esa división, con d grande los puntajes se comportan como si T fuera muy pequeña."
)


# --- validación ----------------------------------------------------------------------------------


def leer_palabras(texto) -> list[str]:
    """«plata, sacó, Ana, del» -> ["plata", "sacó", "Ana", "del"]."""
    return lista_de_palabras(
        texto,
        "las palabras",
        separador="coma",
        max_palabras=MAX_PALABRAS,
        max_letras=MAX_LARGO_PALABRA,
        max_texto=MAX_TEXTO,
    )


def leer_puntajes(texto) -> list[float]:
    """«2, 1, 0.5, -1» -> [2.0, 1.0, 0.5, -1.0]. Punto decimal; la coma separa números."""
    return lista_de_numeros(texto, "el puntaje", "puntajes", MAX_PALABRAS, MAX_PUNTAJE, MAX_TEXTO)


# --- cálculo -------------------------------------------------------------------------------------


def pesos(puntajes, T: float) -> np.ndarray:
    """softmax(s / T) de una fila de puntajes (n,) -> pesos (n,), que suman 1."""
    s = torch.as_tensor(puntajes, dtype=torch.float64)
    return torch.softmax(s / T, dim=0).numpy()


def entropia(p: np.ndarray) -> float:
    """Entropía en bits; los pesos cero no aportan (0 · log 0 = 0)."""
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def muestrear(p: np.ndarray, n: int, semilla: int) -> np.ndarray:
    """Saca `n` muestras con reemplazo según los pesos `p`; devuelve cuántas salieron de cada palabra (len(p),)."""
    g = torch.Generator().manual_seed(semilla)
    muestras = torch.multinomial(torch.as_tensor(p), n, replacement=True, generator=g)  # (n,)
    return torch.bincount(muestras, minlength=len(p)).numpy()


# --- figuras ---------------------------------------------------------------------------------------


def _eje_palabras(palabras: list[str]) -> tuple[tuple[str, ...], str]:
    """Las categorías del eje x: las palabras, o su número si son muchas o muy largas."""
    if len(palabras) <= 12 or max(len(p) for p in palabras) <= 6:
        return tuple(palabras), ""
    return tuple(str(i) for i in range(1, len(palabras) + 1)), NUMERO_DE_PALABRA


def _figura_barras(palabras, p, T) -> Barras:
    n = len(palabras)
    categorias, eje_x = _eje_palabras(palabras)
    return Barras(
        categorias,
        (Serie("peso", p),),
        titulo=f"softmax(s / T) con T = {T:g}   (entropía {entropia(p):.2f} bits)",
        eje_x=eje_x,
        eje_y="Peso",
        numeros=n <= 12,
        rango=(0, 1.1),
        referencias=(Referencia(1 / n, f"pesos parejos (1/{n}), T → ∞"),),
        pista="«{c}»: peso {v}",
    )


def panel_cercano(T: float) -> int:
    """El panel de la lección más cercano a T (en escala logarítmica): el que se resalta."""
    return min(range(len(T_LECCION)), key=lambda k: abs(math.log(T_LECCION[k] / T)))


def _figura_paneles(palabras, puntajes, T_elegida: float = 1.0) -> Paneles:
    """Los cuatro paneles de la lección: T = 0.25, 0.5, 1 y 4; el más cercano a la T elegida, en C1."""
    categorias, eje_x = _eje_palabras(palabras)
    cercano = panel_cercano(T_elegida)
    paneles = []
    for k, T in enumerate(T_LECCION):
        p = pesos(puntajes, T)
        marca = ""
        if k == cercano:
            marca = "  ◀ la T elegida" if math.isclose(T, T_elegida) else "  ◀ la más cercana"
        paneles.append(
            Barras(
                categorias,
                (Serie(f"T = {T:g}", p, color=C1 if k == cercano else C0),),
                titulo=f"T = {T:g}   ({entropia(p):.2f} bits){marca}",
                eje_x=eje_x,
                numeros=len(palabras) <= 6,
                rango=(0, 1.12),
                pista=f"«{{c}}» con T = {T:g}: peso {{v}}",
            )
        )
    return Paneles(tuple(paneles), columnas=2, compartir_y=True, alto_fila=250)


def _figura_muestreo(palabras, p, cuentas, T) -> Barras:
    n, N = len(palabras), int(cuentas.sum())
    categorias, eje_x = _eje_palabras(palabras)
    return Barras(
        categorias,
        (
            Serie("peso (probabilidad)", p, numeros=("",) * n),
            Serie(f"frecuencia (muestras / {miles(N)})", cuentas / N, color=C1, numeros=tuple(map(miles, cuentas))),
        ),
        titulo=f"{miles(N)} muestras con T = {T:g}",
        eje_x=eje_x,
        eje_y="Peso o frecuencia",
        numeros=n <= 12,
        rango=(0, 1.12),
        pista="«{c}», {s}: {v}",
    )


# --- la vista ------------------------------------------------------------------------------------


def calcular(palabras: str = PALABRAS, puntajes: str = PUNTAJES, T: float = 1.0, n: float = 1000, semilla: float = 0):
    """La vista: (barras a T, cuatro paneles de la lección, tabla de pesos, texto, figura del muestreo)."""
    lista = leer_palabras(palabras)
    s = leer_puntajes(puntajes)
    if len(lista) != len(s):
        raise ValueError(f"Hay {len(lista)} palabras y {len(s)} puntajes: debe haber un puntaje por palabra.")
    T = real(T, "La temperatura T", T_MIN, T_MAX)
    n = entero(n, "El número de muestras N", 1, N_MAX)
    semilla = entero(semilla, "La semilla", 0, SEMILLA_MAX)

    p = pesos(s, T)
    cuentas = muestrear(p, n, semilla)
    leccion = [pesos(s, t) for t in T_LECCION]
    tabla = [
        [palabra, s[i], round(float(p[i]), 2), int(cuentas[i]), *(round(float(q[i]), 2) for q in leccion)]
        for i, palabra in enumerate(lista)
    ]
    H, H_max = entropia(p), math.log2(len(lista))
    veces = int(cuentas[p.argmax()])
    texto = (
        f"Con T = {T:g}, la entropía es **{H:.2f} bits** (de 0 a log₂ {len(lista)} = {H_max:.2f}): los pesos "
        f"están tan repartidos como si se eligiera al azar entre **{2**H:.1f}** palabras parejas. "
        f"La palabra con más peso, «{escapar_md(lista[int(p.argmax())])}», se lleva {p.max():.2f}; "
        f"en {miles(n)} muestras salió {miles(veces)} {'vez' if veces == 1 else 'veces'}.\n\n{PUENTE}"
    )
    return (
        _figura_barras(lista, p, T),
        _figura_paneles(lista, s, T),
        tabla,
        texto,
        _figura_muestreo(lista, p, cuentas, T),
    )


def _t_desde_log(log_t) -> float:
    """El deslizador (log₁₀ T) -> T, con tres cifras."""
    return float(f"{10 ** float(log_t):.3g}")


def _log_desde_t(T, log_t):
    """Mueve el deslizador cuando T cambia por otro camino (escrito a mano o desde la URL)."""
    try:
        T, log_t = float(T), float(log_t)
    except (TypeError, ValueError):
        return gr.skip()
    if not T_MIN <= T <= T_MAX or abs(math.log10(T) - log_t) < 0.006:
        return gr.skip()  # ya coincide (el cambio vino del deslizador) o T no es válida
    return round(min(max(math.log10(T), LOG_T_MIN), LOG_T_MAX), 2)


def _siguiente_semilla(semilla) -> int:
    try:
        return (int(semilla) + 1) % (SEMILLA_MAX + 1)
    except (TypeError, ValueError, OverflowError):
        return 0


# Las dos de abajo, en el navegador (`js=`, sin evento en la cola): escribir T mueve el deslizador y el botón suma
# uno a la semilla. Del deslizador a T no hay fórmula en el navegador: cada parada trae su T, calculada por
# `_t_desde_log` (el Barrido). tests/test_velocidad.py compara cada una con su versión en Python.
JS_LOG_DESDE_T = f"""(T, log_t) => {{
  const t = Number(T), l = Number(log_t);
  if (!(t >= {T_MIN} && t <= {T_MAX}) || Math.abs(Math.log10(t) - l) < 0.006) return log_t;
  return Math.round(Math.min(Math.max(Math.log10(t), {LOG_T_MIN}), {LOG_T_MAX}) * 100) / 100;
}}"""
JS_SIGUIENTE_SEMILLA = f"""(semilla) => {{
  const s = semilla === null || semilla === "" ? NaN : Math.trunc(Number(semilla));
  return Number.isSafeInteger(s) ? (((s + 1) % {SEMILLA_MAX + 1}) + {SEMILLA_MAX + 1}) % {SEMILLA_MAX + 1} : 0;
}}"""


# --- aprender: predecir y comprobarse (las respuestas las calcula `pesos`) -------------------------


def _pesos_de(salida) -> list[float]:
    """Los pesos que dibuja la figura de barras de la vista."""
    return [float(x) for x in salida[0].series[0].valores]


def _entropia_de(salida) -> float:
    return float(re.search(r"la entropía es \*\*([\d.]+) bits\*\*", salida[3]).group(1))


def _verdad_025(salida) -> dict:
    p, tabla = _pesos_de(salida), salida[2]
    dif = (tabla[0][1] - tabla[1][1]) / T_PREDICCION  # la ventaja de «plata» sobre «sacó», ya dividida por T
    return {"respuesta": p, "veces": f"{p[0] / p[1]:.0f}", "dif": f"{dif:g}"}


def _con_t_grande(salida) -> dict:
    p = np.array(_pesos_de(salida))
    return {"respuesta": "parejos" if np.ptp(p) < 0.1 else "uno", "max": f"{p.max():.2f}", "min": f"{p.min():.2f}"}


def _sumar_cinco(antes, despues) -> dict:
    a, d = _entropia_de(antes), _entropia_de(despues)
    return {"respuesta": "igual" if a == d else ("sube" if d > a else "baja"), "H": f"{a:.2f}", "H5": f"{d:.2f}"}


T_PREDICCION = 0.25
MAS_CINCO = ", ".join(f"{x + 5:g}" for x in leer_puntajes(PUNTAJES))  # los puntajes de fábrica, cada uno + 5

APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        f"Con los puntajes 2, 1, 0.5 y −1, ¿cuánto pesa cada palabra a T = {T_PREDICCION:g}? Mueve las cuatro "
        "barras (los pesos suman 1: si tus barras no, se reparten en esa proporción).",
        verdad=ap.EnLaPestana(calcular, _verdad_025, cambio={"T": T_PREDICCION}),
        barras=tuple(leer_palabras(PALABRAS)),
        suman_uno=True,
        porque="Dividir por T = 0.25 multiplica por 4 las diferencias: «plata» le saca {dif} puntos a «sacó», y "
        "e elevado a esa ventaja le da unas {veces} veces más peso.",
    ),
    preguntas=(
        ap.Pregunta(
            f"Con los puntajes 2, 1, 0.5 y −1 y T = {T_MAX:g}, los cuatro pesos quedan…",
            (
                ap.Alternativa(
                    "parejos",
                    "casi parejos, cerca de 1/4",
                    "Dividir por una T grande achica las diferencias de puntaje: los pesos van de {min} a {max}.",
                ),
                ap.Alternativa(
                    "uno",
                    "casi todo en «plata»",
                    "Eso hace una T pequeña. Una T grande achica las diferencias: los pesos van de {min} a {max}.",
                ),
                ap.Alternativa(
                    "cero",
                    "todos cerca de 0",
                    "Los pesos siempre suman 1: no pueden quedar todos en 0. Van de {min} a {max}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _con_t_grande, cambio={"T": T_MAX}),
        ),
        ap.Pregunta(
            f"Si sumas 5 a los cuatro puntajes (escribe {MAS_CINCO}; T = 1), la entropía de los pesos…",
            (
                ap.Alternativa(
                    "igual",
                    "no cambia",
                    "El softmax solo ve diferencias: e^(s+5) = e^5 · e^s, y el e^5 se "
                    "cancela al dividir por la suma. Antes {H} bits, después {H5}.",
                ),
                ap.Alternativa(
                    "sube",
                    "sube",
                    "Sumar lo mismo a todos no cambia ninguna diferencia: el e^5 se cancela al "
                    "dividir por la suma. Antes {H} bits, después {H5}.",
                ),
                ap.Alternativa(
                    "baja",
                    "baja",
                    "Los puntajes más altos no concentran más el peso si todos suben igual: el "
                    "e^5 se cancela. Antes {H} bits, después {H5}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _sumar_cinco, cambio={"puntajes": MAS_CINCO}),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        log_t = Deslizador(
            LOG_T_MIN,
            LOG_T_MAX,
            value=0.0,
            step=PASO_LOG_T,
            scale=3,
            label="log₁₀ T  (−1.3 → T = 0.05;  0 → T = 1;  1 → T = 10)",
        )
        T = Numero(1.0, minimum=T_MIN, maximum=T_MAX, step=0.05, scale=1, label="Temperatura T (de 0.05 a 10)")
    with gr.Row():
        barras = grafico("Pesos a la temperatura elegida")
        paneles = grafico("Pesos con T = 0.25, 0.5, 1 y 4, como en la lección")
    with gr.Row():
        palabras = gr.Textbox(PALABRAS, label=f"Palabras (separadas por comas; hasta {MAX_PALABRAS})")
        puntajes = gr.Textbox(PUNTAJES, label="Puntajes s, uno por palabra (separados por comas; punto decimal: 0.5)")
    with gr.Row():
        tabla = gr.Dataframe(
            headers=["Palabra", "Puntaje s", "Peso a T", "Muestras", *(f"T = {t:g}" for t in T_LECCION)],
            label="Pesos (redondeados a 2 decimales) y muestras sacadas",
            interactive=False,
            scale=3,
        )
        texto = gr.Markdown()
    gr.Markdown("### Sacar muestras con estos pesos (como un modelo de lenguaje al elegir la siguiente palabra)")
    with gr.Row():
        n = Deslizador(1, N_MAX, value=1000, step=1, scale=3, label=f"Número de muestras N (de 1 a {miles(N_MAX)})")
        semilla = Numero(0, precision=0, minimum=0, maximum=SEMILLA_MAX, scale=1, label="Semilla")
        otra = gr.Button("Sacar otra vez (semilla + 1)", scale=1)
    muestreo = grafico("Frecuencia observada de cada palabra frente a su peso")

    # T es la entrada de `calcular` y de la URL. El deslizador de log T la escribe desde el navegador con sus
    # paradas ya calculadas (el `Barrido` de abajo); escrita a mano, mueve el deslizador.
    T.change(None, [T, log_t], log_t, js=JS_LOG_DESDE_T, api_visibility="private", show_progress="hidden")
    otra.click(None, semilla, semilla, js=JS_SIGUIENTE_SEMILLA, api_visibility="private", show_progress="hidden")
    seccion(("temperatura", "softmax", "pesos", "entropía", "muestra", "ficha"), "temperatura")
    servido(n, f"{miles(N_MAX)} valores (más de 256 paradas)")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[palabras, puntajes, T, n, semilla],
        salidas=[barras, paneles, tabla, texto, muestreo],
        url={"palabras": palabras, "puntajes": puntajes, "T": T, "n": n, "semilla": semilla},
        ejemplo={"T": "0.25"},
        invalido={"T": "50"},
        # .change y no .input para la semilla: también cambia por el botón. T la barre el navegador.
        disparadores=[palabras.submit, palabras.blur, puntajes.submit, puntajes.blur, n.input, semilla.change],
        barridos=(Barrido(log_t, entrada=T, a_entrada=_t_desde_log),),
    )
