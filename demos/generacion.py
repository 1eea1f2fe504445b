"""Generación autorregresiva: el bucle que escribe de a una ficha, y por qué la misma máscara entrena todo a la vez.

Un decodificador causal diminuto (`modelos.decodificador`, checkpoint `decodificador-inversion`) recibe 8 dígitos
y «→», y escribe la inversión dígito a dígito: cada paso corre el modelo sobre lo escrito y agrega su dígito más
probable. Al entrenar, en cambio, una sola pasada con la respuesta correcta ya escrita da las 8 predicciones.
"""

from __future__ import annotations

import re
from functools import lru_cache

import gradio as gr
import numpy as np
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador
from demos.comun.figuras import C0, CLARO, Barras, Mapa, Paneles, Serie
from demos.comun.glosario import seccion
from demos.comun.validar import entero
from demos.comun.vista import Barrido, Vista, explicacion, grafico
from modelos import cargar, dispositivo
from modelos.datos import LARGO
from modelos.decodificador import entrada_forzada, forzar, generar

NOMBRE = "decodificador-inversion"
LECCION = "8 3 3 9 6 9 4 0"  # la secuencia que invierte la lección
SEPARADORES, MAX_TEXTO = " ,;-\t", 200
ACEPTA = "Escribe 8 dígitos del 0 al 9, con o sin espacios (p. ej. «8 3 3 9 6 9 4 0»)."
IGUALES = 1e-4  # por debajo, la diferencia de logits entre el bucle y la pasada única es redondeo de float32
SUBINDICES = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

EXPLICACION = r"""
Un modelo que genera texto escribe **una ficha por paso**: corre sobre todo lo escrito hasta ahí, toma la
predicción de la **última** posición, elige la ficha más probable y la agrega a la entrada del paso siguiente.
Aquí el texto son dígitos: un decodificador diminuto, entrenado de verdad, recibe 8 dígitos y «→», y escribe
la secuencia **al revés**, de a un dígito. Su atención lleva la **máscara causal**: la posición $i$ solo mira
las posiciones $\le i$. Es el «escenario Decoder» del tutorial (§3.1), y la razón de ser de esa máscara: así se
entrena un modelo que genera texto.

Mueve el **paso t** y mira cómo crece el mapa de atención (una fila y una columna por paso) y qué
probabilidades da al dígito siguiente. Abajo, lo que hace la misma máscara al **entrenar**: con la respuesta
correcta ya escrita después de «→» (*teacher forcing*), **una sola pasada** da la predicción de las 8
posiciones a la vez, y son las mismas que las del bucle.
"""


def leer_digitos(texto) -> list[int]:
    """«8 3 3 9 6 9 4 0», «8,3,3,9,6,9,4,0» u «83396940» -> [8, 3, 3, 9, 6, 9, 4, 0]."""
    if not isinstance(texto, str) or len(texto) > MAX_TEXTO:
        raise ValueError(f"Los dígitos llegan como un texto corto. {ACEPTA}")
    limpio = [c for c in texto if c not in SEPARADORES]
    raros = list(dict.fromkeys(c for c in limpio if c not in "0123456789"))  # «٣» o «³» no son 0–9
    if raros:
        muestra = " ".join(f"«{c}»" for c in raros[:5])
        raise ValueError(f"{muestra} no {'es un dígito' if len(raros) == 1 else 'son dígitos'} del 0 al 9. {ACEPTA}")
    if len(limpio) != LARGO:
        raise ValueError(f"Hay {len(limpio)} dígitos y hacen falta {LARGO}. {ACEPTA}")
    return [int(c) for c in limpio]


