"""La orden `python app.py --exportar ID --salida ARCHIVO.html [--param nombre=valor …]` (demos/servir/exportar).

Aparte del archivo: esta parte lee los ajustes como la URL de la app (`conectar.valor_desde_url`), y la descarga de la
app (`demos/servir/descarga.py`), que `conectar` cablea, no la necesita.
"""

from __future__ import annotations

import gradio as gr

from demos import POR_ID, Pestana, buscar
from demos.comun.vista import Vista
from demos.servir.conectar import valor_desde_url
from demos.servir.exportar import CONTROLES, PREDECIR, PRESENTACION, Pedido, exportar


def construir(id_: str) -> tuple[Pestana, Vista]:
    """La pestaña `id_` armada en unos Blocks propios (sin servidor). ValueError en español si no existe."""
    p = buscar(id_)
    with gr.Blocks():
        vista = p.cargar().construir()
    return p, vista


def valores_de(vista: Vista, parametros: dict[str, str]) -> tuple[list, dict]:
    """Los valores de las entradas con los ajustes pedidos, y los de la página: {"presentacion": bool, "controles":
    los nombres de `?controles=` (o None)}. `predecir` se acepta y no cambia nada (el archivo no vela la figura). A
    diferencia de la URL de la app (que ignora lo que no sirve con un aviso), aquí un nombre o un valor que no sirve
    es un error que dice lo que hay."""
    valores = [c.value for c in vista.entradas]
    pagina: dict = {"presentacion": False, "controles": None}
    for nombre, texto in parametros.items():
        if nombre in (PRESENTACION, PREDECIR):
            if texto not in {"0", "1"}:
                raise ValueError(f"«{nombre}={texto[:40]}» no sirve: debe ser 1 o 0.")
            pagina["presentacion"] |= nombre == PRESENTACION and texto == "1"
            continue
        if nombre == CONTROLES:
            pedidos = [n.strip() for n in texto.split(",") if n.strip()]
            if otros := [n for n in pedidos if n not in vista.url]:
                raise ValueError(
                    f"En «{CONTROLES}=», «{otros[0][:40]}» no es un control de esta pestaña. Hay: "
                    f"{', '.join(vista.url)}."
                )
            pagina["controles"] = frozenset(pedidos)
            continue
        if nombre not in vista.url:
            hay = ", ".join([*vista.url, PRESENTACION, CONTROLES, PREDECIR])
            raise ValueError(f"Esta pestaña no tiene el ajuste «{nombre[:40]}». Tiene: {hay}.")
        i = next(k for k, c in enumerate(vista.entradas) if c is vista.url[nombre])
        try:
            valores[i] = valor_desde_url(vista.url[nombre], texto)
        except ValueError as e:
            raise ValueError(f"«{nombre}={texto[:40]}» no sirve: {e}.") from None
    return valores, pagina


def leer_parametros(pares: list[str]) -> dict[str, str]:
    """["T=0.5", "n=10"] -> {"T": "0.5", "n": "10"}; un par sin «=» es un error en español."""
    parametros = {}
    for par in pares:
        nombre, igual, valor = par.partition("=")
        if not igual or not nombre.strip():
            raise ValueError(f"«{par[:40]}» no es un ajuste: se escribe nombre=valor (por ejemplo, T=0.5).")
        parametros[nombre.strip()] = valor
    return parametros


def exportar_id(id_: str, parametros: dict[str, str], base: str | None = None) -> str:
    """El HTML de la pestaña `id_` con esos ajustes (los nombres de su URL). ValueError en español si algo no
    sirve: la pestaña, un nombre, un valor, o la vista que la función rechaza."""
    if id_ not in POR_ID:
        raise ValueError(f"No hay una pestaña «{id_[:40]}». Las hay: {', '.join(POR_ID)}.")
    p, vista = construir(id_)
    valores, pagina = valores_de(vista, parametros)
    return exportar(Pedido(p, vista, valores, pagina["presentacion"], pagina["controles"]), base=base)
