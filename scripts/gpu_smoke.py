"""Comprobación en GPU: el cálculo de cada pestaña corre en CUDA y da lo mismo que en la CPU.

    python scripts/gpu_smoke.py

Corre la vista inicial de cada pestaña del registro dos veces, en procesos separados
(ATENCION_DISPOSITIVO=cpu y =cuda), y compara todo lo numérico: tablas, textos con
números y los datos de cada figura (imágenes y curvas). En el proceso CUDA anota si la
pestaña reservó memoria en la GPU. Imprime una tabla; sale con 1 si algo no coincide.
Sin CUDA, lo dice y sale con 2 (las pruebas normales no necesitan GPU).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

RAIZ = Path(__file__).resolve().parent.parent
TOLERANCIA = 1e-3  # en salidas ya redondeadas para mostrar; los kernels de GPU suman en otro orden


def datos_figura(fig) -> list[list[float]]:
    """Los números que una figura dibuja: imágenes, líneas y alturas de barras."""
    from matplotlib.patches import Rectangle

    series = []
    for eje in fig.axes:
        series += [
            np.ma.filled(np.ma.asarray(im.get_array(), dtype=float), np.nan).ravel().tolist() for im in eje.get_images()
        ]
        series += [np.asarray(linea.get_ydata(), dtype=float).ravel().tolist() for linea in eje.get_lines()]
        barras = [p.get_height() for p in eje.patches if isinstance(p, Rectangle)]
        if barras:
            series.append([float(b) for b in barras])
    return series


def volcar() -> None:
    """En este proceso: cada pestaña con sus valores por omisión, a JSON por stdout."""
    sys.path.insert(0, str(RAIZ))
    import torch

    import app

    resultados = {}
    for id_, vista in app.demo.vistas.items():
        cuda = torch.cuda.is_available() and os.environ.get("ATENCION_DISPOSITIVO") == "cuda"
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        salida = vista.fn()
        valores = []
        for v in salida if isinstance(salida, tuple) else (salida,):
            if hasattr(v, "savefig"):
                valores.append(datos_figura(v))
            elif isinstance(v, str):
                valores.append([float(x) for x in re.findall(r"-?\d+\.\d+", v)])
            else:
                valores.append(v)
        resultados[id_] = {"valores": valores, "memoria_cuda": torch.cuda.max_memory_allocated() if cuda else 0}
    print(json.dumps(resultados, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def correr(dispositivo: str) -> dict:
    entorno = {**os.environ, "ATENCION_DISPOSITIVO": dispositivo, "HF_HUB_OFFLINE": "1"}
    salida = subprocess.run(
        [sys.executable, __file__, "--volcar"], env=entorno, cwd=RAIZ, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(salida.strip().splitlines()[-1])


def diferencia(a, b) -> float:
    """Mayor diferencia entre dos estructuras anidadas de números (inf si no se parecen)."""
    if isinstance(a, int | float) and isinstance(b, int | float):
        if np.isnan(a) and np.isnan(b):
            return 0.0
        return abs(a - b)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return float("inf")
        return max([diferencia(x, y) for x, y in zip(a, b, strict=True)], default=0.0)
    if isinstance(a, dict) and isinstance(b, dict):
        return (
            diferencia([a.get(k) for k in sorted(a)], [b.get(k) for k in sorted(b)])
            if a.keys() == b.keys()
            else float("inf")
        )
    return 0.0 if a == b else float("inf")


def main() -> int:
    import torch

    if not torch.cuda.is_available():
        print("No hay CUDA en esta máquina: nada que comprobar.")
        return 2
    cpu, cuda = correr("cpu"), correr("cuda")
    print(f"GPU: {torch.cuda.get_device_name(0)}\n")
    print(f"| {'pestaña':<20} | {'memoria CUDA':>12} | {'dif. máx. con CPU':>17} | resultado |")
    print(f"|{'-' * 22}|{'-' * 14}|{'-' * 19}|-----------|")
    mal = 0
    for id_ in cpu:
        d = diferencia(cpu[id_]["valores"], cuda[id_]["valores"])
        mem = cuda[id_]["memoria_cuda"]
        ok = d <= TOLERANCIA
        mal += not ok
        print(f"| {id_:<20} | {mem / 2**20:>9.1f} MB | {d:>17.2e} | {'sí' if ok else 'NO':<9} |")
    print("\n«memoria CUDA» 0 quiere decir que esa pestaña calcula en la CPU (no usa modelos ni cálculo pesado).")
    return 1 if mal else 0


if __name__ == "__main__":
    if "--volcar" in sys.argv:
        volcar()
    else:
        sys.exit(main())
