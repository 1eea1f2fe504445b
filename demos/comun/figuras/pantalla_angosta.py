"""La misma figura en un teléfono: paneles apilados (o de a uno), títulos partidos, números que caben o ninguno.

El servidor no sabe el ancho de la pantalla. `pantalla.figura_plotly` manda la figura de siempre y, en
`layout.meta.angosto`, solo lo que cambia en un teléfono: las claves del layout y de cada trazo que
difieren (`diferencia`). `maqueta.mjs` lo aplica cuando la página mide menos de `ANCHO_MAXIMO` px.
"""

from __future__ import annotations

import dataclasses
import itertools
import textwrap
from functools import lru_cache

from demos.comun.figuras import GRIS, Imagen, Mapa, Paneles, maqueta
from demos.comun.figuras.pantalla_lienzo import (
    ANCHO_DE_LETRA,
    LETRA,
    LETRA_MENSAJE,
    MARGEN_IZQUIERDO,
    MAX_CASILLAS_PANTALLA,
    RENGLON,
    TEXTO_EN_CAJA,
    Lienzo,
)

ANCHO_MAXIMO = 600  # por debajo de este ancho de página, la figura es la de teléfono
ANCHO_FIGURA = 330  # el ancho de la figura en un teléfono de 390 px (sin los bordes de la página)
MARGEN_X = {"l": MARGEN_IZQUIERDO, "r": 30}
AREA = ANCHO_FIGURA - MARGEN_X["l"] - MARGEN_X["r"]  # el ancho del área de dibujo
ALTO_FILA = 330  # un panel por fila, no más alto que en la rejilla
# Un panel de curvas, barras o histograma no mide menos de alto: el título de su eje y, de lado, cabe en dos o tres
# líneas («Memoria de los pesos (MB, escala log)» mide 346 px en Chromium; el panel medía 164).
ALTO_PANEL = 190
# El ancho para un texto centrado en el área de dibujo (el título de un panel o de un eje x): las marcas y el título
# del eje y la corren a la derecha («Largo de la frase L (palabras,» se salía por la derecha).
ANCHO_CENTRADO = 230
# Un título de eje y (va de lado) se parte en líneas de a lo sumo este tanto del alto de su panel. Lo parte el navegador
# (maqueta.mjs, partirTitulosDeLado), con el alto de verdad; salvo el de un mapa de teléfono, que parte el servidor
# (`partir_de_lado`: el ancho de las casillas depende de sus líneas) con el alto que estima antes de estirar los
# paneles, y por eso con más holgura (`HOLGURA_ESTIMADA`; con la del navegador, a 1280 px «Pérdida en validación» iba
# en tres líneas, y con la del servidor, en un teléfono los mapas cambiaban de alto).
HOLGURA_DE_LADO = 0.9
HOLGURA_ESTIMADA = 0.85
MAX_NOMBRES_DE_LA_PISTA = 12  # de a uno, un eje sin nombres toma los de la pista: no más que esto en ≈ 200 px


@lru_cache(maxsize=4096)  # los mismos títulos en cada movimiento y en cada parada de un barrido
def partir(texto: str, letra: int, ancho: float) -> str:
    """El título de un panel (o de su eje x, o el mensaje de un Aviso) en líneas que caben en `ancho` píxeles
    (`ANCHO_CENTRADO`; las líneas que ya trae se respetan)."""
    columnas = max(12, int(ancho / (ANCHO_DE_LETRA * letra)))
    return "\n".join(textwrap.fill(linea, columnas) if linea else "" for linea in texto.split("\n"))


def columnas_de_lado(alto_px: float, letra: int) -> int:
    """Cuántas letras de un título de eje y (va de lado) caben en `alto_px`: una letra mide `ANCHO_DE_LETRA` de su
    tamaño y se deja la holgura `HOLGURA_ESTIMADA` (`alto_px` es una estimación)."""
    return max(8, int(HOLGURA_ESTIMADA * alto_px / (ANCHO_DE_LETRA * letra)))


