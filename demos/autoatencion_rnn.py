"""Autoatención frente a una RNN (tutorial §3.1): el camino entre dos palabras, los pasos en secuencia y el gradiente.

La RNN lleva lo de la palabra 1 a la palabra L en L − 1 pasos y hace L pasos uno tras otro; una capa de
autoatención, en 1 paso y con un solo producto de matrices para todas las posiciones. Los pasos, los
gradientes y los tiempos salen de `modelos.recurrente`.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import gradio as gr
import numpy as np

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador
from demos.comun.figuras import C0, C1, Curva, Curvas, Mapa, Nota, Paneles, Referencia, miles
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.validar import entero
from demos.comun.vista import Barrido, Vista, envolver, explicacion, grafico, llenar_al_abrir
from modelos import recurrente
from modelos.formato import numero

L_MIN, L_MAX = 2, 10  # el deslizador: dos mapas de L × L por parada (hasta 10: 49 kB de paradas; 12 pasaba de 60)
L_CURVA = 32  # la curva del gradiente llega más lejos: es la misma en todas las paradas, va una vez
L_INICIAL = 8  # el largo de las secuencias de dígitos de la lección
L_CORTA = 4  # la de la predicción: la mitad
D = 16  # el ancho de los vectores de la RNN y de la capa de autoatención
L_TIEMPO = (256, 1024)  # los largos que se cronometran (una vez por proceso)

EXPLICACION = r"""
Una **RNN** lee la frase de izquierda a derecha: su estado $h_t = \tanh(W_{ih}\, x_t + W_{hh}\, h_{t-1} + b)$
necesita el anterior, así que lo que dice la palabra 1 llega a la palabra $L$ tras $L - 1$ pasos, y las $L$
posiciones se calculan una tras otra. La **autoatención** compara cada palabra con todas a la vez,
$\mathrm{softmax}(Q K^\top/\sqrt{d})\, V$: **1 paso** entre dos palabras cualesquiera y un solo producto de matrices
para todas las posiciones. Es lo que dice el tutorial (§3.1): la RNN «transmite la información paso a paso», la
autoatención «lo hace de una sola vez». Debajo, lo que eso hace al gradiente: $\partial h_L / \partial x_1$ en la RNN
es un producto de $L - 1$ jacobianos $\mathrm{diag}(1 - h_t^2)\, W_{hh}$; en la autoatención no hay producto.
Las dos redes están recién iniciadas (la inicialización de PyTorch, semilla 0), con vectores de 16 números.
"""

DIFERENCIA = (
    "No es el cuello de botella de *Atención cruzada*: allí la frase entera se aprieta en **un vector fijo**; aquí "
    "lo que cuenta es la **distancia**, cuántos pasos separan dos palabras."
)


def _validar(L) -> int:
    return entero(L, "El largo L", L_MIN, L_MAX)


@lru_cache(maxsize=1)
def curva_gradientes() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(L, ‖∂h_L/∂x_1‖ de la RNN, ‖∂y_L/∂x_1‖ de la autoatención) para L = 2…L_CURVA: una vez por proceso."""
    largos = list(range(L_MIN, L_CURVA + 1))
    rnn, atencion = recurrente.gradientes(largos, d=D, semilla=0)
    return np.array(largos, float), np.array(rnn), np.array(atencion)


def _sub(n: int) -> str:
    """n en subíndice: h₈, h₃₂."""
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _g(v: float) -> str:
    """Un gradiente con dos cifras: 0.20, 0.0084, 1.8e−11."""
    return numero(v, ".2f" if v >= 0.095 else ".2g" if v >= 1e-3 else ".1e")


