"""Dropout sobre los pesos de atención y `model.eval()` (tutorial §2.1: `attn_weights = self.dropout(attn_weights)`).

En entrenamiento, cada peso se apaga con probabilidad p y los que quedan se multiplican por 1/(1 − p): una fila ya
no suma 1, solo en promedio. En evaluación el dropout no hace nada. Se ve con el modelo entrenado que invierte
dígitos: una copia suya por petición, con `DropoutConGenerador` (el azar de una semilla, sin tocar el RNG global).
"""

from __future__ import annotations

import copy
from functools import lru_cache

import gradio as gr
import numpy as np
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Numero
from demos.comun.figuras import C0, C1, Curva, Curvas, Mapa, Paneles, Referencia
from demos.comun.glosario import seccion
from demos.comun.validar import entero, real
from demos.comun.vista import Barrido, Vista, explicacion, grafico
from modelos import AtencionMulticabeza, cargar, dispositivo
from modelos.atencion import DropoutConGenerador
from modelos.formato import numero, por_ciento

NOMBRE = "inversion-digitos"
SECUENCIA = (8, 3, 3, 9, 6, 9, 4, 0)  # la de la lección
P_MAX, P_PASO, P_INICIAL = 0.5, 0.05, 0.1  # 0.1: el dropout por omisión de las clases del tutorial
LLAMADAS = 500  # las llamadas en entrenamiento que se promedian (500 × 8 dígitos: ≈ 10 ms en un hilo)
SEMILLA_MAX = 2**31 - 1
CABEZA = 0  # la figura muestra la cabeza 1; las dos del modelo miran a la antidiagonal

EXPLICACION = r"""
Las clases de atención del tutorial aplican **dropout a los pesos**: `attn_weights = self.dropout(attn_weights)`,
después del softmax y antes de multiplicar por V. En **entrenamiento** (`model.train()`), cada peso se apaga (vale 0)
con probabilidad $p$, y los que quedan se multiplican por $1/(1-p)$. Así **una fila ya no suma 1**: suma más si no se
apagó nada grande, y casi 0 si se apagó su peso principal. Suma 1 **en promedio**: cada peso sigue valiendo, en
promedio, $(1-p) \cdot \frac{w}{1-p} = w$, así que $\mathbb{E}[\sum_j \tilde w_j] = \sum_j w_j = 1$. En **evaluación**
(`model.eval()`) el dropout no hace nada y cada fila suma 1 exacto. Por eso, antes de usar un modelo, va
`model.eval()`: si se olvida, cada llamada sortea otros pesos apagados y la misma entrada da otra salida.

Aquí, el modelo entrenado de *Inversión de dígitos* (entrenado sin dropout) con la secuencia de la lección; se le
pone dropout con probabilidad $p$ en su atención, como si se hubiera olvidado `model.eval()`. La semilla fija el
sorteo: la misma semilla da las mismas casillas apagadas.
"""


def validar(p, semilla) -> tuple[float, int]:
    p = round(real(p, "La probabilidad p", 0.0, P_MAX), 4)  # 0.15000000000000002 del deslizador -> 0.15
    return p, entero(semilla, "La semilla", 0, SEMILLA_MAX)


def copia_en_entrenamiento(modelo: torch.nn.Module, p: float, generador: torch.Generator) -> torch.nn.Module:
    """Una copia de `modelo` en `train()` con dropout p en los pesos de cada bloque, sorteado con `generador`.

    El modelo cargado lo comparten todas las peticiones (no se toca); la copia es de esta petición (13 674 números).
    """
    copia = copy.deepcopy(modelo)
    for capa in [m for m in copia.modules() if isinstance(m, AtencionMulticabeza)]:  # la de cada bloque
        capa.dropout = DropoutConGenerador(p, generador)
    return copia.train()


