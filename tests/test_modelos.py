"""El paquete `modelos` contra los números de la lección y los módulos de PyTorch."""

import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from demos.comun.fotos import recorte_leccion
from modelos import (
    CBAM,
    AtencionCanal,
    AtencionCruzada,
    AtencionEspacial,
    AtencionMulticabeza,
    BloqueTransformer,
    RedCBAM,
    TransformerJuguete,
    ViTDiminuto,
    atencion,
    mascara_causal,
    parches,
    posicion_sinusoidal,
)
from modelos.atencion import DropoutConGenerador, abandonar
from modelos.datos import digito_desde_matriz, digitos_sklearn, secuencias_digitos

# Las tres palabras de la lección: Ana, sacó, plata
Q = torch.tensor([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
K = torch.tensor([[0.0, 2.0], [1.0, 0.0], [2.0, 1.0]])
V = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


def contar(modelo: nn.Module) -> int:
    return sum(p.numel() for p in modelo.parameters())


def test_atencion_a_mano_da_los_pesos_y_la_salida_de_la_leccion():
    salida, pesos = atencion(Q, K, V)
    esperados = torch.tensor([[0.58, 0.14, 0.28], [0.28, 0.14, 0.58], [0.05, 0.19, 0.77]])
    assert torch.equal(pesos.round(decimals=2), esperados)
    assert torch.equal(salida.round(decimals=2), torch.tensor([[0.86, 0.42], [0.86, 0.72], [0.81, 0.95]]))
    assert torch.allclose(pesos.sum(dim=-1), torch.ones(3))


def test_atencion_igual_a_sdpa_de_pytorch_con_y_sin_mascara():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(4, 2, 10, 8, generator=g) for _ in range(3))
    salida, pesos = atencion(q, k, v)
    assert pesos.shape == (4, 2, 10, 10)
    assert torch.allclose(salida, F.scaled_dot_product_attention(q, k, v), atol=1e-6)
    causal = mascara_causal(10)
    salida_c, _ = atencion(q, k, v, causal)
    assert torch.allclose(salida_c, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-6)


def test_atencion_rectangular_con_dv_distinto():
    salida, pesos = atencion(torch.randn(3, 5, 4), torch.randn(3, 7, 4), torch.randn(3, 7, 6))
    assert salida.shape == (3, 5, 6) and pesos.shape == (3, 5, 7)


def test_fila_toda_tapada_da_ceros_no_nan():
    mascara = torch.zeros(3, 3, dtype=torch.bool)
    mascara[1] = True  # la palabra 2 no puede mirar a nadie
    salida, pesos = atencion(Q, K, V, mascara)
    assert not torch.isnan(salida).any() and not torch.isnan(pesos).any()
    assert torch.equal(pesos[1], torch.zeros(3)) and torch.equal(salida[1], torch.zeros(2))
    assert torch.allclose(pesos[0], atencion(Q, K, V)[1][0])


def test_mascara_causal_de_semilla_1_da_la_matriz_de_la_leccion():
    assert torch.equal(mascara_causal(5).int(), torch.ones(5, 5, dtype=torch.int).triu(1))
    torch.manual_seed(1)
    q, k = torch.randn(5, 8), torch.randn(5, 8)
    _, pesos = atencion(q, k, k, mascara_causal(5))
    assert pesos[1, :2].round(decimals=2).tolist() == pytest.approx([0.53, 0.47], abs=1e-6)
    assert pesos[4].round(decimals=2).tolist() == pytest.approx([0.13, 0.19, 0.10, 0.05, 0.53], abs=1e-6)


@pytest.mark.parametrize("d_modelo, cabezas, L", [(16, 4, 5), (64, 8, 12), (32, 1, 3)])
def test_multicabeza_igual_a_nn_multiheadattention(d_modelo, cabezas, L):
    torch.manual_seed(0)
    capa = AtencionMulticabeza(d_modelo, cabezas)
    oficial = nn.MultiheadAttention(d_modelo, cabezas, batch_first=True)
    with torch.no_grad():
        oficial.in_proj_weight.copy_(capa.qkv.weight)
        oficial.in_proj_bias.copy_(capa.qkv.bias)
        oficial.out_proj.weight.copy_(capa.salida.weight)
        oficial.out_proj.bias.copy_(capa.salida.bias)
    x = torch.randn(2, L, d_modelo)
    nuestra, pesos = capa(x)
    suya, pesos_suyos = oficial(x, x, x, average_attn_weights=False)
    assert pesos.shape == (2, cabezas, L, L)
    assert torch.allclose(nuestra, suya, atol=1e-6)
    assert torch.allclose(pesos, pesos_suyos, atol=1e-6)
    # Con máscara causal, también (attn_mask booleano: True = no mirar, la misma convención)
    nuestra_c, _ = capa(x, mascara_causal(L))
    suya_c, _ = oficial(x, x, x, attn_mask=mascara_causal(L))
    assert torch.allclose(nuestra_c, suya_c, atol=1e-6)


def test_multicabeza_no_guarda_nada_en_el_modulo():
    capa = AtencionMulticabeza(16, 4)
    antes = set(vars(capa))
    capa(torch.randn(1, 5, 16))
    assert set(vars(capa)) == antes


def test_multicabeza_con_d_no_divisible_explica_por_que():
    with pytest.raises(ValueError, match="múltiplo"):
        AtencionMulticabeza(10, 4)


def test_permutar_la_frase_sin_posicion_permuta_la_salida():
    torch.manual_seed(0)
    capa = AtencionMulticabeza(16, 4)
    x = torch.randn(1, 5, 16)
    al_reves = torch.tensor([4, 3, 2, 1, 0])
    assert torch.allclose(capa(x[:, al_reves])[0], capa(x)[0][:, al_reves], atol=1e-6)


def test_atencion_cruzada_es_rectangular_e_igual_a_pytorch():
    torch.manual_seed(0)
    cruzada = AtencionCruzada(16, 4)
    objetivo, fuente = torch.randn(2, 3, 16), torch.randn(2, 7, 16)
    y, pesos = cruzada(objetivo, fuente)
    assert y.shape == (2, 3, 16) and pesos.shape == (2, 4, 3, 7)
    oficial = nn.MultiheadAttention(16, 4, batch_first=True)
    oficial.load_state_dict(
        {
            "in_proj_weight": cruzada.qkv.weight,
            "in_proj_bias": cruzada.qkv.bias,
            "out_proj.weight": cruzada.salida.weight,
            "out_proj.bias": cruzada.salida.bias,
        }
    )
    suya, pesos_suyos = oficial(objetivo, fuente, fuente, average_attn_weights=False)
    assert torch.allclose(y, suya, atol=1e-6) and torch.allclose(pesos, pesos_suyos, atol=1e-6)


def test_posicion_sinusoidal_da_los_valores_de_la_leccion():
    pe = posicion_sinusoidal(50, 32)
    assert pe.shape == (50, 32)
    esperado = torch.tensor([[0.0, 1.0, 0.0, 1.0], [0.84, 0.54, 0.53, 0.85], [0.91, -0.42, 0.90, 0.43]])
    assert torch.equal(pe[:3, :4].round(decimals=2), esperado)
    assert posicion_sinusoidal(7, 5).shape == (7, 5)  # d_modelo impar también


def _copiar_a_pytorch(bloque: BloqueTransformer, suyo: nn.TransformerEncoderLayer) -> None:
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


@pytest.mark.parametrize("d, h, d_mlp", [(64, 4, 256), (32, 2, 128), (48, 6, 96)])
def test_bloque_igual_a_transformer_encoder_layer(d, h, d_mlp):
    torch.manual_seed(0)
    bloque = BloqueTransformer(d, h, d_mlp)
    suyo = nn.TransformerEncoderLayer(d, h, dim_feedforward=d_mlp, dropout=0.0, batch_first=True, norm_first=True)
    assert contar(bloque) == contar(suyo)
    _copiar_a_pytorch(bloque, suyo)
    suyo.eval()
    x = torch.randn(2, 10, d)
    y, pesos = bloque(x)
    assert pesos.shape == (2, h, 10, 10)
    assert torch.allclose(y, suyo(x), atol=1e-6)
    causal = mascara_causal(10)
    assert torch.allclose(bloque(x, causal)[0], suyo(x, src_mask=causal), atol=1e-6)


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_bloque_con_dropout_igual_a_transformer_encoder_layer_en_train_y_en_eval(p):
    """El dropout del tutorial (0.1 en cada clase): con la misma semilla, el bloque apaga lo mismo que los módulos de
    `nn.TransformerEncoderLayer(dropout=p)` (los pesos de la atención, lo que suma cada paso y las neuronas del MLP,
    en su orden); en eval() no apaga nada. El state_dict no cambia con p: los checkpoints cargan igual.

    La capa de PyTorch llama a su atención con `need_weights=False`: en train(), `scaled_dot_product_attention`
    sortea su propia máscara (otro uso del generador, el mismo cálculo en distribución). Con `need_weights=True`,
    `nn.MultiheadAttention` apaga los pesos con `F.dropout`, como el tutorial: se comparan sus módulos en ese orden."""
    torch.manual_seed(0)
    bloque = BloqueTransformer(32, 4, 64, dropout=p)
    assert bloque.state_dict().keys() == BloqueTransformer(32, 4, 64).state_dict().keys()
    suyo = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=p, batch_first=True, norm_first=True)
    _copiar_a_pytorch(bloque, suyo)
    suyo.train()
    x = torch.randn(2, 6, 32)
    torch.manual_seed(7)
    y = bloque.train()(x)[0]
    torch.manual_seed(7)
    h = suyo.norm1(x)
    # Con batch_first, lo que sale de nn.MultiheadAttention es una vista traspuesta, y el dropout sortea en el orden
    # de la memoria: con .contiguous(), en el de este bloque (el mismo sorteo, cada número en la misma casilla).
    x1 = x + suyo.dropout1(suyo.self_attn(h, h, h, need_weights=True)[0].contiguous())
    esperado = x1 + suyo.dropout2(suyo.linear2(suyo.dropout(suyo.activation(suyo.linear1(suyo.norm2(x1))))))
    assert torch.allclose(y, esperado, atol=1e-6)
    torch.manual_seed(8)
    assert not torch.allclose(y, bloque(x)[0])  # otra llamada, otro sorteo
    assert torch.allclose(bloque.eval()(x)[0], suyo.eval()(x), atol=1e-6)


