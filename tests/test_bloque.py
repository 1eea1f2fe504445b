"""La pestaña «Bloque transformer»: los parámetros de la lección y la comparación con PyTorch."""

import time

import numpy as np
import pytest
import torch
from torch import nn

from demos.bloque.atajos import N_MAX, SIN_ATAJOS, diferencia_con_encoder, medidas_de_la_pila
from demos.bloque.parametros import (
    copiar_pesos,
    desglose,
    diferencia_con_pytorch,
    formula,
    layernorm_de_la_leccion,
)
from demos.bloque.pestana import calcular
from demos.comun.figuras import numero
from demos.comun.figuras.pantalla import figura_plotly_json
from modelos import BloqueTransformer
from modelos.transformer import PilaTransformer
from tests.ayuda import espera_error, figura_api


def test_64_4_256_da_49984_parametros_como_la_leccion():
    partes = formula(64, 256)
    assert partes == {"Atención": 16_640, "MLP": 33_088, "LayerNorm": 256}
    assert sum(partes.values()) == 49_984
    assert sum(p.numel() for p in BloqueTransformer(64, 4, 256).parameters()) == 49_984


def test_vista_inicial_tiene_el_desglose_y_dice_igual_a_pytorch():
    diagrama, barras, tabla, texto, *_ = calcular()
    assert tabla == [
        ["Atención", "4·d² + 4·d", "16 640", "16 640"],
        ["MLP", "2·d·d_mlp + d_mlp + d", "33 088", "33 088"],
        ["LayerNorm", "2 × 2·d", "256", "256"],
        ["Total", "", "49 984", "49 984"],
    ]
    assert "Igual a PyTorch: sí" in texto
    assert diagrama.titulo == "Un bloque transformer: 49\u202f984 parámetros"  # numero(): espacio fino de miles
    notas = {c.texto: c.nota for c in diagrama.cajas}
    assert notas["Atención multicabeza"] == "16\u202f640 parámetros, 4 cabezas"
    assert notas["MLP (64 → 256 → 64)"] == "33\u202f088 parámetros"
    assert notas["LayerNorm"] == "128 parámetros"  # cada una de las dos: 256 entre ambas
    assert [c.texto for c in diagrama.cajas if c.redonda] == ["+", "+"]
    atajos = [f for f in diagrama.flechas if f.texto == "residual"]
    assert len(atajos) == 2 and all(f.codos for f in atajos)  # los atajos residuales: flechas con codo
    assert barras.categorias == ("Atención", "MLP", "LayerNorm") and barras.horizontal
    assert list(barras.series[0].valores) == [16_640, 33_088, 256]
    assert barras.textos(barras.series[0]) == ["16\u202f640 (33.3 %)", "33\u202f088 (66.2 %)", "256 (0.51 %)"]


@pytest.mark.parametrize("d, cabezas, d_mlp", [(64, 4, 256), (1024, 64, 4096), (16, 1, 16)])
def test_las_figuras_suman_el_total_de_la_tabla_y_pesan_poco(d, cabezas, d_mlp):
    diagrama, barras, tabla, *_ = calcular(d, cabezas, d_mlp)
    total = int(tabla[-1][2].replace("\u202f", ""))
    assert sum(barras.series[0].valores) == total
    assert diagrama.titulo.endswith(f"{numero(total, ',.0f')} parámetros")
    assert f"{cabezas} {'cabeza' if cabezas == 1 else 'cabezas'}" in " ".join(c.nota for c in diagrama.cajas)
    assert len(figura_plotly_json(diagrama)) + len(figura_plotly_json(barras)) < 20_000


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
    # La vista cuenta y compara con la misma pareja de módulos: su número es el de diferencia_con_pytorch.
    texto = calcular(d, cabezas, d_mlp)[3]
    assert f"lo sumo en **{diferencia_con_pytorch(d, cabezas, d_mlp):.1e}**" in texto


