"""Autoatención frente a una RNN: la RNN y la atención contra PyTorch, los pasos, el gradiente y la vista inicial."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from demos import autoatencion_rnn as pestana
from modelos import AtencionMulticabeza, atencion
from modelos import recurrente as r


@pytest.mark.parametrize(("d_entrada", "d_oculto", "L"), [(3, 5, 1), (16, 16, 8), (8, 32, 40)])
def test_rnn_elman_paso_a_paso_da_lo_mismo_que_nn_rnn(d_entrada, d_oculto, L):
    torch.manual_seed(0)
    suya = nn.RNN(d_entrada, d_oculto, batch_first=True)
    nuestra = r.RNNElman.de_torch(suya)
    x = torch.randn(2, L, d_entrada)
    estados, h_final = suya(x)
    assert torch.allclose(nuestra(x), estados, atol=1e-6)
    assert torch.allclose(nuestra(x)[:, -1], h_final[0], atol=1e-6)


def test_rnn_elman_se_inicia_como_nn_rnn():
    """U(−1/√d, 1/√d) en todos sus parámetros, como nn.RNN."""
    rnn = r.RNNElman(16, 64)
    for p in rnn.parameters():
        assert p.abs().max() <= 1 / math.sqrt(64)


@pytest.mark.parametrize("L", [2, 5, 12])
def test_la_atencion_es_la_de_pytorch(L):
    """La capa de la pestaña es la de nn.MultiheadAttention, y su núcleo el de F.scaled_dot_product_attention."""
    torch.manual_seed(0)
    capa = AtencionMulticabeza(16, 2)
    oficial = nn.MultiheadAttention(16, 2, batch_first=True)
    with torch.no_grad():
        oficial.in_proj_weight.copy_(capa.qkv.weight)
        oficial.in_proj_bias.copy_(capa.qkv.bias)
        oficial.out_proj.weight.copy_(capa.salida.weight)
        oficial.out_proj.bias.copy_(capa.salida.bias)
    x = torch.randn(1, L, 16)
    assert torch.allclose(capa(x)[0], oficial(x, x, x)[0], atol=1e-6)
    q, k, v = torch.randn(3, 1, 2, L, 8).unbind(0)
    assert torch.allclose(atencion(q, k, v)[0], F.scaled_dot_product_attention(q, k, v), atol=1e-6)


@pytest.mark.parametrize("L", [2, 6, 15])
def test_el_gradiente_de_la_rnn_es_el_producto_de_l_menos_1_jacobianos(L):
    """‖∂h_L/∂x_1‖ de autograd = ‖Π_t diag(1 − h_t²)·W_hh · diag(1 − h_1²)·W_ih‖, escrito a mano."""
    rnn, _, palabras = r.redes(16, 0)
    x = palabras[:, :L]
    with torch.no_grad():
        h = rnn(x)[0]  # (L, 16)
        J = torch.diag(1 - h[0] ** 2) @ rnn.entrada.weight  # ∂h_1/∂x_1
        for t in range(1, L):
            J = torch.diag(1 - h[t] ** 2) @ rnn.oculto.weight @ J  # un paso más
    de_rnn, _ = r.gradientes([L])
    assert de_rnn[0] == pytest.approx(J.norm().item(), rel=1e-4)


def test_el_gradiente_de_la_atencion_es_el_jacobiano_de_torch_func():
    _, capa, palabras = r.redes(16, 0)
    x = palabras[:, :8]
    J = torch.func.jacrev(lambda z: capa(z)[0][0, -1])(x)  # (16, 1, 8, 16)
    _, de_atencion = r.gradientes([8])
    assert de_atencion[0] == pytest.approx(J[:, 0, 0].norm().item(), rel=1e-4)


def test_pasos_entre_palabras_l_menos_1_contra_1():
    assert r.pasos_rnn(8)[7, 0] == 7
    assert r.pasos_rnn(8)[0, 7] == -1  # hacia atrás no llega
    a = r.pasos_autoatencion(8)
    assert a[7, 0] == 1 and a.diagonal().sum() == 0 and a.sum() == 8 * 7


def test_l_8_abre_con_7_pasos_contra_1_y_gradiente_00084_contra_020():
    """La vista inicial: L = 8 (las secuencias de la lección), semilla 0."""
    figura, texto, punto = pestana.calcular()
    assert "la RNN da **7 pasos** y la autoatención **1**" in punto
    assert "en secuencia, **8** contra **1**" in punto
    assert "**0.0084** en la RNN y **0.20** en la autoatención" in punto
    assert "24 veces más grande en la autoatención" in texto
    assert figura.paneles[0].titulo == "RNN: de la palabra 1 a la 8, 7 pasos"
    assert "1.8e−11 con L = 32" in texto  # la curva llega a L = 32: 11 órdenes de magnitud más abajo


def test_el_gradiente_de_la_rnn_cae_geometricamente_y_el_de_la_atencion_no():
    _, rnn, atencion_ = pestana.curva_gradientes()
    assert rnn[0] / rnn[-1] > 1e10  # de L = 2 a L = 32
    assert atencion_[0] / atencion_[-1] < 20
    assert (rnn[1:] < rnn[:-1]).all()


def test_la_prediccion_l_4_multiplica_por_26_y_las_preguntas():
    p = pestana.APRENDER.prediccion
    assert p.cifras() == {"respuesta": "mucho", "antes": "0.0084", "despues": "0.22", "veces": "26"}
    q1, q2 = pestana.APRENDER.preguntas
    assert q1.cifras()["respuesta"] == 9  # L = 10: L − 1 pasos
    assert q2.cifras() == {"respuesta": 1, "rnn": 10}  # en secuencia: 1 contra L


def test_medir_tiempos_da_medianas_y_corta_con_su_presupuesto():
    t = r.medir_tiempos(L=16, d=8, presupuesto_s=0.01, veces=50)
    assert t["veces"] >= 3
    assert min(t["rnn_propia_ms"], t["rnn_torch_ms"], t["atencion_ms"]) > 0


@pytest.mark.parametrize("L", [1, 11, "x"])
def test_un_largo_fuera_de_rango_se_dice_en_espanol(L):
    with pytest.raises(ValueError, match="largo"):
        pestana.calcular(L)


def test_la_linea_medida_dice_cual_tarda_menos_con_lo_medido(monkeypatch):
    """Los tiempos no entran en la figura: una línea aparte, armada con las medianas que da `medir_tiempos`."""
    falsos = {256: (3.5, 10.7, 0.55), 1024: (14.3, 53.0, 36.6)}  # (nn.RNN, RNNElman, autoatención) en ms

    def medir(L, **_):
        rnn, propia, atencion_ = falsos[L]
        return {"L": L, "d": 64, "rnn_torch_ms": rnn, "rnn_propia_ms": propia, "atencion_ms": atencion_, "veces": 21}

    monkeypatch.setattr(r, "medir_tiempos", medir)
    pestana._tiempos_una_vez.cache_clear()
    try:
        linea = pestana.calcular_tiempos()
    finally:
        pestana._tiempos_una_vez.cache_clear()
    assert linea.startswith("**Medido en esta máquina**")
    assert "tardan **3.50 ms**" in linea and "**0.55 ms**: la autoatención tarda 6.4 veces menos" in linea
    assert "**36.6 ms**: la autoatención tarda 2.6 veces más" in linea and "L²" in linea
