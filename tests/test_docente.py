"""La suite como la usa un docente: a 1280 px, en un navegador en inglés y proyectada (1280 × 720).

Una sola página recorre todas las pestañas con clics, grupo por grupo, y comprueba lo que
se ve: ninguna pestaña detrás de «⋯», la figura principal entera en la primera pantalla del
modo presentación y ni una palabra en inglés. El navegador va en inglés a propósito: Gradio
traduce sus propios textos al idioma del navegador, y el de un docente puede estar en inglés.

Las capturas de cada grupo quedan en artefactos/capturas/; con ATENCION_CAPTURAS_DOCS=1 se
escriben en docs/capturas/, las que muestra el README.
"""

from __future__ import annotations

import re

import pytest

from demos import GRUPOS
from tests.ayuda_navegador import boton, carpeta_capturas, fuente_figura, guardar_captura, ingles_visible

pytestmark = pytest.mark.navegador


def _id_grupo(grupo: str) -> str:
    import app

    return app._id_grupo(grupo)


def sin_menu_de_desborde(pg) -> None:
    menus = pg.locator("button[aria-label='More tabs']")
    visibles = [k for k in range(menus.count()) if menus.nth(k).is_visible()]
    assert not visibles, "hay pestañas escondidas tras «⋯»"


def caja_en_pantalla(pg, selector: str) -> dict:
    """La caja de `selector` con la página arriba del todo, y el tamaño de la ventana."""
    pg.evaluate("window.scrollTo(0, 0)")
    caja = pg.locator(selector).first.bounding_box()
    return {**caja, "ventana": pg.viewport_size}


@pytest.mark.parametrize(
    ("alto", "presentacion"), [(800, False), (720, True)], ids=["1280x800", "1280x720-presentacion"]
)
def test_todas_las_pestanas_a_la_vista_con_la_figura_y_en_espanol(navegador, url_app, alto, presentacion):
    import app

    contexto = navegador.new_context(viewport={"width": 1280, "height": alto}, locale="en-US")
    pg = contexto.new_page()
    try:
        # En clase, sin el velo de la predicción (?predecir=0): las capturas del README dejan leer la figura (la
        # página con la predicción la recorre test_pantallas a 1280 × 800).
        pg.goto(url_app + ("?presentacion=1" if presentacion else "?predecir=0"))
        primera = next(iter(GRUPOS.values()))[0]
        fuente_figura(pg, primera.id)
        fuera: list[str] = []
        for grupo, pestanas in GRUPOS.items():
            b_grupo = boton(pg, "#grupos", grupo)
            assert b_grupo.count() == 1 and b_grupo.is_visible(), f"no se ve el grupo «{grupo}»"
            b_grupo.click()
            barra = f"#{_id_grupo(grupo)} .pestanas-del-grupo"
            for k, p in enumerate(pestanas):
                b = boton(pg, barra, app._titulo(p))
                sin_menu_de_desborde(pg)
                assert b.count() == 1 and b.is_visible(), f"{p.id}: su pestaña no está en la barra de «{grupo}»"
                b.click()
                fuente_figura(pg, p.id)
                if presentacion:
                    caja = caja_en_pantalla(pg, f"#{p.id}-figura1")
                    v = caja["ventana"]
                    dentro = caja["x"] >= 0 and caja["y"] >= 0
                    dentro = dentro and caja["x"] + caja["width"] <= v["width"] + 1
                    dentro = dentro and caja["y"] + caja["height"] <= v["height"] + 1
                    if not dentro:
                        fuera.append(f"{p.id}: y={caja['y']:.0f}…{caja['y'] + caja['height']:.0f} de {v['height']}")
                assert not ingles_visible(pg), f"{p.id}: se ve en inglés {ingles_visible(pg)}"
                if k == 0:
                    pg.evaluate("window.scrollTo(0, 0)")
                    modo = "presentacion" if presentacion else "clase"
                    guardar_captura(pg, carpeta_capturas() / f"{_id_grupo(grupo)}-{modo}.png")
        assert not fuera, "la figura principal no cabe en la primera pantalla: " + "; ".join(fuera)
    finally:
        contexto.close()


def test_en_presentacion_la_explicacion_es_una_linea_que_se_abre_con_un_clic(navegador, url_app):
    contexto = navegador.new_context(viewport={"width": 1280, "height": 720}, locale="es-ES")
    pg = contexto.new_page()
    try:
        pg.goto(url_app + "?tab=escalado&presentacion=1")
        fuente_figura(pg, "escalado")
        explicacion = pg.locator("#pestana-escalado .block.explicacion").first
        plegada = explicacion.bounding_box()["height"]
        assert plegada < 60, f"la explicación plegada mide {plegada:.0f} px"
        explicacion.click()
        pg.wait_for_function(
            "(h) => document.querySelector('#pestana-escalado .block.explicacion').getBoundingClientRect().height > h",
            arg=plegada * 2,
        )
        # Las fórmulas crecen con el texto: la letra de KaTeX no queda por debajo de la de la explicación.
        tamanos = pg.evaluate(
            """() => {
              const ex = document.querySelector('#pestana-escalado .block.explicacion');
              const k = ex.querySelector('.katex');
              return [parseFloat(getComputedStyle(ex).fontSize), k ? parseFloat(getComputedStyle(k).fontSize) : null];
            }"""
        )
        if tamanos[1] is not None:
            assert tamanos[1] >= tamanos[0] - 0.5, f"KaTeX {tamanos[1]} px con el texto a {tamanos[0]} px"
    finally:
        contexto.close()


def test_las_convenciones_de_mascaras_escriben_true_en_codigo_y_multicabeza_no_se_achica(navegador, url_app):
    """Las dos cosas que el recorrido no ve: el acordeón cerrado de las convenciones (sus tablas
    escriben `True` y `1` como código, nunca un «True» suelto) y que la figura de multicabeza cabe
    en 1280 × 720 sin que el modo presentación tenga que achicarla."""
    contexto = navegador.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    pg = contexto.new_page()
    try:
        pg.goto(url_app + "?tab=mascara-causal")
        fuente_figura(pg, "mascara-causal")
        pg.get_by_text("Convenciones de máscaras", exact=False).first.click()
        codigo = pg.locator("#pestana-mascara-causal code").filter(has_text=re.compile(r"^True$"))
        codigo.first.wait_for(timeout=30_000)  # la tabla de las máscaras, llena al abrir el acordeón
        assert not ingles_visible(pg), f"se ve en inglés {ingles_visible(pg)}"

        pg.goto(url_app + "?tab=multicabeza&presentacion=1")
        fuente_figura(pg, "multicabeza")
        pg.wait_for_timeout(300)  # el ajuste corre en el cuadro siguiente
        zoom = pg.evaluate("() => document.querySelector('#multicabeza-figura1').style.zoom || '1'")
        assert float(zoom) >= 0.9, f"la figura de multicabeza se achica a {zoom}: no se leería proyectada"
    finally:
        contexto.close()
