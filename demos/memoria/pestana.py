"""Memoria O(L²): la matriz de pesos crece con el cuadrado del largo; medición en vivo contra SDPA."""

from __future__ import annotations

import math
import re
from functools import lru_cache

import gradio as gr
import numpy as np
import torch
from torch import nn

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Desplegable, Opcion
from demos.comun.figuras import C0, C1, C2, C3, GRIS, Aviso, Curva, Curvas, Nota, Referencia, miles, numero
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.validar import entero as _entero
from demos.comun.vista import Barrido, Vista, envolver, explicacion, grafico, salidas_para_gradio, servido
from demos.memoria.medida import TIPOS, largos_permitidos, medir, tipo_de_dato
from modelos import dispersa
from modelos.hub import dispositivo_pesado

LARGOS_TABLA = (100, 1_000, 10_000, 100_000)
CABEZAS_MAX, CAPAS_MAX, LOTE_MAX = 128, 128, 1024
GPUS_GB = (16, 80)  # memorias de referencia en la figura
VENTANA, VENTANA_MAX = 512, 65_536  # w: cada palabra mira a las w anteriores y a sí misma (0: sin ventana)
VENTANAS = [("sin ventana", 0), *((miles(w), w) for w in (64, 128, 256)), ("512 (el ancho de Longformer)", 512)]
VENTANAS += [(miles(w), w) for w in (1024, 2048)] + [("4 096 (como Mistral 7B)", 4096)]
VENTANAS += [(miles(w), w) for w in (8192, 16384, 32768, VENTANA_MAX)]

ANTES_DE_MEDIR = Aviso(
    "Pulsa «Medir en este dispositivo»: aquí se dibujan el tiempo y la memoria de las dos atenciones",
    "Tiempo y memoria medidos",
)

EXPLICACION = r"""
Cada cabeza calcula un peso por cada par de palabras: una matriz de $L \times L$. Si la frase es
10 veces más larga, la matriz ocupa **100 veces más**. Con $b$ bytes por número (4 en float32, 2 en
bfloat16), un lote de $B$ frases, $h$ cabezas y $N$ capas:

$$\text{memoria} = B \cdot N \cdot h \cdot L^2 \cdot b$$

Por eso PyTorch trae `scaled_dot_product_attention` (SDPA): elige una *implementación* (un *backend*)
según el dispositivo y los tipos. FlashAttention y la *eficiente en memoria* (`memory-efficient`) calculan
lo mismo por bloques, sin guardar nunca la matriz entera (también en CPU: PyTorch trae un núcleo flash para
ella). La *math*, la de reserva cuando las otras no aceptan la entrada (por la máscara, el tipo o el
dispositivo), sí la guarda, como la atención ingenua. Abajo puedes medirlo: la tabla dice qué implementación
eligió SDPA en este dispositivo.

Otra salida es **no mirar tan lejos**: con una **ventana causal** de $w$ palabras (cada una mira a las $w$
anteriores y a sí misma, como la máscara de ventana causal de la pestaña *Máscara causal*), cada fila tiene a lo
sumo $w + 1$ pesos, y la memoria crece como $O(L \cdot w)$ en vez de $O(L^2)$:

$$\text{memoria con ventana} = B \cdot N \cdot h \cdot L \cdot \min(L,\, w + 1) \cdot b$$
"""


