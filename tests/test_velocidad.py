"""Un solo evento en cola por movimiento, y el deslizador que no pierde pulsaciones (issues 22 y 36).

Cuenta las peticiones `queue/join` que manda Chromium al mover el control principal de cada
pestaña del registro: exactamente una (la del cálculo), o ninguna si el valor es una parada de un
control barrido (demos/comun/barrido.py: el navegador ya tiene esa vista). Las sincronizaciones de la
interfaz (número → deslizador logarítmico, el botón de la semilla) corren en el navegador (`js=`).
Exacto, no cronometrado: los tiempos van en `make bench` (scripts/bench_clase.py).
Barata: una página para todo el módulo, la app de la sesión (conftest.url_app).
"""

from __future__ import annotations

import re

import gradio as gr
import pytest

from demos import PESTANAS
from demos.comun.figuras.componente import Figura
from tests.ayuda_navegador import ESPERA_MS, espera_cambio, fuente_figura

pytestmark = pytest.mark.navegador

CALMA_MS = 600  # tras ver la figura nueva, lo que se espera por eventos encadenados que lleguen tarde


def vista_de(id_: str):
    import app

    return app.vistas(app.demo)[id_]


def control_principal(vista) -> tuple[str, object, str]:
    """(nombre, componente, valor nuevo) del control principal: el del ajuste de ejemplo de la vista.

    Es el que las pruebas de navegador ya mueven (`Vista.ejemplos`): visible al abrir y con un
    valor válido que cambia la vista.
    """
    ejemplo, _ = vista.ejemplos()
    nombre, valor = next(iter(ejemplo.items()))
    return nombre, vista.url[nombre], valor


# Lo que se ve de la pestaña: los datos de todas sus figuras, sus textos, tablas e imágenes.
FIRMA_PAGINA = """() => JSON.stringify([
  [...document.querySelectorAll('.js-plotly-plot')].map(g => (g.data || []).map(t => [t.z, t.y, t.x, t.text])),
  [...document.querySelectorAll('.prose, table')].map(e => e.innerText),
  [...document.querySelectorAll('img')].map(i => i.src),
])"""


def espera_otra_pagina(pg, antes: str) -> None:
    pg.wait_for_function(f"(antes) => ({FIRMA_PAGINA})() !== antes", arg=antes, timeout=ESPERA_MS)


class Contador:
    """Las peticiones `queue/join` de la página: cuántas salieron y cuántas siguen sin respuesta."""

    def __init__(self, pg):
        self.enviadas = 0
        self.abiertas = 0
        pg.on("request", self._salio)
        pg.on("requestfinished", self._termino)
        pg.on("requestfailed", self._termino)

    def _salio(self, r):
        if "queue/join" in r.url:
            self.enviadas += 1
            self.abiertas += 1

    def _termino(self, r):
        if "queue/join" in r.url:
            self.abiertas -= 1

    def calma(self, pg) -> int:
        """Espera a que no quede ninguna abierta ni ninguna salida en proceso (`.pending` de Gradio: el join ya
        contestó y el evento sigue; uno encadenado sale al terminar, tarde en una máquina cargada) y pase CALMA_MS
        sin nuevas; devuelve las enviadas."""
        while True:
            antes = self.enviadas
            pg.wait_for_timeout(CALMA_MS)
            quieta = pg.evaluate("() => !document.querySelector('.pending')")
            if self.enviadas == antes and self.abiertas <= 0 and quieta:
                return self.enviadas


@pytest.fixture(scope="module")
def pg(navegador):
    contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    pagina = contexto.new_page()
    pagina.contador = Contador(pagina)
    yield pagina
    contexto.close()


def abrir(pg, url_app: str, id_: str) -> str:
    # ?predecir=0: con la predicción sin revelar, las salidas van veladas y un cambio de palabras (en a mano, que
    # ahora predice) no cambia nada que la firma de la página lea; aquí se cuentan eventos, no se predice.
    pg.goto(f"{url_app}demo/{id_}/?predecir=0")
    antes = fuente_figura(pg, id_)
    pg.contador.calma(pg)
    return antes


def joins_de(pg, mover) -> int:
    """Cuántos `queue/join` salen por `mover()`, contados hasta que la página queda en calma."""
    antes = pg.contador.calma(pg)
    mover()
    return pg.contador.calma(pg) - antes


# Pestañas cuyo control principal aún manda más de un evento, con lo que lo manda (cableado de otras
# pestañas: fundirlo en el evento principal o pasarlo a `js=`). strict: cuando se arregle, esta lista falla.
PENDIENTES: dict[str, str] = {}


