"""Las partes de la tarjeta de `clasificador-opiniones` (la arma `modelos.entrenamiento.tarjetas`)."""

from __future__ import annotations

from ..opiniones import SEMILLAS, TAMANOS, particiones
from .opiniones import vocabulario_entrenamiento

TITULO = "Clasificador de opiniones con agrupación por atención"

DESCRIPCION = (
    "El clasificador de texto de la lección «Mecanismo de atención en PyTorch» (§6): fichas de palabras más una "
    "posición aprendida, 2 bloques transformer pre-norma (8 cabezas, d_modelo = 64), una agrupación por atención "
    "(un puntaje por palabra, softmax sin el relleno, suma ponderada) y una capa lineal a 2 clases: opinión "
    "negativa o positiva. Devuelve, además de los logits, el peso que la agrupación da a cada palabra y los pesos "
    "de atención de cada cabeza de cada bloque. El vocabulario (palabras en minúsculas, con <relleno> y "
    '<desconocida>) está en `vocabulario.json`, junto al modelo; `modelos.prediccion.predecir("La cena estuvo '
    'deliciosa.")` lee una frase con los dos y devuelve la clase, la probabilidad y los pesos.'
)

ELECCION = (
    "Se eligió en la partición de validación (2,000 frases), mirando las dos metas; las corridas de la elección "
    "fueron en una GPU (los números de la CPU difieren algo). Con d_modelo = 32 y 2 cabezas, 8 épocas daban "
    "98.6–99.1 % de exactitud, pero la agrupación pesaba más la palabra de sentimiento solo en el 72–84 % de las "
    "frases de una sola palabra de sentimiento: a menudo ganaba la de al lado («era», «muy», «me»), que mira a la "
    "de sentimiento y lleva lo mismo. Ni una cabeza final con capa oculta, ni puntuar con las fichas de entrada, "
    "ni un solo bloque, ni más decaimiento, ni abandono (dropout) lo arreglaban. Más ancho sí: con d_modelo = 64, "
    "8 cabezas y d_mlp = 256, 6 épocas, tres semillas dieron 94.7–99.0 % en esa medida (con d_mlp = 128, dos de "
    "cinco semillas se quedaban en 80 % y 56 %: a veces el entrenamiento cae en otra solución, en que la "
    "agrupación pesa la palabra que junta la negación con la de sentimiento). La primera corrida en la CPU dio "
    "91 % en validación, y casi todos los fallos eran un atenuante delante del adjetivo («algo», «un poco», "
    "«demasiado»): la gramática solo los ponía con adjetivos negativos, así que delataban la etiqueta tanto como "
    "el adjetivo. Desde entonces van con las dos polaridades («algo divertida», «un poco lenta»). Las metas se "
    "comprueban en cada corrida (`python -m modelos.entrenamiento` falla si no llega). La partición de prueba se midió "
    "solo con la receta ya fija."
)


