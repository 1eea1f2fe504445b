"""La pestaña «Bloque transformer»: los parámetros de la lección y la comparación con PyTorch."""

import time

import pytest
import torch
from torch import nn

from demos.bloque import calcular, copiar_pesos, desglose, diferencia_con_pytorch, formula
from modelos import BloqueTransformer
from tests.conftest import espera_error


def test_64_4_256_da_49984_parametros_como_la_leccion():
    partes = formula(64, 256)
    assert partes == {"Atención": 16_640, "MLP": 33_088, "LayerNorm": 256}
    assert sum(partes.values()) == 49_984
    assert sum(p.numel() for p in BloqueTransformer(64, 4, 256).parameters()) == 49_984


def test_vista_inicial_tiene_el_desglose_y_dice_igual_a_pytorch():
    diagrama, barras, tabla, texto = calcular()
    assert tabla == [
        ["Atención", "4·d² + 4·d", "16,640", "16,640"],
        ["MLP", "2·d·d_mlp + d_mlp + d", "33,088", "33,088"],
        ["LayerNorm", "2 × 2·d", "256", "256"],
        ["Total", "", "49,984", "49,984"],
    ]
    assert "Igual a PyTorch: sí" in texto
    assert "49,984 parámetros" in diagrama.axes[0].get_title()


@pytest.mark.parametrize("d, cabezas, d_mlp", [(1, 1, 1), (64, 4, 256), (96, 3, 100), (512, 8, 2048), (1024, 64, 4096)])
def test_la_formula_cerrada_coincide_con_los_dos_modulos(d, cabezas, d_mlp):
    cuentas = desglose(d, cabezas, d_mlp)
    assert cuentas["nuestro"] == cuentas["pytorch"] == formula(d, d_mlp)


def test_la_salida_es_la_de_transformer_encoder_layer_con_los_mismos_pesos():
    torch.manual_seed(0)
    nuestro = BloqueTransformer(64, 4, 256).eval()
    suyo = nn.TransformerEncoderLayer(64, 4, dim_feedforward=256, dropout=0.0, batch_first=True, norm_first=True)
    copiar_pesos(nuestro, suyo)
    x = torch.randn(2, 10, 64)
    with torch.no_grad():
        y, pesos = nuestro(x)
        for entrenando in (True, False):  # el camino normal y el rápido de PyTorch (solo en eval)
            suyo.train(entrenando)
            assert torch.allclose(y, suyo(x), atol=1e-6)
    assert pesos.shape == (2, 4, 10, 10)


@pytest.mark.parametrize("d, cabezas, d_mlp", [(64, 4, 256), (16, 2, 32), (8, 1, 8)])
def test_diferencia_en_vivo_con_pytorch_es_menor_que_1e6(d, cabezas, d_mlp):
    assert diferencia_con_pytorch(d, cabezas, d_mlp) < 1e-6


def test_el_bloque_mas_grande_se_cuenta_rapido_sin_reservar_memoria():
    t0 = time.perf_counter()
    *_, tabla, texto = calcular(1024, 64, 4096)
    assert time.perf_counter() - t0 < 5
    assert tabla[-1][2] == f"{formula(1024, 4096)['Atención'] + formula(1024, 4096)['MLP'] + 4 * 1024:,}"
    assert "Igual a PyTorch: sí" in texto and "difieren" not in texto  # demasiado grande para construirlo


@pytest.mark.parametrize(
    "d, cabezas, d_mlp, mensaje",
    [
        (0, 4, 256, "entre 1 y 1024"),
        (10**9, 4, 256, "entre 1 y 1024"),
        (64, 0, 256, "entre 1 y 64"),
        (64, 3, 256, "múltiplo"),
        (64, 4, 10**12, "entre 1 y 4096"),
        (64, 4, 0, "entre 1 y 4096"),
        (64.5, 4, 256, "entero"),
        (float("nan"), 4, 256, "entero"),
        (64, float("inf"), 256, "entero"),
        ("mucho", 4, 256, "entero"),
        (64, 4, [256], "entero"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(d, cabezas, d_mlp, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(d, cabezas, d_mlp)


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    diagrama, barras, tabla, texto = cliente.predict(api_name="/bloque")
    assert diagrama and barras
    assert tabla["data"][-1] == ["Total", "", "49,984", "49,984"]
    assert "Igual a PyTorch: sí" in texto


def test_api_rechaza_entrada_mala_y_sigue_respondiendo(cliente):
    assert "múltiplo" in espera_error(cliente, "/bloque", d_modelo=64, cabezas=5)
    assert "entre 1 y 4096" in espera_error(cliente, "/bloque", d_mlp=10**9)
    *_, tabla, texto = cliente.predict(d_modelo=128, cabezas=8, d_mlp=512, api_name="/bloque")
    assert tabla["data"][-1][2] == f"{sum(formula(128, 512).values()):,}"
