"""Los widgets de aprender, iguales para todas las pestañas: predecir, comprobarse y la ruta.

`conectar` llama a `armar_aprender` dentro del contexto de la pestaña, con lo que ella declara en
`Vista.aprender` (`demos.comun.aprender`) y su lugar en la ruta del registro (`Pestana.que_mirar`).
Ids estables: `<id>-prediccion`, `<id>-preguntas` y `<id>-siguiente` (el enlace de la ruta).

- Predicción: hasta revelar (o «Ver sin predecir», o `?predecir=0`), las salidas de la pestaña se ven
  veladas; «Revelar» pide al servidor la verdad y la frase de la distancia, y las descubre. Lo que el
  estudiante predijo vive en su página y viaja solo en esa petición: nada se guarda ni va al log.
- Preguntas: cada respuesta da su propia explicación (un evento por respuesta, no por control).
- Ruta: «Qué mirar», «Siguiente» (en la suite elige la pestaña; en /demo/<id>/ abre /demo/<siguiente>/)
  y los puntos de la ruta, llenos los de las pestañas ya vistas en esta sesión (sessionStorage).
Velar, descubrir y la ruta son cosa del navegador (`js_on_load`): no mandan eventos a la cola.
"""

from __future__ import annotations

import html
import inspect
import math
from typing import Any

import gradio as gr

from demos import PESTANAS, POR_ID, Pestana
from demos.comun.aprender import Aprender, Prediccion, Pregunta, como_cifras
from demos.comun.figuras import C0, GRIS, Barras, Serie
from demos.comun.figuras.componente import Figura
from demos.comun.figuras.pantalla import valor_de_figura
from demos.comun.vista import Vista, un_reloj

# Corre al montarse la línea de la ruta de cada pestaña: el velo de la predicción, los puntos del progreso
# y el enlace «Siguiente». El estilo está en demos/servir/pagina/aprender.css.
JS_RUTA = """
const raiz = element.querySelector(".ruta");
if (!raiz) return;
const id = raiz.dataset.id;
const CLAVE = "aprender-ruta";
const vistas = () => { try { return JSON.parse(sessionStorage.getItem(CLAVE) || "[]"); } catch (e) { return []; } };
const pintar = () => {
  const v = new Set(vistas());
  for (const p of document.querySelectorAll(".ruta .punto")) p.classList.toggle("vista", v.has(p.dataset.id));
  for (const n of document.querySelectorAll(".ruta .cuantas")) n.textContent = String(v.size);
};
const marcar = () => {
  const v = vistas();
  if (!v.includes(id)) { v.push(id); try { sessionStorage.setItem(CLAVE, JSON.stringify(v)); } catch (e) {} }
  pintar();
};
new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) marcar(); }).observe(raiz);
pintar();

const q = new URLSearchParams(window.location.search);
// El panel de la predicción puede montarse después que esta línea (Gradio trae el código de cada componente
// aparte): si todavía no está, se espera a que aparezca (la predicción no puede verse sin velo).
const velar = (panel) => {
  const caja = panel.parentElement;
  if (["0", "false", "no"].includes((q.get("predecir") || "").toLowerCase())) panel.classList.add("oculta");
  else if (!caja.classList.contains("revelada")) caja.classList.add("velada");
  if (!window.aprenderClic) {
    window.aprenderClic = true;
    document.addEventListener("click", (e) => {
      const b = e.target.closest && e.target.closest("[id$='-revelar'], [id$='-sin-predecir']");
      const caja = b && b.closest(".velada, .revelada");
      if (!caja) return;
      caja.classList.remove("velada");
      caja.classList.add("revelada");
      const p = caja.querySelector(":scope > .aprender.prediccion");
      if (p && b.id.endsWith("-sin-predecir")) p.classList.add("oculta");
    });
  }
};
const panel = document.getElementById(id + "-prediccion");
if (panel) velar(panel);
else if (raiz.dataset.prediccion) {
  const espera = new MutationObserver(() => {
    const p = document.getElementById(id + "-prediccion");
    if (p) { espera.disconnect(); velar(p); }
  });
  espera.observe(document.body, {childList: true, subtree: true});
}

const a = raiz.querySelector("a.siguiente");
if (!a) return;
const sig = a.dataset.siguiente;
const enDemo = window.location.pathname.match(/^(.*\\/demo\\/)([^/]+)\\/?$/);
if (enDemo) {
  a.href = enDemo[1] + sig + "/" + window.location.search;
} else {
  q.set("tab", sig);
  a.href = "?" + q.toString();
  a.addEventListener("click", (e) => {
    const boton = (sel, texto) => [...document.querySelectorAll(sel)].find(
      (b) => b.textContent.trim().startsWith(texto));
    const g = boton("#grupos > .tab-wrapper button[role=tab]", a.dataset.grupo);
    if (!g) return;
    e.preventDefault();
    g.click();
    setTimeout(() => {
      const t = [...document.querySelectorAll(".pestanas-del-grupo > .tab-wrapper button[role=tab]")].find(
        (b) => b.offsetParent && b.textContent.trim().startsWith(a.dataset.titulo));
      if (t) { t.click(); window.scrollTo(0, 0); history.replaceState(null, "", a.href); }
      else window.location.href = a.href;
    }, 60);
  });
}
"""


