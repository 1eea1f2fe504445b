"""Lo que comparten las partes del dibujante de pantalla: el lienzo que se va llenando y las piezas de Plotly.

Se arma con diccionarios simples (sin `plotly.graph_objects`): el navegador los dibuja con el plotly.js que
trae Gradio. Los colores de texto sobre el papel son los de `TINTAS`: en modo oscuro el navegador los cambia
por su par (`maqueta.mjs`); los que van sobre una caja clara (un diagrama, una casilla tapada) no están ahí.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Hashable, Iterator

import numpy as np

from demos.comun.figuras import C0
from demos.comun.figuras.maqueta import marcas

LETRA, LETRA_TITULO = 15, 17  # se leen proyectadas
FUENTE = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
TAPADA = "#e3e3e3"
ESCALAS = {
    "azul": [[0, "#ffffff"], [1, C0]],
    "divergente": [[0, "#d62728"], [0.5, "#ffffff"], [1, C0]],
    "grises": [[0, "#ffffff"], [1, "#000000"]],
}
MAX_CASILLAS_PANTALLA = 5000  # un mapa sin nombres con más casillas va promediado en bloques (≈ 30 kB)
MAX_PIXELES_MAPA = 64 * 64  # una imagen en gris hasta este tamaño va como mapa (valor al pasar el ratón)
MAX_CASILLAS_NOMBRADAS = 16 * 16  # más allá, un mapa con nombres nombra cada fila y columna una vez, no cada casilla
# La barra de Plotly (al pasar el ratón), en español con su propio mecanismo: `locale` y un diccionario en
# `locales` (el plotly.js de Gradio solo trae el inglés; sin `format`, los números siguen con punto decimal).
# Solo lo que sirve en un mapa o una curva: ampliar, desplazar y volver; la descarga va por «Descargar las
# figuras», con el estilo de la lección.
BOTONES_FUERA = ["toImage", "select2d", "lasso2d", "toggleSpikelines", "hoverClosestCartesian", "hoverCompareCartesian"]
BARRA_ES = {
    "Zoom": "Ampliar una zona (arrastra)",
    "Pan": "Desplazar (arrastra)",
    "Zoom in": "Acercar",
    "Zoom out": "Alejar",
    "Autoscale": "Ajustar a los datos",
    "Reset axes": "Volver a la vista de inicio",
    "Reset": "Volver al inicio",
    "Double-click to zoom back out": "Doble clic para volver a la vista entera",
    "Double-click on legend to isolate one trace": "Doble clic en la leyenda para dejar solo esa serie",
}
CONFIG = {
    "displayModeBar": "hover",
    "displaylogo": False,
    "modeBarButtonsToRemove": BOTONES_FUERA,
    "locale": "es",
    "locales": {"es": {"dictionary": BARRA_ES}},
    "responsive": True,
    "scrollZoom": False,
}
OCULTO = {"visible": False, "showgrid": False, "zeroline": False}  # el eje de una imagen, un diagrama o un aviso
# La plantilla de Plotly de cada figura: en todos sus ejes y en la barra de color de un mapa, las marcas no se
# esconden si asoman fuera de la figura (los márgenes ya les hacen lugar). El valor de Plotly para un eje numérico y
# una barra, «hide past div», mide cada marca contra el <div> una vez por cada marca dibujada (cuadrático): en
# multicabeza eran ≈ 15 ms de cada movimiento (scripts/perfil_redibujo.py). En la plantilla y no en cada eje: la
# respuesta no crece con los paneles.
SIN_RECORTE = {"ticklabeloverflow": "allow"}
PLANTILLA = {"layout": {"xaxis": SIN_RECORTE, "yaxis": SIN_RECORTE}, "data": {"heatmap": [{"colorbar": SIN_RECORTE}]}}

# Los colores de texto sobre el papel y de la rejilla, con su par para el modo oscuro: el navegador cambia cada
# uno por el suyo cuando la página está oscura. Una caja clara (un diagrama, una casilla tapada) lleva su texto
# en `TEXTO_EN_CAJA`, que no está aquí y no cambia.
TEXTO, TEXTO_SUAVE, TEXTO_GRIS, NOTA, REJILLA = "#222222", "#595959", "#666666", "#333333", "#eeeeee"
TINTAS = {TEXTO: "#e6e6e6", TEXTO_SUAVE: "#bdbdbd", TEXTO_GRIS: "#b3b3b3", NOTA: "#d9d9d9", REJILLA: "#3a3a3a"}
TEXTO_EN_CAJA = "#1a1a1a"
TRANSPARENTE = "rgba(0,0,0,0)"  # un fondo de área que deja ver el papel (también el oscuro: maqueta.mjs lo deja)
LETRA_MINIMA = 8  # un número de casilla más chico no se lee: en un teléfono el navegador lo omite (queda al tocar)
LETRA_MENSAJE = 16  # la del mensaje de un Aviso (pantalla_graficas._mensaje)
ANCHO_LETRA = 0.7  # el ancho de una cifra (o del signo menos, más ancho), en veces el tamaño de la letra
# Lo que mide una letra de un título, en veces su tamaño (en Chromium, 0.52 en promedio; 0.55 dejaba «…softmax según
# d (se» 9 px afuera), y el alto de un renglón de título en px. El título de la figura de teléfono lo parte solo el
# navegador, con el ancho de verdad (maqueta.mjs, tituloDelTelefono: van en los `ajustes` de demos/comun/navegador);
# el servidor, los de los paneles y sus ejes, que deciden la estructura de la figura apilada (pantalla_angosta).
ANCHO_DE_LETRA, RENGLON = 0.6, 22
MARGEN_IZQUIERDO = 45  # el de un teléfono: lo que las marcas del eje y ocupan más allá, sale del área de dibujo
# En un teléfono, lo que una barra de color a la derecha se lleva del ancho del área: en Chromium, Plotly corre el
# margen derecho de 30 a 98 px (su grosor, sus marcas y su título). Con 85, las fotos de CBAM dejaban 17 px en blanco.
BARRA_A_LA_DERECHA = 68


# Lo calculado para una figura, por contenido: la de teléfono (pantalla_angosta.apilar) trae los mismos arreglos
# que la de siempre, y con esto sus listas se hacen una vez y son el mismo objeto en las dos (la diferencia entre
# ellas las salta por identidad). Vive lo que dura `recordando()`: cada petición, su propio diccionario.
_RECORDADO: contextvars.ContextVar[dict | None] = contextvars.ContextVar("recordado", default=None)


@contextlib.contextmanager
def recordando() -> Iterator[None]:
    """Mientras dura, `recordado` devuelve lo ya calculado con la misma clave (en este hilo, para esta figura)."""
    token = _RECORDADO.set({})
    try:
        yield
    finally:
        _RECORDADO.reset(token)


def recordado(clave: Hashable, calcular: Callable[[], object]):
    """`calcular()`, o lo que dio antes con la misma `clave` dentro de `recordando()` (fuera de él, siempre calcula).
    Lo devuelto se comparte: quien lo recibe no lo cambia."""
    memoria = _RECORDADO.get()
    if memoria is None:
        return calcular()
    if clave not in memoria:
        memoria[clave] = calcular()
    return memoria[clave]


def huella(a: np.ndarray) -> tuple:
    """Una clave de `recordado` por el contenido de un arreglo (no por su identidad: `np.where` hace uno nuevo)."""
    return a.dtype.str, a.shape, a.tobytes()


def a_lista(a) -> list:
    """Arreglo -> lista JSON con 6 cifras significativas (los enteros quedan exactos); NaN -> null."""
    a = np.asarray(a, dtype=float)
    return recordado(("a_lista", *huella(a)), lambda: _a_lista(a))


def _a_lista(a: np.ndarray) -> list:
    finito = np.isfinite(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        escala = 10.0 ** (5 - np.floor(np.log10(np.where(finito & (a != 0), np.abs(a), 1.0))))
        redondo = np.where(finito, np.round(a * escala) / escala, 0.0)
    salida = redondo.astype(object)
    salida[~finito] = None
    return salida.tolist()


def texto_plano(texto: str) -> str:
    """Un rótulo que puede venir de un visitante (sus palabras) -> texto que Plotly no interpreta.

    Plotly lee `<a href>`, `<b>`, `<br>`… en marcas, pistas y textos: una palabra como
    `<a href="https://…">` sería un enlace ajeno en la figura. Las entidades sí las decodifica.
    """
    return str(texto).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def categorias_unicas(nombres: tuple[str, ...]) -> list[str]:
    """Nombres -> categorías de un eje de Plotly: dos palabras iguales serían una sola columna, así que la
    repetida lleva espacios de ancho cero (no se ven en la pista)."""
    vistos: dict[str, int] = {}
    categorias = []
    for nombre in map(texto_plano, nombres):
        vistos[nombre] = vistos.get(nombre, -1) + 1
        categorias.append(nombre + "\u200b" * vistos[nombre])
    return categorias


def plantilla(pista: str, **campos: str) -> str:
    """«{y} mira a {x}: {v}» -> plantilla de Plotly con los campos dados."""
    for nombre, valor in campos.items():
        pista = pista.replace("{" + nombre + "}", valor)
    return pista + "<extra></extra>"


class Lienzo:
    """Lo que se va juntando: trazos, ejes, anotaciones y formas de una figura."""

    def __init__(self, ancho_px: float | None = None, alto_px: float | None = None):
        self.ancho_px = ancho_px  # el ancho del área de dibujo si es la de un teléfono (None: la de siempre)
        self.alto_px = alto_px  # y su alto (el de todos los paneles)
        self.barra_a_la_derecha = False  # algún panel lleva barra de color: el margen derecho crece para todos
        self.barra_abajo = False  # la barra de color va acostada al pie de la figura (un panel a la vez, teléfono)
        # En un teléfono, la barra de un panel apilado no pasa de su alto: más larga se metía en el hueco de abajo y
        # su «0» pisaba el título del panel siguiente (variantes, #37).
        self.minimo_barra = 0.0 if ancho_px else 0.3
        # Teléfono: lo que el panel que más ocupa a la izquierda (nombres y título del eje y) se lleva del ancho.
        # El automargin de Plotly corre el margen izquierdo de toda la figura: todos los paneles apilados lo pagan.
        self.ocupado_izquierdo = 0.0
        self.datos: list[dict] = []
        self.ejes: dict[str, dict] = {}
        self.notas: list[dict] = []
        self.formas: list[dict] = []
        self.leyenda = False
        # Teléfono: las casillas de cada trazo con números (índice en `datos` -> [su ancho en px, medido para
        # `pantalla_angosta.ANCHO_FIGURA`; cuántas columnas reparten ese ancho]). El servidor manda la letra de
        # siempre, y el navegador la lleva a lo que cabe con el ancho de verdad, o no escribe los números
        # (maqueta.mjs, numerosDelTelefono: en un Android de 360 px se encimaban en atención cruzada).
        self.casillas: dict[int, list] = {}
        # Teléfono: los ejes x de categorías que el navegador ralea con el ancho de verdad (maqueta.mjs,
        # marcasQueCaben), con lo que se lleva de su ancho el eje y, en px (pantalla_graficas: barras de pie).
        self.marcas: dict[str, float] = {}

    def casilla(self, dom_x, dom_y, columnas: int, filas: int, cuadrada: bool, ocupado: float = 0) -> float | None:
        """Cuántos píxeles mide de ancho una casilla en un teléfono (None: no es un teléfono). Con casillas
        cuadradas manda el lado más corto; `ocupado`: los píxeles del ancho que se llevan las marcas del eje y,
        su título y la barra de color, más allá del margen."""
        if self.ancho_px is None:
            return None
        ancho = (self.ancho_px * (dom_x[1] - dom_x[0]) - ocupado) / columnas
        return min(ancho, self.alto_px * (dom_y[1] - dom_y[0]) / filas) if cuadrada and self.alto_px else ancho


def ejes_de(k: int) -> tuple[str, str, str, str]:
    """Panel k (desde 1) -> ("x2", "y2", "xaxis2", "yaxis2")."""
    sufijo = "" if k == 1 else str(k)
    return f"x{sufijo}", f"y{sufijo}", f"xaxis{sufijo}", f"yaxis{sufijo}"


def ticks(etiquetas: tuple[str, ...], maximo: int = 40) -> dict:
    """Las marcas de un eje, una de cada `maqueta.paso` (las mismas que en la descarga)."""
    valores, textos = marcas(etiquetas, maximo)
    return {"tickmode": "array", "tickvals": valores, "ticktext": [texto_plano(t) for t in textos]}


def barra_color(titulo: str, dom_x, dom_y, abajo: bool = False, minimo: float = 0.3) -> dict:
    """La barra de color de un panel: a su derecha, de su alto (al menos `minimo` del área), o acostada al pie."""
    if abajo:  # acostada al pie de la figura, bajo el eje x: no le quita ancho a las casillas
        return {
            # El título, bajo las marcas: al lado («right») se llevaba el largo de la barra (con «Valor (de −1 a 1)»
            # quedaban 10 px), y arriba («top») Plotly 3.7 lo pinta encima de la barra si va al pie del contenedor.
            "title": {"text": titulo, "side": "bottom"},
            "orientation": "h",
            # Acostada mide lo que el área (≈ 150–250 px en un teléfono): con más de 4 marcas, Plotly las ponía de pie.
            "nticks": 4,
            "x": (dom_x[0] + dom_x[1]) / 2,
            "xanchor": "center",
            "y": 0,
            "yref": "container",
            "yanchor": "bottom",
            "ypad": 12,
            "len": 0.8 * (dom_x[1] - dom_x[0]),
            "thickness": 12,
            "outlinewidth": 0,
        }
    return {
        "title": {"text": titulo, "side": "right"},
        "x": min(dom_x[1] + 0.01, 1.02),
        "xanchor": "left",
        "y": (dom_y[0] + dom_y[1]) / 2,
        "len": max(minimo, dom_y[1] - dom_y[0]),
        "thickness": 14,
        "outlinewidth": 0,
    }


def linea_ref(nombre: str, x, y, xa: str, ya: str, color: str, punteada: bool) -> dict:
    return {
        "type": "scatter",
        "x": list(x),
        "y": list(y),
        "xaxis": xa,
        "yaxis": ya,
        "mode": "lines",
        "line": {"color": color, "width": 1.5, "dash": "dot" if punteada else "solid"},
        "name": nombre,
        "hovertemplate": nombre + "<extra></extra>",
    }


def segmento(xa, ya, x0, y0, x1, y1, color, ancho) -> dict:
    return {
        "type": "line",
        "xref": xa,
        "yref": ya,
        "x0": x0,
        "y0": y0,
        "x1": x1,
        "y1": y1,
        "line": {"color": color, "width": ancho},
    }
