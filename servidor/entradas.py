"""Montar un Blocks con la comprobación de archivos de Gradio activa, y revisar cada evento antes que Gradio.

Gradio solo comprueba que un `FileData` de entrada se haya subido de verdad si el Blocks «se
lanzó» (`_check_allowed` en `gradio/processing_utils.py` mira `blocks.has_launched`), y
`gr.mount_gradio_app` no lo marca. Sin eso, un `{"path": "/dev/zero", "meta": {"_type":
"gradio.FileData"}}` congela el proceso (Gradio calcula el hash del archivo en su bucle de
eventos) y cualquier archivo del servidor se copia a la caché que Gradio sirve. `montar_protegido` marca
lo que marca `launch()` y comprueba, con una ruta inventada, que Gradio de verdad la rechaza.

Aparte, y antes de que Gradio toque nada, `revisar` mira los valores crudos de cada evento:
cualquier ruta que no sea un archivo subido se rechaza en español (así, si una versión futura
de Gradio volviera a saltarse su comprobación, `/dev/zero` seguiría sin abrirse); los enteros
que no caben en un float (10⁴⁰⁰) llegan como ±∞, para que la pestaña dé su mensaje de rango;
y a una llamada con argumentos de menos se le dice cuáles faltan.
"""

from __future__ import annotations

import math
import os
import weakref
from typing import Any

import gradio as gr

from demos.comun.seguridad import exigir_subida, rechazo
from servidor import disco, laterales
from servidor.gradio_interno import acepta_ruta_ajena, marcar_lanzado, revisar_antes


def montar_protegido(app, blocks: gr.Blocks, path: str, cabeza_html: str = "", **opciones):
    """`gr.mount_gradio_app` + lo que `launch()` marca, las comprobaciones de `revisar` y las rutas
    laterales cerradas o acotadas (`servidor.laterales`); `cabeza_html` va al final del `<head>` del HTML."""
    gr.mount_gradio_app(app, blocks, path=path, **opciones)
    activar_comprobaciones(blocks)
    laterales.cerrar(app, blocks, cabeza_html)
    return app


_MONTADOS: weakref.WeakSet = weakref.WeakSet()


def montados() -> list[gr.Blocks]:
    """Los Blocks montados en este proceso (la suite y cada /demo/<id>/ ya pedido)."""
    return list(_MONTADOS)


def activar_comprobaciones(blocks: gr.Blocks) -> gr.Blocks:
    """Activa la comprobación de archivos de Gradio en `blocks` y pone `revisar` delante de cada evento."""
    _MONTADOS.add(blocks)
    marcar_lanzado(blocks)
    comprobar_candado(blocks)
    revisar_antes(blocks, revisar)
    return blocks


RUTA_AJENA = os.path.join(os.path.abspath(os.sep), "no-la-subio-nadie.png")


def comprobar_candado(blocks: gr.Blocks) -> None:
    """RuntimeError si Gradio aceptaría como subido un archivo que nadie subió (la app no debe arrancar así)."""
    if not acepta_ruta_ajena(blocks, RUTA_AJENA):
        return
    raise RuntimeError(
        "Gradio aceptaría como subido un archivo que nadie subió (¿cambió `_check_allowed` o el montaje?). "
        "La app no arranca así: revisa servidor/entradas.py."
    )


def _nombre(block_fn) -> str:
    return block_fn.api_name or block_fn.name or "evento"


def revisar(block_fn, inputs: list) -> None:
    """Revisa (y corrige en su sitio) los valores crudos de un evento; `gr.Error` en español si no sirven."""
    donde = _nombre(block_fn)
    if len(inputs) < len(block_fn.inputs):
        nombres = ", ".join(str(getattr(c, "label", None) or type(c).__name__) for c in block_fn.inputs)
        raise rechazo(
            f"Faltan valores: este evento recibe {len(block_fn.inputs)} ({nombres}) y llegaron {len(inputs)}. "
            "Envía uno por entrada (gradio_client completa los que faltan con su valor por omisión).",
            donde,
        )
    for i, valor in enumerate(inputs):
        inputs[i] = _revisar_valor(valor, donde)


def _revisar_valor(valor: Any, donde: str) -> Any:
    """Recorre el valor sin recursión (un JSON muy anidado no agota la pila): rutas y enteros enormes."""
    if isinstance(valor, int) and not isinstance(valor, bool):
        return _acotar(valor)
    pila = [valor]
    while pila:
        actual = pila.pop()
        if isinstance(actual, dict):
            if isinstance(actual.get("path"), str):
                try:
                    disco.usada(exigir_subida(actual["path"]))  # usada: no vence a los 5 minutos
                except ValueError as e:
                    raise rechazo(str(e), donde) from None
            claves = actual.keys()
        elif isinstance(actual, list):
            claves = range(len(actual))
        else:
            continue
        for k in claves:
            hijo = actual[k]
            if isinstance(hijo, int) and not isinstance(hijo, bool):
                actual[k] = _acotar(hijo)
            elif isinstance(hijo, dict | list):
                pila.append(hijo)
    return valor


def _acotar(n: int) -> int | float:
    """Un entero que no cabe en un float pasa a ±∞: la pestaña lo rechaza con su rango, en español."""
    try:
        float(n)
    except OverflowError:
        return math.inf if n > 0 else -math.inf
    return n
