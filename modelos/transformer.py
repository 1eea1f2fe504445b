"""Posición sinusoidal, el bloque transformer pre-norma y el transformer de juguete.

    bloque(x) = x' + MLP(LayerNorm(x')),   x' = x + Atención(LayerNorm(x))

Vaswani et al., 2017 (https://arxiv.org/abs/1706.03762); la variante pre-norma
es la de Xiong et al., 2020 (https://arxiv.org/abs/2002.04745), la misma que
`nn.TransformerEncoderLayer(norm_first=True)`.
"""

from __future__ import annotations

import torch
from huggingface_hub import PyTorchModelHubMixin
from torch import Tensor, nn

from .atencion import AtencionMulticabeza


def posicion_sinusoidal(largo: int, d_modelo: int) -> Tensor:
    """Codificación posicional (largo, d_modelo): seno en columnas pares, coseno en impares.

    PE[pos, 2i] = sin(pos / 10000^(2i/d)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/d)).
    """
    pos = torch.arange(largo).unsqueeze(1)  # (largo, 1)
    i = torch.arange(0, d_modelo, 2)  # 0, 2, 4, ...
    frecuencia = 1 / 10000 ** (i / d_modelo)  # (ceil(d/2),)
    pe = torch.zeros(largo, d_modelo)
    pe[:, 0::2] = torch.sin(pos * frecuencia)
    # Con d_modelo impar hay una columna de coseno menos que de seno.
    pe[:, 1::2] = torch.cos(pos * frecuencia[: d_modelo // 2])
    return pe


class BloqueTransformer(nn.Module):
    """Un bloque transformer pre-norma: atención y MLP, cada uno con su residual."""

    def __init__(self, d_modelo: int, cabezas: int, d_mlp: int):
        super().__init__()
        self.norma1 = nn.LayerNorm(d_modelo)
        self.atencion = AtencionMulticabeza(d_modelo, cabezas)
        self.norma2 = nn.LayerNorm(d_modelo)
        self.mlp = nn.Sequential(nn.Linear(d_modelo, d_mlp), nn.ReLU(), nn.Linear(d_mlp, d_modelo))

    def forward(self, x: Tensor, mascara: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """x: (B, L, d_modelo) -> y (B, L, d_modelo), pesos (B, cabezas, L, L)."""
        # 1) las palabras se miran entre sí, y se suma (residual)
        a, pesos = self.atencion(self.norma1(x), mascara)
        x = x + a
        # 2) cada palabra pasa sola por el MLP, y se suma
        x = x + self.mlp(self.norma2(x))
        return x, pesos


class TransformerJuguete(nn.Module, PyTorchModelHubMixin):
    """El transformer de la lección que invierte secuencias de dígitos.

    Fichas (+ posición aprendida) → bloques → LayerNorm → lineal a `digitos` clases.
    Sin posición, la autoatención no distingue el orden y la tarea es imposible.
    """

    def __init__(
        self,
        *,
        d_modelo: int = 32,
        cabezas: int = 2,
        bloques: int = 1,
        con_posicion: bool = True,
        largo: int = 8,
        digitos: int = 10,
    ):
        super().__init__()
        self.largo, self.digitos = largo, digitos
        self.fichas = nn.Embedding(digitos, d_modelo)
        self.posicion = nn.Embedding(largo, d_modelo) if con_posicion else None
        self.bloques = nn.ModuleList([BloqueTransformer(d_modelo, cabezas, 4 * d_modelo) for _ in range(bloques)])
        self.norma = nn.LayerNorm(d_modelo)
        self.salida = nn.Linear(d_modelo, digitos)

    def forward(
        self, x: Tensor, con_pesos: bool = False, mascara: Tensor | None = None
    ) -> Tensor | tuple[Tensor, list[Tensor]]:
        """x: (B, L) enteros en [0, digitos) con L <= largo; mascara: True donde NO se mira, o None.

        Devuelve logits (B, L, digitos); con `con_pesos`, también la lista de
        pesos de cada bloque, cada uno (B, cabezas, L, L).
        """
        B, L = x.shape
        if self.largo < L:
            raise ValueError(f"La secuencia tiene {L} dígitos; este modelo acepta a lo sumo {self.largo}.")
        z = self.fichas(x)  # (B, L, d_modelo)
        if self.posicion is not None:
            z = z + self.posicion(torch.arange(L, device=x.device))  # (L, d_modelo) se difunde
        todos = []
        for bloque in self.bloques:
            z, pesos = bloque(z, mascara)
            todos.append(pesos)
        logits = self.salida(self.norma(z))  # (B, L, digitos)
        return (logits, todos) if con_pesos else logits
