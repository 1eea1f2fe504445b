"""Cada pestaña en un Chromium real (Debian, vía Playwright): carga, responde, avisa en español.

Recorre el registro, así que una pestaña nueva queda cubierta sin código propio. Las capturas
quedan en artefactos/capturas/ para mirarlas.
"""

from __future__ import annotations

import functools
import http.server
import re
import threading
from urllib.parse import quote

import gradio as gr
import pytest

from demos import PESTANAS
from tests.ayuda import RAIZ, puerto_libre
from tests.ayuda_navegador import CAPTURAS, ESPERA_MS, espera_cambio, fuente_figura

pytestmark = pytest.mark.navegador


def vista_de(id_: str):
    import app

    return app.vistas(app.demo)[id_]


def escribir(pg, id_: str, ajustes: dict[str, str]) -> None:
    """Escribe cada ajuste en su control, como lo haría un estudiante."""
    for nombre, valor in ajustes.items():
        c = vista_de(id_).url[nombre]
        sel = f"#{id_}-{nombre}"
        if isinstance(c, gr.Slider | gr.Number):
            caja = pg.locator(f"{sel} input[type=number]").first
            caja.fill(valor)
            caja.press("Enter")
        elif isinstance(c, gr.Radio):
            etiqueta = next((e for e, v in c.choices if str(v) == valor), valor)
            pg.locator(f"{sel} label").filter(has_text=str(etiqueta)).first.click()
        elif isinstance(c, gr.Checkbox):
            pg.locator(f"{sel} input[type=checkbox]").first.click()
        elif isinstance(c, gr.Textbox):
            caja = pg.locator(f"{sel} textarea, {sel} input").first
            caja.fill(valor)
            caja.press("Enter" if (c.lines or 1) == 1 else "Tab")
        else:
            raise AssertionError(f"{id_}: no sé escribir en un {type(c).__name__} ({nombre})")


def textos_aviso(pg) -> str:
    pg.locator("[data-testid='toast-body']").first.wait_for(timeout=ESPERA_MS)
    return " ".join(pg.locator("[data-testid='toast-body']").all_inner_texts())


def rutas(id_: str) -> list[tuple[str, str]]:
    return [("suite", f"?tab={id_}"), ("sola", f"demo/{id_}/")]


# Números que la lección imprime y que la primera figura de la pestaña escribe en sus casillas o barras.
NUMEROS_DE_LA_LECCION = {
    "a-mano": "1.41",  # q·k de la primera fila: √2
    "temperatura": "0.61",  # softmax([2, 1, 0.5, −1]) con T = 1
    "memoria": "4.00 MB",  # una matriz de 1000 × 1000 en float32
}


def trazos_y_textos(pg, id_: str) -> tuple[int, list[str]]:
    """Cuántos trazos tiene la figura de Plotly de la pestaña y qué textos se ven en ella."""
    sel = f"#{id_}-figura1 .js-plotly-plot"
    contar = "(sel) => { const g = document.querySelector(sel); return g && g.data ? g.data.length : 0; }"
    trazos = pg.evaluate(contar, sel)
    textos = pg.evaluate("(sel) => [...document.querySelectorAll(sel + ' text')].map(t => t.textContent)", sel)
    return trazos, textos


@pytest.mark.parametrize("ruta", ["suite", "sola"])
@pytest.mark.parametrize("id_", [p.id for p in PESTANAS])
def test_pestana_carga_responde_y_avisa_en_espanol(pagina, url_app, id_, ruta):
    camino = dict(rutas(id_))[ruta]
    pagina.goto(url_app + camino)
    antes = fuente_figura(pagina, id_)
    trazos, textos = trazos_y_textos(pagina, id_)
    assert trazos > 0, f"{id_}: la figura no la dibujó Plotly"
    if id_ in NUMEROS_DE_LA_LECCION:
        assert NUMEROS_DE_LA_LECCION[id_] in textos, f"{id_}: no se ve {NUMEROS_DE_LA_LECCION[id_]} en {textos[:20]}"
    explicacion = pagina.locator(".explicacion").filter(has_text=re.compile(r"\w")).first
    assert len(explicacion.inner_text().strip()) > 80, "falta la explicación en español"
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / f"{id_}-{ruta}.png"), full_page=True)

    ejemplo, invalido = vista_de(id_).ejemplos()
    escribir(pagina, id_, ejemplo)
    espera_cambio(pagina, id_, antes)

    escribir(pagina, id_, invalido)
    aviso = textos_aviso(pagina)
    assert re.search(r"debe|entre|acepta|no es|inválid", aviso), aviso
    assert not re.search(r"\bValue\b|greater than|Traceback", aviso), aviso
    assert pagina.errores == [], pagina.errores