def test_bloque_64_4_256_tiene_49984_parametros_como_la_leccion():
    bloque = BloqueTransformer(64, 4, 256)
    assert contar(bloque) == 49_984
    assert (contar(bloque.atencion), contar(bloque.mlp), contar(bloque.norma1) + contar(bloque.norma2)) == (
        16_640,
        33_088,
        256,
    )


def test_transformer_juguete_tiene_13674_parametros_y_devuelve_pesos():
    modelo = TransformerJuguete()
    assert contar(modelo) == 13_674
    x, _ = secuencias_digitos(4)
    logits, pesos = modelo(x, con_pesos=True)
    assert logits.shape == (4, 8, 10) and len(pesos) == 1 and pesos[0].shape == (4, 2, 8, 8)
    assert torch.equal(modelo(x), logits)
    assert len(TransformerJuguete(bloques=3)(x, con_pesos=True)[1]) == 3
    assert contar(TransformerJuguete(con_posicion=False)) == 13_674 - 8 * 32


def test_parches_de_la_leccion_60_por_768_y_el_11_es_el_recorte():
    imagen = recorte_leccion()
    assert imagen.shape == (3, 96, 160)
    p = parches(imagen, 16)
    assert p.shape == (60, 768)
    assert torch.equal(p[11].view(3, 16, 16), imagen[:, 16:32, 16:32])
    assert torch.equal(p[59].view(3, 16, 16), imagen[:, 80:96, 144:160])


