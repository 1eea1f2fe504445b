"""Posición: la codificación sinusoidal, y por qué la autoatención la necesita."""

from __future__ import annotations

import logging
import re
from functools import lru_cache

import gradio as gr
import numpy as np
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Opcion
from demos.comun.figuras import GRIS, Curva, Curvas, Mapa, Paneles, Referencia, miles
from demos.comun.glosario import seccion
from demos.comun.validar import entero as _entero
from demos.comun.vista import Barrido, Vista, envolver, explicacion, grafico, servido
from modelos import AtencionMulticabeza, cargar, dispositivo, posicion_sinusoidal
from modelos.datos import DIGITOS, secuencias_digitos
from modelos.entrenamiento.leccion import epoca_1
from modelos.estrategia import es_moda_de_los_otros, tope_sin_posicion
from modelos.formato import por_ciento

log = logging.getLogger(__name__)

LARGO_MAX, D_MAX = 512, 512
SIMILITUDES = ("coseno", "producto punto")
FRASE = ("Ana", "sacó", "plata", "del", "banco")
SECUENCIAS_NUEVAS, SEMILLA_NUEVAS = 2000, 777  # una semilla que el entrenamiento no usa
NBSP = "\u00a0"  # entre un número y su «%» en una columna angosta: que no se separen
DECIMALES = 3  # los de la pista al pasar el ratón: más cifras solo engordarían la respuesta
MODELOS = (("Con posición", "inversion-digitos"), ("Sin posición", "inversion-digitos-sin-posicion"))

EXPLICACION = r"""
La autoatención mira a todas las palabras a la vez y no sabe en qué orden venían: si inviertes la
frase, cada palabra recibe la misma salida, solo que en otro lugar. Para darle el orden se suma a
cada palabra un vector que depende de su posición. La versión clásica (la de *Attention Is All You
Need*, la que dibuja la lección y este mapa) usa senos y cosenos de frecuencias cada vez más lentas:

$$PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d}}\right), \qquad
PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d}}\right)$$

Las primeras columnas cambian rápido (distinguen posiciones vecinas) y las últimas despacio
(distinguen posiciones lejanas). Mueve el largo y $d_\text{modelo}$ y mira el mapa. El modelo que la
lección entrena para invertir dígitos no usa esta fórmula: **aprende** su vector de cada posición
(`nn.Embedding(largo, d_modelo)`), y abajo se compara con el mismo modelo sin posición.
"""


def validar(largo, d_modelo, similitud) -> tuple[int, int, str]:
    if similitud not in SIMILITUDES:
        raise ValueError(f"La similitud debe ser una de: {', '.join(SIMILITUDES)}; llegó «{str(similitud)[:40]}».")
    # d_modelo ≥ 2: con una sola columna la posición 0 es el vector cero y su coseno no existe.
    return _entero(largo, "El largo", 1, LARGO_MAX), _entero(d_modelo, "d_modelo", 2, D_MAX), similitud


def similitudes(pe: torch.Tensor, similitud: str) -> np.ndarray:
    """(largo, largo): producto punto o coseno entre los vectores de posición."""
    punto = pe @ pe.T  # (largo, largo)
    if similitud == "coseno":
        norma = pe.norm(dim=1).clamp_min(1e-12)  # (largo,)
        punto = punto / (norma[:, None] * norma[None, :])
    return punto.numpy()


@lru_cache(maxsize=1)
def experimento_inversion_frase() -> dict[str, float | bool]:
    """La frase de la lección, al derecho y al revés, por una AtencionMulticabeza(16, 4).

    Devuelve la diferencia máxima entre la salida de la frase invertida y la
    salida original reordenada, sin posición y sumando la sinusoidal.
    """
    g = torch.Generator().manual_seed(0)
    capa = AtencionMulticabeza(16, 4)
    with torch.no_grad():  # pesos propios, para no depender del generador global
        for p in capa.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.3)
    x = torch.randn(1, len(FRASE), 16, generator=g)  # (1, 5, 16)
    al_reves = torch.arange(len(FRASE) - 1, -1, -1)
    pe = posicion_sinusoidal(len(FRASE), 16)  # (5, 16)
    resultado = {}
    with torch.inference_mode():
        for nombre, suma in (("sin", 0.0), ("con", pe)):
            y, _ = capa(x + suma)
            y_al_reves, _ = capa(x[:, al_reves] + suma)
            diferencia = (y_al_reves - y[:, al_reves]).abs().max().item()
            resultado[nombre] = diferencia
            resultado[f"iguales_{nombre}"] = torch.allclose(y_al_reves, y[:, al_reves], atol=1e-6)
    return resultado


