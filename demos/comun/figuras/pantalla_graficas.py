"""Dibujante de pantalla de las barras, curvas, histogramas, diagramas y avisos."""

from __future__ import annotations

import itertools
import textwrap

import numpy as np

from demos.comun.figuras import C0, C1, LADOS_DE_NOTA, Aviso, Barras, Curvas, Diagrama, Histograma, numero
from demos.comun.figuras.pantalla_lienzo import (
    ANCHO_DE_LETRA,
    ANCHO_LETRA,
    LETRA,
    LETRA_MENSAJE,
    LETRA_MINIMA,
    MARGEN_IZQUIERDO,
    OCULTO,
    REJILLA,
    TEXTO_EN_CAJA,
    TEXTO_GRIS,
    TEXTO_SUAVE,
    Lienzo,
    a_lista,
    ejes_de,
    linea_ref,
    plantilla,
    segmento,
    texto_plano,
    ticks,
)


def _con_margen(lienzo: Lienzo, eje: str = "y") -> dict:
    """En un teléfono, el margen de cada eje crece hasta que caben sus marcas y su título: con el margen fijo de
    45 px, «Exactitud (%)» pisaba el «100» de sus marcas y el título del eje x, las marcas inclinadas.

    El eje x, también en pantalla ancha: sin `automargin`, Plotly pone su título a una distancia fija de la línea
    del eje (10 px + 1.5 veces su letra), sin mirar cuánto bajan las marcas, y con marcas de 15 px el título pisaba
    sus números («Largo de la frase L» en memoria, «Paso» en la inversión). Con `automargin` va debajo de las
    marcas; el margen de abajo solo crece si no cabe."""
    return {"automargin": True} if lienzo.ancho_px or eje == "x" else {}


def barras(f: Barras, lienzo: Lienzo, k: int, dom_x, dom_y, con_barra: bool = False) -> None:
    xa, ya, kx, ky = ejes_de(k)
    n = len(f.categorias)
    posiciones = list(range(n))
    tam = 14 if n <= 12 else 11
    if lienzo.ancho_px and not f.horizontal and f.numeros:  # en un teléfono, el número cabe sobre su barra o no va
        tam = _letra_sobre_la_barra(f, tam, lienzo.ancho_px * (dom_x[1] - dom_x[0]) / (n * len(f.series)))
    acostadas = _acostadas_en_telefono(f, lienzo, tam, dom_x) if lienzo.ancho_px and f.horizontal else None
    for j, s in enumerate(f.series):
        cat, val = ("y", "x") if f.horizontal else ("x", "y")
        textos = (acostadas[2][j] if acostadas else f.textos(s)) if tam >= LETRA_MINIMA else [""] * n
        lienzo.datos.append(
            {
                "type": "bar",
                cat: posiciones,
                val: a_lista(s.valores),
                "orientation": "h" if f.horizontal else "v",
                "xaxis": xa,
                "yaxis": ya,
                "name": s.nombre,
                # Sola (y sin referencias), su nombre es el título del eje y: en la leyenda que deja otro panel, la
                # «probabilidad» de CBAM salía con el color de su primera barra, el mismo de «solo la media».
                **({"showlegend": False} if len(f.series) == 1 and not f.referencias else {}),
                "marker": {"color": list(s.colores) if s.colores else s.color},
                "text": textos,
                # Una barra horizontal larga en un teléfono lleva su número adentro si cabe: afuera se cortaba.
                "textposition": acostadas[0][j] if acostadas else "outside",
                "cliponaxis": False,
                **({"textangle": 0} if acostadas else {}),  # adentro, derecho: Plotly lo giraba para que cupiera
                "constraintext": "none",  # el número sobre una barra angosta no se achica hasta no leerse
                "textfont": {"size": tam},
                "customdata": [
                    [texto_plano(c), numero(v, ".3f"), t]
                    for c, v, t in zip(f.categorias, s.valores, f.textos(s), strict=True)
                ],
                "hovertemplate": plantilla(
                    f.pista, c="%{customdata[0]}", s=s.nombre, v="%{customdata[1]}", t="%{customdata[2]}"
                ),
            }
        )
    for r in f.referencias:
        xs, ys = [-0.5, n - 0.5], [r.valor, r.valor]
        lienzo.datos.append(linea_ref(r.texto, *((ys, xs) if f.horizontal else (xs, ys)), xa, ya, r.color, r.punteada))
    lienzo.leyenda |= len(f.series) > 1 or bool(f.referencias)
    eje_cat = {"title": {"text": f.eje_x}, "domain": None, "showgrid": False}
    eje_cat |= _marcas_de_categorias(f, lienzo, dom_x, kx)
    eje_cat["automargin"] = True  # una categoría larga al lado de barras horizontales («LayerNorm») no se corta
    eje_val = {"title": {"text": f.eje_y}, "domain": None, "gridcolor": REJILLA, "zeroline": True}
    if acostadas:
        # Pocas marcas: en los ≈ 136 px de un teléfono de 360, «0 10k20k30k40k» se tocaban.
        eje_val |= {"range": [f.rango[0] if f.rango else 0, acostadas[1]], "nticks": 4}
    elif f.rango:
        eje_val["range"] = list(f.rango)
    eje_x, eje_y = (eje_val, eje_cat) if f.horizontal else (eje_cat, eje_val)
    if f.horizontal:
        eje_y["autorange"] = "reversed"
    lienzo.ejes[kx] = eje_x | {"domain": dom_x} | _con_margen(lienzo, "x")
    lienzo.ejes[ky] = eje_y | {"domain": dom_y} | _con_margen(lienzo)


