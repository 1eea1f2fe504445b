"""El barrido en Chromium (#36): arrastrar un control barrido no manda nada a la cola y la figura lo sigue.

Exacto, no cronometrado: cuenta las peticiones `queue/join` durante un arrastre con el ratón (o un clic en una
opción) de cada control barrido de cada pestaña, y mira que la vista cambió. Editar otra entrada manda una
sola, y después el barrido sigue sin mandar nada (las paradas llegaron con ese evento). `barrido.js` arma, para
cada parada, lo mismo que `demos.comun.barrido.armar` en Python. Los tiempos van en `make bench` («barrido»).
"""

from __future__ import annotations

import json

import gradio as gr
import pytest

from demos.comun.barrido import al_navegador, funcion_js, js_de, paquete
from tests.ayuda_navegador import ESPERA_MS, fuente_figura

pytestmark = pytest.mark.navegador

CALMA_MS = 700

# Lo que se ve de la pestaña: los datos de sus figuras, sus textos y tablas, y los valores de sus controles.
FIRMA = """() => JSON.stringify([
  [...document.querySelectorAll('.js-plotly-plot')].map(g =>
    (g.data || []).map(t => [t.z, t.y, t.x, t.text, t.opacity])),
  [...document.querySelectorAll('.prose, table')].map(e => e.innerText),
])"""


def vistas():
    import app

    return app.vistas(app.demo)


def casos() -> list:
    ids = []
    for id_, v in vistas().items():
        for k, b in enumerate(v.barridos):
            nombre = next((n for n, c in v.url.items() if c is b.control), None)
            ids.append(pytest.param(id_, k, id=f"{id_}-{nombre or 'deslizador'}"))
    return ids


@pytest.fixture(scope="module")
def pg(navegador):
    contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    pagina = contexto.new_page()
    pagina.joins = []
    pagina.flujos = set()  # los `queue/data` abiertos: Gradio cierra el de la sesión cuando no le quedan eventos
    pagina.on("request", lambda r: "queue/join" in r.url and pagina.joins.append(r.url))
    pagina.on("request", lambda r: "queue/data" in r.url and pagina.flujos.add(r))
    pagina.on("requestfinished", lambda r: pagina.flujos.discard(r))
    pagina.on("requestfailed", lambda r: pagina.flujos.discard(r))
    yield pagina
    contexto.close()


def en_blanco(pg) -> None:
    """Una página vacía con la suite del navegador (`window.__suite`), que la de verdad trae una vez en su `head`
    (barrido.cabeza_js): el `js=` de cada evento de barrido (`js_de`) llama a su `barrido`."""
    pg.goto("about:blank")
    pg.evaluate(f"() => {{ {funcion_js()}; }}")


def calma(pg) -> int:
    """Espera a que no salga ninguna petición nueva ni quede un evento en curso; devuelve las enviadas.

    Un evento generador (la vista y después las paradas) deja de estar `.pending` con su primer resultado: lo que
    dice que terminó es que Gradio cerró el flujo `queue/data` de la sesión, que cierra al no quedarle eventos."""
    while True:
        antes = len(pg.joins)
        pg.wait_for_timeout(CALMA_MS)
        if len(pg.joins) == antes and not pg.flujos and pg.evaluate("() => !document.querySelector('.pending')"):
            return antes


def abrir(pg, url_app: str, id_: str) -> None:
    """Abre la pestaña y espera su evento `load` (el único que manda al abrir) y la calma."""
    antes = len(pg.joins)
    pg.goto(f"{url_app}demo/{id_}/?predecir=0")
    fuente_figura(pg, id_)
    while len(pg.joins) == antes:  # la primera figura llega con la página, antes que `load`
        pg.wait_for_timeout(100)
    calma(pg)


def mostrar(pg, id_: str, vista, b) -> None:
    """Un control que solo se ve con otra entrada en un valor (`Barrido.con`): se elige ese valor."""
    for c, valor in b.con:
        nombre = next(n for n, x in vista.url.items() if x is c)
        etiqueta = next(e for e, v in c.choices if v == valor)
        pg.locator(f"#{id_}-{nombre} label").filter(has_text=etiqueta).first.click()