@lru_cache(maxsize=1)
def exactitudes_inversion() -> tuple[list[list[str]], dict[str, list[int]]]:
    """Exactitud por dígito y por secuencia de los dos checkpoints en secuencias nuevas, y un ejemplo."""
    X, Y = secuencias_digitos(SECUENCIAS_NUEVAS, semilla=SEMILLA_NUEVAS)  # (N, 8), (N, 8)
    filas, ejemplo = [], {"Entrada": X[0].tolist(), "Objetivo": Y[0].tolist()}
    for titulo, nombre in MODELOS:
        modelo = cargar(nombre)
        with torch.inference_mode():
            pred = modelo(X.to(dispositivo())).argmax(dim=-1).cpu()  # (N, 8)
        acierto = pred == Y
        por_digito, por_secuencia = acierto.float().mean().item(), acierto.all(dim=1).float().mean().item()
        filas.append([titulo, por_ciento(por_digito), por_ciento(por_secuencia)])
        ejemplo[titulo] = pred[0].tolist()
        if modelo.posicion is None:  # qué escribe: ¿el dígito más frecuente de los otros siete?
            ejemplo["moda"] = es_moda_de_los_otros(X, pred).float().mean().item()
    return filas, ejemplo


def _figura_codificacion(pe: torch.Tensor) -> Mapa:
    """Columnas del vector en y, posiciones en x: de −1 (rojo) a 1 (azul), 0 en blanco."""
    largo, d = pe.shape
    return Mapa(
        np.round(pe.T.numpy(), DECIMALES),  # (d, largo)
        titulo=f"Codificación posicional sinusoidal ({largo} × {d})",
        eje_x="Posición en la frase",
        eje_y="Columna del vector",
        numeros=False,
        vmin=-1.0,
        vmax=1.0,
        colores="divergente",
        barra="Valor (de −1 a 1)",
        pista="posición {x}, columna {y}: {v}",
    )


def _figura_similitud(pe: torch.Tensor, similitud: str) -> Paneles:
    S = np.round(similitudes(pe, similitud), DECIMALES)  # (largo, largo)
    nombre = similitud.capitalize()
    # La escala va del mínimo al máximo que hay (vmin, vmax = None): casi todo es positivo y así se ve el contraste.
    mapa = Mapa(
        S,
        titulo=f"{nombre} entre posiciones",
        eje_x="Posición",
        eje_y="Posición",
        numeros=False,
        vmin=None,
        vmax=None,
        barra=nombre,
        pista=f"{similitud} entre la posición {{y}} y la {{x}}: {{v}}",
        cuadrado=True,
    )
    distancias = np.arange(len(S))
    cero = (Referencia(0.0, "similitud 0", color=GRIS),) if S[0].min() < 0 < S[0].max() else ()
    estilo = "lineas+puntos" if len(S) <= 40 else "lineas"
    curva = Curvas(
        (Curva(f"{similitud} con la posición 0", distancias, S[0], estilo=estilo),),
        titulo="La posición 0 contra las demás",
        eje_x="Distancia a la posición 0",
        eje_y=nombre,
        horizontales=cero,
    )
    # El mapa a la derecha: su barra de color queda al borde y no pisa el eje de la curva.
    return Paneles((curva, mapa), columnas=2, anchos=(1.3, 1), alto_fila=380)


def _texto_codificacion(pe: torch.Tensor) -> str:
    filas, columnas = min(3, pe.shape[0]), min(4, pe.shape[1])
    valores = "\n".join(
        f"posición {i}: " + " ".join(f"{pe[i, j].item():5.2f}" for j in range(columnas)) for i in range(filas)
    )
    e = experimento_inversion_frase()
    return "\n".join(
        [
            f"**Los primeros valores** (`pe[:{filas}, :{columnas}]`):",
            "",
            "```",
            valores,
            "```",
            "",
            "En la similitud, las franjas paralelas a la diagonal dicen que lo que importa es la "
            "**distancia** entre dos posiciones, no dónde están.",
            "",
            f"**Invertir la frase** «{' '.join(FRASE)}» → «{' '.join(reversed(FRASE))}» "
            "en una atención multicabeza (d_modelo 16, 4 cabezas):",
            "",
            f"- Sin posición: mismo resultado, en otro orden: **{'sí' if e['iguales_sin'] else 'no'}** "
            f"(diferencia máxima {e['sin']:.1e}).",
            f"- Con posición (sumando la sinusoidal): mismo resultado, en otro orden: "
            f"**{'sí' if e['iguales_con'] else 'no'}** (diferencia máxima {e['con']:.2f}).",
        ]
    )