def _letra_sobre_la_barra(f: Barras, tam: int, barra_px: float) -> int:
    """En un teléfono de 390 px, la letra del número sobre una barra de pie que mide `barra_px` (una cifra mide
    ANCHO_LETRA de la letra). El navegador no la rehace con el ancho de verdad, a diferencia de los números de las
    casillas (maqueta.mjs, numerosDelTelefono): sobre una barra, el número puede ocupar el lugar de las de al lado
    sin número (CBAM: «96 %» sobre la barra del 2, a 9 px, también a 360), y esa regla no lo sabe."""
    largo = max((len(t) for s in f.series for t in f.textos(s)), default=0)
    return tam if largo == 0 else min(tam, int(barra_px / (ANCHO_LETRA * largo)))


def _en_dos_lineas(texto: str) -> str:
    """En un teléfono, el número de una barra acostada en dos líneas («33 088<br>(66.2%)»): en una (118 px), a
    360 px no cabía en la barra más larga (101 px) y, afuera, se salía de la figura por la derecha."""
    return "<br>".join(texto.rsplit(" ", 1)) if len(texto) > 8 else texto


ANGOSTA = 30  # lo que la figura de un teléfono de 360 px tiene de menos que la de uno de 390, para la que se arma


def _acostadas_en_telefono(f: Barras, lienzo: Lienzo, tam: int, dom_x) -> tuple[list, float, list] | None:
    """En un teléfono, el número de cada barra acostada va adentro si cabe en ella a 360 px, y si no, afuera; el
    eje de valores (el `rango` de la figura, o poco más que la barra más larga) llega hasta donde cabe el de
    afuera, también a 360 px. -> (la posición de cada número, por serie; el tope del eje; los números en dos
    líneas, por serie), o None (valores negativos, o sin números: como en la pantalla ancha).

    Con «auto», Plotly lo decidía con el ancho que tuviera: a 360 px, «33 088 (66.2%)» dejaba su barra y se salía
    de la figura. El área se estima como la mide Chromium: los nombres de las categorías (0.6 de su letra cada
    letra, y 32 px de marcas) corren el margen izquierdo, y la última marca del eje asoma ≈ 20 px a la derecha."""
    valores = [v for s in f.series for v in np.asarray(s.valores, float)]
    if not f.numeros or not valores or min(valores) < 0 or max(valores) <= 0:
        return None
    nombres = ANCHO_DE_LETRA * LETRA * max(len(texto_plano(c)) for c in f.categorias) + 32
    area = (lienzo.ancho_px - ANGOSTA) * (dom_x[1] - dom_x[0]) - max(0.0, nombres - MARGEN_IZQUIERDO) - 20
    textos = [[_en_dos_lineas(t) for t in f.textos(s)] for s in f.series]
    anchos = [[max(map(len, t.split("<br>"))) * ANCHO_DE_LETRA * tam + 10 for t in fila] for fila in textos]
    tope = f.rango[1] if f.rango else 1.05 * max(valores)
    for _ in range(4):  # un tope más alto achica las barras: alguna de adentro puede pasar afuera
        lados = [
            ["inside" if v / tope * area >= a else "outside" for v, a in zip(s.valores, fila, strict=True)]
            for s, fila in zip(f.series, anchos, strict=True)
        ]
        pide = [
            v * area / (area - a)
            for s, fila, lado in zip(f.series, anchos, lados, strict=True)
            for v, a, donde in zip(s.valores, fila, lado, strict=True)
            if donde == "outside" and area > a
        ]
        if max(pide, default=0.0) <= tope:
            return lados, round(tope, 6), textos
        tope = max(pide)
    return lados, round(tope, 6), textos


