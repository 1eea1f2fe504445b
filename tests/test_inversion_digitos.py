"""La pestaña «Inversión de dígitos»: el ejemplo de la lección, su antidiagonal y el entrenamiento en vivo."""

import re
import threading
from fractions import Fraction

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

import modelos
from demos.comun.figuras import Mapa, Paneles, numero
from demos.comun.figuras.pantalla import figura_plotly, figura_plotly_json
from demos.inversion_digitos import entrenar as E
from demos.inversion_digitos.modelo import elegir_modelo, leer_digitos, mapa, modelo_propio, predecir
from demos.inversion_digitos.pestana import _ajustar_controles, calcular, forma, opciones_cabeza
from modelos.entrenamiento.inversion import validacion_inversion
from modelos.estrategia import cuentas_de_los_otros, es_moda_de_los_otros, tope_sin_posicion
from tests.ayuda import espera_error

LECCION = [8, 3, 3, 9, 6, 9, 4, 0]
INVERTIDA = "0 4 9 6 9 3 3 8"
API, API_ENTRENAR = "/inversion_digitos", "/inversion_digitos_entrenar"
ACEPTA = "8 dígitos del 0 al 9"


def _modelo_y_mapa(nombre, digitos=LECCION):
    prediccion, _, pesos = predecir(modelos.cargar(nombre), digitos)
    return prediccion, mapa(pesos, 0, None)


# --- la lección ------------------------------------------------------------------------------------


def test_el_modelo_de_la_leccion_tiene_13674_parametros():
    assert sum(p.numel() for p in modelos.cargar("inversion-digitos").parameters()) == 13674


def test_leccion_83396940_con_posicion_da_04969338():
    prediccion, _ = _modelo_y_mapa("inversion-digitos")
    assert prediccion == [0, 4, 9, 6, 9, 3, 3, 8]
    _, _, texto = calcular()
    assert f"predice **{INVERTIDA}**" in texto and "8 de 8" in texto


@pytest.mark.parametrize(
    "digitos", [LECCION, [1, 2, 3, 4, 4, 3, 2, 1], [7, 7, 7, 7, 2, 2, 2, 2], [0, 1, 2, 3, 4, 5, 6, 7]]
)
def test_con_posicion_cada_fila_mira_a_su_espejo(digitos):
    """La antidiagonal de la figura 5: el máximo de la fila i está en la columna 7 − i."""
    prediccion, m = _modelo_y_mapa("inversion-digitos", digitos)
    assert m.argmax(axis=1).tolist() == [7 - i for i in range(8)]
    assert np.allclose(m.sum(axis=1), 1, atol=1e-5)
    assert prediccion == digitos[::-1]


def test_sin_posicion_la_leccion_sale_mal_y_el_mapa_es_plano():
    prediccion, m = _modelo_y_mapa("inversion-digitos-sin-posicion")
    assert prediccion != LECCION[::-1]
    assert m.argmax(axis=1).tolist() != [7 - i for i in range(8)]
    _, _, texto = calcular(modelo="sin-posicion")
    assert "no distingue el orden" in texto and "multiconjunto" in texto
    assert "las posiciones 1 y 2 (dígito 3)" in texto


def test_sin_posicion_los_digitos_iguales_son_indistinguibles():
    """Sin posición, dos posiciones con el mismo dígito tienen la misma fila y la misma predicción."""
    prediccion, _, pesos = predecir(modelos.cargar("inversion-digitos-sin-posicion"), LECCION)
    for p in pesos:  # (cabezas, L, L)
        assert np.allclose(p[:, 1], p[:, 2], atol=1e-6)  # las filas de los dos «3»
        assert np.allclose(p[:, :, 1], p[:, :, 2], atol=1e-6)  # y cada fila los mira igual
    assert prediccion[1] == prediccion[2] and prediccion[3] == prediccion[5]


def test_sin_posicion_acierta_poco_como_en_la_leccion():
    """La lección: 31,7 % de los dígitos, 0,0 % de las secuencias enteras."""
    X, Y = torch.randint(0, 10, (500, 8), generator=torch.Generator().manual_seed(1)), None
    Y = X.flip(dims=[1])
    red = modelos.cargar("inversion-digitos-sin-posicion")
    with torch.inference_mode():
        pred = red(X.to(modelos.dispositivo())).argmax(-1).cpu()
    assert 0.2 < (pred == Y).float().mean() < 0.45
    assert (pred == Y).all(dim=1).float().mean() < 0.02


