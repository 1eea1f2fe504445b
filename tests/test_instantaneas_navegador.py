"""Las instantáneas de figuras.mjs en Chromium (#36): una parada ya dibujada vuelve sin Plotly, las paradas del
paquete se dibujan de antemano, y la figura viva (valores al pasar el puntero, modo oscuro) vuelve después.

Exacto, no cronometrado: cuenta las medidas que deja figuras.mjs en la línea de tiempo de la página («figura»: un
Plotly.react; «instantánea»: un dibujo guardado que se vuelve a poner; «precalentar»: una parada dibujada de
antemano) y compara lo que se ve con lo que dibuja Plotly para el mismo valor. Los tiempos van en `make bench`.
"""

from __future__ import annotations

import pytest

from tests.ayuda_navegador import ESPERA_MS, fuente_figura

pytestmark = pytest.mark.navegador

SEL = "#escalado-figura1 .figura-propia"
RIEL = 'input[type=range][aria-label^="deslizador: log₂ d"]'

# Lo que se ve en la figura: cada texto del SVG con su posición (redondeada a 1 px), y cuántas imágenes y trazos
# dibujados hay. Es lo mismo si la figura es la viva de Plotly o una instantánea del mismo valor con el mismo aspecto
# (la instantánea no lleva la barra de herramientas, que solo aparece con el puntero encima: sus íconos no cuentan).
VISTO = """(sel) => {
  const g = document.querySelector(sel);
  const c = g.querySelector(':scope > .plot-container');
  const o = g.getBoundingClientRect();
  const textos = [...c.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => {
    const r = t.getBoundingClientRect();
    return [t.textContent, Math.round(r.x - o.x), Math.round(r.y - o.y)];
  });
  return JSON.stringify([textos, c.querySelectorAll('image').length, c.querySelectorAll('.main-svg path').length]);
}"""

MEDIDAS = """(nombre) => performance.getEntriesByName(nombre).filter(
  (m) => m.detail === 'escalado-figura1').length"""

# Lo que las figuras saben de la de `sel` (demos/comun/navegador/figuras.mjs: su estado, por la puerta de la suite).
ESTADO = "window.__suite.estado(document.querySelector(sel))"
EN_PANTALLA = f"window.__suite.estado(document.querySelector('{SEL}')).enPantalla"
VIVA = f"""(sel) => {{ const e = {ESTADO}; return !e.puesta && e.enPantalla === e.texto; }}"""
PUESTA = f"(sel) => !!{ESTADO}.puesta"


@pytest.fixture
def pg(navegador, url_app):
    contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    pagina = contexto.new_page()
    pagina.joins = []
    pagina.on("request", lambda r: "queue/join" in r.url and pagina.joins.append(r.url))
    pagina.goto(f"{url_app}demo/escalado/?predecir=0")
    fuente_figura(pagina, "escalado")
    pagina.wait_for_function(VIVA, arg=SEL, timeout=ESPERA_MS)
    pagina.wait_for_timeout(1500)  # el evento `load` de la página y su calma
    yield pagina
    contexto.close()


def _tecla(pg, tecla: str) -> None:
    pg.locator(RIEL).first.focus()
    pg.keyboard.press(tecla)


def _viva_otra_vez(pg) -> str:
    pg.wait_for_function(VIVA, arg=SEL, timeout=ESPERA_MS)
    pg.wait_for_timeout(300)
    return pg.evaluate(VISTO, SEL)


def test_volver_a_una_parada_ya_dibujada_pone_su_instantanea_sin_plotly(pg):
    inicial = _viva_otra_vez(pg)
    antes = pg.evaluate(f"() => {EN_PANTALLA}")
    _tecla(pg, "ArrowRight")
    pg.wait_for_function(f"(antes) => {EN_PANTALLA} !== antes", arg=antes, timeout=ESPERA_MS)
    otra = _viva_otra_vez(pg)
    assert otra != inicial
    # De vuelta a la parada inicial: en el mismo movimiento, su instantánea, y ningún Plotly.react hasta la calma.
    figuras, instantaneas = pg.evaluate(MEDIDAS, "figura"), pg.evaluate(MEDIDAS, "instantánea")
    _tecla(pg, "ArrowLeft")
    pg.wait_for_function(f"(n) => ({MEDIDAS})('instantánea') > n", arg=instantaneas, timeout=ESPERA_MS)
    puesta = pg.evaluate(VISTO, SEL)
    assert pg.evaluate(PUESTA, SEL), "no se puso la instantánea"
    assert pg.evaluate(MEDIDAS, "figura") == figuras, "volver a una parada ya dibujada pasó por Plotly.react"
    # Lo que se ve es la figura de esa parada: los mismos textos en los mismos lugares que la viva.
    assert puesta == inicial
    # Tras la calma vuelve la figura viva, con ese mismo valor y el mismo aspecto.
    assert _viva_otra_vez(pg) == inicial