def datos() -> str:
    p = particiones()
    prueba = p["prueba"]
    n = len(prueba)
    negadas = sum(o.negada for o in prueba)
    contraste = sum(o.contraste for o in prueba)
    clave = sum(o.clave is not None for o in prueba)
    largo = max(len(o.fichas) for parte in p.values() for o in parte)
    return (
        "**Datos sintéticos, no un corpus real.** No hay en los registros de paquetes un corpus de opiniones en "
        "español con licencia abierta que traiga sus datos, así que las frases salen de una gramática pequeña y "
        "determinista (`modelos/opiniones.py` y `modelos/_gramatica.py`): reseñas de películas, series, "
        "restaurantes, libros y hoteles, con negación («no es buena», «nunca me aburrió», «no fue nada "
        "predecible»), intensificadores («muy», «bastante», «demasiado»), palabras de sentimiento en sitios "
        "distintos (adjetivos, verbos como «me encantó», sustantivos como «un desastre», «la recomiendo»), "
        "contrastes con «pero» (manda lo de después) y frases neutras de contexto («la vi el sábado»). La "
        "etiqueta sale de las reglas: cada cláusula tiene una palabra de sentimiento, y su polaridad se invierte "
        "si va negada. Es un conjunto de juguete, para mirar cómo atiende el modelo; no sabe nada de opiniones "
        "reales.\n\n"
        f"Particiones de `modelos.opiniones.particiones()`: entrenamiento {TAMANOS['entrenamiento']:,} frases "
        f"(semilla {SEMILLAS['entrenamiento']}), validación {TAMANOS['validacion']:,} (semilla "
        f"{SEMILLAS['validacion']}) y prueba {TAMANOS['prueba']:,} (semilla {SEMILLAS['prueba']}); ninguna frase "
        "se repite entre particiones (se comparan las palabras, sin los signos). El vocabulario son las "
        f"{_vocabulario()} fichas de la partición de entrenamiento (con <relleno> y "
        f"<desconocida>). La frase más larga tiene {largo} fichas; el modelo acepta hasta 64. En la prueba: "
        f"{negadas:,} de {n:,} frases con negación, {contraste:,} con contraste y {clave:,} cuya etiqueta decide "
        "una sola palabra de sentimiento (sin negación ni contraste: `Opinion.clave`). Al entrenar, el 5 % de "
        "las palabras que no son de sentimiento se cambia al azar por <desconocida>, para que el modelo sepa "
        "qué hacer con palabras que no conoce."
    )


def _vocabulario() -> int:
    return len(vocabulario_entrenamiento())


def receta(r) -> str:
    pasos = r.epocas * -(-TAMANOS["entrenamiento"] // 64)
    return (
        f"AdamW con una sola subida y bajada de la tasa (OneCycle, máximo {r.tasa:g}) y decaimiento de pesos "
        f"{r.decaimiento:g}; lotes de 64, entropía cruzada, {r.epocas} épocas ({pasos:,} pasos). "
        "Es `modelos.entrenamiento.opiniones.entrenar_clasificador`. " + ELECCION
    )


def tabla(m: dict, r) -> str:
    def fila(que: str, clave: str, total: str, meta: str = "") -> str:
        return f"| {que} | {m[clave]:.2%} ({round(m[clave] * m[total])} de {m[total]:,}) | {meta} |"

    return "\n".join(
        [
            f"Medido en la partición de prueba ({m['n']:,} frases que el entrenamiento no vio; "
            "`modelos.entrenamiento.opiniones.medir`).\n",
            "| medida | valor | meta |",
            "|---|---|---|",
            fila("exactitud", "prueba", "n", f"≥ {r.meta:.0%}"),
            fila(
                "frases de una sola palabra de sentimiento en que la agrupación le da a esa palabra el peso más alto",
                "clave",
                "n_clave",
                f"≥ {r.meta_clave:.0%}",
            ),
            fila("exactitud en frases con negación", "negadas", "n_negadas"),
            f"| exactitud en frases sin negación | {m['sin_negar']:.2%} | |",
            fila("exactitud en frases con contraste («… pero …»)", "contraste", "n_contraste"),
            fila(
                "frases de una sola palabra de sentimiento, negada, en que la agrupación pesa más esa palabra",
                "clave_negadas",
                "n_clave_negadas",
            ),
            fila("… y en que pesa más la negación («no», «nunca», «nada»)", "negacion", "n_clave_negadas"),
            f"| exactitud en validación | {m['validacion_prueba']:.2%} | |",
            f"| exactitud en 2,000 frases de las de entrenamiento | {m['entrenamiento']:.2%} | |",
            "",
            _negadas(m["clave_negadas"], m["negacion"]),
        ]
    )


def _negadas(palabra: float, negacion: float) -> str:
    if palabra >= 0.5:
        return "En las frases negadas la agrupación también suele pesar más la palabra de sentimiento."
    donde = "la negación misma" if negacion >= 0.5 else "otra palabra"
    return (
        "En las frases negadas («no me gustó la cena») la agrupación casi nunca pesa más la palabra de sentimiento: "
        f"pesa más {donde}, donde los bloques juntaron la negación con esa palabra. Tiene sentido: «gustó» sola "
        "diría lo contrario."
    )