def test_parches_descarta_el_resto_y_rechaza_p_grande():
    imagen = torch.rand(3, 20, 35)
    assert parches(imagen, 16).shape == (2, 768)  # 1 fila × 2 columnas; el resto se descarta
    with pytest.raises(ValueError, match="lado del parche"):
        parches(imagen, 21)
    with pytest.raises(ValueError, match="lado del parche"):
        parches(imagen, 0)


def test_vit_diminuto_da_logits_y_pesos_con_cls():
    vit = ViTDiminuto()
    logits, pesos = vit(torch.rand(3, 1, 8, 8), con_pesos=True)
    assert logits.shape == (3, 10)
    assert len(pesos) == 2 and pesos[0].shape == (3, 4, 17, 17)


def test_cbam_da_compuertas_entre_0_y_1_y_apagar_una_rama_la_deja_en_1():
    torch.manual_seed(0)
    cbam = CBAM(32, reduccion=16, kernel=7)
    x = torch.randn(2, 32, 9, 11)
    y, w, m = cbam(x)
    assert y.shape == x.shape and w.shape == (2, 32, 1, 1) and m.shape == (2, 1, 9, 11)
    assert 0 <= w.min() and w.max() <= 1 and 0 <= m.min() and m.max() <= 1
    assert torch.allclose(y, x * w * cbam.espacial(x * w)[1])
    _, w_sin, _ = cbam(x, canal=False)
    assert torch.equal(w_sin, torch.ones_like(w_sin))
    y_sin, _, m_sin = cbam(x, espacial=False)
    assert torch.equal(m_sin, torch.ones_like(m_sin)) and torch.allclose(y_sin, x * w)


