"""Aprender haciendo: predecir antes de ver, comprobarse, y la distancia entre lo dicho y lo cierto.

Una pestaña declara junto a su `Vista` un `Aprender`: una `Prediccion` (lo que el estudiante apuesta
antes de ver la figura) y unas `Pregunta` de autoevaluación, cada opción con su propia explicación.

Las respuestas verdaderas no se escriben ni se calculan aparte: cada `verdad` es un `EnLaPestana`, que
llama a la función de cálculo de la pestaña (la de su `Vista`) con los valores con que abre, más el
cambio que la pregunta nombra («apaga la rama espacial»: {"espacial": False}), y lee la respuesta de lo
que la pestaña muestra entonces. Así la respuesta revelada es la que ve el estudiante que hace ese
cambio con los demás controles como estaban; `demos.servir.aprender.faltas` comprueba que la función es
la de la vista y que el cambio se puede hacer con sus controles, y las pruebas, que los valores de
apertura de la función son los de los controles (tests/test_aprender.py).

Una opción sabe qué es (`tipo`): una **cantidad** recibe una distancia («te quedaste corto por…»); una
**categoría** o una **posición**, «la respuesta es…»; «al revés» solo se dice entre dos opciones que se
declaran opuestas. Toda opción explica lo suyo (`porque`), y eso se valida al declararla, esté donde esté.
Los widgets los arma `demos.servir.aprender` para todas las pestañas; este módulo no importa gradio, y
nada de lo que el estudiante contesta pasa por el log.
"""

from __future__ import annotations

import inspect
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from modelos.formato import numero

TOLERANCIA = 0.05  # una opción numérica es la correcta si dista menos del 5 % de la respuesta calculada
MAX_OPCIONES = 6
CANTIDAD, CATEGORIA, POSICION = "cantidad", "categoria", "posicion"
TIPOS = (CANTIDAD, CATEGORIA, POSICION)

_cifras_cache: dict[int, dict[str, Any]] = {}
_cerrojo = threading.Lock()


@dataclass(frozen=True, eq=False)
class EnLaPestana:
    """La verdad de una predicción o una pregunta: lo que muestra la pestaña tras el cambio que se nombra.

    `fn` es la función de cálculo de la vista de la pestaña; se llama con sus valores de apertura (los de
    sus controles) y `cambio` encima. `leer` saca la respuesta de lo que devuelve: `leer(despues)`, o
    `leer(antes, despues)` si compara la apertura con el cambio («¿sube o baja?»). Devuelve la respuesta o
    un diccionario {"respuesta": …, otras cifras que citan los textos}.
    """

    fn: Callable[..., Any]
    leer: Callable[..., Any]
    cambio: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        parametros = inspect.signature(self.fn).parameters
        ajenos = [k for k in self.cambio if k not in parametros]
        if ajenos:
            raise ValueError(f"El cambio nombra {ajenos}, que no son entradas de {self.fn.__name__}.")
        if self.compara is None:
            raise ValueError("`leer` recibe lo que muestra la pestaña tras el cambio, o (antes, después).")

    @property
    def compara(self) -> bool | None:
        n = len(inspect.signature(self.leer).parameters)
        return {1: False, 2: True}.get(n)

    def __call__(self, apertura: Mapping[str, Any] | None = None) -> Any:
        """La respuesta con la pestaña abierta en `apertura` (por omisión, los valores por omisión de `fn`)."""
        abierta = dict(apertura or {})
        despues = self.fn(**{**abierta, **self.cambio})
        if self.compara:
            return self.leer(self.fn(**abierta), despues)
        return self.leer(despues)


def _cifras(verdad: EnLaPestana) -> dict[str, Any]:
    """Las cifras verdaderas, calculadas una vez por proceso (son las mismas para todos)."""
    clave = id(verdad)
    with _cerrojo:
        guardadas = _cifras_cache.get(clave)
    if guardadas is None:
        guardadas = como_cifras(verdad())
        with _cerrojo:
            _cifras_cache[clave] = guardadas
    return guardadas


def como_cifras(v: Any) -> dict[str, Any]:
    cifras = dict(v) if isinstance(v, dict) else {"respuesta": v}
    if "respuesta" not in cifras:
        raise ValueError("`leer` debe dar la respuesta o un diccionario con la clave «respuesta».")
    return cifras


