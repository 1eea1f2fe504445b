"""Parches ViT: una imagen cortada en parches de P × P se vuelve una secuencia de N «palabras»."""

from __future__ import annotations

import re
from typing import Any

import gradio as gr
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Numero, Opcion
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.imagenes import Subida
from demos.comun.validar import entero
from demos.comun.vista import Barrido, Vista, envolver, explicacion, grafico, un_reloj
from demos.parches_vit.parches import (
    IMAGEN_LECCION,
    IMAGEN_SUBIDA,
    IMAGENES,
    LADOS,
    MAX_PARCHE,
    figura_parche,
    figura_rejilla,
    figura_secuencia,
    formas,
    foto,
    lado_parche,
)
from demos.parches_vit.vit_digito import seccion as seccion_digito

EXPLICACION = r"""
Un *Vision Transformer* lee una imagen como una frase: la corta en parches de $P \times P$ píxeles,
aplana cada parche en un vector de $3 \cdot P \cdot P$ números y lo proyecta a una ficha de $d$ números.
Con una imagen de $H \times W$ salen $N = \lfloor H/P \rfloor \cdot \lfloor W/P \rfloor$ parches, en orden de
filas; al frente va una ficha [CLS] que, tras los bloques, resume la imagen, y a cada ficha se le suma su
posición aprendida (`pos_vit`), como a las palabras:

$$(3, H, W) \xrightarrow{\text{unfold}} (N,\ 3P^2) \xrightarrow{\text{Linear}} (1, N, d)
\xrightarrow{+\,[\text{CLS}]} (1, N{+}1, d) \xrightarrow{+\,\text{pos}} (1, N{+}1, d)$$

Las fotos se ven a la escala de la lección (un píxel de cada 4: lado mayor 160 px) para que los parches se
noten. Pasa el ratón por la rejilla para saber qué parche es cada uno, y **escribe su número** en «Parche elegido»
para verlo ampliado.
"""


def calcular(imagen: str = IMAGEN_LECCION, subida: Any = None, P: str = "16", parche: float = 11):
    """La vista: (rejilla, secuencia, parche ampliado, tabla de formas, texto)."""
    tensor, descripcion = foto(imagen, subida)
    _, H, W = tensor.shape
    P = lado_parche(P, H, W)
    pedido = entero(parche, "El número de parche", 0, MAX_PARCHE)
    tabla, secuencia = formas(tensor, P)
    N, columnas = len(secuencia), W // P
    k = min(pedido, N - 1)
    f, c = divmod(k, columnas)
    igual = torch.equal(secuencia[k].view(3, P, P), tensor[:, f * P : (f + 1) * P, c * P : (c + 1) * P])
    aviso = f" (con P = {P} no hay parche {pedido}: se muestra el último)" if pedido != k else ""
    texto = (
        f"Imagen: {descripcion}, {H} × {W} px (alto × ancho). Con P = {P} caben {H // P} filas × {columnas} columnas = "
        f"**{N} parches de {3 * P * P} números**. El parche **{k}**{aviso} está en la fila {f}, columna {c}: "
        f"píxeles y {f * P}–{f * P + P - 1}, x {c * P}–{c * P + P - 1}. "
        f"¿`secuencia[{k}].view(3, {P}, {P})` es ese recorte? **{'sí' if igual else 'no'}**."
    )
    return (
        figura_rejilla(tensor, P, k),
        figura_secuencia(secuencia, P, k),
        figura_parche(tensor, P, k, columnas),
        tabla,
        texto,
    )


# --- interfaz ----------------------------------------------------------------------------------


# --- aprender: predecir y comprobarse (las respuestas las lee de lo que muestra `calcular`) ---------