def _inversion_digitos() -> tuple[list[list[str]], str, str]:
    """La tabla de exactitudes, su texto, y el punto de la pestaña en una frase (arriba, antes de las figuras)."""
    try:
        filas, ejemplo = exactitudes_inversion()
    except (OSError, ValueError, RuntimeError) as e:
        log.info("Sin los checkpoints de inversión de dígitos: %s", e)
        return [], "", "Los modelos de la inversión de dígitos aún no están disponibles en este servidor."
    ejemplo = dict(ejemplo)  # el de la caché no se toca
    moda = ejemplo.pop("moda")
    lineas = [f"- {nombre}: `{' '.join(map(str, digitos))}`" for nombre, digitos in ejemplo.items()]
    tope = por_ciento(float(tope_sin_posicion()))
    texto = (
        f"Medido en {miles(SECUENCIAS_NUEVAS)} secuencias nuevas. Sin posición no sabe qué dígito iba primero, "
        f"pero no escribe al azar (eso daría {por_ciento(1 / DIGITOS, 0)}): escribe el dígito **más frecuente "
        f"entre los otros siete** ({por_ciento(moda)} de sus dígitos lo son). Es lo mejor que puede hacer sin el "
        f"orden, y acierta en promedio el {tope}: los repetidos se adivinan. Un ejemplo:\n\n" + "\n".join(lineas)
    )
    return filas, texto, _punto(filas)


def _punto(filas: list[list[str]]) -> str:
    """«Con posición 100.0 %, sin ella 31.7 %»: los números salen de la tabla. Va junto a los controles, encima de
    las figuras: tres líneas como mucho a 1280 px, para que la figura siga en la primera pantalla."""
    con, sin, azar = (p.replace(" ", NBSP) for p in (filas[0][1], filas[1][1], por_ciento(1 / DIGITOS, 0)))
    return (
        f"**Por qué hace falta:** al invertir dígitos, el modelo acierta **{con}** con posición y **{sin}** sin ella "
        f"(azar: {azar})."
    )


def repetir_leccion() -> str:
    """La época 1 sin posición con la receta exacta de la lección (su DataLoader, sus semillas)."""
    r = epoca_1(con_posicion=False)
    return (
        f"**Época {r['epoca']}, sin posición, como la lección:** pérdida {r['perdida']:.3f} · dígitos "
        f"{por_ciento(r['digitos'])} · secuencias {por_ciento(r['secuencias'])}. Desde la primera época ya está en "
        f"el tope de la estrategia del dígito más frecuente ({por_ciento(float(tope_sin_posicion()))}), y de ahí no "
        "pasa."
    )


def calcular(largo: float = 50, d_modelo: float = 32, similitud: str = "coseno"):
    """La vista: (mapa de la codificación, similitudes, texto, tabla de exactitudes, texto de la tabla, el punto:
    con posición contra sin posición, en una frase que va arriba de las figuras)."""
    largo, d_modelo, similitud = validar(largo, d_modelo, similitud)
    pe = posicion_sinusoidal(largo, d_modelo)  # (largo, d_modelo)
    tabla, texto_tabla, punto = _inversion_digitos()
    return (
        _figura_codificacion(pe),
        _figura_similitud(pe, similitud),
        _texto_codificacion(pe),
        tabla,
        texto_tabla,
        punto,
    )


# --- aprender: predecir y comprobarse (las respuestas las calculan los modelos de la pestaña) -------


def _fraccion(texto: str) -> float:
    """«31.7 %» o «31.7%» -> 0.317."""
    return float(texto.replace("\u202f", " ").rstrip(" %")) / 100


def _sin_posicion(salida) -> dict:
    """Exactitud por dígito del modelo sin posición (la tabla) y la del mejor adivino sin orden (su texto)."""
    tabla, texto = salida[3], salida[4]
    tope = re.search(r"acierta en promedio el ([\d.]+\s?%)", texto).group(1)
    sin = _fraccion(tabla[1][1])
    return {"respuesta": sin, "tope": tope, "sin": tabla[1][1], "con": tabla[0][1]}


def _iguales_sin_posicion(salida) -> dict:
    """Lo que dice el texto junto al mapa: ¿la frase al revés da lo mismo, reordenado, sin y con posición?"""
    sin, con = re.findall(r"mismo resultado, en otro orden: \*\*(sí|no)\*\*", salida[2])
    con = "también da la misma, reordenada" if con == "sí" else "ya no da la misma"
    return {"respuesta": "reordenada" if sin == "sí" else "distinta", "con": con}


