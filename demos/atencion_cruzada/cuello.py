"""El cuello de botella de un Seq2Seq sin atención (tutorial §1.1): un contexto fijo contra uno por paso.

    c fijo:        c = (1/L) · Σ_j h_j                    el mismo para todos los pasos t
    c_t por paso:  c_t = Σ_j α_tj · h_j,   α_t = softmax(q_t · Kᵀ / √d)

El c fijo es aquí el promedio de los vectores de la fuente, el resumen de tamaño fijo más simple
(en un Seq2Seq con RNN es el último estado oculto): d números para toda la frase.
"""

from __future__ import annotations

from functools import lru_cache

import gradio as gr
import numpy as np
import torch

from demos.atencion_cruzada.frases import D_MODELO, IDENTIDAD, SEMILLA_MAX, crear_capa, leer_frase, vectores
from demos.comun.controles import Opcion
from demos.comun.figuras import C0, C1, GRIS, Curva, Curvas, Mapa, Paneles, Referencia, miles
from demos.comun.validar import entero
from demos.comun.vista import envolver, explicacion, grafico, un_reloj
from modelos import atencion
from modelos.formato import por_ciento

API = "atencion_cruzada_cuello"
FIJO, POR_PASO = "fijo", "por paso"
MODOS = [("c fijo: un solo vector para todos los pasos", FIJO), ("c_t por paso: atención", POR_PASO)]
LARGOS = (1, 2, 4, 8, 16, 32, 64, 128, 256)  # largos de la fuente para la curva
SEMILLA_CURVA = 0
D_GRANDE = 1024  # otro ancho para el c fijo: el coseno ≈ 1/√L no depende de d

EXPLICACION = r"""
### El cuello de botella (tutorial §1.1)
Un Seq2Seq sin atención resume toda la fuente en **un** vector $c$ de $d$ números y lo usa en cada paso del
decodificador; con atención, cada paso $t$ arma el suyo, $c_t = \sum_j \alpha_{tj}\, h_j$ con
$\alpha_t = \mathrm{softmax}(q_t K^\top / \sqrt{d})$. Aquí el $c$ fijo es el promedio de los vectores de la fuente
($\alpha_{tj} = 1/L$ en todas las filas), el resumen de tamaño fijo más simple.
"""


def validar(objetivo, fuente, modo, semilla) -> tuple[list[str], list[str], str, int]:
    if modo not in (FIJO, POR_PASO):
        raise ValueError(f"El contexto debe ser «{FIJO}» o «{POR_PASO}».")
    objetivo, fuente = leer_frase(objetivo, "objetivo"), leer_frase(fuente, "fuente")
    return objetivo, fuente, modo, entero(semilla, "La semilla", 0, SEMILLA_MAX)


