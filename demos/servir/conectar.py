"""Lo que une una pestaña a la página: el evento público, la vista inicial, la URL y las descargas.

`app.py` llama a `conectar` y a `vista_inicial` con la `Vista` que devuelve el `construir()` de
cada pestaña; las pestañas no importan este módulo. Los valores de la URL no son de fiar: se
convierten al tipo de cada control y lo que no encaja se ignora con un aviso.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import gradio as gr

from demos.comun.barrido import barrer, paquetes_de
from demos.comun.figuras import numero
from demos.comun.figuras.componente import Figura
from demos.comun.vista import Vista, envolver, error_en_espanol, salidas_para_gradio, un_reloj
from demos.servir.aprender import armar_aprender
from demos.servir.pagina import avisar_url

MAX_TEXTO_URL = 500  # un valor de la URL más largo se ignora


# --- valores que llegan por la URL ---------------------------------------------------------------


def valor_desde_url(componente: Any, texto: str) -> Any:
    """Convierte un valor de la URL al tipo del componente, o da ValueError en español."""
    if len(texto) > MAX_TEXTO_URL:
        raise ValueError(f"es más largo que {MAX_TEXTO_URL} caracteres")
    if isinstance(componente, gr.Checkbox):
        if texto.lower() in {"1", "true", "si", "sí", "on"}:
            return True
        if texto.lower() in {"0", "false", "no", "off"}:
            return False
        raise ValueError("debe ser 1 o 0")
    if isinstance(componente, gr.Slider | gr.Number):
        try:
            x = float(texto.replace(",", "."))
        except ValueError:
            raise ValueError("no es un número") from None
        if not math.isfinite(x):
            raise ValueError("no es un número finito")
        lo = getattr(componente, "minimum", None)
        hi = getattr(componente, "maximum", None)
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            raise ValueError(f"debe estar entre {numero(lo, ',g')} y {numero(hi, ',g')}")
        # Entero solo si el control lo es: un Number sin `precision` trae step=1 y aun así es decimal.
        entero = componente.precision == 0 if isinstance(componente, gr.Number) else componente.step == 1
        return round(x) if entero else x
    if isinstance(componente, gr.Radio | gr.Dropdown):
        opciones = [c[1] if isinstance(c, tuple | list) else c for c in componente.choices]
        for opcion in opciones:  # la URL trae texto; la opción puede ser un número
            if str(opcion) == texto:
                return opcion
        raise ValueError("debe ser una de: " + ", ".join(map(str, opciones)))
    return texto


def aplicar_url(vista: Vista, parametros: dict[str, str], valores: list) -> tuple[list, list[str]]:
    """Los valores de las entradas con los ajustes válidos de la URL, y los avisos de los que no."""
    valores = list(valores)
    avisos = []
    for nombre, texto in parametros.items():
        if nombre not in vista.url:
            continue
        i = next(k for k, c in enumerate(vista.entradas) if c is vista.url[nombre])
        try:
            valores[i] = valor_desde_url(vista.url[nombre], texto)
        except ValueError as e:
            avisos.append(f"«{nombre}={texto[:40]}» se ignoró: {e}.")
    return valores, avisos


CONTROLES = "controles"  # ?controles=w,L: solo esos controles de la URL se ven (los demás, ocultos con su valor)


def controles_visibles(vista: Vista, parametros: dict[str, str]) -> tuple[set[str] | None, list[str]]:
    """Los nombres de la URL cuyos controles se ven con `?controles=` (None: todos, sin el ajuste), y los avisos.

    Para una diapositiva: media diapositiva junto a un texto no tiene lugar para los cinco deslizadores de
    variantes; con `?controles=w` queda el de la ventana, y la figura entra. Los ocultos conservan su valor (el
    de la URL o el de siempre) y se siguen mandando: siguen en la página, con una clase que los oculta.
    `?controles=` vacío: ninguno, solo la figura. Un nombre que no es de la pestaña se ignora con un aviso que
    dice cuáles hay."""
    texto = parametros.get(CONTROLES)
    if texto is None:
        return None, []
    if len(texto) > MAX_TEXTO_URL:
        return None, [f"«{CONTROLES}=…» se ignoró: es más largo que {MAX_TEXTO_URL} caracteres."]
    pedidos = [n.strip() for n in texto.split(",") if n.strip()]
    desconocidos = [n for n in pedidos if n not in vista.url]
    avisos = []
    if desconocidos:
        nombres = ", ".join(f"«{n[:40]}»" for n in desconocidos[:3]) + (" y más" if len(desconocidos) > 3 else "")
        hay = ", ".join(vista.url)
        avisos.append(f"En «{CONTROLES}=», {nombres} no es un control de esta pestaña; se ignoró (hay: {hay}).")
    return {n for n in pedidos if n in vista.url}, avisos


def _controles_por_nombre(vista: Vista) -> list[tuple[str, list]]:
    """Cada nombre de la URL con lo que se ve de su control: el control y lo que lo escribe desde el navegador (el
    deslizador de un `Barrido` con `entrada`, como log T para T, y los botones que saltan a una parada)."""
    grupos = []
    for nombre, c in vista.url.items():
        componentes = [c]
        for b in vista.barridos:
            if c is b.entrada or c is b.control:
                componentes += [x for x in (b.control,) if x is not c] + [boton for boton, _ in b.atajos]
        grupos.append((nombre, componentes))
    return grupos


def acompanantes(vista: Vista) -> list:
    """Lo que `?controles=` oculta con un control de la URL y no es una entrada (log T, los botones «d = 64»): la
    carga de la página los suma a sus salidas."""
    entradas = {id(c) for c in vista.entradas}
    return [x for _, componentes in _controles_por_nombre(vista) for x in componentes if id(x) not in entradas]


def ocultar_controles(vista: Vista, parametros: dict[str, str], entradas: list) -> tuple[list, list]:
    """Al abrir, con `?controles=`: los controles que no nombra, ocultos (`_oculto`: siguen en la página y mandan su
    valor). `entradas`: lo que la carga manda a cada entrada (`vista_inicial`). -> (esas mismas, las
    ocultas con su valor si la URL lo cambió; una actualización por cada uno de `acompanantes(vista)`). Va en la
    misma carga que la vista: un `load` aparte era un queue/join más al abrir cada página, con o sin el ajuste."""
    visibles, avisos = controles_visibles(vista, parametros)
    for aviso in avisos:
        avisar_url(aviso, parametros)
    ocultos = {
        id(x) for n, cs in _controles_por_nombre(vista) for x in cs if visibles is not None and n not in visibles
    }
    entradas = [
        (_oculto(c) if u == gr.skip() else _oculto(c) | {"value": u}) if id(c) in ocultos else u
        for c, u in zip(vista.entradas, entradas, strict=True)
    ]
    return entradas, [_oculto(x) if id(x) in ocultos else gr.skip() for x in acompanantes(vista)]


OCULTO_POR_LA_URL = "oculto-por-la-url"  # base.css: display: none


def _oculto(componente) -> dict:
    """El componente oculto por `?controles=`, con una clase y no con `visible`: una pestaña que muestra un control
    según otro (máscara causal: w solo con la ventana) cambia su `visible`, y lo volvía a mostrar. Sigue en la
    página y manda su valor."""
    clases = componente.elem_classes or []
    return gr.update(elem_classes=[*([clases] if isinstance(clases, str) else clases), OCULTO_POR_LA_URL])


# --- vista inicial y descargas --------------------------------------------------------------------

_cache_inicial: dict[str, tuple] = {}
_cerrojo_inicial = threading.Lock()
# En cada figura que ya trae la vista inicial en la configuración de la página: con qué entradas se calculó.
EN_LA_PAGINA = "valores_en_la_pagina"


def _calcular(vista: Vista, valores: list) -> tuple:
    """Las salidas de la página (`Vista.salidas_de_pagina`): la vista y, si tiene barridos, sus paquetes."""
    resultado = vista.fn(*valores)
    return (*salidas_para_gradio(resultado), *paquetes_de(vista, valores, resultado))


def _guardada(clave: str, vista: Vista, valores: list) -> tuple:
    """La vista inicial sin ajustes de la URL: la misma para todos, calculada una vez por proceso."""
    with _cerrojo_inicial:
        guardada = _cache_inicial.get(clave)
    if guardada is None:
        try:
            guardada = _calcular(vista, valores)
        except Exception as e:
            raise error_en_espanol(e, clave) from None
        with _cerrojo_inicial:
            _cache_inicial[clave] = guardada
    return guardada


def vista_inicial(
    clave: str, vista: Vista, parametros: dict[str, str], valores: list, avisar: bool = True
) -> tuple[list, tuple]:
    """(valores de las entradas, salidas) al abrir la pestaña, con los ajustes de la URL aplicados.

    Sin ajustes, la vista es la misma para todos: se calcula una vez por proceso, y las figuras
    que ya llegaron con la página (`figuras_en_la_pagina`) no se vuelven a mandar ni a dibujar.
    `avisar`: si los ajustes que no sirven se avisan (no, si otro evento con los mismos ya lo hace).
    """
    valores_url, avisos = aplicar_url(vista, parametros, valores)
    for aviso in avisos if avisar else ():
        avisar_url(aviso, parametros)  # en modo presentación, hasta que se cierra
    if valores_url != list(valores):
        try:
            return _cambiadas(valores_url, valores), _calcular(vista, valores_url)
        except ValueError as e:
            if avisar:
                avisar_url(f"Los ajustes de la URL se ignoraron: {e}", parametros)
    guardada = _guardada(clave, vista, list(valores))
    ya = [getattr(c, EN_LA_PAGINA, None) == list(valores) for c in vista.salidas_de_pagina]
    return _cambiadas(valores, valores), tuple(gr.skip() if y else v for y, v in zip(ya, guardada, strict=True))


def _cambiadas(nuevos: list, valores: list) -> list:
    """Solo se mandan las entradas que la URL cambió: volver a mandar la de un lienzo (su mismo valor) le hacía
    disparar `input` a veces, y CBAM pasaba a «mi dibujo» con el lienzo vacío: figura vacía al abrir."""
    return [n if n != v else gr.skip() for n, v in zip(nuevos, valores, strict=True)]


def figuras_en_la_pagina(clave: str, vista: Vista) -> None:
    """Pone las figuras de la vista inicial en la configuración de la página, antes de montarla.

    Así la página llega con sus figuras y el navegador las dibuja al abrirla, sin esperar al
    evento `load` (issue 22: la primera figura). Los textos y tablas siguen llegando con `load`:
    su cambio es el que dispara lo que se llena al abrir (`llenar_al_abrir`). Si el cálculo falla,
    la página queda como antes: `load` calcula y avisa.
    """
    valores = [c.value for c in vista.entradas]
    try:
        guardada = _guardada(clave, vista, valores)
    except gr.Error:
        return
    for componente, valor in zip(vista.salidas_de_pagina, guardada, strict=True):
        if isinstance(componente, Figura | gr.JSON) and valor is not None:  # las figuras y los paquetes
            valor = componente.postprocess(valor)
            componente.value = valor.model_dump() if hasattr(valor, "model_dump") else valor
            setattr(componente, EN_LA_PAGINA, valores)


def conectar(vista: Vista, api_name: str, prefijo: str) -> None:
    """El evento público de la pestaña y su botón de descargas (dentro del contexto de Blocks).

    También da ids estables en la página a los controles de la URL (`<prefijo>-<nombre>`) y a
    las figuras (`<prefijo>-figura<k>`): las pruebas de navegador y el CSS los encuentran así.
    """
    for nombre, componente in vista.url.items():
        componente.elem_id = componente.elem_id or f"{prefijo}-{nombre}"
    figuras = [s for s in vista.salidas if isinstance(s, Figura)]
    for k, componente in enumerate(figuras, start=1):
        componente.elem_id = componente.elem_id or f"{prefijo}-figura{k}"
        componente.elem_classes = [*(componente.elem_classes or []), "figura"]
    disparadores = vista.disparadores
    if disparadores is None:
        disparadores = []
        for c in vista.entradas:
            if isinstance(c, gr.Textbox):
                disparadores += [c.submit, c.blur]
            elif hasattr(c, "input"):
                disparadores.append(c.input)
    if vista.barridos:  # el navegador barre sus controles (demos/comun/barrido.py); el evento público, sin disparadores
        barrer(vista, disparadores)
        gr.on([], envolver(vista.fn), vista.entradas, vista.salidas, api_name=api_name, **un_reloj(vista.salidas))
    else:
        gr.on(
            disparadores,
            envolver(vista.fn),
            inputs=vista.entradas,
            outputs=vista.salidas,
            api_name=api_name,
            trigger_mode="always_last",
            **un_reloj(vista.salidas),
        )
    armar_aprender(vista, prefijo)  # predecir, comprobarse y la ruta (demos/servir/aprender.py)
    if figuras:
        with gr.Accordion("Descargar las figuras (PNG a 220 ppp y SVG, para diapositivas)", open=False):
            with gr.Row():
                boton = gr.Button("Preparar descargas", size="sm")
                boton_html = gr.Button("HTML interactivo (funciona sin conexión)", size="sm")  # exportar (#55)
            archivos = gr.File(label="Figuras", file_count="multiple", interactive=False)

        def descargar(*valores):
            try:
                from demos.servir.descarga import exportar_figuras  # matplotlib, solo al pedir descargas

                return exportar_figuras(prefijo, vista.fn(*valores))
            except gr.Error:
                raise
            except Exception as e:
                raise error_en_espanol(e, prefijo) from None

        # Trabajo pesado (PNG a 220 ppp y SVG con matplotlib): con su cola y sus topes (servidor/admision.py).
        boton.click(
            descargar,
            inputs=vista.entradas,
            outputs=archivos,
            api_visibility="private",
            concurrency_id="descargas",
            concurrency_limit=1,
        )

        # --- exportar (#55): la vista que se ve en un HTML sin servidor; el mismo pesado «descargas» ---
        def descargar_html(*valores):
            try:
                from demos.servir.descarga import exportar_html

                return exportar_html(prefijo, vista, list(valores))
            except gr.Error:
                raise
            except Exception as e:
                raise error_en_espanol(e, prefijo) from None

        boton_html.click(
            descargar_html,
            inputs=vista.entradas,
            outputs=archivos,
            api_visibility="private",
            concurrency_id="descargas",
            concurrency_limit=1,
        )
