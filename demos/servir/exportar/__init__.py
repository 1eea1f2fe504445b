"""La vista de una pestaña en un solo archivo HTML que funciona sin servidor (issue 55).

Para el aula sin red o el Space dormido: `python app.py --exportar ID --salida x.html [--param nombre=valor …]`,
o «HTML interactivo» en las descargas de cada pestaña (`demos/servir/descarga.py`). El archivo lleva:

- el título, la línea «Qué mirar» y la explicación de la pestaña (plegada tras su primer párrafo);
- las figuras de la vista, dibujadas por el mismo código del navegador que la app (`demos.comun.navegador.guion`,
  en línea) con el paquete cartesiano de Plotly.js (en línea, 1.4 MB): valores al pasar el puntero, modo oscuro,
  teléfono y proyector (`?presentacion=1` o su botón);
- cada control barrido, con todas sus paradas: las calcula la función de la pestaña en el `Taller` de las ediciones
  (`barrido.TALLER`: las guardadas no se recalculan, y las del botón gastan el presupuesto de quien lo pulsa), con el
  mismo tope de 200 kB que la app, y las arma `barrido.mjs`, el mismo módulo que en la app;
- los demás controles, con su valor y desactivados, y una línea que enlaza a la pestaña en vivo con los mismos
  ajustes.

Nada se calcula en el navegador: la vista y cada parada son lo que dio Python. El archivo no pide nada a la red (una
política de contenido lo prohíbe: `connect-src 'none'`, y solo corren sus propios guiones, con su `nonce`).
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import time
import urllib.parse
from dataclasses import dataclass
from datetime import UTC, datetime

import gradio as gr
import orjson

from demos import Pestana
from demos.comun import barrido
from demos.comun.barrido import al_navegador, armar
from demos.comun.figuras.componente import Figura
from demos.comun.vista import Vista
from demos.servir.exportar import textos
from demos.servir.exportar.armado import armar_pagina, escapar, json_compacto  # noqa: F401 (escapar: para quien exporta)

MAX_BYTES_ARCHIVO = 3_000_000  # un archivo exportado pesa menos que esto (Plotly.js: 1.4 MB)
MAX_BYTES_TEXTOS = 600_000  # los textos y tablas de todas las paradas; si pasan, siguen la vista inicial
# La dirección de la app para el enlace a la pestaña en vivo; sin ella, la del Space si corre en uno, o relativa.
VARIABLE_BASE = "ATENCION_URL_PUBLICA"
PRESENTACION = "presentacion"  # ajustes de la página que también acepta (presentacion, también en su propia URL)
CONTROLES = "controles"  # ?controles=w,L: solo esos controles se ven (los demás, ocultos con su valor)
PREDECIR = "predecir"  # se acepta; el archivo no vela la figura


@dataclass
class Pedido:
    """Lo que se exporta: la pestaña, su vista (armada en unos Blocks) y los valores de sus entradas."""

    pestana: Pestana
    vista: Vista
    valores: list
    presentacion: bool = False
    controles: frozenset | None = None  # ?controles=: los nombres de la URL cuyos controles se ven (None: todos)


# --- el archivo ---------------------------------------------------------------------------------------


def base_por_omision() -> str:
    """La dirección de la app para el enlace a la pestaña en vivo: ATENCION_URL_PUBLICA, o la del Space
    (SPACE_HOST), o ninguna (enlace relativo, que sirve si el archivo se aloja junto a la app)."""
    if os.environ.get(VARIABLE_BASE):
        return os.environ[VARIABLE_BASE]
    if os.environ.get("SPACE_HOST"):
        return "https://" + os.environ["SPACE_HOST"]
    return ""


def validar_base(base: str) -> str:
    """Una dirección http(s) sin comillas ni espacios (o vacía), sin la barra final."""
    base = base.strip()
    if base and not re.fullmatch(r"https?://[^\s\"'<>`]+", base):
        raise ValueError(f"«{base[:60]}» no es una dirección: empieza con http:// o https:// (o va vacía).")
    return base.rstrip("/")


def parametros_de(vista: Vista, valores: list) -> dict[str, str]:
    """Los ajustes de la URL que cambian la vista: los nombres de `vista.url` cuyo valor no es el de siempre."""
    parametros = {}
    for nombre, c in vista.url.items():
        i = next(k for k, x in enumerate(vista.entradas) if x is c)
        v = valores[i]
        if v == c.value or not isinstance(v, str | int | float | bool):
            continue
        texto = ("1" if v else "0") if isinstance(v, bool) else f"{v:g}" if isinstance(v, float) else str(v)
        if len(texto) <= 500:
            parametros[nombre] = texto
    return parametros


def enlace_en_vivo(p: Pestana, parametros: dict[str, str], base: str) -> str:
    consulta = urllib.parse.urlencode({k: v for k, v in parametros.items() if k != PRESENTACION})
    return f"{base}/demo/{p.id}/" + (f"?{consulta}" if consulta else "")


def nodo_de_la_pestana(vista: Vista):
    """La gr.Tab de la pestaña en la suite (elem_id «pestana-<id>», app.py) o la raíz (sola): no una gr.Tab de
    adentro."""
    nodo = vista.entradas[0] if vista.entradas else vista.salidas[0]
    while getattr(nodo, "parent", None) is not None and not str(getattr(nodo, "elem_id", "")).startswith("pestana-"):
        nodo = nodo.parent
    return nodo


def explicacion_de(vista: Vista) -> str | None:
    """El texto de `explicacion(...)` de la pestaña: el Markdown con la clase «explicacion» de su gr.Tab (o de sus
    Blocks, si se armó sola)."""
    pendientes = [nodo_de_la_pestana(vista)]
    while pendientes:
        x = pendientes.pop(0)
        if isinstance(x, gr.Markdown) and "explicacion" in (x.elem_classes or []):
            return x.value
        pendientes.extend(getattr(x, "children", None) or [])
    return None


def _tipo(componente) -> str:
    if isinstance(componente, Figura):
        return "figura"
    if isinstance(componente, gr.Markdown):
        return "markdown"
    if isinstance(componente, gr.Dataframe):
        return "tabla"
    if isinstance(componente, gr.Label):
        return "etiqueta"
    if isinstance(componente, gr.HTML):
        return "html"
    return "texto"


ESPERA_TALLER_S = 30.0


def _paquetes(vista, valores: list, resultado: tuple) -> list[dict]:
    """Las paradas de los barridos, por el `Taller` de las ediciones: las ya calculadas salen de las guardadas, y
    las de un visitante (el botón) gastan su presupuesto de sesión y de dirección, en el mismo hilo que las demás.
    Si el taller no las calcula por ahora (ocupado, o quien pide ya pidió muchas), el archivo no se arma a medias."""
    sesion, direccion = barrido.quien_pide(barrido.peticion_actual())
    # Quien edita y enseguida pulsa el botón tiene aún en el taller las paradas de su edición (una por sesión): se
    # esperan (a lo sumo ESPERA_TALLER_S), y suelen ser las mismas, que salen guardadas.
    hasta = time.monotonic() + ESPERA_TALLER_S
    while barrido.TALLER.ocupada(sesion) and time.monotonic() < hasta:
        time.sleep(0.1)
    paquetes = barrido.TALLER.paquetes(vista, list(valores), resultado, sesion, direccion)
    if any(p.get("servidor") in (barrido.OCUPADO, barrido.SIN_PRESUPUESTO) for p in paquetes):
        raise ValueError(
            "Ahora no se pueden calcular las paradas de esta vista (el servidor está ocupado con otras ediciones, "
            "o pediste muchas en poco tiempo): prueba otra vez en un minuto."
        )
    return paquetes


def exportar(pedido: Pedido, base: str | None = None, ahora: datetime | None = None) -> str:
    """El archivo HTML de la vista de `pedido`. ValueError en español si la función la rechaza o si pasaría de
    `MAX_BYTES_ARCHIVO`."""
    p, vista, valores = pedido.pestana, pedido.vista, list(pedido.valores)
    base = validar_base(base_por_omision() if base is None else base)
    resultado = vista.fn(*valores)  # la validación y los límites de la pestaña, como en una vista
    resultado = resultado if isinstance(resultado, tuple) else (resultado,)
    enviados = al_navegador(vista.salidas, resultado)
    paquetes = _paquetes(vista, valores, resultado) if vista.barridos else []
    tipos = [_tipo(s) for s in vista.salidas]
    salidas = [
        {
            "tipo": t,
            "valor": json_compacto(v["plot"]) if t == "figura" and v else None,
            "html": textos.a_html(t, v) if t != "figura" else None,
            "etiqueta": getattr(s, "label", None) or "",
        }
        for s, t, v in zip(vista.salidas, tipos, enviados, strict=True)
    ]
    barridos = _barridos(pedido, paquetes, tipos)
    _con_secciones(pedido, salidas, barridos)
    parametros = parametros_de(vista, valores)
    if pedido.controles is not None:
        parametros[CONTROLES] = ",".join(sorted(pedido.controles))
    datos = {
        "id": p.id,
        "salidas": salidas,
        "barridos": barridos,
        "entradas": [_entrada(c, v) for c, v in zip(vista.entradas, valores, strict=True)],
        "presentacion": pedido.presentacion,
        "controles": sorted(pedido.controles) if pedido.controles is not None else None,
        "nombres": [next((n for n, x in vista.url.items() if x is c), None) for c in vista.entradas],
    }
    pagina = armar_pagina(
        p,
        datos,
        explicacion=explicacion_de(vista),
        enlace=enlace_en_vivo(p, parametros, base),
        parametros=parametros,
        ahora=ahora or datetime.now(UTC),
        nonce=secrets.token_urlsafe(18),
        vista=vista,
        valores=valores,
    )
    if len(pagina.encode()) > MAX_BYTES_ARCHIVO:
        raise ValueError(
            f"El archivo de «{p.titulo}» con estos ajustes pesaría {len(pagina.encode()) / 1e6:.1f} MB, más que el "
            f"tope de {MAX_BYTES_ARCHIVO / 1e6:.0f} MB: prueba con menos palabras o un tamaño más pequeño."
        )
    return pagina


def _entrada(componente, valor) -> dict:
    """Cómo se muestra una entrada en el archivo (su valor, si es simple)."""
    # Solo el valor de un control de texto, número u opción: el de una subida o un lienzo (una ruta del servidor) no.
    de_valor = isinstance(componente, gr.Textbox | gr.Number | gr.Slider | gr.Radio | gr.Dropdown | gr.Checkbox)
    simple = de_valor and isinstance(valor, str | int | float | bool)
    return {"etiqueta": getattr(componente, "label", None) or "", "valor": valor if simple else None}


def _barridos(pedido: Pedido, paquetes: list[dict], tipos: list[str]) -> list[dict]:
    """Cada barrido con su paquete (el de la app), los datos que `barrido.mjs` recibe de su `js=`, su control y el
    HTML de cada salida que no es figura en cada parada (los textos cambian con el control como en la app)."""
    vista, p = pedido.vista, pedido.pestana
    figuras = [f"{p.id}-figura{k}" for k in range(1, tipos.count("figura") + 1)]
    ids = iter(figuras)
    por_salida = [next(ids) if t == "figura" else None for t in tipos]
    nombres = {id(c): n for n, c in vista.url.items()}
    lista, libre = [], MAX_BYTES_TEXTOS
    for n, (b, paq) in enumerate(zip(vista.barridos, paquetes, strict=True)):
        entrada = b.entrada if b.entrada is not None else b.control
        i = next(k for k, c in enumerate(vista.entradas) if c is entrada)
        control = b.control
        textos_ = {} if paq.get("servidor") else _textos_por_parada(paq, tipos, vista.salidas)
        peso = len(json.dumps(textos_))
        if peso > libre:
            textos_ = {}
        libre -= len(json.dumps(textos_))
        k0, vale = _parada_inicial(paq, pedido.valores, i)
        # Las demás entradas, solo si son de valor (la ruta de una imagen subida no sale del servidor): barrido.mjs
        # compara las de la página con estas, y el archivo las arma de estas mismas.
        otros = [c for k, c in enumerate(vista.entradas) if k != i]
        paq = {**paq, "otros": [_entrada(c, v)["valor"] for c, v in zip(otros, paq["otros"], strict=True)]}
        lista.append(
            {
                "k": k0,
                "vale": vale,
                "cerca": k0 if k0 is not None else _mas_cercana(paq, pedido.valores[i]),
                "valor_entrada": pedido.valores[i],
                "datos": {
                    "modo": "control",
                    "salidas": len(vista.salidas),
                    "entrada": i,
                    "controles": 1 if entrada is control else 2,
                    "clave": f"exportado-{n}",
                    "figuras": por_salida,
                },
                "paquete": paq,
                "control": _control(control, nombres.get(id(control)), p.id, n),
                "entrada_etiqueta": None if entrada is control else (getattr(entrada, "label", "") or ""),
                "nombres": [n for n in (nombres.get(id(control)), nombres.get(id(entrada))) if n],
                "atajos": [[str(boton.value), valor] for boton, valor in b.atajos],
                "textos": textos_,
                "globales": list(range(len(vista.salidas))),  # su salida j es la j de la página
                "seccion": False,
            }
        )
    return lista


def _con_secciones(pedido: Pedido, salidas: list[dict], barridos: list[dict]) -> None:
    """Suma las secciones barridas de la pestaña (`secciones.encontrar`): sus salidas al final de la página, con la
    vista con que abren, y su barrido, con su paquete."""
    from demos.servir.exportar import secciones

    p, vista = pedido.pestana, pedido.vista
    for s in secciones.encontrar(nodo_de_la_pestana(vista), vista, pedido.valores):
        desde, n = len(salidas), len(barridos)
        tipos = [_tipo(c) for c in s["salidas"]]
        for c, t in zip(s["salidas"], tipos, strict=True):
            plot, v = secciones.valor_inicial(c)
            html_ = textos.a_html(t, v) if t != "figura" else None
            salidas.append({"tipo": t, "valor": plot, "html": html_, "etiqueta": getattr(c, "label", None) or ""})
        figuras = [f"{p.id}-figura{k + 1}" for k in range(sum(x["tipo"] == "figura" for x in salidas))]
        por_salida = [
            figuras[sum(x["tipo"] == "figura" for x in salidas[:g])] if salidas[g]["tipo"] == "figura" else None
            for g in range(desde, len(salidas))
        ]
        paq, i, datos = s["paquete"], s["datos"]["entrada"], s["datos"]
        k0, _ = _parada_inicial(paq, s["valores"], i)
        otros = [c for k, c in enumerate(s["entradas"]) if k != i]
        textos_ = _textos_por_parada(paq, tipos, s["salidas"])
        barridos.append(
            {
                "k": k0,
                "vale": True,
                "cerca": k0,
                "valor_entrada": s["valores"][i],
                "datos": {**datos, "modo": "control", "clave": f"exportado-{n}", "figuras": por_salida},
                "paquete": {
                    **paq,
                    "otros": [_entrada(c, v)["valor"] for c, v in zip(otros, paq["otros"], strict=True)],
                },
                "control": _control(s["control"], None, p.id, n),
                "entrada_etiqueta": None if datos["controles"] == 1 else getattr(s["entradas"][i], "label", ""),
                "atajos": [],
                "textos": {str(desde + int(j)): t for j, t in textos_.items()},
                "globales": list(range(desde, len(salidas))),
                "seccion": True,
            }
        )


def _parada_inicial(paq: dict, valores: list, i: int) -> tuple[int | None, bool]:
    """(la parada que muestra la vista, si es una; si el paquete es de las entradas de la vista: `con` las cambia)."""
    otros = [v for k, v in enumerate(valores) if k != i]
    vale = orjson.dumps(otros, option=orjson.OPT_SERIALIZE_NUMPY) == orjson.dumps(
        paq.get("otros"), option=orjson.OPT_SERIALIZE_NUMPY
    )
    for k, v in enumerate(paq.get("entradas") or []):
        if _igual(v, valores[i]):
            return k, vale
    return None, vale


def _mas_cercana(paq: dict, valor) -> int | None:
    """La parada cuya entrada está más cerca de `valor` (T = 0.5 no es una parada de log T): ahí va el control."""
    numeros = [
        (abs(v - valor), k) for k, v in enumerate(paq.get("entradas") or []) if _es_numero(v) and _es_numero(valor)
    ]
    return min(numeros)[1] if numeros else None


def _es_numero(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _igual(a, b) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _control(c, nombre: str | None, id_: str, n: int) -> dict:
    """Un deslizador (su rango) o una lista de opciones (sus etiquetas), como en la app."""
    dom = f"{id_}-{nombre}" if nombre else f"{id_}-barrido{n}"
    base = {"id": dom, "etiqueta": getattr(c, "label", "") or "", "info": getattr(c, "info", None)}
    if isinstance(c, gr.Slider):
        return {**base, "tipo": "rango", "min": c.minimum, "max": c.maximum, "paso": c.step}
    opciones = [list(o) if isinstance(o, tuple | list) else [str(o), o] for o in c.choices]
    return {**base, "tipo": "opciones", "opciones": opciones}


def _textos_por_parada(paq: dict, tipos: list[str], salidas: list) -> dict:
    """{salida: {"v": HTML distintos, "i": cuál en cada parada}} para las salidas que no son figura y cambian."""
    hechos = {}
    n = len(paq["paradas"])
    for j, (s, t) in enumerate(zip(paq["salidas"], tipos, strict=True)):
        if t == "figura" or not s["cambios"]:
            continue
        distintos: dict[str, int] = {}
        indices = []
        for k in range(n):
            h = textos.a_html(t, armar(s["base"], s["cambios"], k))
            indices.append(distintos.setdefault(h, len(distintos)))
        hechos[str(j)] = {"v": list(distintos), "i": indices}
    return hechos
