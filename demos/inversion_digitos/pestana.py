"""Inversión de dígitos: el transformer de juguete de la lección y su mapa de atención.

Arriba, la vista pública: la predicción de un modelo (con posición, sin posición o
el que entrenó el visitante) y su mapa de atención. Las instantáneas del
entrenamiento y «Entrénalo tú» viven en `entrenar.py`; leer los dígitos, elegir
el modelo y predecir, en `modelo.py` (lo usan los dos); las figuras y la tabla, en
`dibujos.py`.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import gradio as gr
import numpy as np
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Opcion
from demos.comun.glosario import seccion
from demos.comun.validar import entero as _entero
from demos.comun.vista import Vista, envolver, explicacion, grafico, servido, un_reloj
from demos.inversion_digitos.dibujos import figura_atencion, tabla_prediccion
from demos.inversion_digitos.entrenar import construir_aprende, construir_entrena
from demos.inversion_digitos.fallos import construir_fallos
from demos.inversion_digitos.modelo import (
    CON,
    LECCION,
    MIO,
    NOMBRES,
    SIN,
    cuantos,
    elegir_modelo,
    leer_digitos,
    mapa,
    predecir,
)
from modelos.datos import DIGITOS, LARGO
from modelos.estrategia import cuentas_de_los_otros, es_moda_de_los_otros, tope_sin_posicion
from modelos.formato import miles, por_ciento

OPCIONES_MODELO = [("con posición", CON), ("sin posición", SIN), ("el mío (entrénalo abajo)", MIO)]
MAX_BLOQUES, MAX_CABEZAS = 3, 4
PROMEDIO = "promedio"
PRIMERA = "1"  # la figura de la lección dibuja la primera cabeza (`pesos[0, 0]`); el promedio, a un clic
OPCIONES_CABEZA = [(str(h), str(h)) for h in range(1, MAX_CABEZAS + 1)]

EXPLICACION = r"""
Un transformer de juguete (1 bloque, 2 cabezas, {parametros} parámetros) aprendió a **invertir** 8 dígitos:
la salida en la posición $i$ es la entrada en la posición $7 - i$. Para copiar el dígito correcto, cada
posición tiene que *mirar* a su espejo, y el mapa de atención dibuja la antidiagonal. Eso solo es posible
si al embedding de cada ficha se le suma su posición:

$$z_i = \text{embedding}(x_i) + \text{pos}(i), \qquad \text{salida}_i \approx x_{7-i}$$