def test_sin_posicion_escribe_el_digito_mas_frecuente_de_los_otros_siete():
    """Por eso 32 % y no 10 %: casi todo lo que escribe es una moda de los otros siete, y el tope de esa
    estrategia (exacto: 31 717 / 100 000) es lo que acierta."""
    X, Y = validacion_inversion()
    red = modelos.cargar("inversion-digitos-sin-posicion")
    with torch.inference_mode():
        pred = red(X.to(modelos.dispositivo())).argmax(-1).cpu()
    assert es_moda_de_los_otros(X, pred).float().mean() > 0.99
    tope = tope_sin_posicion()
    assert tope == Fraction(31717, 100000) and tope_sin_posicion(2) == 1  # con 2 dígitos, el otro se sabe
    muestra = torch.randint(0, 10, (100_000, 8), generator=torch.Generator().manual_seed(3))
    empirico = (cuentas_de_los_otros(muestra).amax(dim=-1).float() / 7).mean()
    assert abs(empirico - float(tope)) < 0.003
    assert abs((pred == Y).float().mean() - float(tope)) < 0.01


@pytest.mark.parametrize(
    ("digitos", "aciertos", "frase"),
    [
        ("1 2 3 4 4 3 2 1", 0, "En un palíndromo la respuesta de cada posición es su propio dígito"),
        ("7 7 7 7 2 2 2 2", 8, "la inversión correcta lo es en 8 de 8 posiciones: acierta 8 de 8."),
        ("0 1 2 3 4 5 6 7", 2, "(empatada con otros dígitos en 8: ahí elige uno): acierta 2 de 8."),
    ],
)
def test_sin_posicion_el_texto_explica_la_estrategia_sin_contradecirse(digitos, aciertos, frase):
    tabla, mapa_, texto = calcular(digitos, "sin-posicion")
    assert f"{aciertos} de 8 bien" in tabla and frase in texto
    assert "adivina" not in texto and "Esta vez acierta" not in texto
    m = mapa_.matriz
    assert f"sus pesos van de {m.min():.2f} a {m.max():.2f}" in texto  # no queda parejo: lo dice con sus números


def test_la_explicacion_cita_los_parametros_y_el_tope_calculados():
    import gradio as gr

    from demos.inversion_digitos.pestana import construir

    with gr.Blocks() as demo:
        construir()
    textos = [c.value for c in demo.blocks.values() if isinstance(c, gr.Markdown) and c.value]
    explicacion = next(t for t in textos if "invertir" in t)
    assert numero(13674, ",.0f") in explicacion and "el 31.7 % de los dígitos" in explicacion
    aprende = next(t for t in textos if t.startswith("### Mira cómo aprende"))
    assert "secuencias de validación, medida en ese paso" in aprende
    assert "media de la pérdida de entrenamiento" in aprende


def test_la_perdida_de_cada_instantanea_es_la_de_validacion():
    X, Y = validacion_inversion()
    info, red = E._instantaneas()[-1]
    with torch.inference_mode():
        perdida = torch.nn.functional.cross_entropy(red(X).transpose(1, 2), Y).item()
    assert perdida == pytest.approx(info["perdida"], rel=1e-4)
    _, curva, texto = E.ver_instantanea(indice=len(E._instantaneas()) - 1)
    assert f"pérdida en validación {info['perdida']:.3f}" in texto
    assert curva.paneles[0].eje_y == "Pérdida en validación"


# --- la vista ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("texto", ["8 3 3 9 6 9 4 0", "83396940", "8,3,3,9,6,9,4,0", " 8, 3 3 9\t6 9 4 0 "])
def test_acepta_digitos_con_o_sin_separadores(texto):
    assert leer_digitos(texto) == LECCION


