"""Barrer un control en el navegador: las vistas de todas sus paradas, calculadas en Python y enviadas juntas.

Para un `Barrido` (`demos.comun.vista.Barrido`), `paquete` llama a la función de cálculo en cada parada del
control, con las demás entradas como están, y junta lo que sale en un «paquete»: para cada salida,
lo que es igual en todas las paradas va una vez (`base`) y lo que cambia va en columnas, una ruta y un valor
por parada (`cambios`). El navegador (`navegador/barrido.mjs`) arma la vista de la parada que el estudiante toca y se la
da a Gradio como si hubiera llegado del servidor: la figura sigue al pulgar y la cola no oye nada.

`barrer` cablea una vista (la de una pestaña, con `demos.servir.conectar`, o una sección suya):
- el `input` del control (y de la entrada que fija, si es otra, y los atajos) corre `navegador/barrido.mjs`, sin cola;
- si el valor no es una parada (un número escrito), `navegador/barrido.mjs` pide al servidor solo esa vista; si el
  paquete no sirve porque otras entradas cambiaron, también solo la vista mientras llegan las paradas de esa
  edición (las pide el evento de la edición, `recalcular`), y los paquetes otra vez si no llegan en
  `navegador.ESPERA_PAQUETE_MS`; una parada que la función rechaza muestra el motivo bajo el control, sin servidor;
- si el paquete pesaría más de `MAX_BYTES` con estas entradas, no lleva vistas: cada movimiento pide solo su
  vista al servidor (otro evento, el de la vista), como antes del barrido;
- `recalcular` (privado) es un generador: primero la vista, después los paquetes. Así una edición se ve tan
  pronto como antes, y las paradas llegan detrás, en el mismo evento. Las paradas se calculan en el `Taller`: un
  hilo para todo el proceso, con una fila corta (llena, el paquete es el aviso «servidor») y que entre parada y
  parada cede el turno a las vistas en curso;
Los paquetes de la vista inicial se calculan una vez por proceso (`demos.servir.conectar`) o al armar la sección.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import gradio as gr
import orjson

from demos.comun import navegador
from demos.comun.figuras import es_figura
from demos.comun.figuras.componente import Figura
from demos.comun.figuras.pantalla import figura_plotly
from demos.comun.gradio_interno import id_de, pagina_en_construccion
from demos.comun.vista import EN_CURSO, Barrido, envolver, salidas_para_gradio, un_reloj

log = logging.getLogger(__name__)

MAX_PARADAS = 256  # más paradas que esto no se precalculan: el control queda en el servidor
MAX_BYTES = 200_000  # lo que pesan, en JSON, los paquetes de una pestaña (tests/test_barrido.py lo mide)


# --- las paradas ---------------------------------------------------------------------------------


def paradas_de(barrido: Barrido) -> list:
    """Los valores del control en cada parada: los pasos del deslizador o las opciones de la lista."""
    c = barrido.control
    if isinstance(c, gr.Slider):
        n = round((c.maximum - c.minimum) / c.step) + 1
        lista = [_redondo(c.minimum + k * c.step) for k in range(n)]
    else:
        lista = [o[1] if isinstance(o, tuple | list) else o for o in c.choices]
    if not 1 <= len(lista) <= MAX_PARADAS:
        raise ValueError(f"Un barrido tiene de 1 a {MAX_PARADAS} paradas (este, {len(lista)}).")
    return lista


def _redondo(x: float) -> float | int:
    """Un paso del deslizador como lo escribe el navegador: 0.35 y no 0.35000000000000003; 3 y no 3.0."""
    x = round(x, 10)
    return int(x) if float(x).is_integer() else x


def _indice(entradas: list, barrido: Barrido) -> int:
    entrada = barrido.entrada if barrido.entrada is not None else barrido.control
    return next(k for k, c in enumerate(entradas) if c is entrada)


def al_navegador(salidas: list, resultado: tuple) -> list:
    """Lo que devuelve `fn` -> lo que Gradio manda al navegador para cada salida (el JSON de cada componente).

    Las figuras van como su figura de Plotly (un dict, `pantalla.figura_plotly`): así se comparan parada a parada.
    Se arma una vez y no se escribe: el paquete entero se escribe al final (antes, cada figura se escribía en JSON
    para su `Figura` y se volvía a leer aquí).
    """
    enviado = []
    for componente, valor in zip(salidas, tuple(resultado), strict=True):
        if isinstance(componente, Figura) and es_figura(valor):
            enviado.append({"type": "plotly", "plot": figura_plotly(valor)})
            continue
        v = componente.postprocess(salidas_para_gradio(valor))
        enviado.append(v.model_dump() if hasattr(v, "model_dump") else v)
    return enviado


def paquete(vista, barrido: Barrido, valores: list, hecha: tuple | None = None, tope: int = MAX_BYTES) -> dict:
    """Las vistas de todas las paradas de `barrido` con las demás entradas en `valores`, comprimidas.

    {"paradas": valores del control, "entradas": los de la entrada que fija, "otros": las demás entradas
    (el navegador ve si el paquete sigue valiendo), "errores": {parada: motivo}, "salidas": por salida,
    {"base", "cambios", "plot"}}. `vista` es lo que tiene `fn`, `entradas` y `salidas` (una `Vista`, o `Seccion`);
    `hecha` es la vista ya calculada con `valores` (no se calcula otra vez).

    Si las paradas pesarían más de `tope` bytes (variantes con L = 64: 2.9 MB), o ninguna da una vista, el paquete
    no lleva vistas sino "servidor": el motivo; el navegador pide entonces cada vista al servidor, de a una, como
    antes del barrido. El peso se estima tras `CADA`, 2·`CADA`, 4·`CADA`… paradas (cada estimación comprime
    lo hecho: a intervalos que se duplican, comprimir para estimar cuesta a lo sumo lo que la compresión final), para
    no calcularlas todas en vano.
    """
    i = _indice(vista.entradas, barrido)
    if barrido.con:
        valores = _con(barrido, vista, valores)
        hecha = None  # la vista de la página es con los valores de antes
    cabecera = _cabecera(vista, barrido, valores)
    entradas = cabecera["entradas"]
    vistas, errores, ultima, pesos = [], {}, None, []
    for k, v in enumerate(entradas):
        ceder()
        args = [*valores[:i], v, *valores[i + 1 :]]
        try:
            resultado = hecha if hecha is not None and _mismo(v, valores[i]) else vista.fn(*args)
            ultima = al_navegador(vista.salidas, resultado)
        except ValueError as e:  # una parada que la función rechaza: el navegador muestra el motivo bajo el control
            errores[str(k)] = str(e)
        vistas.append(ultima)
        hechas = k + 1
        if hechas >= CADA and hechas & (hechas - 1) == 0 and hechas < len(entradas) and ultima is not None:
            # Lo común pesa una vez; cada parada más, lo que creció el paquete por parada desde la estimación anterior.
            pesos.append((hechas, tamano([_comprimidas(vista, [x for x in vistas if x is not None])])))
            if len(pesos) > 1:
                (h0, p0), (h1, p1) = pesos[-2:]
                estimado = round(p1 + (p1 - p0) / (h1 - h0) * (len(entradas) - hechas))
                if estimado > tope * 1.5:
                    return _no_cabe(vista, barrido, cabecera, estimado, tope, hechas)
    relleno = next((v for v in vistas if v is not None), None)
    if relleno is None:
        return {**cabecera, "servidor": "ninguna parada da una vista"}
    vistas = [v if v is not None else relleno for v in vistas]  # la columna sigue alineada; el error manda
    completo = {
        **cabecera,
        "errores": errores,
        # Con paradas que dan error, el texto bajo el control (su `info`) dice el motivo; en las demás, el suyo.
        "hay_errores": bool(errores),
        "info": getattr(barrido.control, "info", None),
        "salidas": _comprimidas(vista, vistas),
    }
    if (peso := tamano([completo])) > tope:
        return _no_cabe(vista, barrido, cabecera, peso, tope, len(entradas))
    return completo


def _no_cabe(vista, barrido: Barrido, cabecera: dict, peso: int, tope: int, hechas: int) -> dict:
    """El paquete «servidor» de uno que no cabe, con su peso (estimado tras `hechas` paradas) y su tope."""
    p = {**cabecera, "servidor": f"más de {tope // 1000} kB", "peso": peso, "tope": tope, "hechas": hechas}
    log.info("%s", demasiado_grande(vista, barrido, p))
    return p


def demasiado_grande(vista, barrido: Barrido, p: dict) -> str:
    """Para quien escribe la pestaña: qué paquete no cabe (pestaña y control), cuánto pesa, su tope y qué hacer."""
    modulo = getattr(vista.fn, "__module__", "?").removeprefix("demos.").removesuffix(".pestana")
    pestana = getattr(barrido.control, "pestana", None) or modulo  # el id que app.py marca en sus componentes
    control = getattr(barrido.control, "label", None) or type(barrido.control).__name__
    n = len(p.get("paradas", ()))
    if "peso" not in p:  # no por su peso (la fila del taller llena, ninguna parada da una vista)
        return f"{pestana}, «{control}»: va al servidor ({p.get('servidor')})."
    como = f"{p['peso'] / 1000:.0f} kB"
    if p["hechas"] < n:
        como = f"≈ {como} (estimado tras {p['hechas']} de {n} paradas)"
    return (
        f"{pestana}, «{control}»: las {n} paradas pesan {como} y le quedaban {p['tope'] / 1000:.0f} kB "
        f"(barrido.MAX_BYTES = {MAX_BYTES // 1000} kB para todos los barridos de la pestaña, el primero elige "
        "primero), así que el control va al servidor en cada movimiento. Para barrerlo: menos paradas (un `step` "
        "más grueso o un rango más corto), menos decimales en los números que cambian de parada en parada, o menos "
        "salidas que cambian; si debe quedar en el servidor, quítalo de `barridos=` y di por qué con "
        '`servido(control, "razón")` (demos/comun/vista.py).'
    )


def _con(barrido: Barrido, vista, valores: list) -> list:
    """Las entradas con las que se calculan las paradas: las de `Barrido.con` en su valor (la máscara que muestra k)."""
    fijos = {id(c): v for c, v in barrido.con}
    return [fijos.get(id(c), v) for c, v in zip(vista.entradas, valores, strict=True)]


def _cabecera(vista, barrido: Barrido, valores: list) -> dict:
    """Lo que todo paquete lleva, también el aviso «servidor»: las paradas, la entrada que fija cada una y las
    demás entradas (el navegador ve si el paquete sigue valiendo)."""
    i = _indice(vista.entradas, barrido)
    if barrido.con:
        valores = _con(barrido, vista, valores)
    paradas = paradas_de(barrido)
    a_entrada = barrido.a_entrada or (lambda v: v)
    return {
        "paradas": paradas,
        "entradas": [a_entrada(v) for v in paradas],
        "otros": [v for k, v in enumerate(valores) if k != i],
    }


CADA = 8  # tras cuántas paradas se estima por primera vez el peso del paquete (y después, al doble)


def _comprimidas(vista, vistas: list) -> list[dict]:
    salidas = []
    for j, componente in enumerate(vista.salidas):
        base, cambios = comprimir([v[j] for v in vistas])
        # Igual en todas las paradas: ya está en la página (barrido.mjs no la toca) y no viaja.
        salidas.append({"base": base if cambios else None, "cambios": cambios, "plot": isinstance(componente, Figura)})
    return salidas


def _mismo(a, b) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


# --- comprimir: lo común una vez, lo que cambia en columnas ----------------------------------------


def comprimir(valores: list) -> tuple[Any, list]:
    """[v₀, …, vₙ₋₁] (JSON) -> (base, cambios): `base` es v₀ con lo que cambia en `None`, y cada cambio es
    [ruta, columna], donde la columna da el valor en cada parada: una lista, o {"v": distintos, "i": índices}
    si muchos se repiten. `armar(base, cambios, k)` devuelve vₖ (tests/test_barrido.py)."""
    cambios: list = []
    base = _columnas(valores, [], cambios)
    return base, cambios


def _escalar(v) -> bool:
    return not isinstance(v, dict | list)


def _columnas(vs: list, ruta: list, cambios: list):
    primero = vs[0]
    if all(v == primero for v in vs[1:]):
        return primero
    if isinstance(primero, dict) and all(isinstance(v, dict) and v.keys() == primero.keys() for v in vs):
        return {k: _columnas([v[k] for v in vs], [*ruta, k], cambios) for k in primero}
    # Una lista de números va entera (una columna); una de textos o de listas, elemento a elemento.
    if (
        isinstance(primero, list)
        and not all(isinstance(x, int | float | bool) or x is None for x in primero)
        and all(isinstance(v, list) and len(v) == len(primero) for v in vs)
    ):
        return [_columnas([v[k] for v in vs], [*ruta, k], cambios) for k in range(len(primero))]
    cambios.append([ruta, _columna(vs)])
    return None


def _columna(vs: list):
    """La columna más corta: los valores tal cual; los distintos y a cuál va cada parada; (textos) sus plantillas
    y los números de cada uno; o (listas de otro largo, dicts con otras claves) grupos de la misma forma, cada uno
    comprimido por su lado."""
    claves = [orjson.dumps(v, option=orjson.OPT_SERIALIZE_NUMPY) for v in vs]
    primeros = {c: v for c, v in zip(reversed(claves), reversed(vs), strict=True)}  # cada distinto, su 1.ª parada
    distintos = list(dict.fromkeys(claves))
    donde = {c: k for k, c in enumerate(distintos)}
    indices = [donde[c] for c in claves]
    # Lo que pesa cada opción en JSON: las dos primeras, con lo ya escrito (cada parada se escribe una vez).
    opciones = [
        (_peso_de_lista(claves), vs),
        (
            len('{"v":,"i":}') + _peso_de_lista(distintos) + len(orjson.dumps(indices)),
            {"v": [primeros[c] for c in distintos], "i": indices},
        ),
    ]
    if all(isinstance(v, str) for v in vs):
        opciones.append(_con_peso(_plantillas(vs)))
    formas = [_forma(v) for v in vs]
    if len(set(formas)) < len(vs) / 2 and any(f is not None for f in formas):
        opciones.append(_con_peso(_grupos(vs, formas)))
    return min(opciones, key=lambda o: o[0])[1]


def _peso_de_lista(escritos: list[bytes]) -> int:
    """Los bytes de una lista JSON de los valores ya escritos en `escritos`: sus corchetes y sus comas."""
    return 2 + sum(map(len, escritos)) + max(0, len(escritos) - 1)


def _con_peso(o) -> tuple[int, Any]:
    return len(orjson.dumps(o, option=orjson.OPT_SERIALIZE_NUMPY)), o


def _forma(v):
    """Lo que tienen que compartir dos valores para comprimirse juntos: el largo de una lista, las claves de un dict."""
    if isinstance(v, list) and not all(map(_escalar, v)):
        return ("lista", len(v))
    if isinstance(v, dict):
        return ("dict", tuple(v))
    return None


def _grupos(vs: list, formas: list) -> dict:
    """{"g": el grupo de cada parada, "j": su lugar en el grupo, "p": por grupo, [base, cambios]}."""
    orden = list(dict.fromkeys(formas))
    miembros: dict = {f: [] for f in orden}
    g, j = [], []
    for v, f in zip(vs, formas, strict=True):
        g.append(orden.index(f))
        j.append(len(miembros[f]))
        miembros[f].append(v)
    return {"g": g, "j": j, "p": [list(comprimir(miembros[f])) for f in orden]}


_NUMERO = re.compile(r"\d+(?:\.\d+)?")


def _plantillas(textos: list[str]) -> dict:
    """Textos que solo cambian en sus números (un título, una explicación) -> {"t": plantillas, "ti": la de cada
    parada, "n": los números de cada parada}: «T = 0.25 (1.2 bits)» es ["T = ", " (", " bits)"] y ["0.25", "1.2"]."""
    partes = [tuple(_NUMERO.split(t)) for t in textos]
    plantillas = list(dict.fromkeys(partes))
    donde = {p: k for k, p in enumerate(plantillas)}
    return {
        "t": [list(p) for p in plantillas],
        "ti": [donde[p] for p in partes],
        "n": [_NUMERO.findall(t) for t in textos],
    }


def valor_de_columna(columna, k: int):
    """El valor de la parada `k` en una columna de `_columna` (como `columna` en barrido.mjs)."""
    if isinstance(columna, list):
        return columna[k]
    if "g" in columna:
        base, cambios = columna["p"][columna["g"][k]]
        return armar(base, cambios, columna["j"][k])
    if "t" in columna:
        partes, numeros = columna["t"][columna["ti"][k]], columna["n"][k]
        return "".join(p + (numeros[j] if j < len(numeros) else "") for j, p in enumerate(partes))
    return columna["v"][columna["i"][k]]


def armar(base, cambios: list, k: int):
    """La vista de la parada `k` desde (base, cambios): lo mismo que hace `barrido.mjs` en el navegador."""
    v = json.loads(json.dumps(base))
    for ruta, columna in cambios:
        x = valor_de_columna(columna, k)
        if not ruta:
            v = x
            continue
        hoja = v
        for paso in ruta[:-1]:
            hoja = hoja[paso]
        hoja[ruta[-1]] = x
    return v


def tamano(paquetes: list[dict]) -> int:
    """Bytes de los paquetes en JSON (como los manda Gradio)."""
    return sum(len(orjson.dumps(p, option=orjson.OPT_SERIALIZE_NUMPY)) for p in paquetes)


# --- en la página ----------------------------------------------------------------------------------


def funcion_js() -> str:
    """Una expresión que arranca la suite en la página (si no arrancó) y vale su función de barrido
    (demos/comun/navegador/barrido.mjs): la que llama el `js=` de cada evento de barrido."""
    return f"({navegador.guion()}).barrido"


def cabeza_js() -> str:
    """El guion del `head` de cada página (app.opciones_lanzamiento): la suite en el navegador
    (`demos.comun.navegador`), una vez; la página de la suite tiene 35 eventos de barrido, y cada uno llevaba su
    copia de la función (230 kB de su configuración)."""
    return navegador.cabeza()


def datos_de(vista, barrido: Barrido, modo: str | float, clave: str = "") -> dict:
    """Lo que `window.__suite.barrido` (`navegador/barrido.mjs`) recibe de un evento de barrido: `modo` es "control",
    "entrada" o el valor fijo de un atajo; `clave` nombra el barrido en la página (el id de su paquete)."""
    return {
        "modo": modo,
        "salidas": len(vista.salidas),
        "entrada": _indice(vista.entradas, barrido),
        "controles": 2 if _con_entrada(barrido) else 1,
        "clave": clave,
        "figuras": [s.elem_id if isinstance(s, Figura) else None for s in vista.salidas],
    }


def js_de(vista, barrido: Barrido, modo: str | float, clave: str = "") -> str:
    """El `js=` de un evento de barrido: llama a `window.__suite.barrido` con `datos_de`."""
    return f"(...a) => window.__suite.barrido({json.dumps(datos_de(vista, barrido, modo, clave))}, ...a)"


def _con_entrada(barrido: Barrido) -> bool:
    return barrido.entrada is not None and barrido.entrada is not barrido.control


def _componente(disparador):
    return getattr(disparador, "__self__", None)


@dataclass(eq=False)
class Seccion:
    """Una parte de una pestaña con su propio cálculo y sus barridos (p. ej. las instantáneas del entrenamiento).
    Tiene lo mismo que una `Vista` para `barrer`."""

    fn: Callable[..., tuple]
    entradas: list
    salidas: list
    barridos: tuple[Barrido, ...]
    paquetes: list = field(default_factory=list)

    @property
    def salidas_de_pagina(self) -> list:
        return [*self.salidas, *self.paquetes]


# Las secciones barridas que `barrer` cableó (en todas las páginas armadas): la exportación (demos/servir/exportar)
# las lleva al archivo. Débiles: una página que se descarta se lleva las suyas.
_SECCIONES: weakref.WeakSet[Seccion] = weakref.WeakSet()


def secciones_barridas() -> list[Seccion]:
    """Las `Seccion` que `barrer` cableó, con sus `paquetes` (los componentes de sus paradas)."""
    return list(_SECCIONES)


def barrer(vista, disparadores: list, iniciales: list | None = None) -> None:
    """Los eventos de una vista con barridos (dentro del contexto de Blocks); ver el docstring del módulo.

    `vista` es una `Vista` o una `Seccion`. `disparadores` son los eventos que recalculan; los de los controles
    barridos y sus entradas no van a la cola. Crea `vista.paquetes` (con `iniciales` como valor, si se dan).
    """
    pedido = gr.Number(0, visible=False)  # barrido.mjs lo cambia cuando hacen falta la vista y los paquetes
    pedido_vista = gr.Number(0, visible=False)  # y este, cuando el paquete es demasiado grande: solo la vista
    barridos = vista.barridos
    iniciales = iniciales or [None] * len(barridos)
    vista.paquetes = [gr.JSON(inicial, visible=False) for inicial in iniciales]
    if isinstance(vista, Seccion):
        _SECCIONES.add(vista)
    barridos_comp = {id(c) for b in barridos for c in (b.control, b.entrada) if c is not None}
    comun = {"api_visibility": "private", "show_progress": "hidden", "trigger_mode": "always_last"}
    for k, s in enumerate(vista.salidas):  # barrido.mjs busca en la página las figuras que marca (modo «paquete»)
        if isinstance(s, Figura) and not s.elem_id:
            s.elem_id = f"barrido-{id_de(s)}-salida{k}"  # no «-figuraN»: esas son las de la vista de una pestaña
    raiz = pagina_en_construccion()  # la página (Blocks) que se está armando: su evento `load`
    for b, paq in zip(barridos, vista.paquetes, strict=True):
        salidas = [*vista.salidas, b.control, *([b.entrada] if _con_entrada(b) else []), pedido, pedido_vista]
        entradas = [paq, pedido, *vista.entradas]
        clave = str(id_de(paq))
        b.control.input(None, [b.control, *entradas], salidas, js=js_de(vista, b, "control", clave), **comun)
        if _con_entrada(b) and hasattr(b.entrada, "input"):
            b.entrada.input(None, [b.entrada, *entradas], salidas, js=js_de(vista, b, "entrada", clave), **comun)
        for boton, valor in b.atajos:
            boton.click(None, [b.control, *entradas], salidas, js=js_de(vista, b, valor, clave), **comun)
        # Al abrir la página y al llegar un paquete (una edición): las figuras que se ven, marcadas con sus paradas,
        # para que el navegador las dibuje de antemano antes del primer movimiento. Sin salidas ni cola.
        al_llegar = [paq.change, *([raiz.load] if raiz is not None else [])]
        gr.on(al_llegar, None, [b.control, *entradas], None, js=js_de(vista, b, "paquete", clave), **comun)
    otros = [d for d in disparadores if id(_componente(d)) not in barridos_comp]

    controles = [b.control for b in barridos]

    def recalcular(*valores):
        with EN_CURSO.vista():  # la vista de la edición: el taller le cede el turno
            resultado = vista.fn(*valores)
        yield (*resultado, *[gr.skip()] * (len(barridos) * 2))
        sesion, direccion = quien_pide(peticion_actual())
        paquetes = TALLER.paquetes(vista, list(valores), resultado, sesion, direccion)
        # El texto bajo cada control: el suyo (la parada de ahora es válida: acaba de calcularse), no el motivo de
        # una parada rechazada que barrido.mjs haya dejado antes de esta edición.
        infos = [
            gr.update(info=getattr(c, "info", None)) if p.get("hay_errores") else gr.skip()  # «servidor»: sin paradas
            for c, p in zip(controles, paquetes, strict=True)
        ]
        yield (*[gr.skip()] * len(vista.salidas), *paquetes, *infos)

    recalcular.__module__ = vista.fn.__module__  # el log de un error nombra la pestaña
    recalcular.pide_paradas = True  # la admisión (servidor/admision.py) frena antes a la sesión sin saldo (`agotada`)
    gr.on(
        [*otros, pedido.change],
        envolver(recalcular),
        inputs=vista.entradas,
        outputs=[*vista.salidas_de_pagina, *controles],
        api_visibility="private",
        trigger_mode="always_last",
        **un_reloj(vista.salidas),
    )
    gr.on(
        [pedido_vista.change],
        envolver(vista.fn),
        inputs=vista.entradas,
        outputs=vista.salidas,
        api_visibility="private",
        trigger_mode="always_last",
        **un_reloj(vista.salidas),
    )


def _direccion_de_la_conexion(request) -> str:
    cliente = getattr(request, "client", None)
    return getattr(cliente, "host", "") or ""


# La dirección del visitante de un pedido: la de la conexión, o la que diga el servidor (servidor/admision.py la
# cambia por `admision.direccion`, que sabe de los proxies de confianza, al configurar la cola).
direccion_de: Callable[[Any], str] = _direccion_de_la_conexion
# El pedido (`gr.Request`) del evento que corre en este hilo; sin servidor (las pruebas, las vistas iniciales), None.
# servidor/admision.py pone `gradio_interno.peticion_actual` al configurar la cola: así `recalcular` no cambia de
# firma (la de la vista) y no se puede llamar distinto desde fuera.
peticion_actual: Callable[[], Any] = lambda: None  # noqa: E731


def quien_pide(request) -> tuple[str, str]:
    """(sesión, dirección) del pedido de una edición, para el reparto del `Taller`; ("", "") sin pedido."""
    if request is None:
        return "", ""
    return str(getattr(request, "session_hash", "") or ""), direccion_de(request)


class Presupuesto:
    """Un balde de vistas por clave (una sesión, una dirección): cabe `capacidad`, se llena a `por_s` vistas por
    segundo. Recuerda a lo sumo `max_claves` (sale la que hace más que no gasta: esa ya tiene el balde lleno, o casi).
    Sin estado por pedido: un OrderedDict bajo el cerrojo de quien lo usa (el del `Taller`)."""

    def __init__(self, capacidad: float, por_s: float, max_claves: int = 4096):
        self.capacidad, self.por_s, self.max_claves = capacidad, por_s, max_claves
        self._saldos: OrderedDict[str, tuple[float, float]] = OrderedDict()  # clave -> (saldo, cuándo)

    def saldo(self, clave: str, ahora: float) -> float:
        saldo, cuando = self._saldos.get(clave, (self.capacidad, ahora))
        return min(self.capacidad, saldo + (ahora - cuando) * self.por_s)

    def uso(self, clave: str, ahora: float) -> float:
        """Lo gastado y aún no repuesto: 0 para quien no pidió nada en un rato."""
        return self.capacidad - self.saldo(clave, ahora)

    def gastar(self, clave: str, n: float, ahora: float) -> None:
        """Gasta `n` (o devuelve, con `n` < 0). La deuda llega a lo sumo a otra `capacidad`: quien deja de pedir
        vuelve a tener saldo en `2 × capacidad / por_s` segundos."""
        self._saldos[clave] = (max(-self.capacidad, self.saldo(clave, ahora) - n), ahora)
        self._saldos.move_to_end(clave)
        while len(self._saldos) > self.max_claves:
            self._saldos.popitem(last=False)


@dataclass(eq=False)
class _Pedido:
    vista: Any
    valores: list
    hecha: tuple | None
    sesion: str
    direccion: str
    costo: int
    llegada: float
    listo: threading.Event = field(default_factory=threading.Event)
    resultado: list | None = None
    error: Exception | None = None


def costo_de(vista) -> int:
    """Lo que cuesta recalcular las paradas de una vista: una vista por parada de cada barrido."""
    return sum(len(paradas_de(b)) for b in vista.barridos)


class Taller:
    """Donde se calculan los paquetes de las ediciones: un hilo para todo el proceso, una fila corta y repartida.

    Calcular las paradas es Python puro (cientos de milisegundos) y se turna el GIL con las vistas de todos. Con
    un hilo, una clase que edita a la vez no llena el proceso de cálculos de paradas: las vistas (lo que el
    estudiante espera al editar) se siguen sirviendo, y las paradas llegan detrás. Lo que no entra no se calcula:
    el paquete es el aviso «servidor» (cada movimiento pide su vista, como antes del barrido) hasta la próxima
    edición. El reparto, por lo que cuesta (`costo_de`: una vista por parada) y no por llamada:

    - cada sesión y cada dirección tienen su presupuesto de vistas (`Presupuesto`), que gasta cada pedido, entre
      o no (quien pide en bucle se queda sin saldo aunque casi nunca entre); sin saldo, el aviso. Pasado el de su
      dirección, solo entra una sesión que gastó menos de la mitad del suyo: la clase detrás de un NAT sigue
      editando, y las sesiones que piden en bucle, no;
    - una sesión tiene a lo sumo un pedido en la fila, y una dirección, la mitad de la fila;
    - el hilo toma primero el pedido de quien menos gastó (su sesión, luego su dirección, luego el que llegó
      antes), y con la fila llena, el que llega desplaza al que espera de quien más gastó (ese recibe el aviso).

    Así el que inunda con muchas sesiones gasta sus presupuestos y queda detrás, y la edición de un estudiante,
    que casi no gastó, pasa adelante. Un pedido sin sesión (las vistas iniciales, las pruebas) no tiene
    presupuesto. Sin estado por pedido en el objeto compartido: la fila y los saldos, bajo un cerrojo."""

    def __init__(
        self,
        max_en_fila: int,
        por_sesion: Presupuesto | None = None,
        por_direccion: Presupuesto | None = None,
    ):
        self.max_en_fila = max_en_fila
        self.por_sesion = por_sesion or Presupuesto(capacidad=3_000, por_s=40)
        self.por_direccion = por_direccion or Presupuesto(capacidad=8_000, por_s=150)
        self._cerrojo = threading.Lock()
        self._esperan: list[_Pedido] = []
        self._corren: list[_Pedido] = []
        self._hilo: ThreadPoolExecutor | None = None

    def agotada(self, sesion: str) -> bool:
        """La sesión siguió pidiendo paradas sin saldo hasta deber la mitad de su presupuesto: no es una página que
        edita (la de un estudiante recibe el aviso mucho antes y no insiste). La admisión le contesta 429 antes de
        calcular siquiera la vista de su edición."""
        with self._cerrojo:
            return bool(sesion) and self.por_sesion.saldo(sesion, time.monotonic()) <= -self.por_sesion.capacidad / 2

    def ocupada(self, sesion: str) -> bool:
        """La sesión tiene un pedido en la fila o calculándose (el de su última edición): uno más suyo no entraría."""
        with self._cerrojo:
            return bool(sesion) and any(q.sesion == sesion for q in (*self._corren, *self._esperan))

    def _aviso(self, vista, valores: list, motivo: str = "") -> list[dict]:
        return [{**_cabecera(vista, b, valores), "servidor": motivo or OCUPADO} for b in vista.barridos]

    def _orden(self, p: _Pedido, ahora: float) -> tuple:
        return (
            self.por_sesion.uso(p.sesion, ahora) if p.sesion else 0.0,
            self.por_direccion.uso(p.direccion, ahora) if p.direccion else 0.0,
            p.llegada,
        )

    def paquetes(
        self, vista, valores: list, hecha: tuple | None = None, sesion: str = "", direccion: str = ""
    ) -> list[dict]:
        if (guardados := guardados_de(vista, valores)) is not None:  # ya calculados: sin fila
            return guardados
        ahora = time.monotonic()
        pedido = _Pedido(vista, valores, hecha, sesion, direccion, costo_de(vista), ahora)
        with self._cerrojo:
            motivo, desplazado = self._admitir(pedido, ahora)
            if sesion:
                self.por_sesion.gastar(sesion, pedido.costo, ahora)
            if direccion:
                self.por_direccion.gastar(direccion, pedido.costo, ahora)
            if motivo:
                return self._aviso(vista, valores, motivo)
            if desplazado is not None:
                self._esperan.remove(desplazado)
                desplazado.resultado = self._aviso(desplazado.vista, desplazado.valores)
                desplazado.listo.set()
            self._esperan.append(pedido)
            if self._hilo is None:
                self._hilo = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paquetes")
            self._hilo.submit(self._siguiente)
        pedido.listo.wait()
        if pedido.error is not None:
            raise pedido.error
        return pedido.resultado

    def _admitir(self, p: _Pedido, ahora: float) -> tuple[str, _Pedido | None]:
        """(motivo del aviso, o "" si entra; el pedido que desplaza, si alguno). Con el cerrojo tomado."""
        en_fila = [*self._corren, *self._esperan]
        if p.sesion and any(q.sesion == p.sesion for q in en_fila):
            return OCUPADO, None
        if p.sesion and self.por_sesion.saldo(p.sesion, ahora) < p.costo:
            return SIN_PRESUPUESTO, None
        if (
            p.direccion
            and self.por_direccion.saldo(p.direccion, ahora) < p.costo
            and self.por_sesion.uso(p.sesion, ahora) > self.por_sesion.capacidad / 2
        ):
            return SIN_PRESUPUESTO, None
        orden = self._orden(p, ahora)
        mitad = max(1, self.max_en_fila // 2)
        de_su_red = [q for q in en_fila if p.direccion and q.direccion == p.direccion]
        if len(de_su_red) >= mitad:  # su red ya tiene su parte: solo entra en lugar de uno suyo que gastó más
            candidatos = [q for q in self._esperan if q in de_su_red]
        elif len(en_fila) >= self.max_en_fila:
            candidatos = list(self._esperan)
        else:
            return "", None
        peor = max(candidatos, key=lambda q: self._orden(q, ahora), default=None)
        if peor is not None and self._orden(peor, ahora) > orden:
            return "", peor
        return OCUPADO, None

    def _siguiente(self) -> None:
        """En el hilo del taller: calcula el pedido de quien menos gastó (si el suyo no fue desplazado ya)."""
        with self._cerrojo:
            if not self._esperan:
                return
            ahora = time.monotonic()
            pedido = min(self._esperan, key=lambda q: self._orden(q, ahora))
            self._esperan.remove(pedido)
            self._corren.append(pedido)
        try:
            pedido.resultado = paquetes_de(pedido.vista, pedido.valores, pedido.hecha)
        except Exception as e:  # lo recibe quien pidió, en su hilo (y `envolver` lo vuelve un gr.Error)
            pedido.error = e
        finally:
            with self._cerrojo:
                self._corren.remove(pedido)
            pedido.listo.set()


CEDER_MAX_S = 0.05  # lo que una parada espera, a lo sumo, a que terminen las vistas en curso


def ceder() -> None:
    """Entre parada y parada: si hay vistas calculándose (`EN_CURSO`), espera a que terminen (a lo sumo
    `CEDER_MAX_S`). Con el GIL, cada parada que se calcula es tiempo que una vista no corre; así la vista que un
    estudiante espera pasa delante de las paradas, que nadie mira todavía."""
    hasta = time.monotonic() + CEDER_MAX_S
    while EN_CURSO.n and time.monotonic() < hasta:
        time.sleep(0.002)


OCUPADO = "el servidor está ocupado con las paradas de otras ediciones"
SIN_PRESUPUESTO = "pediste muchas paradas en poco tiempo: por un rato, cada movimiento pide su vista al servidor"
TALLER = Taller(max_en_fila=6)


class Guardados:
    """Los paquetes ya calculados, por lo que los define: la vista, el barrido, las demás entradas y el tope.

    Una clase repite valores (la semilla + 1 desde la misma semilla, el ejemplo que el docente pide, la vista
    inicial de una URL compartida): el segundo que edita a lo mismo no espera el taller. Cada función de una
    pestaña es pura (la misma entrada, la misma vista), así que el paquete guardado es el que se calcularía. Se
    guardan como JSON (nadie comparte un dict que Gradio pueda tocar), hasta `max_bytes` en total; sale primero
    el que hace más que no se pide. Sin estado por pedido: un OrderedDict bajo un cerrojo."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._cerrojo = threading.Lock()
        self._guardados: OrderedDict[bytes, bytes] = OrderedDict()
        self._bytes = 0

    @staticmethod
    def clave(vista, k: int, valores: list, tope: int) -> bytes | None:
        otros = _cabecera(vista, vista.barridos[k], valores)["otros"]
        try:
            return orjson.dumps([id(vista), k, tope, otros], option=orjson.OPT_SERIALIZE_NUMPY)
        except TypeError:  # una entrada que no es JSON (no pasa con las de la página): no se guarda
            return None

    def buscar(self, clave: bytes | None) -> dict | None:
        if clave is None:
            return None
        with self._cerrojo:
            guardado = self._guardados.get(clave)
            if guardado is not None:
                self._guardados.move_to_end(clave)
        return None if guardado is None else orjson.loads(guardado)

    def guardar(self, clave: bytes | None, paquete_: dict) -> None:
        if clave is None:
            return
        datos = orjson.dumps(paquete_, option=orjson.OPT_SERIALIZE_NUMPY)
        if len(datos) + len(clave) > self.max_bytes:
            return
        with self._cerrojo:
            if clave in self._guardados:
                return
            self._guardados[clave] = datos
            self._bytes += len(datos) + len(clave)
            while self._bytes > self.max_bytes:
                viejo, suyo = self._guardados.popitem(last=False)
                self._bytes -= len(viejo) + len(suyo)

    def vaciar(self) -> None:
        with self._cerrojo:
            self._guardados.clear()
            self._bytes = 0


