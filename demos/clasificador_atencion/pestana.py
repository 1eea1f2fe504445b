"""Clasificador con atención: un clasificador de opiniones inspirado en el del tutorial (§6), palabra por palabra.

Arriba, las funciones puras: leer una frase con el checkpoint `clasificador-opiniones` (clase,
probabilidad, peso de la agrupación de cada palabra y atención de cada cabeza), quitar una palabra
y comparar. Las figuras están en `dibujos.py`, a su lado. Abajo, `construir()`.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache

import gradio as gr
import numpy as np
import torch

from demos.clasificador_atencion.dibujos import figura_cabezas, figura_pesos
from demos.comun import aprender as ap
from demos.comun.controles import Desplegable, Opcion
from demos.comun.glosario import seccion
from demos.comun.seguridad import escapar_md
from demos.comun.validar import entero as _entero
from demos.comun.vista import LATEX, Vista, envolver, explicacion, grafico, un_reloj
from modelos import ClasificadorAtencion, cargar, cargar_archivo
from modelos.formato import por_ciento
from modelos.opiniones import CLASES
from modelos.prediccion import NOMBRE, Lectura, fichas, predecir, sin_ficha, vocabulario

FRASE = "La película no fue nada aburrida."  # abre en la advertencia: «no» pesa 0.97 en una opinión positiva
OTRA_FRASE = "No me gustó la cena."  # negativa, y también con casi todo el peso en la posición de «no»
DOS_FRASES = (OTRA_FRASE, FRASE)  # el mismo peso de «no» en dos frases de clases opuestas
NINGUNA = 0  # «quitar» = 0: no se quita ninguna palabra
VACIA = "Escribe una frase: debe tener al menos una palabra (p. ej. «La cena estuvo deliciosa.»)."
EJEMPLOS = [
    ("negar algo negativo", FRASE),
    ("negación", OTRA_FRASE),
    ("positiva", "La cena estuvo deliciosa."),
    ("contraste", "La serie era muy divertida pero el final fue un desastre."),
    (
        "frase larga",
        "La vi por recomendación de una amiga: los actores son verdaderamente espectaculares, "
        "la música me emocionó y dura casi tres horas.",
    ),
    ("palabras que no conoce", "Una peli chulísima, me flipó."),
]

# Arriba de la figura, lo que la pestaña enseña: qué es α y qué no, con los números de `advertencia()`.
EXPLICACION = r"""
{punto}

Un clasificador de opiniones **entrenado**, inspirado en el del tutorial (§6): **{bloques} bloques transformer** mezclan
la frase y una **agrupación por atención** la junta en un solo vector, con un peso $\alpha_i$ por **posición**
(suman 1). Una capa lineal decide si la opinión es negativa o positiva.

**Qué es α y qué no.** {advertencia}
"""

# Debajo de las figuras: la fórmula, en qué difiere del tutorial y de dónde salen los datos.
DETALLE = r"""
**La agrupación.** $\alpha_i = \text{softmax}_i(w \cdot h_i + b)$, $v = \sum_i \alpha_i\, h_i$, con
$\sum_i \alpha_i = 1$: $\alpha_i$ pesa $h_i$, el vector de la posición $i$ **después de {bloques} bloques** que ya
mezclaron en él toda la frase; no es la palabra sola, ni cuánto «importa».

Los mapas de arriba muestran a quién mira cada palabra en cada cabeza del bloque elegido: son cabezas
**entrenadas**, sobre palabras de verdad (la sección 5.2 del tutorial las simula al azar). **En qué difiere del
tutorial:**
{diferencias}

