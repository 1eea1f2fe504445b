"""Lo que se dibuja en la pestaña de inversión de dígitos: el mapa de atención, la tabla y las curvas.

El mapa sigue a la figura 5 de la lección: columnas «dígito\\nposición», filas «posición: predicho».
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

from demos import _graficos as G
from modelos.datos import LARGO

FUERTE = 0.3  # en el mapa, los pesos desde aquí llevan su número
GRIS, AZUL, VERDE, ROJO = "#eeeeee", "#dbe8f5", "#d8f0d2", "#f7d4d4"
SIN_BORDE = "border:none !important"  # el tema de Gradio pone bordes a las tablas
LOTE = 64  # secuencias por paso de entrenamiento


def figura_atencion(matriz: np.ndarray, digitos: list[int], prediccion: list[int], titulo: str):
    """El mapa como en la lección: columnas «dígito\\nposición», filas «posición: predicho»."""
    fig, eje = G.figura(6.0, 5.0)
    imagen_ = G.mapa_calor(eje, matriz, numeros=False)
    # Números solo donde el peso es grande: 64 números se leen mal y tardan en dibujarse.
    for i, j in zip(*np.nonzero(matriz >= FUERTE), strict=True):
        v = matriz[i, j]
        eje.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9.5, color="white" if v > 0.5 else G.C0)
    fig.colorbar(imagen_, ax=eje, shrink=0.8, label="Peso de atención")
    eje.set_xticks(range(LARGO), [f"{d}\n{i}" for i, d in enumerate(digitos)])
    eje.set_yticks(range(LARGO), [f"{i}: {p}" for i, p in enumerate(prediccion)])
    for i in range(LARGO):  # la casilla que hay que copiar: el espejo de cada fila
        eje.add_patch(Rectangle((LARGO - 1 - i - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=G.C1, lw=1.2, ls="--"))
    eje.set_xlabel("Posición que se mira (dígito y posición)")
    eje.set_ylabel("Posición que escribe")
    eje.set_title(titulo, fontsize=11.5)
    return fig


def _casilla(contenido: str, fondo: str, tinta: str = "#1b1b1b", titulo: str = "") -> str:
    """Una casilla con sus colores fijos: `!important` para que el tema oscuro no los pise."""
    extra = f' title="{titulo}"' if titulo else ""
    color = f"color:{tinta} !important"
    return (
        f'<td{extra} style="background:{fondo} !important;{color};text-align:center;padding:4px 4px;'
        f'border:2px solid transparent !important;min-width:1.7em"><span style="{color}">{contenido}</span></td>'
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
        marca = f"<br><small style='color:inherit !important'>{'✓' if bien else '✗'} {q:.0%}</small>"
        predichas.append(
            _casilla(
                f"{negrita.format(p)}{marca}",
                VERDE if bien else ROJO,
                "#1d5c1d" if bien else "#8a1c1c",
                f"{'bien' if bien else 'mal'}: predice {p} con probabilidad {q:.0%}; la correcta es {c}",
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
        f'<table style="border-collapse:collapse;margin:auto;{SIN_BORDE}">'
        f'<caption style="font-weight:600;padding:4px">{titulo}</caption>{cuerpo}</table></div>'
        '<p style="text-align:center;font-size:0.85em;margin:4px 0">✓ / ✗ y probabilidad del dígito predicho</p>'
    )


def figura_curva(historia: list[dict], pasos_totales: int, actual: int | None = None, titulo: str = ""):
    """Pérdida (arriba) y exactitud en % (abajo) contra el paso; `actual` marca una instantánea."""
    fig, (arriba, abajo) = G.figura(6.4, 4.4, 2, 1, sharex=True)
    pasos = [h["paso"] for h in historia]
    arriba.plot(pasos, [h["perdida"] for h in historia], "o-", color=G.C1, ms=3.5)
    arriba.set_ylim(0, 1.08 * max(h["perdida"] for h in historia))
    arriba.set_ylabel("Pérdida")
    abajo.plot(pasos, [100 * h["digitos"] for h in historia], "o-", color=G.C0, ms=3.5, label="dígitos")
    abajo.plot(pasos, [100 * h["secuencias"] for h in historia], "s-", color=G.C2, ms=3.5, label="secuencias enteras")
    abajo.set_ylim(-3, 105)
    abajo.set_xlim(-0.02 * pasos_totales, 1.02 * pasos_totales)
    abajo.set_ylabel("Exactitud (%)")
    abajo.set_xlabel(f"Paso de entrenamiento (lotes de {LOTE} secuencias)")
    abajo.legend(loc="lower right", fontsize=9.5, frameon=False)
    if actual is not None:
        h = historia[actual]
        for eje in (arriba, abajo):
            eje.axvline(h["paso"], color="0.35", lw=1, ls=":")
        arriba.plot(h["paso"], h["perdida"], "o", color=G.C1, ms=9, mec="black")
        abajo.plot([h["paso"]] * 2, [100 * h["digitos"], 100 * h["secuencias"]], "o", color="0.2", ms=8, mfc="none")
    arriba.set_title(titulo, fontsize=11.5)
    return fig