def arrastrar(pg, rango, fin: float = 0.8) -> None:
    """Un arrastre de ≈ 1 s a lo ancho del riel, y vuelta a `fin` (una fracción del riel)."""
    rango.scroll_into_view_if_needed()
    caja = rango.bounding_box()
    y = caja["y"] + caja["height"] / 2
    pg.mouse.move(caja["x"] + 4, y)
    pg.mouse.down()
    for paso in range(60):
        pg.mouse.move(caja["x"] + 4 + (caja["width"] - 8) * paso / 59, y)
        pg.wait_for_timeout(16)
    pg.mouse.move(caja["x"] + 4 + (caja["width"] - 8) * fin, y)
    pg.mouse.up()


def fin_lejos_del_inicial(control) -> float:
    """Dónde termina el arrastre: al 80 % del riel, o al 30 % si ahí está el valor inicial (autoatención frente a
    una RNN abre en L = 8 de 2 a 10, justo al 80 %: la figura terminaba igual que al abrir)."""
    lo, hi = control.minimum, control.maximum
    inicial = (control.value - lo) / (hi - lo) if hi > lo else 0.0
    paso = (getattr(control, "step", None) or 1) / (hi - lo) if hi > lo else 1.0
    return 0.8 if abs(inicial - 0.8) > 1.5 * paso else 0.3


def mover(pg, id_: str, vista, b) -> None:
    """Arrastra el deslizador o elige cada opción de la lista, una tras otra."""
    if isinstance(b.control, gr.Radio):
        nombre = next(n for n, c in vista.url.items() if c is b.control)
        otra = next(e for e, v in b.control.choices if v != b.control.value)  # termina en otra que la inicial
        for etiqueta in [*(e for e, _ in b.control.choices), otra]:
            pg.locator(f"#{id_}-{nombre} label").filter(has_text=etiqueta).first.click()
            pg.wait_for_timeout(150)
        return
    nombre = next((n for n, c in vista.url.items() if c is b.control), None)
    if nombre is not None:
        rango = pg.locator(f"#{id_}-{nombre} input[type=range]").first
    else:
        rango = pg.locator(f'input[type=range][aria-label="deslizador: {b.control.label}"]').first
    arrastrar(pg, rango, fin_lejos_del_inicial(b.control))


@pytest.mark.parametrize(("id_", "k"), casos())
def test_arrastrar_un_control_barrido_no_manda_nada_a_la_cola(pg, url_app, id_, k):
    vista = vistas()[id_]
    b = vista.barridos[k]
    abrir(pg, url_app, id_)
    mostrar(pg, id_, vista, b)
    antes = calma(pg)
    assert antes == len(pg.joins)
    firma = pg.evaluate(FIRMA)
    mover(pg, id_, vista, b)
    pg.wait_for_function(f"(antes) => ({FIRMA})() !== antes", arg=firma, timeout=ESPERA_MS)
    assert calma(pg) == antes, f"{id_}: barrer {b.control.label!r} mandó {len(pg.joins) - antes} eventos a la cola"


def test_la_instantanea_se_barre_sin_cola(pg, url_app):
    abrir(pg, url_app, "inversion-digitos")
    antes = calma(pg)
    texto = "() => [...document.querySelectorAll('.prose')].map(e => e.innerText).join('|')"
    firma = pg.evaluate(texto)
    arrastrar(pg, pg.locator('input[type=range][aria-label*="Instantánea"]').first)
    pg.wait_for_function(f"(antes) => ({texto})() !== antes", arg=firma, timeout=ESPERA_MS)
    assert calma(pg) == antes
    assert "Instantánea 8 de 10" in pg.evaluate(texto)  # el arrastre termina en el 80 % del riel


def test_editar_otra_entrada_es_un_evento_y_despues_barrer_sigue_sin_cola(pg, url_app):
    """Otra semilla: un evento (la vista y las paradas nuevas); el barrido después usa las nuevas, sin cola.

    La semilla cambia con su botón (un cambio, en el navegador): escribirla con `fill` puede pasar por la caja
    vacía, que es otro valor (y otro evento) en una máquina cargada."""
    abrir(pg, url_app, "temperatura")
    antes = calma(pg)
    firma = pg.evaluate(FIRMA)
    pg.get_by_role("button", name="Sacar otra vez (semilla + 1)").click()
    pg.wait_for_function(f"(antes) => ({FIRMA})() !== antes", arg=firma, timeout=ESPERA_MS)
    assert calma(pg) == antes + 1
    firma = pg.evaluate(FIRMA)
    arrastrar(pg, pg.locator("input[type=range]").first)
    pg.wait_for_function(f"(antes) => ({FIRMA})() !== antes", arg=firma, timeout=ESPERA_MS)
    assert calma(pg) == antes + 1


