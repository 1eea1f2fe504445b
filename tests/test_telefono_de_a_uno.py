"""Las cabezas del clasificador en un teléfono (#37), en Chromium: una a la vez, elegida con un desplegable.

Apiladas, eran nueve mapas de ≈ 80 px de ancho en cajas altas casi vacías, y las de la fila de arriba no
llevaban las palabras de sus filas. Las capturas quedan en artefactos/capturas/telefono-cabezas-*.png.
"""

from __future__ import annotations

import pytest

from tests.ayuda_navegador import CAPTURAS, ESPERA_MS

pytestmark = pytest.mark.navegador

SEL = "#clasificador-atencion-figura2"
FRASE = ["La", "película", "no", "fue", "nada", "aburrida", "."]  # las fichas de la frase de inicio

# Lo que se ve de la figura: qué mapas se dibujan, las palabras de sus ejes, el ancho del área y el desplegable.
VISTO = """(sel) => {
  const g = document.querySelector(sel + " .js-plotly-plot");
  const textos = (eje) => [...g.querySelectorAll(`.${eje}axislayer-above text`)].filter((t) => t.checkVisibility())
    .map((t) => t.textContent);
  const encabezado = g.querySelector(".updatemenu-header text");
  return {
    mapas: g._fullData.filter((t) => t.type === "heatmap" && t.visible === true).map((t) => t.index),
    x: textos("x"),
    y: textos("y"),
    ancho: g._fullLayout._size.w,
    elegido: encabezado && encabezado.textContent,
    datos: JSON.stringify(g.data.map((t) => t.z)),
  };
}"""


@pytest.mark.parametrize("esquema", ["light", "dark"])
def test_en_un_telefono_las_cabezas_van_de_a_una_con_sus_palabras_y_la_elegida_se_queda(navegador, url_app, esquema):
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    contexto = navegador.new_context(
        viewport={"width": 390, "height": 844},
        locale="es-ES",
        has_touch=True,
        is_mobile=True,
        device_scale_factor=2,
        color_scheme=esquema,
    )
    contexto.set_default_timeout(ESPERA_MS)
    pg = contexto.new_page()
    try:
        pg.goto(url_app + "demo/clasificador-atencion/?predecir=0")
        pg.wait_for_function(f"() => document.querySelector('{SEL} .js-plotly-plot')?._fullLayout", timeout=ESPERA_MS)
        pg.locator(SEL).scroll_into_view_if_needed()
        pg.wait_for_timeout(300)
        antes = pg.evaluate(VISTO, SEL)
        pg.locator(SEL).screenshot(path=str(CAPTURAS / f"telefono-cabezas-{esquema}.png"))
        assert antes["mapas"] == [0] and antes["elegido"] == "Cabeza 1", antes
        assert antes["x"] == FRASE and antes["y"] == FRASE, antes
        assert antes["ancho"] >= 150, f"el mapa mide {antes['ancho']} px de ancho"

        pg.locator(f"{SEL} .updatemenu-header").click()
        pg.locator(f"{SEL} .updatemenu-dropdown-button").filter(has_text="Cabeza 5").click()
        pg.wait_for_timeout(300)
        elegida = pg.evaluate(VISTO, SEL)
        assert elegida["mapas"] == [4] and elegida["elegido"] == "Cabeza 5", elegida
        assert elegida["x"] == FRASE and elegida["y"] == FRASE, elegida
        pg.locator(SEL).screenshot(path=str(CAPTURAS / f"telefono-cabezas-5-{esquema}.png"))

        # Otro bloque: la figura trae otros pesos, y la cabeza elegida sigue siendo la 5.
        pg.get_by_text("bloque 2", exact=True).click()
        pg.wait_for_function(f"(antes) => ({VISTO})('{SEL}').datos !== antes", arg=elegida["datos"], timeout=ESPERA_MS)
        pg.wait_for_timeout(300)
        otro = pg.evaluate(VISTO, SEL)
        assert otro["mapas"] == [4] and otro["elegido"] == "Cabeza 5", otro
        assert otro["x"] == FRASE and otro["y"] == FRASE, otro
    finally:
        contexto.close()