def _mapas(L: int) -> tuple[Mapa, Mapa]:
    etiquetas = tuple(str(k) for k in range(1, L + 1))
    pasos = recurrente.pasos_rnn(L).numpy().astype(float)
    comunes = dict(
        x=etiquetas,
        y=etiquetas,
        eje_x="Palabra de origen",
        vmin=0,
        vmax=max(L - 1, 1),
        barra=None,  # cada casilla lleva su número (con L > 12, al pasar el ratón)
        formato=".0f",
        marcas=((L - 1, 0),),  # de la primera a la última
        cuadrado=True,
    )
    rnn = Mapa(
        np.where(pasos < 0, np.nan, pasos),
        titulo=f"RNN: de la palabra 1 a la {L}, {L - 1} pasos",
        eje_y="Palabra que recibe",
        leyenda_tapada="la RNN no llega",  # corta: a 360 px, la leyenda larga se salía de la figura
        pista="de {x} a {y}: {v} pasos",
        **comunes,
    )
    atencion = Mapa(
        recurrente.pasos_autoatencion(L).numpy().astype(float),
        titulo="Autoatención: 1 paso entre dos palabras cualesquiera",
        eje_y="",
        pista="de {x} a {y}: {v} paso",
        **comunes,
    )
    return rnn, atencion


def _curva(L: int) -> Curvas:
    # En log₁₀ sobre un eje lineal: el eje logarítmico de Plotly rotula 1e−10 como «100p».
    x, rnn, atencion = curva_gradientes()
    y_rnn, y_atencion = np.log10(rnn), np.log10(atencion)
    k = L - L_MIN
    return Curvas(
        (
            Curva("RNN: ‖∂h_L/∂x₁‖", x, y_rnn, color=C1),
            Curva("autoatención: ‖∂y_L/∂x₁‖", x, y_atencion, color=C0),
        ),
        titulo="Gradiente de la última salida respecto de la palabra 1",
        eje_x="Largo L",
        eje_y="log₁₀ de la norma",
        verticales=(Referencia(L, f"L = {L}", color="#4d4d4d", punteada=False),),
        notas=(
            Nota(L, y_rnn[k], _g(rnn[k]), color=C1),  # a su derecha: la curva baja, la de arriba queda lejos
            Nota(L, y_atencion[k], _g(atencion[k]), color=C0, lado="arriba"),
        ),
        formato=".1f",
        pista="{n}<br>L = {x}: 10^{y}",
    )


def calcular(L: float = L_INICIAL):
    """La vista: (figura de caminos y gradiente, texto, el punto de la primera pantalla)."""
    L = _validar(L)
    x, rnn, atencion = curva_gradientes()
    g_rnn, g_atencion = rnn[L - L_MIN], atencion[L - L_MIN]
    camino_rnn = int(recurrente.pasos_rnn(L)[L - 1, 0])
    camino_atencion = int(recurrente.pasos_autoatencion(L)[L - 1, 0])
    figura = Paneles((*_mapas(L), _curva(L)), columnas=3, anchos=(1, 1, 1.3), alto_fila=340)
    veces = g_atencion / g_rnn
    factor = (rnn[-1] / rnn[0]) ** (1 / (L_CURVA - L_MIN))  # por paso, la media geométrica
    comparacion = (
        f"{numero(veces, '.0f')} veces más grande en la autoatención" if veces >= 1.5 else "parecido en las dos"
    )
    punto = (
        f"L = {L}: de la palabra 1 a la {L}, la RNN da **{camino_rnn} pasos** y la autoatención **{camino_atencion}**; "
        f"en secuencia, **{L}** contra **1**. Gradiente a la palabra 1: **{_g(g_rnn)}** en la RNN y "
        f"**{_g(g_atencion)}** en la autoatención."
    )
    texto = (
        f"La RNN calcula h₁, h₂, …, h{_sub(L)}: **{L} pasos en secuencia**, porque cada uno espera al anterior. La "
        f"autoatención calcula las {L} salidas con un producto Q·Kᵀ de {L} × {L} ({miles(L * L)} puntajes) y otro "
        "por V: **1 paso**, todas las posiciones a la vez, en paralelo.\n\n"
        f"Con L = {L}, el gradiente de la última salida respecto de la palabra 1 es {comparacion}. "
        f"El gradiente de la RNN pasa por un producto de {camino_rnn} jacobianos diag(1 − h²)·W_hh, y cada paso lo "
        f"multiplica, en promedio, por **{numero(factor, '.2f')}** (tanh′ ≤ 1 y W_hh recién iniciada, con valores de "
        f"±{numero(1 / D**0.5, '.2f')} a lo sumo): cae exponencialmente, de {_g(rnn[0])} con L = {L_MIN} a "
        f"{_g(rnn[-1])} con L = {L_CURVA}. En la autoatención baja mucho menos, de {_g(atencion[0])} a "
        f"{_g(atencion[-1])}: el peso de la palabra 1 se reparte entre más palabras, pero el camino sigue siendo de "
        f"1 paso. Entrenar o usar una LSTM cambia el ritmo, no el número de pasos.\n\n{DIFERENCIA}"
    )
    return figura, texto, punto