def _con_pendientes(ids: list[str]) -> list:
    pendiente = [pytest.mark.xfail(strict=True, reason=PENDIENTES.get(i, "")) if i in PENDIENTES else () for i in ids]
    return [pytest.param(i, marks=m) for i, m in zip(ids, pendiente, strict=True)]


@pytest.mark.parametrize("id_", _con_pendientes([p.id for p in PESTANAS]))
def test_un_solo_evento_en_cola_por_movimiento(pg, url_app, id_):
    abrir(pg, url_app, id_)
    nombre, c, valor = control_principal(vista_de(id_))
    sel = f"#{id_}-{nombre}"
    antes = pg.evaluate(FIRMA_PAGINA)

    def mover():
        if isinstance(c, gr.Radio):
            etiqueta = next((e for e, v in c.choices if str(v) == valor), valor)
            pg.locator(f"{sel} label").filter(has_text=str(etiqueta)).first.click()
        elif isinstance(c, gr.Textbox):
            caja = pg.locator(f"{sel} textarea, {sel} input").first
            caja.fill(valor)
            caja.press("Enter" if (c.lines or 1) == 1 else "Tab")
        else:
            caja = pg.locator(f"{sel} input[type=number]").first
            caja.fill(valor)
            caja.press("Enter")
        espera_otra_pagina(pg, antes)

    esperados = 0 if es_parada(vista_de(id_), c, valor) else 1
    assert joins_de(pg, mover) == esperados, f"{id_} ({nombre}): {esperados} eventos a la cola por movimiento"


def es_parada(vista, componente, texto: str) -> bool:
    """¿Es `texto` una parada de un control barrido (el control o la entrada que fija)? Entonces no va a la cola."""
    from demos.comun.barrido import paradas_de

    for b in vista.barridos:
        paradas = paradas_de(b)
        if componente is b.control:
            valores = paradas
        elif componente is b.entrada:
            valores = [b.a_entrada(v) if b.a_entrada else v for v in paradas]
        else:
            continue
        return any(str(v) == texto or (isinstance(v, int | float) and f"{v:g}" == texto) for v in valores)
    return False


# Los deslizadores logarítmicos: pestaña -> (deslizador, número que escribe, valor del deslizador al abrir,
# paso). Diez flechas → el número que corresponde al deslizador diez pasos más allá.
LOGARITMICOS = {"temperatura": ("log_t", "T", 0.0, 0.02), "escalado": ("log_d", "d", 6.0, 0.5)}


def _del_deslizador(id_: str):
    """La regla en Python de la pestaña: deslizador -> número."""
    from demos import escalado, temperatura

    return {"temperatura": temperatura._t_desde_log, "escalado": escalado._d_desde_log}[id_]


def _hacia_el_deslizador(id_: str):
    """La regla en Python de la pestaña: (número, deslizador) -> deslizador, o gr.skip() si ya coincide."""
    from demos import escalado, temperatura

    return {"temperatura": temperatura._log_desde_t, "escalado": escalado._log_desde_d}[id_]


def _deslizador(pg, id_: str):
    """El input de rango del deslizador logarítmico: el que está en la misma fila que el número."""
    return pg.locator(f"#{id_}-{LOGARITMICOS[id_][1]}").locator("xpath=..").locator("input[type=range]").first


def test_las_reglas_del_navegador_son_las_de_python(pg):
    """Cada `js=` de sincronización da lo mismo que su función en Python, en una rejilla que cubre los bordes. (Del
    deslizador al número no hay fórmula en el navegador: cada parada del barrido trae el número de Python.)"""
    from demos import escalado, temperatura

    pg.goto("about:blank")
    casos = [
        (
            temperatura.JS_LOG_DESDE_T,
            temperatura._log_desde_t,
            [[t, log] for t in (0.01, 0.05, 0.25, 0.5, 1, 1.26, 3.3, 10, 50, "abc") for log in (-1.3, -0.6, 0, 0.1)],
        ),
        (
            escalado.JS_LOG_DESDE_D,
            escalado._log_desde_d,
            [[d, log] for d in (0, 1, 2, 3, 64, 100, 512, 2048, 4096, 5000, "abc") for log in (0, 6, 6.5, 9, 12)],
        ),
        (
            temperatura.JS_SIGUIENTE_SEMILLA,
            temperatura._siguiente_semilla,
            [[s] for s in (0, 1, 41, temperatura.SEMILLA_MAX - 1, temperatura.SEMILLA_MAX, "abc", None)],
        ),
    ]
    for js, fn, argumentos in casos:
        del_navegador = pg.evaluate(f"(casos) => casos.map((a) => ({js})(...a))", argumentos)
        for args, nav in zip(argumentos, del_navegador, strict=True):
            esperado = fn(*args)
            if esperado == gr.skip():  # Python no toca el deslizador; el navegador lo deja como estaba
                esperado = args[-1]
            assert nav == pytest.approx(esperado), f"{js[:40]}… con {args}: navegador {nav}, Python {esperado}"