@lru_cache(maxsize=64)
def correr(p: float, semilla: int) -> dict:
    """La secuencia por el modelo en evaluación (una vez) y en entrenamiento (LLAMADAS veces, con la semilla).

    Las llamadas van en un lote: el dropout sortea en el orden de la memoria (llamada, cabeza, fila, columna), lo
    mismo que LLAMADAS llamadas una tras otra con el mismo generador. Devuelve arreglos de numpy: pesos de la
    cabeza 1 (8, 8) en evaluación y (LLAMADAS, 8, 8) en entrenamiento, y las predicciones.
    """
    modelo = cargar(NOMBRE)
    x = torch.tensor([SECUENCIA], device=dispositivo())  # (1, 8)
    copia = copia_en_entrenamiento(modelo, p, torch.Generator(device=x.device).manual_seed(semilla))
    with torch.inference_mode():
        logits, (pesos,) = modelo(x, con_pesos=True)  # (1, 8, 10), (1, cabezas, 8, 8)
        logits_e, (pesos_e,) = copia(x.expand(LLAMADAS, -1), con_pesos=True)  # (N, 8, 10), (N, cabezas, 8, 8)
    r = {
        "pesos": pesos[0, CABEZA].double().cpu().numpy(),
        "pesos_e": pesos_e[:, CABEZA].double().cpu().numpy(),
        "pred": logits[0].argmax(-1).cpu().numpy(),  # (8,)
        "pred_e": logits_e.argmax(-1).cpu().numpy(),  # (N, 8)
        "prob_e": torch.softmax(logits_e[:2], -1).double().cpu().numpy(),  # (2, 8, 10): las llamadas 1 y 2
        # ¿Todas las cabezas miran al espejo (la antidiagonal) en cada fila?
        "espejo": bool((pesos[0].argmax(-1).cpu() == torch.arange(len(SECUENCIA) - 1, -1, -1)).all()),
    }
    for v in r.values():  # guardados en la caché y compartidos entre peticiones: de solo lectura
        if isinstance(v, np.ndarray):
            v.setflags(write=False)
    return r


# --- la vista -----------------------------------------------------------------------------------------------


def _r(a: np.ndarray) -> np.ndarray:
    """Redondeados a 6 decimales: el último dígito de float32 no cambia la figura de una petición a otra."""
    return np.round(a, 6)


def _figura(r: dict, p: float) -> Paneles:
    evaluacion, (uno, dos) = _r(r["pesos"]), _r(r["pesos_e"][:2])
    L = len(SECUENCIA)
    filas = tuple(str(k) for k in range(1, L + 1))
    nombres = tuple(f"la posición {k} (dígito {d})" for k, d in enumerate(SECUENCIA, 1))
    vmax = max(float(uno.max()), float(dos.max()), float(evaluacion.max()))
    comunes = dict(
        x=filas,
        nombres_x=nombres,
        nombres_y=nombres,
        vmin=0,
        vmax=round(vmax, 6),
        umbral=0.1,  # el número en los pesos grandes (la antidiagonal); los pequeños, al pasar el ratón
        barra=None,
        eje_x="Posición que se mira",
        texto_tapada="0",
        leyenda_tapada="apagado por el dropout",
    )
    mapas = [
        Mapa(
            evaluacion,
            y=filas,
            titulo="model.eval()",
            eje_y="Posición que mira",
            pista="{y} mira a {x}: {v}",
            **comunes,
        )
    ]
    for k, m in enumerate((uno, dos), 1):
        mapas.append(
            Mapa(
                m,
                y=("",) * L,
                titulo=f"model.train(), llamada {k}",
                tapada=(m == 0) & (evaluacion != 0),  # las que apagó el sorteo (un peso 0 apagado no cambia nada)
                pista=f"llamada {k}: {{y}} mira a {{x}}: {{v}}",
                **comunes,
            )
        )
    sumas = Mapa(
        np.stack([evaluacion.sum(1), uno.sum(1), dos.sum(1)], axis=1),  # (8, 3)
        x=("eval", "1", "2"),
        eje_x="Evaluación y llamadas",
        y=("",) * L,
        nombres_x=("en evaluación", "en la llamada 1", "en la llamada 2"),
        nombres_y=nombres,
        titulo="Σ de cada fila",
        numeros=True,
        formato=".2f",
        vmin=0,
        vmax=2,  # 1 en blanco: rojo si suma menos, azul si suma más
        colores="divergente",
        barra=None,
        pista="la fila de {y} suma {v} {x}",
    )
    return Paneles(
        (*mapas, sumas),
        columnas=4,
        titulo=f"Pesos de la cabeza 1: en evaluación y en dos llamadas en entrenamiento con p = {numero(p, '.2f')}",
        anchos=(1, 1, 1, 1),
        alto_fila=360,
    )


def _promedios(r: dict, p: float, fila: int) -> Curvas:
    """El promedio de la suma de `fila` tras n llamadas: con ÷ (1 − p) tiende a 1; sin, a 1 − p."""
    sumas = r["pesos_e"][:, fila].sum(-1)  # (N,)
    n = np.arange(1, LLAMADAS + 1)
    puntos = np.unique(np.geomspace(1, LLAMADAS, 40).round().astype(int)) - 1  # 40 puntos, parejos en log
    media = (np.cumsum(sumas) / n)[puntos]
    return Curvas(
        (
            Curva("con ÷ (1 − p), como nn.Dropout", n[puntos], _r(media), color=C0),
            Curva("sin ÷ (1 − p)", n[puntos], _r(media * (1 - p)), color=C1, estilo="punteada"),
        ),
        titulo=f"Fila {fila + 1}: promedio de su suma tras n llamadas en entrenamiento",
        eje_x="Llamadas n",
        eje_y="Promedio de la suma",
        log_x=True,
        marcas_x=(1, 10, 100, LLAMADAS),
        rango_y=(0, 2),
        horizontales=(Referencia(1, "1: la suma en evaluación", punteada=False), Referencia(1 - p, "1 − p")),
        formato=".3f",
        pista="{n}<br>n = {x}: {y}",
    )


