"""Opiniones en español generadas por una gramática: los datos del clasificador con atención.

No hay en los registros de paquetes un corpus de opiniones en español con licencia
abierta que se instale con sus datos, así que las frases salen de una gramática
pequeña y determinista: reseñas de películas, series, restaurantes, libros y hoteles,
con negación («no es buena»), intensificadores («muy», «bastante»), palabras de
sentimiento en sitios distintos de la frase, contrastes con «pero» (manda lo que va
después) y frases neutras de contexto. La etiqueta sale de las reglas, no de nadie
que la anotara: es un conjunto de juguete, para mirar cómo atiende el modelo.

    opiniones(n, semilla)   ->   n opiniones distintas, reproducibles por semilla
    particiones()           ->   entrenamiento, validación y prueba, sin frases repetidas entre ellas
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from ._gramatica import CLAVES_SENTIMIENTO, POLARIDAD, Clausula, clausula_sentimiento, clausulas_contexto, dominios

CLASES = ("negativa", "positiva")
SEMILLAS = {"entrenamiento": 0, "validacion": 1, "prueba": 2}
TAMANOS = {"entrenamiento": 24_000, "validacion": 2_000, "prueba": 2_000}


@dataclass(frozen=True)
class Opinion:
    """Una opinión: su texto, sus fichas (lo que ve el modelo) y lo que se sabe de ella por construcción."""

    texto: str
    fichas: tuple[str, ...]  # en minúsculas, como las da modelos.vocabulario.tokenizar(texto)
    etiqueta: int  # 0 negativa, 1 positiva
    dominio: str
    sentimiento: tuple[int, ...]  # posiciones de las palabras de sentimiento
    negada: bool  # alguna palabra de sentimiento va negada («no», «nunca», «nada»)
    contraste: bool  # «… pero …»: manda la cláusula de después

    @property
    def clave(self) -> int | None:
        """La posición de la única palabra que decide la etiqueta, si la hay: una sola palabra de
        sentimiento, sin negación ni contraste. Si no, None."""
        if len(self.sentimiento) == 1 and not self.negada and not self.contraste:
            return self.sentimiento[0]
        return None


def _unir(partes: list[Clausula], separadores: list[str], final: str) -> tuple[list[str], list[int], bool]:
    fichas: list[str] = []
    sentimiento: list[int] = []
    negada = False
    for i, parte in enumerate(partes):
        if i:
            fichas += separadores[i - 1].split()
        sentimiento += [len(fichas) + j for j in parte.sentimiento]
        negada |= parte.negada
        fichas += parte.fichas
    if final:
        fichas.append(final)
    return fichas, sentimiento, negada


def _texto(fichas: list[str]) -> str:
    """Las fichas como frase escrita: mayúscula al empezar cada oración y los signos pegados a su palabra."""
    texto, mayuscula = "", True
    for f in fichas:
        escrita = f[0].upper() + f[1:] if mayuscula and f[0].isalpha() else f
        mayuscula = (mayuscula and f == "¡") or f == "."
        if texto and f not in {",", ".", "!", ":"} and not texto.endswith("¡"):
            texto += " "
        texto += escrita
    return texto


def opinion(r: random.Random) -> Opinion:
    """Una opinión al azar con el generador `r`."""
    dominio = r.choice(dominios())
    etiqueta = r.randrange(2)
    polo = 1 if etiqueta else -1
    partes: list[Clausula] = []
    contraste = r.random() < 0.12
    if contraste:  # «la comida estaba rica, pero el servicio fue pésimo»: manda lo de después
        antes, despues = clausula_sentimiento(r, dominio, -polo), clausula_sentimiento(r, dominio, polo)
        union = [","] * (r.random() < 0.5) + ["pero"]
        desplazamiento = len(antes.fichas) + len(union)
        partes.append(
            Clausula(
                [*antes.fichas, *union, *despues.fichas],
                [*antes.sentimiento, *(desplazamiento + j for j in despues.sentimiento)],
                antes.negada or despues.negada,
            )
        )
    n = r.choices((1, 2, 3), weights=(0.6, 0.28, 0.12))[0] - (1 if contraste else 0)
    partes += [clausula_sentimiento(r, dominio, polo) for _ in range(n)]
    contextos = r.choices((0, 1, 2), weights=(0.35, 0.45, 0.2))[0]
    for contexto in clausulas_contexto(r, dominio, contextos):
        partes.insert(r.randrange(len(partes) + 1), contexto)
    separadores = [r.choice((",", ",", "y", ".", ":")) for _ in partes[1:]]
    final = "" if partes[-1].fichas[-1] == "!" else r.choice((".", ".", "!", ""))
    fichas, sentimiento, negada = _unir(partes, separadores, final)
    return Opinion(_texto(fichas), tuple(fichas), etiqueta, dominio, tuple(sentimiento), negada, contraste)


def _clave_texto(o: Opinion) -> str:
    """Las palabras sin los signos: dos frases que solo difieren en una coma cuentan como la misma."""
    return " ".join(f for f in o.fichas if f[0].isalnum())


def opiniones(n: int, semilla: int = 0, excluir: frozenset[str] = frozenset()) -> list[Opinion]:
    """n opiniones de palabras distintas (y ninguna en `excluir`), reproducibles por `semilla`.

    `excluir` son claves de `_clave_texto`: las palabras sin signos.
    """
    r = random.Random(semilla)  # propio: no toca el azar global
    vistas, resultado = set(excluir), []
    while len(resultado) < n:
        o = opinion(r)
        if _clave_texto(o) not in vistas:
            vistas.add(_clave_texto(o))
            resultado.append(o)
    return resultado


@lru_cache(maxsize=1)
def particiones() -> dict[str, tuple[Opinion, ...]]:
    """Entrenamiento (semilla 0), validación (1) y prueba (2); ninguna frase de una está en otra."""
    resultado: dict[str, tuple[Opinion, ...]] = {}
    vistas: set[str] = set()
    for nombre, semilla in SEMILLAS.items():
        datos = opiniones(TAMANOS[nombre], semilla, frozenset(vistas))
        vistas |= {_clave_texto(o) for o in datos}
        resultado[nombre] = tuple(datos)
    return resultado


__all__ = ["CLASES", "CLAVES_SENTIMIENTO", "POLARIDAD", "Opinion", "opinion", "opiniones", "particiones"]