def _figura(p: Prediccion, suposicion: Any) -> Barras | None:
    """La verdad dibujada junto a lo que dijo el estudiante: solo si es una cantidad o un reparto en barras.

    Una categoría o una posición no se dibuja como barra (una «posición −1» no es nada que medir).
    """
    r = p.cifras()["respuesta"]
    escala = 100.0 if p.unidad == "%" else 1.0
    formato = ".1f" if p.unidad == "%" else f".{p.decimales}f"
    eje = "%" if p.unidad == "%" else ""
    if p.barras:
        series = [Serie("la verdad", [escala * float(v) for v in r], color=C0)]
        if suposicion is not None:
            dichas = [escala * v for v in p.normalizar(suposicion)]
            series.insert(0, Serie("lo que dijiste", dichas, color=GRIS))
        return Barras(tuple(p.barras), tuple(series), titulo="Lo que dijiste y la verdad", eje_y=eje, formato=formato)
    if not p.cantidad:
        return None
    if p.opciones and suposicion is not None:
        suposicion = p.opciones[int(suposicion)].valor
    categorias, valores, colores = ["la verdad"], [escala * float(r)], [C0]
    if suposicion is not None:
        categorias.insert(0, "lo que dijiste")
        valores.insert(0, escala * float(suposicion))
        colores.insert(0, GRIS)
    serie = Serie("valor", valores, colores=tuple(colores))
    return Barras(tuple(categorias), (serie,), titulo="Lo que dijiste y la verdad", eje_y=eje, formato=formato)


def _leer_suposicion(p: Prediccion, valores: tuple) -> tuple[Any, str]:
    """(suposición, aviso): None si no predijo; el aviso, si lo que escribió no sirve (no va al log)."""
    if p.opciones:
        k = valores[0]
        return (k if isinstance(k, int) and 0 <= k < len(p.opciones) else None), ""
    if p.barras:
        try:
            return [float(v) for v in valores], ""
        except (TypeError, ValueError):
            return None, ""
    x = valores[0]
    if x is None or (isinstance(x, str) and not x.strip()):
        return None, ""
    try:
        x = float(str(x).strip().replace(",", ".").replace("−", "-").replace(" ", "").replace("\u2009", ""))
    except (TypeError, ValueError):
        return None, "Escribe un número."
    if not math.isfinite(x) or not p.minimo <= x <= p.maximo:
        return None, f"Escribe un número entre {p.minimo:g} y {p.maximo:g}."
    return x, ""


def revelar(p: Prediccion, *valores) -> tuple[str, Any]:
    """(la frase de la distancia y el porqué, la figura de la verdad junto a la suposición)."""
    suposicion, aviso = _leer_suposicion(p, valores)
    if aviso:
        return f"{aviso} (O pulsa «Revelar» sin escribir nada para ver la respuesta.)", gr.update(visible=False)
    texto = p.distancia(suposicion)
    if p.porque:
        texto += "\n\n" + p.explicacion()
    figura = _figura(p, suposicion)
    if figura is None:
        return texto, gr.update(visible=False)
    return texto, gr.update(value=valor_de_figura(figura), visible=True)


def _entradas(p: Prediccion, prefijo: str, etiqueta: str) -> list:
    if p.opciones:
        choices = [(o.texto, k) for k, o in enumerate(p.opciones)]
        return [gr.Radio(choices, value=None, label=etiqueta, elem_id=f"{prefijo}-prediccion-opciones")]
    if p.barras:
        parejo = round(1 / len(p.barras), 2)
        with gr.Row():
            return [
                gr.Slider(p.minimo, p.maximo, value=parejo, step=0.01, label=f"«{c}»", min_width=120) for c in p.barras
            ]
    return [
        gr.Textbox(
            label=etiqueta,
            placeholder="p. ej. 0.5",
            max_lines=1,
            elem_id=f"{prefijo}-prediccion-numero",
            min_width=160,
        )
    ]


