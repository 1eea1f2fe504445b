"""Los ajustes del proceso que sirve: carpeta propia, arenas de malloc, hilos de torch, precarga.

- `preparar()`: antes de crear un solo componente y un solo hilo de trabajo (lo llama `app` al
  importarse, y las pruebas). Manda lo que el proceso escriba a su carpeta (`disco.preparar`),
  limita las arenas de malloc y fija los hilos de torch (`modelos.hilos`, su único dueño).
- `arrancar_precarga()`: al servir, un hilo que carga cada checkpoint y dice en el log cuál falla.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import threading

from servidor import disco

log = logging.getLogger(__name__)


def preparar() -> None:
    """Carpeta propia, arenas de malloc y hilos de torch: lo primero del proceso (se puede repetir)."""
    disco.preparar()
    limitar_arenas_malloc()
    from modelos.hilos import fijar_para_el_proceso

    fijar_para_el_proceso()


def limitar_arenas_malloc(arenas: int = 2) -> bool:
    """Pide a glibc a lo sumo `arenas` zonas de memoria para todos los hilos.

    Por omisión glibc abre una arena por hilo que reserva a la vez (hasta 8 por núcleo), y
    cada una retiene lo que ya no se usa: con una clase entera dibujando a la vez, la memoria
    del servidor crece aunque nada quede vivo. Con 2, medido con 16 clientes durante 60 s,
    el pico bajó ≈ 120 MB sin servir menos (BENCHMARKS.md). Si MALLOC_ARENA_MAX ya está
    fijada, manda ella. Devuelve si se aplicó (solo Linux con glibc).
    """
    if sys.platform != "linux" or "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        return ctypes.CDLL("libc.so.6").mallopt(-8, arenas) == 1  # -8 = M_ARENA_MAX
    except (OSError, AttributeError):  # otra libc (musl) o sin mallopt
        return False


def precargar_checkpoints() -> list[str]:
    """Carga cada checkpoint del registro y dice en el log cuál falla y por qué.

    Corre en un hilo al arrancar (`arrancar_precarga`): la app no espera, el primer visitante
    de una pestaña con modelo no paga la carga, y nadie usa una app a medias sin que el log lo
    diga. Devuelve los nombres que fallaron.
    """
    from modelos import REGISTRO, cargar

    malos = []
    for nombre in REGISTRO:
        try:
            cargar(nombre)
        except Exception as e:
            malos.append(nombre)
            log.error("Checkpoint %s NO disponible; sus pestañas darán error hasta arreglarlo: %s", nombre, e)
    if not malos:
        log.info("Checkpoints listos: %s", ", ".join(REGISTRO))
    return malos


def arrancar_precarga() -> threading.Thread:
    """`precargar_checkpoints` en un hilo aparte, para no retrasar el arranque."""
    hilo = threading.Thread(target=precargar_checkpoints, name="precarga", daemon=True)
    hilo.start()
    return hilo
