"""La sección «Convenciones de máscaras» de la pestaña Máscara causal: True, 1 y la fila toda tapada.

Todo se calcula en vivo con `modelos.convenciones` (el tutorial, §2.2 y §7.1): la misma máscara de
relleno escrita como la leen PyTorch, Hugging Face y `F.scaled_dot_product_attention`; qué pasa
si se pasa una por otra; y una fila sin nada que mirar, calculada de seis maneras. Los NaN van en
tablas y en el texto, escritos «NaN»: una figura nunca lleva un NaN.
"""

from __future__ import annotations

from functools import lru_cache

import gradio as gr
import torch
from torch import nn

from demos.comun.figuras import Mapa, Paneles, numero
from demos.comun.vista import envolver, grafico, un_reloj
from modelos.convenciones import NOTA_MODELOS, argumento_flash, comparar_convenciones, fila_tapada

LARGOS = (5, 3)  # un lote de dos frases: 5 palabras, y 3 más 2 de relleno
L = max(LARGOS)
CLAVES = 4  # las claves de la fila toda tapada
COLUMNAS_MASCARAS = ["Frase", "Convención", *(str(j) for j in range(1, L + 1))]
COLUMNAS_FILA = ["Cómo se calcula", "Pesos de la fila", "Salida", "¿NaN?"]

INTRO = r"""
Cada biblioteca escribe la máscara de relleno a su manera, y pasar una por otra no da error: da otra
cuenta. Abajo, un lote de dos frases (de 5 y de 3 palabras, la segunda con 2 de relleno), calculado en vivo
con PyTorch.
"""

MANERAS = {
    "menos_infinito": "softmax a mano con −∞ (la agrupación del tutorial, §6)",
    "menos_1e9": "softmax a mano con −1e9",
    "menos_1e9_float16_masked_fill": "`puntajes.masked_fill(mascara, -1e9)` en `float16`",
    "menos_1e9_float16": "softmax a mano con −1e9 sumado en `float16` (no cabe: es −∞)",
    "sdpa": "`F.scaled_dot_product_attention` (`attn_mask` booleana toda `False`)",
    "multihead": "`nn.MultiheadAttention` (`key_padding_mask` toda `True`; `need_weights=True`, por omisión)",
    "multihead_sin_pesos": "`nn.MultiheadAttention` con `need_weights=False` (no da los pesos: va por SDPA)",
    "modelos": "`modelos.atencion` (máscara toda `True`)",
}


def _numeros(t: torch.Tensor | None) -> str:
    """(n,) -> «0.25, 0.25, …», con NaN escrito «NaN» (no se esconde)."""
    if t is None:
        return "— (no los devuelve)"
    return ", ".join("NaN" if x != x else f"{x:.2f}".replace("-", "−") for x in t.tolist())


def tabla_mascaras(mascaras: dict[str, torch.Tensor]) -> list[list[str]]:
    """Una fila por frase y convención: la misma máscara de relleno escrita de tres maneras."""
    filas = []
    for i, n in enumerate(LARGOS):
        frase = f"{i + 1} ({n} palabras{', ' + str(L - n) + ' de relleno' if n < L else ''})"
        filas += [
            [frase, "PyTorch, `key_padding_mask`: `True` = ignorar", *_codigo(mascaras["pytorch"][i])],
            ["", "Hugging Face, `attention_mask`: `1` = conservar", *_codigo(mascaras["hugging_face"][i])],
            ["", "SDPA, `attn_mask` booleana: `True` = mirar", *_codigo(mascaras["sdpa"][i])],
        ]
    return filas


def _codigo(fila: torch.Tensor) -> list[str]:
    """Cada valor como lo escribe Python, en código (`True`, `0`): es la máscara tal cual, no una palabra."""
    return [f"`{v}`" for v in fila.tolist()]