@pytest.mark.parametrize("id_", list(LOGARITMICOS))
def test_el_deslizador_logaritmico_no_pierde_pulsaciones(pg, url_app, id_):
    _, numero, inicial, paso = LOGARITMICOS[id_]
    antes = abrir(pg, url_app, id_)
    rango = _deslizador(pg, id_)
    assert float(rango.input_value()) == pytest.approx(inicial)

    def diez_flechas():
        rango.focus()
        for _ in range(10):
            rango.press("ArrowRight")
            pg.wait_for_timeout(50)
        espera_cambio(pg, id_, antes)

    joins = joins_de(pg, diez_flechas)
    esperado = _del_deslizador(id_)(inicial + 10 * paso)
    caja = pg.locator(f"#{id_}-{numero} input[type=number]").first
    assert float(rango.input_value()) == pytest.approx(inicial + 10 * paso)
    assert float(caja.input_value()) == pytest.approx(esperado)
    # La figura termina en el valor final (su título lo nombra); las flechas no mandan más eventos que flechas.
    titulo = {"temperatura": f"T = {esperado:g}", "escalado": f"√{esperado}"}[id_]
    pg.wait_for_function(
        "([sel, t]) => [...document.querySelectorAll(sel + ' text')].some(e => e.textContent.includes(t))",
        arg=[f"#{id_}-figura1", titulo],
        timeout=ESPERA_MS,
    )
    assert joins == 0  # un deslizador barrido: cada flecha es una parada que el navegador ya tiene


@pytest.mark.parametrize("id_", list(LOGARITMICOS))
def test_escribir_el_numero_mueve_el_deslizador_con_un_solo_evento(pg, url_app, id_):
    _, numero, inicial, _ = LOGARITMICOS[id_]
    abrir(pg, url_app, id_)
    valor = {"temperatura": "0.25", "escalado": "512"}[id_]
    caja = pg.locator(f"#{id_}-{numero} input[type=number]").first
    joins = joins_de(pg, lambda: (caja.fill(valor), caja.press("Enter")))
    assert float(_deslizador(pg, id_).input_value()) == pytest.approx(_hacia_el_deslizador(id_)(valor, inicial))
    # d = 512 es una parada (2⁹): el navegador ya la tiene; T = 0.25 no (la más cercana es 0.251): el servidor.
    vista = vista_de(id_)
    assert joins == (0 if es_parada(vista, vista.url[numero], valor) else 1)
    assert es_parada(vista, vista.url[numero], valor) == (id_ == "escalado")


def test_los_botones_de_d_fijan_el_valor_en_el_navegador(pg, url_app):
    id_ = "escalado"
    antes = abrir(pg, url_app, id_)
    boton = pg.get_by_role("button", name="d = 512", exact=True)

    def clic():
        boton.click()
        espera_cambio(pg, id_, antes)

    assert joins_de(pg, clic) == 0  # d = 512 es una parada del barrido: la vista ya está en el navegador
    assert pg.locator(f"#{id_}-d input[type=number]").first.input_value() == "512"
    assert float(_deslizador(pg, id_).input_value()) == pytest.approx(9.0)


def test_sacar_otra_vez_suma_uno_a_la_semilla_con_un_solo_evento(pg, url_app):
    id_ = "temperatura"
    abrir(pg, url_app, id_)
    semilla = pg.locator(f"#{id_}-semilla input[type=number]").first
    inicial = int(semilla.input_value())
    joins = joins_de(pg, lambda: pg.get_by_role("button", name="Sacar otra vez (semilla + 1)").click())
    assert int(semilla.input_value()) == inicial + 1
    assert joins == 1


# --- la primera figura llega con la página --------------------------------------------------------


def _es_figura(componente: dict) -> bool:
    """Un componente de la configuración de la página es una `Figura` (demos/comun/figuras/componente.py)."""
    return componente["type"] == "html" and componente["props"].get("component_class_name") == "Figura"