def _digitos(pred: np.ndarray) -> str:
    return " ".join(map(str, pred))


def _sin_dropout(r: dict) -> tuple[str, str]:
    """El punto y el texto con p = 0: nada se apaga, entrenamiento y evaluación coinciden."""
    todas = r["pesos_e"].sum(-1)
    punto = (
        "p = 0.00: el dropout no apaga nada; en entrenamiento cada fila suma "
        f"**{numero(todas.min(), '.3f')}** como en evaluación, y todas las llamadas dan lo mismo."
    )
    texto = (
        f"Con p = 0, `nn.Dropout` devuelve los pesos tal cual: las {LLAMADAS} llamadas en entrenamiento escriben "
        f"`{_digitos(r['pred_e'][0])}`, como en evaluación. Mueve p para ver qué cambia."
    )
    return punto, texto


def _punto(r: dict, p: float, fila: int) -> str:
    uno = r["pesos_e"][0, fila]  # (8,): la fila en la llamada 1
    apagado = r["pesos"][fila][uno == 0]  # lo que valían en evaluación los pesos que se apagaron
    nota = f" (se apagó su peso de {numero(apagado.max(), '.2f')})" if apagado.size and apagado.max() >= 0.1 else ""
    cambio = float(np.abs(r["prob_e"][0] - r["prob_e"][1]).max())
    return (
        f"p = {numero(p, '.2f')}: en entrenamiento, la fila {fila + 1} suma **{numero(uno.sum(), '.2f')}**{nota}; "
        f"en evaluación, **{numero(r['pesos'][fila].sum(), '.3f')}**. Dos llamadas en entrenamiento con la misma "
        f"secuencia dan probabilidades distintas (la que más cambia, en **{numero(cambio, '.2f')}**); en evaluación, "
        "iguales."
    )


def _texto(r: dict, p: float, fila: int) -> str:
    todas = r["pesos_e"].sum(-1)  # (N, 8): la suma de cada fila en cada llamada
    media, desv = todas[:, fila].mean(), todas[:, fila].std()
    formula = np.sqrt(p / (1 - p) * (r["pesos"][fila] ** 2).sum())  # la desviación típica de la suma
    bien = (r["pred_e"] == np.array(SECUENCIA[::-1])).all(axis=1)  # (N,)
    distintas = len({tuple(f) for f in r["pred_e"]})
    espejo = (
        " Las dos cabezas del modelo miran al espejo de cada posición, así que una suele cubrir a la otra cuando se "
        "apaga un peso grande; cuanto más grande es p, más veces se apagan los dos."
        if r["espejo"]
        else ""
    )
    return (
        f"**En promedio, 1.** Con p = {numero(p, '.2f')}, cada peso que queda vale w/(1 − p) = "
        f"{numero(1 / (1 - p), '.2f')} · w, y queda con probabilidad {numero(1 - p, '.2f')}: en promedio vale w. "
        f"Tras {LLAMADAS} llamadas, la fila {fila + 1} suma en promedio **{numero(media, '.3f')}** (desviación típica "
        f"{numero(desv, '.2f')}; la fórmula √(p/(1 − p) · Σ w²) da {numero(formula, '.2f')}), y "
        f"las 8 filas, de {numero(todas.mean(0).min(), '.3f')} a {numero(todas.mean(0).max(), '.3f')}. Sin dividir por "
        f"1 − p sumarían {numero(1 - p, '.2f')} en promedio, y en evaluación (sin dropout) la red vería pesos más "
        "grandes que al entrenar.\n\n"
        f"**Por qué `model.eval()`.** En evaluación, la secuencia `{_digitos(SECUENCIA)}` da siempre "
        f"`{_digitos(r['pred'])}`. En entrenamiento, cada llamada sortea otras casillas apagadas: de {LLAMADAS} "
        f"llamadas, el {por_ciento(bien.mean())} escribe la inversión entera bien, y entre todas salen {distintas} "
        f"{'secuencia' if distintas == 1 else 'secuencias diferentes'} (la llamada 1 escribe "
        f"`{_digitos(r['pred_e'][0])}`, la 2, `{_digitos(r['pred_e'][1])}`).{espejo}"
    )


