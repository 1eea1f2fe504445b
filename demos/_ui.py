"""El mecanismo común a todas las pestañas: errores en español, figuras, descargas, URL.

Una pestaña (`demos/X.py`) crea sus componentes en `construir()` y devuelve una
`Vista`: su función de cálculo, sus entradas, sus salidas y qué entradas se
pueden fijar desde la URL. Todo lo demás (el evento público, la vista inicial,
los ajustes de la URL, las descargas en PNG y SVG) se arma aquí, igual para
todas; así una pestaña nueva no necesita código propio para nada de eso.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from demos._controles import (  # noqa: F401 (se reexportan: las pestañas los importan de aquí)
    TITULO_ERROR,
    Deslizador,
    Desplegable,
    Numero,
    Opcion,
    TablaEditable,
    rechazar_invalido,
    tolerante,
)
from demos._figuras import a_gradio, exportar_figuras
from demos._seguridad import escapar_html, rechazo

log = logging.getLogger(__name__)

MAX_TEXTO_URL = 500  # un valor de la URL más largo se ignora


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


def _error(e: Exception, donde: str = "?") -> gr.Error:
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


def envolver(fn: Callable, exclusivo_de: str | None = None) -> Callable:
    """La función de cálculo lista para Gradio: ValueError -> gr.Error en español, figuras -> Plotly.

    Conserva la firma de `fn`, que Gradio usa para nombrar los parámetros del API.
    Sirve también para generadores (cada valor producido se convierte). Con
    `exclusivo_de`, a lo sumo una llamada a la vez en todo el proceso; las demás esperan.
    """
    cerrojo = exclusivo(exclusivo_de) if exclusivo_de else contextlib.nullcontext()
    donde = fn.__module__.rsplit(".", 1)[-1]  # la pestaña, para el log
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def generador(*args, **kwargs):
            with cerrojo:
                try:
                    for valor in fn(*args, **kwargs):
                        yield a_gradio(valor)
                except gr.Error:
                    raise
                except Exception as e:
                    raise _error(e, donde) from None

        return generador

    @functools.wraps(fn)
    def envuelta(*args, **kwargs):
        with cerrojo:
            try:
                return a_gradio(fn(*args, **kwargs))
            except gr.Error:
                raise
            except Exception as e:
                raise _error(e, donde) from None

    return envuelta


LATEX = [{"left": "$$", "right": "$$", "display": True}, {"left": "$", "right": "$", "display": False}]


def explicacion(texto: str, **kw) -> gr.Markdown:
    """El texto que abre una pestaña, con fórmulas en $…$ (en línea) y $$…$$ (aparte)."""
    return gr.Markdown(texto, latex_delimiters=LATEX, elem_classes=["explicacion"], **kw)


def grafico(etiqueta: str, **kw) -> gr.Plot:
    """Un componente de salida para una figura de `demos.figuras`: la dibuja el navegador (Plotly).

    La etiqueta no se muestra encima (el título va en la figura); queda para lectores de pantalla.
    """
    kw.setdefault("show_label", False)
    return gr.Plot(label=etiqueta, elem_classes=["figura"], **kw)


def llenar_al_abrir(aparece, calculo: Callable, entradas: list, salidas: list) -> None:
    """Llena una sección secundaria de la pestaña la primera vez que `aparece` cambia.

    `aparece` es una salida de la vista principal (p. ej. su texto): cambia cuando la pestaña
    se abre y se muestra su vista inicial. Así la sección no se calcula al armar la app (eso
    pesaba en el arranque) y, para cada visitante, se calcula una sola vez.
    """
    llena = gr.State(False)

    def llenar(ya, *valores):
        if ya:
            return [gr.skip()] * (1 + len(salidas))
        return [True, *calculo(*valores)]

    aparece.change(llenar, [llena, *entradas], [llena, *salidas], api_visibility="private", show_progress="hidden")


# --- valores que llegan por la URL ---------------------------------------------------------------


def valor_desde_url(componente: Any, texto: str) -> Any:
    """Convierte un valor de la URL al tipo del componente, o da ValueError en español."""
    if len(texto) > MAX_TEXTO_URL:
        raise ValueError(f"es más largo que {MAX_TEXTO_URL} caracteres")
    if isinstance(componente, gr.Checkbox):
        if texto.lower() in {"1", "true", "si", "sí", "on"}:
            return True
        if texto.lower() in {"0", "false", "no", "off"}:
            return False
        raise ValueError("debe ser 1 o 0")
    if isinstance(componente, gr.Slider | gr.Number):
        try:
            x = float(texto.replace(",", "."))
        except ValueError:
            raise ValueError("no es un número") from None
        if not math.isfinite(x):
            raise ValueError("no es un número finito")
        lo = getattr(componente, "minimum", None)
        hi = getattr(componente, "maximum", None)
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            raise ValueError(f"debe estar entre {lo:g} y {hi:g}")
        # Entero solo si el control lo es: un Number sin `precision` trae step=1 y aun así es decimal.
        entero = componente.precision == 0 if isinstance(componente, gr.Number) else componente.step == 1
        return round(x) if entero else x
    if isinstance(componente, gr.Radio | gr.Dropdown):
        opciones = [c[1] if isinstance(c, tuple | list) else c for c in componente.choices]
        for opcion in opciones:  # la URL trae texto; la opción puede ser un número
            if str(opcion) == texto:
                return opcion
        raise ValueError("debe ser una de: " + ", ".join(map(str, opciones)))
    return texto


def aplicar_url(vista: Vista, parametros: dict[str, str], valores: list) -> tuple[list, list[str]]:
    """Los valores de las entradas con los ajustes válidos de la URL, y los avisos de los que no."""
    valores = list(valores)
    avisos = []
    for nombre, texto in parametros.items():
        if nombre not in vista.url:
            continue
        i = next(k for k, c in enumerate(vista.entradas) if c is vista.url[nombre])
        try:
            valores[i] = valor_desde_url(vista.url[nombre], texto)
        except ValueError as e:
            avisos.append(f"«{nombre}={texto[:40]}» se ignoró: {e}.")
    return valores, avisos


# --- vista inicial y descargas --------------------------------------------------------------------

_cache_inicial: dict[str, tuple] = {}
_cerrojo_inicial = threading.Lock()


def vista_inicial(clave: str, vista: Vista, parametros: dict[str, str], valores: list) -> tuple[list, tuple]:
    """(valores de las entradas, salidas) al abrir la pestaña, con los ajustes de la URL aplicados.

    Sin ajustes, la vista es la misma para todos: se calcula una vez por proceso.
    """
    valores_url, avisos = aplicar_url(vista, parametros, valores)
    for aviso in avisos:
        gr.Warning(escapar_html(aviso), title="Ajuste de la URL")  # repite la URL: nada de HTML
    if valores_url != list(valores):
        try:
            return valores_url, a_gradio(vista.fn(*valores_url))
        except ValueError as e:
            gr.Warning(escapar_html(f"Los ajustes de la URL se ignoraron: {e}"), title="Ajuste de la URL")
    with _cerrojo_inicial:
        guardada = _cache_inicial.get(clave)
    if guardada is None:
        try:
            guardada = a_gradio(vista.fn(*valores))
        except Exception as e:
            raise _error(e, clave) from None
        with _cerrojo_inicial:
            _cache_inicial[clave] = guardada
    return list(valores), guardada


def conectar(vista: Vista, api_name: str, prefijo: str) -> None:
    """El evento público de la pestaña y su botón de descargas (dentro del contexto de Blocks).

    También da ids estables en la página a los controles de la URL (`<prefijo>-<nombre>`) y a
    las figuras (`<prefijo>-figura<k>`): las pruebas de navegador y el CSS los encuentran así.
    """
    for nombre, componente in vista.url.items():
        componente.elem_id = componente.elem_id or f"{prefijo}-{nombre}"
    figuras = [s for s in vista.salidas if isinstance(s, gr.Plot)]
    for k, componente in enumerate(figuras, start=1):
        componente.elem_id = componente.elem_id or f"{prefijo}-figura{k}"
        componente.elem_classes = [*(componente.elem_classes or []), "figura"]
    disparadores = vista.disparadores
    if disparadores is None:
        disparadores = []
        for c in vista.entradas:
            if isinstance(c, gr.Textbox):
                disparadores += [c.submit, c.blur]
            elif hasattr(c, "input"):
                disparadores.append(c.input)
    gr.on(
        disparadores,
        envolver(vista.fn),
        inputs=vista.entradas,
        outputs=vista.salidas,
        api_name=api_name,
        trigger_mode="always_last",
        show_progress="minimal",
    )
    if figuras:
        with gr.Accordion("Descargar las figuras (PNG a 220 ppp y SVG, para diapositivas)", open=False):
            boton = gr.Button("Preparar descargas", size="sm")
            archivos = gr.File(label="Figuras", file_count="multiple", interactive=False)

        def descargar(*valores):
            try:
                return exportar_figuras(prefijo, vista.fn(*valores))
            except gr.Error:
                raise
            except Exception as e:
                raise _error(e, prefijo) from None

        # Trabajo pesado (PNG a 220 ppp y SVG con matplotlib): con su cola y sus topes (servidor/cola.py).
        boton.click(
            descargar,
            inputs=vista.entradas,
            outputs=archivos,
            api_visibility="private",
            concurrency_id="descargas",
            concurrency_limit=1,
        )