@pytest.mark.parametrize(
    "texto",
    [
        "8 3 3 9 6 9 4",
        "8 3 3 9 6 9 4 0 1",
        "abcdefgh",
        "8 3 3 9 6 9 4 x",
        "",
        "   ",
        "8" * 100_000,
        "٣٣٣٣٣٣٣٣",
        "8 3 3 9 6 9 4 ٣",
        "8.3.3.9.6.9.4.0",
        "-8 3 3 9 6 9 4 0",
        None,
        83396940,
    ],
)
def test_entrada_mala_dice_que_se_acepta(texto):
    with pytest.raises(ValueError, match=ACEPTA):
        calcular(texto)


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"bloque": 0}, "entre 1 y 3"),
        ({"bloque": 4}, "entre 1 y 3"),
        ({"bloque": 1.5}, "entre 1 y 3"),
        ({"bloque": float("nan")}, "entre 1 y 3"),
        ({"cabeza": "5"}, "promedio"),
        ({"cabeza": "media"}, "promedio"),
        ({"cabeza": float("inf")}, "promedio"),
        ({"modelo": "otro"}, "con-posicion"),
        ({"modelo": "el-mio"}, "Todavía no entrenaste"),
        ({"modelo": "el-mio", "propio": {"otra": 1}}, "Todavía no entrenaste"),
    ],
)
def test_controles_malos_dan_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**kw)


def test_cabeza_y_bloque_que_el_modelo_no_tiene_muestran_el_ultimo():
    _, _, texto = calcular(bloque=3, cabeza="4")
    assert "tiene 1 bloque: se muestra el bloque 1" in texto and "tiene 2 cabezas: se muestra la cabeza 2" in texto


def test_los_controles_ofrecen_solo_los_bloques_y_cabezas_del_modelo():
    # En la página, «Bloque» y «Cabeza» llegan solo hasta lo que tiene el modelo elegido (la lección: 1 y 2).
    assert forma("con-posicion") == (1, 2) and forma("sin-posicion") == (1, 2)
    assert forma("el-mio") == (1, 2)  # sin entrenar todavía: como el de la lección
    assert [v for _, v in opciones_cabeza(2)] == ["1", "2", "promedio"]
    bloque, cabeza = _ajustar_controles("con-posicion", None, 3, "4")
    assert bloque["value"] == 1 and bloque["interactive"] is False and "tiene 1 bloque" in bloque["label"]
    assert [v for _, v in cabeza["choices"]] == ["1", "2", "promedio"] and cabeza["value"] == "1"
    estado = {"config": {"d_modelo": 32, "cabezas": 4, "bloques": 2, "con_posicion": True}, "pesos": None}
    estado["pesos"] = modelos.TransformerJuguete(**estado["config"]).state_dict()
    assert forma("el-mio", estado) == (2, 4)
    bloque, cabeza = _ajustar_controles("el-mio", estado, 2, "4")
    assert bloque["value"] == 2 and bloque["maximum"] == 2 and bloque["interactive"] is True
    assert cabeza["value"] == "4" and len(cabeza["choices"]) == 5


def test_cada_cabeza_y_el_promedio():
    _, _, pesos = predecir(modelos.cargar("inversion-digitos"), LECCION)
    assert np.allclose(mapa(pesos, 0, None), (mapa(pesos, 0, 0) + mapa(pesos, 0, 1)) / 2)


def test_abre_en_la_figura_de_la_leccion_la_cabeza_1():
    """La lección dibuja `pesos[0, 0]`: la primera cabeza del único bloque, con la antidiagonal."""
    _, figura, _ = calcular()
    assert "cabeza 1 de 2" in figura.titulo
    _, _, pesos = predecir(modelos.cargar("inversion-digitos"), LECCION)
    assert np.array_equal(figura.matriz, mapa(pesos, 0, 0))
    assert list(figura.matriz.argmax(axis=1)) == list(range(7, -1, -1))


def test_la_vista_no_muta_el_modelo_compartido():
    red = modelos.cargar("inversion-digitos")
    antes = {k: v.clone() for k, v in red.state_dict().items()}
    calcular(cabeza="2")
    assert not red.training
    assert all(torch.equal(antes[k], v) for k, v in red.state_dict().items())


def test_la_tabla_marca_cada_digito():
    tabla, _, _ = calcular()
    assert len(re.findall(r">✓ \d+ %", tabla)) == 8 and not re.search(r">✗ \d+ %", tabla)
    tabla, _, texto = calcular(modelo="sin-posicion")
    bien = int(re.search(r"(\d) de 8 dígitos bien", texto).group(1))
    assert len(re.findall(r">✓ \d+ %", tabla)) == bien and len(re.findall(r">✗ \d+ %", tabla)) == 8 - bien


