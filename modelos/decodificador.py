"""Un decodificador causal diminuto que escribe la inversión de 8 dígitos, de a uno.

    entrada:  x₁ … x₈  →  y₁ … y₇        (16 fichas; «→» es la ficha 10, la que separa)
    salida:                y₁ … y₈        (la posición de «→» predice y₁; la de yₜ, yₜ₊₁)

Es el «escenario Decoder» del tutorial (§3.1): autoatención con máscara causal, así que la
posición i solo mira las posiciones ≤ i. Por eso el mismo modelo sirve de dos maneras:

- generar (`generar`): un bucle de 8 pasos; cada paso corre el modelo sobre lo escrito hasta
  ahí, toma el dígito más probable de la última posición y lo agrega a la entrada;
- entrenar (`forzar`, «teacher forcing»): una sola pasada con la respuesta correcta ya escrita
  da las 8 predicciones a la vez. La máscara garantiza que la posición t no vea yₜ ni lo que
  sigue, así que cada predicción es la misma que daría el bucle con ese mismo prefijo.

Los bloques son los `BloqueTransformer` pre-norma de la lección con `mascara_causal`, el mismo
cálculo que `nn.TransformerEncoderLayer(norm_first=True)` con `is_causal=True` (el bloque de
GPT: Radford et al., 2018). Vaswani et al., 2017 (https://arxiv.org/abs/1706.03762).
"""

from __future__ import annotations

import torch
from huggingface_hub import PyTorchModelHubMixin
from torch import Tensor, nn

from .atencion import mascara_causal
from .datos import DIGITOS, LARGO
from .transformer import BloqueTransformer

SEPARADOR = DIGITOS  # la ficha «→» que separa los dígitos de su inversión: la 10


class DecodificadorJuguete(nn.Module, PyTorchModelHubMixin):
    """Fichas (11: los 10 dígitos y «→») + posición aprendida → bloques causales → LayerNorm → 10 dígitos."""

    def __init__(
        self, *, d_modelo: int = 32, cabezas: int = 2, bloques: int = 1, largo: int = LARGO, digitos: int = DIGITOS
    ):
        super().__init__()
        self.largo, self.digitos = largo, digitos
        self.fichas = nn.Embedding(digitos + 1, d_modelo)  # + «→»
        self.posicion = nn.Embedding(2 * largo, d_modelo)  # x₁…x₈, «→», y₁…y₇
        self.bloques = nn.ModuleList([BloqueTransformer(d_modelo, cabezas, 4 * d_modelo) for _ in range(bloques)])
        self.norma = nn.LayerNorm(d_modelo)
        self.salida = nn.Linear(d_modelo, digitos)

    def forward(self, fichas: Tensor, con_pesos: bool = False) -> Tensor | tuple[Tensor, list[Tensor]]:
        """fichas: (B, L) enteros en [0, digitos], L ≤ 2·largo -> logits (B, L, digitos).

        Siempre con la máscara causal. Con `con_pesos`, también los pesos de cada bloque,
        cada uno (B, cabezas, L, L), con ceros exactos encima de la diagonal.
        """
        B, L = fichas.shape
        if L > 2 * self.largo:
            raise ValueError(f"La entrada tiene {L} fichas; este modelo acepta a lo sumo {2 * self.largo}.")
        z = self.fichas(fichas) + self.posicion(torch.arange(L, device=fichas.device))  # (B, L, d_modelo)
        mascara = mascara_causal(L, fichas.device)  # (L, L): True donde está el futuro
        todos = []
        for bloque in self.bloques:
            z, pesos = bloque(z, mascara)
            todos.append(pesos)
        logits = self.salida(self.norma(z))  # (B, L, digitos)
        return (logits, todos) if con_pesos else logits


def entrada_forzada(X: Tensor, Y: Tensor) -> Tensor:
    """X, Y (B, 8) -> (B, 16): los dígitos, «→» y la respuesta correcta corrida un lugar (sin su último)."""
    sep = torch.full_like(X[:, :1], SEPARADOR)  # (B, 1)
    return torch.cat([X, sep, Y[:, :-1]], dim=1)  # (B, 2·8)


def forzar(modelo: DecodificadorJuguete, X: Tensor, Y: Tensor) -> Tensor:
    """Teacher forcing: UNA pasada -> logits (B, 8, digitos) de las 8 posiciones que escriben y₁ … y₈."""
    L = X.shape[1]
    return modelo(entrada_forzada(X, Y))[:, L:] if L else X.new_zeros(0)  # las de «→», y₁ … y₇


def generar(modelo: DecodificadorJuguete, X: Tensor) -> tuple[Tensor, Tensor, list[list[Tensor]]]:
    """El bucle autorregresivo: X (B, 8) -> (Y (B, 8) escrita, logits (B, 8, digitos), pesos por paso).

    En el paso t (de 1 a 8) el modelo corre sobre las 8 + t fichas ya escritas (x, «→», y₁ … yₜ₋₁), se
    queda con los logits de la última posición y agrega su dígito más probable. `pesos[t - 1]` es la
    lista de pesos de cada bloque en ese paso, cada uno (B, cabezas, 8 + t, 8 + t).
    """
    B, L = X.shape
    fichas = torch.cat([X, torch.full_like(X[:, :1], SEPARADOR)], dim=1)  # (B, L + 1)
    todos_logits, todos_pesos = [], []
    for _ in range(L):
        logits, pesos = modelo(fichas, con_pesos=True)  # (B, L + t, digitos)
        ultimo = logits[:, -1]  # (B, digitos): solo la última posición escribe
        todos_logits.append(ultimo)
        todos_pesos.append(pesos)
        fichas = torch.cat([fichas, ultimo.argmax(dim=-1, keepdim=True)], dim=1)  # lo escrito vuelve a entrar
    return fichas[:, L + 1 :], torch.stack(todos_logits, dim=1), todos_pesos
