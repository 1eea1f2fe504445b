"""El archivo exportado en Chromium, abierto desde file:// con toda la red cortada (issue 55).

Como lo mide la comprobación del issue: se arrastra el deslizador barrido, se cuentan las figuras distintas que se
dibujan y se mira que ningún pedido salga de la página, en modo claro y oscuro, a 1280 y a 390 px; también el
archivo que da el botón «HTML interactivo» de la app. Las capturas quedan en artefactos/capturas/.
"""

from __future__ import annotations

import pytest

from demos.servir.exportar import orden
from tests.ayuda_navegador import ESPERA_MS, RUIDO, carpeta_capturas

pytestmark = pytest.mark.navegador

# El texto de lo que muestra la primera figura (la viva o su instantánea): títulos, ejes, números de casillas.
FIRMA = """(id) => [...document.querySelectorAll('#' + id + ' .main-svg')].map((s) => s.textContent).join('|')"""


def abrir(navegador, archivo, esquema: str, ancho: int, alto: int = 900, consulta: str = ""):
    """El archivo en una página nueva, con cada pedido que no es file:// cortado y anotado."""
    contexto = navegador.new_context(viewport={"width": ancho, "height": alto}, color_scheme=esquema, locale="es-ES")
    pg = contexto.new_page()
    pg.fuera, pg.errores = [], []

    def cortar(ruta):
        if ruta.request.url.startswith("file:"):
            ruta.continue_()
        else:
            pg.fuera.append(ruta.request.url)
            ruta.abort()

    pg.route("**/*", cortar)
    pg.on("console", lambda m: m.type == "error" and not RUIDO.search(m.text) and pg.errores.append(m.text))
    pg.on("pageerror", lambda e: pg.errores.append(str(e)))
    pg.goto(archivo.as_uri() + consulta)
    return pg


def arrastrar(pg, id_: str) -> set[str]:
    """Arrastra el primer deslizador de punta a punta con el ratón; las firmas de la primera figura en el camino."""
    rango = pg.locator("input[type=range]").first
    rango.scroll_into_view_if_needed()
    caja = rango.bounding_box()
    y = caja["y"] + caja["height"] / 2
    firmas = {pg.evaluate(FIRMA, f"{id_}-figura1")}
    pg.mouse.move(caja["x"] + 2, y)
    pg.mouse.down()
    for k in range(25):
        pg.mouse.move(caja["x"] + 2 + (caja["width"] - 4) * k / 24, y)
        pg.wait_for_timeout(60)
        firmas.add(pg.evaluate(FIRMA, f"{id_}-figura1"))
    pg.mouse.up()
    return firmas


def dibujada(pg, id_: str) -> None:
    pg.wait_for_function(
        "(id) => { const g = document.querySelector('#' + id + ' .js-plotly-plot'); return g?.data?.length > 0 }",
        arg=f"{id_}-figura1",
        timeout=ESPERA_MS,
    )


@pytest.mark.parametrize(("esquema", "ancho"), [("light", 1280), ("dark", 390)])
@pytest.mark.parametrize(
    ("id_", "minimo"), [("temperatura", 15), ("escalado", 8), ("generacion", 5), ("mascara-causal", 3)]
)
def test_el_archivo_se_arrastra_sin_red(navegador, tmp_path, id_, minimo, esquema, ancho):
    archivo = tmp_path / f"{id_}.html"
    archivo.write_text(orden.exportar_id(id_, {}), encoding="utf-8")
    pg = abrir(navegador, archivo, esquema, ancho)
    dibujada(pg, id_)
    assert pg.evaluate("() => document.body.classList.contains('dark')") is (esquema == "dark")
    if ancho < 640:  # sin barra horizontal: la página cabe en el teléfono
        assert pg.evaluate("() => document.documentElement.scrollWidth") <= ancho + 1
    firmas = arrastrar(pg, id_)
    pg.wait_for_timeout(700)  # la figura viva vuelve tras la calma
    pg.screenshot(path=str(carpeta_capturas() / f"exportado-{id_}-{esquema}-{ancho}.png"))
    assert len(firmas) >= minimo, f"{len(firmas)} figuras distintas al arrastrar"
    assert pg.fuera == [] and pg.errores == [], (pg.fuera, pg.errores)
    pg.context.close()


