"""Lo que una pestaña declara y envuelve: `Vista`, `envolver`, `grafico`, `explicacion`.

Una pestaña crea sus componentes en `construir()` y devuelve una `Vista`: su función
de cálculo, sus entradas, sus salidas y qué entradas se pueden fijar desde la URL. El
evento público, la vista inicial, los ajustes de la URL y las descargas los arma
`demos.servir` para todas por igual; aquí queda lo que las pestañas llaman ellas mismas:
`envolver` (errores en español, figuras hacia Plotly), los componentes de salida y los
eventos secundarios.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from demos.comun.aprender import Aprender
from demos.comun.figuras import es_figura
from demos.comun.figuras.componente import Figura
from demos.comun.figuras.pantalla import valor_de_figura
from demos.comun.seguridad import rechazo

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Barrido:
    """Un control que el navegador barre solo: arrastrarlo no pregunta nada al servidor.

    Para los valores que tienen las demás entradas, el servidor calcula con la misma `fn` de la vista la
    vista de cada parada del control y las manda juntas (`demos/comun/barrido.py`); el navegador cambia
    entre ellas en cada `input` del control. Ninguna fórmula se escribe dos veces: la de cada parada es la
    de Python. Editar otra entrada es un evento que recalcula la vista y todas las paradas.
    """

    control: Any  # Deslizador u Opcion: lo que se arrastra o se elige
    entrada: Any = None  # la entrada de `fn` que fija el control (por omisión, el control mismo)
    a_entrada: Callable[[Any], Any] | None = None  # valor del control -> valor de esa entrada (en Python)
    atajos: tuple = ()  # (botón, valor del control): un clic salta a esa parada, también sin servidor
    # (componente, valor): otras entradas que el control solo muestra con ese valor (w de la máscara solo se ve con
    # la máscara de ventana). Sus paradas se calculan con ese valor: siguen valiendo aunque la otra cambie antes.
    con: tuple = ()


def servido(control, razon: str):
    """Declara que el servidor sirve este deslizador (cada movimiento es un evento en la cola, o lo lee un botón), y
    por qué no se barre, en una línea: «1 024 paradas (más de 256)», «cada valor entrena de nuevo». Devuelve el
    control. tests/test_contrato.py exige que cada deslizador de una pestaña se barra (`Vista(barridos=…)`) o
    diga esto."""
    if not isinstance(razon, str) or not razon.strip() or "\n" in razon:
        raise ValueError(f"La razón por la que «{getattr(control, 'label', control)}» no se barre va en una línea.")
    control.servido = razon.strip()
    return control


@dataclass
class Vista:
    """Lo que devuelve `construir()` de cada pestaña."""

    fn: Callable[..., tuple]  # cálculo puro: valores simples -> valores simples (figuras incluidas)
    entradas: list  # componentes, en el orden de los parámetros de `fn`
    salidas: list  # componentes, en el orden de lo que devuelve `fn`
    url: dict[str, Any] = field(default_factory=dict)  # nombre en la URL -> componente de `entradas`
    disparadores: list | None = None  # eventos que recalculan; por omisión, los de cada entrada
    # Un ajuste válido que cambia la vista y uno que la función rechaza, como texto de la URL
    # ({nombre: valor}). Sirven de ejemplo de enlace y para las pruebas de navegador. Si hay un
    # deslizador o un número en `url`, se deducen solos (el valor medio; el máximo + 10⁶).
    ejemplo: dict[str, str] = field(default_factory=dict)
    invalido: dict[str, str] = field(default_factory=dict)
    # Lo que la pestaña enseña más allá de su figura: la predicción antes de ver y las preguntas
    # (`demos.comun.aprender`); los widgets los arma `demos.servir.aprender` para todas.
    aprender: Aprender | None = None
    # Los controles que el navegador barre con vistas ya calculadas (`Barrido`). Un deslizador que no se barre
    # dice por qué con `servido(control, razón)`.
    barridos: tuple[Barrido, ...] = ()
    # Los componentes ocultos con las paradas de cada barrido: los crea `demos.comun.barrido`, no la pestaña.
    paquetes: list = field(default_factory=list)

    def __post_init__(self):
        if self.aprender is not None and not isinstance(self.aprender, Aprender):
            raise TypeError(f"`aprender` es un Aprender (demos.comun.aprender), no {type(self.aprender).__name__}.")

    @property
    def salidas_de_pagina(self) -> list:
        """Lo que llenan la apertura y la URL: las salidas y, si hay barridos, sus paradas."""
        return [*self.salidas, *self.paquetes]

    def control_numerico(self) -> tuple[str, Any] | None:
        for nombre, c in self.url.items():
            if isinstance(c, gr.Slider | gr.Number):
                return nombre, c
        return None

    def ejemplos(self) -> tuple[dict[str, str], dict[str, str]]:
        """(ajuste válido distinto del inicial, ajuste inválido), declarados o deducidos."""
        if self.ejemplo and self.invalido:
            return self.ejemplo, self.invalido
        control = self.control_numerico()
        if control is None:
            raise ValueError("La vista no declara `ejemplo` e `invalido` y no tiene un control numérico en `url`.")
        nombre, c = control
        lo = c.minimum if c.minimum is not None else 0
        hi = c.maximum if c.maximum is not None else lo + 10
        paso = getattr(c, "step", None) or 1
        medio = lo + round((hi - lo) / 2 / paso) * paso
        valido = medio if medio != c.value else lo
        return self.ejemplo or {nombre: f"{valido:g}"}, self.invalido or {nombre: f"{hi + 10**6:g}"}


def salidas_para_gradio(resultado: Any) -> Any:
    """Cada descripción de figura del resultado -> el valor de su `Figura` (el JSON de Plotly).

    El resto (tablas, textos) pasa igual. Acepta un valor o una tupla.
    """
    if isinstance(resultado, tuple):
        return tuple(valor_de_figura(v) if es_figura(v) else v for v in resultado)
    return valor_de_figura(resultado) if es_figura(resultado) else resultado


def error_en_espanol(e: Exception, donde: str = "?") -> gr.Error:
    """ValueError (entrada rechazada): una línea en el log y su mensaje, escapado. Otro: la traza y un aviso."""
    if isinstance(e, ValueError):
        return rechazo(str(e), donde)
    log.exception("Fallo inesperado en %s", donde)
    mensaje = "Algo falló al calcular esta vista. Prueba con otros valores o recarga la página."
    return gr.Error(mensaje, title="Error", print_exception=False)  # la traza ya quedó en el log, una vez


# Un cerrojo por evento pesado, común a todo el proceso: la suite y cada /demo/<id>/ tienen colas
# separadas, y el `concurrency_id` de Gradio solo limita dentro de una cola.
_EXCLUSIVOS: dict[str, threading.Lock] = {}
_cerrojo_exclusivos = threading.Lock()


def exclusivo(nombre: str) -> threading.Lock:
    """El cerrojo del proceso para el evento pesado `nombre` (entrenar, medir…)."""
    with _cerrojo_exclusivos:
        return _EXCLUSIVOS.setdefault(nombre, threading.Lock())


class _EnCurso:
    """Cuántas vistas se están calculando ahora en el proceso (un contador bajo un cerrojo, sin nada por pedido).
    El taller de paradas (`demos.comun.barrido.Taller`) lo mira entre parada y parada y cede el turno: las vistas,
    que un estudiante espera, van antes que las paradas, que llegan detrás."""

    def __init__(self):
        self._cerrojo = threading.Lock()
        self.n = 0

    @contextlib.contextmanager
    def vista(self):
        with self._cerrojo:
            self.n += 1
        try:
            yield
        finally:
            with self._cerrojo:
                self.n -= 1


EN_CURSO = _EnCurso()


def envolver(fn: Callable, exclusivo_de: str | None = None) -> Callable:
    """La función de cálculo lista para Gradio: ValueError -> gr.Error en español, figuras -> Plotly.

    Conserva la firma de `fn`, que Gradio usa para nombrar los parámetros del API.
    Sirve también para generadores (cada valor producido se convierte). Con
    `exclusivo_de`, a lo sumo una llamada a la vez en todo el proceso; las demás esperan. Una función que no es
    generador ni exclusiva es una vista: cuenta en `EN_CURSO` mientras corre.
    """
    cerrojo = exclusivo(exclusivo_de) if exclusivo_de else contextlib.nullcontext()
    donde = fn.__module__.removeprefix("demos.").removesuffix(".pestana")  # la pestaña (o su parte), para el log
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def generador(*args, **kwargs):
            with cerrojo:
                try:
                    for valor in fn(*args, **kwargs):
                        yield salidas_para_gradio(valor)
                except gr.Error:
                    raise
                except Exception as e:
                    raise error_en_espanol(e, donde) from None

        return generador

    contar = EN_CURSO.vista if not exclusivo_de else contextlib.nullcontext

    @functools.wraps(fn)
    def envuelta(*args, **kwargs):
        with cerrojo, contar():
            try:
                return salidas_para_gradio(fn(*args, **kwargs))
            except gr.Error:
                raise
            except Exception as e:
                raise error_en_espanol(e, donde) from None

    return envuelta


LATEX = [{"left": "$$", "right": "$$", "display": True}, {"left": "$", "right": "$", "display": False}]


def explicacion(texto: str, **kw) -> gr.Markdown:
    """El texto que abre una pestaña, con fórmulas en $…$ (en línea) y $$…$$ (aparte)."""
    return gr.Markdown(texto, latex_delimiters=LATEX, elem_classes=["explicacion"], **kw)


def grafico(etiqueta: str, **kw) -> Figura:
    """Un componente de salida para una figura de `demos.comun.figuras`: la dibuja el navegador (Plotly).

    La etiqueta no se muestra encima (el título va en la figura); queda para lectores de pantalla.
    """
    return Figura(label=etiqueta, elem_classes=["figura"], **kw)


def un_reloj(salidas: list) -> dict:
    """Cómo muestra un evento que recalcula figuras que está corriendo: el reloj de Gradio («processing | 0.3s»)
    solo en la primera figura de `salidas` (donde mira el estudiante), no en cada salida. En cada una eran varios
    relojes reescritos en cada cuadro mientras espera y varias capas que se desvanecen mientras Plotly dibuja
    (scripts/perfil_redibujo.py: ≈ 40 ms menos por movimiento en multicabeza y cbam). Sin figuras, en todas."""
    figuras = [s for s in salidas if isinstance(s, Figura)]
    return {"show_progress": "minimal", "show_progress_on": figuras[:1] or None}


def llenar_al_abrir(aparece, calculo: Callable, entradas: list, salidas: list) -> None:
    """Llena una sección secundaria de la pestaña la primera vez que `aparece` cambia.

    `aparece` es una salida de la vista principal (p. ej. su texto): cambia cuando la pestaña
    se abre y se muestra su vista inicial. Así la sección no se calcula al armar la app (eso
    pesaba en el arranque) y, para cada visitante, se calcula una sola vez.

    El cambio de `aparece` no va a la cola: en el navegador (`js=`) pone en 1 una señal oculta,
    que solo cambia la primera vez; el cálculo cuelga de la señal. Así mover un control de la
    vista principal sigue mandando un solo evento (tests/test_velocidad.py).
    """
    senal = gr.Number(0, visible="hidden", interactive=False)  # 0 hasta que la vista principal aparece
    aparece.change(None, None, senal, js="() => 1", api_visibility="private", show_progress="hidden")
    senal.change(calculo, entradas, salidas, api_visibility="private", show_progress="hidden")