def _debajo_de_la_figura(grupo: gr.Group, vista: Vista) -> None:
    """Pone `grupo` justo después de lo que contiene la primera figura de la pestaña, en su contenedor.

    Así queda en la página: en presentación se ve ahí (la profesora pregunta debajo de la figura y luego
    revela); en una pantalla normal aprender.css la sube (order), encima de la figura que vela.
    """
    figura = next((s for s in vista.salidas if isinstance(s, Figura)), None)
    contenedor = grupo.parent
    while figura is not None and figura.parent is not contenedor:
        figura = figura.parent
    if figura is None or contenedor is None:
        return
    hijos = contenedor.children
    hijos.remove(grupo)
    hijos.insert(hijos.index(figura) + 1, grupo)


def _prediccion(p: Prediccion, vista: Vista, prefijo: str) -> None:
    for c in vista.salidas:  # lo que se vela hasta revelar
        c.elem_classes = [*(c.elem_classes or []), "velo"]
    with gr.Group(elem_id=f"{prefijo}-prediccion", elem_classes=["aprender", "prediccion"]) as grupo:
        with gr.Row(equal_height=True):
            with gr.Column(scale=4):
                if p.barras:
                    gr.Markdown(f"**Antes de mirar, predice.** {p.pregunta}", padding=True)
                entradas = _entradas(p, prefijo, f"Antes de mirar, predice: {p.pregunta}")
            with gr.Column(scale=0, min_width=170):
                boton = gr.Button("Revelar", variant="primary", size="sm", elem_id=f"{prefijo}-revelar")
                gr.Button("Ver sin predecir", size="sm", elem_id=f"{prefijo}-sin-predecir")
        frase = gr.Markdown(elem_id=f"{prefijo}-revelacion", padding=True)
        figura = Figura(visible=False, label="Lo que dijiste y la verdad")
    _debajo_de_la_figura(grupo, vista)
    boton.click(
        lambda *v: revelar(p, *v),
        inputs=entradas,
        outputs=[frase, figura],
        api_visibility="private",
        **un_reloj([frase, figura]),
    )


def responder(pregunta: Pregunta, indice: Any) -> str:
    return pregunta.responder(indice)[1]


def _preguntas(preguntas: tuple[Pregunta, ...], prefijo: str) -> None:
    cuantas = f"{len(preguntas)} pregunta{'s' if len(preguntas) > 1 else ''}"
    titulo = f"Comprueba lo que entendiste ({cuantas})"
    with gr.Accordion(titulo, open=False, elem_id=f"{prefijo}-preguntas", elem_classes=["aprender"]):
        for k, q in enumerate(preguntas, start=1):
            gr.Markdown(f"**{k}.** {q.enunciado}")
            radio = gr.Radio(
                [(o.texto, j) for j, o in enumerate(q.opciones)],
                value=None,
                label=q.enunciado,
                show_label=False,
                elem_id=f"{prefijo}-pregunta{k}",
            )
            respuesta = gr.Markdown(elem_id=f"{prefijo}-respuesta{k}")
            radio.input(
                lambda i, q=q: responder(q, i),
                inputs=radio,
                outputs=respuesta,
                api_visibility="private",
                show_progress="hidden",
            )


def html_ruta(p: Pestana, con_prediccion: bool = False) -> str:
    """La línea de la ruta: el progreso (puntos), qué mirar y el enlace a la siguiente. `con_prediccion`: la
    pestaña tiene un panel de predicción que la línea vela al montarse (lo espera si llega después)."""
    k = PESTANAS.index(p)
    siguiente = PESTANAS[(k + 1) % len(PESTANAS)]
    e = html.escape
    puntos = "".join(
        f'<span class="punto{" actual" if q is p else ""}" data-id="{e(q.id)}" title="{e(q.titulo)}">●</span>'
        for q in PESTANAS
    )
    texto = "Siguiente" if k + 1 < len(PESTANAS) else "Fin de la ruta; volver a"
    vela = ' data-prediccion="1"'
    return (
        f'<div class="ruta" data-id="{e(p.id)}"{vela if con_prediccion else ""}>'
        f'<span class="puntos" aria-label="Pestañas vistas">{puntos}</span>'
        f'<span>Ruta {k + 1} de {len(PESTANAS)} (vistas: <span class="cuantas">1</span>)</span>'
        f"<span><b>Qué mirar:</b> {e(p.que_mirar)}</span>"
        f'<a class="siguiente" id="{e(p.id)}-siguiente" href="?tab={e(siguiente.id)}"'
        f' data-siguiente="{e(siguiente.id)}"'
        f' data-titulo="{e(siguiente.titulo)}" data-grupo="{e(siguiente.grupo)}">{texto}: {e(siguiente.titulo)} →</a>'
        "</div>"
    )


