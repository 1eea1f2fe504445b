"""Las figuras de las pestañas, descritas una vez y dibujadas dos veces: un paquete.

Una función de cálculo no dibuja: devuelve *qué* muestra la figura (la matriz, las
etiquetas, la máscara, el título) con los tipos de aquí. Dos dibujantes leen la
misma descripción, cada uno con una tabla `DIBUJOS = {Mapa: …, Barras: …}`:

- `demos.comun.figuras.pantalla`: Plotly en el navegador (`gr.Plot`), con el valor exacto
  de cada casilla o barra al pasar el ratón. El servidor solo arma un JSON pequeño; en el
  navegador, `maqueta.mjs` la adapta a la página (modo oscuro, teléfono, proyector).
- `demos.comun.figuras.papel`: matplotlib (Agg) para «Descargar las figuras»: PNG a
  220 ppp y SVG, con el estilo claro de la lección, para diapositivas.

Las reglas de maquetación que comparten (marcas, etiquetas giradas, barras de color) están
en `maqueta`. Este módulo se importa sin gradio, plotly ni matplotlib: los dibujantes se
importan aparte.

Los números que se leen en la figura (los de las casillas y sobre las barras) se
escriben aquí, con `numero()`, así las dos salidas muestran exactamente el mismo texto.

El vocabulario: `Mapa` (mapa de calor), `Barras`, `Curvas`, `Histograma`, `Imagen`
(píxeles con una capa encima), `Diagrama` (cajas y flechas), `Aviso` (una figura
vacía con un mensaje) y `Paneles` (varias de las anteriores en una rejilla). Un tipo
nuevo es una dataclass aquí (en `Figura`) y una función en cada `DIBUJOS`; si falta
una, `tests/test_figuras.py` dice cuál.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modelos.formato import miles as miles  # la dueña del formato; se reexportan con las figuras
from modelos.formato import numero

C0, C1, C2, C3 = "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"  # los colores de la lección
CLARO = "#aec7e8"  # C0 claro: lo que no se resalta
GRIS = "#7f7f7f"
MAX_NUMEROS = 12  # hasta este lado, un mapa lleva el número en cada casilla
MAX_CASILLAS = 512 * 512  # ningún mapa ni imagen pasa de aquí (la función de cálculo lo acota antes)

COLORES = ("azul", "divergente", "grises")  # blanco→C0; rojo←blanco→azul; blanco→negro (un dígito)


def _arreglo(valor, nombre: str, dimensiones: tuple[int, ...]) -> np.ndarray:
    a = np.asarray(valor, dtype=float)
    if a.ndim not in dimensiones:
        raise ValueError(f"{nombre}: se esperaba un arreglo de {' o '.join(map(str, dimensiones))} dimensiones")
    if a.size > MAX_CASILLAS:
        raise ValueError(f"{nombre}: {a.size} valores son demasiados para una figura")
    return a


@dataclass(frozen=True)
class Mapa:
    """Mapa de calor (filas × columnas), con el número en cada casilla si es pequeño.

    tapada: booleana, True en las casillas enmascaradas: quedan grises, sin número
    (o con `texto_tapada`, p. ej. «−∞»), y la leyenda dice `leyenda_tapada`.
    pista: lo que dice cada casilla al pasar el ratón; {x}, {y} son las etiquetas de
    su columna y su fila, {v} su valor (p. ej. «{y} mira a {x}: {v}»).
    marcas: casillas (fila, columna) que se recuadran en naranja.
    nombres_x / nombres_y: cómo se llama cada columna / fila en la pista, si la etiqueta del
    eje es demasiado escueta (p. ej. «8\\n0» en el eje, «la posición 0 (dígito 8)» en la pista).
    umbral: con números, solo las casillas con valor ≥ umbral llevan el suyo (las demás, al pasar el ratón).
    """

    matriz: np.ndarray
    x: tuple[str, ...] | None = None  # etiquetas de las columnas; None: 0, 1, 2…
    y: tuple[str, ...] | None = None  # etiquetas de las filas
    titulo: str = ""
    eje_x: str = ""
    eje_y: str = ""
    tapada: np.ndarray | None = None
    texto_tapada: str = ""
    leyenda_tapada: str = "casilla tapada: no se mira"
    numeros: bool | None = None  # None: si el lado mayor es ≤ MAX_NUMEROS
    formato: str = ".2f"
    vmin: float | None = 0.0  # None: el mínimo de la matriz
    vmax: float | None = 1.0
    colores: str = "azul"
    barra: str | None = "Peso"  # título de la barra de color; None, sin barra
    pista: str = "fila {y}, columna {x}: {v}"
    marcas: tuple[tuple[int, int], ...] = ()
    cuadrado: bool = False  # casillas cuadradas
    nombres_x: tuple[str, ...] | None = None
    nombres_y: tuple[str, ...] | None = None
    umbral: float | None = None
    ejes: bool = True  # False: sin ejes ni marcas, como una imagen (un mapa con un valor por píxel de una foto)

    def __post_init__(self):
        m = _arreglo(self.matriz, "Mapa", (2,))
        object.__setattr__(self, "matriz", m)
        tapada = np.zeros(m.shape, bool) if self.tapada is None else np.asarray(self.tapada, bool)
        if tapada.shape != m.shape:
            raise ValueError("Mapa: la máscara debe tener la forma de la matriz")
        object.__setattr__(self, "tapada", tapada | ~np.isfinite(m))
        for nombre, n in (("x", m.shape[1]), ("y", m.shape[0]), ("nombres_x", m.shape[1]), ("nombres_y", m.shape[0])):
            etiquetas = getattr(self, nombre)
            if etiquetas is not None:
                if len(etiquetas) != n:
                    raise ValueError(f"Mapa: {len(etiquetas)} etiquetas en {nombre} para {n} casillas")
                object.__setattr__(self, nombre, tuple(map(str, etiquetas)))
        if self.colores not in COLORES:
            raise ValueError(f"Mapa: colores debe ser uno de {COLORES}")

    @property
    def con_numeros(self) -> bool:
        return max(self.matriz.shape) <= MAX_NUMEROS if self.numeros is None else self.numeros

    def etiquetas(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        filas, columnas = self.matriz.shape
        return self.x or tuple(map(str, range(columnas))), self.y or tuple(map(str, range(filas)))

    def rango(self) -> tuple[float, float]:
        lo, hi = self.vmin, self.vmax
        if lo is None or hi is None:  # las casillas visibles, copiadas solo si hay tapadas (512 × 512: 2 MB)
            visibles = self.matriz[~self.tapada] if self.tapada.any() else self.matriz
            lo = lo if lo is not None else (float(visibles.min()) if visibles.size else 0.0)
            hi = hi if hi is not None else (float(visibles.max()) if visibles.size else 1.0)
        return lo, hi if hi > lo else lo + 1.0

    def textos(self) -> list[list[str]]:
        """El texto de cada casilla: su número, `texto_tapada` si está tapada, o nada."""
        filas, columnas = self.matriz.shape
        if not self.con_numeros:
            return [[""] * columnas for _ in range(filas)]
        debil = self.matriz < self.umbral if self.umbral is not None else np.zeros(self.matriz.shape, bool)
        return [
            [self.texto_tapada if t else "" if d else numero(v, self.formato) for v, t, d in zip(*fila, strict=True)]
            for fila in zip(self.matriz, self.tapada, debil, strict=True)
        ]


@dataclass(frozen=True)
class Serie:
    """Una serie de barras: un valor por categoría."""

    nombre: str
    valores: np.ndarray
    color: str = C0
    colores: tuple[str, ...] | None = None  # un color por barra (p. ej. para resaltar la predicción)
    numeros: tuple[str, ...] | None = None  # el texto sobre cada barra; None: su valor con `formato`

    def __post_init__(self):
        object.__setattr__(self, "valores", _arreglo(self.valores, f"Serie «{self.nombre}»", (1,)))


@dataclass(frozen=True)
class Referencia:
    """Una línea de referencia horizontal (o vertical) con su rótulo en la leyenda."""

    valor: float
    texto: str
    color: str = GRIS
    punteada: bool = True


@dataclass(frozen=True)
class Barras:
    """Barras por categoría; varias series van lado a lado."""

    categorias: tuple[str, ...]
    series: tuple[Serie, ...]
    titulo: str = ""
    eje_x: str = ""
    eje_y: str = ""
    horizontal: bool = False
    numeros: bool = True  # el valor sobre cada barra
    formato: str = ".2f"
    rango: tuple[float, float] | None = None  # del eje de los valores
    referencias: tuple[Referencia, ...] = ()
    pista: str = "{c}: {v}"  # {c} la categoría, {s} la serie, {v} el valor, {t} el texto sobre la barra

    def __post_init__(self):
        object.__setattr__(self, "categorias", tuple(map(str, self.categorias)))
        for s in self.series:
            if len(s.valores) != len(self.categorias):
                raise ValueError(f"Barras: la serie «{s.nombre}» no tiene un valor por categoría")

    def textos(self, serie: Serie) -> list[str]:
        if not self.numeros:
            return [""] * len(serie.valores)
        return list(serie.numeros) if serie.numeros is not None else [numero(v, self.formato) for v in serie.valores]


@dataclass(frozen=True)
class Curva:
    nombre: str
    x: np.ndarray
    y: np.ndarray
    color: str = C0
    estilo: str = "lineas+puntos"  # "lineas", "puntos", "punteada"

    def __post_init__(self):
        x = _arreglo(self.x, f"Curva «{self.nombre}»", (1,))
        y = _arreglo(self.y, f"Curva «{self.nombre}»", (1,))
        if x.shape != y.shape:
            raise ValueError(f"Curva «{self.nombre}»: x e y deben tener el mismo largo")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)


LADOS_DE_NOTA = {"centro": "middle", "arriba": "top", "abajo": "bottom"}  # -> el de Plotly


@dataclass(frozen=True)
class Nota:
    """Un texto en el punto (x, y) de los datos, con una marca opcional."""

    x: float
    y: float
    texto: str
    marca: bool = True
    color: str = "#333333"
    # Dónde va el texto respecto del punto, a lo alto: "centro", "arriba" o "abajo" (a unos píxeles, con cualquier
    # escala: el nombre de una línea de referencia, sin que la línea lo tache).
    lado: str = "centro"

    def __post_init__(self):
        if self.lado not in LADOS_DE_NOTA:
            raise ValueError(f"Nota «{self.texto}»: lado {self.lado!r}, no uno de {sorted(LADOS_DE_NOTA)}")


@dataclass(frozen=True)
class Curvas:
    """Curvas y = f(x), con ejes lineales o logarítmicos, líneas de referencia y notas."""

    curvas: tuple[Curva, ...]
    titulo: str = ""
    eje_x: str = ""
    eje_y: str = ""
    log_x: bool = False
    log_y: bool = False
    rango_y: tuple[float, float] | None = None
    marcas_x: tuple[float, ...] | None = None  # dónde van las marcas del eje x (con su número)
    horizontales: tuple[Referencia, ...] = ()
    verticales: tuple[Referencia, ...] = ()
    notas: tuple[Nota, ...] = ()
    formato: str = ".3g"  # del valor al pasar el ratón
    mensaje: str = ""  # si no hay curvas: por qué (p. ej. «en la CPU no se mide la memoria»)
    pista: str = "{n}<br>x = {x}<br>y = {y}"  # al pasar el ratón: {n} la curva, {x}, {y} el punto (y con `formato`)


@dataclass(frozen=True)
class Histograma:
    """Cuántos valores caen en cada intervalo; varias series comparten los bordes."""

    bordes: np.ndarray  # (n + 1,)
    series: tuple[Serie, ...]  # valores = cuentas (n,)
    titulo: str = ""
    eje_x: str = "Valor"
    eje_y: str = "Cuántos"

    @classmethod
    def de(cls, datos: dict[str, np.ndarray], bins: int = 50, rango=None, colores=(C0, C1), **kw) -> Histograma:
        """Cuenta cada serie de `datos` ({nombre: valores}) en los mismos `bins` intervalos."""
        todos = np.concatenate([np.asarray(v, float).ravel() for v in datos.values()])
        bordes = np.histogram_bin_edges(todos, bins=bins, range=rango)
        series = tuple(
            Serie(nombre, np.histogram(np.asarray(v, float), bins=bordes)[0], color=colores[k % len(colores)])
            for k, (nombre, v) in enumerate(datos.items())
        )
        return cls(bordes=bordes, series=series, **kw)


@dataclass(frozen=True)
class Imagen:
    """Una imagen tal cual (un dígito, una foto), con una capa de pesos encima si hace falta.

    pixeles: (alto, ancho) en gris de 0 a 1 (0 = blanco, 1 = tinta, como los dígitos) o
    (alto, ancho, 3) RGB en uint8. capa: (h, w) de 0 a `vmax`, se estira sobre la imagen
    con `opacidad`, en blanco→azul; su valor sale al pasar el ratón (con `opacidad=0` solo
    dice qué hay debajo, p. ej. el número de parche). caja_capa: si la capa cubre solo una
    parte de la imagen (los parches enteros, sin el borde que se descarta).
    rejilla: cada cuántos píxeles una línea (los parches de un ViT). recuadros: (x0, y0,
    x1, y1) en píxeles, en naranja. numeros: (fila, columna, texto) en coordenadas de la capa.
    """

    pixeles: np.ndarray
    titulo: str = ""
    capa: np.ndarray | None = None
    opacidad: float = 0.6
    vmax: float = 1.0
    barra: str | None = None
    rejilla: int | None = None
    color_rejilla: str = "white"
    recuadros: tuple[tuple[float, float, float, float], ...] = ()
    rotulos: tuple[Nota, ...] = ()  # textos en coordenadas de píxel (p. ej. el número de cada parche)
    numeros_capa: bool = False  # el valor de la capa en cada casilla
    pista: str = "{v}"  # de la capa
    formato: str = ".2f"  # de {v} en la pista y de `numeros_capa` (".0f": un entero, p. ej. un número de parche)
    caja_capa: tuple[float, float, float, float] | None = None  # (x0, y0, x1, y1) en píxeles; None: toda la imagen
    estirar: bool = False  # llena el panel con píxeles no cuadrados (una secuencia de 60 × 768 números)

    def __post_init__(self):
        p = np.asarray(self.pixeles)
        if not (p.ndim == 2 or (p.ndim == 3 and p.shape[2] == 3)) or p.size > 3 * MAX_CASILLAS:
            raise ValueError("Imagen: se esperaba (alto, ancho) o (alto, ancho, 3)")
        object.__setattr__(self, "pixeles", p)
        if self.capa is not None:
            object.__setattr__(self, "capa", _arreglo(self.capa, "Imagen.capa", (2,)))

    @property
    def rgb(self) -> bool:
        return self.pixeles.ndim == 3

    def textos_capa(self) -> list[list[str]]:
        if self.capa is None or not self.numeros_capa:
            return []
        return [[numero(v, self.formato) for v in fila] for fila in self.capa]

    def extension_capa(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) que cubre la capa, en coordenadas de píxel (el centro del píxel (0, 0) es 0, 0)."""
        alto, ancho = self.pixeles.shape[:2]
        return self.caja_capa or (-0.5, -0.5, ancho - 0.5, alto - 0.5)