def figura_convenciones(pesos: dict[str, torch.Tensor], mascaras: dict[str, torch.Tensor]) -> Paneles:
    """Los pesos de la frase 2 con la máscara bien puesta, convertida y sin convertir (la frase 1 sin
    convertir da NaN: va en el texto, no en la figura)."""
    reales = LARGOS[1]
    x = tuple(f"pal. {j + 1}" if j < reales else f"[relleno {j + 1 - reales}]" for j in range(L))
    casos = (
        ("pytorch", mascaras["pytorch"][1], "key_padding_mask de PyTorch"),
        ("hugging_face_convertida", mascaras["pytorch"][1], "attention_mask == 0 (convertida)"),
        ("hugging_face_sin_convertir", mascaras["hugging_face"][1].bool(), "attention_mask tal cual: ¡al revés!"),
    )
    paneles = tuple(
        Mapa(
            pesos[nombre][1].numpy(),
            x=x,
            y=x if k == 0 else ("",) * L,
            nombres_y=x,
            titulo=titulo,
            eje_x="Palabra que se mira",
            eje_y="Palabra que mira" if k == 0 else "",
            tapada=tapada[None, :].expand(L, L).numpy(),
            leyenda_tapada="tapada: peso 0 exacto",
            pista="«{y}» mira a «{x}»: peso {v}",
        )
        for k, (nombre, tapada, titulo) in enumerate(casos)
    )
    return Paneles(paneles, columnas=3, titulo="Frase 2 (3 palabras y 2 de relleno), nn.MultiheadAttention")


def multihead_sin_pesos(claves: int = CLAVES, d: int = 4, semilla: int = 0) -> dict:
    """La fila toda tapada en nn.MultiheadAttention sin pedir los pesos: en eval, PyTorch la calcula con SDPA."""
    g = torch.Generator().manual_seed(semilla)
    q, k, v = torch.randn(1, 1, d, generator=g), torch.randn(1, claves, d, generator=g), torch.randn(1, claves, d)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(semilla)
        capa = nn.MultiheadAttention(d, 1, batch_first=True).eval()
    with torch.inference_mode():
        salida, _ = capa(q, k, v, key_padding_mask=torch.ones(1, claves, dtype=torch.bool), need_weights=False)
    return {"pesos": None, "salida": salida.reshape(d), "nan": bool(salida.isnan().any())}


@lru_cache(maxsize=1)
def resumen_fila_tapada() -> str:
    """Qué da una fila toda tapada en PyTorch, calculado (para el texto de la vista principal)."""
    fila, sin_pesos = fila_tapada(CLAVES), multihead_sin_pesos()

    def que(nan: bool) -> str:
        return "**NaN**" if nan else "**ceros**"

    return (
        f"`nn.MultiheadAttention` da {que(fila['multihead']['nan'])} si devuelve los pesos (`need_weights=True`, "
        f"por omisión) y {que(sin_pesos['nan'])} con `need_weights=False`; `F.scaled_dot_product_attention` da "
        f"{que(fila['sdpa']['nan'])}"
    )


def tabla_fila(resultado: dict[str, dict]) -> list[list[str]]:
    """Una fila por manera; la que lanza un error lo dice en lugar de los números."""
    return [
        [MANERAS[nombre], "— (error)", f"`RuntimeError: {r['error']}`", "—"]
        if r.get("error")
        else [MANERAS[nombre], _numeros(r["pesos"]), _numeros(r["salida"]), "sí" if r["nan"] else "no"]
        for nombre, r in resultado.items()
    ]


