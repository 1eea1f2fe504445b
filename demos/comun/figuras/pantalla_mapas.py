"""Dibujante de pantalla de los mapas de calor (`Mapa`) y de las imágenes (`Imagen`)."""

from __future__ import annotations

import base64
import io
import math

import numpy as np

from demos.comun.figuras import C0, C1, MAX_NUMEROS, Imagen, Mapa, maqueta, numero
from demos.comun.figuras import pantalla_angosta as angosta
from demos.comun.figuras.pantalla_lienzo import (
    ANCHO_DE_LETRA,
    ANCHO_LETRA,
    BARRA_A_LA_DERECHA,
    ESCALAS,
    LETRA,
    MARGEN_IZQUIERDO,
    MAX_CASILLAS_NOMBRADAS,
    MAX_CASILLAS_PANTALLA,
    MAX_PIXELES_MAPA,
    OCULTO,
    RENGLON,
    TAPADA,
    TEXTO_GRIS,
    Lienzo,
    a_lista,
    barra_color,
    categorias_unicas,
    ejes_de,
    huella,
    plantilla,
    recordado,
    segmento,
    texto_plano,
    ticks,
)


def _en_bloques(trazo: dict, visibles: np.ndarray, f: Mapa, lienzo: Lienzo, dom_x, dom_y) -> None:
    """Un mapa enorme sin nombres (512 × 512 son 3 MB de JSON) va promediado en bloques de k × k.

    En pantalla no caben más casillas que píxeles: el promedio es lo que se vería. La descarga
    dibuja la matriz completa. Una nota bajo el mapa lo dice.
    """
    filas, columnas = visibles.shape
    k = math.ceil(math.sqrt(filas * columnas / MAX_CASILLAS_PANTALLA))
    bloques = _promedios(visibles, k)  # (⌈filas/k⌉, ⌈columnas/k⌉)
    trazo |= {"z": a_lista(np.round(bloques, 3)), "x0": (k - 1) / 2, "dx": k, "y0": (k - 1) / 2, "dy": k}
    trazo["hovertemplate"] = plantilla(f.pista, y="≈ %{y}", x="≈ %{x}", v="%{z:.3f}").replace(
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
            "font": {"size": 12, "color": TEXTO_GRIS},
        }
    )


