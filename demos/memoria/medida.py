"""La medición en vivo de la pestaña «memoria»: atención ingenua contra SDPA en este dispositivo.

Tiempo (mediana) y memoria (pico en CUDA; en CPU, lo que el perfilador atribuye a cada
operador) en largos que se duplican, y qué backend eligió SDPA, leído del perfilador.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function

from demos.comun.figuras import C0, C1, GRIS, Curva, Curvas, Paneles, miles, numero
from demos.comun.zerogpu import gpu
from modelos import atencion, dispositivo

TIPOS = {"float32": (torch.float32, 4), "bfloat16": (torch.bfloat16, 2)}  # nombre -> (dtype, bytes)
D_CABEZA = 64  # columnas por cabeza en la medición (como en GPT-2)
LARGO_MIN_MEDIDA, PUNTOS_MEDIDA = 64, 6
# Tope del largo por dispositivo: en CPU, la medición entera cabe en unos 2 s.
LARGO_MAX_MEDIDA = {"cpu": 2048, "cuda": 32768}
LARGO_MAX_OTRO = 8192


def tipo_de_dato(tipo) -> str:
    """El tipo de dato elegido («float32», «bfloat16»…), o ValueError en español."""
    if not isinstance(tipo, str) or tipo not in TIPOS:
        raise ValueError(f"El tipo de dato debe ser uno de: {', '.join(TIPOS)}; llegó «{str(tipo)[:40]}».")
    return tipo


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
    ("flash_attention_for_cpu", "flash (núcleo de CPU)"),
    ("flash_attention", "flash"),
    ("efficient_attention", "eficiente en memoria"),
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
    tipo = tipo_de_dato(tipo)
    permitidos = largos_permitidos(disp)
    try:
        L = float(largo_maximo)
    except (TypeError, ValueError):
        L = float("nan")
    if L not in permitidos:
        raise ValueError(
            f"El largo máximo debe ser una potencia de 2 entre {miles(permitidos[0])} y {miles(permitidos[-1])} "
            f"en este dispositivo ({disp.type}); llegó «{str(largo_maximo)[:40]}»."
        )
    L = int(L)
    if disp.type == "cuda" and 3 * L * L * TIPOS[tipo][1] > torch.cuda.mem_get_info(disp)[0] / 2:
        raise ValueError(f"No hay memoria libre suficiente en la GPU para L = {miles(L)}: elige un largo menor.")
    return L, tipo


def _pendiente(largos: list[int], valores: list) -> float:
    """Pendiente en log-log de los tres largos mayores (en los menores manda el costo fijo)."""
    if None in valores or min(valores[-3:]) <= 0:
        return float("nan")
    return float(np.polyfit(np.log(largos[-3:]), np.log(np.asarray(valores[-3:], dtype=float)), 1)[0])


def _panel_medido(largos: list[int], res: dict, clave: str, tipo: str, disp: torch.device) -> Curvas:
    """Un panel log-log: tiempo (ms) o memoria (MB) de cada método; las pendientes van en el título."""
    escala, unidad = {"tiempo": (1e3, "ms"), "memoria": (1e-6, "MB")}[clave]
    curvas, pendientes = [], []
    for metodo, color in zip(METODOS, (C1, C0), strict=True):
        if None in res[metodo][clave]:
            continue
        curvas.append(Curva(metodo, largos, np.asarray(res[metodo][clave], dtype=float) * escala, color=color))
        p = _pendiente(largos, res[metodo][clave])
        if math.isfinite(p):
            pendientes.append(f"{metodo} {p:.1f}")
    if curvas and clave == "memoria":
        b = TIPOS[tipo][1]
        una = np.asarray(largos, dtype=float) ** 2 * b * escala
        curvas.append(Curva(f"una matriz L × L ({b} bytes)", largos, una, color=GRIS, estilo="punteada"))
    titulo = f"Tiempo (mediana), {tipo}" if clave == "tiempo" else f"Memoria pico, {tipo}"
    return Curvas(
        tuple(curvas),
        titulo=titulo + (f"\npendiente: {', '.join(pendientes)}" if pendientes else ""),
        eje_x="Largo L (palabras, escala log)",
        eje_y=f"{clave.capitalize()} ({unidad}, escala log)",
        log_x=True,
        log_y=True,
        marcas_x=tuple(largos),
        formato=",.3~r",
        pista=f"{{n}}, L = {{x}}: {{y}} {unidad}",
        mensaje="" if curvas else f"En {disp.type} no se mide la memoria",
    )


def _figura_medida(largos: list[int], res: dict, tipo: str, disp: torch.device) -> Paneles:
    """Tiempo y memoria de la atención ingenua y de SDPA, lado a lado, en log-log."""
    paneles = tuple(_panel_medido(largos, res, clave, tipo, disp) for clave in ("tiempo", "memoria"))
    return Paneles(paneles, columnas=2, alto_fila=380)


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
    memorias = ["—" if res[m]["memoria"][i] is None else numero(res[m]["memoria"][i] / 1e6, ",.2f") for m in METODOS]
    return [miles(L), *tiempos, *memorias, _backend(operador)]


@gpu(20)  # en ZeroGPU, con GPU prestada: en una H200 tarda < 1 s (docs/gpu_smoke.md); el resto, margen
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
        f"3 a 5 repeticiones; {como}. SDPA corrió con la implementación **{_backend(operadores[L_max])}** "
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