@pytest.mark.parametrize("id_", [p.id for p in PESTANAS])
def test_la_pagina_de_una_pestana_trae_sus_figuras(url_app, id_):
    """/demo/<id>/ trae en su configuración las figuras de la vista inicial: se dibujan sin esperar a `load`."""
    import httpx

    config = httpx.get(f"{url_app}demo/{id_}/config", timeout=120).json()
    figuras = {c["props"].get("elem_id"): c["props"].get("value") for c in config["components"] if _es_figura(c)}
    assert figuras.get(f"{id_}-figura1"), f"{id_}: la primera figura no viene en la página"
    assert figuras[f"{id_}-figura1"]["type"] == "plotly"


def test_la_suite_trae_las_figuras_de_la_pestana_que_abre_y_no_las_de_las_demas(url_app):
    """Las figuras de la vista (`<id>-figuraN`) llegan en la página solo para la pestaña que abre. Un panel
    con un valor fijo desde que se arma (la instantánea 0 de «Mira cómo aprende», que así no pide un evento
    al abrir) es parte de la página como cualquier valor por omisión, y no cuenta."""
    import httpx

    config = httpx.get(f"{url_app}config", timeout=120).json()
    figuras = {c["props"].get("elem_id"): c["props"].get("value") for c in config["components"] if _es_figura(c)}
    primera = PESTANAS[0].id
    assert (figuras.get(f"{primera}-figura1") or {}).get("type") == "plotly", "la pestaña que abre, sin su figura"
    otras = [
        e for e, v in figuras.items() if v and e and re.search(r"-figura\d+$", e) and not e.startswith(f"{primera}-")
    ]
    assert otras == [], f"la página de la suite trae figuras de pestañas que no abre: {otras}"


def test_load_no_vuelve_a_mandar_las_figuras_que_trae_la_pagina():
    import app
    from demos.servir.conectar import vista_inicial

    una = app.construir_una("temperatura")
    vista = app.vistas(una)["temperatura"]
    valores = [c.value for c in vista.entradas]
    _, salidas = vista_inicial("temperatura", vista, {}, valores)
    # Las figuras y las paradas del barrido (gr.JSON) no: ya están en la página. La tabla y los textos, sí.
    en_la_pagina = [isinstance(c, Figura | gr.JSON) for c in vista.salidas_de_pagina]
    assert [s == gr.skip() for s in salidas] == en_la_pagina and any(isinstance(c, gr.JSON) for c in vista.paquetes)
    _, con_url = vista_inicial("temperatura", vista, {"T": "0.25"}, valores)  # otra vista: se manda entera
    assert not any(s == gr.skip() for s in con_url)


def test_load_solo_manda_las_entradas_que_la_url_cambia():
    """Volver a mandar el valor del lienzo de CBAM al abrir le hacía disparar `input` a veces (2 de 7
    aperturas con un ajuste en la URL): la pestaña pasaba a «mi dibujo» con el lienzo vacío y abría con la
    figura vacía. `load` deja quietas las entradas que la URL no cambia."""
    import app
    from demos.servir.conectar import vista_inicial

    vista = app.vistas(app.construir_una("cbam"))["cbam"]
    valores = [c.value for c in vista.entradas]
    nombres = [next((n for n, c in vista.url.items() if c is e), None) for e in vista.entradas]
    entradas, _ = vista_inicial("cbam", vista, {}, valores)
    assert all(e == gr.skip() for e in entradas)
    entradas, _ = vista_inicial("cbam", vista, {"opacidad": "0.2"}, valores)
    assert [n for n, e in zip(nombres, entradas, strict=True) if e != gr.skip()] == ["opacidad"]


# --- el proceso que sirve no importa en las peticiones lo que puede importar antes -------------------


def test_gradio_no_importa_pyplot_alrededor_de_cada_funcion():
    """Gradio envuelve cada función en `MatplotlibBackendMananger` (get_backend): con Agg fijado por
    `proceso.preparar()`, eso ya no importa pyplot en la primera petición (≈ 24 % de sus muestras)."""
    import subprocess
    import sys

    codigo = (
        "import os, sys; os.environ.pop('MPLBACKEND', None)\n"
        "from servidor import proceso; proceso.preparar()\n"
        "from gradio.utils import MatplotlibBackendMananger\n"
        "with MatplotlibBackendMananger(): pass\n"
        "import matplotlib; print(matplotlib.get_backend(), 'matplotlib.pyplot' in sys.modules)"
    )
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=300, check=True)
    assert salida.stdout.split()[-2:] == ["agg", "False"], salida.stdout + salida.stderr[-2000:]


