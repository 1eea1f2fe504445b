"""El modelo de la pestaña y de «Entrénalo tú»: leer los dígitos, elegir el modelo, predecir.

Lo comparten `pestana.py` (la vista pública) y `entrenar.py` («Entrénalo tú» y las
instantáneas del entrenamiento): por eso vive abajo de los dos y no importa ninguno.
"""

from __future__ import annotations

import numpy as np
import torch

import modelos
from demos.comun.figuras import miles
from modelos.datos import LARGO
from modelos.hilos import un_hilo

LECCION = "8 3 3 9 6 9 4 0"
MAX_TEXTO = 200  # un texto más largo ni se mira
SEPARADORES = " \t\n\r,"
ACEPTA = (
    "Escribe exactamente 8 dígitos del 0 al 9, con o sin espacios o comas entre ellos "
    "(p. ej. «8 3 3 9 6 9 4 0» o «83396940»)."
)
CON, SIN, MIO = "con-posicion", "sin-posicion", "el-mio"
CHECKPOINTS = {CON: "inversion-digitos", SIN: "inversion-digitos-sin-posicion"}
NOMBRES = {CON: "El modelo con posición", SIN: "El modelo sin posición", MIO: "Tu modelo"}


# --- entrada ---------------------------------------------------------------------------------------


def leer_digitos(texto) -> list[int]:
    """«8 3 3 9 6 9 4 0», «8,3,3,9,6,9,4,0» u «83396940» -> [8, 3, 3, 9, 6, 9, 4, 0]."""
    if not isinstance(texto, str):
        raise ValueError(f"Los dígitos deben llegar como texto. {ACEPTA}")
    if len(texto) > MAX_TEXTO:
        raise ValueError(f"El texto es demasiado largo ({miles(len(texto))} caracteres). {ACEPTA}")
    limpio = [c for c in texto if c not in SEPARADORES]
    if not limpio:
        raise ValueError(f"No hay dígitos. {ACEPTA}")
    # Solo 0–9 ASCII: str.isdigit() aceptaría «٣» o «³», que el modelo no conoce.
    raros = list(dict.fromkeys(c for c in limpio if c not in "0123456789"))
    if raros:
        muestra = " ".join(f"«{c}»" for c in raros[:5])
        raise ValueError(f"{muestra} no {'es un dígito' if len(raros) == 1 else 'son dígitos'} del 0 al 9. {ACEPTA}")
    if len(limpio) != LARGO:
        raise ValueError(f"Hay {len(limpio)} dígitos y hacen falta {LARGO}. {ACEPTA}")
    return [int(c) for c in limpio]


def cuantos(n: int, palabra: str) -> str:
    """cuantos(1, "cabeza") -> «1 cabeza»; cuantos(2, "cabeza") -> «2 cabezas»."""
    return f"{n} {palabra}" if n == 1 else f"{n} {palabra}s"


# --- modelos ---------------------------------------------------------------------------------------


def modelo_propio(estado) -> torch.nn.Module:
    """El modelo que entrenó el visitante, desde su `gr.State` ({"config", "pesos", ...})."""
    if not isinstance(estado, dict) or not isinstance(estado.get("config"), dict) or "pesos" not in estado:
        raise ValueError("Todavía no entrenaste un modelo: usa «Entrénalo tú», más abajo, y vuelve a elegir «el mío».")
    modelo = modelos.TransformerJuguete(**estado["config"])
    modelo.load_state_dict(estado["pesos"])
    return modelo.eval().to(modelos.dispositivo())


def elegir_modelo(modelo: str, propio=None) -> torch.nn.Module:
    """El checkpoint compartido (nunca se muta) o el modelo propio del visitante."""
    if not isinstance(modelo, str) or modelo not in NOMBRES:
        raise ValueError(f"El modelo debe ser «{CON}», «{SIN}» o «{MIO}».")
    if modelo == MIO:
        return modelo_propio(propio)
    return modelos.cargar(CHECKPOINTS[modelo])


def predecir(modelo: torch.nn.Module, digitos: list[int]) -> tuple[list[int], np.ndarray, list[np.ndarray]]:
    """(predicción [L], probabilidad de cada dígito predicho (L,), pesos por bloque [(cabezas, L, L)])."""
    lugar = next(modelo.parameters()).device
    with torch.inference_mode(), un_hilo():
        x = torch.tensor([digitos], device=lugar)  # (1, L)
        logits, pesos = modelo(x, con_pesos=True)  # (1, L, 10), [(1, cabezas, L, L)]
        prob = logits[0].softmax(dim=-1).max(dim=-1)  # valores y argmax, (L,)
        return prob.indices.cpu().tolist(), prob.values.cpu().numpy(), [p[0].cpu().numpy() for p in pesos]


def mapa(pesos: list[np.ndarray], bloque: int, cabeza: int | None) -> np.ndarray:
    """La matriz (L, L) de un bloque (desde 0): una cabeza (desde 0) o el promedio (None)."""
    p = pesos[bloque]  # (cabezas, L, L)
    return p.mean(axis=0) if cabeza is None else p[cabeza]
