"""La pestaña «Bloque transformer»: la vista (el bloque y, abajo, la pila sin atajos), lo que se predice y se
comprueba, y `construir()`."""

from __future__ import annotations

import re

import gradio as gr

from demos.bloque.atajos import N_INICIAL, N_MAX, SIN_ATAJOS, sin_atajos
from demos.bloque.parametros import D_MAX, D_MLP_MAX, EXPLICACION, validar, vista_del_bloque
from demos.comun import aprender as ap
from demos.comun.controles import Deslizador
from demos.comun.figuras import (
    miles,
)
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.validar import entero as _entero
from demos.comun.vista import Barrido, Vista, explicacion, grafico, servido


def calcular(d_modelo: float = 64, cabezas: float = 4, d_mlp: float = 256, bloques: float = N_INICIAL):
    """La vista: (diagrama, barras, tabla del desglose, texto de la comprobación, figura y texto de la pila de
    `bloques` bloques con y sin atajos)."""
    d, h, m = validar(d_modelo, cabezas, d_mlp)
    n = _entero(bloques, "El número de bloques", 1, N_MAX)
    return (*vista_del_bloque(d, h, m), *sin_atajos(n))


# --- aprender: predecir y comprobarse (las respuestas las calcula `desglose`) ----------------------


def _partes_de(salida) -> dict[str, int]:
    """{parte: parámetros} de la tabla del desglose de la vista (la columna de nuestro bloque), con «Total»."""
    return {fila[0]: int(re.sub(r"\D", "", fila[2])) for fila in salida[2]}


def _total(salida) -> dict:
    partes = _partes_de(salida)
    return {
        "respuesta": partes["Total"],
        "total": miles(partes["Total"]),
        **{k.lower(): miles(v) for k, v in partes.items() if k != "Total"},
    }


def _mayor(salida) -> dict:
    partes = {k: v for k, v in _partes_de(salida).items() if k != "Total"}
    return {"respuesta": max(partes, key=partes.get), **{k.lower(): miles(v) for k, v in partes.items()}}


