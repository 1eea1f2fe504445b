"""El estilo de las figuras de la lección: mapa blanco→C0, números en las casillas, máscara rayada.

Las figuras se crean con `matplotlib.figure.Figure` (sin pyplot): no pasan por
el registro global de pyplot, así que cada petición tiene la suya y varios
hilos pueden dibujar a la vez. No hace falta cerrarlas: se liberan al soltarlas.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import PathPatch
from matplotlib.path import Path

C0, C1, C2, C3 = "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"
BLANCO_TINTA = LinearSegmentedColormap.from_list("blanco_tinta", ["white", C0])
DPI_PANTALLA = 110  # lo que ve el navegador
DPI_DESCARGA = 220  # el PNG para diapositivas
MAX_NUMEROS = 12  # hasta este lado, la matriz lleva números en las casillas

matplotlib.rcParams.update(
    {
        "font.size": 11,
        "axes.titlesize": 12,
        "axes.labelsize": 11,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": False,
        "figure.facecolor": "white",
        "svg.fonttype": "none",  # texto editable en el SVG
    }
)


def figura(ancho: float = 6.4, alto: float = 4.8, filas: int = 1, columnas: int = 1, **kw):
    """Una figura nueva con su(s) eje(s), con diseño restringido para que nada se corte."""
    fig = Figure(figsize=(ancho, alto), layout="constrained")
    ejes = fig.subplots(filas, columnas, squeeze=True, **kw)
    return fig, ejes


def mapa_calor(
    eje,
    matriz,
    etiquetas_x=None,
    etiquetas_y=None,
    *,
    tapada=None,
    numeros: bool | None = None,
    vmin: float | None = 0.0,
    vmax: float | None = 1.0,
    formato: str = "{:.2f}",
    rayar: bool = False,
    texto_tapada: str = "",
    cmap=BLANCO_TINTA,
    tam_numeros: float | None = None,
):
    """Dibuja `matriz` (filas × columnas) como en la lección y devuelve la imagen de `imshow`.

    tapada: booleana, True donde la casilla está enmascarada: queda en blanco,
    sin número; con `rayar`, rayada y con `texto_tapada` (p. ej. «−∞»).
    numeros: escribe el valor en cada casilla; por omisión, si la matriz es pequeña.
    """
    m = np.asarray(matriz, dtype=float)
    filas, columnas = m.shape
    tapada = np.zeros_like(m, dtype=bool) if tapada is None else np.asarray(tapada, dtype=bool)
    tapada = tapada | ~np.isfinite(m)
    imagen = eje.imshow(np.ma.masked_where(tapada, m), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    if numeros is None:
        numeros = max(filas, columnas) <= MAX_NUMEROS
    bajo = np.nanmin(np.where(tapada, np.nan, m)) if (~tapada).any() else 0.0
    alto = np.nanmax(np.where(tapada, np.nan, m)) if (~tapada).any() else 1.0
    lo = bajo if vmin is None else vmin
    hi = alto if vmax is None else vmax
    umbral = lo + 0.5 * (hi - lo)
    tam = tam_numeros or (11 if max(filas, columnas) <= 6 else 9)
    if rayar:
        rayado(eje, tapada, texto_tapada if numeros else "", tam)
    for i in range(filas):
        for j in range(columnas):
            if numeros and not tapada[i, j]:
                v = m[i, j]
                eje.text(
                    j,
                    i,
                    formato.format(v),
                    ha="center",
                    va="center",
                    fontsize=tam,
                    color="white" if v > umbral else C0,
                    in_layout=False,  # dentro de su casilla: no mueve nada (y el diseño se puede reusar)
                )
    if etiquetas_x is not None:
        eje.set_xticks(
            range(columnas), etiquetas_x, rotation=45 if columnas > 4 else 0, ha="right" if columnas > 4 else "center"
        )
    if etiquetas_y is not None:
        eje.set_yticks(range(filas), etiquetas_y)
    eje.tick_params(length=0)
    for lado in eje.spines.values():
        lado.set_visible(False)
    return imagen


_CUADRO = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5], [-0.5, -0.5]])  # una casilla, centrada
_TRAZO = [Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY]


def rayado(eje, tapada, texto: str = "", tam: float = 11) -> None:
    """Raya las casillas tapadas (True) de una matriz dibujada con imshow, con un solo trazo.

    Un parche por casilla tarda segundos con 32 × 32; un único camino compuesto, milisegundos.
    `texto` (p. ej. «−∞») se escribe en cada casilla tapada si la matriz es pequeña.
    """
    casillas = np.argwhere(np.asarray(tapada, dtype=bool))  # (n, 2): fila, columna
    if len(casillas) == 0:
        return
    vertices = (casillas[:, None, ::-1] + _CUADRO).reshape(-1, 2)  # (5n, 2) en (x, y) = (columna, fila)
    # add_artist y no add_patch: no recalcula los límites del eje recorriendo cada casilla.
    eje.add_artist(PathPatch(Path(vertices, _TRAZO * len(casillas)), hatch="///", fill=False, edgecolor="0.75", lw=0))
    if texto and max(np.shape(tapada)) <= 8:  # con más casillas el texto se amontona
        for i, j in casillas:
            eje.text(j, i, texto, ha="center", va="center", fontsize=tam, color="0.45", in_layout=False)


def sin_datos(eje, mensaje: str) -> None:
    """Un eje vacío con un aviso en el centro (p. ej. «sin datos para esta opción»)."""
    eje.axis("off")
    eje.text(0.5, 0.5, mensaje, ha="center", va="center", transform=eje.transAxes, color="0.4", wrap=True)