def _primeras_columnas(salida) -> tuple[float, float]:
    """Las dos primeras columnas de la posición 0, de `pe[:3, :4]` en el texto de la vista."""
    fila = re.search(r"posición 0:\s+(\S+)\s+(\S+)", salida[2]).groups()
    return tuple(float(v) for v in fila)


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "El transformer que invierte dígitos, entrenado sin posición: ¿qué exactitud por dígito logra?",
        verdad=ap.EnLaPestana(calcular, _sin_posicion),
        opciones=(
            ap.Alternativa(
                0.10,
                "10 % (al azar)",
                "No escribe al azar: sin el orden todavía ve su propio dígito y la bolsa de los otros siete, y "
                "escribe el que más se repite en ella.",
            ),
            ap.Alternativa(0.32, "32 %", "Es lo que da escribir el dígito más frecuente entre los otros siete."),
            ap.Alternativa(
                1.0,
                "100 %, como con posición",
                "Sin posición no sabe qué dígito iba primero: «8 3 3 9» y «9 3 3 8» le parecen la misma bolsa, y "
                "no puede saber cuál va al final.",
            ),
        ),
        tipo=ap.CANTIDAD,
        unidad="%",
        decimales=3,
        porque="Sin posición, cada salida ve su dígito y la bolsa de los demás, sin orden: lo mejor que puede hacer "
        "es decir el dígito más frecuente entre los otros siete, que acierta en promedio el {tope}. El modelo "
        "llega a {sin} (con posición, {con}).",
    ),
    preguntas=(
        ap.Pregunta(
            "Sin codificación posicional, la salida de la frase al revés es…",
            (
                ap.Alternativa(
                    "reordenada",
                    "la misma salida, al revés",
                    "La atención solo ve el conjunto de palabras: invertir la entrada invierte la salida, nada más. "
                    "Sumando la sinusoidal, {con}.",
                ),
                ap.Alternativa(
                    "distinta",
                    "otra salida distinta",
                    "Sin posición la atención no ve el orden: la salida "
                    "de la frase al revés es la misma, reordenada. Lo cambia sumar la posición.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _iguales_sin_posicion),
        ),
        ap.Pregunta(
            "En la posición 0, las dos primeras columnas de la codificación sinusoidal valen…",
            (
                ap.Alternativa((0.0, 1.0), "0 y 1", "sin(0) = 0 en las columnas pares y cos(0) = 1 en las impares."),
                ap.Alternativa((0.0, 0.0), "0 y 0", "Las impares llevan coseno: cos(0) = 1."),
                ap.Alternativa((1.0, 1.0), "1 y 1", "Las pares llevan seno: sin(0) = 0."),
            ),
            verdad=ap.EnLaPestana(calcular, _primeras_columnas),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        largo = Deslizador(1, LARGO_MAX, value=50, step=1, label="Largo (posiciones)")
        d_modelo = Deslizador(2, D_MAX, value=32, step=1, label="d_modelo (columnas)")
        similitud = Opcion(list(SIMILITUDES), value="coseno", label="Similitud entre posiciones")
        # El punto de la pestaña (con posición 100 %, sin posición ~32 %), junto a los controles: en la primera
        # pantalla, encima de las dos figuras, sin bajarlas. Es una salida: se vela hasta revelar (es la respuesta
        # de la predicción).
        punto = gr.Markdown(elem_id="posicion-punto")
    with gr.Row():
        mapa = grafico("Mapa de la codificación posicional", scale=3)
        with gr.Column(scale=2):
            texto = gr.Markdown()
    sim = grafico("Similitud entre posiciones")
    # El detalle de la frase de arriba, debajo de la codificación.
    gr.Markdown("### Inversión de dígitos, con y sin posición: el detalle")
    with gr.Row():
        tabla = gr.Dataframe(
            headers=["Modelo", "Exactitud por dígito", "Exactitud por secuencia"],
            label="Exactitud en secuencias nuevas",
            interactive=False,
        )
        texto_tabla = gr.Markdown()
    with gr.Row():
        repetir = gr.Button("Repetir la época 1 de la lección, sin posición (unos segundos)", size="sm", scale=1)
        texto_leccion = gr.Markdown()
    repetir.click(
        envolver(repetir_leccion, exclusivo_de="entrenar"),
        outputs=texto_leccion,
        api_visibility="private",
        concurrency_limit=1,
        concurrency_id="entrenar",  # entrena: hace fila con los demás entrenamientos
    )
    seccion(("posición", "embedding", "ficha", "exactitud", "época", "conjunto de prueba"), "posicion")
    servido(largo, f"{LARGO_MAX} valores (más de 256 paradas)")
    servido(d_modelo, f"{D_MAX - 1} valores (más de 256 paradas)")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[largo, d_modelo, similitud],
        salidas=[mapa, sim, texto, tabla, texto_tabla, punto],
        url={"largo": largo, "d_modelo": d_modelo, "similitud": similitud},
        barridos=(Barrido(similitud),),
    )