def test_volver_a_la_parada_de_la_figura_viva_la_trae_sin_plotly(pg):
    """A → B → A con la viva en A: tras la calma vuelve la misma figura viva de A, sin rehacerla con Plotly (un
    Plotly.react que nadie pidió: variantes, 55–140 ms, durante los que otra tecla espera)."""
    inicial = _viva_otra_vez(pg)
    pg.wait_for_function(f"() => ({MEDIDAS})('precalentar') >= 2", timeout=ESPERA_MS)  # B, dibujada de antemano
    figuras = pg.evaluate(MEDIDAS, "figura")
    viva = pg.evaluate_handle(f"() => document.querySelector('{SEL} > .plot-container')")
    for tecla in ("ArrowRight", "ArrowLeft"):
        antes = pg.evaluate(f"() => {EN_PANTALLA}")
        _tecla(pg, tecla)
        pg.wait_for_function(f"(antes) => {EN_PANTALLA} !== antes", arg=antes, timeout=ESPERA_MS)
    assert pg.evaluate(PUESTA, SEL), "A no volvió como instantánea"
    assert _viva_otra_vez(pg) == inicial
    assert pg.evaluate(MEDIDAS, "figura") == figuras, "volver a la viva de A pasó por Plotly.react"
    # Es la misma figura viva de antes, con sus rectángulos del arrastre (los valores al pasar el puntero).
    assert pg.evaluate(
        f"(v) => v === document.querySelector('{SEL} > .plot-container') && !!v.querySelector('.draglayer')", viva
    )


def test_las_paradas_del_paquete_se_dibujan_de_antemano_y_el_arrastre_no_usa_plotly(pg):
    _tecla(pg, "ArrowRight")  # el primer movimiento trae las paradas del paquete (barrido.mjs)
    _viva_otra_vez(pg)
    pg.wait_for_function(f"() => ({MEDIDAS})('precalentar') >= 8", timeout=ESPERA_MS)
    pg.wait_for_timeout(500)
    instantaneas, joins = pg.evaluate(MEDIDAS, "instantánea"), len(pg.joins)
    # Cuatro paradas nuevas hacia la derecha, ninguna visitada antes: cada una, su instantánea (la figura viva que
    # vuelve tras la calma entre tecla y tecla no cuenta: es una «figura» del valor que ya se ve).
    pg.locator(RIEL).first.focus()
    for _ in range(4):
        antes = pg.evaluate(f"() => {EN_PANTALLA}")
        pg.keyboard.press("ArrowRight")
        pg.wait_for_function(f"(antes) => {EN_PANTALLA} !== antes", arg=antes, timeout=ESPERA_MS)
    assert pg.evaluate(MEDIDAS, "instantánea") == instantaneas + 4, "una parada precalentada pasó por Plotly.react"
    assert len(pg.joins) == joins
    # Y lo que se ve es la parada a la que se llegó: igual a la viva de ese valor, que vuelve tras la calma.
    puesta = pg.evaluate(VISTO, SEL)
    assert _viva_otra_vez(pg) == puesta


def test_con_el_puntero_encima_vuelve_la_figura_viva_con_sus_valores(pg):
    _tecla(pg, "ArrowRight")
    _viva_otra_vez(pg)
    _tecla(pg, "ArrowLeft")
    pg.wait_for_function(PUESTA, arg=SEL, timeout=ESPERA_MS)
    caja = pg.locator(f"{SEL} .nsewdrag").first.bounding_box()
    pg.mouse.move(caja["x"] + caja["width"] / 2, caja["y"] + caja["height"] / 2)
    pg.wait_for_function(VIVA, arg=SEL, timeout=ESPERA_MS)
    pg.mouse.move(caja["x"] + caja["width"] / 2 + 3, caja["y"] + caja["height"] / 2 + 3)
    pg.wait_for_function(
        "(sel) => document.querySelector(sel).querySelector('.hoverlayer .hovertext')", arg=SEL, timeout=ESPERA_MS
    )


