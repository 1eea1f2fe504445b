"""Las reglas de maquetación que comparten los dos dibujantes (pantalla y papel), escritas una vez.

Cuántas marcas lleva un eje, cuándo se giran sus etiquetas, cuándo van en letra chica y qué paneles
dibujan su barra de color: la pantalla (Plotly) y la descarga (matplotlib) deciden lo mismo.
Solo Python: se importa sin gradio, plotly ni matplotlib.
"""

from __future__ import annotations

from demos.comun.figuras import MAX_NUMEROS, Imagen, Mapa, Paneles

MAX_MARCAS = 40  # más etiquetas que esto en un eje se apiñan: se escribe una de cada `paso`


def paso(n: int, maximo: int = MAX_MARCAS) -> int:
    """Cada cuántas etiquetas se escribe una para que no pasen de `maximo`."""
    return max(1, -(-n // maximo))


def marcas(etiquetas: tuple[str, ...], maximo: int = MAX_MARCAS) -> tuple[list[int], list[str]]:
    """(posiciones, textos) de las marcas de un eje con esas etiquetas, una de cada `paso`."""
    posiciones = list(range(0, len(etiquetas), paso(len(etiquetas), maximo)))
    return posiciones, [etiquetas[i] for i in posiciones]


def girar(etiquetas: tuple[str, ...], mas_de: int = 4) -> bool:
    """Las etiquetas de un eje x van inclinadas si son más de `mas_de` y alguna pasa de 3 letras."""
    return len(etiquetas) > mas_de and max(map(len, etiquetas), default=0) > 3


def apinadas(n: int) -> bool:
    """Un eje con más casillas que `MAX_NUMEROS` lleva sus etiquetas en letra chica (32 palabras sin encimarse)."""
    return n > MAX_NUMEROS


def letra_chica(propias: tuple[str, ...] | None, n: int) -> bool:
    """¿Van las marcas del eje x en letra chica? Solo si son nombres propios y muchos (32 palabras): con 0, 1, 2…,
    las marcas redondas de la biblioteca (0, 5, 10, 15) caben en la letra de siempre (en multicabeza, las de las 16
    columnas de Q, K y V iban a 11 px)."""
    return propias is not None and apinadas(n)


def marca_cada_casilla(propias: tuple[str, ...] | None, n: int) -> bool:
    """¿Una marca por casilla? Con etiquetas propias, sí; con 0, 1, 2… y muchas casillas, las marcas redondas
    de la biblioteca (0, 10, 20…) en lugar de 40 apiñadas."""
    return propias is not None or not apinadas(n)


def lleva_barra(f, pedida: bool) -> bool:
    """¿Dibuja `f` su barra de color? Solo un mapa o una imagen con título de barra, y si el panel la pide."""
    return bool(pedida and isinstance(f, Mapa | Imagen) and getattr(f, "barra", None))


def barras_de(figura) -> tuple[bool, ...]:
    """Qué paneles de `figura` piden su barra de color (una figura sola, la suya)."""
    return figura.con_barra() if isinstance(figura, Paneles) else (True,)


def dibujan_barra(figura) -> tuple[bool, ...]:
    """Qué paneles de `figura` dibujan su barra de color (los que la piden y pueden llevarla)."""
    paneles = figura.paneles if isinstance(figura, Paneles) else (figura,)
    return tuple(lleva_barra(f, pedida) for f, pedida in zip(paneles, barras_de(figura), strict=True))


def barras_propias(p: Paneles) -> bool:
    """¿Cada mapa lleva su propia barra (usan colores distintos)? Entonces hace falta más hueco entre columnas."""
    return sum(p.con_barra()) > 1


def lineas_de_mas_arriba(figura) -> int:
    """Cuántas líneas de más tiene el título más alto de los paneles de arriba (van sobre su panel)."""
    if not isinstance(figura, Paneles):
        return 0
    return max(getattr(f, "titulo", "").count("\n") for f in figura.paneles[: figura.columnas])