def calcular(p: float = P_INICIAL, semilla: float = 0):
    """La vista: (el punto, figura de pesos y sumas, texto, figura del promedio)."""
    p, semilla = validar(p, semilla)
    r = correr(p, semilla)
    # La fila que más se aleja de 1 en la llamada 1 (con p = 0, la primera: todas suman 1)
    fila = int(np.abs(r["pesos_e"][0].sum(-1) - 1).argmax()) if p > 0 else 0
    punto, texto = _sin_dropout(r) if p == 0 else (_punto(r, p, fila), _texto(r, p, fila))
    return punto, _figura(r, p), texto, _promedios(r, p, fila)


# --- aprender: las respuestas salen de lo que muestra `calcular` -----------------------------------------------


def _promedio_final(despues) -> dict:
    curva = despues[3].curvas[0]  # con ÷ (1 − p)
    return {"respuesta": float(curva.y[-1]), "fila": despues[3].titulo.split(":")[0]}


def _llamadas_iguales(despues) -> dict:
    _, uno, dos, _ = despues[1].paneles
    return {"respuesta": "sí" if np.array_equal(uno.matriz, dos.matriz) else "no"}


def _suma_en_evaluacion(despues) -> dict:
    sumas = despues[1].paneles[3].matriz  # (8, 3): evaluación, llamada 1, llamada 2
    return {"respuesta": float(sumas[0, 0]), "entrenando": numero(sumas[0, 1], ".2f")}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "Con p = 0.5 se apaga la mitad de los pesos y el resto vale el doble: en promedio, ¿cuánto suma una fila?",
        verdad=ap.EnLaPestana(calcular, _promedio_final, cambio={"p": 0.5}),
        tipo=ap.CANTIDAD,
        opciones=(
            ap.Alternativa(
                1.0, "1", "La mitad apagada y el doble en la otra mitad se compensan: (1 − p) · 1/(1 − p) = 1."
            ),
            ap.Alternativa(
                0.5,
                "0.5: se apagó la mitad",
                "Sería 0.5 sin dividir por 1 − p (la curva punteada); nn.Dropout multiplica lo que queda por 2.",
            ),
            ap.Alternativa(
                2.0,
                "2: lo que queda vale el doble",
                "Lo que queda vale el doble, pero solo queda la mitad en promedio: 2 · 0.5 = 1.",
            ),
        ),
        porque="{fila}: promedio {respuesta:.3f} tras las llamadas. Una llamada sola puede sumar 0 o 2, pero en "
        "promedio cada peso vale lo mismo que en evaluación: la esperanza de la suma es 1.",
    ),
    preguntas=(
        ap.Pregunta(
            "Sin `model.eval()` (p = 0.1), llamas dos veces a la capa con la misma secuencia. ¿Los pesos son los "
            "mismos?",
            (
                ap.Alternativa(
                    "no", "no", "Cada llamada sortea otras casillas apagadas: los mapas de las llamadas 1 y 2 difieren."
                ),
                ap.Alternativa(
                    "sí",
                    "sí, la misma entrada da lo mismo",
                    "Eso pasa en evaluación; en entrenamiento el dropout sortea de nuevo en cada llamada.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _llamadas_iguales),
        ),
        ap.Pregunta(
            "Con `model.eval()` y p = 0.5, ¿cuánto suma la fila 1 de los pesos?",
            (
                ap.Alternativa(1.0, "1", "En evaluación el dropout no hace nada: softmax, y cada fila suma 1."),
                ap.Alternativa(0.5, "0.5", "Eso sería apagar la mitad sin escalar; en evaluación no se apaga nada."),
                ap.Alternativa(
                    2.0,
                    "2",
                    "En evaluación no se multiplica por 1/(1 − p); en la llamada 1 de entrenamiento sumó {entrenando}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _suma_en_evaluacion, cambio={"p": 0.5}),
            tipo=ap.CANTIDAD,
            decimales=3,
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():  # el punto junto al control (una sola fila sobre la figura): en la primera pantalla
        p = Deslizador(0, P_MAX, value=P_INICIAL, step=P_PASO, label="Probabilidad p de apagar un peso")
        punto = gr.Markdown(elem_id="dropout-punto")
    figura = grafico("Pesos en evaluación y en entrenamiento, y la suma de cada fila")
    # La semilla, bajo la figura: con ella en la fila de arriba, el punto quedaba en 228 px y en el proyector (a
    # 960 × 700) bajaba la figura fuera de la pantalla.
    semilla = Numero(0, precision=0, minimum=0, maximum=SEMILLA_MAX, label="Semilla (el sorteo del dropout)")
    texto = gr.Markdown()
    promedio = grafico("Promedio de la suma de una fila tras n llamadas")
    seccion(("pesos", "dropout", "parámetros"), "dropout")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[p, semilla],
        salidas=[punto, figura, texto, promedio],
        url={"p": p, "semilla": semilla},
        barridos=(Barrido(p),),
    )