@pytest.mark.parametrize(
    "kw, modelo, cabeza",
    [
        ({}, "inversion-digitos", 0),  # abre en la cabeza 1, la de la figura de la lección
        ({"modelo": "sin-posicion"}, "inversion-digitos-sin-posicion", 0),
        ({"cabeza": "2"}, "inversion-digitos", 1),
        ({"cabeza": "promedio"}, "inversion-digitos", None),
    ],
)
def test_el_mapa_describe_la_figura_5(kw, modelo, cabeza):
    """Columnas «dígito\\nposición», filas «posición: predicho», el espejo recuadrado y números solo en los
    pesos ≥ 0.3, como antes; la figura va al navegador en pocos kB."""
    fig = calcular(**kw)[1]
    prediccion, _, pesos = predecir(modelos.cargar(modelo), LECCION)
    assert isinstance(fig, Mapa) and fig.matriz.shape == (8, 8)
    assert np.allclose(fig.matriz, mapa(pesos, 0, cabeza))
    assert fig.x == ("8\n0", "3\n1", "3\n2", "9\n3", "6\n4", "9\n5", "4\n6", "0\n7")
    assert fig.y == tuple(f"{i}: {p}" for i, p in enumerate(prediccion))
    assert fig.marcas == tuple((i, 7 - i) for i in range(8))  # la antidiagonal
    assert fig.eje_x == "Posición que se mira (dígito y posición)" and fig.eje_y == "Posición que mira (la que escribe)"
    assert fig.titulo.startswith("¿A dónde mira cada posición?\n")
    textos = np.array(fig.textos())
    assert ((textos != "") == (fig.matriz >= 0.3)).all()
    assert all(t == numero(v) for t, v in zip(textos[textos != ""], fig.matriz[fig.matriz >= 0.3], strict=True))
    pantalla = figura_plotly(fig)
    go.Figure(pantalla)
    assert pantalla["data"][0]["customdata"][0][7] == [
        f"La posición 0 (escribe {prediccion[0]})",
        "la posición 7 (dígito 0)",
        numero(fig.matriz[0, 7], ".3f"),
    ]
    assert pantalla["layout"]["xaxis"]["ticktext"][0] == "8<br>0"
    assert len(figura_plotly_json(fig)) < 60_000


def test_con_posicion_la_antidiagonal_lleva_su_numero():
    textos = calcular()[1].textos()
    assert all(textos[i][7 - i] for i in range(8))
    assert sum(t != "" for fila in textos for t in fila) == 8  # y nada más: los demás pesos son chicos


def test_el_mapa_se_descarga_como_en_la_leccion():
    from demos.comun.figuras.papel import a_bytes, a_matplotlib

    fig = calcular()[1]
    eje = a_matplotlib(fig).axes[0]
    assert [t.get_text() for t in eje.get_xticklabels()] == list(fig.x)
    assert sorted(t.get_text() for t in eje.texts) == sorted(t for fila in fig.textos() for t in fila if t)
    assert a_bytes(fig, "png").startswith(b"\x89PNG")


# --- mira cómo aprende ------------------------------------------------------------------------------


def test_hay_al_menos_6_instantaneas_y_la_ultima_aprendio():
    n = E.cuantas_instantaneas()
    assert n >= 6
    primera, ultima = E._instantaneas()[0][0], E._instantaneas()[-1][0]
    assert primera["secuencias"] < 0.05 < 0.99 < ultima["secuencias"]
    assert primera["paso"] < ultima["paso"]
    mapa0, curva, texto = E.ver_instantanea(indice=n - 1)
    assert f"Instantánea {n - 1} de {n - 1}" in texto and "acierta 8 de 8" in texto
    assert mapa0.marcas == tuple((i, 7 - i) for i in range(8)) and mapa0.matriz.argmax(axis=1).tolist() == [
        7 - i for i in range(8)
    ]
    assert len(figura_plotly_json(mapa0)) < 60_000 and len(figura_plotly_json(curva)) < 60_000


