"""El bucle de las redes de imágenes (dígitos de sklearn): AdamW, OneCycle y desplazamientos de ±1 px."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn


def desplazar(x: Tensor, g: torch.Generator, margen: int = 1) -> Tensor:
    """Aumentación: cada imagen (B, 1, H, W) se corre al azar hasta `margen` px en cada eje, con ceros."""
    B, _, H, W = x.shape
    relleno = nn.functional.pad(x, (margen,) * 4)  # (B, 1, H + 2m, W + 2m)
    dy, dx = torch.randint(0, 2 * margen + 1, (2, B, 1), generator=g)  # (B, 1) cada uno
    filas, columnas = dy + torch.arange(H), dx + torch.arange(W)  # (B, H), (B, W)
    recorte = relleno[torch.arange(B)[:, None, None], 0, filas[:, :, None], columnas[:, None, :]]  # (B, H, W)
    return recorte.unsqueeze(1)


def entrenar_imagenes(
    modelo: nn.Module,
    X: Tensor,
    y: Tensor,
    *,
    epocas: int,
    tasa: float,
    decaimiento: float,
    semilla: int = 0,
    castigo: Callable[..., Tensor] | None = None,
) -> list[float]:
    """AdamW con un ciclo de tasa (OneCycle), lotes de 64 y desplazamientos de ±1 px.

    X: (N, 1, 8, 8), y: (N,). Con `castigo`, el modelo se llama con `con_pesos=True` y a la
    entropía cruzada se suma `castigo(*compuertas)` (p. ej. el presupuesto de atención de CBAM).
    Devuelve la entropía cruzada media de cada época (sin el castigo); deja el modelo en eval.
    """
    g = torch.Generator().manual_seed(semilla)
    optimizador = torch.optim.AdamW(modelo.parameters(), lr=tasa, weight_decay=decaimiento)
    por_epoca = math.ceil(len(X) / 64)
    programa = torch.optim.lr_scheduler.OneCycleLR(optimizador, max_lr=tasa, total_steps=epocas * por_epoca)
    perdidas = []
    for _ in range(epocas):
        modelo.train()
        suma = 0.0
        for indices in torch.randperm(len(X), generator=g).split(64):
            optimizador.zero_grad()
            x = desplazar(X[indices], g)
            if castigo is None:
                perdida = nn.functional.cross_entropy(modelo(x), y[indices])
                perdida.backward()
            else:
                logits, *compuertas = modelo(x, con_pesos=True)
                perdida = nn.functional.cross_entropy(logits, y[indices])
                (perdida + castigo(*compuertas)).backward()
            optimizador.step()
            programa.step()
            suma += perdida.item() * len(indices)
        perdidas.append(suma / len(X))
    modelo.eval()
    return perdidas
