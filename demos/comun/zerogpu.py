"""Las funciones que merecen una GPU en un Space con ZeroGPU: `@gpu(duracion)`.

En ZeroGPU (un Space con `SPACES_ZERO_GPU=true`) la GPU se presta solo mientras corre una
función decorada con `spaces.GPU`, en un proceso aparte; fuera de ella CUDA es una emulación.
`gpu(duracion)` aplica ese decorador y, dentro de la función, marca el cálculo con
`modelos.hub.gpu_prestada()`, así `dispositivo()` da «cuda» solo ahí (y la CPU en el resto de
la app). Fuera de ZeroGPU, `spaces.GPU` devuelve la función tal cual, y si el paquete `spaces`
falta (la máquina de `scripts/gpu_smoke.py`, sin gradio) también.

`spaces` se importa al decorar, no al importar este módulo: `app.py` lo importa antes que nada
(antes de que torch toque CUDA), como pide ZeroGPU.

Qué se decora lo decide una medición (scripts/gpu_smoke.py, en una H200; docs/gpu_smoke.md):
- la medición en vivo de la pestaña memoria (`demos.memoria.medida.medir`): en la GPU muestra lo que
  la pestaña enseña, la memoria O(L) de los núcleos fusionados de SDPA hasta L = 32 768;
- entrenar no: una época de «Entrénalo tú» tarda 0.46–0.50 s en CUDA y 0.40–0.50 s en un núcleo de CPU (el
  modelo es tan chico que manda el costo de lanzar cada kernel), y con GPU gastaría la cuota diaria del
  visitante (y fallaría al agotarla) sin ganar nada que se note;
- la inferencia chica tampoco: 0.10–0.28 ms en un núcleo de CPU contra 0.31–0.73 ms en CUDA (lote 1).
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from typing import TypeVar

from modelos.hub import en_zerogpu, gpu_prestada

F = TypeVar("F", bound=Callable)


def _spaces():
    try:
        return importlib.import_module("spaces")
    except ImportError:  # sin el paquete (fuera de un Space, p. ej. la comprobación en GPU): nada que hacer
        return None


def _marcada(fn: Callable) -> Callable:
    """`fn` con el cálculo dentro de `gpu_prestada()`; un ValueError sale como gr.Error con su mensaje.

    Los generadores se marcan en cada paso (Gradio puede reanudarlos desde otro hilo). El proceso
    de ZeroGPU devuelve un gr.Error tal cual y cualquier otra excepción como «ZeroGPU worker
    error»: el mensaje en español de una entrada mala se perdería.
    """
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def generador(*args, **kwargs):
            pasos = fn(*args, **kwargs)
            while True:
                try:
                    with gpu_prestada():
                        valor = next(pasos)
                except StopIteration:
                    return
                except ValueError as e:
                    raise _error_visible(e) from None
                yield valor

        return generador

    @functools.wraps(fn)
    def funcion(*args, **kwargs):
        try:
            with gpu_prestada():
                return fn(*args, **kwargs)
        except ValueError as e:
            raise _error_visible(e) from None

    return funcion


def _error_visible(e: ValueError) -> Exception:
    import gradio as gr

    from demos.comun.seguridad import TITULO_ERROR

    return gr.Error(str(e), title=TITULO_ERROR)


def gpu(duracion: int | Callable[..., int]) -> Callable[[F], F]:
    """Decorador: en ZeroGPU, `fn` corre con una GPU prestada hasta `duracion` segundos.

    `duracion` es un número o una función con los mismos argumentos que `fn` (ZeroGPU descuenta
    la duración pedida de la cuota diaria del visitante y da antes la GPU a quien pide menos).
    """

    def decorar(fn: F) -> F:
        spaces = _spaces()
        if spaces is None:
            return fn
        decorada = spaces.GPU(_marcada(fn) if en_zerogpu() else fn, duration=duracion)
        decorada.duracion_gpu = duracion  # para leerla en las pruebas y en el README
        return decorada

    return decorar


def arrancar_zerogpu() -> bool:
    """En ZeroGPU, lo que `Blocks.launch()` haría al arrancar: registrar las funciones decoradas.

    `spaces` engancha ese arranque a `launch()`, y esta app sirve con uvicorn (`app.main`), así que
    hay que pedirlo a mano una vez, con todas las pestañas ya armadas. Fuera de ZeroGPU no hace nada.
    """
    if not en_zerogpu() or _spaces() is None:
        return False
    importlib.import_module("spaces.zero").startup()
    return True
