"""Entrenar y medir el clasificador de opiniones (`ClasificadorAtencion` sobre `modelos.opiniones`).

Las medidas, en una partición que el entrenamiento no vio:
- exactitud, y por separado en las frases con negación y en las de contraste («… pero …»);
- en las frases cuya etiqueta decide una sola palabra de sentimiento (`Opinion.clave`), la fracción
  en que la agrupación le da a esa palabra el peso más alto; y en las de una sola palabra de
  sentimiento negada, si pesa más esa palabra o la negación.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import torch
from torch import Tensor, nn

from ..clasificador import ClasificadorAtencion
from ..opiniones import Opinion, particiones
from ..vocabulario import DESCONOCIDA, Vocabulario

NEGACIONES = frozenset({"no", "nunca", "nada"})


@lru_cache(maxsize=1)
def vocabulario_entrenamiento() -> Vocabulario:
    """Las fichas de la partición de entrenamiento, tras <relleno> y <desconocida>."""
    return Vocabulario.desde_frases(o.fichas for o in particiones()["entrenamiento"])


def codificar(opiniones: Sequence[Opinion], vocabulario: Vocabulario) -> tuple[Tensor, Tensor, Tensor]:
    """Índices (N, L) con relleno 0 al final, etiquetas (N,) y dónde hay palabras de sentimiento (N, L)."""
    L = max(len(o.fichas) for o in opiniones)
    X = torch.zeros(len(opiniones), L, dtype=torch.long)
    sentimiento = torch.zeros(len(opiniones), L, dtype=torch.bool)
    for i, o in enumerate(opiniones):
        X[i, : len(o.fichas)] = torch.tensor([vocabulario.ficha(f).indice for f in o.fichas])
        sentimiento[i, list(o.sentimiento)] = True
    return X, torch.tensor([o.etiqueta for o in opiniones]), sentimiento


def entrenar_clasificador(
    modelo: ClasificadorAtencion,
    X: Tensor,
    y: Tensor,
    sentimiento: Tensor,
    *,
    epocas: int,
    tasa: float,
    decaimiento: float,
    lote: int = 64,
    semilla: int = 0,
    desconocidas: float = 0.05,
) -> list[float]:
    """AdamW con un ciclo de tasa (OneCycle) y entropía cruzada; deja el modelo en eval.

    X: (N, L) índices, y: (N,), sentimiento: (N, L). Los lotes juntan frases de largo parecido (se
    ordenan por largo dentro de tramos de 50 lotes barajados), así casi no se calcula relleno. En cada
    lote, una fracción `desconocidas` de las palabras que no son de sentimiento se cambia por
    <desconocida>, para que el modelo sepa qué hacer con palabras que no conoce (las de sentimiento no:
    sin ellas la etiqueta no se sabría). Devuelve la pérdida media de cada época.
    """
    dev = next(modelo.parameters()).device
    largos = (X != 0).sum(dim=1)  # (N,)
    g = torch.Generator().manual_seed(semilla)
    optimizador = torch.optim.AdamW(modelo.parameters(), lr=tasa, weight_decay=decaimiento)
    por_epoca = math.ceil(len(X) / lote)
    programa = torch.optim.lr_scheduler.OneCycleLR(optimizador, max_lr=tasa, total_steps=epocas * por_epoca)
    desconocida = 1  # índice de <desconocida> en todo Vocabulario
    perdidas = []
    for _ in range(epocas):
        modelo.train()
        suma = 0.0
        for indices in _lotes(largos, lote, g):
            largo = int(largos[indices].max())
            x = X[indices, :largo]  # (B, largo): sin columnas de puro relleno
            cambiar = (torch.rand(x.shape, generator=g) < desconocidas) & (x != 0) & ~sentimiento[indices, :largo]
            x = x.masked_fill(cambiar, desconocida)
            optimizador.zero_grad()
            logits, _, _ = modelo(x.to(dev))
            perdida = nn.functional.cross_entropy(logits, y[indices].to(dev))
            perdida.backward()
            optimizador.step()
            programa.step()
            suma += perdida.item() * len(indices)
        perdidas.append(suma / len(X))
    modelo.eval()
    return perdidas


def _lotes(largos: Tensor, lote: int, g: torch.Generator) -> list[Tensor]:
    """Índices de cada lote de una época: barajados, y ordenados por largo dentro de tramos de 50 lotes."""
    lotes = []
    for tramo in torch.randperm(len(largos), generator=g).split(50 * lote):
        lotes += tramo[torch.argsort(largos[tramo], stable=True)].split(lote)
    return [lotes[i] for i in torch.randperm(len(lotes), generator=g)]


def medir(modelo: ClasificadorAtencion, opiniones: Sequence[Opinion], vocabulario: Vocabulario) -> dict:
    """Exactitudes y la fracción de frases de una sola palabra de sentimiento en que la agrupación
    pesa más esa palabra, en `opiniones`; con el número de frases de cada grupo."""
    X, y, _ = codificar(opiniones, vocabulario)
    dev = next(modelo.parameters()).device
    with torch.inference_mode():
        logits, pesos, _ = modelo(X.to(dev))
    acierto = (logits.argmax(dim=-1).cpu() == y).float()  # (N,)
    maximo = pesos.argmax(dim=-1).cpu().tolist()  # (N,): la palabra más pesada de cada frase
    negadas = torch.tensor([o.negada for o in opiniones])
    contraste = torch.tensor([o.contraste for o in opiniones])
    con_clave = [i for i, o in enumerate(opiniones) if o.clave is not None]
    # Una sola palabra de sentimiento, negada («no me gustó»): ¿pesa más la palabra, o la negación?
    una_negada = [i for i, o in enumerate(opiniones) if len(o.sentimiento) == 1 and o.negada and not o.contraste]
    return {
        "prueba": acierto.mean().item(),
        "negadas": acierto[negadas].mean().item(),
        "sin_negar": acierto[~negadas].mean().item(),
        "contraste": acierto[contraste].mean().item(),
        "clave": sum(maximo[i] == opiniones[i].clave for i in con_clave) / len(con_clave),
        "clave_negadas": sum(maximo[i] == opiniones[i].sentimiento[0] for i in una_negada) / len(una_negada),
        "negacion": sum(opiniones[i].fichas[maximo[i]] in NEGACIONES for i in una_negada) / len(una_negada),
        "n": len(opiniones),
        "n_negadas": int(negadas.sum()),
        "n_contraste": int(contraste.sum()),
        "n_clave": len(con_clave),
        "n_clave_negadas": len(una_negada),
        "desconocidas": sum(f not in vocabulario.indices for o in opiniones for f in o.fichas),
    }


def entrenar_opiniones(modelo: ClasificadorAtencion, receta) -> dict:
    """Entrena con la receta en la partición de entrenamiento y mide en validación y en prueba."""
    datos, vocabulario = particiones(), vocabulario_entrenamiento()
    X, y, sentimiento = codificar(datos["entrenamiento"], vocabulario)
    perdidas = entrenar_clasificador(
        modelo, X, y, sentimiento, epocas=receta.epocas, tasa=receta.tasa, decaimiento=receta.decaimiento
    )
    metricas = medir(modelo, datos["prueba"], vocabulario)
    validacion = medir(modelo, datos["validacion"], vocabulario)
    entrenamiento = medir(modelo, datos["entrenamiento"][:2_000], vocabulario)
    metricas |= {f"validacion_{k}": v for k, v in validacion.items() if not k.startswith("n")}
    metricas |= {"entrenamiento": entrenamiento["prueba"], "perdida_final": perdidas[-1]}  # 2,000 de las vistas
    return metricas


__all__ = [
    "DESCONOCIDA",
    "codificar",
    "entrenar_clasificador",
    "entrenar_opiniones",
    "medir",
    "vocabulario_entrenamiento",
]