@pytest.mark.parametrize("id_", [p.id for p in PESTANAS])
def test_ajuste_malo_en_la_url_se_ignora_con_un_aviso(pagina, url_app, id_):
    _, invalido = vista_de(id_).ejemplos()
    consulta = "&".join(f"{k}={quote(v)}" for k, v in invalido.items())
    pagina.goto(f"{url_app}demo/{id_}/?{consulta}")
    # El aviso primero: llega con `load` y se va a los 10 s, y la figura (que puede venir en la página) tarda
    # más que eso en dibujarse en una máquina cargada.
    assert re.search(r"se ignor(ó|aron)", textos_aviso(pagina))
    fuente_figura(pagina, id_)  # la página carga igual, con la vista inicial


def test_la_url_fija_un_control(pagina, url_app):
    id_ = "escalado"
    nombre, valor = "d", 512
    pagina.goto(f"{url_app}demo/{id_}/?{nombre}={valor:g}")
    fuente_figura(pagina, id_)
    caja = pagina.locator(f"#{id_}-{nombre} input[type=number]").first
    pagina.wait_for_function(
        "([sel, v]) => { const e = document.querySelector(sel); return !!e && Number(e.value) === v; }",
        arg=[f"#{id_}-{nombre} input[type=number]", float(valor)],
        timeout=ESPERA_MS,
    )
    assert float(caja.input_value()) == pytest.approx(valor)


@pytest.mark.parametrize("ruta", ["demo/variantes/?", "?tab=variantes&"])
def test_controles_en_la_url_deja_ver_solo_esos_y_los_ocultos_siguen_contando(pagina, url_app, ruta):
    """Media diapositiva: `?controles=w` deja el deslizador de la ventana; L, oculto (sigue en la página), conserva
    el 12 de la URL y cada movimiento de w lo sigue mandando (la figura sigue siendo de 12 × 12)."""
    id_ = "variantes"
    pagina.goto(f"{url_app}{ruta}controles=w,nada&L=12&presentacion=1")
    assert "«nada» no es un control de esta pestaña" in textos_aviso(pagina)
    titulo = f"#{id_}-figura1 .gtitle"
    pagina.wait_for_function(
        "(sel) => (document.querySelector(sel) || {}).textContent?.includes('12 × 12')", arg=titulo, timeout=ESPERA_MS
    )
    assert pagina.locator(f"#{id_}-w").is_visible()
    for nombre in ("L", "g", "r", "semilla"):
        assert pagina.locator(f"#{id_}-{nombre}").count() == 1, nombre  # en la página, sin verse
        assert not pagina.locator(f"#{id_}-{nombre}").is_visible(), nombre
    antes = fuente_figura(pagina, id_)
    escribir(pagina, id_, {"w": "6"})
    espera_cambio(pagina, id_, antes)
    assert "12 × 12" in pagina.locator(titulo).first.text_content()
    assert "w = 6" in " ".join(trazos_y_textos(pagina, id_)[1])
    assert pagina.errores == [], pagina.errores


@pytest.mark.parametrize("ruta", ["demo/escalado/?", "?tab=escalado&"])
def test_controles_en_la_url_oculta_tambien_lo_que_escribe_un_control_oculto(pagina, url_app, ruta):
    """Escalado con `?controles=claves`: d se oculta, y con ella el deslizador de log₂ d y los botones «d = 64» que
    la escriben (no son entradas: van en la carga como salidas de más)."""
    pagina.goto(f"{url_app}{ruta}controles=claves")
    fuente_figura(pagina, "escalado")
    pagina.wait_for_function("() => !document.querySelector('#escalado-d')?.checkVisibility()", timeout=ESPERA_MS)
    assert pagina.locator("#escalado-claves").is_visible()
    assert not pagina.get_by_role("button", name="d = 64").is_visible()
    deslizadores = pagina.evaluate(
        "() => [...document.querySelectorAll('input[type=range]')].filter((e) => "
        "e.checkVisibility()).map((e) => e.closest('.block').id)"
    )
    assert deslizadores == ["escalado-claves"]  # el de log₂ d, oculto con d
    assert pagina.errores == [], pagina.errores


@pytest.mark.parametrize(
    "consulta, se_ven",
    [("tipo=ventana&controles=tipo", {"tipo"}), ("tipo=relleno&controles=w", set()), ("tipo=ventana", None)],
)
def test_controles_en_la_url_gana_a_la_pestana_que_muestra_un_control_segun_otro(pagina, url_app, consulta, se_ven):
    """Máscara causal muestra k solo con la máscara de relleno y w solo con la de ventana (cambia su `visible`). Con
    `?controles=`, uno que no nombra sigue oculto aunque su máscara lo pida: con `visible="hidden"` volvía a verse."""
    id_ = "mascara-causal"
    pagina.goto(f"{url_app}demo/{id_}/?predecir=0&{consulta}")
    fuente_figura(pagina, id_)
    tipo = consulta.split("&")[0].split("=")[1]
    pagina.locator(f"#{id_}-tipo input[value='{tipo}']:checked").wait_for(state="attached", timeout=ESPERA_MS)
    pagina.wait_for_timeout(1000)  # lo que dispara el cambio de la máscara
    visibles = {n for n in ("frase", "tipo", "k", "w", "semilla") if pagina.locator(f"#{id_}-{n}").is_visible()}
    if se_ven is None:  # sin el ajuste, la pestaña decide: w con la ventana
        assert visibles == {"frase", "tipo", "w", "semilla"}, visibles
    else:
        assert visibles == se_ven, (tipo, visibles)
    assert pagina.errores == [], pagina.errores