def _posiciones(salida) -> dict:
    """Cómo salen las posiciones sin atajos, leído del texto de la pila que muestra la vista."""
    texto = salida[5]
    con = re.search(r"diferencia relativa \*\*([^*]+)\*\*", texto).group(1)
    sin = re.search(r"sin atajos, [^(]*\(diferencia \*\*([^*]+)\*\*", texto).group(1)
    entrada = re.search(r"llega a la entrada: [^ ]+ con atajos y ([^ ]+) sin ellos", texto).group(1)
    valor = float(sin.replace("−", "-"))
    respuesta = "iguales" if valor < 1e-3 else "ceros" if valor == 0 else "distintas"
    return {"respuesta": respuesta, "con": con, "sin": sin, "entrada": entrada}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "El bloque de la lección (d_modelo = 64, 4 cabezas, d_mlp = 256): ¿cuántos parámetros tiene?",
        verdad=ap.EnLaPestana(calcular, _total),
        decimales=0,
        minimo=0,
        maximo=1e9,
        porque="{total}: atención {atención}, MLP {mlp} y LayerNorm {layernorm}. El de PyTorch "
        "(`nn.TransformerEncoderLayer`) tiene los mismos.",
    ),
    preguntas=(
        ap.Pregunta(
            "El bloque de la lección (d_modelo = 64, d_mlp = 256) con 8 cabezas en vez de 4: ¿cuántos parámetros "
            "tiene?",
            (
                ap.Alternativa(
                    49_984,
                    "49 984, los mismos",
                    "Las cabezas se reparten las 64 columnas: más cabezas, más "
                    "pequeñas; los tamaños de las capas no cambian ({total}).",
                ),
                ap.Alternativa(
                    2 * 16_640 + 33_088 + 256,
                    "66 624 (el doble de atención)",
                    "Las cabezas no traen capas "
                    "nuevas: 8 cabezas de 8 columnas usan la misma `qkv` que 4 de 16. Siguen {total}.",
                ),
                ap.Alternativa(
                    2 * 49_984,
                    "99 968, el doble",
                    "Nada se duplica: las cabezas parten las 64 columnas en trozos más pequeños. Siguen {total}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _total, cambio={"cabezas": 8}),
            tipo=ap.CANTIDAD,
        ),
        ap.Pregunta(
            "En el bloque de la lección (d_modelo = 64, d_mlp = 4 · 64 = 256), ¿qué parte tiene más parámetros?",
            (
                ap.Alternativa(
                    "MLP", "el MLP", "{mlp}: dos capas de 64 × 256 y 256 × 64. La atención tiene {atención}."
                ),
                ap.Alternativa(
                    "Atención",
                    "la atención",
                    "Tiene {atención}; el MLP, con sus capas de 64 × 256 y 256 × 64, tiene {mlp}.",
                ),
                ap.Alternativa(
                    "LayerNorm",
                    "las LayerNorm",
                    "Solo {layernorm}: un γ y un β por columna, en dos normas. El MLP tiene {mlp}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _mayor),
        ),
        ap.Pregunta(
            "Abajo, la pila de 8 bloques de la lección **sin atajos residuales** (los mismos pesos que con ellos): "
            "¿cómo salen las 8 posiciones del último bloque?",
            (
                ap.Alternativa(
                    "iguales",
                    "todas el mismo vector",
                    "Diferencia relativa {sin} (con atajos, {con}): cada atención mezcla las posiciones y, sin el "
                    "atajo, ninguna recupera lo suyo.",
                ),
                ap.Alternativa(
                    "distintas",
                    "distintas, como con atajos",
                    "Con atajos sí ({con}); sin ellos la diferencia relativa es {sin}: cada atención mezcla las "
                    "posiciones y nada le devuelve a cada una lo suyo.",
                ),
                ap.Alternativa(
                    "ceros",
                    "en cero: la señal se apaga",
                    "No se apagan: las LayerNorm de cada paso reescalan la señal (el gradiente a la entrada es "
                    "{entrada}). Lo que se pierde es la diferencia entre posiciones: {sin}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _posiciones, cambio={"bloques": 8}),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        d_modelo = Deslizador(16, D_MAX, value=64, step=16, label="d_modelo (columnas por palabra)")
        cabezas = Deslizador(1, 16, value=4, step=1, label="Cabezas de atención (dividen a d_modelo)")
        d_mlp = Deslizador(16, D_MLP_MAX, value=256, step=16, label="d_mlp (neuronas del MLP)")
    with gr.Row():
        diagrama = grafico("Diagrama del bloque transformer", scale=3)
        with gr.Column(scale=2):
            barras = grafico("Parámetros por parte del bloque")
            texto = gr.Markdown()
    tabla = gr.Dataframe(
        headers=["Parte", "Fórmula", "BloqueTransformer", "nn.TransformerEncoderLayer"],
        label="Parámetros por parte",
        interactive=False,
    )
    with gr.Column(elem_id="bloque-atajos"):
        explicacion(SIN_ATAJOS)
        bloques = Deslizador(1, N_MAX, value=N_INICIAL, step=1, label="Bloques apilados N (los de la lección)")
        figura_atajos = grafico("Coseno entre posiciones y gradiente en Q y K, con y sin atajos residuales")
        texto_atajos = gr.Markdown()
    seccion_glosario(("LayerNorm", "parámetros", "cabeza", "embedding"), "bloque")
    servido(d_modelo, "sus 64 paradas costarían ≈ 1.4 s de cálculo en cada edición")
    servido(d_mlp, "256 paradas, 178 kB: con las de cabezas (20 kB) quedarían al borde de los 200 kB")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[d_modelo, cabezas, d_mlp, bloques],
        salidas=[diagrama, barras, tabla, texto, figura_atajos, texto_atajos],
        url={"d_modelo": d_modelo, "cabezas": cabezas, "d_mlp": d_mlp, "bloques": bloques},
        # d_modelo (64 paradas) costaría ≈ 1.4 s de cálculo en cada edición: queda en el servidor.
        barridos=(Barrido(cabezas), Barrido(bloques)),
    )