def _marcas_de_categorias(f: Barras, lienzo: Lienzo, dom_x, kx: str) -> dict:
    """Las marcas del eje de categorías. En un teléfono, con barras de pie, nombres cortos (los 32 canales de CBAM)
    derechos y largos de pie (-90) si no caben derechos; el navegador deja uno cada tantos si no caben sin pisarse
    (#37; maqueta.mjs, marcasQueCaben). Inclinados por Plotly, los 32 números se amontonaban en 270 px."""
    if f.horizontal or not f.categorias:
        return ticks(f.categorias, 32)
    if not lienzo.ancho_px:
        # Un poco más abajo, como en un teléfono: derechos (maqueta.mjs deja uno cada tantos si no caben), el
        # nombre de la primera barra tocaba el «0» del eje y, en la esquina (CBAM, los 32 canales).
        return ticks(f.categorias, 32) | {"ticklabelstandoff": 10}
    # Todas (como en la ancha): el navegador deja las que caben con el ancho de verdad (maqueta.mjs, marcasQueCaben);
    # aquí, lo que se llevan del ancho del panel las marcas del eje y y su título.
    lienzo.marcas[kx] = round(0.15 * lienzo.ancho_px * float(dom_x[1] - dom_x[0]), 1)
    if max(len(c) for c in f.categorias) <= 3:
        # Derechos, y un poco más abajo: el nombre de la primera barra tocaba el 0 del eje y, en la esquina (CBAM, #37).
        return ticks(f.categorias, 32) | {"tickangle": 0, "ticklabelstandoff": 10}
    # Largos: derechos si caben con el ancho de verdad, y si no, de pie (Plotly elige: `autotickangles`). Siempre
    # de pie, en temperatura «plata», «sacó», «Ana», «del» iban de lado a 390 px, donde caben derechas.
    return ticks(f.categorias, 32) | {"autotickangles": [0, -90]}


_MODOS = {"lineas+puntos": "lines+markers", "lineas": "lines", "puntos": "markers", "punteada": "lines"}


