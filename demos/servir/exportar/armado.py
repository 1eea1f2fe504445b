"""El HTML del archivo exportado: cabecera, explicación, controles, salidas, enlace y los tres guiones en línea.

Todo lo que viene de la pestaña o del visitante entra escapado (`escapar`, o ya HTML escapado de `textos`); los
datos van en un `<script type="application/json">` con `<` escrito como \\u003c. Los guiones (el de la suite,
Plotly.js y `pagina.js`) llevan el `nonce` de la política de contenido: nada más corre, y nada sale a la red.
"""

from __future__ import annotations

import html
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import gradio as gr
import orjson

from demos import Pestana
from demos.comun import navegador
from demos.comun.figuras.componente import PLOTLY
from demos.comun.seguridad import sin_bidi
from demos.comun.vista import Vista
from demos.servir.exportar import textos

TITULO_SUITE = "Atención y transformers"
CARPETA = Path(__file__).parent


@cache
def plotly_js() -> str:
    return PLOTLY.read_text(encoding="utf-8")


# Lo que la app dice de sus figuras (la barra de Plotly en un teléfono), el mismo archivo que carga la página.
CSS_DE_LAS_FIGURAS = Path(__file__).parents[1] / "pagina" / "figuras.css"


@cache
def recurso(nombre: str) -> str:
    return (CARPETA / nombre).read_text(encoding="utf-8")


def guion_de_la_suite() -> str:
    return navegador.guion()


def a_json_en_html(datos: Any) -> str:
    """JSON para un `<script type="application/json">`: `<`, `>` y `&` como \\u00XX (solo van dentro de textos),
    así ningún texto cierra el elemento."""
    crudo = json_compacto(datos)
    return crudo.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def json_compacto(datos: Any) -> str:
    """JSON compacto; los números de numpy (una casilla de tabla) como números de Python."""
    return orjson.dumps(datos, option=orjson.OPT_SERIALIZE_NUMPY, default=_numpy).decode()


def _numpy(x: Any) -> Any:
    if hasattr(x, "item"):
        return x.item()
    raise TypeError(type(x).__name__)


def escapar(x: Any) -> str:
    return html.escape(sin_bidi("" if x is None else x), quote=True)


def _teclas_del_mazo() -> str:
    """El guion de la app que, en un iframe con ?presentacion=1, devuelve las flechas y Escape al mazo
    (demos/servir/pagina/incrustada.js, el mismo: README, «En un mazo reveal.js»)."""
    return (Path(__file__).parent.parent / "pagina" / "incrustada.js").read_text(encoding="utf-8")


def _politica(nonce: str) -> str:
    return (
        "default-src 'none'; "
        f"script-src 'nonce-{nonce}'; "
        "style-src 'unsafe-inline'; img-src data: blob:; font-src data:; "
        "connect-src 'none'; base-uri 'none'; form-action 'none'"
    )


def _explicacion(texto: str | None) -> str:
    """La explicación: su primer párrafo a la vista, el resto tras «leer más» (como se pliega en la app)."""
    if not texto:
        return ""
    hecho = textos.markdown(texto)
    primero, corte, resto = hecho.partition("</p>\n")
    if not resto.strip():
        return f'<div class="explicacion">{hecho}</div>'
    return f'<div class="explicacion">{primero}{corte}<details><summary>leer más</summary>{resto}</details></div>'