def test_valores_al_pasar_el_puntero_proyector_y_boton_de_modo(navegador, tmp_path):
    archivo = tmp_path / "temperatura.html"
    archivo.write_text(orden.exportar_id("temperatura", {"T": "0.5"}), encoding="utf-8")
    pg = abrir(navegador, archivo, "light", 1280, 720, consulta="?presentacion=1")
    dibujada(pg, "temperatura")
    assert pg.evaluate("() => document.documentElement.classList.contains('presentacion')")
    assert "T = 0.5" in pg.evaluate(FIRMA, "temperatura-figura1")
    caja = pg.locator("#temperatura-figura1 .bars .point path").first.bounding_box()
    pg.mouse.move(caja["x"] + caja["width"] / 2, caja["y"] + caja["height"] / 2)  # sobre la barra (la capa de Plotly)
    pg.locator("#temperatura-figura1 .hoverlayer .hovertext").first.wait_for(timeout=ESPERA_MS)
    pg.get_by_role("button", name="Modo oscuro").click()
    assert pg.evaluate("() => document.body.classList.contains('dark')")
    pg.wait_for_timeout(300)
    pg.screenshot(path=str(carpeta_capturas() / "exportado-temperatura-proyector-oscuro.png"))
    assert pg.fuera == [] and pg.errores == [], (pg.fuera, pg.errores)
    pg.context.close()


def test_una_pestana_sin_barridos_muestra_sus_figuras_y_sus_controles_desactivados(navegador, tmp_path):
    archivo = tmp_path / "inversion.html"
    archivo.write_text(orden.exportar_id("inversion-digitos", {"digitos": "12345678"}), encoding="utf-8")
    pg = abrir(navegador, archivo, "dark", 390, 844)
    dibujada(pg, "inversion-digitos")
    campo = pg.locator("textarea[data-entrada='0']")
    assert campo.is_disabled() and campo.input_value() == "12345678"
    enlace = pg.get_by_role("link", name="la pestaña en vivo", exact=True)
    assert enlace.get_attribute("href").endswith("/demo/inversion-digitos/?digitos=12345678")
    assert pg.fuera == [] and pg.errores == [], (pg.fuera, pg.errores)
    pg.context.close()


def test_el_archivo_del_boton_de_la_app_se_arrastra_sin_red(navegador, url_app, tmp_path):
    """En /demo/temperatura/?T=0.5, «HTML interactivo (funciona sin conexión)» da un archivo con T = 0.5 que se
    arrastra desde file:// sin red, en claro y en oscuro a 390 px."""
    contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    app = contexto.new_page()
    app.goto(f"{url_app}demo/temperatura/?T=0.5&predecir=0")
    dibujada(app, "temperatura")
    # La primera figura llega con la página (T = 1) y la de la URL con `load`: con la máquina cargada, pulsar antes
    # exportaba la vista de T = 1 (CI). Se espera a que la app muestre lo que se va a exportar.
    app.wait_for_function(f"(id) => ({FIRMA})(id).includes('T = 0.5')", arg="temperatura-figura1", timeout=ESPERA_MS)
    app.get_by_text("Descargar las figuras").first.click()
    app.get_by_role("button", name="HTML interactivo (funciona sin conexión)").click()
    enlace = app.locator("a[href$='-html-interactivo-sin-conexion.html']").first
    enlace.wait_for(timeout=ESPERA_MS)
    archivo = tmp_path / "descargado.html"
    archivo.write_bytes(app.request.get(enlace.get_attribute("href")).body())
    contexto.close()
    for esquema, ancho in (("light", 1280), ("dark", 390)):
        pg = abrir(navegador, archivo, esquema, ancho)
        dibujada(pg, "temperatura")
        assert "T = 0.5" in pg.evaluate(FIRMA, "temperatura-figura1")
        firmas = arrastrar(pg, "temperatura")
        assert len(firmas) >= 15 and pg.fuera == [] and pg.errores == [], (len(firmas), pg.fuera, pg.errores)
        pg.screenshot(path=str(carpeta_capturas() / f"exportado-descarga-{esquema}-{ancho}.png"))
        pg.context.close()