def test_una_parada_rechazada_dice_el_motivo_bajo_el_control_sin_cola(pg, url_app):
    """5 cabezas con d_modelo = 16: el motivo en español bajo el deslizador; la figura se queda; 8 lo borra."""
    abrir(pg, url_app, "multicabeza")
    antes = calma(pg)
    rango = pg.locator("#multicabeza-cabezas input[type=range]").first
    rango.focus()
    pg.keyboard.press("ArrowRight")  # 4 -> 5
    pg.wait_for_function("() => document.querySelector('#multicabeza-cabezas').innerText.includes('no se reparte')")
    assert "16 / 5 = 3.2" in pg.locator("#multicabeza-cabezas").inner_text()
    for _ in range(3):
        pg.keyboard.press("ArrowRight")  # 8
    pg.wait_for_function("() => !document.querySelector('#multicabeza-cabezas').innerText.includes('no se reparte')")
    assert calma(pg) == antes


@pytest.mark.parametrize(("id_", "k"), [("temperatura", 0), ("multicabeza", 0), ("parches-vit", 0)])
def test_barrido_js_arma_lo_mismo_que_python(pg, url_app, id_, k):
    """Cada parada que arma `barrido.js` es la vista que da la función de Python en esa parada (por salida)."""
    vista = vistas()[id_]
    b = vista.barridos[k]
    valores = [c.value for c in vista.entradas]
    p = paquete(vista, b, valores)
    en_blanco(pg)
    funcion = js_de(vista, b, "control")
    armadas = pg.evaluate(
        f"""([p, valores]) => p.paradas.map((v) => ({funcion})(v, p, 0, ...valores).slice(0, p.salidas.length))""",
        [json.loads(json.dumps(p)), valores],
    )
    # Lo que las figuras dibujan de antemano: el texto de cada figura en cada parada (window.__suite.paradas).
    de_antemano = pg.evaluate(
        "() => Object.fromEntries([...window.__suite.paradas]"
        ".map(([f, x]) => [f, [...Array(x.n).keys()].map(x.texto)]))"
    )
    i = next(j for j, c in enumerate(vista.entradas) if c is (b.entrada or b.control))
    for n, (valor, armada) in enumerate(zip(p["entradas"], armadas, strict=True)):
        if str(n) in p["errores"]:
            continue
        esperado = al_navegador(vista.salidas, vista.fn(*valores[:i], valor, *valores[i + 1 :]))
        for j, (s, v) in enumerate(zip(p["salidas"], armada, strict=True)):
            if not s["cambios"]:
                assert v is None  # igual en todas las paradas: barrido.js no la toca
                continue
            if s["plot"]:
                marca = v.pop("paradas")  # de qué paquete y parada viene: navegador.js precalienta las demás
                assert marca["k"] == n and marca["fuente"].endswith(f":{j}")
                assert json.loads(de_antemano[marca["fuente"]][n]) == esperado[j]["plot"], f"{id_}: parada {valor}"
                v = {**v, "plot": json.loads(v["plot"])}
            assert v == esperado[j], f"{id_}: parada {valor}, salida {j}"


def test_con_un_paquete_demasiado_grande_cada_movimiento_pide_solo_su_vista(pg):
    """El paquete «servidor» (p. ej. variantes con L = 64): barrido.js cambia el segundo número oculto (el evento
    que calcula solo la vista), no el primero (el que recalcula los paquetes, que volverían a pasar de 200 kB)."""
    vista = vistas()["variantes"]
    b = vista.barridos[0]
    valores = [c.value for c in vista.entradas]
    valores[0] = 64
    p = paquete(vista, b, valores)
    assert "servidor" in p
    en_blanco(pg)
    salida = pg.evaluate(f"([p, v]) => ({js_de(vista, b, 'control')})(8, p, 3, ...v)", [p, valores])
    n = len(vista.salidas)
    assert salida[:n] == [None] * n and salida[n] == 8  # la vista no se toca; el control, en su parada
    assert salida[-2] is None and salida[-1] > 0  # el pedido de paquetes no; el de la vista, sí


