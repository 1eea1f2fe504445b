"""Los ajustes del proceso que sirve: carpeta propia, arenas de malloc, matplotlib sin pantalla, hilos
de torch, precarga.

- `preparar()`: antes de crear un solo componente y un solo hilo de trabajo (lo llama `app` al
  importarse, y las pruebas). Manda lo que el proceso escriba a su carpeta (`disco.preparar`),
  limita las arenas de malloc y devuelve al sistema los bloques grandes, fija el backend Agg de
  matplotlib y los hilos de torch (`modelos.hilos`, su único dueño).
- `arrancar_precarga()`: al servir, un hilo que importa lo que las primeras peticiones
  importarían (`MODULOS_PESADOS`), carga cada checkpoint y dice en el log cuál falla.
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
    devolver_bloques_grandes()
    matplotlib_sin_pantalla()
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


# Lo que glibc pide aparte con mmap (y devuelve al liberarlo), y lo libre que tolera al final del montón.
UMBRAL_MMAP = 1024 * 1024
UMBRAL_RECORTE = 4 * 1024 * 1024


def devolver_bloques_grandes() -> bool:
    """Los bloques de más de `UMBRAL_MMAP` van a su propio mmap y vuelven al sistema al liberarse.

    Por omisión glibc sube el umbral (hasta 32 MB) cada vez que se libera un bloque grande, y
    desde entonces los arma en las arenas, que no los devuelven: cada respuesta deja su JSON, sus
    matrices y sus tensores de decenas de kB a MB en el montón. Con el umbral fijo, medido en la
    clase de 30 (BENCHMARKS.md): RSS pico de ≈ 1 GB a ≈ 600 MB. Fijo en 64 kB, cada tensor de más
    de 64 kB era un mmap nuevo que el núcleo llena de a una página de 4 kB: ≈ 2 500 fallos de página
    por evento de escalado (1 000 × d números), 5 ms de los 11 de su cálculo. En 1 MB: ≈ 700 fallos,
    la CPU por evento de las pestañas 0.82× y el RSS pico +25–35 MB (BENCHMARKS.md, sesión 19). Si el
    entorno ya lo fija (MALLOC_MMAP_THRESHOLD_ o GLIBC_TUNABLES), manda él. Devuelve si se aplicó
    (Linux con glibc).
    """
    if (
        sys.platform != "linux"
        or "MALLOC_MMAP_THRESHOLD_" in os.environ
        or "mmap_threshold" in os.environ.get("GLIBC_TUNABLES", "")
    ):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        # -3 = M_MMAP_THRESHOLD (fijarlo apaga el ajuste dinámico), -1 = M_TRIM_THRESHOLD
        return libc.mallopt(-3, UMBRAL_MMAP) == 1 and libc.mallopt(-1, UMBRAL_RECORTE) == 1
    except (OSError, AttributeError):
        return False


def matplotlib_sin_pantalla() -> None:
    """El backend de matplotlib es Agg desde el principio (MPLBACKEND), salvo que el entorno diga otro.

    Gradio envuelve cada función de cada evento en `MatplotlibBackendMananger`, que llama a
    `matplotlib.get_backend()`: con el backend «auto» de matplotlib, eso importa pyplot y elige
    uno. Medido con py-spy en la clase (BENCHMARKS.md): ≈ 24 % de las muestras de las primeras
    peticiones. Con Agg fijado, `get_backend()` lo lee sin importar pyplot, y las descargas
    (demos/comun/figuras/papel.py, sin pyplot) dibujan igual.
    """
    os.environ.setdefault("MPLBACKEND", "agg")
    mpl = sys.modules.get("matplotlib")
    if mpl is not None and mpl.rcParams._get_backend_or_none() is None:  # importado antes, aún en «auto»
        mpl.rcParams["backend"] = os.environ["MPLBACKEND"]


# Lo que importaría la primera petición que lo use: matplotlib (Gradio, alrededor de cada función) y lo
# que `torch._check` importa la primera vez (máscara causal). Medido con py-spy en la clase (BENCHMARKS.md).
# sklearn ya no se importa: `modelos.datos` lee sus archivos de datos sin él (≈ 85 MB menos).
MODULOS_PESADOS = (
    "matplotlib",
    "torch.fx.experimental.symbolic_shapes",
)


def precargar_modulos() -> None:
    """Importa `MODULOS_PESADOS` y lee una vez los dígitos y las fotos de muestra (las cachés de `modelos.datos`
    y de `demos.comun.fotos`)."""
    import importlib

    for nombre in MODULOS_PESADOS:
        importlib.import_module(nombre)
    from demos.comun.fotos import IMAGENES_MUESTRA, imagen_muestra
    from modelos.datos import digitos_sklearn

    digitos_sklearn()
    for nombre in IMAGENES_MUESTRA:
        imagen_muestra(nombre)


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


def precargar() -> list[str]:
    """Los módulos pesados y luego los checkpoints; devuelve los checkpoints que fallaron."""
    try:
        precargar_modulos()
    except Exception as e:  # sin ellos la app sirve igual: los importa la primera petición que los pida
        log.warning("No se pudieron precargar los módulos pesados: %s", e)
    return precargar_checkpoints()


def arrancar_precarga() -> threading.Thread:
    """`precargar` en un hilo aparte, para no retrasar el arranque."""
    hilo = threading.Thread(target=precargar, name="precarga", daemon=True)
    hilo.start()
    return hilo
