"""La pestaña «Atención a mano» reproduce los números de la lección y rechaza tablas mal formadas."""

import json
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from demos.a_mano import K0, Q0, V0, _limitar_fila, atender, calcular, en_lote, leer_tabla
from demos.comun.figuras import Paneles
from demos.comun.figuras.pantalla import figura_plotly
from modelos import atencion
from tests.ayuda import espera_error

PUNTAJES_LECCION = [[1.41, 0.0, 0.71], [1.41, 0.71, 2.12], [0.0, 1.41, 2.83]]
PESOS_LECCION = [[0.58, 0.14, 0.28], [0.28, 0.14, 0.58], [0.05, 0.19, 0.77]]
SALIDA_LECCION = [[0.86, 0.42], [0.86, 0.72], [0.81, 0.95]]


def _numeros(tabla):
    """Los números de una tabla de salida, sin la columna de las palabras."""
    return [fila[1:] for fila in tabla["data"]]


def test_vista_inicial_da_los_puntajes_pesos_y_salida_de_la_leccion():
    _, puntajes, pesos, salida, _ = calcular()
    assert _numeros(puntajes) == PUNTAJES_LECCION
    assert [f[:-1] for f in _numeros(pesos)] == PESOS_LECCION
    assert [f[-1] for f in _numeros(pesos)] == [1.0, 1.0, 1.0]  # la suma de cada fila
    assert _numeros(salida) == SALIDA_LECCION
    assert [f[0] for f in puntajes["data"]] == ["Ana", "sacó", "plata"]
    assert pesos["metadata"]["display_value"][0][-1] == "1.00"


def test_la_figura_muestra_los_tres_pasos_de_la_leccion_y_la_suma_de_cada_fila():
    figura, *_ = calcular()
    assert isinstance(figura, Paneles)
    puntajes, pesos, sumas, salida = figura.paneles
    assert puntajes.textos() == [[f"{x:.2f}" for x in fila] for fila in PUNTAJES_LECCION]
    assert pesos.textos() == [[f"{x:.2f}" for x in fila] for fila in PESOS_LECCION]
    assert sumas.textos() == [["1.00"]] * 3 and sumas.x == ("Σ fila",)
    assert salida.textos() == [[f"{x:.2f}" for x in fila] for fila in SALIDA_LECCION]
    assert [p.titulo for p in figura.paneles] == [
        "1) Puntajes Q·Kᵀ / √d",
        "2) Pesos: softmax por fila",
        "",
        "3) Salida = pesos · V",
    ]
    assert puntajes.x == puntajes.y == pesos.x == ("Ana", "sacó", "plata") and salida.x == ("v1", "v2")
    assert pesos.nombres_y == sumas.nombres_y == salida.nombres_y == ("Ana", "sacó", "plata")
    assert (puntajes.eje_x, puntajes.eje_y) == ("Palabra que se mira (clave)", "Palabra que mira (consulta)")
    # Escalas: los pesos de 0 a 1; puntajes y salida desde 0 (o su mínimo, si es negativo) hasta su máximo.
    assert (pesos.vmin, pesos.vmax) == (0.0, 1.0)
    assert puntajes.vmin == 0.0 and puntajes.vmax == pytest.approx(4 / 2**0.5)  # plata·plata = 4, / √2
    assert figura_plotly(figura)["data"][1]["customdata"][0][0] == ["Ana", "Ana", "0.576"]  # la pista dice la palabra


def test_numeros_grandes_con_tres_cifras_y_sin_numeros_si_no_caben():
    Q = [[1000, 1000], [-1000, 1000], [0, 0]]
    figura, *_ = calcular(Q=Q, K=Q)
    assert figura.paneles[0].textos()[0] == ["1.41e+06", "0", "0"]
    ocho = [[float(i), float(j)] for i, j in zip(range(8), range(8, 0, -1), strict=True)]
    figura, *_ = calcular("a b c d e f g h", ocho, ocho, ocho)
    puntajes, pesos, sumas, salida = figura.paneles
    assert not puntajes.con_numeros  # «45.25» no cabe en una de 8 casillas: el valor sale al pasar el ratón
    assert sumas.con_numeros and sumas.textos() == [["1.00"]] * 8
    assert puntajes.matriz.shape == pesos.matriz.shape == (8, 8) and salida.matriz.shape == (8, 2)