def test_en_modo_oscuro_no_vuelve_una_instantanea_clara(pg):
    _tecla(pg, "ArrowRight")
    _viva_otra_vez(pg)
    _tecla(pg, "ArrowLeft")
    _viva_otra_vez(pg)
    figuras = pg.evaluate(MEDIDAS, "figura")
    pg.evaluate("() => document.body.classList.add('dark')")
    pg.wait_for_function(f"(n) => ({MEDIDAS})('figura') > n", arg=figuras, timeout=ESPERA_MS)
    # La parada de la derecha ya se dibujó en claro (su instantánea clara existe). En oscuro se ve oscura: con
    # Plotly, o con una instantánea que el precalentado dibujó ya en oscuro, nunca con la clara.
    antes = pg.evaluate(f"() => {EN_PANTALLA}")
    _tecla(pg, "ArrowRight")
    pg.wait_for_function(f"(antes) => {EN_PANTALLA} !== antes", arg=antes, timeout=ESPERA_MS)
    papel = pg.evaluate(f"() => getComputedStyle(document.querySelector('{SEL} .main-svg')).backgroundColor")
    assert papel.replace(" ", "") not in ("rgb(255,255,255)", "rgba(0,0,0,0)"), papel
    pg.wait_for_function(VIVA, arg=SEL, timeout=ESPERA_MS)
    fondo = pg.evaluate("() => document.querySelector('#escalado-figura1 .figura-propia')._fullLayout.paper_bgcolor")
    assert fondo != "#ffffff" and fondo.replace(" ", "") != "rgb(255,255,255)", fondo


# Cada lectura del ancho de una figura, con su hora: poner una instantánea no debe leerlo (ni obligar al navegador a
# maquetar la página en medio del movimiento: con tres figuras, tres maquetaciones por tecla). El ResizeObserver lo
# lee después de la maquetación del cuadro, cuando no cuesta: eso queda después de la instantánea.
CONTAR_ANCHOS = """() => {
  window.__anchos = [];
  const d = Object.getOwnPropertyDescriptor(Element.prototype, 'clientWidth');
  for (const g of document.querySelectorAll('.figura-propia')) {
    Object.defineProperty(g, 'clientWidth', {configurable: true, get() {
      window.__anchos.push(performance.now());
      return d.get.call(this);
    }});
  }
}"""


def test_poner_una_instantanea_no_obliga_a_maquetar_la_pagina(pg):
    _tecla(pg, "ArrowRight")
    _viva_otra_vez(pg)
    instantaneas = pg.evaluate(MEDIDAS, "instantánea")
    pg.evaluate(CONTAR_ANCHOS)
    pg.evaluate(
        "() => { window.__tecla = null; addEventListener('keydown', (e) => { window.__tecla ??= e.timeStamp; }); }"
    )
    _tecla(pg, "ArrowLeft")
    pg.wait_for_function(f"(n) => ({MEDIDAS})('instantánea') > n", arg=instantaneas, timeout=ESPERA_MS)
    leidas = pg.evaluate(
        """() => {
      const fin = Math.max(...performance.getEntriesByName('instantánea').map((m) => m.startTime + m.duration));
      return window.__anchos.filter((t) => t >= window.__tecla && t <= fin).length;
    }"""
    )
    assert leidas == 0, f"{leidas} lecturas de clientWidth entre la tecla y la instantánea"
    # Lo que la instantánea no lleva: los rectángulos del arrastre y la barra de herramientas (vuelven con la viva).
    assert (
        pg.evaluate(
            "(sel) => document.querySelector(sel).querySelectorAll('.draglayer, .modebar-container').length", SEL
        )
        == 0
    )


def _precalentadas_hasta(pg, n: int) -> None:
    pg.wait_for_function(f"() => ({MEDIDAS})('precalentar') >= {n}", timeout=ESPERA_MS)


def _la_tecla_es_una_instantanea(pg, tecla: str) -> None:
    """Una tecla a una parada que el estudiante no visitó: su instantánea, sin Plotly.react y sin la cola."""
    figuras, instantaneas, joins = pg.evaluate(MEDIDAS, "figura"), pg.evaluate(MEDIDAS, "instantánea"), len(pg.joins)
    _tecla(pg, tecla)
    pg.wait_for_function(f"(n) => ({MEDIDAS})('instantánea') > n", arg=instantaneas, timeout=ESPERA_MS)
    assert pg.evaluate(MEDIDAS, "figura") == figuras, "la parada pasó por Plotly.react"
    assert len(pg.joins) == joins


