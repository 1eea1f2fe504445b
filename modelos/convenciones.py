"""Convenciones de máscaras, calculadas en vivo: quién dice True, quién dice 1, y la fila toda tapada.

La misma máscara de relleno se escribe al revés según la biblioteca (el tutorial, §2.2 y §7.1):

    nn.MultiheadAttention(key_padding_mask=…)   booleana, True = NO mirar (ignorar)
    modelos.atencion(mascara=…)                 booleana, True = NO mirar (la de la lección)
    Hugging Face (attention_mask=…)             enteros, 1 = mirar (conservar), 0 = relleno
    F.scaled_dot_product_attention(attn_mask=…) booleana, True = mirar: ¡al revés que nn.MultiheadAttention!

Y una fila en que todo está tapado no tiene a quién mirar: softmax de puros −∞ es 0/0 = NaN.
Con −1e9 en lugar de −∞ no hay NaN, pero la fila reparte su peso por igual entre lo tapado.
En float16 −1e9 no cabe (el menor es −65 504): `puntajes.masked_fill(mascara, -1e9)` lanza un
error de desbordamiento, y sumado como tensor float16 se vuelve −∞ y da NaN. Desde torch 2.5,
`F.scaled_dot_product_attention` devuelve 0 en esa fila (pytorch/pytorch#133882);
`nn.MultiheadAttention` da NaN cuando devuelve los pesos (`need_weights=True`, por omisión) y
ceros con `need_weights=False`, que va por `F.scaled_dot_product_attention`.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from .atencion import atencion

MAXIMO_FRASES, MAXIMO_LARGO = 16, 64  # para las demostraciones: se valida antes de reservar nada

NOTA_MODELOS = (
    "`modelos` usa la convención de PyTorch y de la lección: la máscara es booleana y `True` quiere decir «no "
    "mirar» (como `key_padding_mask` de `nn.MultiheadAttention`; al revés que `attention_mask` de Hugging Face "
    "y que la máscara booleana de `F.scaled_dot_product_attention`). Tapa con −∞, y una fila toda tapada da "
    "pesos 0 y salida 0, no NaN."
)


def _validar(largos: Sequence[int], L: int | None) -> tuple[list[int], int]:
    if isinstance(largos, (str, bytes)) or not isinstance(largos, Sequence) or not 1 <= len(largos) <= MAXIMO_FRASES:
        raise ValueError(f"«largos» debe ser una lista de 1 a {MAXIMO_FRASES} largos de frase.")
    if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAXIMO_LARGO for n in largos):
        raise ValueError(f"Cada largo debe ser un entero de 0 a {MAXIMO_LARGO}.")
    L = max(largos) if L is None else L
    if isinstance(L, bool) or not isinstance(L, int) or not max(1, max(largos)) <= L <= MAXIMO_LARGO:
        raise ValueError(f"«L» debe ser un entero de {max(1, max(largos))} (la frase más larga) a {MAXIMO_LARGO}.")
    return list(largos), L


def mascaras_de_relleno(largos: Sequence[int], L: int | None = None) -> dict[str, Tensor]:
    """La misma máscara de relleno (B, L), para frases de `largos` palabras y el resto relleno, en cada convención.

    "pytorch": booleana, True = ignorar (nn.MultiheadAttention, y modelos.atencion)
    "hugging_face": int64, 1 = conservar, 0 = relleno
    "sdpa": booleana, True = participa (F.scaled_dot_product_attention)
    """
    largos, L = _validar(largos, L)
    relleno = torch.arange(L)[None, :] >= torch.tensor(largos)[:, None]  # (B, L)
    return {"pytorch": relleno, "hugging_face": (~relleno).long(), "sdpa": ~relleno}


def de_hugging_face_a_pytorch(attention_mask: Tensor) -> Tensor:
    """attention_mask de Hugging Face (1 = conservar) -> key_padding_mask de PyTorch (True = ignorar)."""
    return attention_mask == 0


def comparar_convenciones(largos: Sequence[int] = (5, 3), L: int | None = None, d: int = 4, semilla: int = 0) -> dict:
    """La misma autoatención (nn.MultiheadAttention, una cabeza) con la máscara bien y mal puesta.

    Devuelve los pesos (B, L, L) de:
      "pytorch": key_padding_mask = máscara de PyTorch (bien)
      "hugging_face_convertida": la de Hugging Face pasada por `de_hugging_face_a_pytorch` (igual: bien)
      "hugging_face_sin_convertir": la de Hugging Face tal cual, como booleana: tapa las palabras y
          deja el relleno; una frase sin relleno queda toda tapada y da NaN
    y las máscaras de `mascaras_de_relleno`.
    """
    if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 64:
        raise ValueError("«d» debe ser un entero de 1 a 64.")
    mascaras = mascaras_de_relleno(largos, L)
    B, L = mascaras["pytorch"].shape
    g = torch.Generator().manual_seed(semilla)
    x = torch.randn(B, L, d, generator=g)  # (B, L, d)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(semilla)
        capa = nn.MultiheadAttention(d, 1, batch_first=True).eval()
    hf = mascaras["hugging_face"]
    pesos = {}
    with torch.inference_mode():
        for nombre, kpm in (
            ("pytorch", mascaras["pytorch"]),
            ("hugging_face_convertida", de_hugging_face_a_pytorch(hf)),
            ("hugging_face_sin_convertir", hf.bool()),
        ):
            pesos[nombre] = capa(x, x, x, key_padding_mask=kpm, need_weights=True)[1]  # (B, L, L)
    return {"pesos": pesos, "mascaras": mascaras}


def argumento_flash() -> str:
    """El desliz del tutorial (§2.2): `attn_implementation="flash_attention_2"` no es un argumento de
    `nn.MultiheadAttention` (es de `from_pretrained` de Hugging Face). Devuelve el mensaje de PyTorch ('' si lo acepta).
    """
    try:
        nn.MultiheadAttention(16, 4, batch_first=True, attn_implementation="flash_attention_2")
    except TypeError as e:
        return str(e)
    return ""


def fila_tapada(L: int = 4, d: int = 4, semilla: int = 0) -> dict[str, dict]:
    """Una consulta cuyas L claves están todas tapadas, calculada de siete maneras, sin esconder los NaN.

    Para cada manera: {"pesos": (L,) o None si la función no los da, "salida": (d,), "nan": bool}.
      "menos_infinito": softmax a mano con −∞ (como el clasificador del tutorial, §6) -> NaN
      "menos_1e9": softmax a mano con −1e9 -> 1/L en cada clave tapada: sin NaN, pero mira al relleno
      "menos_1e9_float16_masked_fill": masked_fill(−1e9) sobre float16 -> error de desbordamiento
          ({"pesos": None, "salida": None, "nan": False, "error": el mensaje de PyTorch})
      "menos_1e9_float16": −1e9 sumado en float16, donde es −∞ -> NaN
      "sdpa": F.scaled_dot_product_attention con attn_mask booleana toda False -> 0 (torch ≥ 2.5)
      "multihead": nn.MultiheadAttention con key_padding_mask toda True -> NaN
      "modelos": modelos.atencion con la máscara toda True -> 0
    """
    for nombre, valor in (("L", L), ("d", d)):
        if isinstance(valor, bool) or not isinstance(valor, int) or not 1 <= valor <= MAXIMO_LARGO:
            raise ValueError(f"«{nombre}» debe ser un entero de 1 a {MAXIMO_LARGO}.")
    g = torch.Generator().manual_seed(semilla)
    q, k, v = torch.randn(1, d, generator=g), torch.randn(L, d, generator=g), torch.randn(L, d, generator=g)
    tapada = torch.ones(1, L, dtype=torch.bool)  # True = no mirar
    puntajes = q @ k.T / d**0.5  # (1, L)
    resultado = {}

    def guardar(nombre: str, pesos: Tensor | None, salida: Tensor) -> None:
        pesos = None if pesos is None else pesos.reshape(L).float()
        resultado[nombre] = {"pesos": pesos, "salida": salida.reshape(d).float(), "nan": bool(salida.isnan().any())}

    with torch.inference_mode():
        for nombre, relleno in (("menos_infinito", float("-inf")), ("menos_1e9", -1e9)):
            pesos = puntajes.masked_fill(tapada, relleno).softmax(dim=-1)  # (1, L)
            guardar(nombre, pesos, pesos @ v)
        try:  # float16: masked_fill no acepta −1e9, que no cabe
            puntajes.half().masked_fill(tapada, -1e9)
            error = ""
        except RuntimeError as e:
            error = str(e)
        resultado["menos_1e9_float16_masked_fill"] = {"pesos": None, "salida": None, "nan": False, "error": error}
        # sumado como tensor float16, el −1e9 se vuelve −∞
        pesos = (puntajes.half() + torch.tensor(-1e9).half()).softmax(dim=-1)
        guardar("menos_1e9_float16", pesos, pesos @ v.half())
        guardar("sdpa", None, F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=~tapada))
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(semilla)
            capa = nn.MultiheadAttention(d, 1, batch_first=True).eval()
        salida, pesos = capa(q[None], k[None], v[None], key_padding_mask=tapada)  # (1, 1, d), (1, 1, L)
        guardar("multihead", pesos, salida)
        salida, pesos = atencion(q, k, v, tapada)
        guardar("modelos", pesos, salida)
    return resultado
