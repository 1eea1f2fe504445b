"""Memoria O(n²): la matriz de pesos crece con el cuadrado del largo; medición en vivo contra SDPA."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from functools import partial

import gradio as gr
import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.ticker import NullLocator
from torch.profiler import ProfilerActivity, profile, record_function

from demos import _graficos as G
from demos._ui import Deslizador, Desplegable, Opcion, Vista, envolver, explicacion, imagen
from demos._validar import entero as _entero
from modelos import atencion, dispositivo

TIPOS = {"float32": (torch.float32, 4), "bfloat16": (torch.bfloat16, 2)}  # nombre -> (dtype, bytes)
LARGOS_TABLA = (100, 1_000, 10_000, 100_000)
CABEZAS_MAX, CAPAS_MAX, LOTE_MAX = 128, 128, 1024
GPUS_GB = (16, 80)  # memorias de referencia en la figura
D_CABEZA = 64  # columnas por cabeza en la medición (como en GPT-2)
LARGO_MIN_MEDIDA, PUNTOS_MEDIDA = 64, 6
# Tope del largo por dispositivo: en CPU, la medición entera cabe en unos 2 s.
LARGO_MAX_MEDIDA = {"cpu": 2048, "cuda": 32768}
LARGO_MAX_OTRO = 8192

EXPLICACION = r"""
Cada cabeza calcula un peso por cada par de palabras: una matriz de $L \times L$. Si la frase es
10 veces más larga, la matriz ocupa **100 veces más**. Con $b$ bytes por número (4 en float32, 2 en
bfloat16), un lote de $B$ frases, $h$ cabezas y $N$ capas:

$$\text{memoria} = B \cdot N \cdot h \cdot L^2 \cdot b$$

