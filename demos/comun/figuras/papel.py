"""Dibujante de papel: una descripción de `demos.comun.figuras` -> PNG a 220 ppp y SVG, con matplotlib.

Cada tipo de panel tiene su función en `DIBUJOS`, como en la pantalla (`pantalla.DIBUJOS`), y las reglas de
maquetación son las mismas (`maqueta`). Solo corre cuando alguien pide las descargas (no al mover un control).
Usa `matplotlib.figure.Figure` sin pyplot: cada petición tiene su figura y varios hilos pueden dibujar a la
vez. Los números de las casillas y de las barras son los mismos textos que ve la pantalla (`Mapa.textos()`,
`Barras.textos()`). Conserva el estilo claro de la lección también cuando la página está en modo oscuro.
"""

from __future__ import annotations

import io
import textwrap

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyBboxPatch, PathPatch, Rectangle
from matplotlib.path import Path

from demos.comun.figuras import (
    C0,
    C1,
    Aviso,
    Barras,
    Curvas,
    Diagrama,
    Histograma,
    Imagen,
    Mapa,
    Paneles,
    maqueta,
    numero,
)

DPI = 220  # el PNG para diapositivas
MAPAS = {
    "azul": LinearSegmentedColormap.from_list("blanco_tinta", ["white", C0]),
    "divergente": LinearSegmentedColormap.from_list("rojo_azul", ["#d62728", "white", C0]),
    "grises": "gray_r",
}
ESTILO = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.facecolor": "white",
    "svg.fonttype": "none",  # texto editable en el SVG
}
_LINEAS = {"lineas+puntos": "o-", "lineas": "-", "puntos": "o", "punteada": ":"}


def _rayado(eje, tapada: np.ndarray) -> None:
    """Raya las casillas tapadas con un solo trazo compuesto (un parche por casilla es lentísimo)."""
    casillas = np.argwhere(tapada)
    if len(casillas) == 0:
        return
    cuadro = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5], [-0.5, -0.5]])
    vertices = (casillas[:, None, ::-1] + cuadro).reshape(-1, 2)  # (5n, 2) en (columna, fila)
    codigos = [Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY] * len(casillas)
    eje.add_artist(PathPatch(Path(vertices, codigos), hatch="///", fill=False, edgecolor="0.75", lw=0))


def _mapa(f: Mapa, fig: Figure, eje, con_barra: bool) -> None:
    etiquetas_x, etiquetas_y = f.etiquetas()
    filas, columnas = f.matriz.shape
    lo, hi = f.rango()
    im = eje.imshow(np.ma.masked_where(f.tapada, f.matriz), cmap=MAPAS[f.colores], vmin=lo, vmax=hi, aspect="auto")
    _rayado(eje, f.tapada)
    if f.tapada.any():
        muestra = Rectangle((0, 0), 0, 0, hatch="///", fill=False, edgecolor="0.6", label=f.leyenda_tapada)
        # Al pie de la figura (junto al eje pisaba su título), y una sola vez si varios paneles la comparten.
        if f.leyenda_tapada not in {t.get_text() for leyenda in fig.legends for t in leyenda.get_texts()}:
            fig.legend(handles=[muestra], loc="outside lower center", frameon=False, fontsize=10)
    tam = 11 if max(filas, columnas) <= 6 else 9
    medio = lo + 0.5 * (hi - lo)
    for i, fila in enumerate(f.textos()):
        for j, texto in enumerate(fila):
            if texto:
                oscura = not f.tapada[i, j] and f.matriz[i, j] > medio and f.colores != "divergente"
                color = "white" if oscura else ("0.45" if f.tapada[i, j] else "#1b3a5c")
                eje.text(j, i, texto, ha="center", va="center", fontsize=tam, color=color)
    for i, j in f.marcas:
        eje.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=C1, lw=1.4, ls="--"))
    rotacion = {"rotation": 45, "ha": "right"} if maqueta.girar(etiquetas_x) else {}
    if maqueta.apinadas(columnas):  # 32 palabras: de pie y en letra chica, como en pantalla, para que no se encimen
        rotacion = {"rotation": 90, "ha": "center", "fontsize": 7}
    # Sin etiquetas propias y con muchas casillas, las marcas redondas de matplotlib (0, 10, 20…), como en pantalla.
    if maqueta.marca_cada_casilla(f.x, columnas):
        eje.set_xticks(*maqueta.marcas(etiquetas_x), **rotacion)
    if maqueta.marca_cada_casilla(f.y, filas):
        eje.set_yticks(*maqueta.marcas(etiquetas_y), **({"fontsize": 7} if maqueta.apinadas(filas) else {}))
    eje.tick_params(length=0)
    for lado in eje.spines.values():
        lado.set_visible(False)
    eje.set_xlabel(f.eje_x)
    eje.set_ylabel(f.eje_y)
    if not f.ejes:
        eje.axis("off")
    if f.cuadrado:
        eje.set_aspect("equal")
    if maqueta.lleva_barra(f, con_barra):
        fig.colorbar(im, ax=eje, label=f.barra, shrink=0.85)