def curvas(f: Curvas, lienzo: Lienzo, k: int, dom_x, dom_y, con_barra: bool = False) -> None:
    xa, ya, kx, ky = ejes_de(k)
    xs = np.concatenate([c.x for c in f.curvas]) if f.curvas else np.array([1.0, 10.0])
    ys = np.concatenate([c.y for c in f.curvas]) if f.curvas else np.array([1.0, 10.0])
    ys = ys[np.isfinite(ys)]
    for c in f.curvas:
        lienzo.datos.append(
            {
                "type": "scatter",
                "x": a_lista(c.x),
                "y": a_lista(c.y),
                "xaxis": xa,
                "yaxis": ya,
                "mode": _MODOS.get(c.estilo, "lines+markers"),
                "name": c.nombre,
                "line": {"color": c.color, "width": 2.2, "dash": "dot" if c.estilo == "punteada" else "solid"},
                "marker": {"color": c.color, "size": 7},
                "hovertemplate": plantilla(f.pista, n=c.nombre, x="%{x}", y=f"%{{y:{f.formato}}}"),
            }
        )
    x_ext = [float(np.nanmin(xs)), float(np.nanmax(xs))] if xs.size else [0, 1]
    y_ext = list(f.rango_y) if f.rango_y else ([float(ys.min()), float(ys.max())] if ys.size else [0, 1])
    for r in f.horizontales:
        lienzo.datos.append(linea_ref(r.texto, x_ext, [r.valor] * 2, xa, ya, r.color, r.punteada))
    for r in f.verticales:
        lienzo.datos.append(linea_ref(r.texto, [r.valor] * 2, y_ext, xa, ya, r.color, r.punteada))
    en_la_leyenda = {r.texto for r in (*f.horizontales, *f.verticales)}
    for n in f.notas:
        texto, lado = n.texto, f"{LADOS_DE_NOTA[n.lado]} right"
        if lienzo.ancho_px:  # en un teléfono: lo que la leyenda ya nombra no se repite, y nada se sale por la derecha
            if not n.marca and texto in en_la_leyenda:
                texto = ""  # «GPU de 16 GB» y «GPU de 80 GB» quedaban una encima de la otra
            elif _fraccion(n.x, x_ext, f.log_x) > 0.5:
                lado = "top left"  # «40 000.00 MB», a la derecha del último punto, se cortaba
        elif _fraccion(n.x, x_ext, f.log_x) > 0.75:  # ancha: «40 000.00 MB» también se cortaba a la derecha
            lado = "top left"
        lienzo.datos.append(
            {
                "type": "scatter",
                "x": [n.x],
                "y": [n.y],
                "xaxis": xa,
                "yaxis": ya,
                "mode": "markers+text" if n.marca else "text",
                "text": [texto],
                "textposition": lado,
                "textfont": {"color": n.color, "size": 14},
                "marker": {"color": n.color, "size": 9, "symbol": "square"},
                "showlegend": False,
                "hovertemplate": n.texto + "<extra></extra>",
            }
        )
    lienzo.leyenda |= len(f.curvas) + len(f.horizontales) + len(f.verticales) > 1
    eje_x = {"domain": dom_x, "title": {"text": f.eje_x}, "type": "log" if f.log_x else "linear", "gridcolor": REJILLA}
    # Las marcas del eje x, un poco más abajo: en la esquina, el «0» de x pisaba el «0.3» de y (posición).
    eje_x["ticklabelstandoff"] = 6
    if f.marcas_x is not None:
        valores = _marcas_que_caben(list(f.marcas_x), lienzo, dom_x)
        eje_x |= {"tickmode": "array", "tickvals": valores, "ticktext": [numero(v, ",.0f") for v in valores]}
    eje_y = {"domain": dom_y, "title": {"text": f.eje_y}, "type": "log" if f.log_y else "linear", "gridcolor": REJILLA}
    if f.rango_y:
        eje_y["range"] = [float(np.log10(v)) for v in f.rango_y] if f.log_y else list(f.rango_y)
    lienzo.ejes[kx], lienzo.ejes[ky] = eje_x | _con_margen(lienzo, "x"), eje_y | _con_margen(lienzo)
    if not f.curvas and f.mensaje:
        _mensaje(f.mensaje, lienzo, dom_x, dom_y)


def _marcas_que_caben(valores: list, lienzo: Lienzo, dom_x) -> list:
    """En un teléfono, una de cada k marcas del eje x, las que caben derechas: «1 000 000» y cinco más se
    inclinaban hasta ponerse verticales y se llevaban la mitad del alto del panel."""
    if not lienzo.ancho_px:
        return valores
    ancho = 0.6 * lienzo.ancho_px * (dom_x[1] - dom_x[0])  # el resto, las marcas del eje y y su título
    k = 1
    while k < len(valores) and sum(len(numero(v, ",.0f")) for v in valores[::k]) * ANCHO_DE_LETRA * LETRA > ancho:
        k += 1
    return valores[::k]


