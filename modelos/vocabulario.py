"""Fichas de palabras: el tokenizador y el vocabulario del clasificador de opiniones.

Una ficha es una palabra en minúsculas (`\\w+`) o un signo suelto («,», «¡»). Los
símbolos desconocidos seguidos (un emoji con su tono de piel) forman una sola ficha.
El índice 0 es <relleno> y el 1 es <desconocida>: lo que el vocabulario no tiene se
lee como <desconocida>. El vocabulario viaja con el checkpoint en `vocabulario.json`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

RELLENO, DESCONOCIDA = "<relleno>", "<desconocida>"
_FICHA = re.compile(r"(?P<palabra>\w+)|(?P<signo>[^\w\s])")
_TILDES = str.maketrans("áéíóúüàèìòù", "aeiouuaeiou")  # la ñ se queda: «año» no es «ano»


def normalizar(texto: str) -> str:
    """NFC (una tilde escrita como letra + acento combinado vale lo mismo) y minúsculas."""
    return unicodedata.normalize("NFC", texto).lower()


def sin_tildes(palabra: str) -> str:
    return palabra.translate(_TILDES)


@dataclass(frozen=True)
class Ficha:
    """Una ficha de una frase: tal como se escribió, su forma en minúsculas y su índice."""

    escrita: str  # tal como aparece en el texto
    forma: str  # la forma del vocabulario que se usa; <desconocida> si no hay
    indice: int
    conocida: bool
    corregida: bool = False  # se encontró quitando tildes («pelicula» → «película»)
    inicio: int = 0  # dónde está en el texto normalizado (NFC): texto[inicio:fin] == escrita
    fin: int = 0


def _crudas(texto: str) -> Iterator[re.Match]:
    return _FICHA.finditer(unicodedata.normalize("NFC", texto))


class Vocabulario:
    """Fichas ↔ índices. fichas[0] = <relleno>, fichas[1] = <desconocida>."""

    def __init__(self, fichas: Iterable[str]):
        self.fichas = tuple(fichas)
        if self.fichas[:2] != (RELLENO, DESCONOCIDA):
            raise ValueError(f"Un vocabulario empieza por {RELLENO} y {DESCONOCIDA}.")
        if len(set(self.fichas)) != len(self.fichas):
            raise ValueError("El vocabulario tiene fichas repetidas.")
        self.indices = {f: i for i, f in enumerate(self.fichas)}
        sueltas: dict[str, str] = {}
        for f in self.fichas[2:]:  # en orden: con dos formas sin tilde iguales gana la primera
            sueltas.setdefault(sin_tildes(f), f)
        self._sin_tildes = sueltas

    def __len__(self) -> int:
        return len(self.fichas)

    def __eq__(self, otro: object) -> bool:
        return isinstance(otro, Vocabulario) and self.fichas == otro.fichas

    def __hash__(self) -> int:
        return hash(self.fichas)

    @classmethod
    def desde_frases(cls, frases: Iterable[Iterable[str]]) -> Vocabulario:
        """Las fichas que aparecen en `frases` (ya tokenizadas), en orden alfabético, tras las dos especiales."""
        vistas = {f for frase in frases for f in frase}
        return cls([RELLENO, DESCONOCIDA, *sorted(vistas - {RELLENO, DESCONOCIDA})])

    def ficha(self, escrita: str) -> Ficha:
        """La ficha de una palabra o signo: exacta en minúsculas; si no, sin tildes; si no, <desconocida>."""
        forma = normalizar(escrita)
        if forma in self.indices:
            return Ficha(escrita, forma, self.indices[forma], True)
        parecida = self._sin_tildes.get(sin_tildes(forma))
        if parecida is not None:
            return Ficha(escrita, parecida, self.indices[parecida], True, corregida=True)
        return Ficha(escrita, DESCONOCIDA, self.indices[DESCONOCIDA], False)

    def fichas_de(self, texto: str, maximo: int | None = None) -> tuple[list[Ficha], bool]:
        """Las fichas de `texto`, a lo sumo `maximo`; y si quedó texto sin leer (más fichas que `maximo`).

        Las posiciones `inicio`/`fin` de cada ficha son las del texto en NFC (`unicodedata.normalize`).
        """
        resultado: list[Ficha] = []
        fin_simbolo = -1  # dónde acaba la última ficha si es un símbolo desconocido
        for m in _crudas(texto):
            f = replace(self.ficha(m.group()), inicio=m.start(), fin=m.end())
            simbolo = not f.conocida and m.lastgroup == "signo"
            # Un emoji con modificador (👍🏽) o una bandera son varios símbolos pegados: una sola ficha.
            if simbolo and m.start() == fin_simbolo:
                anterior = resultado[-1]
                resultado[-1] = replace(anterior, escrita=anterior.escrita + m.group(), fin=m.end())
            elif maximo is not None and len(resultado) == maximo:
                return resultado, True
            else:
                resultado.append(f)
            fin_simbolo = m.end() if simbolo else -1
        return resultado, False

    def a_json(self) -> str:
        datos = {"fichas": list(self.fichas), "relleno": 0, "desconocida": 1, "minusculas": True}
        return json.dumps(datos, ensure_ascii=False, indent=0) + "\n"

    @classmethod
    def desde_json(cls, texto: str) -> Vocabulario:
        datos = json.loads(texto)
        if not isinstance(datos, dict) or not isinstance(datos.get("fichas"), list):
            raise ValueError("vocabulario.json debe ser un objeto con la lista «fichas».")
        if not all(isinstance(f, str) for f in datos["fichas"]):
            raise ValueError("Las fichas de vocabulario.json deben ser textos.")
        return cls(datos["fichas"])


def tokenizar(texto: str) -> list[str]:
    """Las fichas de `texto` en minúsculas, sin vocabulario: «¡Qué maravilla!» → ['¡', 'qué', 'maravilla', '!']."""
    return [normalizar(m.group()) for m in _crudas(texto)]