def test_el_mazo_reveal_incrusta_los_archivos_sin_servidor(navegador, tmp_path):
    """docs/sin-conexion.html desde file://, con reveal.js de node_modules/ y tres archivos exportados: la pestaña
    de la segunda diapositiva se dibuja y se arrastra sin red, y tras un clic en ella ArrowRight avanza el mazo."""
    import shutil

    from tests.ayuda import RAIZ

    if not (RAIZ / "node_modules" / "reveal.js" / "dist" / "reveal.js").exists():
        pytest.fail("Falta reveal.js en node_modules/: `make npm`.")
    docs = tmp_path / "docs"
    (docs / "exportados").mkdir(parents=True)
    for nombre in ("sin-conexion.html", "teclas-del-mazo.js"):
        shutil.copy(RAIZ / "docs" / nombre, docs / nombre)
    (tmp_path / "node_modules").symlink_to(RAIZ / "node_modules")
    ajustes = {"temperatura": {"T": "0.5"}, "mascara-causal": {"tipo": "ventana"}, "generacion": {}}
    for id_, parametros in ajustes.items():
        (docs / "exportados" / f"{id_}.html").write_text(orden.exportar_id(id_, parametros), encoding="utf-8")
    pg = abrir(navegador, docs / "sin-conexion.html", "light", 1280, 800)
    pg.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=ESPERA_MS)
    pg.evaluate("() => Reveal.slide(1)")
    marco = pg.frame_locator("iframe[title^='Temperatura']")
    marco.locator("#temperatura-figura1 .js-plotly-plot .main-svg").first.wait_for(timeout=ESPERA_MS)
    pg.wait_for_timeout(500)
    pg.screenshot(path=str(carpeta_capturas() / "exportado-mazo-temperatura.png"))
    marco.locator("h1").click()  # el foco, en la pestaña (no en su deslizador)
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("() => Reveal.getIndices().h === 2", timeout=ESPERA_MS)
    assert pg.fuera == [] and pg.errores == [], (pg.fuera, pg.errores)
    pg.context.close()


def test_una_lista_de_opciones_barrida_cambia_la_figura_sin_red(navegador, tmp_path):
    """Parches ViT: P es una lista de opciones barrida; elegir 8 pone la vista de P = 8 (240 parches) sin red."""
    archivo = tmp_path / "parches.html"
    archivo.write_text(orden.exportar_id("parches-vit", {}), encoding="utf-8")
    pg = abrir(navegador, archivo, "dark", 390, 844)
    dibujada(pg, "parches-vit")
    assert "60 parches de 16 × 16" in pg.evaluate(FIRMA, "parches-vit-figura1")
    pg.get_by_role("radio", name="8").check()
    pg.wait_for_function(f"() => ({FIRMA})('parches-vit-figura1').includes('240 parches de 8 × 8')", timeout=ESPERA_MS)
    assert pg.fuera == [] and pg.errores == [], (pg.fuera, pg.errores)
    pg.context.close()


def test_una_seccion_barrida_de_la_pestana_tambien_se_arrastra(navegador, tmp_path):
    """Inversión de dígitos: su vista no tiene barridos, pero «Mira cómo aprende» (una `Seccion`) sí; con los dígitos
    de siempre, sus 11 instantáneas van en el archivo y su deslizador cambia el mapa y el texto, sin red."""
    archivo = tmp_path / "inversion.html"
    archivo.write_text(orden.exportar_id("inversion-digitos", {}), encoding="utf-8")
    pg = abrir(navegador, archivo, "light", 1280)
    dibujada(pg, "inversion-digitos")
    rango = pg.locator(".seccion input[type=range]")
    assert rango.count() == 1
    caja = (rango.scroll_into_view_if_needed(), rango.bounding_box())[1]
    y = caja["y"] + caja["height"] / 2
    firmas = set()
    pg.mouse.move(caja["x"] + caja["width"] - 2, y)
    pg.mouse.down()
    for k in range(21):
        pg.mouse.move(caja["x"] + caja["width"] - 2 - (caja["width"] - 4) * k / 20, y)
        pg.wait_for_timeout(60)
        firmas.add(pg.evaluate(FIRMA, "inversion-digitos-figura2"))
    pg.mouse.up()
    assert len(firmas) >= 8, len(firmas)
    assert pg.fuera == [] and pg.errores == [], (pg.fuera, pg.errores)
    pg.context.close()