def _promedios(visibles: np.ndarray, k: int) -> np.ndarray:
    """El promedio de cada bloque de k × k de una matriz sin NaN; los del borde, de las casillas que tienen.

    Las mismas cuentas que `np.nanmean` de la matriz rellena de NaN hasta un múltiplo de k (la suma de cada
    bloque con el relleno en 0, dividida por cuántas casillas tiene), sin buscar NaN: ≈ 4 veces menos con 512 × 512.
    """
    filas, columnas = visibles.shape
    h, w = -(-filas // k), -(-columnas // k)
    if (h * k, w * k) == (filas, columnas):
        relleno = np.ascontiguousarray(visibles)  # la suma recorre los bloques como la de la matriz rellena
    else:
        relleno = np.zeros((h * k, w * k))
        relleno[:filas, :columnas] = visibles
    sumas = relleno.reshape(h, k, w, k).sum(axis=(1, 3))  # (h, w)
    lados_y = np.minimum(k, filas - k * np.arange(h, dtype=np.intp))
    lados_x = np.minimum(k, columnas - k * np.arange(w, dtype=np.intp))
    return sumas / (lados_y[:, None] * lados_x[None, :])


def ocupado_a_la_izquierda(f: Mapa, lienzo: Lienzo, dom_x, dom_y) -> tuple[float, str]:
    """En un teléfono: (los píxeles del ancho que se llevan los nombres del eje y, su título y la barra de color,
    más allá del margen; el título del eje y partido al alto del panel, donde va de lado)."""
    filas, columnas = f.matriz.shape
    marcas_y = max(map(len, f.etiquetas()[1])) * ANCHO_LETRA * LETRA + (25 if f.eje_y else 0)
    ocupado = max(0.0, marcas_y - MARGEN_IZQUIERDO) + (BARRA_A_LA_DERECHA if lienzo.barra_a_la_derecha else 0)
    eje_y = f.eje_y
    for _ in range(2):  # cada línea más del título se lleva ancho: las casillas, y el panel, se achican
        casilla = lienzo.casilla(dom_x, dom_y, columnas, filas, f.cuadrado, ocupado + RENGLON * eje_y.count("\n"))
        alto = casilla * filas if f.cuadrado else lienzo.alto_px and lienzo.alto_px * (dom_y[1] - dom_y[0])
        eje_y = angosta.partir_de_lado(f.eje_y, alto, round(1.2 * LETRA))
    return ocupado + RENGLON * eje_y.count("\n"), eje_y


def mapa(f: Mapa, lienzo: Lienzo, k: int, dom_x, dom_y, con_barra: bool) -> None:
    xa, ya, kx, ky = ejes_de(k)
    etiquetas_x, etiquetas_y = f.etiquetas()
    nombres_x, nombres_y = f.nombres_x or etiquetas_x, f.nombres_y or etiquetas_y
    filas, columnas = f.matriz.shape
    lo, hi = f.rango()
    visibles = np.where(f.tapada, np.nan, f.matriz) if f.tapada.any() else f.matriz  # sin tapadas, sin copiarla
    tam = 16 if max(filas, columnas) <= 6 else 13 if max(filas, columnas) <= MAX_NUMEROS else 10
    textos = f.textos() if f.con_numeros else []
    eje_y, casilla = f.eje_y, None
    if lienzo.ancho_px:  # en un teléfono, el título del eje y en el alto del panel (va de lado)
        ocupado, eje_y = ocupado_a_la_izquierda(f, lienzo, dom_x, dom_y)
    if textos and lienzo.ancho_px:  # en un teléfono, el ancho de su casilla: el navegador lleva los números a lo
        # que cabe (maqueta.mjs, numerosDelTelefono). Con el margen que corre el panel que más ocupa (uno sin nombres
        # en el eje y es igual de angosto).
        casilla = lienzo.casilla(dom_x, dom_y, columnas, filas, f.cuadrado, max(ocupado, lienzo.ocupado_izquierdo))
    con_numeros = bool(textos)
    # Con filas y columnas sin nombre (0, 1, 2…), x e y ya dicen qué casilla es: sin customdata la respuesta
    # pesa la cuarta parte (un mapa de 50 × 32 con ella, 43 kB; sin ella, 11 kB).
    por_indice = f.x is None and f.y is None and f.nombres_x is None and f.nombres_y is None
    en_bloques = por_indice and not f.tapada.any() and not f.con_numeros and filas * columnas > MAX_CASILLAS_PANTALLA
    trazo = {
        "type": "heatmap",
        "z": None if en_bloques else a_lista(visibles),  # en bloques, la pone `_en_bloques` (512 × 512: 25 ms menos)
        "xaxis": xa,
        "yaxis": ya,
        "zmin": lo,
        "zmax": hi,
        "colorscale": ESCALAS[f.colores],
        "showscale": maqueta.lleva_barra(f, con_barra),
        "xgap": 1 if f.con_numeros else 0,
        "ygap": 1 if f.con_numeros else 0,
        "hoverongaps": False,
    }
    if con_numeros:  # «−∞» de las tapadas lo escribe su capa, encima: aquí iría dos veces en el mismo lugar
        pares = zip(textos, f.tapada, strict=True)
        sueltos = [["" if t else x for x, t in zip(fila, tap, strict=True)] for fila, tap in pares]
        trazo |= {"text": sueltos, "texttemplate": "%{text}", "textfont": {"size": tam}}
    # Muchas casillas con nombre: ejes de categorías, cuyos nombres dice la pista sin repetirlos en cada casilla
    # (32 × 32 palabras: 42 → 11 kB por mapa).
    categorias = not por_indice and filas * columnas > MAX_CASILLAS_NOMBRADAS
    if categorias:
        trazo |= {"x": categorias_unicas(nombres_x), "y": categorias_unicas(nombres_y)}
        trazo["hovertemplate"] = plantilla(f.pista, y="%{y}", x="%{x}", v="%{z:.3f}")
    elif not por_indice:
        trazo["customdata"] = recordado(
            ("pistas", *huella(f.matriz), tuple(nombres_x), tuple(nombres_y)),
            lambda: [
                [
                    [texto_plano(nombres_y[i]), texto_plano(nombres_x[j]), numero(f.matriz[i, j], ".3f")]
                    for j in range(columnas)
                ]
                for i in range(filas)
            ],
        )
        trazo["hovertemplate"] = plantilla(f.pista, y="%{customdata[0]}", x="%{customdata[1]}", v="%{customdata[2]}")
    else:
        trazo["hovertemplate"] = plantilla(f.pista, y="%{y}", x="%{x}", v="%{z:.3f}")
        if en_bloques:
            _en_bloques(trazo, visibles, f, lienzo, dom_x, dom_y)
    if trazo["showscale"]:
        trazo["colorbar"] = barra_color(f.barra, dom_x, dom_y, lienzo.barra_abajo, lienzo.minimo_barra)
    if con_numeros and casilla:  # y la capa de las tapadas que sigue, si lleva su «−∞» en la misma letra
        con_tapadas = f.tapada.any() and bool(f.texto_tapada)
        for i in range(len(lienzo.datos), len(lienzo.datos) + 1 + con_tapadas):
            lienzo.casillas[i] = [round(float(casilla), 1), columnas]
    lienzo.datos.append(trazo)
    if f.tapada.any():
        tapadas = np.where(f.tapada, 1.0, np.nan)
        lienzo.datos.append(
            {
                "type": "heatmap",
                "z": a_lista(tapadas),
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
                if con_numeros and f.texto_tapada
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
    angulo = -45 if maqueta.girar(etiquetas_x) else 0
    if angulo and lienzo.ancho_px:
        # En un teléfono, de pie (-90): inclinadas, la caja de cada palabra medía más que su casilla (≈ 22 px) y
        # se pisaban con la de al lado. Todas, como en la ancha: el navegador deja una cada tantas si ni su alto cabe
        # en la casilla con el ancho de verdad (#37; maqueta.mjs, marcasQueCaben); aquí, lo que se llevan del ancho
        # del panel los nombres del eje y, su título y la barra de color.
        angulo = -90
        lienzo.marcas[kx] = round(max(ocupado, lienzo.ocupado_izquierdo), 1)
    lienzo.ejes[kx] = {
        "domain": dom_x,
        "title": {"text": f.eje_x},
        "showgrid": False,
        "zeroline": False,
        # Ancha, sin `tickangle` («auto»): Plotly las inclina solo si no caben derechas con el ancho que tiene (en el
        # clasificador, 7 palabras en 1 000 px iban a −45°, y el título del eje quedaba entre ellas).
        **({"autotickangles": [0, angulo, -90]} if angulo == -45 else {"tickangle": angulo}),
        "automargin": True,  # etiquetas largas (palabras) no se cortan ni pisan el título del eje
        **({"tickfont": {"size": 11}} if maqueta.letra_chica(f.x, columnas) else {}),  # 32 palabras sin encimarse
        **(ticks(etiquetas_x) if maqueta.marca_cada_casilla(f.x, columnas) or angulo == -90 else {}),
    }
    lienzo.ejes[ky] = {
        "domain": dom_y,
        "title": {"text": eje_y},
        "autorange": "reversed",
        "showgrid": False,
        "zeroline": False,
        "automargin": True,
        # En el eje y, chicas también las redondas: el «0» de arriba queda junto al título del panel, y a 14 px lo
        # tocaba en los paneles de 16 filas de variantes.
        **({"tickfont": {"size": 11}} if maqueta.apinadas(filas) else {}),
        **(ticks(etiquetas_y) if maqueta.marca_cada_casilla(f.y, filas) else {}),
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


def _uri_recordado(rgb: np.ndarray) -> str:
    """`_uri`, una vez por figura: la variante de teléfono trae la misma imagen (un PNG o JPEG por imagen, no dos)."""
    return recordado(("uri", *huella(rgb)), lambda: _uri(rgb))


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


# Un rótulo de hasta tres letras (el número de un parche) va en un cuadrito de color: todos en un solo trazo de
# puntos cuadrados con su texto. Como anotaciones (una caja por texto), Plotly mide cada una al dibujar: la rejilla
# de 60 parches tardaba 216 ms por valor en Chromium, y así 75 ms.
LARGO_DE_CUADRITO = 3
LETRA_ROTULO = 11


def _cuadritos(rotulos, xa: str, ya: str) -> dict:
    return {
        "type": "scatter",
        "mode": "markers+text",
        "x": [n.x for n in rotulos],
        "y": [n.y for n in rotulos],
        "text": [texto_plano(n.texto) for n in rotulos],
        "xaxis": xa,
        "yaxis": ya,
        "marker": {
            "symbol": "square",
            "size": [
                round(ANCHO_DE_LETRA * LETRA_ROTULO * len(n.texto)) + 6 for n in rotulos
            ],  # el texto y 3 px a cada lado
            "color": [n.color if n.color != "#333333" else C0 for n in rotulos],
            "line": {"width": 0},
            "opacity": 1,  # con más de 20 puntos, Plotly los aclara
        },
        "textposition": "middle center",
        "textfont": {"color": "white", "size": LETRA_ROTULO},
        "hoverinfo": "skip",
        "showlegend": False,
        "cliponaxis": False,
    }


def imagen(f: Imagen, lienzo: Lienzo, k: int, dom_x, dom_y, con_barra: bool) -> None:
    xa, ya, kx, ky = ejes_de(k)
    alto, ancho = f.pixeles.shape[:2]
    if not f.rgb and alto * ancho <= MAX_PIXELES_MAPA:
        lienzo.datos.append(
            {
                "type": "heatmap",
                "z": a_lista(f.pixeles),
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
                "source": _uri_recordado(np.ascontiguousarray(rgb, dtype=np.uint8)),
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
            "z": a_lista(f.capa),
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
            "showscale": maqueta.lleva_barra(f, con_barra),
            "hoverongaps": False,
            "hovertemplate": plantilla(f.pista, v="%{z:" + f.formato + "}"),
        }
        textos = f.textos_capa()
        if textos:
            trazo |= {"text": textos, "texttemplate": "%{text}", "textfont": {"size": 11}}
            if lienzo.ancho_px:  # en un teléfono: la imagen ocupa a lo sumo el ancho del panel
                casilla = lienzo.casilla(dom_x, dom_y, ancho, alto, not f.estirar) * (x1 - x0) / w
                lienzo.casillas[len(lienzo.datos)] = [round(float(casilla), 1), w]
        if trazo["showscale"]:
            trazo["colorbar"] = barra_color(f.barra, dom_x, dom_y, lienzo.barra_abajo, lienzo.minimo_barra)
        lienzo.datos.append(trazo)
    if f.rejilla:
        for c in range(0, ancho + 1, f.rejilla):
            lienzo.formas.append(segmento(xa, ya, c - 0.5, -0.5, c - 0.5, alto - 0.5, f.color_rejilla, 1))
        for r in range(0, alto + 1, f.rejilla):
            lienzo.formas.append(segmento(xa, ya, -0.5, r - 0.5, ancho - 0.5, r - 0.5, f.color_rejilla, 1))
    for x0, y0, x1, y1 in f.recuadros:
        lienzo.formas.append(
            {"type": "rect", "xref": xa, "yref": ya, "x0": x0, "y0": y0, "x1": x1, "y1": y1}
            | {"line": {"color": C1, "width": 3}}
        )
    cortos = [n for n in f.rotulos if len(n.texto) <= LARGO_DE_CUADRITO]
    if cortos:
        lienzo.datos.append(_cuadritos(cortos, xa, ya))
    for n in f.rotulos:
        if len(n.texto) <= LARGO_DE_CUADRITO:
            continue
        lienzo.notas.append(
            {
                "x": n.x,
                "y": n.y,
                "xref": xa,
                "yref": ya,
                "text": n.texto,
                "showarrow": False,
                "font": {"color": "white", "size": LETRA_ROTULO},
                "bgcolor": n.color if n.color != "#333333" else C0,
                "borderpad": 1,
            }
        )
    lienzo.ejes[kx] = OCULTO | {"domain": dom_x, "range": [-0.5, ancho - 0.5], "constrain": "domain"}
    lienzo.ejes[ky] = OCULTO | {"domain": dom_y, "range": [alto - 0.5, -0.5]}
    # Píxeles cuadrados, salvo `estirar`: entonces hay que decirlo (una traza de imagen los cuadra sola).
    lienzo.ejes[ky] |= {"scaleanchor": False} if f.estirar else {"scaleanchor": xa, "constrain": "domain"}
