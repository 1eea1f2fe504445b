"""El glosario corto que comparten las pestañas: una palabra por cosa, con su definición de una línea.

Cada pestaña usa estas palabras y no otras para lo mismo («ficha» es un token; «parámetros» son
los números que aprende una capa y «pesos» los de la atención). Para enlazarlo desde una pestaña,
al final de su `construir()`:

    from demos.comun.glosario import seccion
    seccion(("ficha", "pesos", "parámetros"), "temperatura")

Eso añade un acordeón cerrado «Palabras de esta pestaña» (elem_id `temperatura-glosario`, para
enlazarlo desde una diapositiva) con la definición de cada término, en el orden pedido. El texto de
la pestaña puede remitir a él: «(las palabras, en el glosario al pie)». `texto()` es la función pura
que lo escribe; este módulo no importa gradio hasta que se llama a `seccion()`.
"""

from __future__ import annotations

from collections.abc import Iterable

TERMINOS: dict[str, str] = {
    "ficha": "La unidad que lee el modelo (en inglés, token): una palabra, un signo o un dígito, con su número en "
    "el vocabulario.",
    "embedding": "El vector que representa una ficha: su fila en la tabla `nn.Embedding`, que se aprende al entrenar.",
    "posición": "El vector que se suma al embedding de cada ficha para que el modelo sepa en qué lugar está "
    "(aprendido, o sinusoidal).",
    "consulta, clave y valor": "Q, K y V: lo que busca cada ficha, lo que ofrece y lo que entrega si la miran; "
    "tres proyecciones lineales de su vector.",
    "palabra que mira": "La de una fila de los pesos: su consulta (Q) se compara con las claves (K) de las palabras "
    "de las columnas, las que se miran.",
    "puntaje": "q·k/√d: cuánto se parece la consulta de una ficha a la clave de otra, antes del softmax (q·k sin "
    "dividir es el producto punto).",
    "pesos": "Los pesos de atención: una fila del softmax de los puntajes; cuánto toma una ficha de cada "
    "otra. Suman 1 (al entrenar con dropout, en promedio).",
    "dropout": "Al entrenar, apaga cada peso con probabilidad p y multiplica los demás por 1/(1 − p); "
    "`model.eval()` lo desactiva.",
    "parámetros": "Los números que aprende una capa (sus matrices y sesgos); no son los pesos de atención, que "
    "cambian con cada frase.",
    "cabeza": "Una atención completa sobre su trozo de d/h columnas de Q, K y V; las h cabezas (de la 1 a la h) "
    "miran a la vez y sus salidas se pegan.",
    "generación autorregresiva": "Escribir ficha a ficha: el modelo corre sobre lo escrito, elige la ficha "
    "siguiente y la agrega a su entrada para el paso que sigue.",
    "teacher forcing": "Entrenar con la respuesta correcta ya escrita en la entrada: con la máscara causal, una sola "
    "pasada da la predicción de todas las posiciones.",
    "máscara": "Las casillas que una ficha no puede mirar: en esta suite, `True` = no mirar; su puntaje pasa a −∞.",
    "ventana w": "Atención local: cada ficha mira la suya y w más. Causal: las w anteriores; centrada: w/2 a cada "
    "lado (Longformer).",
    "relleno": "Fichas vacías que se añaden al final para que todas las frases de un lote tengan el mismo largo.",
    "one-hot": "Un vector de ceros con un solo 1 en el lugar de su clase (vector indicador).",
    "softmax": "Convierte una fila de puntajes en pesos positivos que suman 1: e^{s_i} / Σ_j e^{s_j}.",
    "temperatura": "T en softmax(s/T): pequeña concentra los pesos en el puntaje más alto; grande los iguala.",
    "entropía": "−Σ p·log₂ p, en bits: 0 si todo el peso está en una casilla, log₂ n si los n pesos son iguales.",
    "muestra": "Una elección al azar según unos pesos tomados como probabilidades (muestrear: sacar muestras).",
    "lote": "Las secuencias que el modelo procesa juntas en un paso.",
    "paso": "Una actualización de los parámetros con el gradiente de la pérdida de un lote.",
    "época": "Una pasada por todo el conjunto de entrenamiento.",
    "pérdida": "La entropía cruzada entre lo que predice el modelo y la respuesta; baja cuando aprende.",
    "tasa de aprendizaje": "Cuánto se mueven los parámetros en cada paso, en la dirección que baja la pérdida.",
    "conjunto de prueba": "Ejemplos que el modelo no vio al entrenar, con los que se mide su exactitud.",
    "exactitud": "La fracción de respuestas acertadas (por dígito, por secuencia entera o por frase).",
    "LayerNorm": "Resta la media y divide por la desviación típica de cada vector (luego escala γ y desplaza β).",
    "RNN": "Red recurrente: lee la secuencia ficha a ficha, y su estado h_t se calcula con la ficha t y el "
    "estado anterior h_{t−1}.",
    "agrupación por atención": "Un puntaje por ficha, softmax y suma ponderada: de una frase de largo variable, un "
    "solo vector.",
}

TITULO = "Palabras de esta pestaña"


def definicion(termino: str) -> str:
    """La definición de una línea de `termino` (ValueError en español si no está en el glosario)."""
    if termino not in TERMINOS:
        raise ValueError(f"«{str(termino)[:40]}» no está en el glosario; están: {', '.join(TERMINOS)}.")
    return TERMINOS[termino]


def texto(terminos: Iterable[str]) -> str:
    """Markdown: una línea por término, «**término**: definición», en el orden pedido."""
    return "\n".join(f"- **{t}**: {definicion(t)}" for t in dict.fromkeys(terminos))


def seccion(terminos: Iterable[str], pestana: str):
    """El acordeón cerrado con los términos de la pestaña `pestana` (su id), con elem_id `<pestana>-glosario`."""
    import gradio as gr

    contenido = texto(terminos)  # antes de crear nada: un término mal escrito falla al armar la app
    with gr.Accordion(TITULO, open=False, elem_id=f"{pestana}-glosario") as acordeon:
        gr.Markdown(contenido)
    return acordeon