def _barrido(n: int, b: dict, visibles: list | None = None) -> str:
    c, paq = b["control"], b["paquete"]
    k = b["k"] if b["k"] is not None else b["cerca"]  # un valor que no es una parada: el control, en la más cercana
    i = b["datos"]["entrada"]
    propia = b["entrada_etiqueta"] is None and not b["seccion"]  # el control es la entrada de la vista
    info = f'<p class="info" data-info="{n}">{escapar(c.get("info"))}</p>'
    if c["tipo"] == "rango":
        valor = paq["paradas"][k] if k is not None else c["min"]
        ent = f' data-entrada="{i}"' if propia else ""
        campo = (
            f'<div class="rango"><input type="range" id="{escapar(c["id"])}" data-barrido="{n}"{ent} '
            f'min="{c["min"]}" max="{c["max"]}" step="{c["paso"]}" value="{valor}" '
            f'aria-label="{escapar(c["etiqueta"])}"><output data-valor-de="{n}">{escapar(valor)}</output></div>'
        )
        cabeza = f'<label for="{escapar(c["id"])}">{escapar(c["etiqueta"])}</label>'
    else:
        ent = f' data-entrada="{i}"' if propia else ""
        opciones = "".join(
            f'<label class="opcion"><input type="radio" name="{escapar(c["id"])}" value="{j}" data-barrido="{n}"'
            f"{' checked' if j == k else ''}> {escapar(etiqueta)}</label>"
            for j, (etiqueta, _) in enumerate(c["opciones"])
        )
        campo = f'<div class="opciones" id="{escapar(c["id"])}" role="radiogroup"{ent}>{opciones}</div>'
        cabeza = f'<span class="etiqueta">{escapar(c["etiqueta"])}</span>'
    entrada = ""
    if b["entrada_etiqueta"] is not None:  # el control escribe otra entrada (log T -> T): su valor, debajo
        valor = b["valor_entrada"]  # el de la vista, aunque no sea una parada
        entrada = (
            f'<p class="entrada">{escapar(b["entrada_etiqueta"])}: '
            f'<output data-entrada="{i}">{escapar(valor)}</output></p>'
        )
    atajos = "".join(
        f'<button type="button" data-atajo="{n}" data-valor="{escapar(v)}">{escapar(t)}</button>'
        for t, v in b["atajos"]
    )
    atajos = f'<div class="atajos">{atajos}</div>' if atajos else ""
    oculto = _oculto(b.get("nombres"), visibles)
    return f'<div class="control barrido"{oculto}>{cabeza}{campo}{entrada}{atajos}{info}</div>'


def _oculto(nombres: list | None, visibles: list | None) -> str:
    """` hidden` para un control que `?controles=` no nombra (como en la app: oculto, con su valor)."""
    return " hidden" if visibles is not None and not set(nombres or ()) & set(visibles) else ""


def _deshabilitado(i: int, c, valor, motivo: str | None = None, nombre: str | None = None, visibles=None) -> str:
    """Un control que necesita el servidor: su etiqueta y su valor, sin poder cambiarlo."""
    etiqueta = escapar(getattr(c, "label", None) or "")
    atr = f'data-entrada="{i}" disabled'
    if isinstance(c, gr.Checkbox):
        campo = f'<input type="checkbox" {atr}{" checked" if valor else ""}>'
    elif isinstance(c, gr.Radio | gr.Dropdown):
        nombres = {
            o[1] if isinstance(o, tuple | list) else o: o[0] if isinstance(o, tuple | list) else o for o in c.choices
        }
        campo = f"<select {atr}><option selected>{escapar(nombres.get(valor, valor))}</option></select>"
    elif isinstance(c, gr.Slider | gr.Number):
        campo = f'<input type="number" {atr} value="{escapar(valor)}">'
    elif isinstance(c, gr.Textbox) and isinstance(valor, str):
        campo = f'<textarea {atr} rows="{min(4, 1 + len(valor) // 60)}">{escapar(valor)}</textarea>'
    else:
        campo = '<span class="sin-valor">(en la app: una imagen, una tabla o un dibujo)</span>'
    nota = f'<p class="info">{escapar(motivo)}</p>' if motivo else ""
    return f'<div class="control en-servidor"{_oculto([nombre], visibles)}><label>{etiqueta}</label>{campo}{nota}</div>'


def _controles(vista: Vista, valores: list, datos: dict, enlace: str) -> tuple[str, str]:
    """(los controles barridos, que funcionan; los que necesitan el servidor, con su línea y su enlace)."""
    barridos = datos["barridos"]
    vivos, muertos = [], []
    cubiertas: set[int] = set()
    for n, b in enumerate(barridos):
        if b["paquete"].get("servidor") or b["seccion"]:  # una sección va con sus salidas (`_salidas`)
            continue
        vivos.append(_barrido(n, b, datos["controles"]))
        cubiertas.add(b["datos"]["entrada"])
    for b in barridos:  # un barrido que no cabe: en la app pide cada vista al servidor
        if b["paquete"].get("servidor") and not b["seccion"]:
            i = b["datos"]["entrada"]
            if i not in cubiertas:
                cubiertas.add(i)
                motivo = f"Sus paradas no entran en el archivo ({b['paquete']['servidor']})."
                nombre = datos["nombres"][i]
                muertos.append(_deshabilitado(i, vista.entradas[i], valores[i], motivo, nombre, datos["controles"]))
    for i, (c, v) in enumerate(zip(vista.entradas, valores, strict=True)):
        if i in cubiertas or isinstance(c, gr.State) or getattr(c, "visible", True) is not True:
            continue
        muertos.append(_deshabilitado(i, c, v, None, datos["nombres"][i], datos["controles"]))
    servidor = ""
    if muertos:
        servidor = (
            '<section class="servidor" aria-label="Controles que necesitan el servidor">'
            '<p class="aviso">Estos controles necesitan el servidor: aquí muestran su valor. Para cambiarlos, abre '
            f'<a href="{escapar(enlace)}" target="_blank" rel="noopener noreferrer">la pestaña en vivo</a>.</p>'
            f'<div class="rejilla">{"".join(muertos)}</div></section>'
        )
    return "".join(vivos), servidor