Por eso PyTorch trae `scaled_dot_product_attention` (SDPA): calcula lo mismo por bloques, con
núcleos como FlashAttention, sin guardar nunca la matriz entera. Abajo puedes medirlo.
"""


def _tipo(tipo) -> str:
    if not isinstance(tipo, str) or tipo not in TIPOS:
        raise ValueError(f"El tipo de dato debe ser uno de: {', '.join(TIPOS)}; llegó «{str(tipo)[:40]}».")
    return tipo


def _mb(b: float) -> str:
    return f"{b / 1e6:,.2f} MB"


def _legible(b: float) -> str:
    for unidad, escala in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if b >= escala:
            return f"{b / escala:,.1f} {unidad}"
    return f"{b / 1e3:,.2f} kB"


def tabla_memoria(tipo: str = "float32", factor: int = 1) -> list[list[str]]:
    """Por largo de LARGOS_TABLA: pesos por cabeza (L²), su memoria, y la memoria por `factor` cabezas."""
    b = TIPOS[tipo][1]
    return [[f"{L:,}", f"{L * L:,}", _mb(L * L * b), _mb(L * L * b * factor)] for L in LARGOS_TABLA]


def _figura_teorica(tipo: str, factor: int):
    b = TIPOS[tipo][1]
    L = np.logspace(1, 6, 200)
    fig, eje = G.figura(6.4, 4.0)
    eje.loglog(L, L**2 * b / 1e6, color=G.C0, label="por cabeza")
    if factor > 1:
        eje.loglog(L, L**2 * b * factor / 1e6, color=G.C1, label=f"total (× {factor:,})")
    for Lt in LARGOS_TABLA:
        mb = Lt**2 * b / 1e6
        eje.plot(Lt, mb, "o", color=G.C0)
        eje.annotate(f"{mb:,.2f} MB", (Lt, mb), (8, -4), textcoords="offset points", ha="left", va="top", fontsize=10)
    for gb in GPUS_GB:
        eje.axhline(gb * 1e3, color="0.55", linestyle="--", linewidth=1)
        eje.text(12, gb * 1e3, f"GPU de {gb} GB", va="bottom", fontsize=10, color="0.4")
    eje.set_xlim(10, 1e6)
    eje.set_xlabel("Largo de la frase L (palabras, escala log)")
    eje.set_ylabel("Memoria de los pesos (MB, escala log)")
    eje.set_title(f"Pesos de atención en {tipo}: pendiente 2 en log-log")
    eje.legend(loc="lower right", fontsize=10, frameon=False)
    return fig


def calcular(tipo: str = "float32", cabezas: float = 1, capas: float = 1, lote: float = 1):
    """La vista: (figura log-log, tabla de memoria, texto)."""
    tipo = _tipo(tipo)
    cabezas = _entero(cabezas, "El número de cabezas", 1, CABEZAS_MAX)
    capas = _entero(capas, "El número de capas", 1, CAPAS_MAX)
    lote = _entero(lote, "El lote", 1, LOTE_MAX)
    factor, b = cabezas * capas * lote, TIPOS[tipo][1]
    cabe = {gb: math.isqrt(int(gb * 1e9 / (b * factor))) for gb in GPUS_GB}
    texto = (
        f"En {tipo} cada peso ocupa {b} bytes. Con {lote} {'frase' if lote == 1 else 'frases'}, "
        f"{capas} {'capa' if capas == 1 else 'capas'} y {cabezas} {'cabeza' if cabezas == 1 else 'cabezas'}, "
        f"hay **{factor:,}** {'matriz' if factor == 1 else 'matrices'} de L × L: a 100,000 palabras, "
        f"**{_legible(100_000**2 * b * factor)}**. Solo con los pesos, una GPU de 16 GB llega a "
        f"L ≈ {cabe[16]:,} y una de 80 GB a L ≈ {cabe[80]:,}.\n\n"
        "(El total cuenta todas las capas a la vez, como en el entrenamiento, que guarda los pesos para "
        "el paso hacia atrás; al solo predecir, cada capa puede soltar los suyos.)"
    )
    return _figura_teorica(tipo, factor), tabla_memoria(tipo, factor), texto


# --- la medición en vivo ---------------------------------------------------------------------


def largos_permitidos(disp: torch.device) -> list[int]:
    tope = LARGO_MAX_MEDIDA.get(disp.type, LARGO_MAX_OTRO)
    return [2**k for k in range(8, int(math.log2(tope)) + 1)]  # 256, 512, ..., tope


def _sincronizar(disp: torch.device) -> None:
    if disp.type == "cuda":
        torch.cuda.synchronize(disp)
    elif disp.type == "mps":
        torch.mps.synchronize()


def _mediana_tiempo(fn: Callable, repeticiones: int, disp: torch.device) -> float:
    tiempos = []
    for _ in range(repeticiones):
        t0 = time.perf_counter()
        fn()
        _sincronizar(disp)
        tiempos.append(time.perf_counter() - t0)
    return statistics.median(tiempos)


def _pico_cuda(fn: Callable, disp: torch.device) -> int:
    """Bytes reservados por encima de lo que ya había (contador global del dispositivo)."""
    _sincronizar(disp)
    base = torch.cuda.memory_allocated(disp)
    torch.cuda.reset_peak_memory_stats(disp)
    fn()
    _sincronizar(disp)
    return torch.cuda.max_memory_allocated(disp) - base


COMO_SE_MIDE = {
    "cpu": "la memoria la mide el perfilador de PyTorch (`profile_memory=True`), sumando cada reserva y "
    "liberación de tensores durante la llamada",
    "cuda": "la memoria es `torch.cuda.max_memory_allocated` por encima de lo ya reservado (si otra petición "
    "usa la GPU a la vez, se cuela en la cuenta)",
}
METODOS = {"ingenua": atencion, "SDPA": F.scaled_dot_product_attention}
BACKENDS = (  # fragmento del operador de aten -> nombre del backend de SDPA
    ("flash_attention_for_cpu", "flash (kernel de CPU)"),
    ("flash_attention", "flash"),
    ("efficient_attention", "memory-efficient"),
    ("cudnn_attention", "cuDNN"),
    ("attention_math", "math"),
)


def _perfilar(casos: dict[tuple, Callable], memoria_cpu: bool) -> tuple[dict[tuple, int], dict[tuple, str]]:
    """Corre cada caso una vez bajo el perfilador de PyTorch.

    Devuelve el pico de memoria de CPU de cada caso (sumando, en orden, cada reserva y liberación
    que anota el perfilador) y el operador de aten en que se despachó SDPA.
    """
    nombres = {f"medir|{m}|{L}": (m, L) for m, L in casos}
    with profile(activities=[ProfilerActivity.CPU], profile_memory=memoria_cpu) as perfil:
        for nombre, clave in nombres.items():
            with record_function(nombre):
                casos[clave]()
    eventos = perfil.profiler.kineto_results.events()
    memoria = sorted((e.start_ns(), e.nbytes()) for e in eventos if e.name() == "[memory]" and e.nbytes() != 0)
    operadores = sorted((e.start_ns(), e.name()) for e in eventos if e.name().startswith("aten::_scaled_dot_product"))
    picos, backends = {}, {}
    for e in (e for e in eventos if e.name() in nombres):
        clave, inicio, fin = nombres[e.name()], e.start_ns(), e.start_ns() + e.duration_ns()
        suma = pico = 0
        for _, n in (par for par in memoria if inicio <= par[0] <= fin):
            suma += n
            pico = max(pico, suma)
        picos[clave] = pico
        backends[clave] = next((o for t, o in operadores if inicio <= t <= fin), "")
    return picos, backends


def _backend(operador: str) -> str:
    return next((nombre for clave, nombre in BACKENDS if clave in operador), "desconocido")


def validar_medida(largo_maximo, tipo, disp: torch.device) -> tuple[int, str]:
    tipo = _tipo(tipo)
    permitidos = largos_permitidos(disp)
    try:
        L = float(largo_maximo)
    except (TypeError, ValueError):
        L = float("nan")
    if L not in permitidos:
        raise ValueError(
            f"El largo máximo debe ser una potencia de 2 entre {permitidos[0]} y {permitidos[-1]} en este "
            f"dispositivo ({disp.type}); llegó «{str(largo_maximo)[:40]}»."
        )
    L = int(L)
    if disp.type == "cuda" and 3 * L * L * TIPOS[tipo][1] > torch.cuda.mem_get_info(disp)[0] / 2:
        raise ValueError(f"No hay memoria libre suficiente en la GPU para L = {L:,}: elige un largo menor.")
    return L, tipo


def _pendiente(largos: list[int], valores: list) -> float:
    """Pendiente en log-log de los tres largos mayores (en los menores manda el costo fijo)."""
    if None in valores or min(valores[-3:]) <= 0:
        return float("nan")
    return float(np.polyfit(np.log(largos[-3:]), np.log(np.asarray(valores[-3:], dtype=float)), 1)[0])


def _figura_medida(largos: list[int], res: dict, tipo: str, disp: torch.device):
    fig, ejes = G.figura(8.8, 3.8, 1, 2)
    for eje, clave, escala, unidad in zip(ejes, ("tiempo", "memoria"), (1e3, 1e-6), ("ms", "MB"), strict=True):
        for metodo, color in zip(METODOS, (G.C1, G.C0), strict=True):
            if None in res[metodo][clave]:
                continue
            p = _pendiente(largos, res[metodo][clave])
            etiqueta = metodo + (f" (pendiente {p:.1f})" if math.isfinite(p) else "")
            eje.loglog(largos, np.asarray(res[metodo][clave]) * escala, "o-", color=color, label=etiqueta)
        if not eje.lines:
            G.sin_datos(eje, f"En {disp.type} no se mide la memoria")
            continue
        if clave == "memoria":
            una = np.asarray(largos, dtype=float) ** 2 * TIPOS[tipo][1] * escala
            eje.loglog(largos, una, ":", color="0.5", label=f"una matriz L × L ({TIPOS[tipo][1]} bytes)")
        eje.set_xticks(largos, [str(L) for L in largos])
        eje.xaxis.set_minor_locator(NullLocator())
        eje.set_xlabel("Largo L (palabras, escala log)")
        eje.set_ylabel(f"{clave.capitalize()} ({unidad}, escala log)")
        eje.legend(fontsize=9, frameon=False, loc="best")
    ejes[0].set_title(f"Tiempo (mediana), {tipo}")
    ejes[1].set_title("Memoria pico")
    return fig


def _medir_todo(largos: list[int], dtype: torch.dtype, disp: torch.device) -> tuple[dict, dict]:
    """{método: {"tiempo": [s por largo], "memoria": [bytes o None]}} y el operador de SDPA por largo."""
    g = torch.Generator().manual_seed(0)
    casos = {}
    for L in largos:
        q, k, v = (torch.randn(1, 1, L, D_CABEZA, generator=g).to(disp, dtype) for _ in range(3))
        casos |= {(m, L): partial(fn, q, k, v) for m, fn in METODOS.items()}
    with torch.inference_mode():
        # La pasada bajo el perfilador también calienta cada forma antes de cronometrar.
        picos, operadores = _perfilar(casos, memoria_cpu=disp.type == "cpu")
        res = {m: {"tiempo": [], "memoria": []} for m in METODOS}
        for (m, L), fn in casos.items():
            res[m]["tiempo"].append(_mediana_tiempo(fn, 5 if L <= 512 else 3, disp))
            res[m]["memoria"].append(_pico_cuda(fn, disp) if disp.type == "cuda" else picos.get((m, L)))
    return res, {L: operadores[("SDPA", L)] for L in largos}


def _fila(L: int, i: int, res: dict, operador: str) -> list[str]:
    tiempos = [f"{res[m]['tiempo'][i] * 1e3:.2f}" for m in METODOS]
    memorias = ["—" if res[m]["memoria"][i] is None else f"{res[m]['memoria'][i] / 1e6:,.2f}" for m in METODOS]
    return [f"{L:,}", *tiempos, *memorias, _backend(operador)]


def medir(largo_maximo: float = 2048, tipo: str = "float32"):
    """Mide la atención ingenua y SDPA en `dispositivo()`: (figura, tabla, texto).

    Una frase y una cabeza de D_CABEZA columnas, en hasta PUNTOS_MEDIDA largos que se duplican hasta `largo_maximo`.
    """
    disp = dispositivo()
    L_max, tipo = validar_medida(largo_maximo, tipo, disp)
    largos = [L_max >> k for k in range(PUNTOS_MEDIDA - 1, -1, -1) if L_max >> k >= LARGO_MIN_MEDIDA]
    inicio = time.perf_counter()
    res, operadores = _medir_todo(largos, TIPOS[tipo][0], disp)
    total = time.perf_counter() - inicio

    tabla = [_fila(L, i, res, operadores[L]) for i, L in enumerate(largos)]
    como = COMO_SE_MIDE.get(disp.type, f"en {disp.type} la memoria no se mide")
    p = _pendiente(largos, res["ingenua"]["memoria"])
    texto = (
        f"Medido en **{disp.type}**, {tipo}, una frase y una cabeza de {D_CABEZA} columnas; tiempo: mediana de "
        f"3 a 5 repeticiones; {como}. SDPA corrió con el backend **{_backend(operadores[L_max])}** "
        f"(`{operadores[L_max] or '?'}`, leído del perfilador).\n\n"
        + (
            f"La memoria de la ingenua crece con pendiente **{p:.2f}** en log-log: O(L²), porque guarda a la vez "
            f"los puntajes y los pesos (2 · L² · {TIPOS[tipo][1]} bytes). "
            if math.isfinite(p)
            else ""
        )
        + "En teoría, el tiempo de las dos crece como L² (hacen las mismas cuentas); en los largos cortos manda "
        f"el costo fijo de cada llamada. La medición tardó {total:.2f} s."
    )
    return _figura_medida(largos, res, tipo, disp), tabla, texto


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        tipo = Opcion(list(TIPOS), value="float32", label="Tipo de dato")
        cabezas = Deslizador(1, CABEZAS_MAX, value=1, step=1, label="Cabezas")
        capas = Deslizador(1, CAPAS_MAX, value=1, step=1, label="Capas")
        lote = Deslizador(1, LOTE_MAX, value=1, step=1, label="Lote (frases a la vez)")
    with gr.Row():
        figura = imagen("Memoria de los pesos según el largo", scale=3)
        with gr.Column(scale=2):
            tabla = gr.Dataframe(
                headers=["Largo L", "Pesos (L²)", "Por cabeza", "Total"],
                label="Memoria de los pesos de atención",
                interactive=False,
            )
            texto = gr.Markdown()
    gr.Markdown("### Medición en este dispositivo: atención ingenua contra SDPA")
    permitidos = largos_permitidos(dispositivo())
    with gr.Row():
        largo_max = Desplegable(permitidos, value=min(2048, permitidos[-1]), label="Largo máximo (palabras)")
        boton = gr.Button("Medir en este dispositivo", variant="primary")
    figura_medida = imagen("Tiempo y memoria medidos")
    with gr.Row():
        tabla_medida = gr.Dataframe(
            headers=["Largo", "Ingenua (ms)", "SDPA (ms)", "Ingenua (MB)", "SDPA (MB)", "Backend de SDPA"],
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
    )
    return Vista(
        fn=calcular,
        entradas=[tipo, cabezas, capas, lote],
        salidas=[figura, tabla, texto],
        url={"tipo": tipo, "cabezas": cabezas, "capas": capas, "lote": lote},
    )


if __name__ == "__main__":
    from app import construir_una, opciones_lanzamiento

    construir_una("memoria").launch(**opciones_lanzamiento())