# --- medido en esta máquina: fuera de la figura, una vez por proceso ------------------------------


_cerrojo_tiempos = threading.Lock()  # dos primeras visitas a la vez no cronometran dos veces (ni se estorban)


@lru_cache(maxsize=1)
def _tiempos_una_vez() -> tuple[dict, ...]:
    return tuple(recurrente.medir_tiempos(L, d=64, presupuesto_s=0.5, veces=21) for L in L_TIEMPO)


def _tiempos() -> tuple[dict, ...]:
    with _cerrojo_tiempos:
        return _tiempos_una_vez()


def _ms(v: float) -> str:
    return f"{numero(v, '.2f' if v < 10 else '.1f')} ms"


def _frase_tiempo(t: dict) -> str:
    L, atencion, rnn = t["L"], t["atencion_ms"], t["rnn_torch_ms"]
    cuanto = (
        f"la autoatención tarda {numero(rnn / atencion, '.1f')} veces menos"
        if atencion < rnn
        else f"la autoatención tarda {numero(atencion / rnn, '.1f')} veces más: sus {miles(L * L)} puntajes por "
        "cabeza crecen como L² (*Memoria O(L²)*)"
    )
    return (
        f"con L = {miles(L)}, los {miles(L)} pasos de `nn.RNN` tardan **{_ms(rnn)}** (el bucle de `RNNElman`, "
        f"{_ms(t['rnn_propia_ms'])}) y una capa de autoatención **{_ms(atencion)}**: {cuanto}"
    )


def calcular_tiempos() -> str:
    """La línea «medido en esta máquina»: medianas de `modelos.recurrente.medir_tiempos`, un hilo de CPU."""
    t = _tiempos()
    vueltas = min(x["veces"] for x in t)
    return (
        f"**Medido en esta máquina** (un hilo de CPU, d = 64, mediana de al menos {vueltas} vueltas por turnos; "
        f"cambia de una máquina a otra y de un momento a otro): {_frase_tiempo(t[0])}; {_frase_tiempo(t[1])}. En "
        "una GPU, el producto de matrices se reparte entre miles de núcleos; los pasos de la RNN siguen esperándose."
    )


# --- aprender: la respuesta sale del punto que muestra `calcular` ---------------------------------


def _cifras(salida) -> dict[str, float]:
    p = salida[2]
    pasos = re.search(r"la RNN da \*\*(\d+) pasos\*\* y la autoatención \*\*(\d+)\*\*", p)
    secuencia = re.search(r"en secuencia, \*\*(\d+)\*\* contra \*\*(\d+)\*\*", p)
    grad = re.search(r"\*\*([\d.e+−-]+)\*\* en la RNN y \*\*([\d.e+−-]+)\*\* en la autoatención", p)
    return {
        "camino_rnn": int(pasos.group(1)),
        "camino_atencion": int(pasos.group(2)),
        "secuencia_rnn": int(secuencia.group(1)),
        "secuencia_atencion": int(secuencia.group(2)),
        "g_rnn": float(grad.group(1).replace("−", "-")),
        "g_atencion": float(grad.group(2).replace("−", "-")),
    }


def _gradiente_rnn_al_acortar(antes, despues) -> dict:
    a, b = _cifras(antes)["g_rnn"], _cifras(despues)["g_rnn"]
    veces = b / a
    que = "mucho" if veces > 8 else "poco" if 1.2 < veces <= 8 else "igual"
    return {"respuesta": que, "antes": _g(a), "despues": _g(b), "veces": numero(veces, ".0f")}


def _camino_al_final(despues) -> dict:
    c = _cifras(despues)
    return {"respuesta": c["camino_rnn"], "atencion": c["camino_atencion"]}


