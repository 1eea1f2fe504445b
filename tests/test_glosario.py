"""El glosario compartido: una definición de una línea por término, y cada pestaña de H6 lo enlaza."""

from __future__ import annotations

import importlib

import gradio as gr
import pytest

from demos.comun import glosario
from demos.comun.glosario import TERMINOS, definicion, seccion, texto


def test_cada_termino_tiene_una_definicion_de_una_linea():
    for termino, d in TERMINOS.items():
        assert "\n" not in d and d.endswith(".") and 20 <= len(d) <= 150, termino


def test_una_palabra_por_cosa():
    """«ficha» es un token; «parámetros» y «pesos» no son lo mismo; «one-hot» con su glosa en español."""
    assert "token" in definicion("ficha")
    assert "no son los pesos de atención" in definicion("parámetros")
    assert "vector indicador" in definicion("one-hot")
    assert "conjunto de prueba" in TERMINOS and not any("partición" in d for d in TERMINOS.values())


def test_texto_sigue_el_orden_pedido_sin_repetir():
    assert texto(["pesos", "ficha", "pesos"]).splitlines() == [
        f"- **pesos**: {TERMINOS['pesos']}",
        f"- **ficha**: {TERMINOS['ficha']}",
    ]


def test_un_termino_que_no_esta_da_valueerror_en_espanol():
    with pytest.raises(ValueError, match="no está en el glosario"):
        texto(["token"])


def test_seccion_es_un_acordeon_cerrado_con_su_id():
    with gr.Blocks():
        acordeon = seccion(("ficha",), "prueba")
    assert isinstance(acordeon, gr.Accordion) and acordeon.open is False and acordeon.elem_id == "prueba-glosario"


def test_el_modulo_no_importa_gradio_al_importarse():
    assert "gradio" not in glosario.__dict__


@pytest.mark.parametrize(
    ("modulo", "id_"),
    [
        ("demos.temperatura", "temperatura"),
        ("demos.posicion", "posicion"),
        ("demos.a_mano", "a-mano"),
        ("demos.mascara_causal.pestana", "mascara-causal"),
        ("demos.inversion_digitos.pestana", "inversion-digitos"),
        ("demos.clasificador_atencion.pestana", "clasificador-atencion"),
    ],
)
def test_cada_pestana_enlaza_el_glosario(modulo, id_):
    with gr.Blocks() as demo:
        importlib.import_module(modulo).construir()
    ids = [getattr(b, "elem_id", None) for b in demo.blocks.values()]
    assert f"{id_}-glosario" in ids