GUARDADOS = Guardados(max_bytes=32_000_000)  # ≥ 160 paquetes de 200 kB


def guardados_de(vista, valores: list) -> list[dict] | None:
    """Los paquetes de la vista con estas entradas si ya están todos guardados; si falta uno, None."""
    paquetes, libre = [], MAX_BYTES
    for k in range(len(vista.barridos)):
        p = GUARDADOS.buscar(GUARDADOS.clave(vista, k, valores, libre))
        if p is None:
            return None
        paquetes.append(p)
        libre -= tamano(paquetes[-1:])
    return paquetes


def paquetes_de(vista, valores: list, hecha: tuple | None = None) -> list[dict]:
    """Los paquetes de todos los barridos de la vista con las entradas en `valores`: entre todos, a lo sumo
    `MAX_BYTES` (el primero, el control principal, elige primero; el que no cabe va al servidor). Los que ya se
    calcularon con las mismas entradas salen de `GUARDADOS`."""
    paquetes, libre = [], MAX_BYTES
    for k, b in enumerate(vista.barridos):
        clave = GUARDADOS.clave(vista, k, valores, libre)
        p = GUARDADOS.buscar(clave)
        if p is None:
            p = paquete(vista, b, valores, hecha, tope=libre)
            GUARDADOS.guardar(clave, p)
        paquetes.append(p)
        libre -= tamano(paquetes[-1:])
    return paquetes