@lru_cache(maxsize=64)
def correr(digitos: tuple[int, ...]) -> dict:
    """El bucle de 8 pasos y las dos pasadas únicas (con lo escrito y con la respuesta correcta), en numpy.

    "pesos_paso"[t - 1]: (8 + t, 8 + t), promedio de las cabezas; "pesos_pasada": (16, 16).
    """
    modelo = cargar(NOMBRE)
    X = torch.tensor([digitos], device=dispositivo())  # (1, 8)
    Y = X.flip(dims=[1])  # la respuesta correcta
    with torch.inference_mode():
        escrita, logits_bucle, pesos = generar(modelo, X)  # (1, 8), (1, 8, 10), 8 × [(1, cabezas, 8 + t, 8 + t)]
        logits_pasada, pesos_pasada = modelo(entrada_forzada(X, escrita), con_pesos=True)  # lo escrito, 1 pasada
        forzada = forzar(modelo, X, Y)  # (1, 8, 10): el entrenamiento, con la respuesta correcta
    perdidas = torch.nn.functional.cross_entropy(forzada[0], Y[0], reduction="none")  # (8,)
    return {
        "entrada": list(digitos),
        "escrita": escrita[0].tolist(),
        "correcta": Y[0].tolist(),
        "probs": logits_bucle[0].softmax(dim=-1).cpu().numpy(),  # (8, 10)
        "logit_bucle": logits_bucle[0].gather(-1, escrita[0, :, None])[:, 0].cpu().numpy(),  # (8,)
        "logit_pasada": logits_pasada[0, LARGO:].gather(-1, escrita[0, :, None])[:, 0].cpu().numpy(),
        "diferencia": (logits_bucle - logits_pasada[:, LARGO:]).abs().max().item(),
        "pesos_paso": [p[-1][0].mean(dim=0).cpu().numpy() for p in pesos],
        "pesos_pasada": pesos_pasada[-1][0].mean(dim=0).cpu().numpy(),
        "perdidas": perdidas.cpu().numpy(),
        "cabezas": pesos[0][-1].shape[1],
    }


def _fichas(r: dict) -> list[str]:
    return [*map(str, r["entrada"]), "→", *map(str, r["escrita"][:-1])]


def _corto(i: int) -> str:
    """El nombre de la posición i: x₁ … x₈ (la entrada), → y y₁ … y₇ (lo escrito)."""
    if i < LARGO:
        return f"x{str(i + 1).translate(SUBINDICES)}"
    return "→" if i == LARGO else f"y{str(i - LARGO).translate(SUBINDICES)}"


def _nombre(i: int, ficha: str) -> str:
    """La posición i con su ficha: «x₆ = 9», ««→»», «y₂ = 4»."""
    return "«→»" if i == LARGO else f"{_corto(i)} = {ficha}"


def _mapa(pesos: np.ndarray, fichas: list[str], n: int, titulo: str, t: int, barra: str | None = "Peso") -> Mapa:
    """Las 8 filas que escriben («→», y₁ … y₇) contra las 16 posiciones, de los pesos (n, n) de n fichas.

    El futuro y lo que aún no se escribió, tapados. Las filas de x₁ … x₈ no se dibujan: su salida no escribe nada
    (con un solo bloque, cada predicción sale de la fila de su posición). Se recuadra la casilla a la que más mira
    la fila que escribe en el paso t.
    """
    total = len(fichas)
    M = np.zeros((total, total))
    M[:n, :n] = pesos
    i = np.arange(total)
    tapada = (i[None, :] > i[:, None]) | (i[:, None] >= n)
    vistas = [f if k < n else "?" for k, f in enumerate(fichas)]
    filas = slice(LARGO, total)
    return Mapa(
        np.round(M[filas], 3),  # (8, 16)
        x=tuple(vistas),  # una ficha por columna (el kit distingue las repetidas); su nombre, en la pista
        y=tuple("→" if k == LARGO else f"{_corto(k)} = {f}" for k, f in enumerate(vistas))[filas],
        nombres_x=tuple(_nombre(k, f) for k, f in enumerate(vistas)),
        nombres_y=tuple(_nombre(k, f) for k, f in enumerate(vistas))[filas],
        titulo=titulo,
        eje_x="Posición que se mira: x₁ … x₈, →, y₁ … y₇",
        eje_y="Posición que escribe",
        tapada=tapada[filas],
        leyenda_tapada="futuro o sin escribir: no se mira",
        marcas=((t - 1, int(np.argmax(M[LARGO + t - 1]))),),
        barra=barra,
        pista="{y} mira a {x}: peso {v}",
    )


