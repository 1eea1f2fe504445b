"""Cuántos hilos usa torch: la política en un solo sitio.

Los modelos de esta lección son diminutos. Repartir cada operación entre núcleos ahorra poco, y
cuando otros procesos (u otras peticiones) ocupan la CPU, los hilos de OpenMP que se esperan entre
sí la hacen de 5 a 10 veces más lenta: en dos núcleos ocupados, una predicción del transformer de
juguete tarda ~28 ms con dos hilos y ~0.2 ms con uno.

- `fijar_para_el_proceso()`: al arrancar el servidor o un entrenamiento por consola, antes de
  crear hilos de trabajo (que heredan el ajuste). `ATENCION_HILOS_TORCH` cambia el número.
- `un_hilo()`: un bloque con un solo hilo, en el hilo del sistema que lo ejecuta; torch guarda el
  número por hilo (OpenMP y MKL), así que las otras peticiones siguen como estaban.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import torch

VARIABLE = "ATENCION_HILOS_TORCH"


def hilos_del_proceso() -> int:
    """Los hilos de torch que pide el entorno (`ATENCION_HILOS_TORCH`), 1 si no dice nada."""
    valor = os.environ.get(VARIABLE, "1")
    try:
        n = int(valor)
    except ValueError:
        raise ValueError(f"{VARIABLE} debe ser un entero positivo, no «{valor[:20]}»") from None
    if n < 1:
        raise ValueError(f"{VARIABLE} debe ser un entero positivo, no {n}")
    return n


def fijar_para_el_proceso(n: int | None = None) -> int:
    """Fija los hilos de torch del proceso (`n`, o lo que pida el entorno) y devuelve cuántos quedaron."""
    torch.set_num_threads(hilos_del_proceso() if n is None else n)
    return torch.get_num_threads()


@contextmanager
def un_hilo() -> Iterator[None]:
    """Un solo hilo de torch mientras dura el bloque, solo en el hilo que llama; se restaura al salir."""
    antes = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(antes)
