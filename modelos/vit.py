"""Parches de imagen y un Vision Transformer diminuto.

Una imagen se corta en parches de P × P, cada parche se aplana y se proyecta a
un vector: la imagen se vuelve una frase de N «palabras». Se antepone un token
[CLS] cuyo vector final resume la imagen.

Dosovitskiy et al., «An Image is Worth 16x16 Words», 2020. https://arxiv.org/abs/2010.11929
"""

from __future__ import annotations

import torch
from huggingface_hub import PyTorchModelHubMixin
from torch import Tensor, nn

from .transformer import BloqueTransformer


def parches_lote(x: Tensor, P: int) -> Tensor:
    """x: (B, C, H, W) -> (B, N, C·P·P), parches en orden de filas.

    Cada fila es un parche aplanado como (C, P, P). Los píxeles del borde que
    no llenan un parche entero (H % P filas abajo, W % P columnas a la derecha)
    se descartan.
    """
    B, C, H, W = x.shape
    if not 1 <= P <= min(H, W):
        raise ValueError(f"El lado del parche P={P} debe estar entre 1 y el lado menor de la imagen ({min(H, W)} px).")
    cortes = x.unfold(2, P, P).unfold(3, P, P)  # (B, C, filas, columnas, P, P)
    filas, columnas = cortes.shape[2], cortes.shape[3]
    cortes = cortes.permute(0, 2, 3, 1, 4, 5)  # (B, filas, columnas, C, P, P)
    return cortes.reshape(B, filas * columnas, C * P * P)  # (B, N, C·P·P)


def parches(imagen: Tensor, P: int) -> Tensor:
    """imagen: (C, H, W) -> (N, C·P·P), N = (H // P)·(W // P), en orden de filas.

    El parche k está en la fila k // (W // P) y la columna k % (W // P). El
    resto que no llena un parche (abajo y a la derecha) se descarta. Un P mayor
    que la imagen da ValueError.
    """
    if imagen.dim() != 3:
        raise ValueError(f"Se esperaba una imagen (C, H, W); llegó una de forma {tuple(imagen.shape)}.")
    return parches_lote(imagen.unsqueeze(0), P)[0]


class ViTDiminuto(nn.Module, PyTorchModelHubMixin):
    """ViT para los dígitos de sklearn (8 × 8, un canal): parches → [CLS] + posición → bloques."""

    def __init__(
        self,
        *,
        lado: int = 8,
        canales: int = 1,
        P: int = 2,
        d_modelo: int = 64,
        cabezas: int = 4,
        bloques: int = 2,
        clases: int = 10,
    ):
        super().__init__()
        if lado % P != 0:
            raise ValueError(f"El lado {lado} debe ser múltiplo de P={P}.")
        self.P = P
        n = (lado // P) ** 2
        self.proyeccion = nn.Linear(canales * P * P, d_modelo)
        self.cls = nn.Parameter(torch.zeros(1, 1, d_modelo))
        self.posicion = nn.Parameter(torch.randn(1, n + 1, d_modelo) * 0.02)
        self.bloques = nn.ModuleList([BloqueTransformer(d_modelo, cabezas, 4 * d_modelo) for _ in range(bloques)])
        self.norma = nn.LayerNorm(d_modelo)
        self.cabeza = nn.Linear(d_modelo, clases)

    def forward(self, x: Tensor, con_pesos: bool = False) -> Tensor | tuple[Tensor, list[Tensor]]:
        """x: (B, C, lado, lado) -> logits (B, clases); con `con_pesos`, también los
        pesos de cada bloque, cada uno (B, cabezas, N+1, N+1), con el [CLS] en el índice 0."""
        B = x.shape[0]
        z = self.proyeccion(parches_lote(x, self.P))  # (B, N, d)
        z = torch.cat([self.cls.expand(B, -1, -1), z], dim=1) + self.posicion  # (B, N+1, d)
        todos = []
        for bloque in self.bloques:
            z, pesos = bloque(z)
            todos.append(pesos)
        logits = self.cabeza(self.norma(z[:, 0]))  # (B, clases): solo el [CLS]
        return (logits, todos) if con_pesos else logits