def _barras(p: np.ndarray, t: int) -> Barras:
    """Probabilidad de cada dígito en el paso t; el elegido en C0. Sin número sobre la barra (a 0.997 pisaba el eje)."""
    d = int(np.argmax(p))
    return Barras(
        tuple(map(str, range(len(p)))),
        (Serie("probabilidad", p, colores=tuple(C0 if k == d else CLARO for k in range(len(p)))),),
        titulo=f"Escribe y{str(t).translate(SUBINDICES)} = {d} (probabilidad {p[d]:.3f})",
        eje_x="Dígito siguiente",
        eje_y="Probabilidad",
        numeros=False,
        rango=(0, 1.05),
        pista="dígito {c}: probabilidad {v}",
    )


def _figura_paso(r: dict, t: int) -> Paneles:
    fichas, n = _fichas(r), LARGO + t
    mapa = _mapa(r["pesos_paso"][t - 1], fichas, n, f"Paso {t}: el modelo corre sobre {n} fichas", t)
    # El mapa a la derecha: su barra de color queda al borde y no pisa el eje de las barras.
    return Paneles((_barras(r["probs"][t - 1], t), mapa), columnas=2, anchos=(1, 1.6), alto_fila=330)


def _figura_pasada(r: dict, t: int) -> Paneles:
    """La pasada única (16 fichas a la vez, la fila del paso t recuadrada) y, al lado de cada fila que escribe, el
    logit del dígito escrito en el bucle y en la pasada: las dos columnas dan lo mismo."""
    fichas = _fichas(r)
    total = len(fichas)
    titulo = f"Entrenar: 1 pasada de {total} fichas, las {LARGO} filas que escriben a la vez"
    # Sin barra de color (la misma escala de 0 a 1 que la figura de arriba): la columna de logits va pegada al mapa.
    mapa = _mapa(r["pesos_pasada"], fichas, total, titulo, t, barra=None)
    logits = np.stack([r["logit_bucle"], r["logit_pasada"]], axis=1)  # (8, 2): la fila de «→» escribe y₁…
    columna = Mapa(
        np.round(logits, 2),
        x=("bucle", "1 pasada"),
        y=("",) * LARGO,
        nombres_y=mapa.nombres_y,
        titulo="Logit del dígito escrito",
        numeros=True,
        formato=".2f",
        vmin=0,
        vmax=8 * float(logits.max()),  # gris claro: lo que importa son los números
        colores="grises",
        barra=None,
        pista="{y}, {x}: {v}",
    )
    return Paneles((mapa, columna), columnas=2, anchos=(total, 3), alto_fila=330)


def _texto_paso(r: dict, t: int) -> str:
    fichas, n = _fichas(r), LARGO + t
    fila = r["pesos_paso"][t - 1][-1]  # la última fila: la que escribe
    j = int(np.argmax(fila))
    d, p = r["escrita"][t - 1], r["probs"][t - 1].max()
    entra = " ".join(fichas[:n])
    sigue = (
        f"Ese {d} entra al final en el paso {t + 1}."
        if t < LARGO
        else f"Es el último paso: escribió `{' '.join(map(str, r['escrita']))}`."
    )
    return (
        f"**Paso {t} de {LARGO}.** Entra `{entra}` ({n} fichas). El modelo las procesa todas, pero solo usa la "
        f"predicción de la última posición ({_nombre(n - 1, fichas[n - 1])}), que mira sobre todo a "
        f"**{_nombre(j, fichas[j])}** (peso {fila[j]:.2f}, promedio de las {r['cabezas']} cabezas) y escribe "
        f"**{d}** con probabilidad {p:.3f}. {sigue}"
    )