def _pasos_en_secuencia(despues) -> dict:
    c = _cifras(despues)
    return {"respuesta": c["secuencia_atencion"], "rnn": c["secuencia_rnn"]}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        f"Con L = {L_INICIAL}, el gradiente de la RNN a la palabra 1 es pequeño. Si la frase se acorta a "
        f"L = {L_CORTA} palabras (la mitad), ese gradiente…",
        verdad=ap.EnLaPestana(calcular, _gradiente_rnn_al_acortar, cambio={"L": L_CORTA}),
        opciones=(
            ap.Alternativa(
                "poco",
                "se duplica, más o menos: la mitad de pasos",
                f"La mitad de pasos no lo duplica: le quita {L_INICIAL - L_CORTA} factores menores que 1. Pasa de "
                "{antes} a {despues}: {veces} veces más.",
            ),
            ap.Alternativa(
                "mucho",
                "crece decenas de veces",
                f"Cada paso lo multiplica por un factor menor que 1; con {L_INICIAL - L_CORTA} pasos menos crece "
                "{veces} veces: de {antes} a {despues}.",
            ),
            ap.Alternativa(
                "igual",
                "queda más o menos igual",
                "El que cambia poco es el de la autoatención (1 paso siempre). El de la RNN va de {antes} a {despues}.",
            ),
        ),
        porque="De {antes} a {despues}: {veces} veces más. El gradiente de la RNN es un producto de L − 1 "
        "jacobianos, y cae exponencialmente con L; el de la autoatención no pasa por ese producto.",
    ),
    preguntas=(
        ap.Pregunta(
            f"Con L = {L_MAX}, ¿cuántos pasos hay en la RNN de la palabra 1 a la {L_MAX}?",
            (
                ap.Alternativa(
                    L_MAX - 1,
                    f"{L_MAX - 1}",
                    f"L − 1: de h₁ a h{_sub(L_MAX)} hay {L_MAX - 1} flechas (en la autoatención, {{atencion}}).",
                ),
                ap.Alternativa(
                    L_MAX,
                    f"{L_MAX}",
                    f"{L_MAX} son los pasos en secuencia (h₁ … h{_sub(L_MAX)}); entre la 1 y la {L_MAX} hay "
                    f"{L_MAX - 1}.",
                ),
                ap.Alternativa(
                    1, "1", f"Ese es el camino en la autoatención; la RNN pasa por cada estado: {L_MAX - 1}."
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _camino_al_final, cambio={"L": L_MAX}),
        ),
        ap.Pregunta(
            f"Con L = {L_MAX}, ¿cuántos pasos en secuencia (uno esperando al otro) necesita la autoatención para "
            f"calcular las {L_MAX} salidas?",
            (
                ap.Alternativa(
                    1,
                    "1",
                    "Un producto Q·Kᵀ y otro por V dan todas las salidas a la vez; la RNN necesita {rnn}, uno tras "
                    "otro.",
                ),
                ap.Alternativa(
                    L_MAX,
                    f"{L_MAX}, uno por palabra",
                    "Eso le pasa a la RNN ({rnn}: cada h_t espera a h_t−1); la autoatención calcula todas las salidas "
                    "con un producto de matrices: {respuesta}.",
                ),
                ap.Alternativa(
                    L_MAX - 1,
                    f"{L_MAX - 1}, como el camino de la RNN",
                    "L − 1 es el camino de la palabra 1 a la última en la RNN; en la autoatención, todo va en "
                    "{respuesta} paso.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _pasos_en_secuencia, cambio={"L": L_MAX}),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():  # el punto junto al deslizador: en la primera pantalla, sobre la figura
        L = Deslizador(L_MIN, L_MAX, value=L_INICIAL, step=1, scale=2, label="Largo L de la frase (palabras)")
        punto = gr.Markdown(elem_id="autoatencion-rnn-punto")
    figura = grafico("Pasos entre palabras y gradiente a la palabra 1")
    texto = gr.Markdown()
    tiempos = gr.Markdown(elem_id="autoatencion-rnn-tiempos")
    llenar_al_abrir(texto, envolver(calcular_tiempos), [], [tiempos])
    seccion_glosario(("RNN", "ficha", "consulta, clave y valor", "puntaje", "pesos"), "autoatencion-rnn")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[L],
        salidas=[figura, texto, punto],
        url={"L": L},
        barridos=(Barrido(L),),
    )