def _parches(salida) -> dict:
    """Filas, columnas y parches que dice el texto de la vista, y las fichas con [CLS] de su tabla de formas."""
    filas, columnas, n, largo = map(
        int, re.search(r"caben (\d+) filas × (\d+) columnas = \*\*(\d+) parches de (\d+) números", salida[4]).groups()
    )
    cls = next(fila for fila in salida[3] if "[CLS] al frente" in fila[0])
    fichas = int(re.search(r"\(1, (\d+), \d+\)", cls[1]).group(1))
    return {"respuesta": n, "filas": filas, "columnas": columnas, "largo": largo, "fichas": fichas}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "El recorte de la lección mide 96 × 160 píxeles (alto × ancho): ¿cuántos parches de 16 × 16 salen?",
        verdad=ap.EnLaPestana(calcular, _parches),
        decimales=0,
        minimo=0,
        maximo=1e6,
        porque="{filas} filas por {columnas} columnas: {respuesta} parches, cada uno aplanado en 3 · 16 · 16 = "
        "{largo} números.",
    ),
    preguntas=(
        ap.Pregunta(
            "El recorte de la lección (96 × 160 píxeles) con parches de 32 × 32: ¿cuántos parches salen?",
            (
                ap.Alternativa(
                    15, "15", "{filas} × {columnas} = {respuesta}: el doble de lado, la cuarta parte de parches."
                ),
                ap.Alternativa(
                    30,
                    "30",
                    "El lado se duplica en las dos direcciones: la cuarta parte, {filas} × {columnas} = {respuesta}.",
                ),
                ap.Alternativa(
                    120, "120", "Parches más grandes dan menos parches, no más: {filas} × {columnas} = {respuesta}."
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _parches, cambio={"P": "32"}),
            tipo=ap.CANTIDAD,
        ),
        ap.Pregunta(
            "Con la ficha [CLS] al frente, ¿cuántas fichas entran al bloque con P = 16?",
            (
                ap.Alternativa(61, "61", "Los {respuesta_menos} parches más la ficha [CLS]: {respuesta}."),
                ap.Alternativa(60, "60", "Esos son los parches; [CLS] suma una al frente: {respuesta}."),
                ap.Alternativa(
                    64, "64", "64 es d, el largo de cada ficha; las fichas son los parches más [CLS]: {respuesta}."
                ),
            ),
            verdad=ap.EnLaPestana(
                calcular,
                lambda salida: {
                    **_parches(salida),
                    "respuesta": _parches(salida)["fichas"],
                    "respuesta_menos": _parches(salida)["respuesta"],
                },
            ),
            tipo=ap.CANTIDAD,
        ),
    ),
)


# Lo que se lee en cada opción de «Imagen» (el valor, el de la URL y el API, es el nombre entero de IMAGENES):
# más corto, para que la lista quepa en una línea a 1280 px y la figura entre en la primera pantalla.
ROTULOS_IMAGEN = ("recorte de la lección (96 × 160)", "china.jpg (107 × 160)", "flower.jpg (107 × 160)", IMAGEN_SUBIDA)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        with gr.Column(scale=3):
            imagen_ = Opcion(
                list(zip(ROTULOS_IMAGEN, IMAGENES, strict=True)),
                value=IMAGEN_LECCION,
                label="Imagen (alto × ancho en px)",
            )
            with gr.Row():
                P = Opcion(list(LADOS), value="16", label="Lado del parche P (píxeles)")
                parche = Numero(11, precision=0, minimum=0, maximum=MAX_PARCHE, label="Parche elegido (número)")
        subida = Subida(type="filepath", label="Tu imagen (se reduce a lado mayor 160 px)", height=180, scale=1)
    with gr.Row():
        rejilla = grafico("Rejilla de parches numerados (el ratón dice qué parche es)", scale=3)
        ampliado = grafico("El parche elegido, ampliado, y sus tres canales", scale=2)
    texto = gr.Markdown()
    tabla = gr.Dataframe(headers=["Paso", "Forma", "Qué es"], label="Formas en cada paso", interactive=False)
    secuencia = grafico("La secuencia de parches: un parche aplanado por fila")
    entradas, salidas = [imagen_, subida, P, parche], [rejilla, secuencia, ampliado, tabla, texto]
    calculo = envolver(calcular)
    subida.upload(lambda: IMAGEN_SUBIDA, None, imagen_, api_visibility="private").then(
        calculo, entradas, salidas, api_visibility="private", **un_reloj(salidas)
    )
    seccion_digito(aparece=texto)
    seccion_glosario(("ficha", "embedding", "posición", "cabeza", "conjunto de prueba"), "parches-vit")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=entradas,
        salidas=salidas,
        url={"imagen": imagen_, "P": P, "parche": parche},
        # Otro P cambia los datos de la rejilla (la capa de números); otro parche solo mueve el recuadro.
        ejemplo={"P": "8"},
        disparadores=[imagen_.input, P.input, parche.input],
        barridos=(Barrido(P),),
    )