def _barras(f: Barras, fig: Figure, eje, con_barra: bool) -> None:
    n, k = len(f.categorias), len(f.series)
    ancho = 0.8 / k
    for m, s in enumerate(f.series):
        pos = np.arange(n) + (m - (k - 1) / 2) * ancho
        colores = list(s.colores) if s.colores else s.color
        dibujar = eje.barh if f.horizontal else eje.bar
        rect = dibujar(pos, s.valores, ancho, color=colores, label=s.nombre if k > 1 else None)
        if f.numeros:
            eje.bar_label(rect, labels=f.textos(s), padding=2, fontsize=9 if n > 12 else 10, color="0.2")
    for r in f.referencias:
        linea = eje.axvline if f.horizontal else eje.axhline
        linea(r.valor, color=r.color, linestyle=":" if r.punteada else "-", linewidth=1.2, label=r.texto)
    if f.horizontal:
        eje.set_yticks(range(n), f.categorias)
        eje.invert_yaxis()
        if f.rango:
            eje.set_xlim(*f.rango)
    else:
        eje.set_xticks(range(n), f.categorias, rotation=90 if maqueta.girar(f.categorias, mas_de=6) else 0)
        if f.rango:
            eje.set_ylim(*f.rango)
    # eje_x nombra las categorías y eje_y los valores, como en pantalla: en barras horizontales van al revés.
    eje.set_xlabel(f.eje_y if f.horizontal else f.eje_x)
    eje.set_ylabel(f.eje_x if f.horizontal else f.eje_y)
    if k > 1 or f.referencias:
        eje.legend(fontsize=9, frameon=False, loc="best")


def _curvas(f: Curvas, fig: Figure, eje, con_barra: bool) -> None:
    for c in f.curvas:
        eje.plot(c.x, c.y, _LINEAS.get(c.estilo, "o-"), color=c.color, label=c.nombre, ms=4)
    for r in f.horizontales:
        eje.axhline(r.valor, color=r.color, linestyle=":" if r.punteada else "-", linewidth=1.2, label=r.texto)
    for r in f.verticales:
        eje.axvline(r.valor, color=r.color, linestyle=":" if r.punteada else "-", linewidth=1.2, label=r.texto)
    for n in f.notas:
        if n.marca:
            eje.plot([n.x], [n.y], "s", color=n.color)
        va, dy = {"centro": ("center", 0), "arriba": ("bottom", 2), "abajo": ("top", -2)}[n.lado]
        eje.annotate(n.texto, (n.x, n.y), (6, dy), textcoords="offset points", va=va, fontsize=10, color=n.color)
    if f.log_x:
        eje.set_xscale("log")
    if f.log_y:
        eje.set_yscale("log")
    if f.marcas_x is not None:
        eje.set_xticks(list(f.marcas_x), [numero(v, ",.0f") for v in f.marcas_x])
        eje.minorticks_off()
    if f.rango_y:
        eje.set_ylim(*f.rango_y)
    eje.set_xlabel(f.eje_x)
    eje.set_ylabel(f.eje_y)
    if not f.curvas and f.mensaje:
        _mensaje(eje, f.mensaje)
    elif len(f.curvas) + len(f.horizontales) + len(f.verticales) > 1:
        eje.legend(fontsize=9, frameon=False, loc="best")


