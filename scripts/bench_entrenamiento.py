"""¿Cuánto tarda entrenar? La receta de inversion-digitos frente al bucle de la lección, y la pestaña.

    python scripts/bench_entrenamiento.py [--repeticiones 3] [--hilos 1]

Mide en la misma corrida, alternando, la receta de `python -m modelos.entrenamiento inversion-digitos`
y el bucle de entrenamiento de la lección (2 épocas de 20,000 secuencias con DataLoader: la misma
receta, sin validaciones ni instantáneas), y además `entrenar_inversion` como la llama la pestaña «entrénalo tú»
(2 y 5 épocas de 10,000 secuencias). Imprime medianas de reloj y de CPU del proceso; la de CPU
varía menos cuando otros procesos comparten la máquina. Por omisión con 1 hilo de torch, como la
línea de comandos que escribe la tarjeta: con 2 y la CPU ocupada por otros, los hilos de OpenMP que se
esperan entre sí hacen al bucle de la lección varias veces más lento, y la comparación no sería justa.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from modelos.entrenamiento.inversion import entrenar_inversion
from modelos.entrenamiento.recetas import comparar_con_leccion, construir
from modelos.entrenamiento.tarjetas import hilos, maquina
from modelos.hilos import fijar_para_el_proceso


def medir_pestana(epocas: int, repeticiones: int) -> tuple[float, float, int, float]:
    """Medianas (reloj, CPU), pasos y exactitud por secuencia al final de `entrenar_inversion`."""
    relojes, cpus = [], []
    for _ in range(repeticiones):
        modelo = construir("inversion-digitos")
        reloj, cpu = time.perf_counter(), time.process_time()
        *_, ultimo = entrenar_inversion(modelo, epocas=epocas, secuencias_por_epoca=10_000, cada=25)
        relojes.append(time.perf_counter() - reloj)
        cpus.append(time.process_time() - cpu)
    return statistics.median(relojes), statistics.median(cpus), ultimo["paso"], ultimo["secuencias"]


def comparar(repeticiones: int = 3) -> tuple[list[str], list[list[str]]]:
    """(cabecera, filas) de la comparación, con el número de hilos de torch que haya fijado el llamador."""
    c = comparar_con_leccion(repeticiones)
    filas = [
        (f"receta inversion-digitos ({c['pasos']} pasos, con validaciones)", c["nuestra"], c["nuestra_cpu"]),
        (f"bucle de la lección, {c['epocas_leccion']} épocas (DataLoader)", c["leccion"], c["leccion_cpu"]),
        ("**razón receta / lección**", c["razon"], c["razon_cpu"]),
    ]
    for epocas in (2, 5):
        reloj, cpu, pasos, secuencias = medir_pestana(epocas, repeticiones)
        filas.append((f"pestaña: {epocas} épocas de 10,000 ({pasos} pasos, {secuencias:.1%})", reloj, cpu))
    cabecera = [f"entrenamiento (medianas de {repeticiones}, {hilos(torch.get_num_threads())})", "reloj", "CPU"]

    def formato(x: float, nombre: str) -> str:
        return f"{x:.2f}" + ("×" if "razón" in nombre else " s")

    return cabecera, [[n, formato(r, n), formato(u, n)] for n, r, u in filas]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeticiones", type=int, default=3)
    parser.add_argument(
        "--hilos",
        type=int,
        default=1,
        help="hilos de torch; 1 como `python -m modelos.entrenamiento`, 0 los de por omisión",
    )
    args = parser.parse_args()
    if args.hilos:
        fijar_para_el_proceso(args.hilos)  # este proceso es solo la medida
    print(f"Máquina: {maquina()}\n")
    cabecera, filas = comparar(args.repeticiones)
    print("| " + " | ".join(cabecera) + " |\n|" + "---|" * len(cabecera))
    for fila in filas:
        print("| " + " | ".join(fila) + " |")


if __name__ == "__main__":
    main()
