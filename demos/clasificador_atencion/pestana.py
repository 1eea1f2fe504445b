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
import torch

from demos.clasificador_atencion.dibujos import figura_cabezas, figura_pesos
from demos.comun import aprender as ap
from demos.comun.controles import Desplegable, Opcion
from demos.comun.glosario import seccion
from demos.comun.seguridad import escapar_md
from demos.comun.validar import entero as _entero
from demos.comun.vista import Vista, envolver, explicacion, grafico, un_reloj
from modelos import ClasificadorAtencion, cargar, cargar_archivo
from modelos.opiniones import CLASES
from modelos.prediccion import NOMBRE, Lectura, fichas, predecir, sin_ficha, vocabulario

FRASE = "La película no fue nada aburrida."  # abre en la advertencia: «no» pesa 0.97 en una opinión positiva
DOBLE_NEGACION = ("No me gustó la cena.", FRASE)  # el mismo peso de «no» en dos frases de clases opuestas
NINGUNA = 0  # «quitar» = 0: no se quita ninguna palabra
VACIA = "Escribe una frase: debe tener al menos una palabra (p. ej. «La cena estuvo deliciosa.»)."
EJEMPLOS = [
    ("doble negación", FRASE),
    ("negación", "No me gustó la cena."),
    ("positiva", "La cena estuvo deliciosa."),
    ("contraste", "La serie era muy divertida pero el final fue un desastre."),
    (
        "frase larga",
        "La vi por recomendación de una amiga: los actores son verdaderamente espectaculares, "
        "la música me emocionó y dura casi tres horas.",
    ),
    ("palabras que no conoce", "Una peli chulísima, me flipó."),
]

EXPLICACION = r"""
Un clasificador de texto entero, **inspirado en** el del tutorial (§6): cada ficha pasa a su embedding
(más su posición), **2 bloques transformer** la mezclan con las demás y una **agrupación por atención**
junta la frase en un solo vector: un puntaje por posición, softmax y suma ponderada. Una capa lineal
decide si la opinión es negativa o positiva.

$$\alpha_i = \text{softmax}_i(w \cdot h_i + b), \qquad v = \sum_i \alpha_i\, h_i, \qquad \sum_i \alpha_i = 1$$

**Qué es α y qué no.** $\alpha_i$ pesa $h_i$, el vector de la posición $i$ **después de dos bloques** que ya
mezclaron en él toda la frase: no es la palabra sola, ni cuánto «importa». {advertencia}

Abajo, a quién mira cada palabra en cada cabeza del bloque elegido: son cabezas **entrenadas**, sobre
palabras de verdad (la sección 5.2 del tutorial las simula al azar). **En qué difiere del tutorial:**
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


def advertencia() -> str:
    """La doble negación como advertencia: la palabra de más peso, su α y la clase, en las dos frases."""
    partes = []
    for frase in DOBLE_NEGACION:
        lectura = leer(frase)
        i = _mayor(lectura)
        partes.append(f"{_palabra(lectura, i)} se lleva α = {lectura.pesos[i]:.2f} en «{frase}» (**{lectura.clase}**)")
    return (
        f"{partes[0]}, y {partes[1]}: casi el mismo peso en dos opiniones opuestas. Lo que decide la clase es lo que "
        "los bloques escribieron en ese vector (en la segunda, «no» ya leyó «nada aburrida»), no la palabra «no»."
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
        + ". Cada cabeza aprendió a buscar algo distinto; en un bloque sin entrenar, todas mirarían casi parejo."
    )


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
        f"({despues.pesos[j]:.2f}): sin esa palabra, las demás se reparten su peso."
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


# --- aprender: predecir y comprobarse (las respuestas las calcula `leer`) --------------------------

FRASE_NEGACION = "no fue nada aburrida"


def _negacion() -> dict:
    lectura = leer(FRASE_NEGACION)
    i = _mayor(lectura)
    return {
        "respuesta": f"{lectura.clase} {lectura.fichas[i].escrita}",
        "clase": lectura.clase,
        "p": f"{lectura.probabilidad:.0%}",
        "palabra": lectura.fichas[i].escrita,
        "peso": f"{float(lectura.pesos[i]):.2f}",
    }


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        f"¿Qué opinión lee el modelo en «{FRASE_NEGACION}»?",
        verdad=lambda: {"respuesta": _negacion()["clase"], "sola": leer("aburrida").clase},
        opciones=(
            ap.Alternativa("positiva", "positiva", ""),
            ap.Alternativa("negativa", "negativa", ""),
        ),
        porque="Dice {respuesta}; «aburrida» sola da {sola}. La atención deja que cada palabra vea a las demás "
        "antes de agrupar, y así el «no» cambia el sentido de lo que sigue.",
    ),
    preguntas=(
        ap.Pregunta(
            f"En «{FRASE_NEGACION}», ¿qué clase da y qué palabra pesa más en la agrupación?",
            (
                ap.Alternativa(
                    "positiva no",
                    "positiva, y pesa más «no»",
                    "Positiva ({p}), y «no» se lleva {peso} del peso: la palabra que da vuelta la opinión.",
                ),
                ap.Alternativa(
                    "negativa aburrida",
                    "negativa, y pesa más «aburrida»",
                    "Da {clase} ({p}): el «no» cambia el sentido, y es «{palabra}» la que se lleva {peso} del peso.",
                ),
                ap.Alternativa(
                    "positiva nada",
                    "positiva, y pesa más «nada»",
                    "La clase es {clase}, pero la palabra que pesa es «{palabra}», con {peso}.",
                ),
            ),
            verdad=_negacion,
        ),
        ap.Pregunta(
            "Si quitas el «no» (queda «fue nada aburrida»), la clase…",
            (
                ap.Alternativa("negativa", "pasa a negativa", "Sin el «no», «aburrida» manda: {respuesta} ({p})."),
                ap.Alternativa(
                    "positiva",
                    "sigue positiva",
                    "Sin el «no» no queda nada que dé vuelta a «aburrida»: da {respuesta} ({p}).",
                ),
            ),
            verdad=lambda: (lambda l: {"respuesta": l.clase, "p": f"{l.probabilidad:.0%}"})(leer("fue nada aburrida")),
        ),
    ),
)


def construir() -> Vista:
    explicacion(
        EXPLICACION.replace("{fichas}", str(len(vocabulario()) - 2))
        .replace("{exactitud}", f"{exactitud_de_prueba():.1%}")
        .replace("{advertencia}", advertencia())
        .replace("{diferencias}", diferencias())
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
    pesos = grafico("Peso de cada palabra en la agrupación")
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