def test_pesos_de_ana_058_014_028_y_salida_de_plata_081_095():
    *_, salida, texto = calcular()
    assert "**0.58**, **0.14**, **0.28**" in texto
    assert salida["data"][2] == ["plata", 0.81, 0.95]
    assert "(0.86, 0.42)" in texto


def _paso_3(texto: str) -> tuple[np.ndarray, np.ndarray]:
    """Del paso 3 del detalle: la suma de los términos escritos (w·(v…)) y el vector que dice que suman."""
    linea = next(x for x in texto.splitlines() if x.startswith("3. **Salida**"))
    cuenta = linea.split(": ", 1)[1]
    terminos, resultado = cuenta.split(" = ", 1)
    suma = 0
    for w, v in re.findall(r"([\d.]+)·\(([^)]*)\)", terminos):
        suma = suma + float(w) * np.array([float(x.replace("−", "-")) for x in v.split(", ")])
    dice = re.match(r"\**\(([^)]*)\)", resultado).group(1)
    return suma, np.array([float(x.replace("−", "-")) for x in dice.split(", ")])


@pytest.mark.parametrize("fila", [1, 2, 3])
def test_los_terminos_del_paso_3_suman_lo_que_se_escribe(fila):
    """La lección: 0.05·(1, 0) + 0.19·(0, 1) + 0.77·(1, 1) suma (0.82, 0.96), no (0.81, 0.95): el texto escribe esa
    suma y después la salida exacta, la de la tabla."""
    *_, salida, texto = calcular(fila=fila)
    suma, dice = _paso_3(texto)
    assert np.allclose(suma, dice, atol=1e-9)
    if fila == 3:
        assert "= (0.82, 0.96); con los pesos sin redondear, la salida es **(0.81, 0.95)**" in texto
        assert salida["data"][2][1:] == [0.81, 0.95]


def test_paso_3_con_valores_decimales_tambien_suma_lo_escrito():
    *_, texto = calcular(V=[[1.5, 0], [0, 1.25], [-1, 1]], fila=3)
    suma, dice = _paso_3(texto)
    assert np.allclose(suma, dice, atol=1e-9)


def test_la_llamada_en_lote_de_la_leccion_y_igual_que_a_mano():
    """La lección: `atencion(q, q, q)` con q (4, 2, 10, 8) da (4, 2, 10, 8) y (4, 2, 10, 10); «Igual que a mano»."""
    lote = en_lote()
    assert lote == {"q": (4, 2, 10, 8), "salida": (4, 2, 10, 8), "pesos": (4, 2, 10, 10)}
    q = torch.randn(4, 2, 10, 8, generator=torch.Generator().manual_seed(0))
    salida, _ = atencion(q, q, q)
    assert torch.allclose(salida, F.scaled_dot_product_attention(q, q, q), atol=1e-6)
    *_, texto = calcular()
    assert "igual que a mano: `True`" in texto
    assert "da la salida (4, 2, 10, 8) y los pesos (4, 2, 10, 10)" in texto


def test_la_vista_calcula_con_un_hilo_de_torch(monkeypatch):
    """Tablas de a lo sumo 8 × 8: con dos hilos de torch (las pruebas, o ATENCION_HILOS_TORCH=2) cada softmax
    esperaba al otro hilo; la vista calcula con uno y deja el número como estaba."""
    from demos import a_mano

    hilos, original = [], a_mano.atender
    monkeypatch.setattr(a_mano, "atender", lambda *a: hilos.append(torch.get_num_threads()) or original(*a))
    antes = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        calcular()
        assert hilos == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(antes)


