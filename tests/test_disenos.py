"""Diseño reutilizado (`demos/_disenos.py`): la figura sale igual, píxel a píxel, que con el diseño calculado."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from demos import PESTANAS, _disenos
from demos._figuras import _es_figura, a_png
from demos._graficos import figura, mapa_calor
from tests.test_robustez import argumentos_de_ejemplo


@pytest.fixture(autouse=True)
def _sin_figuras_recordadas():
    """Cada figura pasa por el diseño: sin las ya dibujadas de `figura_recordada`."""
    from demos._recordar import RECUERDOS

    RECUERDOS.activo = False
    yield
    RECUERDOS.activo = True


def _pixeles(fig) -> np.ndarray:
    return np.asarray(Image.open(a_png(fig)))


def _figuras(vista, **kwargs) -> list:
    return [v for v in vista.fn(**kwargs) if _es_figura(v)]


@pytest.mark.parametrize("id_", [p.id for p in PESTANAS])
def test_diseno_reutilizado_da_los_mismos_pixeles(id_):
    import app

    vista = app.demo.vistas[id_]
    ejemplo = argumentos_de_ejemplo(id_)
    # Con el diseño calculado cada vez (nada guardado antes de cada figura).
    frescas = []
    for kwargs in ({}, ejemplo):
        for fig in _figuras(vista, **kwargs):
            _disenos.vaciar()
            frescas.append(_pixeles(fig))
    # Con lo guardado: la vista inicial dos veces (la segunda reutiliza) y luego el ejemplo.
    _disenos.vaciar()
    _figuras_iniciales = [_pixeles(f) for f in _figuras(vista)]
    antes = _disenos.ESTADISTICA["reusados"]
    reusadas = [_pixeles(f) for f in _figuras(vista)]
    assert _disenos.ESTADISTICA["reusados"] - antes == sum(_disenos.firma(f) is not None for f in _figuras(vista))
    reusadas += [_pixeles(f) for f in _figuras(vista, **ejemplo)]
    assert len(reusadas) == len(frescas)
    for k, (a, b) in enumerate(zip(frescas, reusadas, strict=True)):
        assert a.shape == b.shape, f"{id_}, figura {k + 1}: tamaño distinto"
        distintos = int((a != b).any(axis=-1).sum())
        assert distintos == 0, f"{id_}, figura {k + 1}: {distintos} píxeles distintos con el diseño reutilizado"


def _matriz(etiquetas, titulo="Pesos"):
    fig, eje = figura(4, 3)
    mapa_calor(eje, np.full((len(etiquetas), len(etiquetas)), 0.5), etiquetas, etiquetas)
    eje.set_title(titulo)
    return fig


def test_la_firma_cambia_con_lo_que_mueve_el_diseno_y_no_con_los_numeros():
    base = _disenos.firma(_matriz(["a", "b", "c"]))
    assert base is not None
    assert _disenos.firma(_matriz(["a", "b", "c"])) == base
    assert _disenos.firma(_matriz(["a", "b", "una palabra larga"])) != base  # otra etiqueta
    assert _disenos.firma(_matriz(["a", "b", "c", "d"])) != base  # otra forma
    assert _disenos.firma(_matriz(["a", "b", "c"], titulo="Otro título")) != base
    fig = _matriz(["a", "b", "c"])
    fig.supylabel("fila")
    assert _disenos.firma(fig) != base
    fig = _matriz(["a", "b", "c"])  # otros valores en las casillas: mismo diseño
    eje = fig.axes[0]
    eje.images[0].set_data(np.eye(3))
    assert _disenos.firma(fig) == base


def test_figuras_sin_diseno_restringido_no_se_tocan():
    fig, _ = figura(4, 3)
    fig.set_layout_engine("none")
    assert _disenos.firma(fig) is None
    assert _disenos.preparar(fig) is None
