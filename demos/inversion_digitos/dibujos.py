"""Lo que se dibuja en la pestaña de inversión de dígitos: el mapa de atención, la tabla y las curvas.

El mapa sigue a la figura 5 de la lección: columnas «dígito\\nposición», filas «posición: predicho».
"""

from __future__ import annotations

import numpy as np

from demos.comun.figuras import C0, C1, C2, Curva, Curvas, Mapa, Paneles, Referencia
from modelos.datos import LARGO
from modelos.formato import por_ciento

FUERTE = 0.3  # en el mapa, los pesos desde aquí llevan su número
GRIS, AZUL, VERDE, ROJO = "#eeeeee", "#dbe8f5", "#d8f0d2", "#f7d4d4"
SIN_BORDE = "border:none !important"  # el tema de Gradio pone bordes a las tablas
LOTE = 64  # secuencias por paso de entrenamiento
PERDIDA_ENTRENAMIENTO = "Pérdida de entrenamiento"  # la media de los lotes desde el informe anterior
PERDIDA_VALIDACION = "Pérdida en validación"  # la de las instantáneas: en las secuencias de validación, en ese paso


def figura_atencion(matriz: np.ndarray, digitos: list[int], prediccion: list[int], titulo: str) -> Mapa:
    """El mapa como en la lección: columnas «dígito\\nposición», filas «posición: predicho»; el espejo
    de cada fila (la casilla que hay que copiar) recuadrado en naranja."""
    return Mapa(
        matriz,
        x=tuple(f"{d}\n{i}" for i, d in enumerate(digitos)),
        y=tuple(f"{i}: {p}" for i, p in enumerate(prediccion)),
        nombres_x=tuple(f"la posición {i} (dígito {d})" for i, d in enumerate(digitos)),
        nombres_y=tuple(f"La posición {i} (escribe {p})" for i, p in enumerate(prediccion)),
        titulo=titulo,
        eje_x="Posición que se mira (dígito y posición)",
        eje_y="Posición que mira (la que escribe)",
        # Números solo donde el peso es grande: 64 números se leen mal; el resto, al pasar el ratón.
        umbral=FUERTE,
        barra="Peso de atención",
        pista="{y} mira a {x}: peso {v}",
        marcas=tuple((i, LARGO - 1 - i) for i in range(LARGO)),
    )


def _casilla(contenido: str, fondo: str, tinta: str = "#1b1b1b", titulo: str = "") -> str:
    """Una casilla con sus colores fijos: `!important` para que el tema oscuro no los pise."""
    extra = f' title="{titulo}"' if titulo else ""
    color = f"color:{tinta} !important"
    return (
        f'<td{extra} style="background:{fondo} !important;{color};text-align:center;padding:4px 4px;'
        f'border:1px solid transparent !important;min-width:1.7em"><span style="{color}">{contenido}</span></td>'
    )


def tabla_prediccion(digitos: list[int], prediccion: list[int], prob: np.ndarray, titulo: str) -> str:
    """HTML: posición, entrada, inversión correcta y predicción, cada dígito marcado ✓ / ✗ con su probabilidad.

    Una tabla y no una figura: se lee con lector de pantalla y no cuesta rasterizarla.
    """
    correcta = digitos[::-1]
    grande = '<span style="font-size:1.35em;color:inherit !important">{}</span>'
    negrita = '<span style="font-size:1.35em;font-weight:700;color:inherit !important">{}</span>'
    filas = [
        ("Posición", [_casilla(str(i), "transparent", "inherit") for i in range(LARGO)]),
        ("Entrada", [_casilla(grande.format(d), GRIS) for d in digitos]),
        ("Inversión correcta", [_casilla(grande.format(d), AZUL) for d in correcta]),
    ]
    predichas = []
    for p, c, q in zip(prediccion, correcta, prob, strict=True):
        bien = p == c
        marca = f"<br><small style='color:inherit !important'>{'✓' if bien else '✗'} {por_ciento(q, 0)}</small>"
        predichas.append(
            _casilla(
                f"{negrita.format(p)}{marca}",
                VERDE if bien else ROJO,
                "#1d5c1d" if bien else "#8a1c1c",
                f"{'bien' if bien else 'mal'}: predice {p} con probabilidad {por_ciento(q, 0)}; la correcta es {c}",
            )
        )
    filas.append(("Predicción", predichas))
    cuerpo = "".join(
        f'<tr style="{SIN_BORDE}"><th scope="row" style="text-align:right;padding-right:8px;font-weight:normal;'
        f'{SIN_BORDE}">{nombre}</th>'
        f"{''.join(celdas)}</tr>"
        for nombre, celdas in filas
    )
    return (
        '<div style="overflow-x:auto">'
        f'<table class="tabla-digitos" style="border-collapse:collapse;margin:auto;{SIN_BORDE}">'
        f'<caption style="font-weight:600;padding:4px">{titulo}</caption>{cuerpo}</table></div>'
        '<p style="text-align:center;font-size:0.85em;margin:4px 0">✓ / ✗ y probabilidad del dígito predicho</p>'
    )


def figura_curva(
    historia: list[dict],
    pasos_totales: int,
    actual: int | None = None,
    titulo: str = "",
    perdida_de: str = PERDIDA_ENTRENAMIENTO,
) -> Paneles:
    """Pérdida (arriba, `perdida_de` dice cuál) y exactitud en % (abajo) contra el paso; `actual` marca una instantánea.

    Mientras entrena, una línea marca el último paso: el eje x abarca la corrida entera desde el principio.
    """
    pasos = [h["paso"] for h in historia]
    perdidas = [h["perdida"] for h in historia]
    marcas = []
    if actual is not None:
        h = historia[actual]
        marcas.append(Referencia(h["paso"], f"instantánea {actual} (paso {h['paso']})", color="#595959"))
    if pasos[-1] < pasos_totales:
        marcas.append(Referencia(pasos_totales, f"fin del entrenamiento (paso {pasos_totales})", punteada=False))
    perdida = Curvas(
        (Curva(perdida_de.lower(), pasos, perdidas, color=C1),),
        eje_y=perdida_de,
        rango_y=(0, 1.08 * max(perdidas)),
        verticales=tuple(marcas),
    )
    exactitud = Curvas(
        (
            Curva("dígitos", pasos, [100 * h["digitos"] for h in historia], color=C0),
            Curva("secuencias enteras", pasos, [100 * h["secuencias"] for h in historia], color=C2),
        ),
        eje_x=f"Paso (lotes de {LOTE} secuencias)",
        eje_y="Exactitud (%)",
        rango_y=(-3, 105),
        verticales=tuple(marcas),
        formato=".1f",
    )
    return Paneles((perdida, exactitud), columnas=1, titulo=titulo, compartir_x=True, alto_fila=210)
