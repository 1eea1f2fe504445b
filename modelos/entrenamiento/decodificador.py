"""La receta de `decodificador-inversion` y las partes de su tarjeta (la arma `modelos.entrenamiento.tarjetas`).

Se entrena con «teacher forcing»: una sola pasada por lote, con la respuesta correcta ya escrita
después de «→», da la pérdida de las 8 posiciones que escriben. Se mide generando: el bucle de 8
pasos, que realimenta lo que escribe (`modelos.decodificador.generar`), sobre las 2,000 secuencias
de validación que ningún entrenamiento usa.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..datos import secuencias_digitos
from ..decodificador import DecodificadorJuguete, forzar, generar
from .inversion import validacion_inversion

NOMBRE = "decodificador-inversion"
LOTE = 64

TITULO = "Decodificador causal diminuto que escribe la inversión de 8 dígitos, de a uno"

DESCRIPCION = (
    "El «escenario Decoder» del tutorial (§3.1) sobre la tarea de la lección: recibe 8 dígitos, la ficha «→» y "
    "escribe la secuencia al revés, un dígito por paso, realimentando cada uno. Fichas (los 10 dígitos y «→») "
    "más una posición aprendida (16 posiciones), un bloque transformer pre-norma con máscara causal (2 cabezas, "
    "d_modelo = 32) y una capa lineal a 10 clases. `modelos.decodificador.generar` es el bucle de 8 pasos y "
    "`modelos.decodificador.forzar` la pasada única del entrenamiento («teacher forcing»)."
)


def entrenar_decodificador(modelo: DecodificadorJuguete, *, epocas: int, secuencias: int, tasa: float) -> list[float]:
    """Adam, lotes de 64 barajados con un generador propio (semilla 0): la pérdida media de cada época."""
    X, Y = secuencias_digitos(secuencias, 0)  # (n, 8) y su inversión
    optimizador = torch.optim.Adam(modelo.parameters(), lr=tasa)
    g = torch.Generator().manual_seed(0)
    medias = []
    for _ in range(epocas):
        modelo.train()
        suma = 0.0
        for indices in torch.randperm(secuencias, generator=g).split(LOTE):
            optimizador.zero_grad()
            logits = forzar(modelo, X[indices], Y[indices])  # (B, 8, 10): las 8 posiciones en una pasada
            perdida = nn.functional.cross_entropy(logits.transpose(1, 2), Y[indices])
            perdida.backward()
            optimizador.step()
            suma += perdida.item()
        medias.append(suma / math.ceil(secuencias / LOTE))
    modelo.eval()
    return medias


def medir(modelo: DecodificadorJuguete, X: torch.Tensor, Y: torch.Tensor) -> dict:
    """Exactitudes generando (el bucle) y forzando (una pasada), y la mayor diferencia de logits entre los dos."""
    with torch.inference_mode():
        escrita, logits_bucle, _ = generar(modelo, X)  # (N, 8), (N, 8, 10)
        logits_pasada = forzar(modelo, X, escrita)  # la misma entrada que vio el bucle, en una pasada
        forzada = forzar(modelo, X, Y)
    acierto = escrita == Y
    return {
        "digitos": acierto.float().mean().item(),
        "secuencias": acierto.all(dim=1).float().mean().item(),
        "secuencias_forzando": (forzada.argmax(dim=-1) == Y).all(dim=1).float().mean().item(),
        "perdida": nn.functional.cross_entropy(forzada.transpose(1, 2), Y).item(),
        "diferencia_bucle_pasada": (logits_bucle - logits_pasada).abs().max().item(),
        "correcta_minima": forzada.softmax(dim=-1).gather(-1, Y.unsqueeze(-1)).min().item(),
    }


def medir_validacion(modelo: DecodificadorJuguete) -> dict:
    return medir(modelo, *validacion_inversion())


# ---------------------------------------------------------------- la tarjeta


def datos() -> str:
    return (
        "Las secuencias de la lección: 8 dígitos uniformes al azar (`modelos.datos.secuencias_digitos`) y su "
        "inversión. Entrenamiento: 20,000 secuencias de la semilla 0 (las `X_ent` de la lección). Validación "
        "(la métrica de abajo): las 2,000 de la semilla 2³² − 1 "
        "(`modelos.entrenamiento.inversion.validacion_inversion()`), las mismas con que se mide "
        "`inversion-digitos`. La entrada del modelo es `x₁ … x₈ → y₁ … y₇` (16 fichas)."
    )


def receta(r) -> str:
    pasos = r.epocas * -(-r.secuencias_por_epoca // LOTE)
    return (
        f"la de la lección para `inversion-digitos`: Adam con tasa {r.tasa:g}, lotes de {LOTE}, {r.epocas} épocas "
        f"de las mismas {r.secuencias_por_epoca:,} secuencias ({pasos} pasos), el modelo con `torch.manual_seed(0)`. "
        "La pérdida es la entropía cruzada de las 8 posiciones que escriben (las de «→» e y₁ … y₇), todas en una "
        "sola pasada por lote («teacher forcing», `modelos.decodificador.forzar`); las 8 posiciones de los dígitos "
        "de entrada no entran en la pérdida. `modelos.entrenamiento.decodificador.entrenar_decodificador`."
    )


def tabla(m: dict, r) -> str:
    perdidas = " y ".join(f"{p:.3f}" for p in m["perdidas_entrenamiento"])
    return (
        "Medido en las 2,000 secuencias de validación, que el entrenamiento no vio. «Generando» es el bucle de 8 "
        "pasos, que realimenta cada dígito que escribe; «forzando», una sola pasada con la respuesta correcta "
        "escrita.\n\n"
        "| medida | valor | meta |\n|---|---|---|\n"
        f"| secuencias enteras acertadas, generando | {m['secuencias']:.2%} | ≥ {r.meta:.1%} |\n"
        f"| dígitos acertados, generando | {m['digitos']:.2%} | |\n"
        f"| secuencias enteras acertadas, forzando | {m['secuencias_forzando']:.2%} | |\n"
        f"| pérdida de entrenamiento de cada época (media por lote) | {perdidas} | |\n"
        f"| pérdida en validación, forzando (entropía cruzada) | {m['perdida']:.4f} | |\n"
        f"| la probabilidad más baja que da al dígito correcto | {m['correcta_minima']:.4f} | |\n"
        f"| mayor diferencia de logits entre el bucle y la pasada única | {m['diferencia_bucle_pasada']:.1e} | |"
    )
