"""De x a Q, K y V: las proyecciones de una capa de atención, leídas de un transformer entrenado.

    x = embedding(ficha) + posición,   [Q | K | V] = LayerNorm(x)·Wᵀ + b,   W = qkv.weight (3d × d)
    puntajes = Q·Kᵀ/√d,   pesos = softmax(puntajes)        (por cabeza, con d = d_modelo / cabezas)

La capa `qkv` de la lección es una sola `nn.Linear(d, 3d)`: sus filas 0…d−1 son W_q, d…2d−1 son W_k y
2d…3d−1 son W_v. Son las tres capas separadas del tutorial (`w_q`, `w_k`, `w_v`) apiladas, y la misma matriz
que `nn.MultiheadAttention.in_proj_weight` (`separar_qkv`, `juntar_qkv`).

Por qué Q y K salen de proyecciones distintas: con K = Q (una sola proyección para las dos) los puntajes son
simétricos, q_i·q_j = q_j·q_i, y por Cauchy–Schwarz q_i·q_j ≤ |q_i|·|q_j| ≤ max(|q_i|², |q_j|²). En cada par de
filas (i, j), la de q más larga puntúa a sí misma al menos tanto como a la otra: de los L/2 pares de espejos
(i, L − 1 − i), a lo sumo una fila por par puede preferir su espejo a sí misma, sea cual sea W
(`cota_con_k_igual_a_q`). Vaswani et al., 2017 (https://arxiv.org/abs/1706.03762).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor, nn

from .atencion import AtencionMulticabeza, atencion
from .transformer import TransformerJuguete


def separar_qkv(qkv: nn.Linear) -> tuple[nn.Linear, nn.Linear, nn.Linear]:
    """La capa `qkv` (d → 3d) de la lección como las tres capas del tutorial: w_q, w_k, w_v (d → d cada una).

    Cada una recibe una copia de su trozo de filas de `qkv.weight` (3d, d) y de `qkv.bias` (3d,).
    """
    d = qkv.in_features
    if qkv.out_features != 3 * d:
        raise ValueError(f"qkv debe ir de d a 3d; va de {qkv.in_features} a {qkv.out_features}.")
    capas = []
    for W, b in zip(qkv.weight.split(d), qkv.bias.split(d), strict=True):  # 3 × (d, d), 3 × (d,)
        capa = nn.Linear(d, d)
        with torch.no_grad():
            capa.weight.copy_(W)
            capa.bias.copy_(b)
        capas.append(capa)
    return tuple(capas)


def juntar_qkv(w_q: nn.Linear, w_k: nn.Linear, w_v: nn.Linear) -> nn.Linear:
    """Las tres capas del tutorial apiladas en una sola `nn.Linear(d, 3d)`, la `qkv` de la lección."""
    d = w_q.in_features
    qkv = nn.Linear(d, 3 * d)
    with torch.no_grad():
        qkv.weight.copy_(torch.cat([w_q.weight, w_k.weight, w_v.weight]))  # (3d, d)
        qkv.bias.copy_(torch.cat([w_q.bias, w_k.bias, w_v.bias]))  # (3d,)
    return qkv


def diferencia_con_el_tutorial(qkv: nn.Linear, x: Tensor) -> float:
    """La mayor diferencia entre Q, K, V de `qkv(x).chunk(3)` y los de las tres capas w_q, w_k, w_v (x: (..., d))."""
    capas = separar_qkv(qkv)
    with torch.inference_mode():
        juntas = qkv(x).chunk(3, dim=-1)  # 3 × (..., d)
        return max((a - w(x)).abs().max().item() for a, w in zip(juntas, capas, strict=True))


def pesos_de_pytorch(capa: AtencionMulticabeza, x: Tensor) -> Tensor:
    """Los pesos por cabeza (cabezas, L, L) de `nn.MultiheadAttention` con los parámetros de `capa` copiados
    (`in_proj_weight = qkv.weight`, `out_proj = salida`), para x (L, d)."""
    d = x.shape[-1]
    oficial = nn.MultiheadAttention(d, capa.cabezas, batch_first=True).to(x.device).eval()
    with torch.inference_mode():
        oficial.in_proj_weight.copy_(capa.qkv.weight)  # (3d, d): la misma matriz
        oficial.in_proj_bias.copy_(capa.qkv.bias)
        oficial.out_proj.weight.copy_(capa.salida.weight)
        oficial.out_proj.bias.copy_(capa.salida.bias)
        _, pesos = oficial(x[None], x[None], x[None], average_attn_weights=False)  # (1, cabezas, L, L)
    return pesos[0]


def sumandos(modelo: TransformerJuguete, digitos: Tensor) -> tuple[Tensor, Tensor]:
    """digitos (L,) enteros -> los dos sumandos de x: embedding de cada ficha (L, d) y posición (L, d)."""
    if modelo.posicion is None:
        raise ValueError("Este modelo no suma posición: aquí hace falta el que la suma.")
    with torch.inference_mode():
        return modelo.fichas(digitos), modelo.posicion(torch.arange(digitos.shape[0], device=digitos.device))


def entrada_de_la_atencion(modelo: TransformerJuguete, digitos: Tensor) -> tuple[Tensor, Tensor]:
    """digitos (L,) enteros -> x = embedding + posición (L, d) y lo que recibe la atención del bloque 1, LayerNorm(x).

    El bloque es pre-norma: la atención no ve x sino `norma1(x)`.
    """
    embedding, posicion = sumandos(modelo, digitos)
    with torch.inference_mode():
        x = embedding + posicion  # (L, d)
        return x, modelo.bloques[0].norma1(x)


def proyectar(qkv: nn.Linear, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """x (L, d) -> Q, K, V, cada uno (L, d): `q, k, v = qkv(x).chunk(3, dim=-1)`, como la lección."""
    with torch.inference_mode():
        q, k, v = qkv(x).chunk(3, dim=-1)  # 3 × (L, d)
    return q, k, v


def de_la_cabeza(t: Tensor, cabeza: int, cabezas: int) -> Tensor:
    """Las columnas (L, d/cabezas) de la cabeza `cabeza` (desde 0): las mismas que `AtencionMulticabeza.separar`."""
    L, D = t.shape
    return t.view(L, cabezas, D // cabezas)[:, cabeza]  # (L, D/cabezas)


def puntajes_y_pesos(Q: Tensor, K: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Q (L, d), K (L, d) -> puntajes Q·Kᵀ/√d (L, L) y pesos softmax (L, L), con `modelos.atencion`."""
    with torch.inference_mode():
        _, pesos = atencion(Q, K, K)  # (L, L)
        puntajes = Q @ K.T / math.sqrt(Q.shape[-1])  # (L, L)
    return puntajes.cpu().numpy(), pesos.cpu().numpy()


