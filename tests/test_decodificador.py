"""El decodificador causal que escribe la inversión de dígitos: contra PyTorch, el bucle contra la pasada
única, y la meta de su checkpoint (≥ 99.5 % de secuencias enteras, generando, en 2,000 secuencias nuevas)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from modelos import DecodificadorJuguete, cargar
from modelos.atencion import mascara_causal
from modelos.datos import secuencias_digitos
from modelos.decodificador import SEPARADOR, entrada_forzada, forzar, generar
from modelos.entrenamiento.decodificador import medir
from modelos.entrenamiento.recetas import RECETAS
from modelos.hub import CARPETA

META = 0.995  # secuencias enteras acertadas generando, como la de inversion-digitos


def _copiar_bloque(bloque, suyo: nn.TransformerEncoderLayer) -> None:
    suyo.load_state_dict(
        {
            "self_attn.in_proj_weight": bloque.atencion.qkv.weight,
            "self_attn.in_proj_bias": bloque.atencion.qkv.bias,
            "self_attn.out_proj.weight": bloque.atencion.salida.weight,
            "self_attn.out_proj.bias": bloque.atencion.salida.bias,
            "linear1.weight": bloque.mlp[0].weight,
            "linear1.bias": bloque.mlp[0].bias,
            "linear2.weight": bloque.mlp[2].weight,
            "linear2.bias": bloque.mlp[2].bias,
            "norm1.weight": bloque.norma1.weight,
            "norm1.bias": bloque.norma1.bias,
            "norm2.weight": bloque.norma2.weight,
            "norm2.bias": bloque.norma2.bias,
        }
    )


def _de_pytorch(modelo: DecodificadorJuguete, fichas: torch.Tensor) -> torch.Tensor:
    """El mismo modelo armado con las piezas de PyTorch: TransformerEncoderLayer pre-norma con is_causal=True."""
    L = fichas.shape[1]
    z = modelo.fichas(fichas) + modelo.posicion(torch.arange(L))
    causal = nn.Transformer.generate_square_subsequent_mask(L)  # −∞ encima de la diagonal
    for bloque in modelo.bloques:
        d = bloque.norma1.normalized_shape[0]
        suyo = nn.TransformerEncoderLayer(
            d, bloque.atencion.cabezas, 4 * d, dropout=0.0, batch_first=True, norm_first=True
        ).eval()
        _copiar_bloque(bloque, suyo)
        z = suyo(z, src_mask=causal, is_causal=True)
    return modelo.salida(modelo.norma(z))


@pytest.mark.parametrize("bloques, cabezas, L", [(1, 2, 16), (2, 4, 9), (1, 1, 1)])
def test_decodificador_igual_a_pytorch_con_is_causal(bloques, cabezas, L):
    torch.manual_seed(0)
    modelo = DecodificadorJuguete(d_modelo=32, cabezas=cabezas, bloques=bloques).eval()
    fichas = torch.randint(0, 11, (3, L))
    with torch.inference_mode():
        nuestros, pesos = modelo(fichas, con_pesos=True)
        assert torch.allclose(nuestros, _de_pytorch(modelo, fichas), atol=1e-5)
    assert all(p.shape == (3, cabezas, L, L) for p in pesos)
    assert all(torch.equal(p[..., mascara_causal(L)], torch.zeros_like(p[..., mascara_causal(L)])) for p in pesos)


def test_la_atencion_del_bloque_es_sdpa_con_is_causal():
    torch.manual_seed(1)
    modelo = DecodificadorJuguete().eval()
    fichas = torch.randint(0, 11, (2, 16))
    capa = modelo.bloques[0].atencion
    with torch.inference_mode():
        x = modelo.bloques[0].norma1(modelo.fichas(fichas) + modelo.posicion(torch.arange(16)))
        q, k, v = (capa.separar(t) for t in capa.qkv(x).chunk(3, dim=-1))  # (B, cabezas, L, D/cabezas)
        suya = capa.salida(capa.juntar(F.scaled_dot_product_attention(q, k, v, is_causal=True)))
        nuestra, _ = capa(x, mascara_causal(16))
    assert torch.allclose(nuestra, suya, atol=1e-6)


def test_el_futuro_no_cambia_el_pasado():
    """Cambiar la ficha 10 no mueve los logits de las posiciones 0 a 9: la máscara causal."""
    torch.manual_seed(2)
    modelo = DecodificadorJuguete().eval()
    a = torch.randint(0, 11, (1, 16))
    b = a.clone()
    b[0, 10:] = (b[0, 10:] + 1) % 10
    with torch.inference_mode():
        assert torch.equal(modelo(a)[:, :10], modelo(b)[:, :10])


def test_entrada_forzada_es_x_flecha_y_corrida():
    X = torch.tensor([[8, 3, 3, 9, 6, 9, 4, 0]])
    assert entrada_forzada(X, X.flip(1)).tolist() == [[8, 3, 3, 9, 6, 9, 4, 0, SEPARADOR, 0, 4, 9, 6, 9, 3, 3]]


def test_bucle_y_pasada_unica_dan_los_mismos_logits():
    """Teacher forcing: una pasada con lo que escribió el bucle da, en cada posición, los logits del bucle."""
    modelo = cargar("decodificador-inversion")
    X, _ = secuencias_digitos(64, semilla=5)
    with torch.inference_mode():
        escrita, logits_bucle, pesos = generar(modelo, X)
        logits_pasada = forzar(modelo, X, escrita)
    assert logits_bucle.shape == logits_pasada.shape == (64, 8, 10)
    assert torch.allclose(logits_bucle, logits_pasada, atol=1e-5)
    assert [p[0].shape[-1] for p in pesos] == list(range(9, 17))  # el mapa crece una fila y una columna por paso


def test_checkpoint_decodificador_acierta_995_de_secuencias_nuevas_generando():
    modelo = DecodificadorJuguete.from_pretrained(CARPETA / "decodificador-inversion").eval()
    assert sum(p.numel() for p in modelo.parameters()) == 13_962
    m = medir(modelo, *secuencias_digitos(2_000, semilla=2024))  # ni entrenamiento (0) ni validación
    assert m["secuencias"] >= META and m["digitos"] >= 0.999
    assert m["diferencia_bucle_pasada"] < 1e-4
    assert RECETAS["decodificador-inversion"].meta == META
    tarjeta = (CARPETA / "decodificador-inversion" / "README.md").read_text(encoding="utf-8")
    assert "| secuencias enteras acertadas, generando |" in tarjeta and "≥ 99.5%" in tarjeta