def histograma(f: Histograma, lienzo: Lienzo, k: int, dom_x, dom_y, con_barra: bool = False) -> None:
    xa, ya, kx, ky = ejes_de(k)
    centros = (f.bordes[:-1] + f.bordes[1:]) / 2
    ancho = float(np.diff(f.bordes).mean()) if len(f.bordes) > 1 else 1.0
    for s in f.series:
        lienzo.datos.append(
            {
                "type": "bar",
                "x": a_lista(centros),
                "y": a_lista(s.valores),
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
    lienzo.ejes[kx] = {"domain": dom_x, "title": {"text": f.eje_x}, "gridcolor": REJILLA} | _con_margen(lienzo, "x")
    lienzo.ejes[ky] = {"domain": dom_y, "title": {"text": f.eje_y}, "gridcolor": REJILLA} | _con_margen(lienzo)


def _que_quepa(texto: str, ancho_px: float, tam: int, alto_px: float | None = None) -> tuple[str, int]:
    """`texto` partido en una o dos líneas de `ancho_px` con la letra más grande (de `tam` a `LETRA_DIAGRAMA_MINIMA`)
    con que cabe (y cuyas líneas caben en `alto_px`, si se da). Una letra mide 0.6 de su tamaño (0.52 en Chromium)."""
    for lineas in (1, 2):
        for t in range(tam, LETRA_DIAGRAMA_MINIMA - 1, -1):
            if alto_px and lineas * 1.2 * t > alto_px:
                continue
            partido = textwrap.wrap(texto, max(4, int(ancho_px / (ANCHO_DE_LETRA * t))), break_long_words=False)
            if len(partido) <= lineas and max(len(x) for x in partido) * ANCHO_DE_LETRA * t <= ancho_px:
                return "\n".join(partido), t
    return "\n".join(
        textwrap.wrap(texto, max(4, int(ancho_px / (ANCHO_DE_LETRA * LETRA_DIAGRAMA_MINIMA))))
    ), LETRA_DIAGRAMA_MINIMA


def diagrama(f: Diagrama, lienzo: Lienzo, k: int, dom_x, dom_y, con_barra: bool = False) -> None:
    xa, ya, kx, ky = ejes_de(k)
    # En un teléfono (el área mide `ancho_px`), el texto de cada caja y su nota caben a lo ancho: se parten en dos
    # líneas y la letra baja hasta 11 px (en 330 px, «Salida: mismo tamaño» se salía de su caja y pisaba su nota).
    px = lienzo.ancho_px * (dom_x[1] - dom_x[0]) / f.ancho if lienzo.ancho_px else None
    py = lienzo.alto_px * (dom_y[1] - dom_y[0]) / f.alto if px and lienzo.alto_px else None
    for c in f.cajas:
        texto, tam = c.texto, 15
        if px and not c.redonda:
            texto, tam = _que_quepa(c.texto, c.ancho * px - 8, 15, c.alto * py - 2 if py else None)
        nota, tam_nota = c.nota, 13
        if px and c.nota:
            nota, tam_nota = _que_quepa(c.nota, (f.ancho - c.x - c.ancho / 2 - 0.25) * px + MARGEN_DERECHO_TELEFONO, 13)
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
            {"x": c.x, "y": c.y, "xref": xa, "yref": ya, "text": texto, "showarrow": False}
            | {"font": {"size": tam, "color": TEXTO_EN_CAJA}}  # sobre la caja clara, también en modo oscuro
        )
        if c.nota:
            lienzo.notas.append(
                ({"align": "left"} if px else {})  # en dos líneas, las dos pegadas a la caja
                | {
                    "x": c.x + c.ancho / 2 + 0.25,
                    "y": c.y,
                    "xref": xa,
                    "yref": ya,
                    "text": nota,
                    "showarrow": False,
                    "xanchor": "left",
                    "font": {"size": tam_nota, "color": TEXTO_SUAVE},
                }
            )
    for fl in f.flechas:
        puntos = [(fl.x0, fl.y0), *fl.codos, (fl.x1, fl.y1)]
        for (a, b), (c, d) in itertools.pairwise(puntos[:-1]):
            lienzo.formas.append(segmento(xa, ya, a, b, c, d, fl.color, 2))
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
    lienzo.ejes[kx] = OCULTO | {"domain": dom_x, "range": [0, f.ancho]}
    lienzo.ejes[ky] = OCULTO | {"domain": dom_y, "range": [0, f.alto]}


LETRA_DIAGRAMA_MINIMA = 11
MARGEN_DERECHO_TELEFONO = 26  # una nota puede entrar en el margen derecho de la figura de teléfono (30 px)


def _fraccion(x: float, extremos: list[float], log: bool) -> float:
    """Dónde cae `x` entre los extremos del eje, de 0 a 1 (en escala log si el eje lo es)."""
    a, b = extremos
    if log and a > 0 and x > 0:
        a, b, x = np.log10(a), np.log10(b), np.log10(x)
    return float((x - a) / (b - a)) if b != a else 0.5


def _mensaje(texto: str, lienzo: Lienzo, dom_x, dom_y) -> None:
    lienzo.notas.append(
        {
            "x": (dom_x[0] + dom_x[1]) / 2,
            "y": (dom_y[0] + dom_y[1]) / 2,
            "xref": "paper",
            "yref": "paper",
            "text": texto,
            "showarrow": False,
            "font": {"size": LETRA_MENSAJE, "color": TEXTO_GRIS},
        }
    )


def aviso(f: Aviso, lienzo: Lienzo, k: int, dom_x, dom_y, con_barra: bool = False) -> None:
    _, _, kx, ky = ejes_de(k)
    lienzo.ejes[kx] = OCULTO | {"domain": dom_x}
    lienzo.ejes[ky] = OCULTO | {"domain": dom_y}
    _mensaje(f.mensaje, lienzo, dom_x, dom_y)