def _histograma(f: Histograma, fig: Figure, eje, con_barra: bool) -> None:
    ancho = np.diff(f.bordes)
    for s in f.series:
        eje.bar(f.bordes[:-1], s.valores, ancho, align="edge", color=s.color, alpha=0.8, label=s.nombre)
    eje.set_xlabel(f.eje_x)
    eje.set_ylabel(f.eje_y)
    if len(f.series) > 1:
        eje.legend(fontsize=9, frameon=False)


def _imagen(f: Imagen, fig: Figure, eje, con_barra: bool) -> None:
    alto, ancho = f.pixeles.shape[:2]
    extension = (-0.5, ancho - 0.5, alto - 0.5, -0.5)
    if f.rgb:
        eje.imshow(f.pixeles, extent=extension, interpolation="nearest")
    else:
        eje.imshow(f.pixeles, cmap="gray_r", vmin=0, vmax=1, extent=extension, interpolation="nearest")
    if f.capa is not None:
        x0, y0, x1, y1 = f.extension_capa()
        capa = np.ma.masked_invalid(f.capa)
        im = eje.imshow(
            capa,
            cmap=MAPAS["azul"],
            vmin=0,
            vmax=f.vmax,
            alpha=f.opacidad,
            extent=(x0, x1, y1, y0),
            interpolation="nearest",
        )
        h, w = f.capa.shape
        for i, fila in enumerate(f.textos_capa()):
            for j, texto in enumerate(fila):
                x, y = x0 + (j + 0.5) * (x1 - x0) / w, y0 + (i + 0.5) * (y1 - y0) / h
                eje.text(x, y, texto, ha="center", va="center", fontsize=7, color="#1b3a5c")
        if maqueta.lleva_barra(f, con_barra):
            fig.colorbar(im, ax=eje, label=f.barra, shrink=0.85)
    if f.rejilla:
        for c in range(0, ancho + 1, f.rejilla):
            eje.axvline(c - 0.5, color=f.color_rejilla, lw=0.8)
        for r in range(0, alto + 1, f.rejilla):
            eje.axhline(r - 0.5, color=f.color_rejilla, lw=0.8)
    for x0, y0, x1, y1 in f.recuadros:
        eje.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor=C1, lw=2))
    for n in f.rotulos:
        caja = {"boxstyle": "round,pad=0.15", "facecolor": n.color if n.color != "#333333" else C0, "edgecolor": "none"}
        eje.text(n.x, n.y, n.texto, ha="center", va="center", fontsize=6, color="white", bbox=caja)
    eje.set_xlim(-0.5, ancho - 0.5)
    eje.set_ylim(alto - 0.5, -0.5)
    eje.set_aspect("auto" if f.estirar else "equal")
    eje.axis("off")


def _diagrama(f: Diagrama, fig: Figure, eje, con_barra: bool) -> None:
    for c in f.cajas:
        color = C1 if c.resaltada else C0
        fondo = "#fff4e8" if c.resaltada else "#eef4fa"
        if c.redonda:
            eje.add_patch(Circle((c.x, c.y), c.alto / 2, facecolor=fondo, edgecolor=color, lw=1.5))
        else:
            esquina = (c.x - c.ancho / 2, c.y - c.alto / 2)
            caja = FancyBboxPatch(esquina, c.ancho, c.alto, boxstyle="round,pad=0.02", fc=fondo, ec=color, lw=1.5)
            eje.add_patch(caja)
        eje.text(c.x, c.y, c.texto, ha="center", va="center", fontsize=10)
        if c.nota:
            eje.text(c.x + c.ancho / 2 + 0.25, c.y, c.nota, ha="left", va="center", fontsize=9, color="0.35")
    for fl in f.flechas:
        puntos = [(fl.x0, fl.y0), *fl.codos, (fl.x1, fl.y1)]
        xs, ys = zip(*puntos[:-1], strict=True)
        if len(puntos) > 2:
            eje.plot(xs, ys, color=fl.color, lw=1.5)
        eje.annotate("", puntos[-1], puntos[-2], arrowprops={"arrowstyle": "->", "color": fl.color, "lw": 1.5})
        if fl.texto:
            (a, b), (c, d) = puntos[fl.tramo], puntos[fl.tramo + 1]
            eje.text((a + c) / 2 - 0.3, (b + d) / 2, fl.texto, rotation=90, ha="center", va="center", color=fl.color)
    eje.set_xlim(0, f.ancho)
    eje.set_ylim(0, f.alto)
    eje.axis("off")


