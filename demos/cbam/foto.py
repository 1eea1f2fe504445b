"""La segunda parte de «CBAM en imagen»: la mecánica de la rama espacial sobre una foto.

    resumen = [media_c(x), máx_c(x)]    (1, 2, H, W)
    z = conv7×7(resumen)                (1, 1, H, W)
    m = σ(z)                            (1, 1, H, W), de 0 a 1

Nada de esto necesita entrenamiento salvo los parámetros de la convolución: aquí son
un núcleo fijo de suavizado gaussiano (no aprendido) o los aprendidos por la
rama espacial de `cbam-digitos`, y la figura dice cuáles.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import gradio as gr
import numpy as np
import torch

import modelos
from demos.comun.controles import Opcion
from demos.comun.figuras import Imagen, Mapa, Paneles, numero
from demos.comun.fotos import imagen_muestra
from demos.comun.imagenes import Subida, abrir_imagen
from demos.comun.vista import LATEX, envolver, grafico, llenar_al_abrir, un_reloj
from modelos import AtencionEspacial
from modelos.datos import digitos_sklearn

API = "cbam_foto"
FOTO_SUBIDA = "mi imagen (subida)"
FOTOS = ("china.jpg", "flower.jpg", FOTO_SUBIDA)
PESOS_FIJOS = "núcleo fijo: suavizado gaussiano (no aprendido)"
PESOS_APRENDIDOS = "parámetros aprendidos de cbam-digitos"
PESOS = (PESOS_FIJOS, PESOS_APRENDIDOS)
SIGUE_AL_BRILLO = "m sigue al brillo de la foto: no es atención aprendida"
KERNEL, SIGMA = 7, 1.5
LADO = 160  # la escala de la lección ([::4, ::4]): así un núcleo de 7 × 7 píxeles se nota
MAX_CASILLAS_MAPA = 2500  # cada mapa de la foto, promediado de a k × k píxeles hasta no pasar de aquí (≈ 12 kB)

EXPLICACION = r"""
### La mecánica en una foto
La rama espacial no necesita nada entrenado para sus primeros pasos: la **media** y el **máximo** sobre los
canales dan dos mapas de $H \times W$; una **convolución 7 × 7** los mezcla en uno y la **sigmoide** lo lleva
a $[0, 1]$. Solo los 2 · 7 · 7 = 98 parámetros de la convolución se aprenden. Elige cuáles usar. La foto entra reducida
a lado mayor 160 px y normalizada por canal (media 0, desviación típica 1) para que los tres canales pesen
parecido. Ojo: no es así como le llegan los datos al CBAM de `cbam-digitos`, que recibe activaciones después de una
ReLU, todas ≥ 0.
"""


def _kernel_gaussiano() -> torch.Tensor:
    """(1, 2, 7, 7): un suavizado gaussiano (σ = 1.5 px) que promedia la media y el máximo por igual."""
    r = torch.arange(KERNEL, dtype=torch.float32) - KERNEL // 2
    g = torch.exp(-(r[:, None] ** 2 + r[None, :] ** 2) / (2 * SIGMA**2))  # (7, 7)
    g = g / g.sum()
    return torch.stack([g, g])[None] / 2  # (1, 2, 7, 7): la mitad para cada canal del resumen


@lru_cache(maxsize=1)
def _espacial_fija() -> AtencionEspacial:
    modulo = AtencionEspacial(KERNEL).requires_grad_(False).eval()
    modulo.conv.weight.copy_(_kernel_gaussiano())
    return modulo


def rama_espacial(pesos: str = PESOS_FIJOS) -> AtencionEspacial:
    """El módulo cuya convolución se usa: el del núcleo fijo, o la rama espacial de `cbam-digitos` (compartido)."""
    if pesos == PESOS_FIJOS:
        return _espacial_fija()
    if pesos != PESOS_APRENDIDOS:
        raise ValueError(f"Los parámetros de la convolución deben ser «{PESOS_FIJOS}» o «{PESOS_APRENDIDOS}».")
    try:
        return modelos.cargar("cbam-digitos").cbam.espacial
    except Exception:
        raise ValueError("El modelo «cbam-digitos» no está disponible todavía; usa el núcleo fijo.") from None


@lru_cache(maxsize=1)
def minimo_activaciones() -> float:
    """El menor valor que recibe el CBAM de `cbam-digitos` en el conjunto de prueba (sale de una ReLU: 0)."""
    modelo = modelos.cargar("cbam-digitos")
    with torch.inference_mode():
        return modelo.extractor(digitos_sklearn()[1].to(modelos.dispositivo())).min().item()


def foto(imagen: str = FOTOS[0], subida: Any = None) -> tuple[np.ndarray, str]:
    """La foto elegida, (H, W, 3) de 0 a 1 con lado mayor ≤ 160, y su descripción."""
    if imagen == FOTO_SUBIDA:
        if subida is None:
            raise ValueError("Sube una imagen en el recuadro «Tu imagen» (PNG, JPEG, GIF, BMP, TIFF o WebP).")
        rgb, descripcion = abrir_imagen(subida, LADO)
        return rgb, f"tu imagen ({descripcion}, lado mayor ≤ {LADO} px)"
    if imagen not in FOTOS:
        raise ValueError("La foto debe ser una de: " + ", ".join(f"«{f}»" for f in FOTOS) + ".")
    return imagen_muestra(imagen)[::4, ::4].astype(np.float32) / 255, f"{imagen}[::4, ::4]"


def pasos(rgb: np.ndarray, modulo: AtencionEspacial) -> dict[str, np.ndarray]:
    """Cada paso de la rama espacial sobre la foto (H, W, 3): resumen, convolución, sigmoide, foto × mapa."""
    x = torch.tensor(rgb, dtype=torch.float32).permute(2, 0, 1)[None]  # (1, 3, H, W)
    desviacion = x.std(dim=(2, 3), keepdim=True).clamp_min(1e-6) if x[0, 0].numel() > 1 else torch.ones(1, 3, 1, 1)
    x = (x - x.mean(dim=(2, 3), keepdim=True)) / desviacion
    peso = modulo.conv.weight
    with torch.inference_mode():
        x = x.to(peso.device)
        resumen = AtencionEspacial.resumen(x)  # (1, 2, H, W)
        z = modulo.conv(resumen)  # (1, 1, H, W)
        m = torch.sigmoid(z)
    a_cpu = lambda t: t[0].float().cpu().numpy()  # noqa: E731
    return {
        "media": a_cpu(resumen)[0],
        "maximo": a_cpu(resumen)[1],
        "z": a_cpu(z)[0],
        "mapa": a_cpu(m)[0],
        "kernel": peso[0].detach().float().cpu().numpy(),  # (2, 7, 7)
        "ponderada": rgb * a_cpu(m)[0][..., None],
    }


def reduccion(H: int, W: int) -> int:
    """De a cuántos píxeles (k × k) se promedia un mapa de H × W para no pasar de MAX_CASILLAS_MAPA casillas."""
    k = 1
    while -(-H // k) * -(-W // k) > MAX_CASILLAS_MAPA:
        k += 1
    return k


def _reducir(mapa: np.ndarray) -> np.ndarray:
    """(H, W) -> promedio de bloques de k × k (`reduccion`), con 2 decimales: así la respuesta pesa poco."""
    H, W = mapa.shape
    k = reduccion(H, W)
    relleno = np.pad(mapa, ((0, -H % k), (0, -W % k)), mode="edge")  # (H', W'), múltiplos de k
    return relleno.reshape(relleno.shape[0] // k, k, relleno.shape[1] // k, k).mean(axis=(1, 3)).round(2)


def _mapa(mapa: np.ndarray, titulo: str, pista: str, tope: float | None = None) -> Mapa:
    """Un paso de la rama espacial: divergente alrededor de 0 (±`tope`) o, sin `tope`, de 0 a 1 (la sigmoide)."""
    comunes = {"titulo": titulo, "pista": pista, "cuadrado": True, "numeros": False, "ejes": False}
    if tope is None:
        return Mapa(_reducir(mapa), barra="m", **comunes)
    return Mapa(_reducir(mapa), vmin=-tope, vmax=tope, colores="divergente", barra="valor", **comunes)


def _tope(*mapas: np.ndarray) -> float:
    return max(float(np.abs(m).max()) for m in mapas) or 1.0


def _figura_pasos(rgb: np.ndarray, p: dict, etiqueta: str) -> Paneles:
    a_uint8 = lambda x: (np.clip(x, 0, 1) * 255).round().astype(np.uint8)  # noqa: E731
    tope = _tope(p["media"], p["maximo"])  # media y máximo en la misma escala: se comparan
    k = reduccion(*rgb.shape[:2])
    paneles = (
        Imagen(a_uint8(rgb), titulo="Foto (entrada)"),
        _mapa(p["media"], "1. Media sobre los canales", "media de los 3 canales: {v}", tope),
        _mapa(p["maximo"], "2. Máximo sobre los canales", "máximo de los 3 canales: {v}", tope),
        _mapa(p["z"], "3. Convolución 7 × 7 (z)", "z = conv(media, máximo): {v}", _tope(p["z"])),
        _mapa(p["mapa"], "4. Sigmoide: m = σ(z)", "m = σ(z): {v}"),
        Imagen(a_uint8(p["ponderada"]), titulo="Foto × m"),
    )
    return Paneles(
        paneles,
        columnas=3,
        titulo=(
            f"Rama espacial con {etiqueta}"
            + (f"\n{SIGUE_AL_BRILLO}" if etiqueta == PESOS_FIJOS else "")
            + f" (mapas promediados de a {k} × {k} píxeles)"
        ),
        alto_fila=300,
    )


def _figura_kernel(kernel: np.ndarray, etiqueta: str) -> Paneles:
    tope = float(np.abs(kernel).max()) or 1.0
    # Pesos chicos (el suavizado: 0.001 a 0.037) en milésimas: «36.6» cabe en su casilla, «0.037» no.
    milesimas = tope < 0.1
    escala = 1000 if milesimas else 1
    desplazamientos = tuple(numero(d, "+.0f") if d else "0" for d in range(-(KERNEL // 2), KERNEL // 2 + 1))
    paneles = tuple(
        Mapa(
            k * escala,
            x=desplazamientos,
            y=desplazamientos,
            titulo=f"Parámetros sobre el mapa de {nombre}",
            eje_x="columna (desplazamiento)",
            eje_y="fila",
            vmin=-tope * escala,
            vmax=tope * escala,
            colores="divergente",
            formato=".1f" if milesimas else ".2f",
            barra="Valor × 1\u202f000" if milesimas else "Valor",
            pista=f"peso sobre la {nombre} en (fila {{y}}, columna {{x}}): {{v}}" + (" milésimas" if milesimas else ""),
            cuadrado=True,
        )
        for k, nombre in zip(kernel, ("media", "máximo"), strict=True)
    )
    titulo = f"Los 2 × 7 × 7 parámetros de la convolución{' (en milésimas)' if milesimas else ''}:\n{etiqueta}"
    return Paneles(paneles, columnas=2, titulo=titulo, alto_fila=380)


def calcular_foto(imagen: str = FOTOS[0], subida: Any = None, pesos: str = PESOS_FIJOS):
    """La vista: (pasos de la rama espacial, parámetros de la convolución, texto)."""
    modulo = rama_espacial(pesos)
    rgb, descripcion = foto(imagen, subida)
    p = pasos(rgb, modulo)
    H, W = rgb.shape[:2]
    etiqueta = pesos if pesos == PESOS_FIJOS else "parámetros aprendidos de cbam-digitos (entrenados con dígitos)"
    texto = (
        f"Imagen: {descripcion}, {W} × {H} px. Formas: foto (1, 3, {H}, {W}) → media y máximo (1, 2, {H}, {W}) → "
        f"convolución 7 × 7 (1, 1, {H}, {W}) → sigmoide: el mapa m va de **{p['mapa'].min():.2f}** a "
        f"**{p['mapa'].max():.2f}**. Parámetros de la convolución: **{etiqueta}**."
    )
    if pesos == PESOS_FIJOS:
        texto += (
            " Ojo: con este núcleo fijo, m es solo un **mapa de brillo suavizado** (lo claro pasa, lo oscuro se "
            "apaga); no sabe qué hay en la foto y no es una atención aprendida. Muestra la mecánica: media y "
            "máximo, convolución y sigmoide."
        )
    if pesos == PESOS_APRENDIDOS:
        texto += (
            " Ojo: esa red los aprendió sobre sus 32 mapas de rasgos de dígitos de 8 × 8, no sobre fotos; "
            "aquí solo muestran la mecánica."
        )
    texto += (
        f" La foto entra normalizada (con valores negativos); el CBAM de `cbam-digitos` recibe activaciones después de "
        f"una ReLU, todas ≥ 0 (la menor en el conjunto de prueba: {minimo_activaciones():.2f})."
    )
    return _figura_pasos(rgb, p, etiqueta), _figura_kernel(p["kernel"], etiqueta), texto


def seccion(aparece) -> None:
    """Crea la sección de la foto y conecta su evento público `cbam_foto`.

    Se llena cuando `aparece` (una salida de la vista principal) cambia por primera vez.
    """
    gr.Markdown(EXPLICACION, latex_delimiters=LATEX)
    with gr.Row():
        with gr.Column(scale=3):
            imagen_ = Opcion(list(FOTOS), value=FOTOS[0], label="Foto")
            pesos = Opcion(list(PESOS), value=PESOS_FIJOS, label="Parámetros de la convolución 7 × 7")
            texto = gr.Markdown()
        subida = Subida(type="filepath", label="Tu imagen (se reduce a lado mayor 160 px)", height=200, scale=2)
    figura_pasos = grafico("Pasos de la rama espacial sobre la foto")
    figura_kernel = grafico("Los parámetros de la convolución 7 × 7")
    entradas, salidas = [imagen_, subida, pesos], [figura_pasos, figura_kernel, texto]
    calculo = envolver(calcular_foto)
    llenar_al_abrir(aparece, calculo, entradas, salidas)
    gr.on(
        [imagen_.input, pesos.input],
        calculo,
        entradas,
        salidas,
        api_name=API,
        trigger_mode="always_last",
        **un_reloj(salidas),
    )
    subida.upload(lambda: FOTO_SUBIDA, None, imagen_, api_visibility="private").then(
        calculo, entradas, salidas, api_visibility="private", **un_reloj(salidas)
    )