@pytest.mark.parametrize("k", [0, 2])
def test_la_curva_de_las_instantaneas_marca_la_elegida(k):
    """Pérdida arriba, exactitud en % abajo, el mismo eje x y una línea en el paso de la instantánea."""
    historia = [i for i, _ in E._instantaneas()]
    mapa_k, curva, _ = E.ver_instantanea(indice=k)
    assert f"paso {historia[k]['paso']}" in mapa_k.titulo
    assert isinstance(curva, Paneles) and curva.columnas == 1 and curva.compartir_x
    arriba, abajo = curva.paneles
    pasos = [h["paso"] for h in historia]
    assert arriba.curvas[0].x.tolist() == pasos
    assert arriba.curvas[0].y.tolist() == [h["perdida"] for h in historia]
    assert arriba.eje_y == "Pérdida en validación" and abajo.eje_y == "Exactitud (%)"
    assert [c.nombre for c in abajo.curvas] == ["dígitos", "secuencias enteras"]
    assert np.allclose(abajo.curvas[1].y, [100 * h["secuencias"] for h in historia])
    for panel in (arriba, abajo):
        assert [(r.valor, r.texto) for r in panel.verticales] == [(pasos[k], f"instantánea {k} (paso {pasos[k]})")]
    pantalla = figura_plotly(curva)
    go.Figure(pantalla)
    assert pantalla["layout"]["xaxis2"]["matches"] == "x"
    en_leyenda = [t["name"] for t in pantalla["data"] if t.get("showlegend", True)]
    assert en_leyenda.count(f"instantánea {k} (paso {pasos[k]})") == 1


@pytest.mark.parametrize("indice", [-1, 1.5, 10**6, float("nan"), float("inf"), "x"])
def test_instantanea_fuera_de_rango(indice):
    with pytest.raises(ValueError, match="instantánea debe ser"):
        E.ver_instantanea(indice=indice)


