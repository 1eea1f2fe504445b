"""Respuestas recordadas: la misma entrada no se dibuja dos veces.

En clase, toda la sala pide la misma vista a la vez («poned T = 0.25»), y dibujar con
matplotlib es lo que cuesta (≈ 100 ms por figura en 2 núcleos; el cálculo, unos 30 ms).
`Recuerdos` guarda, por función y argumentos, lo que la función ya convirtió para
Gradio (rutas de PNG, tablas, textos: poca memoria) durante unos minutos:

- una entrada repetida se sirve sin volver a calcular;
- si llegan varias peticiones iguales a la vez, calcula la primera y las demás la
  esperan (una sola figura, no treinta);
- un error no se guarda: cada petición repetida vuelve a intentarlo.

Solo para funciones puras (mismos argumentos → mismo resultado). Los argumentos que no se
sabe comparar (un modelo en `gr.State`, un objeto cualquiera) no se recuerdan: se calcula.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import numpy as np

from demos._figuras import VIDA_FIGURA_S, FiguraHecha, png_pantalla


def _es_archivo(texto: str) -> bool:
    return 0 < len(texto) < 4096 and os.path.isabs(texto) and os.path.isfile(texto)


class NoRecordable(Exception):
    """Un argumento sin clave estable: la llamada se calcula sin recordar."""


def clave(valor: Any) -> Any:
    """Una clave hashable y exacta para `valor`, o `NoRecordable`.

    Los números se distinguen por tipo y valor exacto (1 y 1.0 y True no se mezclan: la
    función puede tratarlos distinto); los arreglos, por forma, tipo y un resumen de sus bytes.
    """
    if isinstance(valor, str) and _es_archivo(valor):  # una subida: cuenta su contenido, no su nombre
        st = os.stat(valor)
        return ("archivo", valor, st.st_size, st.st_mtime_ns)
    if valor is None or isinstance(valor, str | bytes):
        return valor
    if isinstance(valor, bool | int):
        return (type(valor).__name__, valor)
    if isinstance(valor, float):
        return ("float", "nan" if math.isnan(valor) else valor.hex())
    if isinstance(valor, list | tuple):
        return (type(valor).__name__, *(clave(v) for v in valor))
    if isinstance(valor, dict):
        try:
            return ("dict", *sorted((clave(k), clave(v)) for k, v in valor.items()))
        except TypeError:  # claves de tipos que no se ordenan entre sí
            raise NoRecordable from None
    if isinstance(valor, np.ndarray):
        if valor.dtype == object:
            return ("ndarray-obj", valor.shape, clave(valor.tolist()))
        resumen = hashlib.blake2b(np.ascontiguousarray(valor).tobytes(), digest_size=16).hexdigest()
        return ("ndarray", valor.shape, str(valor.dtype), resumen)
    if isinstance(valor, np.generic):
        return clave(valor.item())
    if type(valor).__name__ == "DataFrame" and hasattr(valor, "to_dict"):  # pandas, sin importarlo
        return ("DataFrame", clave([str(c) for c in valor.columns]), clave(valor.to_numpy().tolist()))
    raise NoRecordable


class Recuerdos:
    """Un LRU con caducidad y una sola ejecución por clave a la vez; seguro entre hilos."""

    def __init__(self, capacidad: int = 512, vida_s: float = 300.0):
        self.capacidad = capacidad
        self.vida_s = vida_s
        self._datos: OrderedDict[Any, tuple[float, Future]] = OrderedDict()
        self._cerrojo = threading.Lock()
        self.aciertos = 0
        self.fallos = 0
        self.activo = True

    def __len__(self) -> int:
        return len(self._datos)

    def obtener(self, k: Any, calcular: Callable[[], Any]) -> Any:
        """El valor recordado para `k`, o el de `calcular()` (que queda recordado si no falla)."""
        ahora = time.monotonic()
        with self._cerrojo:
            entrada = self._datos.get(k)
            if entrada is not None and ahora - entrada[0] < self.vida_s:
                self._datos.move_to_end(k)
                self.aciertos += 1
                futuro, mio = entrada[1], False
            else:
                futuro, mio = Future(), True
                self._datos[k] = (ahora, futuro)
                self._datos.move_to_end(k)
                while len(self._datos) > self.capacidad:
                    self._datos.popitem(last=False)
                self.fallos += 1
        if not mio:
            return futuro.result()  # ya calculado, o calculándose en otro hilo: se espera
        try:
            valor = calcular()
        except BaseException as e:
            with self._cerrojo:
                if self._datos.get(k, (None, None))[1] is futuro:
                    del self._datos[k]
            futuro.set_exception(e)  # quienes esperaban reciben el mismo error
            raise
        futuro.set_result(valor)
        return valor

    def vaciar(self) -> None:
        with self._cerrojo:
            self._datos.clear()


# Uno para todo el proceso: la suite y cada /demo/<id>/ comparten lo ya dibujado. Una respuesta
# vive la mitad que sus PNG en disco (`_figuras` los borra a los VIDA_FIGURA_S): quien la reciba
# al final de su vida aún tiene minutos para que Gradio copie los archivos.
RECUERDOS = Recuerdos(capacidad=512, vida_s=VIDA_FIGURA_S / 2)
# ATENCION_RECORDAR=0 lo apaga (para medir el coste de dibujar, o para depurar).
RECUERDOS.activo = os.environ.get("ATENCION_RECORDAR", "1").strip().lower() not in {"0", "no", "false"}


def recordar(nombre: str, calcular: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """`calcular(*args, **kwargs)`, recordado bajo (`nombre`, argumentos) si se puede."""
    if not RECUERDOS.activo:
        return calcular(*args, **kwargs)
    try:
        k = (nombre, clave(args), clave(kwargs))
    except (NoRecordable, RecursionError):  # p. ej. listas anidadas miles de veces por el API
        return calcular(*args, **kwargs)
    return RECUERDOS.obtener(k, lambda: calcular(*args, **kwargs))


def figura_recordada(dibujar: Callable[..., Any]) -> Callable[..., Any]:
    """Decora una función pura que dibuja una figura: con los mismos argumentos, no se vuelve a dibujar.

    Para las figuras de una vista que no dependen del control que se mueve (los cuatro paneles de
    *temperatura* no dependen de T): la respuesta entera cambia, esa figura no. Devuelve una
    `FiguraHecha` con el PNG de pantalla; la figura de matplotlib se construye solo si se pide.
    """
    recuerdos = Recuerdos(capacidad=64, vida_s=float("inf"))  # guarda PNG en memoria: ≤ 64 × ~100 kB

    def png(args, kwargs) -> bytes:
        destino = io.BytesIO()
        png_pantalla(dibujar(*args, **kwargs), destino)
        return destino.getvalue()

    @functools.wraps(dibujar)
    def envuelta(*args, **kwargs):
        if not RECUERDOS.activo:
            return dibujar(*args, **kwargs)
        try:
            k = (clave(args), clave(kwargs))
        except (NoRecordable, RecursionError):
            return dibujar(*args, **kwargs)
        return FiguraHecha(recuerdos.obtener(k, lambda: png(args, kwargs)), lambda: dibujar(*args, **kwargs))

    envuelta.recuerdos = recuerdos
    return envuelta
