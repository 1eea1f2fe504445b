"""Imágenes que llegan de fuera: subidas (cualquier formato que Pillow lea) y dibujos del Sketchpad.

Todo pasa por `abrir_imagen`, que mira el tamaño declarado en la cabecera ANTES
de decodificar (una «bomba de descompresión» es un PNG de pocos kB que declara
30000 × 30000 píxeles), decodifica ya reducido cuando el formato lo permite
(JPEG), endereza según EXIF, lleva cualquier modo (L, P, RGBA, I;16, CMYK…) a
RGB de 0 a 1 y reduce al lado mayor pedido. Lo que no se puede leer da un
`ValueError` en español.

La memoria de una imagen está acotada: se reduce en su modo original (16 bits, paleta, CMYK)
antes de convertirla, y las de más de `PIXELES_SIN_TURNO` se decodifican de a `TURNOS_GRANDES`
en todo el proceso (la que no consigue turno en `ESPERA_TURNO_S` recibe un mensaje en español).
Medido con 12 de 25 megapíxeles en 16 bits a la vez: RSS +5.0 GB antes, ≈ +0.1 GB ahora.

Los dos componentes del final (`Subida`, `Dibujo`) le
pasan a la función de cálculo el archivo sin abrir, para que sea ella quien lo
valide y responda en español.
"""

from __future__ import annotations

import base64
import io
import os
import re
import threading
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np
from PIL import Image

from demos.comun.controles import rechazar_invalido, tolerante
from demos.comun.gradio_interno import trozos_del_lienzo
from demos.comun.seguridad import exigir_subida, rechazo

MAX_BYTES = 20 * 2**20  # un archivo más pesado no se abre
MAX_PIXELES = 25_000_000  # ancho × alto declarados (una foto de 24 megapíxeles cabe)
MAX_PROPORCION = 20  # lado mayor / lado menor
LADO_VISTA = 640  # las subidas se reducen a este lado mayor antes de nada
LADO_DIBUJO = 256  # un dibujo no necesita más para llegar a 8 × 8
PIXELES_SIN_TURNO = 2_000_000  # una imagen más chica (un dibujo, una foto reducida) no espera turno
TURNOS_GRANDES = 2  # imágenes grandes decodificándose a la vez en el proceso (≈ 60 MB cada una)
ESPERA_TURNO_S = 30.0
_TURNOS = threading.BoundedSemaphore(TURNOS_GRANDES)
FORMATOS = "PNG, JPEG, GIF, BMP, TIFF o WebP"
# Los únicos decodificadores de Pillow que se prueban: un EPS, por ejemplo, llamaría a Ghostscript.
FORMATOS_PILLOW = ("PNG", "JPEG", "GIF", "BMP", "TIFF", "WEBP")

UMBRAL_TINTA = 0.2  # por debajo, ruido de compresión del lienzo: no cuenta como trazo


def _bytes_de(fuente: Any) -> io.BytesIO | str:
    """Ruta o bytes -> algo que `Image.open` acepta, comprobando el peso del archivo."""
    if isinstance(fuente, bytes | bytearray | memoryview):
        if len(fuente) > MAX_BYTES:
            raise ValueError(f"El archivo pesa más de {MAX_BYTES // 2**20} MB; sube uno más liviano.")
        return io.BytesIO(bytes(fuente))
    if isinstance(fuente, str | Path):
        ruta = str(fuente)
        if not os.path.isfile(ruta):
            raise ValueError("No llegó el archivo de la imagen; vuelve a subirla.")
        if os.path.getsize(ruta) > MAX_BYTES:
            raise ValueError(f"El archivo pesa más de {MAX_BYTES // 2**20} MB; sube uno más liviano.")
        return ruta
    raise ValueError(f"Se esperaba una imagen ({FORMATOS}); llegó un valor de tipo {type(fuente).__name__}.")


def _comprobar_tamano(ancho: int, alto: int) -> None:
    if ancho * alto > MAX_PIXELES:
        raise ValueError(
            f"La imagen declara {alto} × {ancho} píxeles de alto × ancho ({ancho * alto / 1e6:.0f} megapíxeles); "
            f"se aceptan hasta {MAX_PIXELES // 1_000_000} megapíxeles. Redúcela antes de subirla."
        )
    if max(ancho, alto) > MAX_PROPORCION * min(ancho, alto):
        raise ValueError(
            f"La imagen mide {ancho} × {alto} píxeles: es demasiado alargada. "
            f"Se aceptan proporciones de hasta {MAX_PROPORCION}:1."
        )