def test_con_las_paradas_en_camino_cada_movimiento_pide_solo_su_vista(pg):
    """Otras entradas (otra semilla) y el paquete de antes: la edición ya pidió las paradas nuevas, así que un
    movimiento pide solo su vista (el segundo número oculto), no todas las paradas otra vez (el primero); si en
    `ESPERA_PAQUETE_MS` no llegaron, las pide. Un número que no es una parada también pide solo su vista."""
    from demos.comun.navegador import ESPERA_PAQUETE_MS

    vista = vistas()["temperatura"]
    b = vista.barridos[0]
    valores = [c.value for c in vista.entradas]
    p = json.loads(json.dumps(paquete(vista, b, valores)))
    otra = list(valores)
    i_semilla = next(j for j, c in enumerate(vista.entradas) if "emilla" in (c.label or ""))
    otra[i_semilla] = valores[i_semilla] + 1
    en_blanco(pg)
    mover = f"([p, x, v]) => ({js_de(vista, b, 'control', 'prueba')})(x, p, 3, ...v)"
    n = len(vista.salidas)
    parada = p["paradas"][5]
    salida = pg.evaluate(mover, [p, parada, otra])
    assert salida[:n] == [None] * n and salida[n] == parada
    assert salida[-2] is None and salida[-1] > 0, "con las paradas en camino, solo la vista"
    pg.evaluate(  # pasó la espera: las paradas no llegaron
        "([clave, ms]) => { for (const k of window.__suite.esperas.keys())"
        " if (k.startsWith(clave)) window.__suite.esperas.set(k, Date.now() - ms - 1); }",
        ["prueba", ESPERA_PAQUETE_MS],
    )
    salida = pg.evaluate(mover, [p, parada, otra])
    assert salida[-2] == 4 and salida[-1] is None, "sin paradas tras la espera, se piden"
    salida = pg.evaluate(mover, [p, parada + 0.001, valores])  # no es una parada; el paquete vale
    assert salida[:n] == [None] * n and salida[-2] is None and salida[-1] > 0


def test_las_descargas_son_de_la_parada_que_se_ve(pg, url_app):
    """Tras barrer T (sin servidor), «Preparar descargas» dibuja la figura de la T que se ve: el título de la
    primera figura en la página y en su SVG dicen la misma T, que no es la inicial."""
    import re

    abrir(pg, url_app, "temperatura")
    rango = pg.locator("input[type=range]").first
    rango.focus()
    for _ in range(15):
        pg.keyboard.press("ArrowRight")
    pg.wait_for_function(
        "() => !document.querySelector('#temperatura-figura1').innerText.includes('con T = 1 ')", timeout=ESPERA_MS
    )
    # Se espera a que termine de dibujar las 15 teclas: con la máquina cargada, el título se leyó a medio camino
    # (T = 1.82) y la descarga era de la última parada. Quieto 800 ms = ya no hay teclas por dibujar.
    pg.wait_for_function(
        """(ms) => {
          const t = document.querySelector('#temperatura-figura1 .gtitle')?.textContent, ahora = performance.now();
          if (!window.__tituloQuieto || window.__tituloQuieto.t !== t) window.__tituloQuieto = { t, desde: ahora };
          return ahora - window.__tituloQuieto.desde > ms;
        }""",
        arg=800,
        polling=100,
        timeout=ESPERA_MS,
    )
    titulo = pg.locator("#temperatura-figura1 .gtitle").first.text_content()
    t_pantalla = re.search(r"con T = ([0-9.]+)", titulo).group(1)
    assert t_pantalla != "1"
    pg.get_by_text("Descargar las figuras").first.click()
    pg.get_by_role("button", name="Preparar descargas").first.click()
    enlace = pg.locator("a[href$='.svg']").first
    enlace.wait_for(timeout=ESPERA_MS)
    svg = pg.request.get(enlace.get_attribute("href")).text()
    assert f"T = {t_pantalla}" in svg, (t_pantalla, re.findall(r"T = [0-9.]+", svg)[:4])