# --- entrénalo tú -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"epocas": 0}, "épocas"),
        ({"epocas": 6}, "épocas"),
        ({"epocas": "dos"}, "épocas"),
        ({"cabezas": 3}, "cabezas"),
        ({"bloques": 4}, "bloques"),
        ({"con_posicion": "quizá"}, "Con posición"),
    ],
)
def test_entrenar_con_controles_malos(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        next(E.entrenar(**kw))


def test_entrenar_una_epoca_da_un_estado_que_la_vista_usa():
    pasos = list(E.entrenar(epocas=1, cabezas=4, bloques=2))
    *_, (curva, texto, avance, estado) = pasos
    assert len(pasos) >= 3 and avance == 1.0 and "Listo" in texto
    assert all(p[3] is None for p in pasos[:-1])
    assert estado["config"] == {"d_modelo": 32, "cabezas": 4, "bloques": 2, "con_posicion": True}
    assert all(v.device.type == "cpu" for v in estado["pesos"].values())
    red = modelo_propio(estado)
    assert red is not modelo_propio(estado)  # cada llamada arma el suyo
    _, atencion, texto = calcular(modelo="el-mio", bloque=2, cabeza="4", propio=estado)
    assert "bloque 2 · cabeza 4 de 4" in atencion.titulo
    assert np.allclose(atencion.matriz, mapa(predecir(red, LECCION)[2], 1, 3))
    assert elegir_modelo("con-posicion") is modelos.cargar("inversion-digitos")
    # La curva llega como descripción mientras entrena, con el eje x hasta el último paso.
    curvas = [p[0] for p in pasos if p[0] is not None]
    assert len(curvas) >= 2 and all(isinstance(c, Paneles) for c in curvas)
    primera = curvas[0]
    total = int(re.search(r"paso \d+ de (\d+)", pasos[0][1]).group(1))
    assert [r.valor for r in primera.paneles[1].verticales] == [total]
    assert primera.titulo == "Entrenando: época 1 de 1"
    assert not curva.paneles[1].verticales  # al final, la curva llega sola hasta el último paso
    assert curva.paneles[0].curvas[0].x[-1] == total and "de secuencias bien" in curva.titulo


# --- por el API -------------------------------------------------------------------------------------


def test_api_sin_argumentos_da_la_leccion(cliente):
    tabla, atencion, texto = cliente.predict(api_name=API)
    assert len(re.findall(r">✓ \d+ %", tabla)) == 8 and atencion
    assert f"predice **{INVERTIDA}**" in texto


def test_api_sin_posicion_y_una_cabeza(cliente):
    *_, texto = cliente.predict(digitos="12345678", modelo="sin-posicion", bloque=1, cabeza="2", api_name=API)
    assert "la inversión correcta es **8 7 6 5 4 3 2 1**" in texto and "no distingue el orden" in texto


@pytest.mark.parametrize(
    "digitos, mensaje",
    [
        ("8 3 3 9 6 9 4", "Hay 7 dígitos"),
        ("ocho tres", "no son dígitos"),
        ("", "No hay dígitos"),
        ("8" * 100_000, "demasiado largo"),
        ("٣ 3 3 9 6 9 4 0", "«٣» no es un dígito"),
    ],
)
def test_api_entrada_mala_y_sigue_respondiendo(cliente, digitos, mensaje):
    error = espera_error(cliente, API, digitos=digitos)
    assert mensaje in error and ACEPTA in error
    *_, texto = cliente.predict(digitos="11112222", api_name=API)
    assert "**2 2 2 2 1 1 1 1**" in texto


def test_api_el_mio_sin_entrenar(cliente):
    assert "Todavía no entrenaste" in espera_error(cliente, API, modelo="el-mio")


def test_dos_clientes_a_la_vez_reciben_cada_uno_lo_suyo(url_app):
    from gradio_client import Client

    pedidos = [
        {"digitos": "0 1 2 3 4 5 6 7", "modelo": "con-posicion", "cabeza": "1"},
        {"digitos": "9 9 1 1 5 5 3 3", "modelo": "sin-posicion", "cabeza": "promedio"},
    ]
    clientes = [Client(url_app, verbose=False) for _ in pedidos]
    en_serie = [c.predict(**kw, api_name=API)[2] for c, kw in zip(clientes, pedidos, strict=True)]
    for _ in range(2):
        a_la_vez = [None, None]

        def pedir(k):
            a_la_vez[k] = clientes[k].predict(**pedidos[k], api_name=API)[2]  # noqa: B023

        hilos = [threading.Thread(target=pedir, args=(k,)) for k in range(2)]
        for h in hilos:
            h.start()
        for h in hilos:
            h.join(timeout=60)
        assert a_la_vez == en_serie


def test_api_entrena_transmite_y_luego_sirve_el_mio(url_app):
    from gradio_client import Client

    c = Client(url_app, verbose=False)
    red = modelos.cargar("inversion-digitos")
    antes = {k: v.clone() for k, v in red.state_dict().items()}
    trabajo = c.submit(epocas=2, con_posicion=True, cabezas=2, bloques=1, api_name=API_ENTRENAR)
    curva, texto = trabajo.result(timeout=120)
    assert len(trabajo.outputs()) >= 3 and curva
    secuencias = float(re.search(r"y ([\d.]+) % de las secuencias", texto).group(1))
    assert secuencias > 99
    # El modelo vive en la sesión de ese cliente; el compartido no cambió.
    *_, propio = c.predict(modelo="el-mio", api_name=API)
    assert f"**Tu modelo** predice **{INVERTIDA}**" in propio
    assert all(torch.equal(antes[k], v) for k, v in red.state_dict().items())
    otro = Client(url_app, verbose=False)
    assert "Todavía no entrenaste" in espera_error(otro, API, modelo="el-mio")


def test_api_entrenar_rechaza_cabezas_3(url_app):
    from gradio_client import Client

    assert "El número de cabezas debe ser uno de 1, 2, 4" in espera_error(
        Client(url_app, verbose=False), API_ENTRENAR, cabezas=3
    )


def test_mira_como_aprende_dice_los_pesos_de_la_instantanea_0():
    """«Al principio mira a todas partes casi por igual»: con los pesos de la instantánea 0, calculados (0.06 a 0.23;
    parejos serían 0.125), no «por igual» a secas."""
    from demos.inversion_digitos.entrenar import _al_principio, pesos_iniciales

    menor, mayor = pesos_iniciales()
    assert 0 < menor < 1 / 8 < mayor < 2 / 8
    assert _al_principio() == (
        f"al principio mira a todas partes casi por igual (pesos de {menor:.2f} a {mayor:.2f}; parejos serían 0.125)"
    )