def apertura(vista: Vista) -> dict[str, Any]:
    """{parámetro de `vista.fn`: el valor con que abre su control}: lo que ve quien llega a la pestaña."""
    nombres = list(inspect.signature(vista.fn).parameters)
    return {n: c.value for n, c in zip(nombres, vista.entradas, strict=False)}


def _alcanzable(c: Any, v: Any) -> bool:
    """¿Puede el estudiante poner `v` en el control `c`?"""
    if isinstance(c, gr.Checkbox):
        return isinstance(v, bool)
    if isinstance(c, gr.Slider | gr.Number):
        lo = -math.inf if c.minimum is None else c.minimum
        hi = math.inf if c.maximum is None else c.maximum
        return isinstance(v, int | float) and not isinstance(v, bool) and lo <= v <= hi
    if isinstance(c, gr.Radio | gr.Dropdown):
        return v in [x[1] if isinstance(x, tuple | list) else x for x in (c.choices or [])]
    if isinstance(c, gr.Textbox):
        return isinstance(v, str)
    return False  # un dibujo, una subida o un estado no se cambian con un valor que la pregunta pueda nombrar


def faltas(vista: Vista, calcular: bool = False) -> list[str]:
    """Lo que rompe el contrato de aprender de una vista (vacía si nada).

    Cada verdad usa la función de la vista y el cambio que nombra se hace con sus controles (un valor que el
    control admite). Con `calcular`, además, cada verdad calculada con los valores por omisión de la función
    (la que se revela) es la misma que con la pestaña abierta como la abren sus controles: si no, el estudiante
    que hace el cambio vería otra cosa que lo revelado. Eso calcula cada verdad: lo hacen las pruebas.
    """
    aprender: Aprender | None = getattr(vista, "aprender", None)
    if aprender is None:
        return []
    nombres = list(inspect.signature(vista.fn).parameters)
    controles = dict(zip(nombres, vista.entradas, strict=False))
    lista = []
    for donde, verdad in aprender.verdades():
        if verdad.fn is not vista.fn:
            lista.append(f"{donde}: su verdad usa {verdad.fn.__name__}, no la de la vista ({vista.fn.__name__})")
            continue
        for nombre, valor in verdad.cambio.items():
            c = controles.get(nombre)
            if c is None or not _alcanzable(c, valor):
                etiqueta = getattr(c, "label", None) or nombre
                lista.append(f"{donde}: el cambio {nombre} = {valor!r} no se puede hacer con el control «{etiqueta}»")
        if calcular:
            revelada, vista_abierta = como_cifras(verdad()), como_cifras(verdad(apertura(vista)))
            if revelada != vista_abierta:
                lista.append(
                    f"{donde}: revela {revelada['respuesta']!r}, pero la pestaña abierta como la abren sus controles "
                    f"muestra {vista_abierta['respuesta']!r} tras el mismo cambio ({dict(verdad.cambio)}): "
                    f"los valores por omisión de {vista.fn.__name__} no son los de los controles"
                )
    return lista


def armar_aprender(vista: Vista, prefijo: str) -> None:
    """Predicción, preguntas y ruta de la pestaña `prefijo`, en el contexto de su página."""
    aprender: Aprender | None = getattr(vista, "aprender", None)
    rotas = faltas(vista)
    if rotas:
        raise ValueError(f"«{prefijo}»: " + "; ".join(rotas))
    con_prediccion = aprender is not None and aprender.prediccion is not None
    if con_prediccion:
        _prediccion(aprender.prediccion, vista, prefijo)
    if aprender is not None and aprender.preguntas:
        _preguntas(aprender.preguntas, prefijo)
    if prefijo in POR_ID:
        gr.HTML(
            html_ruta(POR_ID[prefijo], con_prediccion),
            elem_id=f"{prefijo}-ruta",
            elem_classes=["aprender", "ruta-bloque"],
            js_on_load=JS_RUTA,
        )
