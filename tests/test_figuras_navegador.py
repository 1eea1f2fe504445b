"""Las figuras en Chromium (figuras.mjs): modo oscuro, teléfono, proyector y un iframe que carga oculto.

Una app por módulo (`url_app`, de la sesión) y una página por caso; las capturas quedan en
artefactos/capturas/figuras-*.png para mirarlas.
"""

from __future__ import annotations

import contextlib
import http.server
import threading

import pytest

from tests.ayuda import puerto_libre
from tests.ayuda_navegador import CAPTURAS, ESPERA_MS, QUIETA, QUIETA_MS, textos_que_se_solapan

pytestmark = pytest.mark.navegador

LISTA = "(sel) => document.querySelector(sel + ' .js-plotly-plot')?._fullLayout"

# Las cajas de texto de una figura de Plotly (títulos, marcas, números de casillas y barras, leyenda).
CAJAS = r"""(sel) => [...document.querySelectorAll(sel + ' .js-plotly-plot text')]
  .filter((t) => t.textContent.trim() && t.getBBox().width > 0 && getComputedStyle(t).opacity !== '0')
  // una marca inclinada ocupa su diagonal: su caja derecha se cruza con la vecina sin que las letras se toquen
  .filter((t) => !/rotate\((?!0)/.test(t.getAttribute('transform') || ''))
  .map((t) => { const r = t.getBoundingClientRect();
    return {texto: t.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom,
            letra: parseFloat(getComputedStyle(t).fontSize) * (t.closest('[style*=zoom]') ?
              parseFloat(t.closest('[style*=zoom]').style.zoom) || 1 : 1)}; })"""


def _abrir(navegador, url: str, id_: str, **contexto):
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    ctx = navegador.new_context(locale="es-ES", **contexto)
    pg = ctx.new_page()
    pg.goto(url)
    pg.wait_for_function(LISTA, arg=f"#{id_}-figura1", timeout=ESPERA_MS)
    pg.wait_for_timeout(500)
    return pg