def _a_rgb(im: Image.Image) -> Image.Image:
    """Cualquier modo -> RGB de 8 bits; la transparencia se pinta sobre blanco."""
    if im.mode in ("I", "F") or im.mode.startswith("I;16"):
        a = np.asarray(im.convert("F") if im.mode != "F" else im, dtype=np.float32)  # (H, W)
        tope = 65535.0 if im.mode.startswith("I;16") or (im.mode == "I" and a.max() > 255) else 255.0
        if im.mode == "F" and np.isfinite(a).all() and a.max() <= 1.0:
            tope = 1.0
        a = np.clip(np.nan_to_num(a) / tope, 0, 1)
        return Image.fromarray((a * 255 + 0.5).astype(np.uint8), "L").convert("RGB")
    if im.mode in ("P", "PA", "LA", "RGBA", "La", "RGBa") or "transparency" in im.info:
        im = im.convert("RGBA")
        return Image.alpha_composite(Image.new("RGBA", im.size, "white"), im).convert("RGB")
    return im.convert("RGB")


def _reducir(im: Image.Image, lado_max: int) -> Image.Image:
    """A ≈ 2 × `lado_max` en su modo original (promedio por cajas), antes de convertir nada a RGB.

    Convertir primero una de 25 megapíxeles en 16 bits pasaba por varias copias en float32
    (≈ 430 MB); reducida, la conversión y el LANCZOS final trabajan sobre ≈ 1 megapíxel.
    """
    factor = max(im.size) // (2 * lado_max)
    if factor < 2:
        return im
    tamano = (-(-im.width // factor), -(-im.height // factor))
    return im.resize(tamano, Image.Resampling.BOX)  # paleta y 1 bit: Pillow usa el vecino más cercano


def _orientar(im: Image.Image, orientacion: int | None) -> Image.Image:
    """La orientación EXIF leída del original (la imagen reducida ya no trae su EXIF en TIFF)."""
    metodo = {
        2: Image.Transpose.FLIP_LEFT_RIGHT,
        3: Image.Transpose.ROTATE_180,
        4: Image.Transpose.FLIP_TOP_BOTTOM,
        5: Image.Transpose.TRANSPOSE,
        6: Image.Transpose.ROTATE_270,
        7: Image.Transpose.TRANSVERSE,
        8: Image.Transpose.ROTATE_90,
    }.get(orientacion)
    return im.transpose(metodo) if metodo is not None else im


class _Turno:
    """El turno para decodificar una imagen grande (no hace nada con una chica)."""

    def __init__(self, pixeles: int):
        self.grande = pixeles > PIXELES_SIN_TURNO

    def __enter__(self):
        if self.grande and not _TURNOS.acquire(timeout=ESPERA_TURNO_S):
            raise ValueError(
                "El servidor está abriendo otras imágenes grandes en este momento; prueba de nuevo en un "
                "momento o sube una más pequeña."
            )
        return self

    def __exit__(self, *exc):
        if self.grande:
            _TURNOS.release()


def abrir_imagen(fuente: Any, lado_max: int = LADO_VISTA) -> tuple[np.ndarray, str]:
    """Ruta o bytes de una imagen -> (RGB (alto, ancho, 3) float32 de 0 a 1, descripción).

    El lado mayor queda ≤ `lado_max` (se reduce, nunca se amplía). La
    descripción dice formato, modo y tamaño original, y si se redujo.
    """
    archivo = _bytes_de(fuente)
    try:
        im = Image.open(archivo, formats=FORMATOS_PILLOW)  # perezoso: solo lee la cabecera
    except Image.DecompressionBombError as e:  # Pillow la detecta en la cabecera, sin decodificar
        declarados = re.search(r"\((\d+) pixels\)", str(e))
        cuantos = f"{int(declarados[1]) / 1e6:.0f}" if declarados else f"más de {2 * Image.MAX_IMAGE_PIXELS / 1e6:.0f}"
        raise ValueError(
            f"La imagen declara {cuantos} megapíxeles; se aceptan hasta {MAX_PIXELES // 1_000_000} megapíxeles. "
            "Redúcela antes de subirla."
        ) from None
    except Exception:
        raise ValueError(
            f"El archivo no es una imagen que se pueda leer. Se aceptan {FORMATOS} (un SVG no sirve)."
        ) from None
    with im:
        ancho, alto = im.size
        _comprobar_tamano(ancho, alto)
        formato, modo = im.format or "imagen", im.mode
        with _Turno(ancho * alto):
            try:
                im.draft(None, (lado_max, lado_max))  # JPEG: decodifica ya reducido (1/2, 1/4, 1/8)
                orientacion = im.getexif().get(0x0112)
                im = _orientar(_reducir(im, lado_max), orientacion)  # reducir también decodifica
                im = _a_rgb(im)
                im.thumbnail((lado_max, lado_max), Image.Resampling.LANCZOS)
            except (OSError, EOFError, SyntaxError):  # lo que Pillow lanza con un archivo cortado o corrupto
                raise ValueError(
                    f"No se pudo decodificar la imagen ({formato}, {ancho} × {alto} px): el archivo está dañado o "
                    "incompleto. Vuelve a guardarla o súbela de nuevo."
                ) from None
            except Exception:
                raise ValueError(
                    f"No se pudo convertir la imagen ({formato}, modo de color {modo}) a RGB. Se aceptan {FORMATOS} "
                    "en gris, RGB, RGBA, paleta, 16 bits o CMYK."
                ) from None
    rgb = np.asarray(im, dtype=np.float32) / 255  # (alto, ancho, 3)
    descripcion = f"{formato} {modo} de {alto} × {ancho} px (alto × ancho)"
    if rgb.shape[:2] != (alto, ancho) and rgb.shape[:2] != (ancho, alto):
        descripcion += f", reducida a {rgb.shape[0]} × {rgb.shape[1]} px"
    return rgb, descripcion


# --- dibujos ----------------------------------------------------------------------------------


def _capa_del_dibujo(valor: Any) -> Any:
    """El valor del Sketchpad (dict con composite, background, layers) -> la imagen compuesta o None."""
    if isinstance(valor, dict):
        for clave in ("composite", "background"):
            if valor.get(clave) is not None:
                return valor[clave]
        capas = [c for c in valor.get("layers") or [] if c is not None]
        return capas[-1] if capas else None
    return valor


def tinta_desde_dibujo(valor: Any) -> np.ndarray | None:
    """Un dibujo -> tinta (alto, ancho) de 0 (fondo) a 1 (trazo), o None si está vacío.

    Acepta el valor del Sketchpad, una ruta, bytes o un arreglo. El lienzo de
    Gradio llega en RGBA: trazo negro sobre fondo transparente, que aquí se
    pinta sobre blanco. La tinta es cuánto se aparta cada píxel del fondo (la
    mediana del borde): vale igual para trazo oscuro sobre claro que para trazo
    claro sobre oscuro, y un lienzo liso (blanco, negro o de un color) queda vacío.
    """
    capa = _capa_del_dibujo(valor)
    if capa is None:
        return None
    if isinstance(capa, np.ndarray):
        gris = _gris_de_arreglo(capa)
    else:
        rgb, _ = abrir_imagen(capa, LADO_DIBUJO)
        gris = rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)  # (alto, ancho) de 0 a 1
    borde = np.concatenate([gris[0], gris[-1], gris[:, 0], gris[:, -1]])
    tinta = np.abs(gris - np.median(borde))
    tinta = np.where(tinta < UMBRAL_TINTA, 0, tinta).astype(np.float32)
    return tinta if tinta.any() else None


def _gris_de_arreglo(a: np.ndarray) -> np.ndarray:
    """Arreglo (alto, ancho[, 1|3|4]) de 0..255 o 0..1 -> gris (alto, ancho) de 0 a 1 sobre blanco."""
    if a.ndim not in (2, 3) or a.size == 0 or a.size > MAX_PIXELES or (a.ndim == 3 and a.shape[2] not in (1, 3, 4)):
        raise ValueError("El dibujo debe ser una imagen (alto × ancho, en gris, RGB o RGBA).")
    a = np.nan_to_num(a.astype(np.float32))
    a = a / 255 if a.max() > 1 else a
    if a.ndim == 2:
        return a
    if a.shape[2] == 4:
        alfa = a[..., 3:]
        a = a[..., :3] * alfa + (1 - alfa)  # sobre blanco
    return a[..., :3].mean(axis=2) if a.shape[2] >= 3 else a[..., 0]


# --- componentes: dejan el archivo sin abrir para que la función de cálculo lo valide ---------


def _donde(componente) -> str:
    """Para el log: la pestaña del componente (la marca `app`) o su etiqueta."""
    return getattr(componente, "pestana", None) or str(componente.label or type(componente).__name__)


def _subida(componente, ruta) -> str:
    """La ruta si es un archivo que un visitante subió (`exigir_subida`); si no, el error en español."""
    try:
        return exigir_subida(ruta)
    except ValueError as e:
        raise rechazo(str(e), _donde(componente)) from None


class Subida(gr.Image):
    """Un gr.Image de subida que entrega la ruta del archivo sin abrirlo (ni rechazarlo en inglés).

    Solo entrega archivos de la carpeta de subidas de Gradio: una ruta del servidor
    (`/etc/hostname`, `/dev/zero`, un enlace simbólico) se rechaza aquí, aunque Gradio la dejara pasar.
    """

    is_template = True
    data_model = tolerante(gr.Image.data_model)

    def preprocess(self, payload):
        if payload is None:
            return None
        rechazar_invalido(
            payload, "Eso no es una imagen: sube un archivo JPEG, PNG, GIF, BMP, TIFF o WebP.", _donde(self)
        )
        url = payload.url or ""
        if url.startswith("data:"):  # imagen en base64 (pegada del portapapeles)
            if len(url) > MAX_BYTES * 4 // 3 + 100:
                raise rechazo(f"El archivo pesa más de {MAX_BYTES // 2**20} MB.", _donde(self))
            try:
                return base64.b64decode(url.split(",", 1)[1], validate=False)
            except Exception:
                return b""
        return _subida(self, payload.path)

    def get_config(self):
        """Sin `placeholder`, Gradio escribe «Drop Image Here · Click to Upload» en el idioma del navegador."""
        config = super().get_config()
        config["placeholder"] = config.get("placeholder") or AVISO_SUBIDA
        return config


AVISO_SUBIDA = "# Suelta aquí una imagen\no haz clic para elegirla"


class Dibujo(gr.ImageEditor):
    """Un lienzo (como gr.Sketchpad) que entrega {"composite", "background", "layers"} como rutas o bytes, sin abrirlos.

    Hereda de gr.ImageEditor y no de gr.Sketchpad: una plantilla toma la vista
    del navegador de su clase madre, y «sketchpad» no tiene vista propia.
    """

    is_template = True
    data_model = tolerante(gr.ImageEditor.data_model)

    def preprocess(self, payload):
        if payload is None:
            return None
        mensaje = "Eso no es un dibujo: usa el lienzo (o envía fondo, capas y composición como imágenes)."
        rechazar_invalido(payload, mensaje, _donde(self))
        datos = payload
        if payload.id is not None:
            datos = trozos_del_lienzo(self).pop(payload.id, None)
            if datos is None:
                return None

        def crudo(x):
            return None if x is None else (x if isinstance(x, bytes) else _subida(self, x.path))

        return {
            "background": crudo(datos.background),
            "layers": [crudo(c) for c in datos.layers or [] if c is not None],
            "composite": crudo(datos.composite),
        }


def lienzo_digito(**kw) -> Dibujo:
    """El lienzo para dibujar un dígito: pincel negro grueso, sin capas ni recortes."""
    kw.setdefault("label", "Dibuja un dígito (0–9)")
    # demos/servir/pagina/base.css cambia por «Elige el pincel y dibuja» el «select the draw tool» del lienzo vacío
    clases = [*(kw.pop("elem_classes", None) or []), "lienzo"]
    return Dibujo(
        sources=(),
        canvas_size=(256, 256),
        fixed_canvas=True,
        brush=gr.Brush(default_size=14, colors=["#000000"], color_mode="fixed"),
        layers=False,
        transforms=(),
        elem_classes=clases,
        **kw,
    )