def test_atencion_canal_es_se_y_la_espacial_usa_media_y_maximo():
    torch.manual_seed(0)
    se = AtencionCanal(16, reduccion=4)
    x = torch.randn(2, 16, 5, 5)
    y, w = se(x)
    assert torch.allclose(w, torch.sigmoid(se.mlp(x.mean(dim=(2, 3), keepdim=True))))
    assert torch.allclose(y, x * w)
    espacial = AtencionEspacial(7)
    _, m = espacial(x)
    resumen = torch.cat([x.mean(1, keepdim=True), x.max(1, keepdim=True).values], dim=1)
    assert torch.allclose(m, torch.sigmoid(espacial.conv(resumen)))


def test_red_cbam_da_logits_y_sus_dos_mapas():
    logits, w, m = RedCBAM()(torch.rand(3, 1, 8, 8), con_pesos=True)
    assert logits.shape == (3, 10) and w.shape[:2] == (3, 32) and m.shape == (3, 1, 8, 8)


def test_digitos_sklearn_particion_estratificada_0_a_1():
    X_ent, X_prueba, y_ent, y_prueba = digitos_sklearn()
    assert X_ent.shape == (1347, 1, 8, 8) and X_prueba.shape == (450, 1, 8, 8)
    assert 0 <= X_ent.min() and X_ent.max() <= 1
    total = torch.bincount(y_ent) + torch.bincount(y_prueba)
    assert ((torch.bincount(y_prueba) - total * 0.25).abs() <= 1).all()  # estratificada
    X_ent[:] = 0  # la caché no se altera
    assert digitos_sklearn()[0].max() == 1


def test_un_dibujo_se_lleva_al_formato_de_sklearn():
    tinta = torch.zeros(200, 200)
    tinta[40:160, 90:110] = 1.0  # un «1»: una barra vertical
    x = digito_desde_matriz(tinta.numpy())
    assert x.shape == (1, 1, 8, 8) and 0 <= x.min() and x.max() <= 1
    assert x[0, 0, :, 3:5].sum() > 0.8 * x.sum()  # la tinta queda en las columnas centrales
    with pytest.raises(ValueError, match="vacío"):
        digito_desde_matriz(torch.zeros(50, 50).numpy())


def test_importar_modelos_no_importa_la_interfaz():
    codigo = "import sys, modelos; print(sorted(m for m in ('gradio', 'matplotlib', 'PIL') if m in sys.modules))"
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, check=True).stdout
    assert salida.strip() == "[]"


# --- los dígitos y las fotos de sklearn, sin importar sklearn ------------------------------------