def _salidas(datos: dict) -> str:
    """Las salidas de la vista y, al final, cada sección barrida con su control."""
    propias = {g for b in datos["barridos"] if b["seccion"] for g in b["globales"]}
    html_ = _salidas_de(datos, [j for j in range(len(datos["salidas"])) if j not in propias])
    for n, b in enumerate(datos["barridos"]):
        if b["seccion"]:
            html_ += f'<section class="seccion">{_barrido(n, b)}{_salidas_de(datos, b["globales"])}</section>'
    return html_


def _salidas_de(datos: dict, indices: list[int]) -> str:
    partes = []
    for j in indices:
        s = datos["salidas"][j]
        k = sum(x["tipo"] == "figura" for x in datos["salidas"][: j + 1])  # su número entre las figuras
        if s["tipo"] == "figura":
            partes.append(
                f'<div class="figura" id="{escapar(datos["id"])}-figura{k}"><div class="figura-propia" role="figure" '
                f'aria-label="{escapar(s["etiqueta"] or "Figura")}"></div></div>'
            )
        elif s["html"]:
            partes.append(f'<div class="salida" data-salida="{j}">{s["html"]}</div>')
        else:
            partes.append(f'<div class="salida" data-salida="{j}" hidden></div>')
    return "".join(partes)


def armar_pagina(
    p: Pestana,
    datos: dict,
    *,
    explicacion: str | None,
    enlace: str,
    parametros: dict[str, str],
    ahora: datetime,
    nonce: str,
    vista: Vista,
    valores: list,
) -> str:
    vivos, servidor = _controles(vista, valores, datos, enlace)
    ajustes = ", ".join(f"{k} = {v}" for k, v in parametros.items()) or "los de siempre"
    titulo = f"{p.titulo} · del tutorial" if p.del_tutorial else p.titulo
    sin_barrido = "" if vivos else '<p class="aviso">Esta pestaña no tiene controles que se muevan sin servidor.</p>'
    return f"""<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{_politica(nonce)}">
<meta name="color-scheme" content="light dark">
<title>{escapar(titulo)} · {TITULO_SUITE}</title>
<style>{recurso("pagina.css")}
{CSS_DE_LAS_FIGURAS.read_text(encoding="utf-8")}</style>
<script nonce="{nonce}">{guion_de_la_suite()};</script>
</head>
<body>
<header>
<p class="suite">{TITULO_SUITE} · archivo interactivo sin conexión</p>
<h1>{escapar(titulo)}</h1>
<p class="que-mirar"><strong>Qué mirar:</strong> {escapar(p.que_mirar)}</p>
<div class="botones">
<button type="button" id="boton-modo" aria-pressed="false">Modo oscuro</button>
<button type="button" id="boton-proyector" aria-pressed="false">Proyector</button>
</div>
</header>
<main>
{_explicacion(explicacion)}
<section class="controles" aria-label="Controles">{vivos}{sin_barrido}</section>
<section class="salidas">{_salidas(datos)}</section>
{servidor}
</main>
<footer><p>Vista exportada el {ahora:%Y-%m-%d %H:%M} UTC, con los ajustes: {escapar(ajustes)}. Cada parada la
calculó la función de la pestaña al exportar; este archivo no pide nada a la red.
<a href="{escapar(enlace)}" target="_blank" rel="noopener noreferrer">Abrir la pestaña en vivo</a>.</p></footer>
<script type="application/json" id="datos-exportados">{a_json_en_html(datos)}</script>
<script nonce="{nonce}">{plotly_js()}</script>
<script nonce="{nonce}">{recurso("pagina.js")}</script>
<script nonce="{nonce}">({_teclas_del_mazo()})();</script>
</body>
</html>
"""