def _mensaje(eje, texto: str) -> None:
    eje.text(0.5, 0.5, texto, ha="center", va="center", transform=eje.transAxes, color="0.4", wrap=True)


def _aviso(f: Aviso, fig: Figure, eje, con_barra: bool) -> None:
    eje.axis("off")
    _mensaje(eje, f.mensaje)


# El dibujo de cada tipo de panel: f(figura, fig, eje, con_barra), como `pantalla.DIBUJOS`.
DIBUJOS = {
    Mapa: _mapa,
    Imagen: _imagen,
    Barras: _barras,
    Curvas: _curvas,
    Histograma: _histograma,
    Diagrama: _diagrama,
    Aviso: _aviso,
}


def _panel(f, fig: Figure, eje, con_barra: bool = True) -> None:
    dibujar = DIBUJOS.get(type(f))
    if dibujar is None:
        raise TypeError(f"No es una figura: {type(f).__name__}")
    dibujar(f, fig, eje, con_barra)
    if getattr(f, "titulo", ""):  # del ancho de su panel: uno más largo se partía por los bordes del PNG
        eje.set_title(_partido(f.titulo, eje.get_position().width * fig.get_figwidth(), ESTILO["axes.titlesize"]))


def _partido(texto: str, pulgadas: float, puntos: float) -> str:
    """Un título partido en líneas que caben en `pulgadas` (una letra mide ~0.55 de su tamaño en puntos)."""
    columnas = max(16, int(pulgadas * 72 / (0.55 * puntos)))
    return "\n".join(textwrap.fill(linea, columnas) if linea else "" for linea in texto.split("\n"))


def a_matplotlib(figura) -> Figure:
    """La descripción `figura` -> una `Figure` de matplotlib con el estilo de la lección."""
    with matplotlib.rc_context(ESTILO):
        if isinstance(figura, Paneles):
            pulgadas = figura.alto_fila / 100
            fig = Figure(figsize=(4.2 * figura.columnas, pulgadas * figura.filas + 0.5), layout="constrained")
            ejes = fig.subplots(
                figura.filas,
                figura.columnas,
                squeeze=False,
                sharex=figura.compartir_x,
                sharey=figura.compartir_y,
                width_ratios=figura.anchos,
            ).ravel()
            barras = maqueta.barras_de(figura)
            for k, eje in enumerate(ejes):
                if k < len(figura.paneles):
                    _panel(figura.paneles[k], fig, eje, con_barra=barras[k])
                else:
                    eje.axis("off")
            if figura.titulo:
                fig.suptitle(_partido(figura.titulo, fig.get_figwidth(), 1.2 * ESTILO["font.size"]))
        else:
            fig = Figure(figsize=(6.4, 4.8 if not isinstance(figura, Diagrama) else 5.4), layout="constrained")
            _panel(figura, fig, fig.subplots())
    return fig


def a_bytes(figura, formato: str) -> bytes:
    """PNG (a `DPI`) o SVG de la figura."""
    if formato not in ("png", "svg"):
        raise ValueError(f"Formato de descarga desconocido: {formato}")
    buffer = io.BytesIO()
    with matplotlib.rc_context(ESTILO):
        a_matplotlib(figura).savefig(buffer, format=formato, dpi=DPI)
    return buffer.getvalue()