@lru_cache(maxsize=4096)
def partir_de_lado(texto: str, alto_px: float | None, letra: int) -> str:
    """El título del eje y (va de lado) en líneas que caben en el alto de su panel, `alto_px` (estimado). `letra`:
    la del título del eje, que Plotly hace 1.2 veces la de la figura."""
    if not texto or not alto_px:
        return texto
    columnas = columnas_de_lado(alto_px, letra)
    return "\n".join(_fill(linea, columnas) for linea in texto.split("\n"))


def _fill(linea: str, columnas: int) -> str:
    """Una línea de un título de eje y partida en `columnas` sin cortar palabras («coseno(context / o, h_t)»): una
    más larga queda entera (la estimación deja holgura)."""
    return textwrap.fill(linea, columnas, break_long_words=False) if linea else ""


def _con_titulo_partido(f, letra: int, letra_eje: int, ancho_titulo: float | None = None):
    """El panel con su título (en `ancho_titulo`; None: es el de la figura, que parte el navegador) y el del eje x
    (en `ANCHO_CENTRADO`, letra de eje) partidos; el del eje y va de lado: lo parte el navegador al alto de su panel
    (maqueta.mjs, partirTitulosDeLado), salvo el de un mapa (`pantalla_mapas.ocupado_a_la_izquierda`)."""
    cambios = {"titulo": partir(f.titulo, letra, ancho_titulo)} if ancho_titulo and getattr(f, "titulo", "") else {}
    if getattr(f, "mensaje", ""):  # el de un Aviso («Pulsa «Entrenar»: aquí se dibujan…»), en la letra de su nota
        cambios["mensaje"] = partir(f.mensaje, LETRA_MENSAJE, ANCHO_CENTRADO)
    if getattr(f, "eje_x", ""):
        cambios["eje_x"] = partir(f.eje_x, letra_eje, ANCHO_CENTRADO)
    return dataclasses.replace(f, **cambios) if cambios else f


