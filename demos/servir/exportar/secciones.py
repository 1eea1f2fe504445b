"""Las secciones barridas de una pestaña (`barrido.Seccion`: las instantáneas del entrenamiento de Inversión de
dígitos) en el archivo exportado.

Una `Seccion` no está en la `Vista`: la pestaña la arma y la barre ella misma (`barrido.barrer`, que la anota en
`barrido.secciones_barridas()`). Entra la que tiene su control dentro de la pestaña, con los datos que su evento da
al navegador (`barrido.datos_de`) y su paquete (las paradas que la pestaña calculó al armarse), si es de las entradas
que se ven (con otros dígitos, las paradas de la página ya no son las suyas y la sección queda fuera).
"""

from __future__ import annotations

import gradio as gr
import orjson

from demos.comun import barrido
from demos.comun.gradio_interno import id_de


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
    dentro = _adentro(nodo)
    propios = {id(b.control) for b in vista.barridos}
    halladas = []
    for seccion in barrido.secciones_barridas():
        for b, componente in zip(seccion.barridos, seccion.paquetes, strict=True):
            if id(b.control) not in dentro or id(b.control) in propios:
                continue
            paquete = componente.value
            if not isinstance(paquete, dict) or paquete.get("servidor") or "salidas" not in paquete:
                continue
            datos = barrido.datos_de(seccion, b, "control", str(id_de(componente)))
            actuales = [_actual(c, vista, valores) for c in seccion.entradas]
            otros = [v for k, v in enumerate(actuales) if k != datos["entrada"]]
            if orjson.dumps(otros, option=orjson.OPT_SERIALIZE_NUMPY) != orjson.dumps(paquete.get("otros")):
                continue  # las paradas de la página son de otras entradas
            halladas.append(
                {
                    "control": b.control,
                    "entradas": list(seccion.entradas),
                    "salidas": list(seccion.salidas),
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