@dataclass(frozen=True)
class Caja:
    """Una caja de un diagrama, centrada en (x, y)."""

    x: float
    y: float
    texto: str
    ancho: float = 3.0
    alto: float = 0.7
    resaltada: bool = False
    redonda: bool = False  # un círculo (la suma de la conexión residual)
    nota: str = ""  # a la derecha, en gris


@dataclass(frozen=True)
class Flecha:
    """De (x0, y0) a (x1, y1), pasando por `codos` si los hay."""

    x0: float
    y0: float
    x1: float
    y1: float
    color: str = C0
    codos: tuple[tuple[float, float], ...] = ()
    texto: str = ""  # rótulo junto al primer tramo (o al tramo número `tramo`, desde 0)
    tramo: int = 0  # p. ej. 1 en un atajo que sale de lado y sube: el rótulo va junto al tramo que sube

    def __post_init__(self):
        if not 0 <= self.tramo <= len(self.codos):
            raise ValueError(f"Flecha: tiene {len(self.codos) + 1} tramos y no hay un tramo {self.tramo}")


@dataclass(frozen=True)
class Diagrama:
    """Cajas y flechas en un lienzo de `ancho` × `alto` unidades (y hacia arriba)."""

    cajas: tuple[Caja, ...]
    flechas: tuple[Flecha, ...] = ()
    titulo: str = ""
    ancho: float = 10.0
    alto: float = 9.0


