"""Un reparto justo que no confía en el `session_hash`: dirección del visitante y costo de cada llamada.

El `session_hash` lo inventa el cliente: un tope por sesión no frena a quien inventa una por
petición. Lo que sí sabe el servidor:

- **La dirección.** En un Space cada visitante llega por el proxy, que añade su IP al final de
  `X-Forwarded-For`; `ATENCION_PROXIES` dice cuántos proxies de confianza hay delante (1 en un
  Space, donde está `SPACE_ID`; 0 en local, donde manda la dirección de la conexión). Lo que
  el cliente escribió antes en esa cabecera no cuenta. Una clase entera puede salir a internet
  por una sola IP (un NAT): el tope por dirección (`MAX_POR_DIRECCION`) es holgado, para ella.
- **El costo.** Cada entrada dice cuánto de su rango usa (`costo`: un deslizador en su máximo,
  1; un texto de `TEXTO_LARGO` caracteres, 1; una semilla, 0). Una llamada de costo ≥ `LENTO_DESDE` es *lenta*:
  no espera en la fila de su evento (delante de las ligeras de todos) sino en su carril
  («lento:<evento>», de a una a la vez), y hay un presupuesto de lentas pendientes por tipo de
  evento (`LENTOS_POR_TIPO`) y en todo el proceso (`LENTOS_TOTAL`). La que sobra recibe 429 en
  español al instante; la ligera de un visitante honesto nunca espera detrás de ellas.
- **La página.** Las lentas de una sesión que no abrió la página (`servidor.paginas`: sin token)
  comparten un solo carril (`CARRIL_SIN_PAGINA`) y `LENTOS_SIN_PAGINA` pendientes en total: 24
  sesiones inventadas tienen entre todas lo que tendría un solo evento, y no gastan el
  presupuesto de los visitantes de la página.
"""

from __future__ import annotations

import math
import os

MAX_POR_DIRECCION = 64
LENTO_DESDE = 0.5
LENTOS_POR_TIPO = 8
LENTOS_TOTAL = 16
LENTOS_SIN_PAGINA = 4  # las lentas de sesiones que no abrieron la página (servidor/paginas.py), en total
RANGO_SIN_COSTO = 10**6  # un número con un rango así es una semilla o un índice, no un tamaño
TEXTO_LARGO = 400
ELEMENTOS_MUCHOS = 400
PREFIJO_CARRIL = "lento:"
CARRIL_SIN_PAGINA = f"{PREFIJO_CARRIL}sin-pagina"  # uno para todas ellas, de a una por montaje


def proxies() -> int:
    """Cuántos proxies de confianza hay delante (`ATENCION_PROXIES`; en un Space, 1)."""
    valor = os.environ.get("ATENCION_PROXIES", "1" if os.environ.get("SPACE_ID") else "0")
    return int(valor) if valor.isdigit() else 0


def direccion(request) -> str:
    """La IP del visitante: la que añadió el último proxy de confianza, o la de la conexión."""
    saltos = proxies()
    if saltos and request is not None:
        cadena = [p.strip() for h in request.headers.getlist("x-forwarded-for") for p in h.split(",") if p.strip()]
        if len(cadena) >= saltos:
            return cadena[-saltos][:64]
    cliente = getattr(request, "client", None)
    return cliente.host if cliente else "?"


def costo(fn, datos) -> float:
    """De 0 a 1: la fracción más alta de su rango que usa una entrada de la llamada."""
    if not isinstance(datos, list):
        return 0.0
    return max((_fraccion(c, v) for c, v in zip(fn.inputs, datos, strict=False)), default=0.0)


def _fraccion(componente, valor) -> float:
    if isinstance(valor, bool) or valor is None:
        return 0.0
    if isinstance(valor, int | float):
        bajo, alto = getattr(componente, "minimum", None), getattr(componente, "maximum", None)
        try:
            if isinstance(bajo, int | float) and isinstance(alto, int | float) and 0 < alto - bajo < RANGO_SIN_COSTO:
                x = (float(valor) - bajo) / (alto - bajo)
                return 1.0 if math.isnan(x) else min(1.0, max(0.0, x))
            return 0.0
        except OverflowError:  # un entero de 10⁴⁰⁰: la pestaña lo rechazará, pero no es barato
            return 1.0
    if isinstance(valor, str):
        return min(1.0, len(valor) / TEXTO_LARGO)
    if isinstance(valor, list):
        return min(1.0, _elementos(valor) / ELEMENTOS_MUCHOS)
    return 0.0


def _elementos(valor: list) -> int:
    """Elementos de una lista anidada (sin recursión; se deja de contar al pasar `ELEMENTOS_MUCHOS`)."""
    n, pila = 0, [valor]
    while pila and n <= ELEMENTOS_MUCHOS:
        actual = pila.pop()
        if isinstance(actual, list):
            pila.extend(actual)
        else:
            n += 1
    return n


def carril(fn) -> str:
    """El carril de las llamadas lentas de un evento."""
    return f"{PREFIJO_CARRIL}{fn.concurrency_id}"