def test_igual_que_modelos_atencion_y_scaled_dot_product_attention():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 4))
    _, pesos, salida = atender(Q, K, V)
    Qt, Kt, Vt = (torch.tensor(t) for t in (Q, K, V))
    salida_m, pesos_m = atencion(Qt, Kt, Vt)
    assert np.allclose(salida, salida_m.numpy()) and np.allclose(pesos, pesos_m.numpy())
    assert np.allclose(salida, F.scaled_dot_product_attention(Qt, Kt, Vt).numpy())
    _, _, salida_leccion = atender(np.array(Q0), np.array(K0), np.array(V0))
    sdpa = F.scaled_dot_product_attention(torch.tensor(Q0), torch.tensor(K0), torch.tensor(V0))
    assert np.allclose(salida_leccion, sdpa.numpy(), atol=1e-6)


@pytest.mark.parametrize(
    "forma",
    [
        [[0, 1], [1, 1], [2, 0]],
        {"headers": ["q1", "q2"], "data": [[0, 1], [1, 1], [2, 0]]},
        np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]),
        [["0", "1"], [" 1 ", "1,0"], ["2", "−0"]],
    ],
)
def test_acepta_lista_dict_numpy_pandas_y_textos_numericos(forma):
    assert leer_tabla(forma, "Q").tolist() == [[0, 1], [1, 1], [2, 0]]


def test_acepta_pandas():
    pd = pytest.importorskip("pandas")
    assert leer_tabla(pd.DataFrame(Q0, columns=["q1", "q2"]), "Q").tolist() == Q0


def test_otra_forma_cuatro_palabras_y_v_de_tres_columnas():
    Q = [[1, 0], [0, 1], [1, 1], [0, 0]]
    V = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]]
    figura, puntajes, pesos, salida, texto = calcular("Ana sacó plata ayer", Q, Q, V, fila=4)
    assert len(puntajes["data"]) == 4 and len(salida["data"][0]) == 1 + 3
    assert all(f[-1] == 1.0 for f in pesos["data"])
    assert "«ayer»" in texto


def test_fila_mayor_que_las_palabras_detalla_la_ultima_y_lo_dice():
    # Por el API (que no tiene el límite del deslizador): se detalla la última, con un aviso claro.
    *_, texto = calcular(fila=8)
    assert "Pediste la fila 8, pero hay 3 palabras: se detalla la última, la 3." in texto and "«plata»" in texto


def test_el_deslizador_de_la_fila_llega_solo_hasta_las_palabras():
    import gradio as gr

    from demos import a_mano

    with gr.Blocks():
        fila = a_mano.construir().url["fila"]
    assert (fila.minimum, fila.maximum) == (1, 3)  # la pestaña abre con tres palabras
    cambio = _limitar_fila("Ana, sacó, plata, ayer", 2)
    assert cambio["maximum"] == 4 and cambio["value"] == 2 and "de 1 a 4" in cambio["label"]
    cambio = _limitar_fila("Ana sacó", 3)
    assert cambio["maximum"] == 2 and cambio["value"] == 2 and "de 1 a 2" in cambio["label"]
    assert _limitar_fila("Ana", 1)["interactive"] is False


def test_palabras_repetidas_tienen_etiquetas_distintas():
    _, puntajes, *_ = calcular("la casa la")
    assert puntajes["headers"] == ["Palabra", "la", "casa", "la (2)"]


