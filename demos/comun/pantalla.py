"""Dibujante de pantalla: una descripción de `demos.comun.figuras` -> JSON de Plotly para `gr.Plot`.

Se arma con diccionarios simples (sin `plotly.graph_objects`): una figura de 4 paneles
sale en ~1 ms, y el navegador la dibuja con el plotly.js que trae Gradio. Las pruebas
validan el resultado contra el esquema de Plotly (`plotly.graph_objects.Figure`).
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import math
import warnings

import numpy as np

from demos.comun.figuras import (
    C0,
    C1,
    MAX_NUMEROS,
    Aviso,
    Barras,
    Curvas,
    Diagrama,
    Histograma,
    Imagen,
    Mapa,
    Paneles,
    numero,
)

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
CONFIG = {"displayModeBar": False, "responsive": True, "scrollZoom": False}


def _lista(a) -> list:
    """Arreglo -> lista JSON con 6 cifras significativas (los enteros quedan exactos); NaN -> null."""
    a = np.asarray(a, dtype=float)
    finito = np.isfinite(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        escala = 10.0 ** (5 - np.floor(np.log10(np.where(finito & (a != 0), np.abs(a), 1.0))))
        redondo = np.where(finito, np.round(a * escala) / escala, 0.0)
    salida = redondo.astype(object)
    salida[~finito] = None
    return salida.tolist()


def _plano(texto: str) -> str:
    """Un rótulo que puede venir de un visitante (sus palabras) -> texto que Plotly no interpreta.

    Plotly lee `<a href>`, `<b>`, `<br>`… en marcas, pistas y textos: una palabra como
    `<a href="https://…">` sería un enlace ajeno en la figura. Las entidades sí las decodifica.
    """
    return str(texto).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _categorias(nombres: tuple[str, ...]) -> list[str]:
    """Nombres -> categorías de un eje de Plotly: dos palabras iguales serían una sola columna, así que la
    repetida lleva espacios de ancho cero (no se ven en la pista)."""
    vistos: dict[str, int] = {}
    categorias = []
    for nombre in map(_plano, nombres):
        vistos[nombre] = vistos.get(nombre, -1) + 1
        categorias.append(nombre + "\u200b" * vistos[nombre])
    return categorias


def _plantilla(pista: str, **campos: str) -> str:
    """«{y} mira a {x}: {v}» -> plantilla de Plotly con los campos dados."""
    for nombre, valor in campos.items():
        pista = pista.replace("{" + nombre + "}", valor)
    return pista + "<extra></extra>"


class _Lienzo:
    """Lo que se va juntando: trazos, ejes, anotaciones y formas de una figura."""

    def __init__(self):
        self.datos: list[dict] = []
        self.ejes: dict[str, dict] = {}
        self.notas: list[dict] = []
        self.formas: list[dict] = []
        self.leyenda = False


def _nombres(k: int) -> tuple[str, str, str, str]:
    """Panel k (desde 1) -> ("x2", "y2", "xaxis2", "yaxis2")."""
    sufijo = "" if k == 1 else str(k)
    return f"x{sufijo}", f"y{sufijo}", f"xaxis{sufijo}", f"yaxis{sufijo}"


def _ticks(etiquetas: tuple[str, ...], maximo: int = 40) -> dict:
    n = len(etiquetas)
    paso = max(1, -(-n // maximo))
    valores = list(range(0, n, paso))
    return {"tickmode": "array", "tickvals": valores, "ticktext": [_plano(etiquetas[i]) for i in valores]}


def _barra_color(titulo: str, dom_x, dom_y) -> dict:
    return {
        "title": {"text": titulo, "side": "right"},
        "x": min(dom_x[1] + 0.01, 1.02),
        "xanchor": "left",
        "y": (dom_y[0] + dom_y[1]) / 2,
        "len": max(0.3, dom_y[1] - dom_y[0]),
        "thickness": 14,
        "outlinewidth": 0,
    }


def _en_bloques(trazo: dict, visibles: np.ndarray, f: Mapa, lienzo: _Lienzo, dom_x, dom_y) -> None:
    """Un mapa enorme sin nombres (512 × 512 son 3 MB de JSON) va promediado en bloques de k × k.

    En pantalla no caben más casillas que píxeles: el promedio es lo que se vería. La descarga
    dibuja la matriz completa. Una nota bajo el mapa lo dice.
    """
    filas, columnas = visibles.shape
    k = math.ceil(math.sqrt(filas * columnas / MAX_CASILLAS_PANTALLA))
    relleno = np.full((-(-filas // k) * k, -(-columnas // k) * k), np.nan)
    relleno[:filas, :columnas] = visibles
    h, w = relleno.shape[0] // k, relleno.shape[1] // k
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # un bloque todo NaN (el relleno del borde)
        bloques = np.nanmean(relleno.reshape(h, k, w, k), axis=(1, 3))  # (h, w)
    trazo |= {"z": _lista(np.round(bloques, 3)), "x0": (k - 1) / 2, "dx": k, "y0": (k - 1) / 2, "dy": k}
    trazo["hovertemplate"] = _plantilla(f.pista, y="≈ %{y}", x="≈ %{x}", v="%{z:.3f}").replace(
        "<extra></extra>", f" (promedio de {k} × {k})<extra></extra>"
    )
    lienzo.notas.append(
        {
            "x": (dom_x[0] + dom_x[1]) / 2,
            "y": dom_y[0],
            "xref": "paper",
            "yref": "paper",
            "yanchor": "top",
            "yshift": -42,
            "text": f"En pantalla, cada casilla es el promedio de {k} × {k}; la descarga va completa.",
            "showarrow": False,
            "font": {"size": 12, "color": "#666666"},
        }
    )


def _mapa(f: Mapa, lienzo: _Lienzo, k: int, dom_x, dom_y, con_barra: bool) -> None:
    xa, ya, kx, ky = _nombres(k)
    etiquetas_x, etiquetas_y = f.etiquetas()
    nombres_x, nombres_y = f.nombres_x or etiquetas_x, f.nombres_y or etiquetas_y
    filas, columnas = f.matriz.shape
    lo, hi = f.rango()
    visibles = np.where(f.tapada, np.nan, f.matriz)
    tam = 16 if max(filas, columnas) <= 6 else 13 if max(filas, columnas) <= MAX_NUMEROS else 10
    trazo = {
        "type": "heatmap",
        "z": _lista(visibles),
        "xaxis": xa,
        "yaxis": ya,
        "zmin": lo,
        "zmax": hi,
        "colorscale": ESCALAS[f.colores],
        "showscale": bool(con_barra and f.barra),
        "xgap": 1 if f.con_numeros else 0,
        "ygap": 1 if f.con_numeros else 0,
        "hoverongaps": False,
    }
    if f.con_numeros:
        trazo |= {"text": f.textos(), "texttemplate": "%{text}", "textfont": {"size": tam}}
    # Con filas y columnas sin nombre (0, 1, 2…), x e y ya dicen qué casilla es: sin customdata la respuesta
    # pesa la cuarta parte (un mapa de 50 × 32 con ella, 43 kB; sin ella, 11 kB).
    por_indice = f.x is None and f.y is None and f.nombres_x is None and f.nombres_y is None
    # Muchas casillas con nombre: ejes de categorías, cuyos nombres dice la pista sin repetirlos en cada casilla
    # (32 × 32 palabras: 42 → 11 kB por mapa).
    categorias = not por_indice and filas * columnas > MAX_CASILLAS_NOMBRADAS
    if categorias:
        trazo |= {"x": _categorias(nombres_x), "y": _categorias(nombres_y)}
        trazo["hovertemplate"] = _plantilla(f.pista, y="%{y}", x="%{x}", v="%{z:.3f}")
    elif not por_indice:
        trazo["customdata"] = [
            [[_plano(nombres_y[i]), _plano(nombres_x[j]), numero(f.matriz[i, j], ".3f")] for j in range(columnas)]
            for i in range(filas)
        ]
        trazo["hovertemplate"] = _plantilla(f.pista, y="%{customdata[0]}", x="%{customdata[1]}", v="%{customdata[2]}")
    else:
        trazo["hovertemplate"] = _plantilla(f.pista, y="%{y}", x="%{x}", v="%{z:.3f}")
        if not f.tapada.any() and not f.con_numeros and filas * columnas > MAX_CASILLAS_PANTALLA:
            _en_bloques(trazo, visibles, f, lienzo, dom_x, dom_y)
    if trazo["showscale"]:
        trazo["colorbar"] = _barra_color(f.barra, dom_x, dom_y)
    lienzo.datos.append(trazo)
    if f.tapada.any():
        tapadas = np.where(f.tapada, 1.0, np.nan)
        lienzo.datos.append(
            {
                "type": "heatmap",
                "z": _lista(tapadas),
                "xaxis": xa,
                "yaxis": ya,
                "colorscale": [[0, TAPADA], [1, TAPADA]],
                "showscale": False,
                "xgap": 1,
                "ygap": 1,
                "hoverongaps": False,
                "hovertemplate": f.leyenda_tapada + "<extra></extra>",
            }
            | ({"x": trazo["x"], "y": trazo["y"]} if categorias else {})
            | (  # «−∞» en cada tapada si el mapa lleva números (sin ellos, 32 × 32 textos vacíos pesaban 4 kB)
                {
                    "text": [[f.texto_tapada if t else "" for t in fila] for fila in f.tapada],
                    "texttemplate": "%{text}",
                    "textfont": {"size": tam, "color": "#737373"},
                }
                if f.con_numeros and f.texto_tapada
                else {}
            )
        )
        lienzo.datos.append(
            {
                "type": "scatter",
                "x": [None],
                "y": [None],
                "mode": "markers",
                "xaxis": xa,
                "yaxis": ya,
                "marker": {"symbol": "square", "size": 14, "color": TAPADA, "line": {"color": "#b0b0b0", "width": 1}},
                "name": f.leyenda_tapada + (f" ({f.texto_tapada})" if f.texto_tapada else ""),
                "showlegend": True,
            }
        )
        lienzo.leyenda = True
    for i, j in f.marcas:
        lienzo.formas.append(
            {
                "type": "rect",
                "xref": xa,
                "yref": ya,
                "x0": j - 0.5,
                "x1": j + 0.5,
                "y0": i - 0.5,
                "y1": i + 0.5,
                "line": {"color": C1, "width": 2, "dash": "dash"},
            }
        )
    # Sin etiquetas propias y con muchas casillas, Plotly elige marcas redondas (0, 10, 20…) en lugar de apiñar 40.
    lienzo.ejes[kx] = {
        "domain": dom_x,
        "title": {"text": f.eje_x},
        "showgrid": False,
        "zeroline": False,
        "tickangle": -45 if columnas > 4 and max(map(len, etiquetas_x)) > 3 else 0,
        "automargin": True,  # etiquetas largas (palabras) no se cortan ni pisan el título del eje
        **({"tickfont": {"size": 11}} if columnas > MAX_NUMEROS else {}),  # 32 palabras sin encimarse
        **({} if f.x is None and columnas > MAX_NUMEROS else _ticks(etiquetas_x)),
    }
    lienzo.ejes[ky] = {
        "domain": dom_y,
        "title": {"text": f.eje_y},
        "autorange": "reversed",
        "showgrid": False,
        "zeroline": False,
        "automargin": True,
        **({"tickfont": {"size": 11}} if filas > MAX_NUMEROS else {}),
        **({} if f.y is None and filas > MAX_NUMEROS else _ticks(etiquetas_y)),
    }
    if categorias:  # las marcas por nombre: con índices, una palabra «1» se confundiría con la posición 1
        for eje, nombres in ((lienzo.ejes[kx], trazo["x"]), (lienzo.ejes[ky], trazo["y"])):
            eje["type"] = "category"
            if "tickvals" in eje:
                eje["tickvals"] = [nombres[i] for i in eje["tickvals"]]
    if not f.ejes:
        lienzo.ejes[kx]["visible"] = lienzo.ejes[ky]["visible"] = False
    if f.cuadrado:
        lienzo.ejes[ky] |= {"scaleanchor": xa, "constrain": "domain"}
        lienzo.ejes[kx]["constrain"] = "domain"


def _linea(nombre: str, x, y, xa: str, ya: str, color: str, punteada: bool) -> dict:
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


def _barras(f: Barras, lienzo: _Lienzo, k: int, dom_x, dom_y) -> None:
    xa, ya, kx, ky = _nombres(k)
    n = len(f.categorias)
    posiciones = list(range(n))
    for s in f.series:
        cat, val = ("y", "x") if f.horizontal else ("x", "y")
        lienzo.datos.append(
            {
                "type": "bar",
                cat: posiciones,
                val: _lista(s.valores),
                "orientation": "h" if f.horizontal else "v",
                "xaxis": xa,
                "yaxis": ya,
                "name": s.nombre,
                "marker": {"color": list(s.colores) if s.colores else s.color},
                "text": f.textos(s),
                "textposition": "outside",
                "cliponaxis": False,
                "constraintext": "none",  # el número sobre una barra angosta no se achica hasta no leerse
                "textfont": {"size": 14 if n <= 12 else 11},
                "customdata": [
                    [_plano(c), numero(v, ".3f"), t]
                    for c, v, t in zip(f.categorias, s.valores, f.textos(s), strict=True)
                ],
                "hovertemplate": _plantilla(
                    f.pista, c="%{customdata[0]}", s=s.nombre, v="%{customdata[1]}", t="%{customdata[2]}"
                ),
            }
        )
    for r in f.referencias:
        xs, ys = [-0.5, n - 0.5], [r.valor, r.valor]
        lienzo.datos.append(_linea(r.texto, *((ys, xs) if f.horizontal else (xs, ys)), xa, ya, r.color, r.punteada))
    lienzo.leyenda |= len(f.series) > 1 or bool(f.referencias)
    eje_cat = {"title": {"text": f.eje_x}, "domain": None, "showgrid": False, **_ticks(f.categorias, 32)}
    eje_cat["automargin"] = True  # una categoría larga al lado de barras horizontales («LayerNorm») no se corta
    eje_val = {"title": {"text": f.eje_y}, "domain": None, "gridcolor": "#eeeeee", "zeroline": True}
    if f.rango:
        eje_val["range"] = list(f.rango)
    eje_x, eje_y = (eje_val, eje_cat) if f.horizontal else (eje_cat, eje_val)
    if f.horizontal:
        eje_y["autorange"] = "reversed"
    lienzo.ejes[kx] = eje_x | {"domain": dom_x}
    lienzo.ejes[ky] = eje_y | {"domain": dom_y}


_MODOS = {"lineas+puntos": "lines+markers", "lineas": "lines", "puntos": "markers", "punteada": "lines"}


def _curvas(f: Curvas, lienzo: _Lienzo, k: int, dom_x, dom_y) -> None:
    xa, ya, kx, ky = _nombres(k)
    xs = np.concatenate([c.x for c in f.curvas]) if f.curvas else np.array([1.0, 10.0])
    ys = np.concatenate([c.y for c in f.curvas]) if f.curvas else np.array([1.0, 10.0])
    ys = ys[np.isfinite(ys)]
    for c in f.curvas:
        lienzo.datos.append(
            {
                "type": "scatter",
                "x": _lista(c.x),
                "y": _lista(c.y),
                "xaxis": xa,
                "yaxis": ya,
                "mode": _MODOS.get(c.estilo, "lines+markers"),
                "name": c.nombre,
                "line": {"color": c.color, "width": 2.2, "dash": "dot" if c.estilo == "punteada" else "solid"},
                "marker": {"color": c.color, "size": 7},
                "hovertemplate": _plantilla(f.pista, n=c.nombre, x="%{x}", y=f"%{{y:{f.formato}}}"),
            }
        )
    x_ext = [float(np.nanmin(xs)), float(np.nanmax(xs))] if xs.size else [0, 1]
    y_ext = list(f.rango_y) if f.rango_y else ([float(ys.min()), float(ys.max())] if ys.size else [0, 1])
    for r in f.horizontales:
        lienzo.datos.append(_linea(r.texto, x_ext, [r.valor] * 2, xa, ya, r.color, r.punteada))
    for r in f.verticales:
        lienzo.datos.append(_linea(r.texto, [r.valor] * 2, y_ext, xa, ya, r.color, r.punteada))
    for n in f.notas:
        lienzo.datos.append(
            {
                "type": "scatter",
                "x": [n.x],
                "y": [n.y],
                "xaxis": xa,
                "yaxis": ya,
                "mode": "markers+text" if n.marca else "text",
                "text": [n.texto],
                "textposition": "middle right",
                "textfont": {"color": n.color, "size": 14},
                "marker": {"color": n.color, "size": 9, "symbol": "square"},
                "showlegend": False,
                "hovertemplate": n.texto + "<extra></extra>",
            }
        )
    lienzo.leyenda |= len(f.curvas) + len(f.horizontales) + len(f.verticales) > 1
    eje_x = {"domain": dom_x, "title": {"text": f.eje_x}, "type": "log" if f.log_x else "linear", "gridcolor": "#eee"}
    if f.marcas_x is not None:
        textos = [numero(v, ",.0f") for v in f.marcas_x]
        eje_x |= {"tickmode": "array", "tickvals": list(f.marcas_x), "ticktext": textos}
    eje_y = {"domain": dom_y, "title": {"text": f.eje_y}, "type": "log" if f.log_y else "linear", "gridcolor": "#eee"}
    if f.rango_y:
        eje_y["range"] = [float(np.log10(v)) for v in f.rango_y] if f.log_y else list(f.rango_y)
    lienzo.ejes[kx], lienzo.ejes[ky] = eje_x, eje_y
    if not f.curvas and f.mensaje:
        _mensaje(f.mensaje, lienzo, dom_x, dom_y)


def _histograma(f: Histograma, lienzo: _Lienzo, k: int, dom_x, dom_y) -> None:
    xa, ya, kx, ky = _nombres(k)
    centros = (f.bordes[:-1] + f.bordes[1:]) / 2
    ancho = float(np.diff(f.bordes).mean()) if len(f.bordes) > 1 else 1.0
    for s in f.series:
        lienzo.datos.append(
            {
                "type": "bar",
                "x": _lista(centros),
                "y": _lista(s.valores),
                "width": ancho,
                "xaxis": xa,
                "yaxis": ya,
                "name": s.nombre,
                "opacity": 0.8,
                "marker": {"color": s.color, "line": {"width": 0}},
                "hovertemplate": f"{s.nombre}<br>puntaje ≈ %{{x:.2f}}: %{{y}} valores<extra></extra>",
            }
        )
    lienzo.leyenda |= len(f.series) > 1
    lienzo.ejes[kx] = {"domain": dom_x, "title": {"text": f.eje_x}, "gridcolor": "#eee"}
    lienzo.ejes[ky] = {"domain": dom_y, "title": {"text": f.eje_y}, "gridcolor": "#eee"}


def _uri(rgb: np.ndarray) -> str:
    """Píxeles -> data URI: JPEG para fotos (un PNG de 224 × 224 pesa 100–200 kB), PNG si es chica."""
    from PIL import Image as PILImage

    buffer = io.BytesIO()
    foto = rgb.shape[0] * rgb.shape[1] > MAX_PIXELES_MAPA
    imagen = PILImage.fromarray(rgb)
    if not foto:  # con ≤ 256 colores, PNG con paleta: un byte por píxel, los mismos colores (un tercio del PNG)
        colores, indices = np.unique(rgb.reshape(-1, 3), axis=0, return_inverse=True)
        if len(colores) <= 256:
            imagen = PILImage.fromarray(indices.reshape(rgb.shape[:2]).astype(np.uint8), "P")
            imagen.putpalette(colores.astype(np.uint8).ravel().tolist())
    imagen.save(buffer, format="jpeg" if foto else "png", quality=90)
    tipo = "jpeg" if foto else "png"
    return f"data:image/{tipo};base64," + base64.b64encode(buffer.getvalue()).decode()


def _imagen(f: Imagen, lienzo: _Lienzo, k: int, dom_x, dom_y, con_barra: bool) -> None:
    xa, ya, kx, ky = _nombres(k)
    alto, ancho = f.pixeles.shape[:2]
    if not f.rgb and alto * ancho <= MAX_PIXELES_MAPA:
        lienzo.datos.append(
            {
                "type": "heatmap",
                "z": _lista(f.pixeles),
                "xaxis": xa,
                "yaxis": ya,
                "zmin": 0,
                "zmax": 1,
                "colorscale": ESCALAS["grises"],
                "showscale": False,
                "hovertemplate": "píxel (fila %{y}, columna %{x}): tinta %{z:.2f}<extra></extra>",
            }
        )
    else:
        rgb = f.pixeles if f.rgb else (255 * (1 - np.clip(f.pixeles, 0, 1))).astype(np.uint8)[..., None].repeat(3, 2)
        lienzo.datos.append(
            {
                "type": "image",
                "source": _uri(np.ascontiguousarray(rgb, dtype=np.uint8)),
                "xaxis": xa,
                "yaxis": ya,
                "hoverinfo": "skip",
            }
        )
    if f.capa is not None:
        h, w = f.capa.shape
        x0, y0, x1, y1 = f.extension_capa()
        trazo = {
            "type": "heatmap",
            "z": _lista(f.capa),
            "x0": x0 + (x1 - x0) / w / 2,
            "dx": (x1 - x0) / w,
            "y0": y0 + (y1 - y0) / h / 2,
            "dy": (y1 - y0) / h,
            "xaxis": xa,
            "yaxis": ya,
            "zmin": 0,
            "zmax": f.vmax,
            "opacity": f.opacidad,
            "colorscale": ESCALAS["azul"],
            "showscale": bool(con_barra and f.barra),
            "hoverongaps": False,
            "hovertemplate": _plantilla(f.pista, v="%{z:" + f.formato + "}"),
        }
        if f.numeros_capa:
            trazo |= {"text": f.textos_capa(), "texttemplate": "%{text}", "textfont": {"size": 11}}
        if trazo["showscale"]:
            trazo["colorbar"] = _barra_color(f.barra, dom_x, dom_y)
        lienzo.datos.append(trazo)
    if f.rejilla:
        for c in range(0, ancho + 1, f.rejilla):
            lienzo.formas.append(_segmento(xa, ya, c - 0.5, -0.5, c - 0.5, alto - 0.5, f.color_rejilla, 1))
        for r in range(0, alto + 1, f.rejilla):
            lienzo.formas.append(_segmento(xa, ya, -0.5, r - 0.5, ancho - 0.5, r - 0.5, f.color_rejilla, 1))
    for x0, y0, x1, y1 in f.recuadros:
        lienzo.formas.append(
            {"type": "rect", "xref": xa, "yref": ya, "x0": x0, "y0": y0, "x1": x1, "y1": y1}
            | {"line": {"color": C1, "width": 3}}
        )
    for n in f.rotulos:
        lienzo.notas.append(
            {
                "x": n.x,
                "y": n.y,
                "xref": xa,
                "yref": ya,
                "text": n.texto,
                "showarrow": False,
                "font": {"color": "white", "size": 11},
                "bgcolor": n.color if n.color != "#333333" else C0,
                "borderpad": 1,
            }
        )
    oculto = {"visible": False, "showgrid": False, "zeroline": False}
    lienzo.ejes[kx] = oculto | {"domain": dom_x, "range": [-0.5, ancho - 0.5], "constrain": "domain"}
    lienzo.ejes[ky] = oculto | {"domain": dom_y, "range": [alto - 0.5, -0.5]}
    # Píxeles cuadrados, salvo `estirar`: entonces hay que decirlo (una traza de imagen los cuadra sola).
    lienzo.ejes[ky] |= {"scaleanchor": False} if f.estirar else {"scaleanchor": xa, "constrain": "domain"}


def _segmento(xa, ya, x0, y0, x1, y1, color, ancho) -> dict:
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


def _diagrama(f: Diagrama, lienzo: _Lienzo, k: int, dom_x, dom_y) -> None:
    xa, ya, kx, ky = _nombres(k)
    for c in f.cajas:
        color = C1 if c.resaltada else C0
        lienzo.formas.append(
            {
                "type": "circle" if c.redonda else "rect",
                "xref": xa,
                "yref": ya,
                "x0": c.x - c.ancho / 2,
                "x1": c.x + c.ancho / 2,
                "y0": c.y - c.alto / 2,
                "y1": c.y + c.alto / 2,
                "line": {"color": color, "width": 2},
                "fillcolor": "#fff4e8" if c.resaltada else "#eef4fa",
                "layer": "below",
            }
        )
        lienzo.notas.append(
            {"x": c.x, "y": c.y, "xref": xa, "yref": ya, "text": c.texto, "showarrow": False, "font": {"size": 15}}
        )
        if c.nota:
            lienzo.notas.append(
                {
                    "x": c.x + c.ancho / 2 + 0.25,
                    "y": c.y,
                    "xref": xa,
                    "yref": ya,
                    "text": c.nota,
                    "showarrow": False,
                    "xanchor": "left",
                    "font": {"size": 13, "color": "#595959"},
                }
            )
    for fl in f.flechas:
        puntos = [(fl.x0, fl.y0), *fl.codos, (fl.x1, fl.y1)]
        for (a, b), (c, d) in itertools.pairwise(puntos[:-1]):
            lienzo.formas.append(_segmento(xa, ya, a, b, c, d, fl.color, 2))
        (a, b), (c, d) = puntos[-2], puntos[-1]
        lienzo.notas.append(
            {
                "x": c,
                "y": d,
                "ax": a,
                "ay": b,
                "xref": xa,
                "yref": ya,
                "axref": xa,
                "ayref": ya,
                "showarrow": True,
                "arrowhead": 2,
                "arrowwidth": 2,
                "arrowcolor": fl.color,
                "text": "",
            }
        )
        if fl.texto:
            (a, b), (c, d) = puntos[fl.tramo], puntos[fl.tramo + 1]
            lienzo.notas.append(
                {
                    "x": (a + c) / 2 - 0.3,
                    "y": (b + d) / 2,
                    "xref": xa,
                    "yref": ya,
                    "text": fl.texto,
                    "textangle": -90,
                    "showarrow": False,
                    "font": {"color": fl.color, "size": 13},
                }
            )
    # Un punto invisible en cada caja: al pasar el ratón dice la caja y su nota.
    lienzo.datos.append(
        {
            "type": "scatter",
            "x": [c.x for c in f.cajas],
            "y": [c.y for c in f.cajas],
            "xaxis": xa,
            "yaxis": ya,
            "mode": "markers",
            "marker": {"size": 28, "opacity": 0},
            "text": [c.texto + (f": {c.nota}" if c.nota else "") for c in f.cajas],
            "hovertemplate": "%{text}<extra></extra>",
            "showlegend": False,
        }
    )
    oculto = {"visible": False, "showgrid": False, "zeroline": False}
    lienzo.ejes[kx] = oculto | {"domain": dom_x, "range": [0, f.ancho]}
    lienzo.ejes[ky] = oculto | {"domain": dom_y, "range": [0, f.alto]}


def _mensaje(texto: str, lienzo: _Lienzo, dom_x, dom_y) -> None:
    lienzo.notas.append(
        {
            "x": (dom_x[0] + dom_x[1]) / 2,
            "y": (dom_y[0] + dom_y[1]) / 2,
            "xref": "paper",
            "yref": "paper",
            "text": texto,
            "showarrow": False,
            "font": {"size": 16, "color": "#666666"},
        }
    )


def _aviso(f: Aviso, lienzo: _Lienzo, k: int, dom_x, dom_y) -> None:
    _, _, kx, ky = _nombres(k)
    oculto = {"visible": False, "showgrid": False, "zeroline": False}
    lienzo.ejes[kx] = oculto | {"domain": dom_x}
    lienzo.ejes[ky] = oculto | {"domain": dom_y}
    _mensaje(f.mensaje, lienzo, dom_x, dom_y)


def _panel(f, lienzo: _Lienzo, k: int, dom_x, dom_y, con_barra: bool) -> None:
    if isinstance(f, Mapa):
        _mapa(f, lienzo, k, dom_x, dom_y, con_barra)
    elif isinstance(f, Imagen):
        _imagen(f, lienzo, k, dom_x, dom_y, con_barra)
    elif isinstance(f, Barras):
        _barras(f, lienzo, k, dom_x, dom_y)
    elif isinstance(f, Curvas):
        _curvas(f, lienzo, k, dom_x, dom_y)
    elif isinstance(f, Histograma):
        _histograma(f, lienzo, k, dom_x, dom_y)
    elif isinstance(f, Diagrama):
        _diagrama(f, lienzo, k, dom_x, dom_y)
    elif isinstance(f, Aviso):
        _aviso(f, lienzo, k, dom_x, dom_y)
    else:
        raise TypeError(f"No es una figura: {type(f).__name__}")


def alto_de(f) -> int:
    """Alto en píxeles de pantalla para la figura `f`."""
    if isinstance(f, Paneles):
        return f.filas * f.alto_fila + (70 if f.titulo else 30)
    if isinstance(f, Mapa):
        return int(np.clip(110 + 42 * f.matriz.shape[0], 340, 620))
    return {Diagrama: 560, Aviso: 260, Imagen: 420}.get(type(f), 400)


def _dominios(p: Paneles, hueco_x: float, hueco_y: float) -> list[tuple[list[float], list[float]]]:
    anchos = np.asarray(p.anchos or [1.0] * p.columnas, dtype=float)
    libre = 1 - hueco_x * (p.columnas - 1)
    bordes_x = np.concatenate([[0], np.cumsum(anchos / anchos.sum() * libre)])
    alto = (1 - hueco_y * (p.filas - 1)) / p.filas
    dominios = []
    for k in range(len(p.paneles)):
        fila, col = divmod(k, p.columnas)
        x0 = bordes_x[col] + hueco_x * col
        y1 = 1 - fila * (alto + hueco_y)
        x1 = x0 + bordes_x[col + 1] - bordes_x[col]
        dominios.append(([round(x0, 4), round(x1, 4)], [round(y1 - alto, 4), round(y1, 4)]))
    return dominios


def _lineas_de_mas_arriba(figura) -> int:
    """Cuántas líneas de más tiene el título más alto de los paneles de arriba (van sobre su panel)."""
    if not isinstance(figura, Paneles):
        return 0
    return max(getattr(f, "titulo", "").count("\n") for f in figura.paneles[: figura.columnas])


def a_plotly(figura) -> dict:
    """La descripción `figura` -> {"data", "layout", "config"} de Plotly."""
    lienzo = _Lienzo()
    alto = alto_de(figura)
    if isinstance(figura, Paneles):
        barras = [k for k, f in enumerate(figura.paneles) if getattr(f, "barra", None) and isinstance(f, Mapa | Imagen)]
        propias = len({getattr(figura.paneles[k], "colores", "") for k in barras}) > 1  # una barra por panel
        hueco_x = 0.16 if propias else 0.1
        dominios = _dominios(figura, hueco_x, min(0.3, 60 / alto * figura.filas / max(1, figura.filas - 1) * 0.9))
        for k, (f, (dx, dy)) in enumerate(zip(figura.paneles, dominios, strict=True), start=1):
            # Una sola barra de color si todos los mapas comparten escala: la del último.
            _panel(f, lienzo, k, dx, dy, con_barra=figura.con_barra()[k - 1])
            if getattr(f, "titulo", ""):
                lienzo.notas.append(
                    {
                        "x": (dx[0] + dx[1]) / 2,
                        "y": dy[1],
                        "xref": "paper",
                        "yref": "paper",
                        "xanchor": "center",  # si no, Plotly lo alinea a la izquierda fuera del tercio central
                        "yanchor": "bottom",
                        "text": f.titulo,
                        "showarrow": False,
                        "font": {"size": LETRA if figura.columnas < 3 else LETRA - 2},
                    }
                )
        for k in range(2, len(figura.paneles) + 1):
            xa, ya, kx, ky = _nombres(k)
            # Cada eje cruza su propio panel: sin `anchor`, Plotly pone las marcas y el título del eje x de
            # un panel de abajo al pie del primero (y las del eje y de uno a la derecha, junto al primero).
            lienzo.ejes[kx]["anchor"], lienzo.ejes[ky]["anchor"] = ya, xa
            if figura.compartir_x:
                lienzo.ejes[kx]["matches"] = "x"
            if figura.compartir_y:
                lienzo.ejes[ky]["matches"] = "y"
        titulo = figura.titulo
    else:
        _panel(figura, lienzo, 1, [0, 1], [0, 1], con_barra=True)
        titulo = getattr(figura, "titulo", "")
    layout = {
        "height": alto,
        "font": {"family": FUENTE, "size": LETRA, "color": "#222222"},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "margin": {
            "l": 70,
            "r": 40,
            "t": (70 + 22 * titulo.count("\n") if titulo else 40) + 22 * _lineas_de_mas_arriba(figura),
            "b": 100 if lienzo.leyenda else 70,
        },
        "separators": ".\u202f",
        "showlegend": lienzo.leyenda,
        # Al pie de la figura, bajo el título del eje x (a −0.12 del alto del panel lo pisaba).
        "legend": {"orientation": "h", "x": 0.5, "xanchor": "center", "yref": "container", "y": 0, "yanchor": "bottom"},
        "hoverlabel": {"font": {"size": LETRA}},
        "barmode": "group",
        "annotations": lienzo.notas,
        "shapes": lienzo.formas,
        **lienzo.ejes,
    }
    if any(t.get("type") == "bar" and t.get("opacity") for t in lienzo.datos):
        layout["barmode"] = "overlay"
    if titulo:
        layout["title"] = {"text": titulo, "x": 0.5, "xanchor": "center", "font": {"size": LETRA_TITULO}}
    _sin_repetir_leyenda(lienzo.datos)
    return {"data": lienzo.datos, "layout": _saltos(layout), "config": CONFIG}


def _saltos(valor):
    """«\\n» en títulos, rótulos y marcas -> «<br>»: Plotly cambia «\\n» por un espacio (matplotlib no)."""
    if isinstance(valor, str):
        return valor.replace("\n", "<br>")
    if isinstance(valor, dict):
        return {k: _saltos(v) for k, v in valor.items()}
    if isinstance(valor, list):
        return [_saltos(v) for v in valor]
    return valor


def _sin_repetir_leyenda(datos: list[dict]) -> None:
    """Un nombre sale una vez en la leyenda (p. ej. la misma referencia en dos paneles); la entrada
    muestra u oculta todos los trazos con ese nombre."""
    vistos = set()
    for t in datos:
        if t.get("type") in ("scatter", "bar") and t.get("showlegend", True) and t.get("name"):
            t["legendgroup"] = t["name"]
            if t["name"] in vistos:
                t["showlegend"] = False
            vistos.add(t["name"])


def a_json(figura) -> str:
    return json.dumps(a_plotly(figura), ensure_ascii=False, separators=(",", ":"))


def a_plot(figura):
    """La descripción -> el valor que `gr.Plot` manda al navegador tal cual (sin pasar por plotly.py)."""
    from gradio.components.plot import PlotData

    return PlotData(type="plotly", plot=a_json(figura))
