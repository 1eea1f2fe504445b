"""Convenciones de máscaras (lección §2.2 y §7.1): True = ignorar contra 1 = conservar, y la fila NaN.

Lo que hace torch de verdad, medido aquí: una fila con todas sus claves tapadas da NaN en
`nn.MultiheadAttention` y en un softmax escrito a mano con −∞ (el del clasificador del tutorial, §6);
`F.scaled_dot_product_attention` da 0 desde torch 2.5 (pytorch/pytorch#133882), y `modelos.atencion`
también 0. Con −1e9 no hay NaN, pero la fila reparte su peso por igual entre lo tapado.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from modelos import atencion
from modelos.convenciones import (
    argumento_flash,
    comparar_convenciones,
    de_hugging_face_a_pytorch,
    fila_tapada,
    mascaras_de_relleno,
)


def test_la_misma_mascara_en_las_tres_convenciones():
    m = mascaras_de_relleno([3, 5, 1], L=5)
    assert m["pytorch"].tolist() == [
        [False, False, False, True, True],
        [False, False, False, False, False],
        [False, True, True, True, True],
    ]
    assert m["hugging_face"].dtype == torch.int64 and torch.equal(m["hugging_face"], (~m["pytorch"]).long())
    assert torch.equal(m["sdpa"], ~m["pytorch"])  # SDPA: True = participa, al revés que MultiheadAttention
    assert torch.equal(de_hugging_face_a_pytorch(m["hugging_face"]), m["pytorch"])


def test_la_mascara_de_hugging_face_convertida_da_lo_mismo_y_sin_convertir_tapa_las_palabras():
    r = comparar_convenciones([5, 3])
    pesos = r["pesos"]
    bien, convertida, mal = pesos["pytorch"], pesos["hugging_face_convertida"], pesos["hugging_face_sin_convertir"]
    assert torch.equal(bien, convertida)
    assert torch.equal(bien[1, :, 3:], torch.zeros(5, 2))  # bien: el relleno de la frase 2 recibe 0
    assert torch.equal(mal[1, :, :3], torch.zeros(5, 3))  # mal: las 3 palabras reciben 0…
    assert torch.allclose(mal[1, :, 3:].sum(dim=-1), torch.ones(5))  # …y todo el peso va al relleno
    assert mal[0].isnan().all()  # la frase sin relleno queda toda tapada: NaN


def test_fila_toda_tapada_nan_en_multihead_y_a_mano_cero_en_sdpa_y_en_modelos():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, 3, 4, generator=g) for _ in range(3))  # (B, cabezas, L, d)
    no_mirar = torch.zeros(3, 3, dtype=torch.bool)
    no_mirar[1] = True  # la consulta 2 no puede mirar a nadie

    # F.scaled_dot_product_attention (máscara booleana: True = participa)
    sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=~no_mirar)
    assert torch.equal(sdpa[0, 0, 1], torch.zeros(4))  # torch ≥ 2.5: 0, no NaN
    # el softmax a mano con −∞, como en el clasificador de la lección
    puntajes = (q @ k.transpose(-2, -1) / 2).masked_fill(no_mirar, float("-inf"))
    assert puntajes.softmax(dim=-1)[0, 0, 1].isnan().all()
    # nn.MultiheadAttention con la fila de key_padding_mask toda True
    capa = nn.MultiheadAttention(4, 1, batch_first=True)
    salida, pesos = capa(q[0], k[0], v[0], key_padding_mask=torch.ones(1, 3, dtype=torch.bool))
    assert salida.isnan().all() and pesos.isnan().all()
    # modelos.atencion: pesos 0 y salida 0 en esa fila; las demás, como SDPA
    salida, pesos = atencion(q, k, v, no_mirar)
    assert torch.equal(pesos[0, 0, 1], torch.zeros(3)) and torch.equal(salida[0, 0, 1], torch.zeros(4))
    assert torch.allclose(salida, sdpa, atol=1e-6)


@pytest.mark.parametrize("L", [1, 4, 9])
def test_fila_tapada_menos_1e9_reparte_por_igual_y_menos_infinito_da_nan(L):
    r = fila_tapada(L=L)
    assert r["menos_infinito"]["nan"] and r["menos_infinito"]["pesos"].isnan().all()
    assert not r["menos_1e9"]["nan"] and torch.allclose(r["menos_1e9"]["pesos"], torch.full((L,), 1 / L))
    assert r["menos_1e9_float16"]["nan"]  # −1e9 no cabe en float16: es −∞
    assert r["multihead"]["nan"]
    for cero in ("sdpa", "modelos"):
        assert not r[cero]["nan"] and torch.equal(r[cero]["salida"], torch.zeros(4))
    assert torch.equal(r["modelos"]["pesos"], torch.zeros(L)) and r["sdpa"]["pesos"] is None


def test_menos_1e9_en_float16_masked_fill_lanza_error_y_sumado_da_nan():
    """Los dos casos de −1e9 en float16: masked_fill lo rechaza (no cabe: el menor es −65 504) y sumado es −∞."""
    puntajes, tapada = torch.zeros(1, 4, dtype=torch.float16), torch.ones(1, 4, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="overflow") as error:
        puntajes.masked_fill(tapada, -1e9)
    r = fila_tapada()
    assert r["menos_1e9_float16_masked_fill"]["error"] == str(error.value)
    assert (puntajes + torch.tensor(-1e9).half()).isneginf().all() and r["menos_1e9_float16"]["nan"]


def test_multihead_da_nan_solo_cuando_devuelve_los_pesos():
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(1, 2, 4, generator=g), torch.randn(1, 3, 4, generator=g)
    capa = nn.MultiheadAttention(4, 1, batch_first=True).eval()
    todo = torch.ones(1, 3, dtype=torch.bool)
    con_pesos, pesos = capa(q, k, k, key_padding_mask=todo)  # need_weights=True, por omisión
    sin_pesos, nada = capa(q, k, k, key_padding_mask=todo, need_weights=False)
    assert con_pesos.isnan().all() and pesos.isnan().all()
    assert nada is None and torch.equal(sin_pesos, torch.zeros(1, 2, 4))


def test_attn_implementation_no_es_argumento_de_multihead_attention():
    with pytest.raises(TypeError) as error:
        nn.MultiheadAttention(16, 4, batch_first=True, attn_implementation="flash_attention_2")
    assert argumento_flash() == str(error.value) and "attn_implementation" in argumento_flash()


@pytest.mark.parametrize(
    ("llamada", "mensaje"),
    [
        (lambda: mascaras_de_relleno([]), "largos"),
        (lambda: mascaras_de_relleno([3, -1]), "entero de 0 a 64"),
        (lambda: mascaras_de_relleno([3], L=2), "«L»"),
        (lambda: mascaras_de_relleno([10**9]), "entero de 0 a 64"),
        (lambda: mascaras_de_relleno("abc"), "largos"),
        (lambda: comparar_convenciones([2], d=0), "«d»"),
        (lambda: fila_tapada(L=10**6), "«L»"),
    ],
)
def test_convenciones_rechazan_tamanos_malos_antes_de_reservar(llamada, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        llamada()