@pytest.mark.parametrize("semilla, prueba", [(0, 0.25), (1, 0.25), (7, 0.3)])
def test_particion_estratificada_da_los_indices_de_stratified_shuffle_split(semilla, prueba):
    """Los mismos índices, en el mismo orden, que `StratifiedShuffleSplit` (lo que usa `train_test_split`)."""
    import numpy as np
    from sklearn.datasets import load_digits
    from sklearn.model_selection import StratifiedShuffleSplit

    from modelos.datos import particion_estratificada

    y = load_digits().target
    ent, pru = next(StratifiedShuffleSplit(1, test_size=prueba, random_state=semilla).split(np.zeros(len(y)), y))
    mio_ent, mio_pru = particion_estratificada(y, prueba, semilla)
    assert mio_ent.tolist() == ent.tolist() and mio_pru.tolist() == pru.tolist()


def test_digitos_y_fotos_como_los_de_sklearn():
    """`digitos_sklearn` es `train_test_split(test_size=0.25, random_state=0, stratify=y)` de `load_digits`."""
    import numpy as np
    from sklearn.datasets import load_digits, load_sample_image
    from sklearn.model_selection import train_test_split

    from demos.comun.fotos import imagen_muestra
    from modelos.datos import digitos_sklearn, normalizar_digitos

    d = load_digits()
    X_ent, X_pru, y_ent, y_pru = train_test_split(d.data, d.target, test_size=0.25, random_state=0, stratify=d.target)
    mios = digitos_sklearn()
    esperados = (normalizar_digitos(X_ent), normalizar_digitos(X_pru), torch.as_tensor(y_ent), torch.as_tensor(y_pru))
    assert all(torch.equal(a, b) for a, b in zip(mios, esperados, strict=True))
    for nombre in ("china.jpg", "flower.jpg"):
        assert np.array_equal(imagen_muestra(nombre), load_sample_image(nombre))


def test_los_digitos_no_importan_sklearn():
    """Importar `sklearn.datasets` le sumaba ≈ 85 MB al servidor solo para leer un CSV y dos JPEG."""
    codigo = (
        "import sys\n"
        "from demos.comun.fotos import imagen_muestra\n"
        "from modelos.datos import digitos_sklearn\n"
        "digitos_sklearn(), imagen_muestra('china.jpg')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))"
    )
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, check=True).stdout
    assert salida.strip() == "[]"


@pytest.mark.parametrize(
    "L, w, g, bloque, r, semilla",
    [
        (2048, 4, 1, 64, 1, 0),  # la pestaña al abrir
        (2048, 64, 4, 64, 4, 2**31 - 1),
        (2048, 0, 0, 64, 0, 3),
        (2048, 63, 3, 64, 2, 123),
        (2048, 5, 4, 64, 0, 9),
        (37, 11, 2, 2, 4, 5),  # L no es múltiplo del bloque
        (64, 64, 4, 2, 3, 8),  # la ventana cubre la fila entera
        (4, 1, 4, 2, 1, 1),  # todas globales
    ],
)
def test_casillas_bigbird_cuenta_las_de_la_mascara(L, w, g, bloque, r, semilla):
    """La cuenta sin armar la matriz (la del texto de «Variantes», con L = 2 048) es la de la máscara entera."""
    from modelos import dispersa

    esperado = int((~dispersa.bigbird(L, w, g, bloque, r, semilla)).sum())
    assert dispersa.casillas_bigbird(L, w, g, bloque, r, semilla) == esperado


# --- dropout sobre los pesos (tutorial §2.1: attn_weights = self.dropout(attn_weights)) ---------------------------


def _par_con_dropout(d_modelo: int, cabezas: int, p: float) -> tuple[AtencionMulticabeza, nn.MultiheadAttention]:
    torch.manual_seed(0)
    capa = AtencionMulticabeza(d_modelo, cabezas, dropout=p)
    oficial = nn.MultiheadAttention(d_modelo, cabezas, dropout=p, batch_first=True)
    with torch.no_grad():
        oficial.in_proj_weight.copy_(capa.qkv.weight)
        oficial.in_proj_bias.copy_(capa.qkv.bias)
        oficial.out_proj.weight.copy_(capa.salida.weight)
        oficial.out_proj.bias.copy_(capa.salida.bias)
    return capa, oficial


