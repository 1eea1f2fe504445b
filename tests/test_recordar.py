"""Respuestas recordadas (`demos/_recordar.py`): exactas, una sola ejecución a la vez, sin errores guardados."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from demos import _recordar
from demos._recordar import NoRecordable, Recuerdos, clave
from demos._ui import envolver


def test_claves_distinguen_tipo_y_valor_exacto():
    assert len({clave(1), clave(1.0), clave(True), clave("1")}) == 4
    assert clave(0.1 + 0.2) != clave(0.3)
    assert clave(float("nan")) == clave(float("nan"))  # NaN se recuerda como NaN (y la función lo rechaza igual)
    assert clave([1, 2]) != clave((1, 2))
    assert clave({"b": 1, "a": [2.5]}) == clave({"a": [2.5], "b": 1})
    a = np.arange(12, dtype=np.uint8).reshape(3, 4)
    assert clave(a) == clave(a.copy())
    assert clave(a) != clave(a.reshape(4, 3))
    b = a.copy()
    b[0, 0] = 99
    assert clave(a) != clave(b)
    assert clave(np.float32(0.5)) == clave(0.5)


def test_argumentos_sin_clave_no_se_recuerdan():
    with pytest.raises(NoRecordable):
        clave(object())
    with pytest.raises(NoRecordable):
        clave([1, threading.Lock()])
    llamadas = []

    def f(x):
        llamadas.append(x)
        return len(llamadas)

    modelo = object()  # como un modelo entrenado en gr.State
    assert _recordar.recordar("prueba-sin-clave", f, (modelo,), {}) == 1
    assert _recordar.recordar("prueba-sin-clave", f, (modelo,), {}) == 2


def test_un_archivo_subido_cuenta_por_su_contenido(tmp_path):
    ruta = tmp_path / "subida.png"
    ruta.write_bytes(b"uno")
    antes = clave(str(ruta))
    time.sleep(0.01)
    ruta.write_bytes(b"otro contenido")
    assert clave(str(ruta)) != antes
    assert clave("texto que no es un archivo") == "texto que no es un archivo"
    assert clave("/" + "x" * 100_000) == "/" + "x" * 100_000  # un nombre imposible no rompe nada


def test_repetida_se_sirve_sin_calcular_y_caduca():
    r = Recuerdos(capacidad=8, vida_s=0.2)
    llamadas = []

    def calcular():
        llamadas.append(1)
        return len(llamadas)

    assert r.obtener("k", calcular) == 1
    assert r.obtener("k", calcular) == 1
    assert (r.aciertos, r.fallos) == (1, 1)
    time.sleep(0.25)
    assert r.obtener("k", calcular) == 2  # caducó: se recalcula


def test_capacidad_acotada_saca_la_menos_usada():
    r = Recuerdos(capacidad=3, vida_s=60)
    for k in "abc":
        r.obtener(k, lambda k=k: k)
    r.obtener("a", lambda: "nuevo")  # «a» pasa a la más reciente
    r.obtener("d", lambda: "d")  # sale «b»
    assert len(r) == 3
    assert r.obtener("a", lambda: "otra vez") == "a"
    assert r.obtener("b", lambda: "recalculada") == "recalculada"


def test_peticiones_iguales_simultaneas_calculan_una_vez():
    r = Recuerdos()
    llamadas = []
    empezar = threading.Barrier(8)

    def calcular():
        llamadas.append(1)
        time.sleep(0.2)  # mientras tanto llegan las otras siete
        return "figura"

    def pedir(_):
        empezar.wait()
        return r.obtener("misma vista", calcular)

    with ThreadPoolExecutor(8) as pool:
        resultados = list(pool.map(pedir, range(8)))
    assert resultados == ["figura"] * 8
    assert len(llamadas) == 1


def test_un_error_llega_a_quien_esperaba_y_no_se_guarda():
    r = Recuerdos()
    empezar = threading.Barrier(4)
    intentos = []

    def falla():
        intentos.append(1)
        time.sleep(0.1)
        raise ValueError("La temperatura debe ser positiva.")

    def pedir(_):
        empezar.wait()
        try:
            r.obtener("mala", falla)
        except ValueError as e:
            return str(e)

    with ThreadPoolExecutor(4) as pool:
        mensajes = list(pool.map(pedir, range(4)))
    assert mensajes == ["La temperatura debe ser positiva."] * 4
    assert len(intentos) == 1
    assert len(r) == 0
    assert r.obtener("mala", lambda: "ya vale") == "ya vale"  # el error no quedó guardado


def test_envolver_recuerda_solo_si_se_pide_y_convierte_errores():
    llamadas = []

    def calcular(x: float = 1.0):
        llamadas.append(x)
        if x < 0:
            raise ValueError("x debe ser positivo.")
        return f"vista {x}"

    recordada = envolver(calcular, recordar=True)
    assert recordada(2.0) == recordada(2.0) == "vista 2.0"
    assert llamadas == [2.0]
    assert envolver(calcular)(2.0) == "vista 2.0"  # sin recordar: calcula
    assert llamadas == [2.0, 2.0]
    import gradio as gr

    for _ in range(2):
        with pytest.raises(gr.Error, match="positivo"):
            recordada(-1.0)
    assert llamadas.count(-1.0) == 2
    with pytest.raises(ValueError, match="puras"):
        envolver(calcular, exclusivo_de="medir", recordar=True)


def _dibujos():
    """Una función de dibujo recordada y la cuenta de cuántas veces dibujó de verdad."""
    from demos._graficos import figura, mapa_calor
    from demos._recordar import figura_recordada

    veces = []

    @figura_recordada
    def dibujar(valores, titulo="Pesos"):
        veces.append(1)
        fig, eje = figura(4, 3)
        mapa_calor(eje, np.asarray(valores, dtype=float).reshape(2, 2), ["a", "b"], ["a", "b"])
        eje.set_title(titulo)
        return fig

    return dibujar, veces


def test_figura_recordada_no_se_vuelve_a_dibujar_y_da_el_mismo_png(tmp_path):
    import io

    from PIL import Image

    from demos._figuras import FiguraHecha, a_png, exportar_figuras, png_pantalla

    dibujar, veces = _dibujos()
    primera = dibujar([0.1, 0.2, 0.3, 0.4])
    segunda = dibujar([0.1, 0.2, 0.3, 0.4])
    assert isinstance(segunda, FiguraHecha) and len(veces) == 1
    assert segunda.png == primera.png
    fresca = io.BytesIO()
    png_pantalla(dibujar.__wrapped__([0.1, 0.2, 0.3, 0.4]), fresca)
    a = np.asarray(Image.open(fresca))
    b = np.asarray(Image.open(a_png(segunda)))
    assert a.shape == b.shape and (a == b).all()  # el PNG recordado es el que se habría dibujado
    assert dibujar([0.4, 0.3, 0.2, 0.1]).png != primera.png  # otros datos, otra figura
    assert len(veces) == 3  # la primera, la fresca de la comparación y la de otros datos
    # Quien mira los ejes o descarga recibe la figura de matplotlib, construida al pedirla.
    assert segunda.axes[0].get_title() == "Pesos"
    rutas = exportar_figuras("prueba", ("texto", segunda))
    assert sorted(r.rsplit(".", 1)[1] for r in rutas) == ["png", "svg"]
    assert Image.open(rutas[0]).size[0] > b.shape[1]  # la descarga va a 220 ppp, no al PNG de pantalla


def test_figura_recordada_se_apaga_con_lo_demas():
    from demos._figuras import FiguraHecha
    from demos._recordar import RECUERDOS

    dibujar, veces = _dibujos()
    RECUERDOS.activo = False
    try:
        fig = dibujar([0.1, 0.2, 0.3, 0.4])
        dibujar([0.1, 0.2, 0.3, 0.4])
    finally:
        RECUERDOS.activo = True
    assert not isinstance(fig, FiguraHecha) and len(veces) == 2


def test_un_enlace_con_ajustes_se_calcula_una_vez_para_toda_la_clase():
    import gradio as gr

    from demos._ui import Vista, vista_inicial

    llamadas = []

    def calcular(x: float = 1):
        llamadas.append(x)
        return f"vista {x}"

    with gr.Blocks():
        x = gr.Slider(0, 10, value=1, step=1)
    vista = Vista(fn=calcular, entradas=[x], salidas=[gr.Markdown()], url={"x": x})
    for _ in range(3):  # tres alumnos abren el mismo enlace de la diapositiva (?x=3)
        valores, salida = vista_inicial("prueba-enlace", vista, {"x": "3"}, [1])
        assert (valores, salida) == ([3], "vista 3")
    assert llamadas == [3]


def test_una_entrada_anidada_sin_fin_no_rompe_el_recuerdo():
    """Por el API puede llegar una lista dentro de otra miles de veces: la función la rechaza en español."""
    import gradio as gr

    def calcular(palabras="a, b"):
        if not isinstance(palabras, str):
            raise ValueError("Las palabras deben ser un texto.")
        return palabras

    anidada: list = []
    for _ in range(20_000):
        anidada = [anidada]
    with pytest.raises(gr.Error, match="deben ser un texto"):
        envolver(calcular, recordar=True)(anidada)