def test_tab_en_la_url_abre_esa_pestana(pagina, url_app):
    id_ = PESTANAS[-1].id
    pagina.goto(f"{url_app}?tab={id_}")
    fuente_figura(pagina, id_)
    assert pagina.locator(f"#pestana-{id_}").is_visible()


def test_un_clic_antes_de_la_respuesta_de_la_carga_no_se_deshace_con_tab_en_la_url(pagina, url_app):
    """Con `?tab=`, el estudiante elige otro grupo antes de que llegue la respuesta de la carga de la página: su
    elección se queda (antes, la respuesta volvía a elegir la pestaña de la URL). La carga sí llena la pestaña
    pedida. Las llamadas a la cola se retienen hasta después del clic."""
    id_ = PESTANAS[-1].id
    primero, ultimo = PESTANAS[0].grupo, PESTANAS[-1].grupo
    assert primero != ultimo
    retenidas, soltar = [], []
    pagina.route("**/queue/join*", lambda r: r.continue_() if soltar else retenidas.append(r))
    pagina.goto(f"{url_app}?tab={id_}")
    elegida = "() => document.querySelector('#grupos [role=tab][aria-selected=true]')?.textContent.trim()"
    # El navegador elige la pestaña de la URL sin esperar al servidor (ninguna llamada respondió todavía).
    pagina.wait_for_function(f"(g) => ({elegida})() === g", arg=ultimo, timeout=ESPERA_MS)
    assert pagina.locator(f"#pestana-{id_}").is_visible()
    pagina.get_by_role("tab", name=primero, exact=True).click()
    pagina.wait_for_function(f"(g) => ({elegida})() === g", arg=primero, timeout=ESPERA_MS)
    assert retenidas, "la página no mandó la carga"
    soltar.append(True)
    for r in retenidas:
        r.continue_()
    # La respuesta de la carga llena la pestaña pedida (su primera figura) y no cambia la elección.
    pagina.wait_for_function(
        "(id) => { const g = document.querySelector(`#${id}-figura1 .figura-propia`);"
        " return !!(g && window.__suite.estado(g).texto); }",
        arg=id_,
        timeout=ESPERA_MS,
    )
    pagina.wait_for_timeout(500)
    assert pagina.evaluate(elegida) == primero
    assert not pagina.errores, pagina.errores


def test_modo_presentacion_quita_cabecera_y_pie(pagina, url_app):
    id_ = "escalado"
    pagina.goto(f"{url_app}demo/{id_}/")
    fuente_figura(pagina, id_)
    assert pagina.locator("#cabecera").is_visible()
    pagina.goto(f"{url_app}demo/{id_}/?presentacion=1")
    fuente_figura(pagina, id_)
    assert pagina.locator("html.presentacion").count() == 1
    assert not pagina.locator("#cabecera").is_visible()
    assert not pagina.locator("footer").first.is_visible()
    pagina.screenshot(path=str(CAPTURAS / f"{id_}-presentacion.png"))


@pytest.fixture(scope="module")
def url_otro_origen():
    """docs/ servido desde otro puerto: otro origen, como una diapositiva real."""
    manejador = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(RAIZ / "docs"))
    servidor = http.server.ThreadingHTTPServer(("127.0.0.1", puerto_libre()), manejador)
    threading.Thread(target=servidor.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{servidor.server_address[1]}/"
    servidor.shutdown()


def test_pagina_de_otro_origen_incrusta_dos_pestanas(pagina, url_app, url_otro_origen):
    pagina.goto(f"{url_otro_origen}diapositivas.html?base={url_app.rstrip('/')}")
    marcos = pagina.locator("iframe[data-ruta]")
    assert marcos.count() == 2
    for k in range(2):
        marco = marcos.nth(k)
        marco.scroll_into_view_if_needed()
        ruta = marco.get_attribute("data-ruta")
        id_ = ruta.split("/")[2]
        interior = pagina.frame_locator(f"iframe[data-ruta='{ruta}']")
        figura = interior.locator(f"#{id_}-figura1 .js-plotly-plot, #{id_}-figura1 img").first
        figura.wait_for(state="attached", timeout=ESPERA_MS)
        figura.scroll_into_view_if_needed(timeout=ESPERA_MS)  # las imágenes cargan al verse (loading=lazy)
        figura.wait_for(state="visible", timeout=ESPERA_MS)
        assert interior.locator("html.presentacion").count() == 1
    pagina.screenshot(path=str(CAPTURAS / "diapositivas.png"), full_page=True)