@pytest.mark.parametrize("d_modelo, cabezas, L, p", [(16, 4, 5, 0.1), (16, 1, 6, 0.5), (32, 8, 7, 0.2)])
def test_dropout_en_train_igual_a_nn_multiheadattention_con_la_misma_semilla(d_modelo, cabezas, L, p):
    """Las dos sortean una Bernoulli por peso, en el mismo orden (B, cabezas, L, L): con la misma semilla, las mismas
    casillas apagadas, los mismos pesos devueltos (después del dropout) y la misma salida."""
    capa, oficial = _par_con_dropout(d_modelo, cabezas, p)
    capa.train(), oficial.train()
    x = torch.randn(2, L, d_modelo)
    torch.manual_seed(5)
    nuestra, pesos = capa(x)
    torch.manual_seed(5)
    suya, pesos_suyos = oficial(x, x, x, average_attn_weights=False)
    assert torch.equal(pesos == 0, pesos_suyos == 0) and (pesos == 0).any()
    assert torch.allclose(pesos, pesos_suyos, atol=1e-6) and torch.allclose(nuestra, suya, atol=1e-6)
    # Los que quedan valen peso/(1 − p): la fila ya no suma 1
    sin = atencion(*[capa.separar(t) for t in capa.qkv(x).chunk(3, dim=-1)])[1]
    quedan = pesos != 0
    assert torch.allclose(pesos[quedan], sin[quedan] / (1 - p), atol=1e-6)
    assert not torch.allclose(pesos.sum(-1), torch.ones(()), atol=1e-3)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_en_eval_es_como_p_0_y_como_pytorch(p):
    capa, oficial = _par_con_dropout(16, 4, p)
    sin = AtencionMulticabeza(16, 4)
    sin.load_state_dict(capa.state_dict())  # el dropout no tiene parámetros: el mismo state_dict
    capa.eval(), oficial.eval()
    x = torch.randn(2, 5, 16)
    y, pesos = capa(x)
    y0, pesos0 = sin(x)
    assert torch.equal(y, y0) and torch.equal(pesos, pesos0)
    assert torch.allclose(pesos.sum(-1), torch.ones(2, 4, 5), atol=1e-6)
    suya, pesos_suyos = oficial(x, x, x, average_attn_weights=False)
    assert torch.allclose(y, suya, atol=1e-6) and torch.allclose(pesos, pesos_suyos, atol=1e-6)
    capa.dropout = DropoutConGenerador(p, torch.Generator().manual_seed(1))
    assert torch.equal(capa.eval()(x)[1], pesos)  # en eval tampoco hace nada


def test_abandonar_es_f_dropout_y_con_generador_no_toca_el_rng_global():
    pesos = torch.softmax(torch.randn(2, 4, 6, 6), dim=-1)
    torch.manual_seed(3)
    esperado = F.dropout(pesos, 0.3, training=True)
    torch.manual_seed(123)
    antes = torch.random.get_rng_state()
    assert torch.equal(abandonar(pesos, 0.3, torch.Generator().manual_seed(3)), esperado)
    assert torch.equal(torch.random.get_rng_state(), antes)
    assert abandonar(pesos, 0.0) is pesos
    for malo in (1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match=r"\[0, 1\)"):
            abandonar(pesos, malo)


def test_dropout_con_generador_da_lo_mismo_que_con_el_rng_global_y_atencion_cruzada_tambien():
    capa = AtencionMulticabeza(16, 4, dropout=0.25).train()
    x = torch.randn(1, 6, 16)
    torch.manual_seed(9)
    global_ = capa(x)
    capa.dropout = DropoutConGenerador(0.25, torch.Generator().manual_seed(9))
    propio = capa(x)
    assert all(torch.equal(a, b) for a, b in zip(global_, propio, strict=True))
    cruzada = AtencionCruzada(16, 4, dropout=0.25).train()
    cruzada.dropout = DropoutConGenerador(0.25, torch.Generator().manual_seed(9))
    _, pesos = cruzada(torch.randn(1, 3, 16), x)
    assert pesos.shape == (1, 4, 3, 6) and (pesos == 0).any()
    assert set(cruzada.state_dict()) == set(AtencionCruzada(16, 4).state_dict())