@dataclass(frozen=True)
class Aviso:
    """Una figura vacía con un mensaje en el centro (p. ej. «pulsa Medir»)."""

    mensaje: str
    titulo: str = ""


Figura = Mapa | Barras | Curvas | Histograma | Imagen | Diagrama | Aviso


@dataclass(frozen=True)
class Paneles:
    """Varias figuras en una rejilla de `columnas` columnas, con un título común.

    compartir_x / compartir_y: los paneles usan los mismos ejes (p. ej. dos
    histogramas que se comparan). anchos: proporción de cada columna.
    de_a_uno: en un teléfono, en vez de apilarse, se ve un panel a la vez, elegido por su título en un
    desplegable. Cada panel lleva entonces lo que la rejilla escribe una sola vez (las palabras de la
    columna de la izquierda y de la fila de abajo, los títulos de los ejes).
    """

    paneles: tuple[Figura, ...]
    columnas: int = 2
    titulo: str = ""
    compartir_x: bool = False
    compartir_y: bool = False
    anchos: tuple[float, ...] | None = None
    alto_fila: int = 330  # píxeles de pantalla por fila
    de_a_uno: bool = False

    def __post_init__(self):
        if not self.paneles:
            raise ValueError("Paneles: hace falta al menos un panel")
        if any(isinstance(p, Paneles) for p in self.paneles):
            raise ValueError("Paneles: no se anidan")

    @property
    def filas(self) -> int:
        return -(-len(self.paneles) // self.columnas)

    def con_barra(self) -> tuple[bool, ...]:
        """Qué paneles dibujan su barra de color: cada uno si sus mapas usan colores distintos; si todos usan
        los mismos, una sola, la del último (en pantalla y en la descarga)."""
        con = [k for k, f in enumerate(self.paneles) if getattr(f, "barra", None) and isinstance(f, Mapa | Imagen)]
        propias = len({getattr(self.paneles[k], "colores", "") for k in con}) > 1
        return tuple(propias or k == (con[-1] if con else -1) for k in range(len(self.paneles)))


TIPOS_DE_PANEL = Figura.__args__  # lo que dibuja cada `DIBUJOS`; `Paneles` los reparte
TIPOS = (*TIPOS_DE_PANEL, Paneles)


def es_figura(valor) -> bool:
    """¿Es `valor` la descripción de una figura?"""
    return isinstance(valor, TIPOS)
