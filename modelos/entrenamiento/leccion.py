"""El entrenamiento de la inversión tal como lo escribe la lección, para repetir sus números impresos.

Los mismos datos (`X_ent` y `X_val` de un generador de semilla 0), el mismo `DataLoader` barajado con
su generador de semilla 0, el modelo creado tras `torch.manual_seed(0)`, Adam 1e-3, lotes de 64, y
al final de cada época la pérdida media de entrenamiento y la exactitud en `X_val`, como imprime:

    Época 1: pérdida 1.867   dígitos 32.1%   secuencias 0.1%      (sin posición)

Sin tocar el estado aleatorio global (la semilla del modelo va dentro de `fork_rng`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import torch
from torch import nn

from ..datos import DIGITOS, LARGO
from ..hilos import un_hilo
from ..transformer import TransformerJuguete

MAXIMO_EPOCAS = 2


def datos_de_la_leccion() -> tuple[torch.Tensor, torch.Tensor]:
    """X_ent (20000, 8) y X_val (2000, 8), del mismo generador y en el mismo orden que la lección."""
    g = torch.Generator().manual_seed(0)
    X_ent = torch.randint(0, DIGITOS, (20000, LARGO), generator=g)
    X_val = torch.randint(0, DIGITOS, (2000, LARGO), generator=g)
    return X_ent, X_val


def como_la_leccion(con_posicion: bool, epocas: int = 1) -> Iterator[dict]:
    """Entrena como `entrenar_secuencias` de la lección; produce {"epoca", "perdida", "digitos", "secuencias"}."""
    from torch.utils.data import DataLoader, TensorDataset

    if con_posicion not in (True, False) or epocas not in range(1, MAXIMO_EPOCAS + 1):
        raise ValueError(f"«con_posicion» es verdadero o falso y «epocas», de 1 a {MAXIMO_EPOCAS}.")
    X_ent, X_val = datos_de_la_leccion()
    Y_ent, Y_val = X_ent.flip(dims=[1]), X_val.flip(dims=[1])
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        modelo = TransformerJuguete(con_posicion=bool(con_posicion))
    cargador = DataLoader(
        TensorDataset(X_ent, Y_ent), batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(0)
    )
    optimizador = torch.optim.Adam(modelo.parameters(), lr=1e-3)
    funcion_perdida = nn.CrossEntropyLoss()
    for epoca in range(1, epocas + 1):
        with un_hilo():
            modelo.train()
            suma = 0.0
            for x, y in cargador:
                optimizador.zero_grad()
                perdida = funcion_perdida(modelo(x).transpose(1, 2), y)  # (B, 10, L) contra (B, L)
                perdida.backward()
                optimizador.step()
                suma += perdida.item() * len(y)
            modelo.eval()
            with torch.inference_mode():
                acierto = modelo(X_val).argmax(dim=-1) == Y_val  # (2000, 8)
        yield {
            "epoca": epoca,
            "perdida": suma / len(X_ent),
            "digitos": acierto.float().mean().item(),
            "secuencias": acierto.all(dim=1).float().mean().item(),
        }


@lru_cache(maxsize=2)
def epoca_1(con_posicion: bool = False) -> dict:
    """La época 1 de la lección (determinista: se calcula una vez por proceso)."""
    return next(como_la_leccion(con_posicion, 1))
