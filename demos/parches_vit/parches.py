"""Las piezas de «Parches ViT»: la imagen, sus parches, las formas de cada paso y las figuras.

Una imagen (3, H, W) se corta con `unfold` en parches de P × P en orden de
filas: el parche k está en la fila k // (W // P) y la columna k % (W // P).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import torch
from torch import nn

from demos.comun.figuras import C0, C1, Imagen, Nota, Paneles
from demos.comun.fotos import imagen_muestra, recorte_leccion
from demos.comun.imagenes import abrir_imagen
from modelos import BloqueTransformer, parches

IMAGEN_LECCION = "recorte de la lección (china.jpg, 96 × 160 px)"
IMAGEN_SUBIDA = "mi imagen (subida)"
IMAGENES = (IMAGEN_LECCION, "china.jpg (107 × 160 px)", "flower.jpg (107 × 160 px)", IMAGEN_SUBIDA)
LADOS = ("8", "16", "32")  # P, como texto para que también valga desde la URL
D_VIT = 64  # la dimensión de las fichas, como en la lección
LADO_REDUCIDA = 160  # la escala de la lección: [::4, ::4] de una foto de 640 px
MAX_PARCHE = 100_000


@lru_cache(maxsize=8)
def _subida(fuente: str | bytes) -> tuple[np.ndarray, str]:
    return abrir_imagen(fuente, LADO_REDUCIDA)


def clave_subida(imagen: str, subida: Any) -> str | bytes | None:
    """La subida como clave de caché (ruta o bytes); None si la imagen elegida no es la subida."""
    if imagen != IMAGEN_SUBIDA or subida is None:
        return None
    return subida if isinstance(subida, bytes) else str(subida)


@lru_cache(maxsize=len(IMAGENES) + 1)
def _muestra(nombre: str) -> torch.Tensor:
    """Una foto de muestra como la usa la pestaña, decodificada una vez por proceso (≈ 20 ms cada vez)."""
    if nombre == IMAGEN_LECCION:
        return recorte_leccion()  # (3, 96, 160)
    reducida = imagen_muestra(nombre)[::4, ::4]  # (107, 160, 3): un píxel de cada 4, como la lección
    return torch.tensor(reducida).permute(2, 0, 1) / 255


def foto(imagen: str = IMAGEN_LECCION, subida: Any = None) -> tuple[torch.Tensor, str]:
    """La imagen elegida como (3, H, W) de 0 a 1 y su descripción."""
    if imagen == IMAGEN_LECCION:
        return _muestra(IMAGEN_LECCION).clone(), "el recorte de la lección: china.jpg[::4, ::4][:96, :160]"
    if imagen == IMAGEN_SUBIDA:
        if subida is None:
            raise ValueError("Sube una imagen en el recuadro «Tu imagen» (PNG, JPEG, GIF, BMP, TIFF o WebP).")
        rgb, descripcion = _subida(clave_subida(imagen, subida))
        return torch.from_numpy(rgb.copy()).permute(2, 0, 1), f"tu imagen ({descripcion}, lado mayor ≤ 160 px)"
    if imagen not in IMAGENES:
        raise ValueError("La imagen debe ser una de: " + ", ".join(f"«{i}»" for i in IMAGENES) + ".")
    nombre = imagen.split(" ")[0]
    return _muestra(nombre).clone(), f"{nombre}[::4, ::4]"


def lado_parche(P: Any, alto: int, ancho: int) -> int:
    """P validado: 8, 16 o 32, y que quepa en la imagen."""
    if str(P).strip() not in LADOS and P not in (8, 16, 32):
        raise ValueError(f"El lado del parche P debe ser 8, 16 o 32 píxeles; llegó {P!s:.20}.")
    P = int(str(P).strip())
    if P > min(alto, ancho):
        raise ValueError(
            f"La imagen mide {alto} × {ancho} px (alto × ancho): un parche de {P} × {P} no cabe. Elige un P menor "
            "u otra imagen."
        )
    return P


@lru_cache(maxsize=len(LADOS))
def _proyeccion(entrada: int) -> nn.Linear:
    """La proyección lineal de cada parche aplanado a una ficha de D_VIT números (sin entrenar)."""
    return nn.Linear(entrada, D_VIT).requires_grad_(False)


@lru_cache(maxsize=1)
def _bloque() -> BloqueTransformer:
    """El bloque de la lección para las fichas de la imagen: d = D_VIT, 4 cabezas, MLP de 4·d (sin entrenar)."""
    return BloqueTransformer(D_VIT, 4, 4 * D_VIT).requires_grad_(False).eval()


def formas(imagen: torch.Tensor, P: int) -> tuple[list[list[str]], torch.Tensor]:
    """Cada paso de imagen a fichas, calculado de verdad: (tabla de formas, secuencia (N, 3·P·P))."""
    C, H, W = imagen.shape
    cortes = imagen.unfold(1, P, P).unfold(2, P, P)  # (C, filas, columnas, P, P)
    secuencia = parches(imagen, P)  # (N, C·P·P)
    N, largo = secuencia.shape
    with torch.inference_mode():
        fichas = _proyeccion(largo)(secuencia.unsqueeze(0))  # (1, N, d)
        con_cls = torch.cat([fichas.new_zeros(1, 1, D_VIT), fichas], dim=1)  # (1, N+1, d)
        pos_vit = fichas.new_zeros(1, N + 1, D_VIT)  # como la lección: parámetro en ceros que se aprende al entrenar
        con_pos = con_cls + pos_vit  # (1, N+1, d): sin esto, el bloque no sabe de qué lugar viene cada parche
        z, _ = _bloque()(con_pos)  # (1, N+1, d): la misma forma, así los bloques se apilan
    filas, columnas = cortes.shape[1:3]
    tabla = [
        ["imagen", str(tuple(imagen.shape)), f"{C} canales de {H} × {W} píxeles"],
        ["unfold(1, P, P).unfold(2, P, P)", str(tuple(cortes.shape)), f"{filas} × {columnas} parches de {P} × {P}"],
        ["aplanar cada parche", str(tuple(secuencia.shape)), f"N = {filas}·{columnas} = {N} filas de {C}·{P}·{P}"],
        [f"nn.Linear({largo}, {D_VIT})", str(tuple(fichas.shape)), f"una ficha de d = {D_VIT} por parche"],
        ["+ [CLS] al frente", str(tuple(con_cls.shape)), f"N + 1 = {N + 1} fichas"],
        ["+ pos_vit (una posición por ficha)", str(tuple(con_pos.shape)), "se suma un vector aprendido por lugar"],
        ["bloque transformer (4 cabezas)", str(tuple(z.shape)), "la misma forma: cada ficha miró a las demás"],
        ["resumen: la ficha [CLS]", str(tuple(z[:, 0].shape)), "lo que el clasificador lee de toda la imagen"],
    ]
    return tabla, secuencia


# --- figuras -----------------------------------------------------------------------------------

CANALES = ("rojo", "verde", "azul")


def _rgb(imagen: torch.Tensor) -> np.ndarray:
    """(3, H, W) de 0 a 1 -> (H, W, 3) uint8."""
    return (imagen.permute(1, 2, 0).numpy() * 255).round().clip(0, 255).astype(np.uint8)


def _centro(k: int, columnas: int, P: int) -> tuple[float, float]:
    """(x, y) del centro del parche k, en coordenadas de píxel."""
    f, c = divmod(k, columnas)
    return c * P + P / 2 - 0.5, f * P + P / 2 - 0.5


def figura_rejilla(imagen: torch.Tensor, P: int, elegido: int) -> Imagen:
    """La imagen con su rejilla y el número de cada parche, como la figura de la lección; el elegido en C1.

    Al pasar el ratón, una capa invisible (un valor por parche) dice qué parche hay debajo.
    El borde que no llena un parche se descarta: se ve aclarado.
    """
    _, H, W = imagen.shape
    filas, columnas = H // P, W // P
    pixeles = _rgb(imagen)
    borde = np.ones((H, W), bool)
    borde[: filas * P, : columnas * P] = False
    pixeles[borde] = (0.45 * pixeles[borde] + 0.55 * 255).astype(np.uint8)
    rotulos = tuple(
        Nota(*_centro(k, columnas, P), str(k), marca=False, color=C1 if k == elegido else C0)
        for k in range(filas * columnas)
    )
    f, c = divmod(elegido, columnas)
    descarte = " · aclarado: el borde que se descarta" if borde.any() else ""
    return Imagen(
        pixeles,
        titulo=f"{filas * columnas} parches de {P} × {P} píxeles{descarte}",
        capa=np.arange(filas * columnas, dtype=float).reshape(filas, columnas),
        opacidad=0.0,
        vmax=max(filas * columnas - 1, 1),
        caja_capa=(-0.5, -0.5, columnas * P - 0.5, filas * P - 0.5),
        formato=".0f",
        pista="parche {v}",
        rejilla=P,
        recuadros=((c * P - 0.5, f * P - 0.5, (c + 1) * P - 0.5, (f + 1) * P - 0.5),),
        rotulos=rotulos,
    )


def pixeles_secuencia(secuencia: torch.Tensor, P: int) -> np.ndarray:
    """La secuencia (N, 3·P·P) como imagen (N, 3·P·P, 3) uint8: cada tercio de la fila en su canal de color."""
    N, largo = secuencia.shape
    pixeles = np.zeros((N, largo, 3), np.uint8)
    valores = (secuencia.numpy() * 255).round().clip(0, 255).astype(np.uint8)
    for k in range(3):  # cada tercio del vector es un canal
        tercio = slice(k * P * P, (k + 1) * P * P)
        pixeles[:, tercio, k] = valores[:, tercio]
    return pixeles


def figura_secuencia(secuencia: torch.Tensor, P: int, elegido: int) -> Imagen:
    """Un parche aplanado por fila, cada canal en su color; la fila del parche elegido recuadrada en C1.

    La imagen se estira a lo ancho del panel (N filas de 3·P·P números no caben en píxeles cuadrados).
    """
    N, largo = secuencia.shape
    return Imagen(
        pixeles_secuencia(secuencia, P),
        titulo=f"La secuencia: {N} parches × {largo} números (R | G | B)",
        capa=np.arange(N, dtype=float)[:, None],  # (N, 1): una fila por parche
        opacidad=0.0,
        vmax=max(N - 1, 1),
        formato=".0f",
        pista="fila {v}: el parche {v} aplanado",
        recuadros=((-0.5, elegido - 0.5, largo - 0.5, elegido + 0.5),),
        rotulos=(Nota(largo * 0.06, elegido, f"parche {elegido}", marca=False, color=C1),),
        estirar=True,
    )


def figura_parche(imagen: torch.Tensor, P: int, k: int, columnas: int) -> Paneles:
    """El parche k ampliado y sus tres canales (cada uno en su color, del negro al rojo, verde o azul)."""
    f, c = divmod(k, columnas)
    recorte = imagen[:, f * P : (f + 1) * P, c * P : (c + 1) * P]  # (3, P, P)
    rgb = _rgb(recorte)
    paneles = [Imagen(rgb, titulo=f"x {c * P}–{c * P + P - 1}, y {f * P}–{f * P + P - 1} (px)")]
    for i, nombre in enumerate(CANALES):
        solo = np.zeros_like(rgb)
        solo[..., i] = rgb[..., i]
        paneles.append(
            Imagen(
                solo,
                # Dónde queda el canal en el parche aplanado, como se lee en PyTorch (corto: dos por fila a 1280 px).
                titulo=f"{'RGB'[i]}: vector[{i * P * P}:{(i + 1) * P * P}]",
                capa=recorte[i].numpy().round(2),  # la pista muestra 2 decimales: no manda más
                opacidad=0.0,
                pista=f"{nombre}: {{v}}",
            )
        )
    titulo = f"El parche {k} (fila {f}, columna {c}) y sus tres canales"
    return Paneles(tuple(paneles), columnas=2, titulo=titulo, alto_fila=200)
