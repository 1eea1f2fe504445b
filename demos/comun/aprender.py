"""Aprender haciendo: predecir antes de ver, comprobarse, y la distancia entre lo dicho y lo cierto.

Una pestaña declara junto a su `Vista` un `Aprender`: una `Prediccion` (lo que el estudiante apuesta
antes de ver la figura) y unas `Pregunta` de autoevaluación, cada opción con su propia explicación.
Las respuestas verdaderas no se escriben: `verdad` llama a las funciones de la propia pestaña y
devuelve la respuesta, o un diccionario {"respuesta": …, otras cifras} cuyas cifras citan los textos
(«{antes}» en un `porque` se llena con la cifra calculada). Los widgets los arma `demos.servir.aprender`
para todas las pestañas por igual; este módulo no importa gradio, y nada de lo que el estudiante
contesta pasa por el log.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from modelos.formato import numero

TOLERANCIA = 0.05  # una opción numérica es la correcta si dista menos del 5 % de la respuesta calculada
MAX_OPCIONES = 6

_cifras_cache: dict[int, dict[str, Any]] = {}
_cerrojo = threading.Lock()


def _cifras(verdad: Callable[[], Any]) -> dict[str, Any]:
    """Las cifras verdaderas, calculadas una vez por proceso (son las mismas para todos)."""
    clave = id(verdad)
    with _cerrojo:
        guardadas = _cifras_cache.get(clave)
    if guardadas is None:
        v = verdad()
        guardadas = dict(v) if isinstance(v, dict) else {"respuesta": v}
        if "respuesta" not in guardadas:
            raise ValueError("`verdad` debe dar la respuesta o un diccionario con la clave «respuesta».")
        with _cerrojo:
            _cifras_cache[clave] = guardadas
    return guardadas


def _es_numero(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _llenar(texto: str, cifras: dict[str, Any]) -> str:
    return texto.format(**cifras) if "{" in texto else texto


@dataclass(frozen=True)
class Alternativa:
    """Una respuesta posible: su `valor` se compara con el calculado; `porque`, su explicación propia."""

    valor: Any  # un número (la más cercana a la verdad, si está a menos de TOLERANCIA) o un texto (igual)
    texto: str  # lo que lee el estudiante
    porque: str  # por qué es la correcta o por qué no: puede citar las cifras de la verdad, «{respuesta}»


def _correcta(opciones: Sequence[Alternativa], respuesta: Any) -> int:
    """El índice de la opción que la respuesta calculada hace correcta; ValueError si no hay una sola."""
    if _es_numero(respuesta):
        numericas = [k for k, o in enumerate(opciones) if _es_numero(o.valor)]
        if not numericas:
            raise ValueError(f"La respuesta {respuesta!r} es un número y ninguna opción lo es.")
        k = min(numericas, key=lambda k: abs(opciones[k].valor - respuesta))
        if abs(opciones[k].valor - respuesta) > TOLERANCIA * max(abs(respuesta), 1e-12):
            raise ValueError(f"Ninguna opción está cerca de la respuesta calculada ({respuesta!r}).")
        return k
    iguales = [k for k, o in enumerate(opciones) if o.valor == respuesta]
    if len(iguales) != 1:
        raise ValueError(f"La respuesta calculada {respuesta!r} debe coincidir con una sola opción.")
    return iguales[0]


@dataclass(frozen=True)
class Pregunta:
    """Una pregunta de autoevaluación: la opción correcta es la que coincide con lo que `verdad` calcula."""

    enunciado: str
    opciones: tuple[Alternativa, ...]
    verdad: Callable[[], Any]

    def __post_init__(self):
        if not 2 <= len(self.opciones) <= MAX_OPCIONES:
            raise ValueError(f"Una pregunta lleva de 2 a {MAX_OPCIONES} opciones.")

    def cifras(self) -> dict[str, Any]:
        return _cifras(self.verdad)

    def correcta(self) -> int:
        return _correcta(self.opciones, self.cifras()["respuesta"])

    def responder(self, indice: Any) -> tuple[bool | None, str]:
        """(acierto, explicación) de la opción elegida; (None, "") si no eligió ninguna válida."""
        if not isinstance(indice, int) or isinstance(indice, bool) or not 0 <= indice < len(self.opciones):
            return None, ""
        cifras = self.cifras()
        bien = indice == self.correcta()
        opcion = self.opciones[indice]
        inicio = "✓ **Correcto.**" if bien else "✗ **No.**"
        return bien, f"{inicio} {_llenar(opcion.porque, cifras)}"


@dataclass(frozen=True)
class Prediccion:
    """Lo que el estudiante apuesta antes de ver: elige una opción, escribe un número o da varias barras."""

    pregunta: str
    verdad: Callable[[], Any]  # la respuesta: un número, una lista de números (barras) o el valor de una opción
    opciones: tuple[Alternativa, ...] = ()  # si las hay, se elige una; si no, se escribe un número
    barras: tuple[str, ...] = ()  # un número por categoría (p. ej. los cuatro pesos de un softmax)
    porque: str = ""  # lo que se lee después de revelar, con las cifras de la verdad
    unidad: str = ""  # "%": la respuesta es una fracción y se lee en por ciento
    decimales: int = 2
    minimo: float = 0.0  # del número o de cada barra que escribe el estudiante
    maximo: float = 1.0

    def cifras(self) -> dict[str, Any]:
        return _cifras(self.verdad)

    def _leer(self, x: float) -> str:
        if self.unidad == "%":
            return f"{numero(100 * x, f'.{max(self.decimales - 2, 0)}f')} %"
        return numero(x, f",.{self.decimales}f") + (f" {self.unidad}" if self.unidad else "")

    def respuesta_en_texto(self) -> str:
        r = self.cifras()["respuesta"]
        if self.opciones:
            return self.opciones[_correcta(self.opciones, r)].texto
        if self.barras:
            return ", ".join(self._leer(float(v)) for v in r)
        return self._leer(float(r))

    def distancia(self, suposicion: Any) -> str:
        """La frase que compara la suposición con la verdad (sin suposición: solo la verdad)."""
        r = self.cifras()["respuesta"]
        if suposicion is None or suposicion == [] or (isinstance(suposicion, float) and math.isnan(suposicion)):
            return f"Sin predicción: la respuesta es **{self.respuesta_en_texto()}**."
        if self.opciones:
            return self._distancia_opcion(int(suposicion), r)
        if self.barras:
            return self._distancia_barras([float(v) for v in suposicion], [float(v) for v in r])
        return self._distancia_numero(float(suposicion), float(r), "Dijiste")

    def _distancia_numero(self, s: float, r: float, verbo: str) -> str:
        brecha = abs(s - r)
        cerca = brecha <= TOLERANCIA * max(abs(r), 1e-12)
        if self.unidad == "%":
            en_texto = f"{numero(100 * brecha, '.1f')} puntos"
        else:
            en_texto = numero(brecha, f",.{self.decimales}f")
        if cerca:
            return f"{verbo} {self._leer(s)} y es **{self._leer(r)}**: acertaste (a {en_texto})."
        veces = f", {numero(r / s, '.3g')} veces lo que dijiste" if s > 0 and r > 0 and (r / s > 3 or s / r > 3) else ""
        lado = "te quedaste corto" if s < r else "te pasaste"
        return f"{verbo} {self._leer(s)} y es **{self._leer(r)}**: {lado} por {en_texto}{veces}."

    def _distancia_opcion(self, k: int, r: Any) -> str:
        if not 0 <= k < len(self.opciones):
            return f"Sin predicción: la respuesta es **{self.respuesta_en_texto()}**."
        elegida, correcta = self.opciones[k], self.opciones[_correcta(self.opciones, r)]
        if _es_numero(r) and _es_numero(elegida.valor):
            return self._distancia_numero(float(elegida.valor), float(r), "Elegiste")
        if elegida is correcta:
            return f"Elegiste «{elegida.texto}»: **acertaste**."
        return f"Elegiste «{elegida.texto}» y es **{correcta.texto}**: al revés de lo que dijiste."

    def _distancia_barras(self, s: list[float], r: list[float]) -> str:
        if len(s) != len(r):
            return f"Sin predicción: la respuesta es **{self.respuesta_en_texto()}**."
        difs = [abs(a - b) for a, b in zip(s, r, strict=True)]
        total = sum(difs) / 2  # la mitad de la suma: el peso que habría que mover de barra
        k = max(range(len(difs)), key=difs.__getitem__)
        if total <= TOLERANCIA:
            return f"Tus barras y las verdaderas se parecen: hay que mover solo {numero(total, '.2f')} de peso."
        return (
            f"Para llegar a las verdaderas habría que mover **{numero(total, '.2f')}** de peso entre las barras; "
            f"la que más se aleja es «{self.barras[k]}»: dijiste {self._leer(s[k])} y es {self._leer(r[k])}."
        )

    def explicacion(self) -> str:
        return _llenar(self.porque, self.cifras())


@dataclass(frozen=True)
class Aprender:
    """Lo que una pestaña enseña más allá de su figura; la ruta (qué mirar, la siguiente) va en el registro."""

    prediccion: Prediccion | None = None
    preguntas: tuple[Pregunta, ...] = field(default_factory=tuple)

    def __post_init__(self):
        if len(self.preguntas) > 4:
            raise ValueError("A lo sumo 4 preguntas por pestaña: cortas, para comprobarse.")