def _es_numero(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _llenar(texto: str, cifras: dict[str, Any]) -> str:
    return texto.format(**cifras) if "{" in texto else texto


@dataclass(frozen=True)
class Alternativa:
    """Una respuesta posible: su `valor` se compara con el calculado; `porque`, su explicación propia."""

    valor: Any  # una cantidad (la más cercana a la verdad, si está a menos de TOLERANCIA) o una categoría (igual)
    texto: str  # lo que lee el estudiante
    porque: str  # por qué es la correcta o por qué no: puede citar las cifras de la verdad, «{respuesta}»
    opuesta: Any = None  # el valor de la opción que dice lo contrario («sube» / «baja»): solo entre ellas, «al revés»


def _validar_opciones(opciones: Sequence[Alternativa], tipo: str, donde: str) -> None:
    """Lo que una lista de opciones debe cumplir, dondequiera que se declare."""
    if tipo not in TIPOS:
        raise ValueError(f"{donde}: el tipo de las opciones es uno de {TIPOS}; llegó {tipo!r}.")
    if not 2 <= len(opciones) <= MAX_OPCIONES:
        raise ValueError(f"{donde}: lleva de 2 a {MAX_OPCIONES} opciones.")
    sin = [o.texto for o in opciones if not o.porque.strip()]
    if sin:
        raise ValueError(f"{donde}: cada opción explica lo suyo; no lo hacen {sin}.")
    if len({o.porque for o in opciones}) < len(opciones):
        raise ValueError(f"{donde}: dos opciones con la misma explicación.")
    valores = [o.valor for o in opciones]
    if len({repr(v) for v in valores}) < len(valores) or len({o.texto for o in opciones}) < len(opciones):
        raise ValueError(f"{donde}: dos opciones con el mismo valor o el mismo texto.")
    if tipo == CANTIDAD and not all(_es_numero(v) for v in valores):
        raise ValueError(f"{donde}: las opciones de una cantidad son números.")
    for o in opciones:
        if o.opuesta is None:
            continue
        otra = next((x for x in opciones if x.valor == o.opuesta), None)
        if otra is None or otra.opuesta != o.valor or otra is o:
            raise ValueError(f"{donde}: «{o.texto}» y su opuesta deben nombrarse una a la otra.")


def _correcta(opciones: Sequence[Alternativa], respuesta: Any, tipo: str) -> int:
    """El índice de la opción que la respuesta calculada hace correcta; ValueError si no hay una sola."""
    if tipo == CANTIDAD:
        if not _es_numero(respuesta):
            raise ValueError(f"La respuesta {respuesta!r} no es una cantidad.")
        k = min(range(len(opciones)), key=lambda k: abs(opciones[k].valor - respuesta))
        if abs(opciones[k].valor - respuesta) > TOLERANCIA * max(abs(respuesta), 1e-12):
            raise ValueError(f"Ninguna opción está cerca de la respuesta calculada ({respuesta!r}).")
        return k
    iguales = [k for k, o in enumerate(opciones) if o.valor == respuesta]
    if len(iguales) != 1:
        raise ValueError(f"La respuesta calculada {respuesta!r} debe coincidir con una sola opción.")
    return iguales[0]


def _leer(x: float, unidad: str, decimales: int) -> str:
    if unidad == "%":
        return f"{numero(100 * x, f'.{max(decimales - 2, 0)}f')} %"
    return numero(x, f",.{decimales}f") + (f" {unidad}" if unidad else "")


def _brecha(s: float, r: float, unidad: str, decimales: int, equivocada: bool = False) -> tuple[bool, str]:
    """(cerca, la frase de la distancia de s a r: «te quedaste corto por 7», «acertaste (a 0.01)»).

    `equivocada`: s es una opción que no es la correcta; aunque quede cerca, no se le dice «acertaste»."""
    brecha = abs(s - r)
    en_texto = f"{numero(100 * brecha, '.1f')} puntos" if unidad == "%" else numero(brecha, f",.{decimales}f")
    if brecha <= TOLERANCIA * max(abs(r), 1e-12) and not equivocada:
        return True, f"acertaste (a {en_texto})"
    veces = ""
    if s > 0 and r > 0 and r / s > 3:
        veces = f", {numero(r / s, '.3g')} veces lo que dijiste"
    elif s > 0 and r > 0 and s / r > 3:
        veces = f", {numero(s / r, '.2g')} veces la verdad"
    lado = "te quedaste corto" if s < r else "te pasaste"
    return False, f"{lado} por {en_texto}{veces}"


def _nombrar(texto: str) -> str:
    """Una opción entre comillas latinas, salvo que ya las lleve dentro («la posición de «no»» se lee mal)."""
    return texto if "«" in texto else f"«{texto}»"


def _frase_opcion(elegida: Alternativa, correcta: Alternativa, r: Any, tipo: str, unidad: str, decimales: int) -> str:
    """Lo que se dice de una opción elegida, según lo que es la opción (`r`: la respuesta calculada)."""
    dicha = _nombrar(elegida.texto)
    if elegida is correcta:
        return f"Elegiste {dicha}: **acertaste**."
    if tipo == CANTIDAD:
        _, distancia = _brecha(float(elegida.valor), float(r), unidad, decimales, equivocada=True)
        return f"Elegiste {dicha} y es **{_leer(float(r), unidad, decimales)}**: {distancia}."
    if elegida.opuesta is not None and elegida.opuesta == correcta.valor:
        return f"Elegiste {dicha} y es **{correcta.texto}**: al revés de lo que dijiste."
    return f"Elegiste {dicha}; la respuesta es **{correcta.texto}**."


def _exigir_verdad(verdad: Any, donde: str) -> None:
    if not isinstance(verdad, EnLaPestana):
        raise TypeError(
            f"{donde}: la verdad es un EnLaPestana (la función de la pestaña, el cambio y qué leer), "
            f"no {type(verdad).__name__}: así la respuesta es la que muestra la pestaña."
        )


@dataclass(frozen=True)
class Pregunta:
    """Una pregunta de autoevaluación: la opción correcta es la que coincide con lo que `verdad` calcula."""

    enunciado: str
    opciones: tuple[Alternativa, ...]
    verdad: EnLaPestana
    tipo: str = CATEGORIA  # qué son las opciones: CANTIDAD, CATEGORIA o POSICION
    unidad: str = ""
    decimales: int = 0

    def __post_init__(self):
        donde = f"La pregunta «{self.enunciado[:50]}»"
        _exigir_verdad(self.verdad, donde)
        _validar_opciones(self.opciones, self.tipo, donde)

    def cifras(self) -> dict[str, Any]:
        return _cifras(self.verdad)

    def correcta(self) -> int:
        return _correcta(self.opciones, self.cifras()["respuesta"], self.tipo)

    def responder(self, indice: Any) -> tuple[bool | None, str]:
        """(acierto, explicación) de la opción elegida; (None, "") si no eligió ninguna válida."""
        if not isinstance(indice, int) or isinstance(indice, bool) or not 0 <= indice < len(self.opciones):
            return None, ""
        cifras = self.cifras()
        k = self.correcta()
        opcion, correcta = self.opciones[indice], self.opciones[k]
        porque = _llenar(opcion.porque, cifras)
        if indice == k:
            return True, f"✓ **Correcto.** {porque}"
        if self.tipo == CANTIDAD:
            r = float(cifras["respuesta"])
            _, distancia = _brecha(float(opcion.valor), r, self.unidad, self.decimales, equivocada=True)
            return False, f"✗ **Es {_leer(r, self.unidad, self.decimales)}**: {distancia}. {porque}"
        if opcion.opuesta is not None and opcion.opuesta == correcta.valor:
            return False, f"✗ **Al revés: {correcta.texto}.** {porque}"
        return False, f"✗ **La respuesta es {_nombrar(correcta.texto)}.** {porque}"


@dataclass(frozen=True)
class Prediccion:
    """Lo que el estudiante apuesta antes de ver: elige una opción, escribe un número o da varias barras."""

    pregunta: str
    verdad: EnLaPestana  # la respuesta: un número, una lista de números (barras) o el valor de una opción
    opciones: tuple[Alternativa, ...] = ()  # si las hay, se elige una; si no, se escribe un número
    barras: tuple[str, ...] = ()  # un número por categoría (p. ej. los cuatro pesos de un softmax)
    porque: str = ""  # lo que se lee después de revelar, con las cifras de la verdad
    unidad: str = ""  # "%": la respuesta es una fracción y se lee en por ciento
    decimales: int = 2
    minimo: float = 0.0  # del número o de cada barra que escribe el estudiante
    maximo: float = 1.0
    tipo: str = CATEGORIA  # qué son las opciones, si las hay: CANTIDAD, CATEGORIA o POSICION
    suman_uno: bool = False  # las barras son un reparto: lo que dice el estudiante se normaliza a suma 1

    def __post_init__(self):
        donde = f"La predicción «{self.pregunta[:50]}»"
        _exigir_verdad(self.verdad, donde)
        if self.opciones:
            _validar_opciones(self.opciones, self.tipo, donde)
        if not self.porque.strip():
            raise ValueError(f"{donde}: le falta el porqué que se lee al revelar.")

    def cifras(self) -> dict[str, Any]:
        return _cifras(self.verdad)

    @property
    def cantidad(self) -> bool:
        """Lo que se predice es un número (se escribe, o se elige entre cantidades): se dibuja junto a la verdad."""
        return not self.barras and (not self.opciones or self.tipo == CANTIDAD)

    def _leer(self, x: float) -> str:
        return _leer(x, self.unidad, self.decimales)

    def correcta(self) -> int:
        return _correcta(self.opciones, self.cifras()["respuesta"], self.tipo)

    def respuesta_en_texto(self) -> str:
        r = self.cifras()["respuesta"]
        if self.opciones:
            return self.opciones[self.correcta()].texto
        if self.barras:
            return ", ".join(self._leer(float(v)) for v in r)
        return self._leer(float(r))

    def normalizar(self, barras: Sequence[float]) -> list[float]:
        """Las barras del estudiante como reparto (si `suman_uno`): cada una dividida por su suma."""
        s = [float(v) for v in barras]
        total = sum(s)
        return [v / total for v in s] if self.suman_uno and total > 0 else s

    def distancia(self, suposicion: Any) -> str:
        """La frase que compara la suposición con la verdad (sin suposición: solo la verdad)."""
        r = self.cifras()["respuesta"]
        if suposicion is None or suposicion == [] or (isinstance(suposicion, float) and math.isnan(suposicion)):
            return f"Sin predicción: la respuesta es **{self.respuesta_en_texto()}**."
        if self.opciones:
            return self._distancia_opcion(int(suposicion))
        if self.barras:
            return self._distancia_barras(list(suposicion), [float(v) for v in r])
        cerca, frase = _brecha(float(suposicion), float(r), self.unidad, self.decimales)
        return f"Dijiste {self._leer(float(suposicion))} y es **{self._leer(float(r))}**: {frase}."

    def _distancia_opcion(self, k: int) -> str:
        if not 0 <= k < len(self.opciones):
            return f"Sin predicción: la respuesta es **{self.respuesta_en_texto()}**."
        elegida, correcta = self.opciones[k], self.opciones[self.correcta()]
        r = self.cifras()["respuesta"]
        frase = _frase_opcion(elegida, correcta, r, self.tipo, self.unidad, self.decimales)
        return f"{frase} {_llenar(elegida.porque, self.cifras())}"

    def _distancia_barras(self, dichas: list, r: list[float]) -> str:
        if len(dichas) != len(r):
            return f"Sin predicción: la respuesta es **{self.respuesta_en_texto()}**."
        s = self.normalizar(dichas)
        difs = [abs(a - b) for a, b in zip(s, r, strict=True)]
        total = sum(difs) / 2  # la mitad de la suma: el peso que habría que mover de barra (si suman 1)
        k = max(range(len(difs)), key=difs.__getitem__)
        repartidas = (
            " (tus barras, llevadas a sumar 1)" if self.suman_uno and abs(sum(map(float, dichas)) - 1) > 1e-6 else ""
        )
        if total <= TOLERANCIA:
            return f"Tus barras{repartidas} y las verdaderas se parecen: hay que mover solo {numero(total, '.2f')}."
        return (
            f"Para llegar a las verdaderas desde las tuyas{repartidas} habría que mover **{numero(total, '.2f')}** "
            f"de peso entre las barras; la que más se aleja es «{self.barras[k]}»: dijiste {self._leer(s[k])} "
            f"y es {self._leer(r[k])}."
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

    def verdades(self) -> list[tuple[str, EnLaPestana]]:
        """(dónde, verdad) de la predicción y de cada pregunta."""
        lista = [("la predicción", self.prediccion.verdad)] if self.prediccion is not None else []
        return lista + [(f"la pregunta {k}", q.verdad) for k, q in enumerate(self.preguntas, 1)]
