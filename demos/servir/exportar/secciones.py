"""Las secciones barridas de una pestaña (`barrido.Seccion`: las instantáneas del entrenamiento de Inversión de
dígitos) en el archivo exportado.

Una `Seccion` no está en la `Vista`: la pestaña la arma y la barre ella misma (`barrido.barrer`). Se encuentra en la
página por lo que `barrer` deja: el evento `input` de su control, sin función de Python, cuyo `js=` llama a
`window.__suite.barrido` con sus datos, y cuyas entradas son el control, el paquete (su valor: las paradas que la
pestaña calculó al armarse), el pedido y las entradas de la sección. Entra si el paquete es de las entradas que se
ven (con otros dígitos, las paradas de la página ya no son las suyas y la sección queda fuera).
"""

from __future__ import annotations

import json
import re

import gradio as gr
import orjson

_DATOS = re.compile(r"window\.__suite\.barrido\((\{.*?\}), \.\.\.a\)")


def _raiz(nodo):
    while getattr(nodo, "parent", None) is not None:
        nodo = nodo.parent
    return nodo


def _adentro(nodo) -> set[int]:
    vistos, pendientes = set(), [nodo]
    while pendientes:
        x = pendientes.pop()
        vistos.add(id(x))
        pendientes.extend(getattr(x, "children", None) or [])
    return vistos


def encontrar(nodo, vista, valores: list) -> list[dict]:
    """Las secciones barridas bajo `nodo` (la pestaña) que no son de la vista: {control, entradas, salidas, paquete,
    datos, valores} con el paquete que vale para las entradas que se ven."""
    raiz = _raiz(nodo)
    bloques, fns = getattr(raiz, "blocks", None), getattr(raiz, "fns", None)
    if not bloques or not fns:
        return []
    dentro = _adentro(nodo)
    propios = {id(b.control) for b in vista.barridos}
    halladas = []
    for fn in fns.values():
        m = _DATOS.search(getattr(fn, "js", None) or "")
        if getattr(fn, "fn", None) is not None or not m:
            continue
        datos = json.loads(m.group(1))
        destinos = [bloques.get(t[0]) for t in fn.targets if t[1] == "input"]
        control = destinos[0] if destinos else None
        if datos.get("modo") != "control" or control is None or id(control) not in dentro or id(control) in propios:
            continue
        paquete, entradas = fn.inputs[1].value, list(fn.inputs[3:])
        if not isinstance(paquete, dict) or paquete.get("servidor") or "salidas" not in paquete:
            continue
        actuales = [_actual(c, vista, valores) for c in entradas]
        i = datos["entrada"]
        otros = [v for k, v in enumerate(actuales) if k != i]
        if orjson.dumps(otros, option=orjson.OPT_SERIALIZE_NUMPY) != orjson.dumps(paquete.get("otros")):
            continue  # las paradas de la página son de otras entradas
        salidas = list(fn.outputs[: datos["salidas"]])
        halladas.append(
            {
                "control": control,
                "entradas": entradas,
                "salidas": salidas,
                "paquete": paquete,
                "datos": datos,
                "valores": actuales,
            }
        )
    return halladas


def _actual(c, vista, valores: list):
    for k, x in enumerate(vista.entradas):
        if x is c:
            return valores[k]
    return c.value


def valor_inicial(componente) -> tuple[str | None, object]:
    """(el JSON de la figura, o None; el valor de lo demás) que la sección muestra al abrir."""
    v = componente.value
    if isinstance(v, dict) and "plot" in v:
        plot = v["plot"]
        return (plot if isinstance(plot, str) else orjson.dumps(plot).decode()), None
    return None, v


def es_visible(c) -> bool:
    return getattr(c, "visible", True) is True and not isinstance(c, gr.State)
