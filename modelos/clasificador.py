"""Agrupación por atención y un clasificador de texto inspirado en el del tutorial (§6).

    puntaje_i = w·h_i + b            (un número por palabra; −∞ en el relleno)
    α = softmax(puntaje)             (pesos de las palabras: suman 1, 0 en el relleno)
    v = Σ_i α_i · h_i                (un vector de largo fijo para toda la frase)

La agrupación comprime una frase de largo variable en un vector, como en
Yang et al., «Hierarchical Attention Networks for Document Classification», 2016
(https://aclanthology.org/N16-1174/) y Lin et al., 2017 (https://arxiv.org/abs/1703.03130).
El clasificador sigue el esquema del tutorial: fichas + posición → bloques transformer →
agrupación → capa lineal. Difiere en tres cosas: posición aprendida (el tutorial: sinusoidal,
con el embedding × √d), bloques pre-norma con ReLU (el tutorial: `nn.TransformerEncoder`,
post-norma con GELU) y una sola capa lineal al final (el tutorial: Linear–GELU–Dropout–Linear).
Los pesos se devuelven, nunca se guardan en el módulo.
"""

from __future__ import annotations

import math

import torch
from huggingface_hub import PyTorchModelHubMixin
from torch import Tensor, nn

from .transformer import BloqueTransformer, posicion_sinusoidal

RELLENO = 0  # índice de la ficha <relleno> en todo vocabulario de modelos.vocabulario


class AgrupacionAtencion(nn.Module):
    """Agrupación por atención: un puntaje por palabra, softmax sin el relleno y suma ponderada."""

    def __init__(self, d_modelo: int):
        super().__init__()
        self.puntaje = nn.Linear(d_modelo, 1)

    def forward(self, h: Tensor, relleno: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """h: (B, L, d_modelo); relleno: (B, L) booleana, True donde hay relleno.

        Devuelve el vector (B, d_modelo) y los pesos (B, L). El relleno recibe peso
        exactamente 0; una fila toda de relleno da pesos 0 y vector 0, nunca NaN.
        """
        puntajes = self.puntaje(h).squeeze(-1)  # (B, L)
        if relleno is not None:
            puntajes = puntajes.masked_fill(relleno, float("-inf"))
        pesos = torch.softmax(puntajes, dim=-1)  # (B, L)
        if relleno is not None:
            # Una fila toda −∞ da 0/0 = NaN en el softmax: nadie a quien pesar, pesos 0.
            pesos = pesos.nan_to_num(0.0)
        vector = (pesos.unsqueeze(1) @ h).squeeze(1)  # (B, 1, L) @ (B, L, d) -> (B, d)
        return vector, pesos


class ClasificadorAtencion(nn.Module, PyTorchModelHubMixin):
    """Clasificador de frases: fichas + posición, `bloques` transformer, agrupación por atención y una lineal.

    La entrada son índices de fichas (B, L) con el relleno en el índice 0. La máscara
    de relleno (True = no mirar, la convención de `modelos.atencion`) tapa las claves
    de relleno en cada bloque y las palabras de relleno en la agrupación.
    """

    def __init__(
        self,
        *,
        vocabulario: int = 512,
        d_modelo: int = 64,
        cabezas: int = 8,
        bloques: int = 2,
        d_mlp: int = 256,
        largo: int = 64,
        clases: int = 2,
        posicion_aprendida: bool = True,
    ):
        super().__init__()
        self.largo, self.d_modelo = largo, d_modelo
        self.fichas = nn.Embedding(vocabulario, d_modelo, padding_idx=RELLENO)
        if posicion_aprendida:
            self.posicion = nn.Embedding(largo, d_modelo)
        else:  # la del tutorial (§3.3 y §6): fija, no se guarda en el checkpoint
            self.posicion = None
            self.register_buffer("senos", posicion_sinusoidal(largo, d_modelo), persistent=False)
        self.bloques = nn.ModuleList([BloqueTransformer(d_modelo, cabezas, d_mlp) for _ in range(bloques)])
        self.norma = nn.LayerNorm(d_modelo)
        self.agrupacion = AgrupacionAtencion(d_modelo)
        self.salida = nn.Linear(d_modelo, clases)

    def forward(self, x: Tensor, relleno: Tensor | None = None) -> tuple[Tensor, Tensor, list[Tensor]]:
        """x: (B, L) índices de fichas, L <= largo; relleno: (B, L) booleana (por omisión, x == 0).

        Devuelve los logits (B, clases), los pesos de la agrupación (B, L) y la lista
        de pesos de atención de cada bloque, cada uno (B, cabezas, L, L).
        """
        B, L = x.shape
        if self.largo < L:
            raise ValueError(f"La frase tiene {L} fichas; este modelo acepta a lo sumo {self.largo}.")
        if relleno is None:
            relleno = x == RELLENO  # (B, L)
        # 1) fichas y posición
        z = self.fichas(x)  # (B, L, d)
        if self.posicion is not None:
            z = z + self.posicion(torch.arange(L, device=x.device))  # (L, d) se difunde
        else:
            z = z * math.sqrt(self.d_modelo) + self.senos[:L]  # como el tutorial (§6), no la lección: × √d
        # 2) los bloques: ninguna palabra mira al relleno
        mascara = relleno[:, None, None, :]  # (B, 1, 1, L) se difunde a (B, cabezas, L, L)
        atenciones = []
        for bloque in self.bloques:
            z, pesos = bloque(z, mascara)
            atenciones.append(pesos)
        # 3) agrupación por atención y la capa lineal
        vector, pesos_agrupacion = self.agrupacion(self.norma(z), relleno)  # (B, d), (B, L)
        return self.salida(vector), pesos_agrupacion, atenciones