def test_compartir_pesos_deja_a_pytorch_con_los_tensores_del_bloque():
    from demos.bloque.parametros import _compartir_pesos, _pareja

    nuestro, suyo = _pareja(32, 4, 64, "meta")
    nuestro = nuestro.to_empty(device="cpu")
    _compartir_pesos(nuestro, suyo)
    propios = {id(p) for p in nuestro.parameters()}
    assert all(id(p) in propios and p.device.type == "cpu" for p in suyo.parameters())
    assert sum(p.numel() for p in suyo.parameters()) == sum(formula(32, 64).values())


@pytest.mark.parametrize("forma, escala", [((48, 16), 0.25), ((16,), 0.1), ((7, 5), 1 / 5**0.5)])
def test_los_pesos_al_azar_en_el_lugar_son_los_de_randn(forma, escala):
    """diferencia_con_pytorch y tutorial_2_2 llenan cada parámetro con normal_ en el lugar: son los mismos números
    que torch.randn(forma, generator=g) * escala (y / escala), sin tensores intermedios."""
    en_el_lugar = torch.empty(forma).normal_(generator=torch.Generator().manual_seed(0)).mul_(escala)
    assert torch.equal(en_el_lugar, torch.randn(forma, generator=torch.Generator().manual_seed(0)) * escala)
    en_el_lugar = torch.empty(forma).normal_(generator=torch.Generator().manual_seed(1)).div_(escala)
    assert torch.equal(en_el_lugar, torch.randn(forma, generator=torch.Generator().manual_seed(1)) / escala)


def test_el_bloque_mas_grande_se_cuenta_rapido_sin_reservar_memoria():
    t0 = time.perf_counter()
    _, _, tabla, texto, *_ = calcular(1024, 64, 4096)
    assert time.perf_counter() - t0 < 5
    assert tabla[-1][2] == numero(formula(1024, 4096)["Atención"] + formula(1024, 4096)["MLP"] + 4 * 1024, ",.0f")
    assert "Igual a PyTorch: sí" in texto and "difieren" not in texto  # demasiado grande para construirlo


