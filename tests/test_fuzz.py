"""Entrada hostil para cada pestaña del registro: solo se admite un resultado o un error en español.

Hypothesis genera valores de todo tipo (NaN, ±inf, enormes, negativos, textos vacíos y de
100 kB, otros alfabetos, tipos equivocados, listas) y los pone en uno o varios parámetros de
la función de cálculo de cada pestaña, y en su endpoint público. Se corre un número fijo de
ejemplos para que el tiempo quede acotado.
"""

from __future__ import annotations

import inspect
import json
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demos import PESTANAS
from demos.comun.figuras import es_figura
from demos.comun.figuras.pantalla import figura_plotly_json

ESPANOL = re.compile(r"[áéíóúñ¿¡]|\b(debe|entre|es|no|un|una|el|la|los|las|de|con|sin)\b", re.IGNORECASE)
INGLES = re.compile(r"Traceback|\bmust\b|\bgreater than\b|\bValue\b|object has no attribute|unsupported operand")

numeros = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, 0, -1, -(10**9), 10**9, 10**18, 1e308, -1e-308, 0.5, 2**31]),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
)
textos = st.one_of(
    st.sampled_from(
        ["", " ", "a" * 100_000, "٣٤٥", "漢字 かな", "🙂" * 50, "1e999", "nan", "-0", ",,,", "\x00", "NaN, inf"]
    ),
    st.text(max_size=60),
)
raros = st.one_of(
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=5),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
cualquiera = st.one_of(numeros, textos, raros)


def funciones():
    import app

    return [(p.id, app.vistas(app.demo)[p.id].fn) for p in PESTANAS]


def parametros(fn) -> list[str]:
    return [n for n, p in inspect.signature(fn).parameters.items() if p.default is not inspect.Parameter.empty]


def revisar_figura(fig) -> None:
    """Ni un «nan» ni un «inf» escrito en la figura, ni imágenes con NaN fuera de la máscara."""
    for texto in fig.findobj(lambda a: hasattr(a, "get_text")):
        contenido = texto.get_text()
        assert not re.search(r"\bnan\b|\binf\b", contenido, re.IGNORECASE), f"la figura muestra {contenido!r}"
    for eje in fig.axes:
        for imagen in eje.get_images():
            datos = np.ma.asarray(imagen.get_array())
            assert np.isfinite(datos.compressed() if np.ma.isMaskedArray(datos) else datos).all()


def revisar_descripcion(fig) -> None:
    """Lo que el navegador recibe: ni «nan» ni «inf» escritos, ni un NaN en el JSON (null es «sin casilla»)."""
    texto = re.sub(r"data:image/\w+;base64,[A-Za-z0-9+/=]+", "", figura_plotly_json(fig))  # el base64 puede decir «NaN»
    assert "NaN" not in texto and "Infinity" not in texto, "el JSON de la figura lleva NaN o infinitos"
    for trazo in json.loads(texto)["data"]:
        for t in np.ravel(np.asarray(trazo.get("text", []), dtype=object)):
            assert not re.search(r"\bnan\b|\binf\b", str(t), re.IGNORECASE), f"la figura muestra {t!r}"


def revisar_resultado(resultado) -> None:
    for valor in resultado if isinstance(resultado, tuple) else (resultado,):
        if es_figura(valor):
            revisar_descripcion(valor)
        elif hasattr(valor, "savefig"):
            revisar_figura(valor)
        elif isinstance(valor, str):
            assert not re.search(r"\bnan\b", valor, re.IGNORECASE), valor[:200]


def revisar_error(e: Exception) -> None:
    mensaje = str(e)
    assert ESPANOL.search(mensaje) and not INGLES.search(mensaje), f"mensaje no español: {mensaje[:300]}"


@pytest.mark.parametrize("id_, fn", funciones(), ids=[p.id for p in PESTANAS])
def test_funcion_de_calculo_resiste_entrada_hostil(id_, fn):
    nombres = parametros(fn)

    @settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def caso(data):
        elegidos = data.draw(st.lists(st.sampled_from(nombres), min_size=1, max_size=len(nombres), unique=True))
        kwargs = {n: data.draw(cualquiera, label=n) for n in elegidos}
        try:
            resultado = fn(**kwargs)
        except ValueError as e:
            revisar_error(e)
        else:
            revisar_resultado(resultado)

    caso()


@pytest.mark.parametrize("id_", [p.id for p in PESTANAS])
def test_endpoint_resiste_entrada_hostil_y_sigue_respondiendo(cliente, id_):
    from gradio_client.exceptions import AppError

    api = "/" + id_.replace("-", "_")
    info = cliente.view_api(print_info=False, return_format="dict")["named_endpoints"][api]
    nombres = [p["parameter_name"] for p in info["parameters"]]
    hostiles = [math.nan, math.inf, -1e300, "", "a" * 100_000, "٣٤٥", None, [1, 2], {"x": 1}, -(10**12)]
    for k, valor in enumerate(hostiles):
        nombre = nombres[k % len(nombres)]
        try:
            cliente.predict(**{nombre: valor}, api_name=api)
        except AppError as e:
            revisar_error(e)
            assert "Algo falló" not in str(e), f"{api}: fallo inesperado con {nombre}={valor!r:.40}"
        except ValueError as e:  # el cliente no sabe codificar NaN/inf en JSON: no sale de aquí
            assert "JSON" in str(e), e
    assert cliente.predict(api_name=api) is not None  # el servidor sigue respondiendo
