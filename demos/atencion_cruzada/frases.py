"""Las frases de «Atención cruzada»: leerlas, el vector de cada palabra y la capa sin entrenar.

Cada palabra recibe un vector al azar armado con sus trozos de tres letras (como fastText): la misma
palabra da siempre el mismo vector, y dos palabras se parecen si se escriben parecido.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from functools import lru_cache

import torch

from demos.comun.validar import lista_de_palabras
from modelos import AtencionCruzada

D_MODELO, CABEZAS = 64, 4
MAX_PALABRAS, MAX_LETRAS, SEMILLA_MAX = 32, 30, 2**31 - 1
MAX_TEXTO = MAX_PALABRAS * (MAX_LETRAS + 1)  # 32 palabras de 30 letras con sus espacios
IDENTIDAD, AL_AZAR = "identidad", "al azar"


def leer_frase(texto, nombre: str) -> list[str]:
    """Una frase -> sus palabras (separadas por espacios), con los límites de la pestaña."""
    return lista_de_palabras(
        texto,
        f"la frase {nombre}",
        separador="espacio",
        max_palabras=MAX_PALABRAS,
        max_letras=MAX_LETRAS,
        max_texto=MAX_TEXTO,
    )


# --- vectores de palabras y la capa -------------------------------------------------------------


@lru_cache(maxsize=8192)
def _vector_trozo(trozo: str, semilla: int) -> torch.Tensor:
    """Un vector al azar fijo para un trozo de palabra: su semilla es un hash estable del trozo."""
    resumen = hashlib.blake2b(f"{semilla}\x00{trozo}".encode(), digest_size=8).digest()
    g = torch.Generator().manual_seed(int.from_bytes(resumen, "little") & (2**63 - 1))
    return torch.randn(D_MODELO, generator=g)


def _sin_tildes(texto: str) -> str:
    """«información» -> «informacion»: para estos vectores de letras, las tildes no cuentan."""
    return "".join(c for c in unicodedata.normalize("NFD", texto) if not unicodedata.combining(c))


def vector_palabra(palabra: str, semilla: int = 0) -> torch.Tensor:
    """(D_MODELO,): la suma de los vectores de la palabra entera y de sus trozos de tres letras.

    Como en fastText: «<bank>» aporta «<ba», «ban», «ank», «nk>». Se divide por √(trozos)
    para que cada número tenga varianza 1, sea la palabra corta o larga.
    """
    marcada = f"<{_sin_tildes(palabra.lower())}>"
    trozos = [marcada, *(marcada[i : i + 3] for i in range(len(marcada) - 2))]
    return torch.stack([_vector_trozo(t, semilla) for t in trozos]).sum(0) / math.sqrt(len(trozos))


def vectores(palabras: list[str], semilla: int) -> torch.Tensor:
    """(1, L, D_MODELO): la frase como un lote de una."""
    return torch.stack([vector_palabra(p, semilla) for p in palabras]).unsqueeze(0)


def crear_capa(proyecciones: str, semilla: int) -> AtencionCruzada:
    """La capa de atención cruzada con W = identidad o con pesos al azar de un Generator propio."""
    with torch.device("meta"):  # sin memoria ni números al azar del RNG global
        capa = AtencionCruzada(D_MODELO, CABEZAS)
    capa = capa.to_empty(device="cpu")
    with torch.no_grad():
        if proyecciones == IDENTIDAD:
            identidad = torch.eye(D_MODELO)
            capa.qkv.weight.copy_(torch.cat([identidad] * 3))  # (3d, d): Q = K = V = el vector
            capa.salida.weight.copy_(identidad)
            capa.qkv.bias.zero_()
            capa.salida.bias.zero_()
        else:
            g = torch.Generator().manual_seed(semilla)
            cota = 1 / math.sqrt(D_MODELO)  # la inicialización de nn.Linear
            for p in capa.parameters():
                p.uniform_(-cota, cota, generator=g)
    return capa.eval()


def pesos_cruzados(objetivo: list[str], fuente: list[str], proyecciones: str = IDENTIDAD, semilla: int = 0):
    """Pesos (cabezas, L_objetivo, L_fuente) de AtencionCruzada: Q del objetivo, K y V de la fuente."""
    capa = crear_capa(proyecciones, semilla)
    with torch.inference_mode():
        _, pesos = capa(vectores(objetivo, semilla), vectores(fuente, semilla))  # (1, cabezas, Lo, Lf)
    return pesos[0].numpy()