Sin el término $\text{pos}(i)$, la atención ve un montón de dígitos sin orden: lo mejor que puede hacer es
escribir el dígito más frecuente entre los otros siete, y eso acierta, en promedio, el {tope} de los dígitos
(no el {azar}: los repetidos se adivinan).
"""

SIN_POSICION = (
    "**Sin posición**, la atención no distingue el orden: dos posiciones con el mismo dígito son idénticas "
    "para el modelo, y cada salida es la misma función de su propio dígito y del multiconjunto de todos los "
    "dígitos. Ninguna posición sabe cuál es su espejo."
)


# --- entrada ---------------------------------------------------------------------------------------


def digitos_al_azar(semilla: int | None = None) -> str:
    """8 dígitos al azar como texto, «d d d d d d d d»."""
    azar = random.Random(semilla)
    return " ".join(str(azar.randrange(DIGITOS)) for _ in range(LARGO))


def _cabeza(cabeza) -> int | None:
    """«promedio» -> None; «1»…«4» (o 1…4) -> índice desde 0."""
    if isinstance(cabeza, str) and cabeza.strip().lower() == PROMEDIO:
        return None
    try:
        return _entero(cabeza, "La cabeza", 1, MAX_CABEZAS) - 1
    except ValueError:
        raise ValueError(f"La cabeza debe ser «{PROMEDIO}» o un número del 1 al {MAX_CABEZAS}.") from None


# --- modelos ---------------------------------------------------------------------------------------


def forma(modelo: str = CON, propio=None) -> tuple[int, int]:
    """(bloques, cabezas) del modelo elegido: hasta dónde llegan los controles «Bloque» y «Cabeza»."""
    try:
        red = elegir_modelo(modelo, propio)
    except ValueError:  # «el mío» antes de entrenar: los controles quedan como el modelo de la lección
        red = elegir_modelo(CON)
    return len(red.bloques), red.bloques[0].atencion.cabezas


def opciones_cabeza(cabezas: int) -> list[tuple[str, str]]:
    """Las opciones del control «Cabeza» para un modelo con `cabezas` cabezas: cada una y el promedio."""
    return [*OPCIONES_CABEZA[:cabezas], ("promedio", PROMEDIO)]


def _ajustar_controles(modelo, propio, bloque, cabeza):
    """Al cambiar de modelo: el deslizador de bloques y las cabezas, solo hasta lo que el modelo tiene."""
    try:
        bloques, cabezas = forma(modelo, propio)
    except ValueError:
        return gr.skip(), gr.skip()
    validas = [v for _, v in opciones_cabeza(cabezas)]
    try:
        bloque = min(max(int(bloque), 1), bloques)
    except (TypeError, ValueError):
        bloque = 1
    return (
        gr.update(
            maximum=max(bloques, 2),
            value=bloque,
            interactive=bloques > 1,
            label=f"Bloque (tiene {cuantos(bloques, 'bloque')})",
        ),
        gr.update(choices=opciones_cabeza(cabezas), value=cabeza if cabeza in validas else PRIMERA),
    )


# --- la vista --------------------------------------------------------------------------------------


def _repetidos(digitos: list[int]) -> str:
    """«las posiciones 1 y 2 (dígito 3)», para el primer dígito que se repite; '' si no hay."""
    for d in dict.fromkeys(digitos):
        pos = [str(i) for i, x in enumerate(digitos) if x == d]
        if len(pos) > 1:
            return f"las posiciones {', '.join(pos[:-1])} y {pos[-1]} (dígito {d})"
    return ""


def texto_mapa_sin_posicion(matriz: np.ndarray, digitos: list[int]) -> str:
    """El mapa sin posición no es parejo, pero no depende del lugar: cada fila pesa los mismos dígitos."""
    mas_mirado = [digitos[int(j)] for j in matriz.argmax(axis=1)]  # el dígito más mirado de cada fila
    d, veces = Counter(mas_mirado).most_common(1)[0]
    return (
        f"El mapa **no** queda parejo (sus pesos van de {matriz.min():.2f} a {matriz.max():.2f}; parejo sería "
        f"{1 / LARGO:.3f} en cada casilla), pero no mira a ningún lugar: en cada fila, las casillas de un mismo dígito "
        f"pesan igual, y las filas de un mismo dígito son iguales. Miran dígitos, no posiciones: el dígito más mirado "
        f"es el {d} en {veces} de {LARGO} filas."
    )


def texto_estrategia(digitos: list[int], prediccion: list[int]) -> str:
    """Qué hace sin posición: escribir el dígito más frecuente entre los otros siete, y qué da aquí."""
    X, P = torch.tensor([digitos]), torch.tensor([prediccion])  # (1, 8)
    modas = int(es_moda_de_los_otros(X, P).sum())
    correcta = es_moda_de_los_otros(X, X.flip(dims=[1]))[0]  # (8,): ¿la respuesta es uno de los más frecuentes?
    cuentas = cuentas_de_los_otros(X)[0]  # (8, 10)
    empates = (cuentas == cuentas.amax(dim=-1, keepdim=True)).sum(dim=-1)  # (8,): cuántos dígitos empatan
    empatada = int((correcta & (empates > 1)).sum())
    aciertos = sum(p == c for p, c in zip(prediccion, digitos[::-1], strict=True))
    texto = (
        f"Lo que aprendió es una estrategia sin orden: escribir el dígito **más frecuente entre los otros siete**. "
        f"Aquí {modas} de {LARGO} de sus dígitos son uno de esos más frecuentes, y la inversión correcta lo es "
        f"en {int(correcta.sum())} de {LARGO} posiciones"
        + (f" (empatada con otros dígitos en {empatada}: ahí elige uno)" if empatada else "")
        + f": acierta {aciertos} de {LARGO}."
    )
    if digitos == digitos[::-1] and not correcta.any():
        texto += (
            " En un palíndromo la respuesta de cada posición es su propio dígito, que entre los otros siete sale una "
            "vez menos que los repetidos: la estrategia falla en todas."
        )
    return texto


def _texto(digitos, prediccion, modelo, nombre, avisos, matriz) -> str:
    correcta = digitos[::-1]
    aciertos = sum(p == c for p, c in zip(prediccion, correcta, strict=True))
    partes = [
        f"**{nombre}** predice **{' '.join(map(str, prediccion))}**; la inversión correcta es "
        f"**{' '.join(map(str, correcta))}**: {aciertos} de {LARGO} dígitos bien."
    ]
    partes += avisos
    if modelo.posicion is None:
        partes.append(SIN_POSICION)
        partes.append(texto_mapa_sin_posicion(matriz, digitos))
        partes.append(texto_estrategia(digitos, prediccion))
        if rep := _repetidos(digitos):
            partes.append(f"Mira {rep}: sus filas del mapa son iguales y predicen el mismo dígito.")
    else:
        partes.append("Con posición, cada fila mira a su espejo (recuadros naranjas): la antidiagonal.")
    return "\n\n".join(partes)


def calcular(digitos: str = LECCION, modelo: str = CON, bloque: float = 1, cabeza: str = PRIMERA, propio=None):
    """La vista: (tabla HTML de la predicción, mapa de atención, texto)."""
    entrada = leer_digitos(digitos)
    bloque_ = _entero(bloque, "El bloque", 1, MAX_BLOQUES) - 1
    cabeza_ = _cabeza(cabeza)
    red = elegir_modelo(modelo, propio)
    nombre = NOMBRES[modelo]
    prediccion, prob, pesos = predecir(red, entrada)
    avisos = []
    # Los controles van hasta 3 bloques y 4 cabezas; un modelo con menos muestra el último que tiene.
    if bloque_ >= len(pesos):
        avisos.append(f"Este modelo tiene {cuantos(len(pesos), 'bloque')}: se muestra el bloque {len(pesos)}.")
        bloque_ = len(pesos) - 1
    cabezas = pesos[bloque_].shape[0]
    if cabeza_ is not None and cabeza_ >= cabezas:
        avisos.append(f"Este modelo tiene {cuantos(cabezas, 'cabeza')}: se muestra la cabeza {cabezas}.")
        cabeza_ = cabezas - 1
    que = f"promedio de {cabezas} cabezas" if cabeza_ is None else f"cabeza {cabeza_ + 1} de {cabezas}"
    titulo = f"¿A dónde mira cada posición?\n{nombre.lower()} · bloque {bloque_ + 1} · {que}"
    aciertos = sum(p == c for p, c in zip(prediccion, entrada[::-1], strict=True))
    matriz = mapa(pesos, bloque_, cabeza_)  # (L, L)
    return (
        tabla_prediccion(entrada, prediccion, prob, f"{nombre}: {aciertos} de {LARGO} bien"),
        figura_atencion(matriz, entrada, prediccion, titulo),
        _texto(entrada, prediccion, red, nombre, avisos, matriz),
    )


# --- aprender: predecir y comprobarse (las respuestas las lee de lo que muestra `calcular`) ----------


def _mira_primera(salida) -> dict:
    """A qué posición de la entrada mira sobre todo la posición 0 de la salida, en el mapa de la vista."""
    fila = np.asarray(salida[1].matriz)[0]  # (L,)
    L, j = len(fila), int(fila.argmax())
    que = "espejo" if j == L - 1 else "propia" if j == 0 else f"la {j}"
    que = "todas" if fila.max() - fila.min() < 1 / L else que  # una fila casi pareja no mira a ninguna
    return {
        "respuesta": que,
        "posicion": j,
        "peso": f"{fila.max():.2f}",
        "ultima": L - 1,
        "minimo": f"{fila.min():.2f}",
    }


def _prediccion_leccion(salida) -> str:
    return re.search(r"predice \*\*([\d ]+)\*\*", salida[2]).group(1)


def _filas_repetidas(salida) -> dict:
    """¿Son iguales en el mapa las filas 1 y 2 (las dos posiciones con el mismo dígito de la entrada)?"""
    m = np.asarray(salida[1].matriz)
    iguales = bool(np.allclose(m[1], m[2], atol=1e-6))
    return {
        "respuesta": "iguales" if iguales else "distintas",
        "dif": "0" if (d := float(np.abs(m[1] - m[2]).max())) == 0 else f"{d:.0e}",
        "mayor": f"{m[1].max():.2f}",
    }


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        f"Con la entrada {LECCION}, ¿a qué posición de la entrada mira sobre todo la posición 0 de la salida?",
        verdad=ap.EnLaPestana(calcular, _mira_primera),
        opciones=(
            ap.Alternativa(
                "propia",
                "a la 0, la suya",
                f"Su propia posición tiene el {LECCION.split()[0]}, el primer dígito de la entrada; para escribir "
                "el primero de la inversión necesita el último.",
            ),
            ap.Alternativa(
                "espejo",
                "a la 7, la última",
                "La posición 0 de la salida escribe el primer dígito de la inversión, que es el último de la entrada.",
            ),
            ap.Alternativa(
                "todas",
                "a todas por igual",
                "Mirar a todas por igual promediaría los ocho dígitos, y ninguno se puede copiar así: su fila va de "
                "{minimo} a {peso}.",
            ),
        ),
        tipo=ap.POSICION,
        porque="En la fila 0 del mapa, el peso mayor ({peso}) está en la posición {posicion}: para escribir el "
        "primer dígito de la inversión copia el último de la entrada. Por eso el mapa es la diagonal invertida.",
    ),
    preguntas=(
        ap.Pregunta(
            f"¿Qué escribe el modelo con posición para {LECCION}?",
            (
                ap.Alternativa(
                    " ".join(LECCION.split()[::-1]),
                    " ".join(LECCION.split()[::-1]),
                    "La entrada al revés: aprendió la tarea.",
                ),
                ap.Alternativa(
                    LECCION, LECCION, "Esa es la entrada: el modelo la invierte, y acierta todos los dígitos."
                ),
                ap.Alternativa(
                    " ".join(sorted(LECCION.split())),
                    " ".join(sorted(LECCION.split())),
                    "Esos son los dígitos ordenados; el modelo escribe la entrada al revés.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _prediccion_leccion),
        ),
        ap.Pregunta(
            f"Elige el modelo sin posición. En {LECCION}, las posiciones 1 y 2 tienen el mismo dígito (3): en el "
            "mapa, sus filas…",
            (
                ap.Alternativa(
                    "iguales",
                    "son iguales",
                    "Sin posición, cada fila depende solo de su propio dígito y de la bolsa de los demás: dos "
                    "posiciones con el mismo dígito dan la misma fila (diferencia máxima entre las dos: {dif}) y "
                    "escriben lo mismo.",
                ),
                ap.Alternativa(
                    "espejo",
                    "cada una mira a su espejo (la 6 y la 5)",
                    "Para mirar a su espejo tendría que saber dónde está, y sin posición no lo sabe: las dos filas "
                    "son iguales (diferencia máxima: {dif}).",
                ),
                ap.Alternativa(
                    "distintas",
                    "son distintas, sin relación",
                    "Sin posición nada distingue la posición 1 de la 2 si tienen el mismo dígito: las dos filas "
                    "son iguales (diferencia máxima: {dif}).",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _filas_repetidas, cambio={"modelo": SIN}),
        ),
    ),
)


def construir() -> Vista:
    parametros = sum(p.numel() for p in elegir_modelo(CON).parameters())
    explicacion(
        EXPLICACION.replace("{parametros}", miles(parametros))
        .replace("{tope}", f"{por_ciento(float(tope_sin_posicion()))}")
        .replace("{azar}", f"{por_ciento(1 / DIGITOS, 0)}")
    )
    with gr.Row():
        with gr.Column(scale=1):
            digitos = gr.Textbox(LECCION, label="8 dígitos (con o sin espacios; Enter para calcular)", max_lines=1)
            with gr.Row():  # el botón al lado de los ejemplos, no encima: una fila menos
                azar = gr.Button("Dígitos al azar", size="sm", scale=0, min_width=110)
                ejemplos = gr.Examples(
                    [[LECCION], ["7 7 7 7 2 2 2 2"], ["1 2 3 4 4 3 2 1"], ["0 1 2 3 4 5 6 7"]],
                    inputs=[digitos],
                    example_labels=["la lección", "dígitos repetidos", "palíndromo", "todos distintos"],
                    label="Ejemplos",
                    api_visibility="private",
                )
        with gr.Column(scale=1):
            modelo = Opcion(OPCIONES_MODELO, value=CON, label="Modelo")
            with gr.Row():
                bloques, cabezas = forma(CON)
                bloque = Deslizador(
                    1,
                    max(bloques, 2),  # un deslizador de 1 a 1 no se dibuja bien: con un bloque queda inactivo
                    value=1,
                    step=1,
                    interactive=bloques > 1,
                    label=f"Bloque (tiene {cuantos(bloques, 'bloque')})",
                    scale=5,
                )
                cabeza = Opcion(
                    opciones_cabeza(cabezas), value=PRIMERA, label="Cabeza (la lección dibuja la 1)", scale=4
                )
    propio = gr.State(None, time_to_live=3600, delete_callback=lambda m: m.clear() if isinstance(m, dict) else None)
    with gr.Row():
        with gr.Column():
            prediccion = gr.HTML(label="Predicción contra la inversión correcta")
            texto = gr.Markdown()
        atencion = grafico("Mapa de atención")
    entradas, salidas = [digitos, modelo, bloque, cabeza, propio], [prediccion, atencion, texto]
    extra_entradas, extra_salidas, seguir = construir_aprende(digitos, texto)

    def calcular_y_seguir(*valores):
        """Otros dígitos: la vista y la instantánea de «Mira cómo aprende», en un solo evento."""
        return (*calcular(*valores[: len(entradas)]), *seguir(valores[0], *valores[len(entradas) :]))

    con_digitos = {
        "fn": envolver(calcular_y_seguir),
        "inputs": entradas + extra_entradas,
        "outputs": salidas + extra_salidas,
        "api_visibility": "private",
        **un_reloj(salidas),
    }
    gr.on([digitos.submit, digitos.blur], **con_digitos, trigger_mode="always_last")
    azar.click(digitos_al_azar, outputs=digitos, api_visibility="private", queue=False).then(**con_digitos)
    ejemplos.load_input_event.then(**con_digitos)
    construir_entrena(modelo, propio).then(
        envolver(calcular), entradas, salidas, api_visibility="private", **un_reloj(salidas)
    )
    construir_fallos()  # el laboratorio de fallos (§7.2) y la comparación de cabezas (§7.1)
    # Otro modelo (elegido, desde la URL o recién entrenado): los controles, solo hasta sus bloques y cabezas.
    gr.on(
        [modelo.change, propio.change],
        _ajustar_controles,
        [modelo, propio, bloque, cabeza],
        [bloque, cabeza],
        api_visibility="private",
        queue=False,
    ).then(envolver(calcular), entradas, salidas, api_visibility="private", **un_reloj(salidas))
    terminos = ("ficha", "embedding", "posición", "pesos", "parámetros", "cabeza", "máscara", "LayerNorm")
    seccion((*terminos, "lote", "paso", "época", "pérdida", "tasa de aprendizaje", "entropía"), "inversion-digitos")
    servido(bloque, "su máximo cambia con el modelo elegido; las paradas de un barrido son fijas")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=entradas,
        salidas=salidas,
        url={"digitos": digitos, "modelo": modelo, "cabeza": cabeza},
        disparadores=[modelo.input, bloque.input, cabeza.input],  # los dígitos van con la instantánea (arriba)
        ejemplo={"digitos": "1 2 3 4 5 6 7 8"},
        invalido={"digitos": "1 2 3"},
    )