**Datos sintéticos.** No hay un corpus abierto de opiniones en español que se instale con sus datos, así
que el modelo aprendió de frases generadas por una gramática (reseñas de películas, series, restaurantes,
libros y hoteles, con negaciones, «muy», «pero»…; {fichas} palabras y signos). Acierta el {exactitud} de las
frases del conjunto de prueba de esa gramática, pero no sabe nada de opiniones reales: una palabra que no vio la lee
como `<desconocida>`.
"""


# --- el modelo y la lectura -------------------------------------------------------------------------


@lru_cache(maxsize=1)
def modelo() -> ClasificadorAtencion:
    """El checkpoint en float64, una copia por proceso que nadie muta.

    En float32, MKL suma en otro orden según la alineación de la memoria y el último dígito de un peso
    cambia de una petición a otra; en float64 la misma frase da siempre la misma figura.
    """
    original = cargar(NOMBRE)
    lugar = next(original.parameters()).device
    lugar = torch.device("cpu") if lugar.type == "mps" else lugar  # MPS no tiene float64
    return copy.deepcopy(original).to(lugar, torch.float64).eval()


@lru_cache(maxsize=1)
def exactitud_de_prueba() -> float:
    """La exactitud en el conjunto de prueba que dice la tarjeta del checkpoint (la mide tests/test_clasificador.py)."""
    tarjeta = cargar_archivo(NOMBRE, "README.md").read_text(encoding="utf-8")
    valor = re.search(r"name: exactitud en prueba\s+value: ([0-9.]+)", tarjeta)
    if valor is None:
        raise ValueError(f"La tarjeta de {NOMBRE} no dice su exactitud en prueba.")
    return float(valor.group(1))


def bloques() -> int:
    return len(modelo().bloques)


def leer(frase) -> Lectura:
    """La lectura de `frase` (ValueError en español si no es texto o está vacía)."""
    if not isinstance(frase, str) or not frase.strip():
        raise ValueError(VACIA if isinstance(frase, str) or frase is None else f"La frase debe ser texto. {VACIA}")
    return predecir(frase, modelo())


def opciones_quitar(frase) -> list[tuple[str, int]]:
    """Las opciones de «Quita esta palabra»: «ninguna» y cada ficha que lee el modelo, numeradas desde 1."""
    try:
        leidas, _, _ = fichas(frase)
    except ValueError:
        return [("ninguna", NINGUNA)]
    if len(leidas) < 2:  # quitar la única palabra no deja nada que leer
        return [("ninguna", NINGUNA)]
    return [("ninguna", NINGUNA)] + [
        (f"{i} · {corta(f.escrita)}" + ("" if f.conocida else " (no la conoce)"), i) for i, f in enumerate(leidas, 1)
    ]


def _quitar(quitar, lectura: Lectura) -> int:
    """«quitar» validado: 0 (ninguna) o el número de una de las fichas de la frase, desde 1."""
    L = len(lectura.fichas)
    n = _entero(quitar, "La palabra que se quita («quitar»)", 0, 10**6)
    if n > L:
        raise ValueError(
            f"La frase tiene {L} {'palabra o signo' if L == 1 else 'palabras y signos'}: "
            f"«quitar» debe ser de 0 (ninguna) a {L}; llegó {n}."
        )
    if n and L == 1:
        raise ValueError("La frase tiene una sola palabra: si se quita, no queda nada que leer. Elige 0 (ninguna).")
    return n


def comparar(lectura: Lectura, quitar: int) -> Lectura | None:
    """La lectura de la frase sin la ficha n.º `quitar` (desde 1); None si `quitar` es 0."""
    if not quitar:
        return None
    return predecir(sin_ficha(lectura.texto, quitar - 1), modelo())


# --- el texto -------------------------------------------------------------------------------------------


def _p(x: float) -> str:
    return f"{x:.3f}"


def corta(palabra: str, maximo: int = 30) -> str:
    """Una palabra larguísima (10,000 «x» seguidas) se nombra por su principio."""
    return palabra if len(palabra) <= maximo else palabra[: maximo - 1] + "…"


def _palabra(lectura: Lectura, i: int) -> str:
    return f"«{escapar_md(corta(lectura.fichas[i].escrita))}»"


def _mayor(lectura: Lectura) -> int:
    return int(lectura.pesos.argmax())


def punto() -> str:
    """La primera línea de la pestaña (lo que se ve con la explicación plegada): α no decide la opinión, calculado."""
    (neg, a_neg, w_neg), (pos, a_pos, w_pos) = (
        (lectura.clase, float(lectura.pesos[i]), lectura.fichas[i].escrita.casefold())
        for lectura, i in ((lectura, _mayor(lectura)) for lectura in map(leer, DOS_FRASES))
    )
    if neg == pos or w_neg != w_pos:
        return "**α no es «importancia»:** dice de qué posición se toma el vector, no qué palabra decide la opinión."
    igual = f"{a_neg:.2f}" == f"{a_pos:.2f}"
    return (
        f"**α no decide la opinión:** «{w_pos}» se lleva α = {a_pos:.2f} en «{FRASE}» ({pos}) y "
        + ("" if igual else f"{a_neg:.2f} ")
        + f"en «{OTRA_FRASE}» ({neg})."
    )


def advertencia() -> str:
    """La advertencia, calculada: la posición de más peso, su α y la clase, en las dos frases de DOS_FRASES."""
    lecturas = [leer(frase) for frase in DOS_FRASES]
    mayores = [_mayor(lectura) for lectura in lecturas]
    partes = [
        f"la posición de {_palabra(lectura, i)} se lleva α = {lectura.pesos[i]:.2f} en «{frase}» (**{lectura.clase}**)"
        for frase, lectura, i in zip(DOS_FRASES, lecturas, mayores, strict=True)
    ]
    alfas = [float(lectura.pesos[i]) for lectura, i in zip(lecturas, mayores, strict=True)]
    palabras = {lectura.fichas[i].escrita.casefold() for lectura, i in zip(lecturas, mayores, strict=True)}
    opuestas = lecturas[0].clase != lecturas[1].clase
    texto = partes[0][0].upper() + partes[0][1:] + ", y " + partes[1]
    if opuestas and len(palabras) == 1 and abs(alfas[0] - alfas[1]) < 0.05:
        texto += ": casi el mismo peso, en la misma palabra, en dos opiniones opuestas"
    return (
        texto + ". α dice de qué posición se toma el vector, no qué palabra decide: lo que decide la clase es lo que "
        f"los {bloques()} bloques escribieron en ese vector después de leer toda la frase."
    )


def diferencias(red: ClasificadorAtencion | None = None) -> str:
    """En qué se aparta el modelo del `AttentionClassifier` del tutorial, leído del modelo mismo."""
    red = modelo() if red is None else red
    d = red.d_modelo
    activacion = type(red.bloques[0].mlp[1]).__name__  # (Linear, activación, Linear)
    posicion = (
        f"posiciones **aprendidas** (`nn.Embedding({red.posicion.num_embeddings}, {d})`) sumadas al embedding; el "
        f"tutorial usa las **sinusoidales** y antes multiplica el embedding por √d (√{d} = {d**0.5:g})"
        if red.posicion is not None
        else f"posiciones sinusoidales con el embedding × √d (√{d} = {d**0.5:g}), como el tutorial"
    )
    return "\n".join(
        [
            f"- {posicion};",
            f"- {len(red.bloques)} bloques **pre-norma** con {activacion} (LayerNorm antes de la atención y del MLP, "
            "como la lección); el tutorial usa `nn.TransformerEncoder` con su capa por omisión, **post-norma** "
            "(`norm_first=False`: la LayerNorm después de cada suma), con GELU y dropout;",
            f"- después de la agrupación, **una sola capa lineal** ({red.salida.in_features} → "
            f"{red.salida.out_features}); el tutorial, Linear–GELU–Dropout–Linear.",
        ]
    )


def _resumen(lectura: Lectura) -> str:
    otra = CLASES[1 - CLASES.index(lectura.clase)]
    i = _mayor(lectura)
    suma = float(lectura.pesos.sum())
    partes = [
        f"El modelo lee una opinión **{lectura.clase}**, con probabilidad **{_p(lectura.probabilidad)}** "
        f"({otra}: {_p(1 - lectura.probabilidad)}).",
        f"La agrupación da el peso más alto a la posición de {_palabra(lectura, i)} (**{lectura.pesos[i]:.2f}**); "
        f"los {len(lectura.fichas)} pesos suman {suma:.3f}. Ese α pesa el vector de esa posición después de "
        f"{bloques()} bloques que ya mezclaron la frase entera: no mide cuánto importa la palabra sola."
        if len(lectura.fichas) > 1
        else f"La frase tiene una sola ficha, {_palabra(lectura, i)}: se lleva todo el peso ({suma:.3f}).",
    ]
    desconocidas = [f for f in lectura.fichas if not f.conocida]
    if desconocidas:
        partes.append("En la figura, las palabras que no conoce van recuadradas en naranja.")
    partes += [escapar_md(a) for a in lectura.avisos]
    return "\n\n".join(partes)


def _cabezas(lectura: Lectura, bloque: int) -> str:
    """A qué palabra mira más cada cabeza del bloque, en promedio sobre las palabras que miran."""
    pesos = lectura.atencion[bloque - 1].mean(dim=1)  # (cabezas, L): la media de las filas de cada cabeza
    miradas = [
        f"{k} → {_palabra(lectura, int(j))} ({pesos[k - 1, j]:.2f})" for k, j in enumerate(pesos.argmax(dim=1), 1)
    ]
    return (
        f"**Bloque {bloque}, a quién mira más cada cabeza** (en promedio sobre todas las palabras que miran): "
        + ", ".join(miradas)
        + ". "
        + _cuantas_distintas(pesos.argmax(dim=1).tolist(), lectura)
    )


def _cuantas_distintas(miradas: list[int], lectura: Lectura) -> str:
    """Cuántas palabras distintas miran más las cabezas, dicho con lo calculado."""
    distintas = len({lectura.fichas[j].escrita.casefold() for j in miradas})
    if distintas == 1:
        return "Todas las cabezas miran sobre todo a la misma palabra."
    return f"Las {len(miradas)} cabezas no miran todas a lo mismo: sus palabras más miradas son {distintas} distintas."


def _cambio(antes: Lectura, despues: Lectura, quitada: int) -> str:
    palabra = _palabra(antes, quitada - 1)
    if despues.clase == antes.clase:
        veredicto = f"sigue siendo **{despues.clase}** (probabilidad {_p(despues.probabilidad)})"
    else:
        veredicto = f"pasa a **{despues.clase}** (probabilidad {_p(despues.probabilidad)})"
    i, j = _mayor(antes), _mayor(despues)
    return (
        f"**Sin {palabra}** (la n.º {quitada}), la opinión {veredicto}. El peso más alto, que tenía "
        f"{_palabra(antes, i)} ({antes.pesos[i]:.2f}), lo tiene ahora {_palabra(despues, j)} "
        f"({despues.pesos[j]:.2f}): sin esa palabra, el modelo relee la frase entera, con otros vectores y otros pesos."
    )


# --- la vista -----------------------------------------------------------------------------------------


def calcular(frase: str = FRASE, bloque: float = 1, quitar: float = NINGUNA):
    """La vista: (probabilidad de cada clase, pesos de la agrupación, texto, atención por cabeza del bloque)."""
    lectura = leer(frase)
    b = _entero(bloque, "El bloque", 1, bloques())
    n = _quitar(quitar, lectura)
    despues = comparar(lectura, n)
    texto = _resumen(lectura) + "\n\n" + _cabezas(lectura, b)
    if despues is not None:
        texto = _cambio(lectura, despues, n) + "\n\n" + texto
    probabilidades = dict(zip(CLASES, lectura.probabilidades, strict=True))
    return (
        probabilidades,
        figura_pesos(lectura, despues, n),
        texto,
        figura_cabezas(lectura, b),
    )


def _al_cambiar_frase(frase):
    """Otra frase: las opciones de «quitar» son sus palabras, y no se quita ninguna; y la frase leída."""
    return gr.update(choices=opciones_quitar(frase), value=NINGUNA), frase


def leer_frase(frase: str = FRASE, bloque: float = 1):
    """Otra frase: (opciones de «quitar» en «ninguna», la vista sin quitar nada, la frase leída)."""
    quitar, leida = _al_cambiar_frase(frase)
    return (quitar, *calcular(frase, bloque, NINGUNA), leida)


# Con la frase de las opciones de «quitar», nada; con otra, la señal toma la frase (sin ir al servidor).
JS_SI_ES_OTRA = "(frase, leida, senal) => (frase === leida ? senal : frase)"


# --- aprender: predecir y comprobarse (las respuestas las lee de lo que muestra `calcular`) ----------

QUITAR_NO = 3  # «no» en «La película no fue nada aburrida.» (las fichas se numeran desde 1); _sin_no lo comprueba


def _lectura_de(salida) -> dict:
    """Clase, probabilidad y la posición de más α en la frase entera, de lo que muestra la vista."""
    probabilidades = salida[0]
    clase = max(probabilidades, key=probabilidades.get)
    mapa = salida[1].paneles[0]
    fila = np.asarray(mapa.matriz)[0]
    i = int(fila.argmax())
    return {
        "clase": clase,
        "p": por_ciento(probabilidades[clase], 0),
        "palabra": mapa.x[i],
        "peso": f"{fila[i]:.2f}",
    }


def _clase_y_otra(antes, despues) -> dict:
    """La clase de la frase de apertura, con las cifras de las dos frases para el porqué."""
    return {**_clase_y_posicion(antes, despues), "respuesta": _lectura_de(antes)["clase"]}


def _clase_y_posicion(antes, despues) -> dict:
    """La clase y la posición de más peso en la frase de apertura, y lo mismo en la otra frase que nombra."""
    a, d = _lectura_de(antes), _lectura_de(despues)
    return {
        "respuesta": f"{a['clase']} {a['palabra'].casefold()}",
        **a,
        "otra_clase": d["clase"],
        "otra_palabra": d["palabra"],
        "otro_peso": d["peso"],
    }


def _sin_no(salida) -> dict:
    """La clase de la frase sin la palabra quitada, del título de la figura de los pesos."""
    mapa = salida[1].paneles[0]
    if mapa.x[QUITAR_NO - 1] != "no":
        raise ValueError(f"La palabra n.º {QUITAR_NO} de «{FRASE}» no es «no»: la pregunta nombra otra.")
    clase, p = re.search(r"sin la n\.º \d+, (\w+) \(([\d.]+)\)", mapa.titulo).groups()
    return {"respuesta": clase, "p": por_ciento(float(p), 0), "antes": _lectura_de(salida)["clase"]}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        f"¿Qué opinión lee el modelo en «{FRASE}»?",
        verdad=ap.EnLaPestana(calcular, _clase_y_otra, cambio={"frase": OTRA_FRASE}),
        opciones=(
            ap.Alternativa(
                "positiva",
                "positiva",
                "La frase niega algo negativo («no … aburrida»): dice que la película estuvo bien.",
                opuesta="negativa",
            ),
            ap.Alternativa(
                "negativa",
                "negativa",
                "«aburrida» es negativa, pero está negada: los bloques leen la frase entera, no las palabras sueltas.",
                opuesta="positiva",
            ),
        ),
        porque="Lee una opinión {clase} ({p}), y la posición de «{palabra}» se lleva α = {peso}. Escribe «"
        + OTRA_FRASE
        + "»: lee una opinión {otra_clase}, y la posición de «{otra_palabra}» se lleva {otro_peso}. α dice de qué "
        "posición se toma el vector, no qué palabra decide: lo que decide es lo que los bloques escribieron en ese "
        "vector después de leer toda la frase.",
    ),
    preguntas=(
        ap.Pregunta(
            f"En «{FRASE}», ¿qué clase da y qué posición se lleva más α? Después escribe «{OTRA_FRASE}» y compara.",
            (
                ap.Alternativa(
                    "positiva no",
                    "positiva, y la posición de «no»",
                    "Positiva ({p}), y la posición de «{palabra}» se lleva {peso} del peso. Pero en «"
                    + OTRA_FRASE
                    + "», que es {otra_clase}, la posición de «{otra_palabra}» se lleva {otro_peso}: α dice de qué "
                    "posición se toma el vector, no qué palabra decide la opinión.",
                ),
                ap.Alternativa(
                    "negativa aburrida",
                    "negativa, y la posición de «aburrida»",
                    "Da {clase} ({p}), y la posición de más peso es la de «{palabra}», con {peso}: los bloques ya "
                    "leyeron «no … aburrida» juntas.",
                ),
                ap.Alternativa(
                    "positiva nada",
                    "positiva, y la posición de «nada»",
                    "La clase es {clase}, pero la posición de más peso es la de «{palabra}», con {peso}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _clase_y_posicion, cambio={"frase": OTRA_FRASE}),
        ),
        ap.Pregunta(
            f"En «Quita esta palabra», elige la n.º {QUITAR_NO}, «no» (queda «La película fue nada aburrida.», que "
            "no es español correcto: sirve para probar al modelo). La opinión…",
            (
                ap.Alternativa(
                    "negativa",
                    "pasa a negativa",
                    "Sin el «no», el modelo relee la frase y «aburrida» ya no está negada: da {respuesta} ({p}).",
                    opuesta="positiva",
                ),
                ap.Alternativa(
                    "positiva",
                    "sigue positiva",
                    "Sin el «no», nada niega a «aburrida»: el modelo relee la frase entera y da {respuesta} ({p}).",
                    opuesta="negativa",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _sin_no, cambio={"quitar": QUITAR_NO}),
        ),
    ),
)


def construir() -> Vista:
    explicacion(
        EXPLICACION.replace("{punto}", punto())
        .replace("{bloques}", str(bloques()))
        .replace("{advertencia}", advertencia())
    )
    with gr.Row():
        with gr.Column(scale=3):
            frase = gr.Textbox(FRASE, label="Frase (Enter para leerla)", max_lines=1)
            ejemplos = gr.Examples(
                [[f] for _, f in EJEMPLOS],
                inputs=[frase],
                example_labels=[e for e, _ in EJEMPLOS],
                label="Ejemplos",
                api_visibility="private",
            )
        with gr.Column(scale=2):
            prediccion = gr.Label(label="Predicción para la frase entera", num_top_classes=len(CLASES))
    pesos = grafico("Peso α de cada posición en la agrupación")
    with gr.Row():
        quitar = Desplegable(
            opciones_quitar(FRASE),
            value=NINGUNA,
            label="Quita esta palabra",
            scale=2,
            elem_id="clasificador-atencion-quitar",
        )
        bloque = Opcion(
            [(f"bloque {k}", k) for k in range(1, bloques() + 1)],
            value=1,
            label="Bloque del codificador (mapas de abajo)",
            scale=1,
        )
    texto = gr.Markdown()
    cabezas = grafico("Atención de cada cabeza del bloque elegido")
    gr.Markdown(
        DETALLE.replace("{fichas}", str(len(vocabulario()) - 2))
        .replace("{bloques}", str(bloques()))
        .replace("{exactitud}", por_ciento(exactitud_de_prueba()))
        .replace("{diferencias}", diferencias()),
        latex_delimiters=LATEX,
    )
    entradas, salidas = [frase, bloque, quitar], [prediccion, pesos, texto, cabezas]

    # Otra frase (escrita o de un ejemplo): «quitar» vuelve a «ninguna» con sus palabras y la vista se
    # recalcula con ella, en un solo evento; así nunca se lee la frase nueva con un número de la vieja.
    leidas = gr.Textbox(FRASE, visible="hidden", interactive=False)  # la frase de las opciones de «quitar»
    con_frase = {
        "fn": envolver(leer_frase),
        "inputs": [frase, bloque],
        "outputs": [quitar, *salidas, leidas],
        "api_visibility": "private",
        **un_reloj(salidas),
    }
    gr.on([frase.submit, frase.blur], **con_frase, trigger_mode="always_last")
    ejemplos.load_input_event.then(**con_frase)
    # La frase llegó por otro camino (la URL): el texto de la vista cambia y, solo si las opciones son de
    # otra frase, el navegador lo marca en `senal` y un evento trae las palabras de la nueva.
    senal = gr.Textbox(FRASE, visible="hidden", interactive=False)
    texto.change(
        None, [frase, leidas, senal], senal, js=JS_SI_ES_OTRA, api_visibility="private", show_progress="hidden"
    )
    senal.change(
        _al_cambiar_frase,
        frase,
        [quitar, leidas],
        api_visibility="private",
        show_progress="hidden",
        trigger_mode="always_last",
    )
    terminos = ("ficha", "embedding", "posición", "agrupación por atención", "pesos", "parámetros", "cabeza")
    seccion((*terminos, "conjunto de prueba", "exactitud"), "clasificador-atencion")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=entradas,
        salidas=salidas,
        url={"frase": frase, "bloque": bloque},
        disparadores=[bloque.input, quitar.input],
        ejemplo={"frase": "No me gustó la cena."},
        invalido={"frase": ""},
    )