@pytest.mark.parametrize(
    "d, cabezas, d_mlp, mensaje",
    [
        (0, 4, 256, "entre 1 y 1\u202f024"),
        (10**9, 4, 256, "entre 1 y 1\u202f024"),
        (64, 0, 256, "entre 1 y 64"),
        (64, 3, 256, "múltiplo"),
        (64, 4, 10**12, "entre 1 y 4\u202f096"),
        (64, 4, 0, "entre 1 y 4\u202f096"),
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
    diagrama, barras, tabla, texto, atajos, texto_atajos = cliente.predict(api_name="/bloque")
    tipos, textos = figura_api(diagrama)
    assert tipos == ["scatter"] and textos[0] == "Un bloque transformer: 49\u202f984 parámetros"
    assert figura_api(barras) == (["bar"], ["¿Dónde están los parámetros?"])
    assert tabla["data"][-1] == ["Total", "", "49 984", "49 984"]
    assert "Igual a PyTorch: sí" in texto
    tipos, textos = figura_api(atajos)
    assert tipos.count("heatmap") == 2 and "Gradiente en Q y K del bloque de arriba" in textos
    assert "**Con N = 4 bloques**" in texto_atajos and "salen **iguales**" in texto_atajos


def test_api_rechaza_entrada_mala_y_sigue_respondiendo(cliente):
    assert "múltiplo" in espera_error(cliente, "/bloque", d_modelo=64, cabezas=5)
    assert "entre 1 y 4\u202f096" in espera_error(cliente, "/bloque", d_mlp=10**9)
    _, _, tabla, texto, *_ = cliente.predict(d_modelo=128, cabezas=8, d_mlp=512, api_name="/bloque")
    assert tabla["data"][-1][2] == numero(sum(formula(128, 512).values()), ",.0f")


def test_layernorm_y_forma_de_la_leccion():
    """La lección imprime tensor([[-1.34, -0.45, 0.45, 1.34]]) y «Forma: torch.Size([2, 10, 64])»."""
    assert layernorm_de_la_leccion() == pytest.approx((-1.34, -0.45, 0.45, 1.34), abs=1e-6)
    texto = calcular()[3]
    assert "(1, 2, 3, 4) a **(−1.34, −0.45, 0.45, 1.34)**" in texto
    assert "una entrada (2, 10, 64), los dos dan una salida (2, 10, 64)" in texto


def test_la_varianza_1_de_layernorm_es_la_poblacional():
    """y = LN(1, 2, 3, 4): var(unbiased=False) ≈ 1 (lo que normaliza LayerNorm); y.var() divide por n − 1: 1.33."""
    from demos.bloque.parametros import varianzas_de_la_leccion

    y = nn.LayerNorm(4)(torch.tensor([[1.0, 2.0, 3.0, 4.0]])).detach()
    poblacional, muestral = varianzas_de_la_leccion()
    assert poblacional == pytest.approx(y.var(unbiased=False).item()) and f"{poblacional:.2f}" == "1.00"
    assert muestral == pytest.approx(y.var().item()) and f"{muestral:.2f}" == "1.33"
    texto = calcular()[3]
    assert "`y.var(unbiased=False)` da 1.00" in texto and "`y.var()`" in texto and "da 1.33" in texto


def test_la_comparacion_del_tutorial_reconoce_una_capa_pre_norma(monkeypatch):
    """Las dos diferencias son contra capas de PyTorch, no contra la misma cuenta: si la capa del tutorial fuera
    pre-norma, x + A(LN(x)), la diferencia con la post-norma sería grande y con la pre-norma, nula."""
    from demos.bloque import parametros as bloque

    def pre_norma(self, x, key_padding_mask=None):
        z = self.layernorm(x)
        return x + self.attention(z, z, z, key_padding_mask=key_padding_mask)[0], None

    monkeypatch.setattr(bloque.AtencionDelTutorial, "forward", pre_norma)
    dif = bloque.tutorial_2_2.__wrapped__(64, 4)  # sin la caché: la de la capa de verdad
    assert dif["pre"] < 1e-6 < 0.1 < dif["post"]


def test_el_codigo_pre_norm_del_tutorial_es_post_norma():
    """El §2.2 del tutorial llama «Pre-Norm» a LN(x + atención(x)): es la post-norma de
    nn.TransformerEncoderLayer(norm_first=False), no la pre-norma del bloque."""
    from demos.bloque.parametros import tutorial_2_2

    dif = tutorial_2_2(64, 4)
    assert dif["post"] < 1e-6 < 0.1 < dif["pre"]
    texto = calcular()[3]
    assert "§2.2" in texto and "post-norma" in texto and f"{dif['pre']:.2f}" in texto


# --- la pila: sin atajos residuales (tutorial §7.1) y con su norma final (§5.1) ---------------------


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("norma_final", [True, False])
def test_la_pila_es_transformer_encoder_con_norma_final_y_los_mismos_pesos(n, norma_final):
    """PilaTransformer(64, 4, 256, n) = nn.TransformerEncoder(capa pre-norma, n, norm=nn.LayerNorm(64)) (o norm=None),
    con los pesos copiados bloque a bloque: el TransformerEncoder del tutorial (§5.1) con su `final_norm`."""
    torch.manual_seed(0)
    nuestra = PilaTransformer(64, 4, 256, n, norma_final=norma_final).eval()
    with torch.no_grad():
        for p in nuestra.parameters():  # γ y β lejos de 1 y 0: una norma final olvidada se notaría
            p.add_(0.1 * torch.randn(p.shape))
    capa = nn.TransformerEncoderLayer(64, 4, dim_feedforward=256, dropout=0.0, batch_first=True, norm_first=True)
    suya = nn.TransformerEncoder(capa, n, norm=nn.LayerNorm(64) if norma_final else None, enable_nested_tensor=False)
    for bloque, su_capa in zip(nuestra.bloques, suya.layers, strict=True):
        copiar_pesos(bloque, su_capa)
    if norma_final:
        suya.norm.load_state_dict(nuestra.norma.state_dict())
    x = torch.randn(2, 10, 64)
    with torch.no_grad():
        y, pesos = nuestra(x)
        for entrenando in (True, False):  # el camino normal y el rápido de PyTorch (solo en eval)
            suya.train(entrenando)
            assert torch.allclose(y, suya(x), atol=1e-5)
    assert len(pesos) == n and pesos[0].shape == (2, 4, 10, 10)
    assert diferencia_con_encoder(n, norma_final) < 1e-5  # la que cita la pestaña, con su propia copia


def test_sin_atajos_el_bloque_quita_las_dos_sumas_y_no_sus_parametros():
    torch.manual_seed(0)
    con = BloqueTransformer(64, 4, 256).eval()
    sin = BloqueTransformer(64, 4, 256, residual=False).eval()
    sin.load_state_dict(con.state_dict())  # los mismos parámetros: el atajo no es uno
    x = torch.randn(2, 8, 64)
    with torch.no_grad():
        a, _ = con.atencion(con.norma1(x))
        x1 = x + a
        assert torch.allclose(con(x)[0], x1 + con.mlp(con.norma2(x1)), atol=1e-6)
        assert torch.allclose(sin(x)[0], con.mlp(con.norma2(a)), atol=1e-6)  # y = MLP(LN(Atención(LN(x))))
        assert (sin(x)[0] - con(x)[0]).abs().max() > 0.5


def test_sin_atajos_las_posiciones_salen_iguales_y_el_gradiente_de_q_y_k_se_apaga():
    """Lo que dice la pestaña, medido: sin atajos, desde 3 bloques las 8 posiciones salen iguales (a la precisión de
    float32) y el gradiente que llega a Q y K del bloque de arriba cae más de mil veces; con atajos, no. El gradiente
    que llega a la entrada no se apaga en ninguna de las dos (las LayerNorm reescalan)."""
    medidas = medidas_de_la_pila()
    for n in range(3, N_MAX + 1):
        con, sin = medidas["con"][n - 1], medidas["sin"][n - 1]
        assert sin["diferencia"] < 1e-5 < 0.5 < con["diferencia"]
        assert np.allclose(sin["parecido"], 1, atol=1e-4)
        assert sin["grad_qk"][-1] < 1e-3 * con["grad_qk"][-1]
        assert 1 / 3 < sin["grad_entrada"] / con["grad_entrada"] < 3
    uno = medidas["sin"][0]  # con 1 bloque, todavía distintas: el texto no dice «iguales»
    assert uno["diferencia"] > 0.1 and "salen **iguales**" not in calcular(bloques=1)[5]


def test_la_norma_final_lleva_cada_vector_a_tamano_1_y_sin_ella_crece_con_n():
    medidas = medidas_de_la_pila()
    rms = [m["rms"] for m in medidas["con"]]
    assert all(m["rms_final"] == pytest.approx(1.0, abs=1e-3) for m in medidas["con"])
    assert rms[-1] > 1.3 * rms[0] > medidas["rms_entrada"]


def test_los_numeros_del_texto_de_la_pila_salen_de_las_medidas():
    from demos.bloque.atajos import _g, _veces

    texto = calcular(bloques=8)[5]
    con, sin = medidas_de_la_pila()["con"][7], medidas_de_la_pila()["sin"][7]
    assert f"diferencia relativa **{_g(con['diferencia'])}**" in texto
    assert f"(diferencia **{_g(sin['diferencia'])}**" in texto
    assert f"es {_g(con['grad_qk'][-1])} con atajos y {_g(sin['grad_qk'][-1])} sin ellos" in texto
    assert f"**{_veces(con['grad_qk'][-1] / sin['grad_qk'][-1])} veces menos**" in texto
    apagados = sum(g < 1e-4 for g in sin["grad_qk"])
    assert f"{apagados} de los 8 bloques reciben" in texto and apagados >= 5
    assert f"= **{numero(con['rms'])}**" in texto and "tras la norma final, **1.00**" in texto
    assert "num_layers=8, norm=nn.LayerNorm(64)" in texto and "«una condición necesaria" in SIN_ATAJOS
    assert _veces(18_202) == "1.8 × 10⁴" and _veces(99_960) == "1.0 × 10⁵" and _veces(4.2) == "4"


def test_la_figura_de_la_pila_sigue_a_n_y_pesa_poco():
    figura, _ = calcular(bloques=5)[4:]
    con, sin, gradiente = figura.paneles
    assert con.titulo.endswith("N = 5") and sin.titulo.startswith("Sin atajos")
    assert np.allclose(sin.matriz, 1, atol=1e-4) and con.matriz.shape == (8, 8)
    assert gradiente.verticales[0].valor == 5 and [c.nombre for c in gradiente.curvas] == ["con atajos", "sin atajos"]
    assert len(figura_plotly_json(figura)) < 20_000


def test_la_pregunta_de_los_atajos_se_responde_con_lo_que_muestra_la_pestana():
    from demos.bloque.pestana import APRENDER

    cifras = APRENDER.preguntas[2].cifras()
    assert cifras["respuesta"] == "iguales" and cifras["sin"] in calcular(bloques=8)[5]


@pytest.mark.parametrize("bloques", [0, 17, 2.5, float("nan"), "muchos", 10**9])
def test_bloques_fuera_de_rango_da_valueerror_en_espanol(bloques):
    with pytest.raises(ValueError, match="El número de bloques debe ser un número entero entre 1 y 16"):
        calcular(bloques=bloques)


@pytest.mark.parametrize(
    "kw", [{"bloques": 10**6}, {"bloques": 0}, {"bloques": 4, "d_modelo": 10**6}, {"bloques": 4, "lote": 2.0}]
)
def test_medir_pila_acota_antes_de_reservar(kw):
    from modelos.transformer import medir_pila

    with pytest.raises(ValueError, match="debe ser un entero de 1 a"):
        medir_pila(**kw)


# --- en Chromium: las capturas que se miran (artefactos/capturas/bloque-*.png) y ningún texto pisado ------------


@pytest.mark.navegador
@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("nombre", "ventana", "esquema"),
    [("portatil", (1280, 800), "light"), ("telefono", (390, 844), "light"), ("oscuro", (1280, 800), "dark")],
)
def test_capturas_de_la_pila_sin_atajos_sin_textos_que_se_pisen(navegador, url_app, nombre, ventana, esquema):
    from tests.ayuda_navegador import (
        ESPERA_MS,
        QUIETA,
        QUIETA_MS,
        carpeta_capturas,
        fuente_figura,
        guardar_captura,
        textos_que_se_solapan,
    )

    movil = ventana[0] < 500
    contexto = navegador.new_context(
        viewport=dict(zip(("width", "height"), ventana, strict=True)),
        locale="es-ES",
        color_scheme=esquema,
        has_touch=movil,
        is_mobile=movil,
    )
    contexto.set_default_timeout(ESPERA_MS)
    pg = contexto.new_page()
    try:
        pg.goto(url_app + "demo/bloque/?predecir=0")
        fuente_figura(pg, "bloque")
        pg.wait_for_function(QUIETA, arg=QUIETA_MS, timeout=30_000, polling=50)  # sin salidas a medio llegar
        guardar_captura(pg, carpeta_capturas() / f"bloque-{nombre}.png")
        assert not textos_que_se_solapan(pg)
        seccion = pg.locator("#bloque-atajos")
        seccion.scroll_into_view_if_needed()
        seccion.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
        pg.wait_for_timeout(800)
        assert "salen iguales" in seccion.inner_text() and seccion.locator(".js-plotly-plot").count() == 1
        guardar_captura(pg, carpeta_capturas() / f"bloque-{nombre}-atajos.png")
        pg.screenshot(path=str(carpeta_capturas() / f"bloque-{nombre}-entera.png"), full_page=True)
    finally:
        contexto.close()