def _con_etiquetas_de_la_rejilla(paneles: tuple) -> tuple:
    """Los paneles con lo que una rejilla escribe una sola vez: un mapa sin nombres en un eje (todos «») toma los
    del primer mapa del mismo lado que los tiene, y uno sin título de eje, el del primero que lo tiene. En un teléfono
    se ve un panel a la vez (`Paneles.de_a_uno`) o uno debajo de otro: sin esto, una cabeza de la fila de arriba no
    dice qué palabra es cuál."""
    mapas = [p for p in paneles if isinstance(p, Mapa)]

    def de_otro(campo: str, n: int) -> tuple[str, ...] | None:
        return next((e for m in mapas if (e := getattr(m, campo)) and len(e) == n and any(e)), None)

    def de_la_pista(nombres: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """Si ningún mapa los tiene (las cabezas son imágenes), los de la pista, cortos y uno cada tantos."""
        cada = maqueta.paso(len(nombres or ()), MAX_NOMBRES_DE_LA_PISTA)
        return nombres and tuple(n[:16] if i % cada == 0 else "" for i, n in enumerate(nombres))

    completos = []
    for p in paneles:
        cambios = {}
        if isinstance(p, Mapa):
            for lado, (campo, eje) in enumerate((("x", "eje_x"), ("y", "eje_y"))):
                propias = getattr(p, campo)
                if propias is not None and not any(propias):
                    otras = de_otro(campo, len(propias)) or de_la_pista(getattr(p, "nombres_" + campo))
                    if otras:
                        cambios[campo] = otras
                # El título, del primer mapa con los mismos nombres en ese eje: en atención a mano, la columna «Σ
                # fila» no es la palabra que se mira, y la salida (v1, v2) tampoco.
                nombres = dataclasses.replace(p, **cambios).etiquetas()[lado]
                if not getattr(p, eje):
                    cambios[eje] = next(
                        (t for m in mapas if (t := getattr(m, eje)) and m.etiquetas()[lado] == nombres), ""
                    )
        completos.append(dataclasses.replace(p, **cambios) if cambios else p)
    return tuple(completos)


def apilar(figura, letra: int, letra_titulo: int):
    """La figura de teléfono: los paneles uno por fila (o uno sobre otro, de a uno) y los títulos de los paneles y de
    sus ejes partidos. El de la figura va entero, con sus saltos de línea: lo parte el navegador con el ancho de
    verdad (maqueta.mjs, tituloDelTelefono), y su margen de arriba crece `RENGLON` px por línea de más."""
    letra_eje = round(1.2 * letra)  # la del título de un eje, que Plotly hace 1.2 veces la de la figura
    if not isinstance(figura, Paneles):
        return _con_titulo_partido(figura, letra_titulo, letra_eje)
    # De a uno o apilados, cada mapa con sus nombres y los títulos de sus ejes: en variantes, la rejilla titula el eje
    # y solo en su primera columna y el x solo en su fila de abajo, y apiladas, la 1.ª y la 4.ª máscara decían qué
    # eje es cuál, y las demás no (en el hueco que cada una deja para el título de su eje x, nada).
    paneles = _con_etiquetas_de_la_rejilla(figura.paneles)
    return dataclasses.replace(
        figura,
        paneles=tuple(_con_titulo_partido(p, letra, letra_eje, ANCHO_CENTRADO) for p in paneles),
        columnas=len(paneles) if figura.de_a_uno else 1,  # de a uno, todos en el mismo lugar: el alto de una fila
        anchos=None,
        alto_fila=min(figura.alto_fila, ALTO_FILA),
    )


# Apilados, bajo un panel sin ejes (una imagen, un mapa sin marcas) va solo el título del de abajo: el hueco de las
# marcas y el título de un eje x (≈ 135 px) quedaba en blanco (CBAM: 140 px entre cada foto de la tubería).
HUECO_SIN_EJES = 24  # y RENGLON px por línea del título


def sin_ejes(f) -> bool:
    """¿Un panel sin nada bajo su área? Una imagen, o un mapa sin ejes que no va en bloques (su nota va debajo)."""
    return isinstance(f, Imagen) or (isinstance(f, Mapa) and not f.ejes and f.matriz.size <= MAX_CASILLAS_PANTALLA)


def _con_numeros(f) -> bool:
    """¿Escribe `f` un número en cada casilla? Entonces crece hasta su ancho: casillas más grandes, números que se
    leen. Sin números, un panel de proporción fija crece a lo sumo a `ALTO_PANEL` (los recortes de 16 × 16 de
    parches medían 81 px), y no más: los 6 mapas de 16 × 16 de variantes, del ancho, sumaban 665 px de página."""
    return bool(f.con_numeros if isinstance(f, Mapa) else isinstance(f, Imagen) and f.textos_capa())


def alto_natural(f, ancho: float) -> float | None:
    """El alto en píxeles de un panel de proporción fija (una imagen de píxeles cuadrados, un mapa de casillas
    cuadradas) que ocupa `ancho` píxeles; None si su alto es el de la fila."""
    if isinstance(f, Imagen) and not f.estirar:
        alto, columnas = f.pixeles.shape[:2]
        return ancho * alto / columnas
    if isinstance(f, Mapa) and f.cuadrado:
        filas, columnas = f.matriz.shape
        return ancho * filas / columnas
    return None


def tope(f, alto: float) -> float:
    """Lo más alto que crece un panel de proporción fija que en la rejilla mide `alto` px (`_con_numeros`)."""
    return ALTO_FILA if _con_numeros(f) else max(alto, ALTO_PANEL)


def medida(paneles: tuple, anchos: list[float], topes: list[float]) -> list[list]:
    """Lo que el navegador necesita para rehacer `filas_a_su_medida` con el ancho de verdad (la figura de teléfono
    se arma para `ANCHO_FIGURA`): por cada panel de proporción fija, [su eje y, su ancho en px, alto / ancho, su
    tope en px]. A 430 px, las fotos de CBAM medían lo mismo que a 390 y dejaban 50 px en blanco a los lados; a
    360, la figura se angosta y el alto no, y el blanco quedaba arriba y abajo."""
    return [
        [f"yaxis{'' if k == 1 else k}", round(a, 1), round(proporcion, 4), round(t, 1)]
        for k, (f, a, t) in enumerate(zip(paneles, anchos, topes, strict=True), start=1)
        if (proporcion := alto_natural(f, 1.0))
    ]


def filas_a_su_medida(paneles: tuple, dominios: list, area: float, anchos: list[float], titulos: list[int]):
    """Apilados en un teléfono: cada panel de proporción fija del alto que pide a lo ancho (si lleva números, hasta
    `ALTO_FILA`; si no, hasta su fila o `ALTO_PANEL`), y bajo un panel sin ejes, solo el título del de abajo.
    `dominios`: los de la rejilla de siempre, en un área de `area` píxeles; `anchos`: los píxeles que cada panel
    tiene a lo ancho; `titulos`: las líneas del título de cada uno (0: sin título). -> (los dominios nuevos, el alto
    nuevo del área), o None si nada cambia.

    Una foto de 160 × 107 en 165 px de ancho mide 110 px: en una fila de 330 px quedaban 140 px de papel en blanco
    bajo cada una, y los parámetros 7 × 7 de CBAM, en filas de ≈ 150 px, iban en casillas de 21 px con sus números
    en letra de 8 (ahora, del ancho: 28 px)."""
    altos = [(dy[1] - dy[0]) * area for _, dy in dominios]
    huecos = [(arriba[1][0] - abajo[1][1]) * area for arriba, abajo in itertools.pairwise(dominios)]
    nuevos = [
        min(natural, tope(f, alto)) if (natural := alto_natural(f, a)) else alto
        for f, a, alto in zip(paneles, anchos, altos, strict=True)
    ]
    nuevos_huecos = [
        min(h, HUECO_SIN_EJES + RENGLON * lineas) if sin_ejes(f) else h
        for f, h, lineas in zip(paneles, huecos, titulos[1:], strict=False)
    ]
    if all(abs(a - b) < 1 for a, b in zip(altos + huecos, nuevos + nuevos_huecos, strict=True)):
        return None
    total = sum(nuevos) + sum(nuevos_huecos)
    arriba, salida = total, []
    for k, alto in enumerate(nuevos):
        salida.append((dominios[k][0], [round((arriba - alto) / total, 4), round(arriba / total, 4)]))
        arriba -= alto + (nuevos_huecos[k] if k < len(nuevos_huecos) else 0)
    return salida, total


def mismos_ejes(paneles: tuple) -> bool:
    """¿Comparten un par de ejes los paneles de a uno? Sí si son mapas de la misma forma, con los mismos nombres y
    títulos de eje (ya completados): cada uno dibujaría los mismos ejes, y en la respuesta irían nueve veces las 24
    palabras de una frase larga. Si no (cabezas como imágenes y su promedio como mapa), cada uno con los suyos."""

    def clave(f) -> tuple:
        return (f.matriz.shape, f.x, f.y, f.eje_x, f.eje_y, f.cuadrado, f.ejes)

    return all(isinstance(f, Mapa) for f in paneles) and len({clave(f) for f in paneles}) == 1


# Un panel a la vez (`Paneles.de_a_uno`): lo que dibujó cada panel, como tramos de las listas del lienzo.
Partes = tuple[range, range, range, tuple[str, str]]  # trazos, notas, formas y sus ejes («xaxis2», «yaxis2»)
ALTO_BARRA_ABAJO = 78  # la barra de color acostada al pie: su título, sus marcas, su grosor y el hueco sobre ella
ALTO_LEYENDA = 30  # una línea de leyenda al pie, bajo la barra acostada


def selector(lienzo: Lienzo, titulos: tuple[str, ...], partes: list[Partes]) -> dict:
    """El desplegable que elige el panel que se ve (un `updatemenus` de Plotly, sobre el área de dibujo), con el
    primero ya elegido en el lienzo: los demás, con sus trazos, ejes, notas y formas ocultos. Cada opción dice qué
    se ve al elegirla (`maqueta.mjs` la vuelve a aplicar cuando llega otro valor: el panel elegido se queda)."""
    visibles = {e: lienzo.ejes[e].get("visible", True) for *_, ejes in partes for e in ejes}

    def mostrar(k: int) -> list:
        trazos = [False] * len(lienzo.datos)
        cambios = {}
        for j, (datos, notas, formas, ejes) in enumerate(partes):
            for i in datos:
                trazos[i] = j == k
            cambios |= {f"{e}.visible": visibles[e] and j == k for e in ejes}
            cambios |= {f"annotations[{i}].visible": j == k for i in notas}
            cambios |= {f"shapes[{i}].visible": j == k for i in formas}
        return [{"visible": trazos}, cambios]

    opciones = [{"label": t.replace("\n", " "), "method": "update", "args": mostrar(k)} for k, t in enumerate(titulos)]
    for j, (datos, notas, formas, ejes) in enumerate(partes):  # en el lienzo, el primero elegido
        for i in datos:
            lienzo.datos[i]["visible"] = j == 0
        for e in ejes:
            lienzo.ejes[e]["visible"] = visibles[e] and j == 0
        for lista, indices in ((lienzo.notas, notas), (lienzo.formas, formas)):
            for i in indices:
                lista[i]["visible"] = j == 0
    return {
        "type": "dropdown",
        "buttons": opciones,
        "active": 0,
        # Al borde derecho del área, y hacia la izquierda, sobre los nombres del eje y: centrado sobre el área, la
        # opción más larga («Promedio de las cabezas») no cabía y Plotly achicaba el mapa para hacerle lugar.
        "x": 1,
        "xanchor": "right",
        "y": 1,
        "yanchor": "bottom",
        "pad": {"b": 6},
        "showactive": True,
        # Una caja clara con su texto oscuro, también en modo oscuro: Plotly pinta la opción elegida de un azul
        # muy claro (#F4FAFF), donde un texto claro no se leería.
        "bgcolor": "#ffffff",
        "bordercolor": GRIS,
        "font": {"size": LETRA, "color": TEXTO_EN_CAJA},
    }


def alto_bajo_el_area(ejes: list[dict]) -> float:
    """Los píxeles que pide el eje x más alto de los `ejes` bajo el área de dibujo (sus nombres, de pie si van
    girados, y su título), con holgura: la barra de color acostada va debajo, al pie de la figura."""
    alto = 0.0
    for e in ejes:
        letra = (e.get("tickfont") or {}).get("size", LETRA)
        textos = e.get("ticktext") or ["00"]
        nombres = max(map(len, textos)) * ANCHO_DE_LETRA * letra if e.get("tickangle") else 1.3 * letra
        lineas = len(((e.get("title") or {}).get("text") or "").split("\n"))
        alto = max(alto, 12 + nombres + 10 + 1.2 * LETRA * 1.3 * lineas)
    return alto


def _distintas(a: dict, b: dict) -> dict:
    """Las claves de `b` que no son iguales en `a`; las que `b` no tiene, en None (se borran)."""
    cambios = {k: v for k, v in b.items() if a.get(k) is not v and a.get(k) != v}  # `is`: las listas compartidas
    return cambios | {k: None for k in a if k not in b}


def _tramo(eje: dict) -> tuple[float, float]:
    return tuple(eje.get("domain") or (0.0, 1.0))


def _titulo(figura: dict, eje: str) -> str:
    return (figura["layout"].get(eje, {}).get("title") or {}).get("text") or ""


def _lineas(texto: str) -> list[str]:
    return texto.split("<br>")


def _empuje_abajo(layout: dict) -> float:
    """Cuánto crece el margen de abajo (`automargin`) por el eje x del panel de más abajo, medido en Chromium: 13–17
    px con su título en una línea, 22 más por cada línea de más y hasta 12 más si sus marcas van inclinadas. Todos
    los paneles se achican en la misma proporción."""
    ejes = []
    for k, e in layout.items():
        if k.startswith("xaxis") and isinstance(e, dict) and e.get("automargin") and e.get("visible", True):
            y = layout.get("yaxis" + e.get("anchor", "y")[1:], {})
            ejes.append((_tramo(y)[0], e))
    if not ejes:
        return 0.0
    e = min(ejes, key=lambda par: par[0])[1]
    lineas = len(_lineas((e.get("title") or {}).get("text") or ""))
    return 15 + RENGLON * (lineas - 1) + (12 if e.get("tickangle") else 0)


def terminar(telefono: dict) -> dict:
    """Lo que la figura de teléfono pide de alto, que hasta aquí no se sabía (su alto y sus márgenes), para el
    navegador, que estira los paneles con el ancho de verdad (maqueta.mjs, estirarPaneles) y parte los títulos de lado
    (partirTitulosDeLado):

    - `minimos`: cada panel de curvas, barras o histograma, de al menos `ALTO_PANEL` de alto sin lo que se lleva el eje
      x de abajo (su parte, la de su tramo), y un mapa, del alto que pide el título de su eje y tal como lo partió
      `pantalla_mapas`: los números de sus casillas se midieron con ese título, y una línea más le quitaría ancho (a él
      y a los de su columna: el margen es uno). Uno de casillas cuadradas no va: su alto lo da el ancho de sus casillas
      (`medida`);
    - `abajo`: lo que se lleva el eje x de abajo (`_empuje_abajo`), que no es alto de los paneles para sus títulos."""
    layout = telefono["layout"]
    letra = round(1.2 * layout["font"]["size"])
    ejes = [k for k, e in layout.items() if k.startswith("yaxis") and isinstance(e, dict)]
    libres = [k for k in ejes if not layout[k].get("scaleanchor") and layout[k].get("visible", True)]
    mapas = {"yaxis" + t.get("yaxis", "y")[1:] for t in telefono["data"] if t.get("type") == "heatmap"}
    empuje = _empuje_abajo(layout)
    minimos = {}
    for k in libres:
        pide = 0.0
        if k in mapas:
            pide = max(map(len, _lineas(_titulo(telefono, k)))) * ANCHO_DE_LETRA * letra / HOLGURA_ESTIMADA + 1
        a, b = _tramo(layout[k])
        minimos[k] = round(max(ALTO_PANEL, pide) + empuje * (b - a), 1)
    return {"minimos": minimos, "abajo": empuje} if minimos else {}


def diferencia(normal: dict, angosta: dict) -> dict:
    """Lo que cambia de la figura de siempre a la de teléfono: {"layout": {…}, "datos": {índice: {…}}}, y lo que
    sus paneles piden de alto (`terminar`)."""
    if len(normal["data"]) != len(angosta["data"]):
        raise ValueError("La figura de teléfono debe tener los mismos trazos")
    altos = terminar(angosta)
    layout = _distintas(normal["layout"], angosta["layout"])
    layout.pop("meta", None)
    pares = enumerate(zip(normal["data"], angosta["data"], strict=True))
    datos = {str(k): c for k, (a, b) in pares if (c := _distintas(a, b))}
    return ({"layout": layout, "datos": datos} if layout or datos else {}) | altos