def _texto_pasada(r: dict, t: int) -> str:
    perdidas, n = r["perdidas"], LARGO + t
    fichas = _fichas(r)
    # La fila del paso t en la pasada única contra la última fila del bucle en ese paso.
    diferencia = np.abs(r["pesos_pasada"][n - 1, :n] - r["pesos_paso"][t - 1][-1]).max()
    mismo = r["escrita"] == r["correcta"]
    entrada = (
        "el bucle escribió justo la respuesta correcta, así que esa pasada ve las mismas fichas que vio el bucle"
        if mismo
        else "aquí el bucle escribió otra cosa que la respuesta correcta; la comparación usa lo que escribió"
    )
    return (
        f"**Entrenar.** Después de «→» va la respuesta correcta, no lo que escribe el modelo (*teacher forcing*): "
        f"{entrada}. Una pasada de {2 * LARGO} fichas da la pérdida de las {LARGO} posiciones que escriben: media "
        f"{perdidas.mean():.4f} (de {perdidas.min():.4f} a {perdidas.max():.4f} por posición). Con la máscara "
        "causal, ninguna fila ve la ficha que debe adivinar ni las siguientes: la fila resaltada "
        f"({_nombre(n - 1, fichas[n - 1])}) da {_iguales(diferencia, 'los mismos pesos', 'otros pesos')} que la "
        f"última fila del bucle en el paso {t}."
    )


def _iguales(diferencia: float, iguales: str, distintos: str) -> str:
    """«los mismos pesos (difieren en 6.0e-08)», «… (idénticos, bit a bit)» o «otros pesos (difieren en 0.3)»."""
    if diferencia == 0:
        return f"{iguales} (idénticos, bit a bit)"
    if diferencia < IGUALES:
        return f"{iguales} (difieren en {diferencia:.1e}, redondeo de float32)"
    return f"{distintos} (difieren en {diferencia:.2g})"


def _punto(r: dict) -> str:
    """La idea de la pestaña en una línea, con lo calculado: 8 pasadas contra 1, y cuánto difieren sus logits."""
    como = _iguales(r["diferencia"], "los mismos logits", "otros logits")
    return (
        f"**Generar contra entrenar:** el bucle hizo **{LARGO}** pasadas (de {LARGO + 1} a {2 * LARGO} fichas) "
        f"para escribir `{' '.join(map(str, r['escrita']))}`; el entrenamiento obtiene las {LARGO} predicciones "
        f"en **1** pasada de {2 * LARGO} fichas, con {como}."
    )


def calcular(digitos: str = LECCION, paso: float = 1):
    """La vista: (el punto en una línea, figura del paso t, su texto, figura de la pasada única, su texto)."""
    r = correr(tuple(leer_digitos(digitos)))
    t = entero(paso, "El paso t", 1, LARGO)
    return _punto(r), _figura_paso(r, t), _texto_paso(r, t), _figura_pasada(r, t), _texto_pasada(r, t)


# --- aprender: predecir y comprobarse (las respuestas salen de lo que muestra la pestaña) ----------------


def _pasadas(salida) -> dict:
    bucle, una = map(int, re.findall(r"\*\*(\d+)\*\* pasada", salida[0]))
    return {"respuesta": f"{bucle} y {una}", "bucle": bucle, "una": una}


def _mira_paso_3(salida) -> dict:
    mirada = re.search(r"mira sobre todo a \*\*(.+?)\*\*", salida[2]).group(1)
    clave = "x6" if mirada.startswith("x₆") else "x3" if mirada.startswith("x₃") else mirada
    return {"respuesta": clave, "mirada": mirada}