def _texto(pesos: dict[str, torch.Tensor], fila: dict[str, dict]) -> str:
    nan_frase_1 = int(pesos["hugging_face_sin_convertir"][0].isnan().any(dim=-1).sum())
    sdpa = (
        "**NaN**"
        if fila["sdpa"]["nan"]
        else "**ceros**, sin NaN (desde torch 2.5 cambia esa fila por ceros; antes daba NaN)"
    )
    return (
        "**Pasar la attention_mask de Hugging Face como key_padding_mask sin convertirla** tapa las palabras y "
        "deja mirar el relleno: en la frase 2, todo el peso va a las dos de relleno. En la frase 1, que no tiene "
        f"relleno, la máscara es toda `1`, o sea toda `True`: {nan_frase_1} de sus {L} filas salen NaN "
        "(al pedir los pesos, `need_weights=True`, como hace por omisión). "
        "La conversión es `key_padding_mask = attention_mask == 0`.\n\n"
        "**Una fila toda tapada** no tiene a quién mirar: con −∞, el softmax calcula 0/0 = NaN (así hace la "
        "agrupación del tutorial, §6, si una frase es toda relleno). Con −1e9 no hay NaN, pero la fila reparte "
        f"su peso por igual entre lo tapado (1/{CLAVES} = {1 / CLAVES:.2f}). En `float16`, −1e9 no cabe (el menor "
        f"es {numero(torch.finfo(torch.float16).min, ',.0f')}): {_float16(fila)} "
        f"En la versión de PyTorch instalada ({torch.__version__}), `F.scaled_dot_product_attention` da {sdpa}, "
        "y `nn.MultiheadAttention` "
        f"da {'NaN' if fila['multihead']['nan'] else 'ceros'} si se le piden los pesos y "
        f"{'NaN' if fila['multihead_sin_pesos']['nan'] else 'ceros'} si no (`need_weights=False`: en eval va por "
        f'SDPA).\n\n**Un desliz del tutorial (§2.2):** sugiere `attn_implementation="flash_attention_2"` '
        "en `nn.MultiheadAttention`, pero no es un argumento suyo (es de `from_pretrained` de Hugging Face). "
        f"PyTorch responde: `TypeError: {argumento_flash()}`. En PyTorch el núcleo flash lo elige "
        "`F.scaled_dot_product_attention`, por donde pasa `nn.MultiheadAttention` cuando no devuelve los pesos."
        f"\n\n**La convención de `modelos`:** {NOTA_MODELOS}"
    )


def _float16(fila: dict[str, dict]) -> str:
    """Los dos casos de −1e9 en float16, con lo que dio cada uno."""
    error = fila["menos_1e9_float16_masked_fill"]["error"]
    lanza = f"lanza `RuntimeError: {error}`" if error else "no lanza error (esta versión de PyTorch lo acepta)"
    nan = "NaN" if fila["menos_1e9_float16"]["nan"] else "sin NaN"
    return f"`masked_fill(mascara, -1e9)` sobre un tensor `float16` {lanza}, y sumado como tensor es −∞ y da {nan}."


def calcular_convenciones() -> tuple[list[list[str]], Paneles, list[list[str]], str]:
    """La sección: (tabla de máscaras, figura de pesos, tabla de la fila toda tapada, texto)."""
    comparacion = comparar_convenciones(LARGOS)
    fila = fila_tapada(CLAVES)
    fila |= {"multihead_sin_pesos": multihead_sin_pesos(), "modelos": fila.pop("modelos")}  # «modelos», la última
    pesos, mascaras = comparacion["pesos"], comparacion["mascaras"]
    return tabla_mascaras(mascaras), figura_convenciones(pesos, mascaras), tabla_fila(fila), _texto(pesos, fila)


def construir_convenciones() -> None:
    """El acordeón de la sección; se calcula la primera vez que se abre."""
    with gr.Accordion("Convenciones de máscaras: booleana o de 0 y 1, y la fila toda tapada", open=False) as acordeon:
        gr.Markdown(INTRO)
        mascaras = gr.Dataframe(
            headers=COLUMNAS_MASCARAS,
            datatype="markdown",  # los valores van en código: `True` es PyTorch, no una palabra en inglés
            label="La misma máscara de relleno",
            interactive=False,
        )
        figura = grafico("Pesos de la frase 2 con la máscara bien y mal puesta")
        fila = gr.Dataframe(
            headers=COLUMNAS_FILA,
            datatype="markdown",  # los nombres de PyTorch van en código
            label=f"Una fila con sus {CLAVES} claves tapadas",
            interactive=False,
        )
        texto = gr.Markdown()
    lleno = gr.State(False)
    calculo = envolver(calcular_convenciones)

    def llenar(ya):
        return [gr.skip()] * 5 if ya else [True, *calculo()]

    salidas = [lleno, mascaras, figura, fila, texto]
    acordeon.expand(llenar, lleno, salidas, api_visibility="private", **un_reloj(salidas))