def test_valores_enormes_dentro_del_limite_no_dan_nan():
    Q = [[1000, 1000], [-1000, 1000], [0, 0]]
    _, _, pesos, _, texto = calcular(Q=Q, K=Q)
    assert all(np.isfinite(f[1:]).all() for f in pesos["data"])
    assert "se resta el máximo" in texto


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"Q": [[0, 1, 2], [1, 1, 1], [2, 0, 0]]}, "Q tiene 3 columnas y K tiene 2"),
        ({"V": [[1, 0], [0, 1]]}, "K tiene 3 filas y V tiene 2"),
        ({"palabras": "Ana sacó"}, "Hay 2 palabras y Q tiene 3 filas"),
        ({"Q": [[0, "hola"], [1, 1], [2, 0]]}, "«hola» .* no es un número"),
        ({"Q": [[0, ""], [1, 1], [2, 0]]}, "está vacía"),
        ({"Q": [[0, None], [1, 1], [2, 0]]}, "está vacía"),
        ({"Q": [[0, float("nan")], [1, 1], [2, 0]]}, "números finitos"),
        ({"K": [[0, float("inf")], [1, 1], [2, 0]]}, "números finitos"),
        ({"Q": [[0, 1e300], [1, 1], [2, 0]]}, "entre −1\u202f000 y 1\u202f000"),
        ({"Q": [[0, True], [1, 1], [2, 0]]}, "no tiene un número"),
        ({"Q": [[0, 1], [1], [2, 0]]}, "largos distintos"),
        ({"Q": [[0] * 9] * 3}, "caben de 1 a 8"),
        ({"Q": [[0, 1]] * 9}, "caben hasta 8"),
        ({"Q": []}, "está vacía"),
        ({"Q": [[]]}, "está vacía"),
        ({"Q": "abc"}, "debe ser una tabla"),
        ({"Q": None}, "debe ser una tabla"),
        ({"palabras": ""}, "al menos una palabra"),
        ({"palabras": "a " * 9}, "caben de 1 a 8"),
        ({"palabras": "x" * 100_000}, "demasiado largo"),
        ({"palabras": "Ana sacó " + "p" * 21}, "muy larga"),
        ({"palabras": 3}, "deben ser un texto"),
        ({"fila": 0}, "entre 1 y 8"),
        ({"fila": 1.5}, "entre 1 y 8"),
        ({"fila": "uno"}, "entre 1 y 8"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**kw)


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    figura, puntajes, pesos, salida, texto = cliente.predict(api_name="/a_mano")
    assert [t["type"] for t in json.loads(figura["plot"])["data"]] == ["heatmap"] * 4  # puntajes, pesos, sumas, salida
    assert _numeros(puntajes) == PUNTAJES_LECCION
    assert [f[:-1] for f in _numeros(pesos)] == PESOS_LECCION
    assert _numeros(salida) == SALIDA_LECCION


def test_api_con_tabla_editada_recalcula(cliente):
    Q = {"headers": ["q1", "q2"], "data": [[3, 1], [1, 1], [2, 0]]}
    _, _, pesos, _, texto = cliente.predict(Q=Q, api_name="/a_mano")
    assert pesos["data"][0][1:4] == [0.03, 0.05, 0.92]
    assert "q = (3, 1)" in texto


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"K": {"headers": ["k1"], "data": [[1], [0], [2]]}}, "Q tiene 2 columnas y K tiene 1"),
        ({"V": {"headers": ["v1", "v2"], "data": [[1, 0]]}}, "K tiene 3 filas y V tiene 1"),
        ({"Q": {"headers": ["q1", "q2"], "data": [["x", 1], [1, 1], [2, 0]]}}, "no es un número"),
        ({"Q": {"headers": ["q1", "q2"], "data": [[None, 1], [1, 1], [2, 0]]}}, "está vacía"),
        ({"Q": {"headers": ["q1", "q2"], "data": [["nan", 1], [1, 1], [2, 0]]}}, "números finitos"),
        ({"Q": {"data": [[1, 2]] * 10_000}}, "caben hasta 8"),
        ({"Q": [[0, 1], [1, 1], [2, 0], [1, 1]]}, "Q tiene 4 filas"),
        ({"Q": "abc"}, "debe ser una tabla"),
    ],
)
def test_api_rechaza_tablas_mal_formadas_en_espanol(cliente, kw, mensaje):
    assert mensaje in espera_error(cliente, "/a_mano", **kw)


def test_api_sigue_respondiendo_despues_de_un_error(cliente):
    espera_error(cliente, "/a_mano", palabras="")
    *_, salida, _ = cliente.predict(api_name="/a_mano")
    assert salida["data"][2][1:] == [0.81, 0.95]
