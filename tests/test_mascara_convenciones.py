"""La sección «Convenciones de máscaras» de Máscara causal: True contra 1, −∞ contra −1e9 y la fila NaN.

Los números salen de PyTorch en vivo: las pruebas los comparan con lo que PyTorch hace en la versión instalada.
"""

from __future__ import annotations

import pytest
import torch
from torch.nn import functional as F

from demos.comun.figuras.pantalla import figura_plotly_json
from demos.mascara_causal.convenciones import MANERAS, calcular_convenciones, multihead_sin_pesos
from modelos.convenciones import NOTA_MODELOS, argumento_flash
from tests.ayuda_navegador import fuente_figura


@pytest.fixture(scope="module")
def seccion():
    return calcular_convenciones()


def test_la_misma_mascara_escrita_al_reves_en_pytorch_y_en_hugging_face(seccion):
    mascaras, _, _, _ = seccion
    # Cada valor va en código (`True`, `1`): es la máscara como la escribe Python, no una palabra en inglés.
    assert all(v.startswith("`") and v.endswith("`") for fila in mascaras for v in fila[2:])
    mascaras = [[*fila[:2], *(v.strip("`") for v in fila[2:])] for fila in mascaras]
    frase_2 = {fila[1].split(",")[0]: fila[2:] for fila in mascaras[3:6]}  # la frase de 3 palabras y 2 de relleno
    assert frase_2["PyTorch"] == ["False", "False", "False", "True", "True"]  # True = ignorar
    assert frase_2["Hugging Face"] == ["1", "1", "1", "0", "0"]  # 1 = conservar
    assert frase_2["SDPA"] == ["True", "True", "True", "False", "False"]  # True = mirar
    assert mascaras[0][2:] == ["False"] * 5 and mascaras[1][2:] == ["1"] * 5  # la frase 1 no tiene relleno


def test_la_figura_muestra_la_mascara_sin_convertir_mirando_al_relleno_y_sin_nan(seccion):
    _, figura, _, _ = seccion
    bien, convertida, mal = figura.paneles
    assert (bien.matriz == convertida.matriz).all()
    assert bien.matriz[:, 3:].sum() == 0 and bien.matriz.sum(axis=1) == pytest.approx([1] * 5)
    assert mal.matriz[:, :3].sum() == 0 and mal.matriz[:, 3:].sum(axis=1) == pytest.approx([1] * 5)
    assert "NaN" not in figura_plotly_json(figura)


def test_la_fila_toda_tapada_da_nan_con_menos_infinito_y_ceros_en_sdpa_y_modelos(seccion):
    _, _, filas, _ = seccion
    por_manera = {fila[0]: fila for fila in filas}
    nan = "NaN, NaN, NaN, NaN"
    assert por_manera[MANERAS["menos_infinito"]][1:] == [nan, nan, "sí"]  # la agrupación del tutorial, §6
    assert por_manera[MANERAS["menos_1e9"]][1] == "0.25, 0.25, 0.25, 0.25"  # sin NaN, pero mira a lo tapado
    assert por_manera[MANERAS["menos_1e9_float16"]][3] == "sí"
    error = por_manera[MANERAS["menos_1e9_float16_masked_fill"]]
    assert error[1] == "— (error)" and "without overflow" in error[2]
    assert por_manera[MANERAS["multihead"]][1:] == [nan, nan, "sí"]
    assert por_manera[MANERAS["modelos"]][1:] == ["0.00, 0.00, 0.00, 0.00"] * 2 + ["no"]
    # SDPA, en vivo: lo que diga la tabla es lo que da la versión instalada de torch
    q, k, v = torch.randn(1, 1, 4), torch.randn(1, 4, 4), torch.randn(1, 4, 4)
    cero = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(1, 4, dtype=torch.bool))
    esperado = "sí" if cero.isnan().any() else "no"
    assert por_manera[MANERAS["sdpa"]][3] == esperado == por_manera[MANERAS["multihead_sin_pesos"]][3]


def test_en_torch_2_13_sdpa_ya_no_da_nan():
    q, k, v = torch.randn(1, 1, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    salida = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(1, 3, dtype=torch.bool))
    assert torch.equal(salida, torch.zeros(1, 1, 4))  # desde torch 2.5 (_safe_softmax)
    assert multihead_sin_pesos()["salida"].tolist() == [0.0] * 4


def test_el_texto_dice_la_version_de_torch_y_la_convencion_de_modelos(seccion):
    _, _, _, texto = seccion
    assert torch.__version__ in texto and NOTA_MODELOS in texto
    assert "`F.scaled_dot_product_attention` da **ceros**" in texto
    assert "5 de sus 5 filas salen NaN" in texto  # la frase sin relleno con la attention_mask sin convertir
    assert "key_padding_mask = attention_mask == 0" in texto
    assert "en float16 −1e9 se vuelve −∞" not in texto and "lanza `RuntimeError: value cannot be converted" in texto
    assert f"PyTorch responde: `TypeError: {argumento_flash()}`" in texto
    assert "da NaN si se le piden los pesos y ceros si no (`need_weights=False`" in texto


def test_la_vista_principal_dice_los_dos_casos_de_multihead():
    from demos.mascara_causal.pestana import calcular

    texto = calcular()[2]
    assert "`nn.MultiheadAttention` da **NaN** si devuelve los pesos (`need_weights=True`" in texto
    assert "y **ceros** con `need_weights=False`" in texto


@pytest.mark.navegador
def test_el_acordeon_se_llena_al_abrirlo_y_escribe_nan(pagina, url_app):
    pagina.goto(f"{url_app}demo/mascara-causal/")
    fuente_figura(pagina, "mascara-causal")
    assert pagina.get_by_text("NaN, NaN, NaN, NaN").count() == 0  # cerrado: no se calculó
    pagina.get_by_text("Convenciones de máscaras").first.click()
    pagina.get_by_text("NaN, NaN, NaN, NaN").first.wait_for(timeout=30_000)
    pagina.get_by_text("key_padding_mask = attention_mask == 0").first.wait_for(timeout=30_000)
    assert pagina.errores == []