def mezclar(Q: Tensor, K: Tensor, t: float) -> Tensor:
    """La clave a medio camino: (1 − t)·K + t·Q. Con t = 0, la K entrenada; con t = 1, K = Q.

    Es K = x·W(t)ᵀ + b(t) con W(t) = (1 − t)·W_k + t·W_q: mezclar las dos proyecciones es mezclar sus salidas.
    """
    return (1 - t) * K + t * Q


def cuantas_miran(pesos: np.ndarray) -> tuple[int, int]:
    """(filas cuyo peso mayor va a su espejo L − 1 − i, filas cuyo peso mayor va a sí mismas)."""
    L = pesos.shape[0]
    mayor = pesos.argmax(axis=1)  # (L,)
    i = np.arange(L)
    return int((mayor == L - 1 - i).sum()), int((mayor == i).sum())


def cota_con_k_igual_a_q(L: int) -> int:
    """Cuántas filas de L, como mucho, pueden preferir su espejo a sí mismas si K = Q, con cualquier W: una por par
    de espejos (i, L − 1 − i), ⌊L/2⌋ (con L impar, la fila del centro es su propio espejo)."""
    return L // 2


def preferirian_el_espejo(Q: Tensor) -> int:
    """Con K = Q, cuántas filas puntúan a su espejo por encima de sí mismas: nunca más de `cota_con_k_igual_a_q`."""
    with torch.inference_mode():
        S = Q @ Q.T  # (L, L), simétrica
    L = S.shape[0]
    i = torch.arange(L)
    return int((S[i, L - 1 - i] > S[i, i]).sum())


class AtencionKIgualQ(AtencionMulticabeza):
    """La autoatención de la lección con una sola proyección para consultas y claves: K = Q.

    Usa las filas de W_q de `qkv` para las dos; las de W_k quedan sin usar (ni reciben gradiente). Sirve para entrenar
    el mismo transformer con K = Q y ver qué mapa aprende cuando la antidiagonal no está a su alcance.
    """

    def forward(self, x: Tensor, mascara: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """x: (B, L, d_modelo) -> y (B, L, d_modelo), pesos (B, cabezas, L, L), simétricos antes del softmax."""
        q, _, v = self.qkv(x).chunk(3, dim=-1)  # 2 × (B, L, D); la K se descarta
        o, pesos = atencion(self.separar(q), self.separar(q), self.separar(v), mascara)
        return self.salida(self.juntar(o)), pesos


def con_k_igual_a_q(modelo: TransformerJuguete) -> TransformerJuguete:
    """El mismo modelo (in situ: uno del llamador, nunca uno compartido) con K = Q en cada bloque."""
    for bloque in modelo.bloques:
        bloque.atencion.__class__ = AtencionKIgualQ
    return modelo