def _luminancia(rgb: str) -> float:
    r, g, b = (int(float(x)) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _solapadas(cajas: list[dict], holgura: float = 1.0) -> list[tuple[str, str]]:
    malas = []
    for i, a in enumerate(cajas):
        for b in cajas[i + 1 :]:
            ancho = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            alto = min(a["y1"], b["y1"]) - max(a["y0"], b["y0"])
            if ancho > holgura and alto > holgura:
                malas.append((a["texto"], b["texto"]))
    return malas


def test_en_modo_oscuro_el_papel_es_el_de_la_pagina(navegador, url_app):
    pg = _abrir(navegador, url_app + "demo/temperatura/", "temperatura", color_scheme="dark")
    assert pg.evaluate("() => document.body.classList.contains('dark')")
    papel = pg.evaluate(
        "() => getComputedStyle(document.querySelector('#temperatura-figura1 .main-svg rect.bg')"
        " || document.querySelector('#temperatura-figura1 .main-svg')).fill"
    )
    g = "document.querySelector('#temperatura-figura1 .js-plotly-plot')._fullLayout"
    fondo, texto = pg.evaluate(f"() => [{g}.paper_bgcolor, {g}.font.color]")
    pg.locator("#temperatura-figura1").screenshot(path=str(CAPTURAS / "figuras-oscuro.png"))
    pg.context.close()
    assert _luminancia(fondo) < 80, f"papel {fondo} en una página oscura"
    assert _luminancia(_hex(texto) if texto.startswith("#") else texto) > 180, f"texto {texto} sobre {fondo}"
    assert papel and "255, 255, 255" not in papel


def _hex(color: str) -> str:
    c = color.lstrip("#")
    return f"rgb({int(c[0:2], 16)}, {int(c[2:4], 16)}, {int(c[4:6], 16)})"


@pytest.mark.parametrize(("id_", "figura"), [("mascara-causal", 1), ("multicabeza", 2), ("a-mano", 1)])
def test_en_un_telefono_ningun_texto_de_la_figura_pisa_otro(navegador, url_app, id_, figura):
    pg = _abrir(
        navegador, url_app + f"demo/{id_}/", id_, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    sel = f"#{id_}-figura{figura}"
    pg.wait_for_function(LISTA, arg=sel, timeout=ESPERA_MS)
    pg.locator(sel).scroll_into_view_if_needed()
    ancho = pg.evaluate(f"() => document.querySelector('{sel} .js-plotly-plot')._fullLayout.width")
    cajas = pg.evaluate(CAJAS, sel)
    pg.locator(sel).screenshot(path=str(CAPTURAS / f"figuras-telefono-{id_}.png"))
    pg.context.close()
    assert ancho <= 390 and cajas
    assert not _solapadas(cajas), f"textos que se pisan: {_solapadas(cajas)[:5]}"


def test_en_presentacion_la_letra_es_de_14_px_o_mas_y_crece_con_la_ventana(navegador, url_app):
    letras = {}
    for ancho, alto in ((1280, 720), (1920, 1080)):
        pg = _abrir(
            navegador, url_app + "demo/posicion/?presentacion=1", "posicion", viewport={"width": ancho, "height": alto}
        )
        pg.wait_for_timeout(500)
        letras[ancho] = [c["letra"] for c in pg.evaluate(CAJAS, "#posicion-figura1")]
        if ancho == 1280:
            pg.screenshot(path=str(CAPTURAS / "figuras-presentacion-1280.png"))
        pg.context.close()
    assert min(letras[1280]) >= 14, f"letra de {min(letras[1280]):.1f} px a 1280 × 720"
    assert min(letras[1920]) > min(letras[1280])


IFRAME = """<!doctype html><html><body style="margin:0">
<div id="diapositiva" style="display:none; width:1200px; height:800px">
  <iframe id="marco" src="{url}" style="width:1200px; height:800px; border:0"></iframe></div>
</body></html>"""


def test_un_iframe_que_carga_oculto_dibuja_la_figura_como_si_hubiera_cargado_visible(navegador, url_app):
    """Como una diapositiva de reveal.js que todavía no se ve: el iframe carga a 0 × 0 y luego aparece."""
    url = url_app + "demo/a-mano/"
    ctx = navegador.new_context(locale="es-ES", viewport={"width": 1200, "height": 800})
    pg = ctx.new_page()
    pg.route(url_app + "diapositiva.html", lambda r: r.fulfill(body=IFRAME.format(url=url), content_type="text/html"))
    pg.goto(url_app + "diapositiva.html")
    marco = pg.frame_locator("#marco")
    marco.locator("#a-mano-figura1").wait_for(state="attached", timeout=ESPERA_MS)
    pg.wait_for_timeout(3000)  # ya llegó la figura, oculta
    pg.evaluate("() => { document.querySelector('#diapositiva').style.display = 'block'; }")
    frame = pg.wait_for_selector("#marco", state="attached").content_frame()
    frame.wait_for_function(LISTA, arg="#a-mano-figura1", timeout=ESPERA_MS)
    pg.wait_for_timeout(800)
    oculta = frame.evaluate(_TAMANOS, "#a-mano-figura1")
    pg.screenshot(path=str(CAPTURAS / "figuras-iframe-oculto.png"))
    ctx.close()
    visible = _abrir(navegador, url, "a-mano", viewport={"width": 1200, "height": 800})
    referencia = visible.evaluate(_TAMANOS, "#a-mano-figura1")
    visible.context.close()
    assert oculta == referencia


# El tamaño del dibujo y de cada eje (con el margen que Plotly les reservó): lo que el iframe oculto dañaba.
_TAMANOS = """(sel) => { const l = document.querySelector(sel + ' .js-plotly-plot')._fullLayout;
  return [l.width, l.height, l.margin.l, l.margin.t, ...Object.keys(l).filter((k) => /^[xy]axis\\d*$/.test(k))
    .sort().map((k) => Math.round(l[k]._length))]; }"""


# Una diapositiva de reveal.js que todavía no se ve: la pestaña, de otro origen, fuera de la pantalla (reveal la
# corre 150 % a la derecha). Chromium no corre los cuadros (requestAnimationFrame) de un iframe así.
FUERA = """<!doctype html><html><body style="margin:0; overflow:hidden">
<div id="diapositiva" style="transform: translateX(150%); width:900px; height:600px">
  <iframe id="marco" src="{url}" style="width:900px; height:600px; border:0"></iframe></div>
</body></html>"""


def test_en_presentacion_un_iframe_de_otro_origen_fuera_de_la_pantalla_dibuja_como_uno_visible(navegador, url_app):
    """El proyector da a la figura la altura que cabe bajo lo que tiene arriba; disposicion.js pliega la explicación
    de arriba en un cuadro que en un iframe fuera de la pantalla no llega: al mostrarse, la altura es la de
    una figura que cargó visible."""
    url = url_app + "demo/a-mano/?presentacion=1"
    ctx = navegador.new_context(locale="es-ES", viewport={"width": 900, "height": 600})
    pg = ctx.new_page()
    with _pagina_en_otro_origen(FUERA.format(url=url)) as otro_origen:
        pg.goto(otro_origen)
        pg.frame_locator("#marco").locator("#a-mano-figura1").wait_for(state="attached", timeout=ESPERA_MS)
        pg.wait_for_timeout(1500)  # lo que dibuje fuera de la pantalla
        pg.evaluate("() => { document.querySelector('#diapositiva').style.transform = 'none'; }")
        pg.frames[1].wait_for_function(LISTA, arg="#a-mano-figura1", timeout=ESPERA_MS)
        pg.wait_for_timeout(800)
    fuera = pg.frames[1].evaluate(_TAMANOS, "#a-mano-figura1")
    ctx.close()
    visible = _abrir(navegador, url, "a-mano", viewport={"width": 900, "height": 600})
    referencia = visible.evaluate(_TAMANOS, "#a-mano-figura1")
    visible.context.close()
    assert fuera == referencia


@contextlib.contextmanager
def _pagina_en_otro_origen(html: str):
    """`html` servido en localhost (la pestaña está en 127.0.0.1: otro origen, como un mazo de verdad)."""

    class Manejador(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(html.encode())

        def log_message(self, *_):
            pass

    servidor = http.server.ThreadingHTTPServer(("127.0.0.1", puerto_libre()), Manejador)
    threading.Thread(target=servidor.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{servidor.server_address[1]}/diapositiva.html"
    finally:
        servidor.shutdown()


# Cuántas veces Plotly dibuja cada figura: cada `plotly_afterplot` de los <div> de las figuras de la página.
CONTAR_DIBUJOS = """() => { window.__dibujos = {};
  for (const g of document.querySelectorAll('.figura-propia')) {
    const id = g.closest('.block[id]').id;
    g.on('plotly_afterplot', () => { window.__dibujos[id] = (window.__dibujos[id] || 0) + 1; });
  } }"""


def test_cada_valor_nuevo_de_una_figura_se_dibuja_una_vez(navegador, url_app):
    """Gradio monta el gráfico dos veces por valor (la segunda con el mismo JSON, cientos de ms después):
    Plotly rehacía cada figura dos veces por movimiento. Máscara causal: otra semilla cambia sus dos figuras."""
    pg = _abrir(navegador, url_app + "demo/mascara-causal/", "mascara-causal", viewport={"width": 1280, "height": 800})
    # La segunda figura se dibuja después de la primera (0.5–1.5 s): se cuenta desde que están las dos.
    pg.wait_for_function("() => [...document.querySelectorAll('.figura-propia')].filter((g) => g.data).length === 2")
    pg.wait_for_timeout(1000)
    pg.evaluate(CONTAR_DIBUJOS)
    for semilla in ("2", "3"):
        pg.fill("#mascara-causal-semilla input", semilla)
        pg.wait_for_function("() => Object.keys(window.__dibujos).length === 2", timeout=ESPERA_MS)
        pg.wait_for_timeout(2500)  # la segunda vez llegaba a los 300–800 ms
        dibujos = pg.evaluate("() => { const d = window.__dibujos; window.__dibujos = {}; return d; }")
        assert dibujos == {"mascara-causal-figura1": 1, "mascara-causal-figura2": 1}, f"semilla {semilla}: {dibujos}"
    pg.context.close()


# Cuándo (performance.now) dibuja Plotly cada figura de la página, por id del bloque.
ANOTAR_DIBUJOS = """() => { window.__cuando = {};
  for (const g of document.querySelectorAll('.figura-propia')) {
    const id = g.closest('.block[id]').id;
    g.on('plotly_afterplot', () => { (window.__cuando[id] = window.__cuando[id] || []).push(performance.now()); });
  } }"""
DATOS = "(sel) => document.querySelector(sel + ' .figura-propia').data"


def _temperatura_con_tres_figuras(navegador, url_app, guion: str = ""):
    """Temperatura a 1280 × 800, con sus tres figuras dibujadas: la 3 queda más abajo, fuera de la pantalla."""
    ctx = navegador.new_context(locale="es-ES", viewport={"width": 1280, "height": 800})
    pg = ctx.new_page()
    if guion:
        pg.add_init_script(guion)
    pg.goto(url_app + "demo/temperatura/?predecir=0")
    pg.wait_for_function("() => [...document.querySelectorAll('.figura-propia')].filter((g) => g.data).length === 3")
    pg.wait_for_timeout(1000)
    assert pg.evaluate("() => document.querySelector('#temperatura-figura3').getBoundingClientRect().top") > 800
    pg.evaluate("() => { window.__antes = document.querySelector('#temperatura-figura3 .figura-propia').data; }")
    pg.evaluate(ANOTAR_DIBUJOS)
    return pg


def test_una_figura_fuera_de_la_pantalla_se_dibuja_despues_de_la_que_se_ve(navegador, url_app):
    """Otra T cambia las tres figuras de temperatura: primero se pintan las que se ven; la de abajo recibe su
    valor cuando el navegador queda libre (antes Plotly rehacía las tres en la misma tarea, y la que se ve
    esperaba a las otras)."""
    pg = _temperatura_con_tres_figuras(navegador, url_app)
    pg.fill("#temperatura-T input", "0.5")
    pg.wait_for_function("() => ['temperatura-figura1', 'temperatura-figura3'].every((id) => window.__cuando[id])")
    cuando = pg.evaluate("() => window.__cuando")
    assert pg.evaluate(DATOS, "#temperatura-figura3") != pg.evaluate("() => window.__antes")
    pg.context.close()
    assert cuando["temperatura-figura1"][0] < cuando["temperatura-figura3"][0], cuando
    assert len(cuando["temperatura-figura3"]) == 1, cuando


def test_las_figuras_que_se_ven_se_pintan_de_a_una_y_la_primera_no_espera(navegador, url_app):
    """Multicabeza a 1280 × 800: otro número de cabezas cambia sus dos figuras, las dos a la vista. La primera se
    dibuja en cuanto llega el valor y la segunda después del cuadro que pinta la primera: entre los dos dibujos
    corre un cuadro (antes Plotly rehacía las dos en la misma tarea y la primera esperaba a la segunda, la de las
    cabezas: ≈ 100 ms con 8)."""
    pg = _abrir(navegador, url_app + "demo/multicabeza/", "multicabeza", viewport={"width": 1280, "height": 800})
    pg.wait_for_function("() => [...document.querySelectorAll('.figura-propia')].filter((g) => g.data).length === 2")
    # Quieta: sin eventos pendientes (lo que la pestaña llena al abrirse), para que el único dibujo que se anote de
    # cada figura no sea uno de antes del cambio.
    pg.wait_for_function(QUIETA, arg=QUIETA_MS, polling=50)
    pg.wait_for_timeout(1000)
    abajo = pg.evaluate("() => document.querySelector('#multicabeza-figura2').getBoundingClientRect().top")
    assert abajo < 800, abajo  # las dos se ven: ninguna espera por estar fuera de la pantalla
    pg.evaluate(ANOTAR_DIBUJOS)
    # La hora en que corren las llamadas de cada cuadro: la segunda figura se dibuja en una tarea después de las
    # llamadas del cuadro que sigue a la primera, así que una de ellas queda entre los dos dibujos. (El argumento de
    # requestAnimationFrame, el comienzo del cuadro, puede ser anterior a la tarea que dibujó la primera.)
    pg.evaluate("""() => { window.__cuadros = [];
      const f = () => { window.__cuadros.push(performance.now()); requestAnimationFrame(f); };
      requestAnimationFrame(f); }""")
    pg.fill("#multicabeza-cabezas input[type=number]", "8")
    pg.wait_for_function("() => ['multicabeza-figura1', 'multicabeza-figura2'].every((id) => window.__cuando[id])")
    cuando, cuadros = pg.evaluate("() => [window.__cuando, window.__cuadros]")
    pg.context.close()
    # El primer dibujo de cada una tras el cambio (uno más, de la misma figura, no es lo que se mide aquí:
    # test_cada_valor_nuevo_de_una_figura_se_dibuja_una_vez).
    primera, segunda = cuando["multicabeza-figura1"][0], cuando["multicabeza-figura2"][0]
    assert primera < segunda, cuando
    assert any(primera < c < segunda for c in cuadros), (cuando, [c for c in cuadros if c > primera - 50][:5])


def test_una_figura_diferida_se_dibuja_al_llegar_a_la_vista(navegador, url_app):
    """Sin momentos libres (requestIdleCallback que nunca responde), la figura de abajo espera con su valor
    viejo hasta que se acerca a la vista: entonces se dibuja con el nuevo."""
    pg = _temperatura_con_tres_figuras(navegador, url_app, "window.requestIdleCallback = () => 0;")
    pg.fill("#temperatura-T input", "0.5")
    pg.wait_for_function("() => window.__cuando['temperatura-figura1']")
    pg.wait_for_timeout(1500)
    assert "temperatura-figura3" not in pg.evaluate("() => window.__cuando")
    assert pg.evaluate("() => document.querySelector('#temperatura-figura3 .figura-propia').data === window.__antes")
    diferidas = pg.evaluate(
        "() => [...document.querySelectorAll('[data-diferida]')].map((g) => g.closest('.block[id]').id)"
    )
    assert diferidas == ["temperatura-figura3"]  # lo que mira scripts/bench_navegador.py («todas sus figuras»)
    pg.locator("#temperatura-figura3").scroll_into_view_if_needed()
    pg.wait_for_function("() => window.__cuando['temperatura-figura3']")
    nuevos = pg.evaluate("() => document.querySelector('#temperatura-figura3 .figura-propia').data !== window.__antes")
    quedan = pg.evaluate("() => document.querySelectorAll('[data-diferida]').length")
    pg.context.close()
    assert nuevos
    assert quedan == 0


MARGENES = """(sel) => {
  const s = document.querySelector(sel + ' .figura-propia')._fullLayout._size;
  return [s.l, s.r, s.t, s.b];
}"""
NOMBRES_Y = "() => document.querySelector('#a-mano-figura1 .figura-propia')._fullLayout.yaxis.ticktext.join(', ')"


def test_los_margenes_no_se_achican_de_un_valor_al_siguiente(navegador, url_app):
    """A mano: los nombres del eje y son las palabras. Con una más larga el automargin de Plotly agranda el margen
    izquierdo; al volver a la corta el margen se queda (el área de dibujo no salta, y Plotly no rehace la figura
    una segunda vez en el mismo movimiento para achicarlo)."""
    pg = _abrir(navegador, url_app + "demo/a-mano/", "a-mano", viewport={"width": 1280, "height": 800})
    caja = pg.locator("#a-mano-palabras textarea").first
    antes = pg.evaluate(MARGENES, "#a-mano-figura1")
    despues = []
    for palabras in ("Ana, sacó, extraordinariamente", "Ana, sacó, plata"):
        caja.fill(palabras)
        caja.press("Enter")
        pg.wait_for_function(f"() => ({NOMBRES_Y})() === {palabras!r}", timeout=ESPERA_MS)
        pg.wait_for_timeout(300)
        despues.append(pg.evaluate(MARGENES, "#a-mano-figura1"))
    pg.screenshot(path=str(CAPTURAS / "figuras-margenes-a-mano.png"))
    assert despues[0][0] > antes[0], (antes, despues)  # la palabra larga empujó el margen izquierdo
    assert despues[1] == despues[0], (antes, despues)  # y la corta no lo achica
    pg.context.close()


SIN_RECORTE = r"""(sel) => {
  const g = document.querySelector(sel + ' .figura-propia');
  const ejes = Object.keys(g._fullLayout).filter((k) => /^[xy]axis\d*$/.test(k));
  const barras = g._fullData.filter((t) => t.showscale).map((t) => t.colorbar.ticklabeloverflow);
  return [ejes.length, ejes.filter((k) => g._fullLayout[k].ticklabeloverflow !== 'allow'), barras];
}"""


def test_la_plantilla_llega_a_cada_eje_y_a_la_barra_de_color(navegador, url_app):
    """Multicabeza, los pesos de cada cabeza: diez ejes y una barra de color, todos sin medir sus marcas contra el
    <div> (la plantilla de `pantalla_lienzo.PLANTILLA`, que Plotly aplica a xaxis2… y a la barra de un heatmap)."""
    pg = _abrir(navegador, url_app + "demo/multicabeza/", "multicabeza", viewport={"width": 1280, "height": 800})
    pg.wait_for_function(LISTA, arg="#multicabeza-figura2", timeout=ESPERA_MS)
    n, sin_plantilla, barras = pg.evaluate(SIN_RECORTE, "#multicabeza-figura2")
    assert n >= 10 and sin_plantilla == [] and barras == ["allow"], (n, sin_plantilla, barras)
    pg.context.close()


def test_una_figura_cuya_caja_cambia_de_ancho_se_vuelve_a_maquetar(navegador, url_app):
    """Una caja que cambia de ancho sin que cambie la ventana (una columna que se maqueta después, un iframe que se
    muestra con otro tamaño): la figura se vuelve a maquetar a su ancho nuevo (Plotly, con `responsive`, solo mira
    la ventana). Lo mismo que la figura del mismo ancho dibujada desde el principio."""
    pg = _abrir(navegador, url_app + "demo/escalado/", "escalado", viewport={"width": 1280, "height": 800})
    ancho = "(sel) => document.querySelector(sel + ' .js-plotly-plot')._fullLayout.width"
    antes = pg.evaluate(ancho, "#escalado-figura1")
    pg.evaluate("() => { document.querySelector('#escalado-figura1').style.width = '600px'; }")
    pg.wait_for_function(f"() => Math.abs(({ancho})('#escalado-figura1') - 600) <= 2", timeout=5_000)
    assert antes > 900
    pg.context.close()


# El área de dibujo de cada figura que se ve (px, de Plotly) y su figura (la de siempre o la de teléfono).
AREAS = """() => [...document.querySelectorAll('.figura-propia')]
  .filter((g) => g._fullLayout && g.checkVisibility({visibilityProperty: true}))
  .map((g) => [Math.round(g._fullLayout._size.w), Math.round(g._fullLayout._size.h), !!g.layout.meta.angosta])"""


ANCHA, TELEFONO = {"width": 1280, "height": 800}, {"width": 390, "height": 844}


@pytest.mark.parametrize(("desde", "hasta"), [(ANCHA, TELEFONO), (TELEFONO, ANCHA)])
def test_una_figura_que_pasa_de_la_de_siempre_a_la_de_telefono_queda_como_dibujada_desde_el_principio(
    navegador, url_app, desde, hasta
):
    """Una ventana que se achica o se agranda (una tableta que gira, una ventana partida a la mitad): la figura pasa de
    la de siempre a la de teléfono, o al revés, y queda igual que si la página hubiera cargado así. Con Plotly.react,
    lo que el automargin de los ejes de la otra figura había empujado quedaba: en máscara causal, de 1280 a 390 px,
    el primer mapa salía cortado y el área de dibujo medía −175 px de alto."""
    url = url_app + "demo/mascara-causal/?predecir=0"
    fresca = _abrir(navegador, url, "mascara-causal", viewport=hasta)
    esperadas = fresca.evaluate(AREAS)
    fresca.context.close()
    pg = _abrir(navegador, url, "mascara-causal", viewport=desde)
    antes = pg.evaluate(AREAS)
    pg.set_viewport_size(hasta)
    iguales = f"""(e) => {{ const a = ({AREAS})(); return a.length === e.length
      && a.every(([w, h, t], i) => Math.abs(w - e[i][0]) <= 2 && Math.abs(h - e[i][1]) <= 2 && t === e[i][2]); }}"""
    try:
        pg.wait_for_function(iguales, arg=esperadas, timeout=5_000)
    except Exception:
        raise AssertionError(f"{pg.evaluate(AREAS)} en vez de {esperadas}") from None
    assert [a for *_, a in antes] != [a for *_, a in esperadas]  # cambió de figura
    assert all(h > 100 for _, h, _ in esperadas), esperadas
    pg.context.close()


# Cada figura de la página: el alto de su área de dibujo y cuánto se sale su título de la caja de la figura (px).
AREAS_Y_TITULOS = """() => [...document.querySelectorAll('.figura-propia')].filter((g) => g._fullLayout).map((g) => {
  const caja = g.getBoundingClientRect();
  const t = g.querySelector('.g-gtitle text');
  const r = t ? t.getBoundingClientRect() : caja;
  return {alto: g._fullLayout._size.h, afuera: Math.max(0, caja.left - r.left, r.right - caja.right)};
})"""


@pytest.mark.parametrize(("ancho", "alto"), [(1280, 720), (1920, 1080)])
def test_en_presentacion_una_figura_de_mas_abajo_tiene_area_y_su_titulo_cabe(navegador, url_app, ancho, alto):
    """Escalado: la curva del peso máximo va en una columna angosta, más abajo de la primera pantalla. Achicada a lo
    que quedaba de pantalla (260 px con la letra del proyector), su área de dibujo medía ≈ 10 px, y su título, con la
    letra agrandada, se salía de la figura por los dos lados."""
    pg = _abrir(
        navegador,
        url_app + "demo/escalado/?presentacion=1&predecir=0",
        "escalado",
        viewport={"width": ancho, "height": alto},
    )
    dibujadas = "() => [...document.querySelectorAll('.figura-propia')].filter((g) => g._fullLayout).length"
    pg.wait_for_function(f"() => ({dibujadas})() === 3", timeout=ESPERA_MS)
    pg.wait_for_timeout(500)
    figuras = pg.evaluate(AREAS_Y_TITULOS)
    assert all(f["alto"] >= 150 for f in figuras), figuras
    assert all(f["afuera"] <= 1 for f in figuras), figuras
    pg.context.close()


# La parte de su fila que ocupa cada figura de la página: (su ancho + el hueco) / (el de la fila + el hueco).
PARTES_DE_LA_FILA = """() => [...document.querySelectorAll('.block.figura')]
  .filter((b) => b.parentElement.classList.contains('row'))
  .map((b) => {
    const fila = b.parentElement, hueco = parseFloat(getComputedStyle(fila).columnGap) || 0;
    const hijos = [...fila.children].filter((c) => c.getBoundingClientRect().width > 0);
    const total = fila.getBoundingClientRect().width - hueco * (hijos.length - 1);
    return [b.querySelector('[aria-label]').getAttribute('aria-label'), b.getBoundingClientRect().width / total];
  })"""


@pytest.mark.parametrize(
    ("id_", "etiqueta"), [("bloque", "Diagrama del bloque transformer"), ("escalado", "Peso máximo medio según d")]
)
def test_una_figura_de_scale_3_junto_a_una_columna_de_scale_2_ocupa_tres_quintos(navegador, url_app, id_, etiqueta):
    """gr.HTML no aplica `scale` a su bloque: con la figura propia (sesión 23), el diagrama del bloque quedó en un
    tercio de la fila (400 px a 1280) y sus cajas no contenían sus nombres. `Figura` lo pasa a la clase `escala-N`."""
    pg = _abrir(navegador, url_app + f"demo/{id_}/?predecir=0", id_, viewport={"width": 1280, "height": 800})
    partes = dict(pg.evaluate(PARTES_DE_LA_FILA))
    assert partes[etiqueta] == pytest.approx(3 / 5, abs=0.02), partes
    pg.context.close()


# El ángulo de los nombres del eje x de cada figura dibujada (el de Plotly, en el `transform` de cada uno): 0 si van
# derechos.
ANGULOS_DEL_EJE_X = """() => [...document.querySelectorAll('.figura-propia')].filter((g) => g._fullLayout)
  .map((g) => Math.max(0, ...[...g.querySelectorAll('.xaxislayer-above text')]
    .map((t) => (t.getAttribute('transform') || '').match(/rotate\\((-?[\\d.]+)/))
    .map((giro) => (giro ? Math.abs(parseFloat(giro[1])) : 0))))"""


CAJAS_DEL_EJE_X = """() => [...document.querySelectorAll('#temperatura-figura1 .xaxislayer-above text')].map((t) => {
  const r = t.getBoundingClientRect();
  return {texto: t.textContent, x0: r.left, x1: r.right, y0: r.top, y1: r.bottom};
})"""


def test_los_nombres_de_un_eje_x_se_inclinan_solo_si_no_caben_derechos(navegador, url_app):
    """Clasificador, 1280 × 800: las 7 palabras de la frase, en los 1 000 px del mapa de la agrupación, van derechas
    (iban a −45° por ser más de 4 y de más de 3 letras, y el título del eje quedaba entre ellas); en los ≈ 250 px de
    cada cabeza, Plotly las inclina («película» y «aburrida» se pisarían)."""
    pg = _abrir(navegador, url_app + "demo/clasificador-atencion/?predecir=0", "clasificador-atencion")
    assert pg.evaluate(ANGULOS_DEL_EJE_X)[0] == 0
    pg.locator("#clasificador-atencion-figura2").scroll_into_view_if_needed()
    pg.wait_for_function(f"() => ({ANGULOS_DEL_EJE_X})().length === 2", timeout=ESPERA_MS)
    assert pg.evaluate(ANGULOS_DEL_EJE_X)[1] == 45
    pg.context.close()


@pytest.mark.parametrize("ancho", [360, 390])
def test_en_un_telefono_los_nombres_de_las_barras_van_derechos_si_caben(navegador, url_app, ancho):
    """Temperatura en un teléfono: «plata», «sacó», «Ana», «del» caben derechas bajo sus barras (iban de lado, a
    −90°, por tener más de 3 letras); con cuatro palabras largas, de pie, sin pisarse."""
    telefono = {"viewport": {"width": ancho, "height": 844}, "has_touch": True, "is_mobile": True}
    pg = _abrir(navegador, url_app + "demo/temperatura/?predecir=0", "temperatura", **telefono)
    assert pg.evaluate(ANGULOS_DEL_EJE_X)[0] == 0
    pg.context.close()
    largas = "extraordinariamente,incomprensiblemente,desafortunadamente,responsabilidades"
    pg = _abrir(navegador, url_app + f"demo/temperatura/?predecir=0&palabras={largas}", "temperatura", **telefono)
    pg.wait_for_function(
        "() => document.querySelector('#temperatura-figura1 .xtick text')?.textContent.startsWith('extra')",
        timeout=ESPERA_MS,
    )
    assert pg.evaluate(ANGULOS_DEL_EJE_X)[0] == 90
    assert _solapadas(pg.evaluate(CAJAS_DEL_EJE_X)) == []
    pg.context.close()


# Una diapositiva oculta (display: none) con la pestaña en un iframe de 900 px; y la de referencia, visible.
OCULTA = """<!doctype html><html><body style="margin:0">
<div id="diapositiva" style="display:{display}; width:900px; height:600px">
  <iframe id="marco" src="{url}" style="width:900px; height:600px; border:0"></iframe></div>
</body></html>"""


# Los nombres derechos del eje x de cada figura que se ve (sin el taller de figuras.mjs): sus cajas, por figura.
NOMBRES_X_DERECHOS = """() => [...document.querySelectorAll('.figura-propia.js-plotly-plot')]
  .filter((g) => g.checkVisibility({visibilityProperty: true}))
  .map((g) => [...g.querySelectorAll('.xaxislayer-above text')]
    .filter((t) => !/rotate\\((?!0[,)])/.test(t.getAttribute('transform') || ''))
    .map((t) => {
      const r = t.getBoundingClientRect();
      return {texto: t.textContent, x0: r.left, x1: r.right, y0: r.top, y1: r.bottom};
    }))"""


def _solapes_en_iframe(navegador, url: str, id_: str, oculta: bool) -> tuple[dict, list]:
    ctx = navegador.new_context(locale="es-ES", viewport={"width": 960, "height": 700})
    pg = ctx.new_page()
    html = OCULTA.format(url=url, display="none" if oculta else "block")
    with _pagina_en_otro_origen(html) as otro_origen:
        pg.goto(otro_origen)
        pg.frame_locator("#marco").locator(f"#{id_}-figura1").wait_for(state="attached", timeout=ESPERA_MS)
        if oculta:
            pg.wait_for_timeout(2500)  # lo que dibuje oculta
            pg.evaluate("() => { document.querySelector('#diapositiva').style.display = 'block'; }")
        marco = pg.frames[1]
        marco.wait_for_function(LISTA, arg=f"#{id_}-figura1", timeout=ESPERA_MS)
        pg.wait_for_timeout(1000)
        solapes = textos_que_se_solapan(marco, derechos=True)
        nombres_x = [par for cajas in marco.evaluate(NOMBRES_X_DERECHOS) for par in _solapadas(cajas)]
        pg.screenshot(path=str(CAPTURAS / f"figuras-iframe-{'oculto' if oculta else 'visible'}-{id_}.png"))
    ctx.close()
    return solapes, nombres_x


@pytest.mark.parametrize("id_", ["atencion-cruzada", "clasificador-atencion"])
def test_un_iframe_que_carga_oculto_y_se_muestra_no_pisa_sus_nombres(navegador, url_app, id_):
    """Al mostrarse, la figura se maqueta otra vez con el ancho de verdad: los nombres del eje x de atención
    cruzada (4 pares) y del clasificador (6) se pisaban en un iframe que cargó oculto y luego se mostró (figuras.mjs:
    su ResizeObserver la vuelve a maquetar al tomar caja). Ningún nombre derecho del eje x pisa a otro, y ningún par
    de textos derechos se pisa que no se pise también en el mismo iframe visible desde el principio."""
    url = f"{url_app}demo/{id_}/?predecir=0"
    oculto, nombres_oculto = _solapes_en_iframe(navegador, url, id_, oculta=True)
    visible, nombres_visible = _solapes_en_iframe(navegador, url, id_, oculta=False)
    assert nombres_oculto == nombres_visible == [], (nombres_oculto, nombres_visible)
    assert oculto == visible, (oculto, visible)