def test_al_abrir_la_pagina_las_paradas_se_dibujan_antes_del_primer_movimiento(pg):
    # Sin mover nada: las paradas vecinas ya se dibujaron de antemano (la de ahora, la de la izquierda y la de la
    # derecha), y el primer movimiento es una instantánea.
    _precalentadas_hasta(pg, 3)
    _la_tecla_es_una_instantanea(pg, "ArrowRight")


# La figura marcada con las paradas de un paquete que no es `window.__viejo` (el de antes de la edición).
MARCADA_CON_OTRO = """(sel) => {
  const m = window.__suite.estado(document.querySelector(sel)).marcaDeParadas;
  const f = m && window.__suite.paradas.get(m.fuente);
  return !!f && f.paquete === m.paquete && m.paquete !== window.__viejo;
}"""


def test_tras_una_edicion_las_paradas_nuevas_se_dibujan_antes_del_siguiente_movimiento(pg):
    _precalentadas_hasta(pg, 3)
    pg.evaluate(f"(sel) => {{ window.__viejo = {ESTADO}.marcaDeParadas.paquete; }}", SEL)
    pg.locator("#escalado-semilla input").fill("1")  # otra semilla: otra vista y otras paradas, del servidor
    # Las paradas de la semilla nueva marcan la figura, y se dibujan de antemano sin que el deslizador se mueva.
    pg.wait_for_function(MARCADA_CON_OTRO, arg=SEL, timeout=ESPERA_MS)
    antes = pg.evaluate(MEDIDAS, "precalentar")
    _precalentadas_hasta(pg, antes + 3)
    _la_tecla_es_una_instantanea(pg, "ArrowLeft")


def test_la_figura_de_abajo_recibe_su_instantanea_despues_de_las_que_se_ven_y_sin_plotly(navegador, url_app):
    """Temperatura a 1280 × 800: una T cambia tres figuras y la tercera está fuera de la pantalla. Las dos que se
    ven ponen su instantánea sin maquetar la página; la de abajo, en una tarea posterior (sus elementos no se
    estilizan en el cuadro del movimiento), y sigue siendo una instantánea hasta que se acerca a la vista."""
    ctx = navegador.new_context(viewport={"width": 1280, "height": 800}, locale="es-ES")
    pg = ctx.new_page()
    pg.goto(f"{url_app}demo/temperatura/?predecir=0")
    fuente_figura(pg, "temperatura")
    assert pg.evaluate("() => document.querySelector('#temperatura-figura3').getBoundingClientRect().top") > 800
    riel = pg.locator("input[type=range]").first
    for tecla in ("ArrowRight", "ArrowLeft"):  # las dos paradas, dibujadas una vez en las tres figuras
        riel.focus()
        pg.keyboard.press(tecla)
        pg.wait_for_timeout(2500)
    pg.evaluate(CONTAR_ANCHOS)
    pg.evaluate("() => { performance.clearMeasures(); window.__tecla = performance.now(); }")
    riel.focus()
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function(
        "() => performance.getEntriesByName('instantánea').some((m) => m.detail === 'temperatura-figura3')",
        timeout=ESPERA_MS,
    )
    pg.wait_for_timeout(800)  # más que la calma: las que se ven vuelven a ser vivas; la de abajo, no
    medidas = pg.evaluate(
        """() => ['instantánea', 'figura'].map((n) => performance.getEntriesByName(n)
          .map((m) => [m.detail, m.startTime, m.startTime + m.duration]))"""
    )
    anchos = pg.evaluate("() => window.__anchos")
    ctx.close()
    instantaneas, figuras = medidas
    vistas = [m for m in instantaneas if m[0] in ("temperatura-figura1", "temperatura-figura2")]
    abajo = [m for m in instantaneas if m[0] == "temperatura-figura3"]
    assert len(vistas) == 2 and len(abajo) == 1, instantaneas
    fin = max(m[2] for m in vistas)
    assert not [t for t in anchos if t <= fin], "se leyó el ancho de una figura antes de las instantáneas"
    assert abajo[0][1] > fin, instantaneas
    assert "temperatura-figura3" not in [m[0] for m in figuras], figuras
