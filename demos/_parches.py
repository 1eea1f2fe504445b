"""Las piezas de «Parches ViT»: la imagen, sus parches, las formas de cada paso y las figuras.

Una imagen (3, H, W) se corta con `unfold` en parches de P × P en orden de
filas: el parche k está en la fila k // (W // P) y la columna k % (W // P).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import torch
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.patches import Rectangle
from torch import nn

from demos import _graficos as G
from demos._imagenes import abrir_imagen
from demos._ui import figura_a_imagen
from modelos import parches
from modelos.datos import imagen_muestra, recorte_leccion

IMAGEN_LECCION = "recorte de la lección (china.jpg, 96 × 160 px)"
IMAGEN_SUBIDA = "mi imagen (subida)"
IMAGENES = (IMAGEN_LECCION, "china.jpg (107 × 160 px)", "flower.jpg (107 × 160 px)", IMAGEN_SUBIDA)
LADOS = ("8", "16", "32")  # P, como texto para que también valga desde la URL
D_VIT = 64  # la dimensión de las fichas, como en la lección
LADO_REDUCIDA = 160  # la escala de la lección: [::4, ::4] de una foto de 640 px
MAX_PARCHE = 100_000

_NEGRO_A = {c: LinearSegmentedColormap.from_list(f"negro_{c}", ["black", c]) for c in ("red", "green", "blue")}


@lru_cache(maxsize=8)
def _subida(fuente: str | bytes) -> tuple[np.ndarray, str]:
    return abrir_imagen(fuente, LADO_REDUCIDA)


def clave_subida(imagen: str, subida: Any) -> str | bytes | None:
    """La subida como clave de caché (ruta o bytes); None si la imagen elegida no es la subida."""
    if imagen != IMAGEN_SUBIDA or subida is None:
        return None
    return subida if isinstance(subida, bytes) else str(subida)


def foto(imagen: str = IMAGEN_LECCION, subida: Any = None) -> tuple[torch.Tensor, str]:
    """La imagen elegida como (3, H, W) de 0 a 1 y su descripción."""
    if imagen == IMAGEN_LECCION:
        return recorte_leccion(), "el recorte de la lección: china.jpg[::4, ::4][:96, :160]"
    if imagen == IMAGEN_SUBIDA:
        if subida is None:
            raise ValueError("Sube una imagen en el recuadro «Tu imagen» (PNG, JPEG, GIF, BMP, TIFF o WebP).")
        rgb, descripcion = _subida(clave_subida(imagen, subida))
        return torch.from_numpy(rgb.copy()).permute(2, 0, 1), f"tu imagen ({descripcion}, lado mayor ≤ 160 px)"
    if imagen not in IMAGENES:
        raise ValueError("La imagen debe ser una de: " + ", ".join(f"«{i}»" for i in IMAGENES) + ".")
    nombre = imagen.split(" ")[0]
    reducida = imagen_muestra(nombre)[::4, ::4]  # (107, 160, 3): un píxel de cada 4, como la lección
    return torch.tensor(reducida).permute(2, 0, 1) / 255, f"{nombre}[::4, ::4]"


def lado_parche(P: Any, alto: int, ancho: int) -> int:
    """P validado: 8, 16 o 32, y que quepa en la imagen."""
    if str(P).strip() not in LADOS and P not in (8, 16, 32):
        raise ValueError(f"El lado del parche P debe ser 8, 16 o 32 píxeles; llegó {P!s:.20}.")
    P = int(str(P).strip())
    if P > min(alto, ancho):
        raise ValueError(
            f"La imagen mide {ancho} × {alto} px: un parche de {P} × {P} no cabe. Elige un P menor u otra imagen."
        )
    return P


@lru_cache(maxsize=len(LADOS))
def _proyeccion(entrada: int) -> nn.Linear:
    """La proyección lineal de cada parche aplanado a una ficha de D_VIT números (sin entrenar)."""
    return nn.Linear(entrada, D_VIT).requires_grad_(False)


def formas(imagen: torch.Tensor, P: int) -> tuple[list[list[str]], torch.Tensor]:
    """Cada paso de imagen a fichas, calculado de verdad: (tabla de formas, secuencia (N, 3·P·P))."""
    C, H, W = imagen.shape
    cortes = imagen.unfold(1, P, P).unfold(2, P, P)  # (C, filas, columnas, P, P)
    secuencia = parches(imagen, P)  # (N, C·P·P)
    N, largo = secuencia.shape
    with torch.inference_mode():
        fichas = _proyeccion(largo)(secuencia.unsqueeze(0))  # (1, N, d)
        con_cls = torch.cat([fichas.new_zeros(1, 1, D_VIT), fichas], dim=1)  # (1, N+1, d)
    filas, columnas = cortes.shape[1:3]
    tabla = [
        ["imagen", str(tuple(imagen.shape)), f"{C} canales de {H} × {W} píxeles"],
        ["unfold(1, P, P).unfold(2, P, P)", str(tuple(cortes.shape)), f"{filas} × {columnas} parches de {P} × {P}"],
        ["aplanar cada parche", str(tuple(secuencia.shape)), f"N = {filas}·{columnas} = {N} filas de {C}·{P}·{P}"],
        [f"nn.Linear({largo}, {D_VIT})", str(tuple(fichas.shape)), f"una ficha de d = {D_VIT} por parche"],
        ["+ [CLS] al frente", str(tuple(con_cls.shape)), f"N + 1 = {N + 1} fichas"],
    ]
    return tabla, secuencia


# --- figuras -----------------------------------------------------------------------------------

MARGEN, TITULO, ANCHO_FIG, ALTO_MAX = 0.08, 0.42, 6.4, 4.6  # pulgadas


def geometria(alto: int, ancho: int) -> tuple[float, float, float, float]:
    """(ancho de la figura, alto de la figura, ancho del eje, alto del eje) de la rejilla, en pulgadas.

    El eje ocupa la figura entera salvo márgenes fijos: así un clic en píxeles
    de la figura se traduce a píxeles de la imagen sin mirar la figura.
    """
    eje_w = ANCHO_FIG - 2 * MARGEN
    eje_h = eje_w * alto / ancho
    if eje_h > ALTO_MAX:
        eje_h, eje_w = ALTO_MAX, ALTO_MAX * ancho / alto
    return eje_w + 2 * MARGEN, eje_h + MARGEN + TITULO, eje_w, eje_h


def parche_en(x: float, y: float, alto: int, ancho: int, P: int) -> int | None:
    """El número del parche bajo el clic (x, y), en píxeles de la figura de la rejilla; None fuera de la rejilla."""
    _, _, eje_w, eje_h = geometria(alto, ancho)
    px = (x / G.DPI_PANTALLA - MARGEN) / eje_w * ancho  # columna de píxel de la imagen
    py = (y / G.DPI_PANTALLA - TITULO) / eje_h * alto
    filas, columnas = alto // P, ancho // P
    f, c = int(py // P), int(px // P)
    if px < 0 or py < 0 or not (0 <= f < filas and 0 <= c < columnas):
        return None
    return f * columnas + c


def _dibujar_rejilla(imagen: torch.Tensor, P: int):
    """La imagen con su rejilla y el número de cada parche, como la figura de la lección."""
    _, H, W = imagen.shape
    filas, columnas = H // P, W // P
    fig_w, fig_h, eje_w, eje_h = geometria(H, W)
    fig, eje = G.figura(fig_w, fig_h)
    fig.set_layout_engine("none")
    eje.set_position([MARGEN / fig_w, MARGEN / fig_h, eje_w / fig_w, eje_h / fig_h])
    eje.imshow(imagen.permute(1, 2, 0).numpy(), interpolation="nearest", aspect="auto")
    tam = _tam_numero(P, W, eje_w)
    for k in range(filas * columnas):
        f, c = divmod(k, columnas)
        eje.text(
            c * P + P / 2 - 0.5,
            f * P + P / 2 - 0.5,
            str(k),
            ha="center",
            va="center",
            fontsize=tam,
            color="white",
            bbox=_CAJA,
        )
    for f in range(filas + 1):
        eje.plot([-0.5, columnas * P - 0.5], [f * P - 0.5] * 2, color="white", linewidth=1)
    for c in range(columnas + 1):
        eje.plot([c * P - 0.5] * 2, [-0.5, filas * P - 0.5], color="white", linewidth=1)
    for x0, y0, w, h in ((columnas * P, 0, W - columnas * P, H), (0, filas * P, columnas * P, H - filas * P)):
        if w > 0 and h > 0:  # el borde que no llena un parche se descarta
            eje.add_patch(
                Rectangle(
                    (x0 - 0.5, y0 - 0.5), w, h, facecolor="white", alpha=0.55, hatch="///", edgecolor="0.5", linewidth=0
                )
            )
    eje.set_xlim(-0.5, W - 0.5)
    eje.set_ylim(H - 0.5, -0.5)
    eje.axis("off")
    descarte = " · rayado: el borde que se descarta" if (H % P or W % P) else ""
    eje.set_title(f"{filas * columnas} parches de {P} × {P} píxeles{descarte}", fontsize=12)
    return fig


_CAJA = {"boxstyle": "round,pad=0.15", "facecolor": G.C0, "edgecolor": "none"}


def _tam_numero(P: int, W: int, eje_w: float) -> float:
    """Tamaño de letra de los números: que quepan en un parche (7 a 10 pt)."""
    return float(np.clip(P / W * eje_w * 72 * 0.3, 7, 10))


@lru_cache(maxsize=12)
def _rejilla_rasterizada(imagen: str, subida: str | bytes | None, P: int) -> np.ndarray:
    """La rejilla numerada ya rasterizada a DPI_DESCARGA: dibujar cientos de números cuesta; elegir un parche no."""
    tensor, _ = foto(imagen, subida)
    return figura_a_imagen(_dibujar_rejilla(tensor, P), dpi=G.DPI_DESCARGA)


def figura_rejilla(imagen: str, subida: str | bytes | None, H: int, W: int, P: int, elegido: int):
    """La rejilla (de la caché) con el parche elegido resaltado en C1. Coordenadas en pulgadas de la figura."""
    fig_w, fig_h, eje_w, eje_h = geometria(H, W)
    fig, eje = G.figura(fig_w, fig_h)
    fig.set_layout_engine("none")
    eje.set_position([0, 0, 1, 1])
    eje.imshow(_rejilla_rasterizada(imagen, subida, P), extent=(0, fig_w, 0, fig_h), aspect="auto")
    f, c = divmod(elegido, W // P)
    lado_x, lado_y = P / W * eje_w, P / H * eje_h  # un parche, en pulgadas
    x0, y0 = MARGEN + c * lado_x, MARGEN + eje_h - (f + 1) * lado_y
    eje.add_patch(Rectangle((x0, y0), lado_x, lado_y, fill=False, edgecolor=G.C1, linewidth=2.5))
    tam = _tam_numero(P, W, eje_w)
    eje.text(
        x0 + lado_x / 2,
        y0 + lado_y / 2,
        str(elegido),
        ha="center",
        va="center",
        fontsize=tam,
        color="white",
        bbox={**_CAJA, "facecolor": G.C1},
    )
    eje.set_xlim(0, fig_w)
    eje.set_ylim(0, fig_h)
    eje.axis("off")
    return fig


def figura_secuencia(secuencia: torch.Tensor, P: int, elegido: int):
    N, largo = secuencia.shape
    fig, eje = G.figura(6.4, 3.8)
    for k, color in enumerate(("red", "green", "blue")):  # cada tercio del vector es un canal
        eje.imshow(
            secuencia[:, k * P * P : (k + 1) * P * P].numpy(),
            cmap=_NEGRO_A[color],
            vmin=0,
            vmax=1,
            aspect="auto",
            interpolation="nearest",
            extent=(k * P * P - 0.5, (k + 1) * P * P - 0.5, N - 0.5, -0.5),
        )
        eje.text((k + 0.5) * P * P, -0.7, "RGB"[k], ha="center", va="bottom", fontsize=11, color=color)
    eje.set_xlim(-0.5, largo - 0.5)
    eje.set_ylim(N - 0.5, -0.5)
    eje.add_patch(Rectangle((-0.5, elegido - 0.5), largo, 1, fill=False, edgecolor=G.C1, linewidth=2))
    eje.annotate(
        f"parche {elegido}",
        (largo - 0.5, elegido),
        xytext=(6, 0),
        textcoords="offset points",
        va="center",
        ha="left",
        color=G.C1,
        fontsize=10,
        annotation_clip=False,
    )
    eje.set_xlabel(f"Los {largo} números de un parche aplanado (3 · {P} · {P}): rojo, verde, azul")
    eje.set_ylabel(f"Parche (fila de la secuencia, N = {N})")
    eje.set_xticks([0, P * P, 2 * P * P, largo - 1])
    eje.set_title("La secuencia: un parche aplanado por fila", pad=18)
    return fig


def figura_parche(imagen: torch.Tensor, P: int, k: int, columnas: int):
    f, c = divmod(k, columnas)
    recorte = imagen[:, f * P : (f + 1) * P, c * P : (c + 1) * P]  # (3, P, P)
    fig, ejes = G.figura(4.6, 4.9, 2, 2)
    ejes = ejes.ravel()
    ejes[0].imshow(recorte.permute(1, 2, 0).numpy(), interpolation="nearest")
    ejes[0].set_title(f"Parche {k}: fila {f}, col. {c}", fontsize=11)
    for i, (eje, color) in enumerate(zip(ejes[1:], ("red", "green", "blue"), strict=True)):
        eje.imshow(recorte[i].numpy(), cmap=_NEGRO_A[color], vmin=0, vmax=1, interpolation="nearest")
        eje.set_title(f"{'RGB'[i]}: números {i * P * P}–{(i + 1) * P * P - 1}", fontsize=11)
    for eje in ejes:
        eje.set_xticks([])
        eje.set_yticks([])
    ejes[0].set_xlabel(f"x {c * P}–{c * P + P - 1}, y {f * P}–{f * P + P - 1} (px)")
    fig.suptitle("El parche y sus tres canales", fontsize=12)
    return fig
