"""Atención de producto punto escalada, multicabeza y cruzada.

    Atención(Q, K, V) = softmax(Q·Kᵀ/√d)·V

Vaswani et al., «Attention Is All You Need», 2017. https://arxiv.org/abs/1706.03762

Convención de la lección: la máscara es booleana y vale True donde una consulta
NO puede mirar. Los pesos se devuelven, nunca se guardan en el módulo: bajo
Gradio varias peticiones usan el mismo modelo a la vez.

Dropout sobre los pesos, como las clases del tutorial (`attn_weights = self.dropout(attn_weights)`):
en entrenamiento cada peso se apaga con probabilidad p y los que quedan se multiplican por 1/(1 − p),
así que una fila ya no suma 1 (suma 1 en promedio); `model.eval()` lo apaga. Srivastava et al.,
«Dropout», 2014. https://jmlr.org/papers/v15/srivastava14a.html
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn


def atencion(
    Q: Tensor,
    K: Tensor,
    V: Tensor,
    mascara: Tensor | None = None,
    abandono: Callable[[Tensor], Tensor] | None = None,
) -> tuple[Tensor, Tensor]:
    """Atención de producto punto escalada sobre cualquier dimensión inicial.

    Q: (..., Lq, d)   K: (..., Lk, d)   V: (..., Lk, dv)
    mascara: booleana, True donde NO se mira; se difunde contra (..., Lq, Lk).
    abandono: el dropout de los pesos (p. ej. un `nn.Dropout`), entre el softmax y el producto por V.
    Devuelve la salida (..., Lq, dv) y los pesos (..., Lq, Lk), después del dropout si lo hay, como
    el tutorial y `nn.MultiheadAttention`. Una fila con todas sus claves tapadas da pesos cero y
    salida cero, nunca NaN.
    """
    d = Q.shape[-1]
    puntajes = Q @ K.transpose(-2, -1) / math.sqrt(d)  # (..., Lq, Lk)
    if mascara is not None:
        # -inf: después del softmax, peso exactamente 0
        puntajes = puntajes.masked_fill(mascara, float("-inf"))
    pesos = torch.softmax(puntajes, dim=-1)
    if mascara is not None:
        # Una fila toda -inf da 0/0 = NaN en el softmax; la dejamos en ceros.
        pesos = pesos.nan_to_num(0.0)
    if abandono is not None:
        pesos = abandono(pesos)  # en entrenamiento la fila ya no suma 1; en evaluación no cambia nada
    return pesos @ V, pesos  # (..., Lq, dv), (..., Lq, Lk)


def abandonar(pesos: Tensor, p: float, generador: torch.Generator | None = None) -> Tensor:
    """El dropout de entrenamiento, el mismo cálculo que `F.dropout(pesos, p, training=True)` en la CPU.

    Cada casilla se conserva con probabilidad 1 − p (un sorteo de Bernoulli por casilla, en el orden de la
    memoria) y se multiplica por 1/(1 − p); las demás quedan en 0. Con `generador`, el azar sale de él y no
    del RNG global: dos peticiones a la vez no se mezclan los números. Con la misma semilla da los mismos
    bits que `torch.manual_seed(s); F.dropout(...)`. pesos: cualquier forma -> la misma forma.
    """
    if not 0.0 <= p < 1.0:
        raise ValueError(f"La probabilidad de dropout p debe estar en [0, 1); llegó {p}.")
    if p == 0.0:
        return pesos
    ruido = torch.empty_like(pesos).bernoulli_(1 - p, generator=generador)  # 1: se queda; 0: se apaga
    ruido.div_(1 - p)  # los que quedan valen 1/(1 − p): la suma esperada de la fila sigue siendo 1
    return pesos * ruido


class DropoutConGenerador(nn.Dropout):
    """`nn.Dropout(p)` que saca su azar de `generador` y no del RNG global (en `eval()`, tampoco hace nada).

    Para una copia del modelo por petición: `copia.bloques[0].atencion.dropout = DropoutConGenerador(p, g)`. Con
    g = torch.Generator().manual_seed(s) apaga lo mismo que nn.Dropout(p) tras torch.manual_seed(s).
    """

    def __init__(self, p: float, generador: torch.Generator):
        super().__init__(p)
        self.generador = generador

    def forward(self, x: Tensor) -> Tensor:
        return abandonar(x, self.p, self.generador) if self.training else x


def mascara_causal(L: int, dispositivo: torch.device | str | None = None) -> Tensor:
    """Máscara (L, L) con True encima de la diagonal: las palabras del futuro."""
    # Comparando índices y no con `triu`: `triu` abre una región paralela de OpenMP aun para una sola matriz
    # de 5 × 5, y con dos hilos de torch en una máquina ocupada esperar al otro hilo costaba ≈ 15 ms.
    i = torch.arange(L, device=dispositivo)
    return i[None, :] > i[:, None]  # (L, L): la columna j es futuro de la fila i si j > i


class AtencionMulticabeza(nn.Module):
    """Autoatención con varias cabezas, con la disposición de la lección.

    Una sola capa `qkv` (d → 3d) calcula Q, K y V; `salida` (d → d) mezcla las
    cabezas. Es el mismo cálculo que `nn.MultiheadAttention` con
    `in_proj_weight = qkv.weight` y `out_proj = salida`, y con `dropout` el de
    `nn.MultiheadAttention(dropout=p)`: en `train()` apaga pesos al azar, en `eval()` nada.
    """

    def __init__(self, d_modelo: int, cabezas: int, dropout: float = 0.0):
        super().__init__()
        if d_modelo % cabezas != 0:
            raise ValueError(
                f"d_modelo ({d_modelo}) debe ser múltiplo del número de cabezas ({cabezas}): "
                "cada cabeza recibe d_modelo / cabezas columnas."
            )
        self.cabezas = cabezas
        self.qkv = nn.Linear(d_modelo, 3 * d_modelo)
        self.salida = nn.Linear(d_modelo, d_modelo)
        self.dropout = nn.Dropout(dropout)  # sobre los pesos, como el tutorial; sin parámetros

    def separar(self, t: Tensor) -> Tensor:
        B, L, D = t.shape
        return t.view(B, L, self.cabezas, D // self.cabezas).transpose(1, 2)  # (B, cabezas, L, D/cabezas)

    def juntar(self, o: Tensor) -> Tensor:
        B, H, L, Dh = o.shape
        return o.transpose(1, 2).reshape(B, L, H * Dh)  # (B, L, D)

    def forward(self, x: Tensor, mascara: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """x: (B, L, d_modelo) -> y (B, L, d_modelo), pesos (B, cabezas, L, L), después del dropout."""
        # 1) proyecciones
        q, k, v = self.qkv(x).chunk(3, dim=-1)  # 3 × (B, L, D)
        # 2) atención en cada cabeza (con dropout sobre los pesos en train())
        o, pesos = atencion(self.separar(q), self.separar(k), self.separar(v), mascara, self.dropout)
        # 3) pegar las cabezas y mezclarlas
        return self.salida(self.juntar(o)), pesos


class AtencionCruzada(AtencionMulticabeza):
    """Atención cruzada: consultas de una secuencia, claves y valores de otra.

    Como en el decodificador de un traductor: cada palabra del `objetivo` mira
    las palabras de la `fuente`. Usa la misma capa `qkv` que la autoatención:
    la parte Q se aplica al objetivo y las partes K, V a la fuente.
    """

    def forward(self, objetivo: Tensor, fuente: Tensor, mascara: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """objetivo: (B, Lo, d), fuente: (B, Lf, d) -> y (B, Lo, d), pesos (B, cabezas, Lo, Lf)."""
        D = objetivo.shape[-1]
        W_q, W_kv = self.qkv.weight.split([D, 2 * D])  # (D, D), (2D, D)
        b_q, b_kv = self.qkv.bias.split([D, 2 * D])
        # 1) proyecciones: Q del objetivo; K y V de la fuente
        q = nn.functional.linear(objetivo, W_q, b_q)  # (B, Lo, D)
        k, v = nn.functional.linear(fuente, W_kv, b_kv).chunk(2, dim=-1)  # 2 × (B, Lf, D)
        # 2) atención: (B, cabezas, Lo, Lf)
        o, pesos = atencion(self.separar(q), self.separar(k), self.separar(v), mascara, self.dropout)
        # 3) pegar las cabezas
        return self.salida(self.juntar(o)), pesos