def test_la_precarga_importa_los_modulos_pesados():
    import subprocess
    import sys

    from servidor import proceso

    codigo = (
        "import sys; from servidor import proceso; proceso.precargar_modulos()\n"
        "print(all(m in sys.modules for m in proceso.MODULOS_PESADOS), 'matplotlib.pyplot' in sys.modules)"
    )
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=300, check=True)
    assert salida.stdout.split()[-2:] == ["True", "False"], salida.stdout + salida.stderr[-2000:]
    assert "matplotlib" in proceso.MODULOS_PESADOS
    # Los dígitos y las fotos de muestra se leen sin importar sklearn (+85 MB): tests/test_modelos.py lo comprueba.
    assert not any(m.split(".")[0] == "sklearn" for m in proceso.MODULOS_PESADOS)


# La instantánea de «Mira cómo aprende» sigue a los dígitos aunque lleguen por la URL (sin evento propio
# al escribirlos: van en el evento de los dígitos); sus datos en la página, para comparar.
INSTANTANEA = """() => { const g = document.querySelector('#inversion-digitos-instantanea .js-plotly-plot');
  return g && g.data ? JSON.stringify(g.data.map(t => [t.z, t.x, t.y, t.text])) : null; }"""


def test_la_instantanea_sigue_a_los_digitos_de_la_url_y_a_los_escritos(pg, url_app):
    id_, digitos = "inversion-digitos", "1 2 3 4 5 6 7 8"
    abrir(pg, url_app, id_)
    de_la_leccion = pg.evaluate(INSTANTANEA)
    caja = pg.locator(f"#{id_}-digitos input, #{id_}-digitos textarea").first
    caja.fill(digitos)
    caja.press("Enter")
    pg.wait_for_function(f"(antes) => ({INSTANTANEA})() !== antes", arg=de_la_leccion, timeout=ESPERA_MS)
    escritos = pg.evaluate(INSTANTANEA)

    pg.goto(f"{url_app}demo/{id_}/?digitos={digitos.replace(' ', '%20')}")
    fuente_figura(pg, id_)
    pg.wait_for_function(f"(antes) => ({INSTANTANEA})() !== antes", arg=de_la_leccion, timeout=ESPERA_MS)
    assert pg.evaluate(INSTANTANEA) == escritos


def test_preparar_pide_aparte_los_bloques_grandes_aun_tras_liberar_uno_y_el_entorno_manda():
    """Con el umbral de mmap fijo (1 MB), cada bloque de 2 MB va a su propio mmap (glibc los cuenta en
    `mallinfo2().hblks`) y vuelve al sistema al liberarse, también después de liberar otros de 2 MB (con el
    umbral de glibc, que sube solo al liberar uno, irían al montón); los de 100 kB van al montón (uno a uno en
    su mmap, cada página era un fallo: ≈ 5 ms de los 11 de un evento de escalado). El RSS pico de la clase y
    la CPU por evento: BENCHMARKS.md."""
    import os
    import subprocess
    import sys

    codigo = (
        "import ctypes, sys\n"
        "class Info(ctypes.Structure):\n"
        "    _fields_ = [(n, ctypes.c_size_t) for n in 'arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks "
        "fordblks keepcost'.split()]\n"
        "libc = ctypes.CDLL('libc.so.6'); libc.mallinfo2.restype = Info\n"
        "from servidor import proceso; proceso.preparar()\n"
        "b = [bytearray(2 << 20) for _ in range(10)]; del b\n"  # liberarlos subiría el umbral de glibc a 2 MB
        "antes = libc.mallinfo2().hblks; b = [bytearray(2 << 20) for _ in range(20)]\n"
        "grandes = libc.mallinfo2().hblks - antes; c = [bytearray(100 << 10) for _ in range(50)]\n"
        "print(grandes, libc.mallinfo2().hblks - antes - grandes)"
    )
    if sys.platform != "linux":
        pytest.skip("mallopt y mallinfo2 son de glibc")
    con = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=300, check=True)
    grandes, chicos = map(int, con.stdout.split()[-2:])
    assert grandes >= 18 and chicos <= 2, con.stdout + con.stderr[-2000:]  # (alguno reusa un hueco)
    entorno = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(32 << 20)}  # quien lo fija en el entorno, manda
    sin = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=300, env=entorno)
    assert int(sin.stdout.split()[-2]) <= 2, sin.stdout + sin.stderr[-2000:]