def contextos(objetivo: list[str], fuente: list[str], modo: str, semilla: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(qué mira cada paso (Lo, Lf), contextos (Lo, d)): con c fijo, filas de 1/Lf y el promedio de la fuente;
    por paso, los pesos de la capa de la pestaña (W = identidad, promedio de las cabezas) y su salida."""
    H = vectores(fuente, semilla)  # (1, Lf, d)
    Lo, Lf = len(objetivo), len(fuente)
    if modo == FIJO:
        alfa = torch.full((Lo, Lf), 1 / Lf)  # (Lo, Lf): todas las filas iguales
        return alfa.numpy(), H[0].mean(dim=0).expand(Lo, -1).numpy()  # (Lo, d): el mismo c en cada paso
    with torch.inference_mode():
        c, pesos = crear_capa(IDENTIDAD, semilla)(vectores(objetivo, semilla), H)  # (1, Lo, d), (1, h, Lo, Lf)
    return pesos[0].mean(dim=0).numpy(), c[0].numpy()


@lru_cache(maxsize=1)
def recuerdo_segun_largo() -> dict[str, np.ndarray]:
    """Para cada L de LARGOS, una fuente de L vectores al azar H (L, d) y un paso por palabra cuya consulta es la
    palabra que necesita (q_t = h_t): el coseno medio entre el contexto y h_t, y qué fracción de pasos recupera
    su palabra (la fuente más parecida a su contexto es h_t). Con c fijo y con c_t."""
    g = torch.Generator().manual_seed(SEMILLA_CURVA)
    filas = {k: [] for k in ("coseno_fijo", "coseno_paso", "recupera_fijo", "recupera_paso")}
    for L in LARGOS:
        H = torch.randn(L, D_MODELO, generator=g)  # (L, d)
        por_paso, _ = atencion(H, H, H)  # (L, d): c_t = softmax(h_t · Hᵀ / √d) · H
        fijo = H.mean(dim=0, keepdim=True).expand(L, -1)  # (L, d): el mismo c para cada paso
        for nombre, C in (("fijo", fijo), ("paso", por_paso)):
            coseno = torch.nn.functional.cosine_similarity(C[:, None, :], H[None, :, :], dim=-1)  # (L, L)
            filas[f"coseno_{nombre}"].append(coseno.diagonal().mean().item())
            filas[f"recupera_{nombre}"].append((coseno.argmax(dim=1) == torch.arange(L)).float().mean().item())
    H = torch.randn(64, D_GRANDE, generator=g)  # (64, 1024): el mismo promedio con vectores más anchos
    coseno = torch.nn.functional.cosine_similarity(H.mean(dim=0, keepdim=True), H, dim=-1)  # (64,)
    return {k: np.array(v) for k, v in filas.items()} | {"coseno_fijo_d_grande": np.array(coseno.mean().item())}


def _figura(alfa: np.ndarray, objetivo, fuente, modo: str) -> Paneles:
    Lo, Lf = alfa.shape
    titulo = f"c fijo: las {Lo} filas iguales (1/{Lf})" if modo == FIJO else "c_t: cada fila, sus propios pesos"
    mapa = Mapa(
        alfa,
        x=tuple(fuente),
        y=tuple(objetivo),
        titulo=f"{titulo}\nQué ve cada palabra objetivo: {Lo} × {Lf}",
        eje_x="Fuente (h_j)",
        eje_y="Paso del objetivo (t)",
        vmax=max(float(alfa.max()), 1e-6),
        barra=None,  # cada casilla lleva su número; una barra chocaría con el eje de la curva de al lado
        pista="el paso «{y}» toma de «{x}»: {v}",
    )
    r, x = recuerdo_segun_largo(), np.array(LARGOS, float)
    curvas = Curvas(
        (
            Curva("c_t por paso", x, r["coseno_paso"], color=C0),
            Curva("c fijo (promedio)", x, r["coseno_fijo"], color=C1),
            Curva("1/√L", x, 1 / np.sqrt(x), color=GRIS, estilo="punteada"),
        ),
        titulo="¿Cuánto queda de la palabra que el paso necesita?",
        eje_x="Largo de la fuente L (escala log)",
        eje_y="coseno(contexto, h_t)",
        log_x=True,
        rango_y=(0, 1.05),
        marcas_x=LARGOS[::2],
        verticales=(Referencia(Lf, f"L = {Lf}", color="#4d4d4d", punteada=False),),
        formato=".2f",
        pista="{n}<br>L = {x}<br>coseno = {y}",
    )
    return Paneles((mapa, curvas), columnas=2, alto_fila=int(np.clip(200 + 16 * Lo, 320, 560)))


def calcular_cuello(objetivo: str, fuente: str, modo: str = FIJO, semilla: float = 0):
    """La sección: (qué ve cada paso y la curva según el largo, texto)."""
    objetivo, fuente, modo, semilla = validar(objetivo, fuente, modo, semilla)
    alfa, C = contextos(objetivo, fuente, modo, semilla)
    rango = int(torch.linalg.matrix_rank(torch.from_numpy(C), rtol=1e-5))
    r = recuerdo_segun_largo()
    i4, i64 = LARGOS.index(4), LARGOS.index(64)
    texto = (
        f"**Con {'c fijo' if modo == FIJO else 'c_t por paso'}**, los {len(objetivo)} contextos de esta frase forman "
        f"una matriz ({len(objetivo)}, {D_MODELO}) de **rango {rango}**"
        + (": todos los pasos ven lo mismo." if modo == FIJO else ": cada paso ve otra mezcla de la fuente.")
        + f" Con fuentes de vectores al azar, c fijo guarda de la palabra que un paso necesita un coseno de "
        f"{r['coseno_fijo'][i4]:.2f} con 4 palabras y {r['coseno_fijo'][i64]:.2f} con 64, cerca de 1/√L "
        f"({1 / np.sqrt(4):.2f} y {1 / np.sqrt(64):.2f}): al promediar L vectores, cada uno aporta 1/L de la mezcla. "
        f"Es el promedio y no el tamaño del vector: con d = {miles(D_GRANDE)} en vez de {D_MODELO}, 64 palabras dan "
        f"{float(r['coseno_fijo_d_grande']):.2f}. Y un mismo c para todos los pasos solo puede ser el más parecido "
        f"a una palabra: acierta {round(r['recupera_fijo'][i64] * 64)} de los 64 pasos "
        f"({por_ciento(r['recupera_fijo'][i64])}, 1/L por construcción, no una medida). En el mejor caso, con una "
        f"consulta que es la palabra que el paso necesita (q_t = h_t), c_t guarda {r['coseno_paso'][i64]:.2f} y "
        f"acierta {por_ciento(r['recupera_paso'][i64], 0)} de los pasos."
    )
    return _figura(alfa, objetivo, fuente, modo), texto


def seccion(aparece, objetivo, fuente, semilla) -> None:
    """Crea la sección del cuello de botella (elem_id `atencion-cruzada-cuello`) con su evento público.

    Se recalcula cuando cambia `aparece` (el texto de la vista principal: al abrir y tras cada cambio de
    frases; es barato y va sin cola) o el interruptor.
    """
    with gr.Column(elem_id="atencion-cruzada-cuello"):
        explicacion(EXPLICACION)
        modo = Opcion(MODOS, value=FIJO, label="Contexto del decodificador")
        figura = grafico("Qué ve cada paso con un contexto fijo o con uno por paso")
        texto = gr.Markdown()
    entradas, salidas = [objetivo, fuente, modo, semilla], [figura, texto]
    calculo = envolver(calcular_cuello)
    aparece.change(calculo, entradas, salidas, api_visibility="private", queue=False, show_progress="hidden")
    modo.input(calculo, entradas, salidas, api_name=API, **un_reloj(salidas))