def _ve_lo_que_adivina(salida) -> dict:
    """En la pasada única, ¿la fila de «→» (que predice y₁) puede mirar a y₁? Se lee del mapa de la figura."""
    mapa = salida[3].paneles[0]
    tapada, peso = bool(mapa.tapada[0, LARGO + 1]), float(mapa.matriz[0, LARGO + 1])  # fila de «→», columna de y₁
    return {"respuesta": "no" if tapada and peso == 0 else "si", "peso": f"{peso:g}"}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "Para escribir los 8 dígitos, ¿cuántas pasadas del modelo hace el bucle, y cuántas necesita el "
        "entrenamiento para tener la pérdida de las 8 posiciones?",
        verdad=ap.EnLaPestana(calcular, _pasadas),
        opciones=(
            ap.Alternativa(
                "8 y 8",
                "8 el bucle y 8 el entrenamiento",
                "Al entrenar la respuesta ya se conoce: se escribe entera después de «→» y una pasada basta.",
            ),
            ap.Alternativa(
                "8 y 1",
                "8 el bucle y 1 el entrenamiento",
                "Cada dígito escrito tiene que volver a entrar, así que el bucle no puede adelantarse; al entrenar, "
                "la máscara causal deja calcular todas las posiciones juntas sin que ninguna vea su respuesta.",
            ),
            ap.Alternativa(
                "1 y 1",
                "1 el bucle y 1 el entrenamiento",
                "Al generar, el dígito del paso t todavía no existe cuando empieza el paso t: hay que escribirlo y "
                "volver a correr el modelo, una vez por dígito.",
            ),
        ),
        porque="El bucle hace {bucle} pasadas, una por dígito, porque cada una necesita lo que escribió la "
        "anterior. El entrenamiento hace {una}: la respuesta correcta va entera en la entrada y la máscara causal "
        "impide que cada posición vea la ficha que debe adivinar.",
    ),
    preguntas=(
        ap.Pregunta(
            "En el paso 3 (escribe y₃), ¿a qué posición mira sobre todo la fila que escribe?",
            (
                ap.Alternativa(
                    "x6",
                    "a x₆, el 6.º dígito de la entrada",
                    "y₃ es el 3.er dígito desde el final: x₆. La fila que escribe mira a **{mirada}**.",
                ),
                ap.Alternativa(
                    "x3",
                    "a x₃, el 3.er dígito de la entrada",
                    "Eso copiaría la secuencia al derecho; para invertir, y₃ sale de x₆ (mira a **{mirada}**).",
                ),
                ap.Alternativa(
                    "y2",
                    "a y₂, el último dígito que escribió",
                    "El último escrito le dice en qué paso va, pero el dígito lo copia de la entrada: mira a "
                    "**{mirada}**.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _mira_paso_3, cambio={"paso": 3}),
            tipo=ap.POSICION,
        ),
        ap.Pregunta(
            "En la pasada única del entrenamiento, y₁ ya está en la entrada. ¿Puede la posición de «→», que debe "
            "predecir y₁, mirarlo?",
            (
                ap.Alternativa(
                    "no",
                    "no: la máscara causal lo tapa",
                    "y₁ está a la derecha de «→»: su casilla es futuro, −∞ antes del softmax y peso {peso} después.",
                ),
                ap.Alternativa(
                    "si",
                    "sí, pero aprende a no usarlo",
                    "Si pudiera mirarlo, copiarlo sería la solución más fácil y al generar (cuando y₁ aún no existe) "
                    "fallaría; la máscara lo tapa: peso {peso}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _ve_lo_que_adivina),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Column():  # los controles y, debajo, la idea en una línea: todo arriba de la figura principal
        with gr.Row():
            digitos = gr.Textbox(
                LECCION, label="8 dígitos (con o sin espacios; Enter para calcular)", max_lines=1, scale=2
            )
            paso = Deslizador(1, LARGO, value=1, step=1, scale=3, label=f"Paso t (de 1 a {LARGO}): escribe el dígito t")
        punto = gr.Markdown(elem_id="generacion-punto")
    figura_paso = grafico("Atención del paso t y probabilidades del dígito siguiente")
    texto_paso = gr.Markdown()
    figura_pasada = grafico("La pasada única del entrenamiento: las 8 filas que escriben a la vez")
    texto_pasada = gr.Markdown()
    seccion(("generación autorregresiva", "teacher forcing", "máscara", "ficha", "pesos", "pérdida"), "generacion")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[digitos, paso],
        salidas=[punto, figura_paso, texto_paso, figura_pasada, texto_pasada],
        url={"digitos": digitos, "paso": paso},
        barridos=(Barrido(paso),),
    )