@lru_cache(maxsize=1)
def longformer() -> dict[str, int]:
    """Casillas por fila de la ventana de Longformer (512, centrada) y de la causal de la pestaña con w = 512."""
    L, w = 4 * VENTANA, VENTANA  # una fila del medio ve la ventana entera
    centrada, causal = dispersa.ventana(L, w, centrada=True), dispersa.ventana(L, w)
    lado = int((~centrada[L // 2]).nonzero().max()) - L // 2
    return {
        "a_cada_lado": lado,
        "centrada": int(dispersa.por_fila(centrada).max()),
        "causal": int(dispersa.por_fila(causal).max()),
    }


@lru_cache(maxsize=1)
def flash_en_mha() -> str:
    """Qué responde `nn.MultiheadAttention` al argumento `attn_implementation` que sugiere el tutorial (§2.2)."""
    try:
        with torch.device("meta"):
            nn.MultiheadAttention(16, 4, batch_first=True, attn_implementation="flash_attention_2")
    except TypeError as e:
        return f"TypeError: {e}"
    return "lo acepta"


def _mb(b: float) -> str:
    return f"{numero(b / 1e6, ',.2f')} MB"


def _legible(b: float) -> str:
    for unidad, escala in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if b >= escala:
            return f"{numero(b / escala, ',.1f')} {unidad}"
    return f"{numero(b / 1e3, ',.2f')} kB"


def con_ventana(L, w: int):
    """Pesos por cabeza con una ventana de w palabras (w anteriores y ella misma): L · min(L, w + 1); sin ventana
    (w = 0), L². Es lo que guarda un núcleo que solo calcula la banda; una máscara sobre la matriz entera no ahorra."""
    return L * L if w == 0 else L * np.minimum(L, w + 1)


def tabla_memoria(tipo: str = "float32", factor: int = 1, ventana: int = 0) -> list[list[str]]:
    """Por largo de LARGOS_TABLA: pesos por cabeza (L²), su memoria, la memoria por `factor` cabezas y, con
    ventana, la memoria total con ella (L · (w + 1) por cabeza)."""
    b = TIPOS[tipo][1]
    return [
        [miles(L), miles(L * L), _mb(L * L * b), _mb(L * L * b * factor)]
        + ([_mb(int(con_ventana(L, ventana)) * b * factor)] if ventana else ["—"])
        for L in LARGOS_TABLA
    ]


def _figura_teorica(tipo: str, factor: int, ventana: int = 0) -> Curvas:
    """Memoria de los pesos contra el largo, en log-log: una recta de pendiente 2, con la tabla y dos GPU; con
    ventana, la curva L · min(L, w + 1), que se dobla a pendiente 1 desde L = w + 1."""
    b = TIPOS[tipo][1]
    L = np.round(np.logspace(1, 6, 51))  # de 10 a 10⁶ palabras, 10 puntos por década
    curvas = [Curva("por cabeza", L, L**2 * b / 1e6, color=C0, estilo="lineas")]
    if factor > 1:
        curvas.append(Curva(f"total (× {miles(factor)})", L, L**2 * b * factor / 1e6, color=C1, estilo="lineas"))
    if ventana:
        y = con_ventana(L, ventana) * b / 1e6
        curvas.append(Curva("con ventana, por cabeza", L, y, color=C2, estilo="punteada"))
        if factor > 1:
            y = con_ventana(L, ventana) * b * factor / 1e6
            curvas.append(Curva("con ventana, total", L, y, color=C3, estilo="punteada"))
    tabla = [Nota(Lt, Lt**2 * b / 1e6, f"{numero(Lt**2 * b / 1e6, ',.2f')} MB", color=C0) for Lt in LARGOS_TABLA]
    # Cada nombre junto a su línea: el de la GPU chica debajo y los demás encima (las dos líneas distan 0.7 décadas:
    # encima las dos, «GPU de 16 GB» y «GPU de 80 GB» se pisaban). A unos píxeles de la línea, no a un factor de los
    # datos: en el proyector, con el panel más bajo y la letra más grande, la línea tachaba su nombre (y una décima
    # de década más, para que no la toque).
    gpus = [
        Nota(
            12,
            gb * 1e3 * (1.25 if i else 0.8),
            f"GPU de {gb} GB",
            marca=False,
            color=GRIS,
            lado="arriba" if i else "abajo",
        )
        for i, gb in enumerate(sorted(GPUS_GB))
    ]
    return Curvas(
        tuple(curvas),
        titulo=f"Pesos de atención en {tipo}: pendiente 2 en log-log"
        + (f"\ncon ventana causal w = {miles(ventana)}: pendiente 1 desde L = {miles(ventana + 1)}" if ventana else ""),
        eje_x="Largo de la frase L (palabras, escala log)",
        eje_y="Memoria de los pesos (MB, escala log)",
        log_x=True,
        log_y=True,
        marcas_x=(10, 100, 1_000, 10_000, 100_000, 1_000_000),
        horizontales=tuple(Referencia(gb * 1e3, f"GPU de {gb} GB") for gb in GPUS_GB),
        notas=(*tabla, *gpus),
        formato=",.3~r",  # 3 cifras sin notación científica: 4 000 000 MB, 0.0004 MB
        pista="{n}: L = {x} palabras, {y} MB",
    )


def _alcance(gb: float, b: int, factor: int, ventana: int) -> int:
    """El largo L más grande cuyos pesos caben en `gb` GB (con ventana, L · min(L, w + 1) por matriz)."""
    numeros = int(gb * 1e9 / (b * factor))  # pesos que caben
    sin_ventana = math.isqrt(numeros)
    return sin_ventana if not ventana or sin_ventana <= ventana + 1 else numeros // (ventana + 1)


def _texto_ventana(ventana: int, b: int, factor: int) -> str:
    L = LARGOS_TABLA[-1]
    if not ventana:
        return "Sin ventana (w = 0), cada palabra mira a todas: L² pesos por matriz."
    return (
        f"Con una **ventana causal de w = {miles(ventana)}** (cada palabra mira a las {miles(ventana)} anteriores y a "
        f"sí misma), cada fila guarda a lo sumo {miles(ventana + 1)} pesos, **O(L·w)** en vez de O(L²): a "
        f"{miles(L)} palabras, "
        f"**{_legible(con_ventana(L, ventana) * b * factor)}** en vez de {_legible(L * L * b * factor)} "
        f"({miles(L * L / con_ventana(L, ventana))} veces menos), y una GPU de 16 GB llega a "
        f"L ≈ {miles(_alcance(16, b, factor, ventana))}. Eso solo se ahorra si se calculan únicamente las "
        "casillas de la banda, como Longformer o la ventana de FlashAttention 2 (Mistral); la máscara de ventana "
        "de la pestaña *Máscara causal* tapa casillas de la matriz entera, que sigue ocupando L². "
        + _texto_longformer()
    )


def _texto_longformer() -> str:
    lf = longformer()
    return (
        f"La ventana de Longformer (w = {VENTANA}) es **centrada**: {lf['a_cada_lado']} palabras a cada lado y "
        f"ella misma, {lf['centrada']} casillas por fila, las mismas que la ventana causal de w = {VENTANA} "
        f"({lf['causal']}): ocupa lo mismo, aunque mira también hacia adelante. *Variantes* la dibuja."
    )


def calcular(tipo: str = "float32", cabezas: float = 1, capas: float = 1, lote: float = 1, ventana: float = VENTANA):
    """La vista: (figura log-log, tabla de memoria, texto). `ventana` = w (0: sin ventana) solo añade la curva,
    la columna y el párrafo de la atención con ventana; lo demás no depende de ella."""
    tipo = tipo_de_dato(tipo)
    cabezas = _entero(cabezas, "El número de cabezas", 1, CABEZAS_MAX)
    capas = _entero(capas, "El número de capas", 1, CAPAS_MAX)
    lote = _entero(lote, "El lote", 1, LOTE_MAX)
    ventana = _entero(ventana, "La ventana w", 0, VENTANA_MAX)
    factor, b = cabezas * capas * lote, TIPOS[tipo][1]
    cabe = {gb: math.isqrt(int(gb * 1e9 / (b * factor))) for gb in GPUS_GB}
    texto = (
        "La tabla es la de la lección: L² pesos por cabeza, 4 bytes cada uno en float32. La medición con SDPA "
        "y la ventana vienen del tutorial (§6.2 y §7). Ojo con su §2.2: sugiere "
        '`nn.MultiheadAttention(..., attn_implementation="flash_attention_2")`, pero ese argumento no existe '
        f"(`{flash_en_mha().split(': ')[0]}`); FlashAttention se usa a través de SDPA.\n\n"
        f"En {tipo} cada peso ocupa {b} bytes. Con {lote} {'frase' if lote == 1 else 'frases'}, "
        f"{capas} {'capa' if capas == 1 else 'capas'} y {cabezas} {'cabeza' if cabezas == 1 else 'cabezas'}, "
        f"hay **{miles(factor)}** {'matriz' if factor == 1 else 'matrices'} de L × L: a 100 000 palabras, "
        f"**{_legible(100_000**2 * b * factor)}**. Solo con los pesos, una GPU de 16 GB llega a "
        f"L ≈ {miles(cabe[16])} y una de 80 GB a L ≈ {miles(cabe[80])}.\n\n"
        "(El total cuenta todas las capas a la vez, como en el entrenamiento, que guarda los pesos para "
        "el paso hacia atrás; al solo predecir, cada capa puede soltar los suyos.)\n\n"
        + _texto_ventana(ventana, b, factor)
    )
    return _figura_teorica(tipo, factor, ventana), tabla_memoria(tipo, factor, ventana), texto


# --- aprender: predecir y comprobarse (las respuestas las lee de la tabla de `calcular`) ------------


def _mb_de(celda: str) -> float:
    """«40 000.00 MB» (con espacios finos de miles) -> 40000.0."""
    return float(re.sub(r"[^\d.]", "", celda))


def _por_diez(salida, columna: int) -> dict:
    """Cuántas veces crece la columna `columna` de la tabla de la vista de L = 1 000 a L = 10 000."""
    tabla = salida[1]
    k = next(i for i, fila in enumerate(tabla) if _mb_de(fila[0]) == LARGOS_TABLA[1])
    antes, despues = _mb_de(tabla[k][columna]), _mb_de(tabla[k + 1][columna])
    return {
        "respuesta": round(despues / antes, 1),
        "L": tabla[k][0],
        "L10": tabla[k + 1][0],
        "antes": tabla[k][columna],
        "despues": tabla[k + 1][columna],
    }


def _otro_tipo(antes, despues) -> dict:
    """Cómo cambia la memoria por cabeza de L = 1 000 al pasar de float32 a bfloat16."""
    a, d = _mb_de(antes[1][1][2]), _mb_de(despues[1][1][2])
    cambio = {0.5: "mitad", 1.0: "igual", 0.25: "cuarta"}.get(round(d / a, 2), "otro")
    return {"respuesta": cambio, "antes": antes[1][1][2], "despues": despues[1][1][2]}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "Sin ventana (atención completa): si el texto es 10 veces más largo (L × 10), la memoria de los pesos de "
        "atención se multiplica por…",
        verdad=ap.EnLaPestana(calcular, lambda salida: _por_diez(salida, 2)),
        decimales=0,
        minimo=0,
        maximo=1e9,
        porque="Hay un peso por cada par de palabras: L² casillas. De L = {L} a L = {L10}, la columna «por cabeza» "
        "pasa de {antes} a {despues}: 10² = 100 veces más.",
    ),
    preguntas=(
        ap.Pregunta(
            f"Con la ventana con que abre la pestaña (w = {miles(VENTANA)}), si L pasa de 1 000 a 10 000 la memoria "
            "se multiplica por…",
            (
                ap.Alternativa(
                    10,
                    "10",
                    "Cada palabra mira a lo sumo w + 1: la memoria es L · (w + 1), lineal en L ({antes} → {despues}).",
                ),
                ap.Alternativa(
                    100,
                    "100",
                    "Eso es sin ventana (L²). Con ventana cada palabra mira a lo sumo w + 1: L · (w + 1), lineal "
                    "({antes} → {despues}).",
                ),
                ap.Alternativa(
                    1,
                    "1 (no cambia)",
                    "Lo que no cambia es lo que mira cada palabra (w + 1); las palabras "
                    "son 10 veces más, y la memoria también ({antes} → {despues}).",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, lambda salida: _por_diez(salida, 4)),
            tipo=ap.CANTIDAD,
        ),
        ap.Pregunta(
            "Si los pesos se guardan en bfloat16 en vez de float32, la memoria…",
            (
                ap.Alternativa(
                    "mitad",
                    "baja a la mitad",
                    "bfloat16 usa 2 bytes por número y float32, 4: con L = 1 000, {antes} → {despues}.",
                ),
                ap.Alternativa(
                    "igual",
                    "no cambia",
                    "Cambia el tamaño de cada número: 2 bytes en vez de 4. Con L = 1 000, {antes} → {despues}.",
                ),
                ap.Alternativa(
                    "cuarta",
                    "baja a la cuarta parte",
                    "Es la mitad: 2 bytes por número en vez de 4; las casillas siguen siendo L² "
                    "(con L = 1 000, {antes} → {despues}).",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _otro_tipo, cambio={"tipo": "bfloat16"}),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        tipo = Opcion(list(TIPOS), value="float32", label="Tipo de dato")
        cabezas = Deslizador(1, CABEZAS_MAX, value=1, step=1, label="Cabezas")
        capas = Deslizador(1, CAPAS_MAX, value=1, step=1, label="Capas")
        lote = Deslizador(1, LOTE_MAX, value=1, step=1, label="Lote (frases a la vez)")
        ventana = Desplegable(VENTANAS, value=VENTANA, label="Ventana causal w (palabras anteriores)")
    with gr.Row():
        figura = grafico("Memoria de los pesos según el largo", scale=1)
        with gr.Column(scale=1):  # mitad y mitad: la tabla de cinco columnas cabe sin desplazarse
            tabla = gr.Dataframe(
                headers=["Largo L", "Pesos (L²)", "Por cabeza", "Total", "Ventana"],
                label="Memoria de los pesos de atención",
                interactive=False,
            )
            texto = gr.Markdown()
    gr.Markdown("### Medición en este dispositivo: atención ingenua contra SDPA")
    permitidos = largos_permitidos(dispositivo_pesado())  # en ZeroGPU, la medición corre en la GPU
    with gr.Row():
        largo_max = Desplegable(permitidos, value=min(2048, permitidos[-1]), label="Largo máximo (palabras)")
        boton = gr.Button("Medir en este dispositivo", variant="primary")
    figura_medida = grafico("Tiempo y memoria medidos", value=salidas_para_gradio(ANTES_DE_MEDIR))
    with gr.Row(visible=False) as fila_medida:  # la tabla aparece con la primera medición
        tabla_medida = gr.Dataframe(
            headers=["Largo", "Ingenua (ms)", "SDPA (ms)", "Ingenua (MB)", "SDPA (MB)", "Implementación de SDPA"],
            label="Medición",
            interactive=False,
        )
    texto_medida = gr.Markdown()
    boton.click(
        envolver(medir, exclusivo_de="medir"),
        inputs=[largo_max, tipo],
        outputs=[figura_medida, tabla_medida, texto_medida],
        api_name="memoria_medir",
        concurrency_limit=1,
        concurrency_id="medir",
    ).success(lambda: gr.Row(visible=True), outputs=fila_medida, api_visibility="private", queue=False)
    seccion_glosario(("pesos", "cabeza", "ventana w", "lote"), "memoria")
    servido(capas, "128 paradas, 175 kB: con las de cabezas (174 kB) pasarían de los 200 kB")
    servido(lote, "1 024 valores (más de 256 paradas)")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[tipo, cabezas, capas, lote, ventana],
        salidas=[figura, tabla, texto],
        url={"tipo": tipo, "cabezas": cabezas, "capas": capas, "lote": lote, "ventana": ventana},
        # La ventana (28 kB más) pasaría los 200 kB de la pestaña: queda en el servidor.
        barridos=(Barrido(cabezas), Barrido(tipo)),
    )
