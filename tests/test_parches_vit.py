"""La pestaña «Parches ViT»: el recorte de la lección, la rejilla numerada y el ViT diminuto entrenado."""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import torch

import modelos
from demos.comun.digitos import ORIGEN_DIBUJO, PISTA_DIBUJO
from demos.comun.figuras import C0, C1, Aviso, Barras, Imagen, Paneles
from demos.comun.figuras.pantalla import figura_plotly
from demos.parches_vit.parches import IMAGENES, formas, foto
from demos.parches_vit.pestana import calcular
from demos.parches_vit.vit_digito import digito, rollout
from modelos.formato import por_ciento
from tests.ayuda import espera_error, figura_api

CHINA = IMAGENES[1]


# --- el caso de la lección ------------------------------------------------------------------------


def test_recorte_de_la_leccion_da_60_parches_de_768():
    rejilla, *_, tabla, texto = calcular()
    assert rejilla.titulo == "60 parches de 16 × 16 píxeles"  # el de la figura de la lección
    formas_ = {fila[0]: fila[1] for fila in tabla}
    assert formas_["imagen"] == "(3, 96, 160)"
    assert formas_["unfold(1, P, P).unfold(2, P, P)"] == "(3, 6, 10, 16, 16)"
    assert formas_["aplanar cada parche"] == "(60, 768)"
    assert formas_["nn.Linear(768, 64)"] == "(1, 60, 64)"
    assert formas_["+ [CLS] al frente"] == "(1, 61, 64)"
    assert formas_["+ pos_vit (una posición por ficha)"] == "(1, 61, 64)"  # la lección suma pos_vit antes del bloque
    assert [f[0] for f in tabla].index("+ pos_vit (una posición por ficha)") == 5
    assert formas_["bloque transformer (4 cabezas)"] == "(1, 61, 64)"  # «Después del bloque» de la lección
    assert formas_["resumen: la ficha [CLS]"] == "(1, 64)"  # «Resumen ([CLS])»
    assert "60 parches de 768 números" in texto


def test_parche_11_es_fila_1_columna_1_pixeles_16_a_31():
    imagen, _ = foto()
    _, secuencia = formas(imagen, 16)
    assert torch.equal(secuencia[11].view(3, 16, 16), imagen[:, 16:32, 16:32])
    *_, texto = calcular(parche=11)
    assert "fila 1, columna 1" in texto and "y 16–31, x 16–31" in texto and "ese recorte? **sí**" in texto


def test_la_secuencia_es_la_de_modelos_parches_y_la_de_la_leccion():
    imagen, _ = foto()
    _, secuencia = formas(imagen, 16)
    cortes = imagen.unfold(1, 16, 16).unfold(2, 16, 16)  # como la lección
    assert torch.equal(secuencia, cortes.permute(1, 2, 0, 3, 4).reshape(-1, 3 * 16 * 16))
    assert torch.equal(secuencia, modelos.parches(imagen, 16))


@pytest.mark.parametrize("P", [8, 16, 32])
def test_cada_parche_es_su_recorte_en_orden_de_filas(P):
    imagen, descripcion = foto(CHINA)
    assert tuple(imagen.shape) == (3, 107, 160) and descripcion == "china.jpg[::4, ::4]"
    _, secuencia = formas(imagen, P)
    columnas = 160 // P
    assert len(secuencia) == (107 // P) * columnas
    for k in range(len(secuencia)):
        f, c = divmod(k, columnas)
        assert torch.equal(secuencia[k].view(3, P, P), imagen[:, f * P : (f + 1) * P, c * P : (c + 1) * P])


def test_parche_que_no_existe_muestra_el_ultimo():
    *_, texto = calcular(CHINA, None, "32", 59)
    assert "no hay parche 59" in texto and "**14**" in texto


# --- la rejilla, la secuencia y el parche ampliado --------------------------------------------------


def _pixeles(tensor: torch.Tensor) -> np.ndarray:
    return (tensor.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)


@pytest.mark.parametrize("imagen, P", [(IMAGENES[0], 16), (CHINA, 8), (IMAGENES[2], 32)])
def test_cada_parche_lleva_su_numero_en_el_centro_y_el_raton_lo_dice(imagen, P):
    """Sin clic (gr.Plot no tiene evento select): al pasar el ratón, la capa invisible dice el parche de cada píxel."""
    rejilla, *_ = calcular(imagen, None, str(P), 0)
    tensor, _ = foto(imagen)
    _, H, W = tensor.shape
    filas, columnas = H // P, W // P
    assert [n.texto for n in rejilla.rotulos] == [str(k) for k in range(filas * columnas)]
    x0, y0, x1, y1 = rejilla.extension_capa()
    assert (x0, y0, x1, y1) == (-0.5, -0.5, columnas * P - 0.5, filas * P - 0.5)  # sin el borde descartado
    assert rejilla.capa.shape == (filas, columnas) and rejilla.opacidad == 0
    assert (rejilla.pista, rejilla.formato, rejilla.rejilla) == ("parche {v}", ".0f", P)
    for k, rotulo in enumerate(rejilla.rotulos):
        f, c = divmod(k, columnas)
        assert (rotulo.x, rotulo.y) == (c * P + P / 2 - 0.5, f * P + P / 2 - 0.5)
        for px, py in ((c * P, f * P), (c * P + P - 1, f * P + P - 1)):  # dos esquinas del parche, en píxeles
            i, j = int((py - y0) / (y1 - y0) * filas), int((px - x0) / (x1 - x0) * columnas)
            assert rejilla.capa[i, j] == k
    assert np.array_equal(rejilla.pixeles[: filas * P, : columnas * P], _pixeles(tensor)[: filas * P, : columnas * P])


def test_el_borde_que_no_llena_un_parche_se_ve_aclarado():
    rejilla, *_ = calcular(CHINA, None, "16", 0)
    original = _pixeles(foto(CHINA)[0])
    assert rejilla.titulo == "60 parches de 16 × 16 píxeles · aclarado: el borde que se descarta"
    assert (rejilla.pixeles[96:] >= original[96:]).all() and (rejilla.pixeles[96:] > original[96:]).mean() > 0.9
    assert np.array_equal(rejilla.pixeles[:96], original[:96])


@pytest.mark.parametrize("k", [0, 11, 59])
def test_el_parche_elegido_se_recuadra_en_naranja_en_pantalla(k):
    rejilla, secuencia, ampliado, *_ = calcular(parche=k)
    f, c = divmod(k, 10)
    caja = (c * 16 - 0.5, f * 16 - 0.5, (c + 1) * 16 - 0.5, (f + 1) * 16 - 0.5)
    assert rejilla.recuadros == (caja,)
    assert [n.color for n in rejilla.rotulos] == [C1 if j == k else C0 for j in range(60)]
    formas_ = figura_plotly(rejilla)["layout"]["shapes"]
    naranjas = [(s["x0"], s["y0"], s["x1"], s["y1"]) for s in formas_ if s["line"]["color"] == C1]
    assert naranjas == [caja]
    assert secuencia.recuadros == ((-0.5, k - 0.5, 767.5, k + 0.5),) and secuencia.rotulos[0].texto == f"parche {k}"
    assert ampliado.titulo == f"El parche {k} (fila {f}, columna {c}) y sus tres canales"


@pytest.mark.parametrize("imagen, P", [(IMAGENES[0], 16), (CHINA, 8), (IMAGENES[0], 32)])
def test_la_secuencia_se_ve_fila_por_fila_cada_canal_en_su_color(imagen, P):
    _, secuencia, *_ = calcular(imagen, None, str(P), 3)
    _, sec = formas(foto(imagen)[0], P)
    N, largo = sec.shape
    assert isinstance(secuencia, Imagen) and secuencia.pixeles.shape == (N, largo, 3) and secuencia.estirar
    valores = (sec.numpy() * 255).round().astype(np.uint8)
    for canal in range(3):
        tercio = slice(canal * P * P, (canal + 1) * P * P)
        assert np.array_equal(secuencia.pixeles[:, tercio, canal], valores[:, tercio])
        otros = [k for k in range(3) if k != canal]
        assert not secuencia.pixeles[:, tercio][..., otros].any()
    assert secuencia.titulo == f"La secuencia: {N} parches × {largo} números (R | G | B)"
    assert np.array_equal(secuencia.capa[:, 0], np.arange(N)) and secuencia.pista == "fila {v}: el parche {v} aplanado"


def test_el_parche_ampliado_es_el_recorte_y_sus_tres_canales():
    tensor, _ = foto()
    _, _, ampliado, *_ = calcular(parche=11)
    recorte = _pixeles(tensor[:, 16:32, 16:32])
    assert isinstance(ampliado, Paneles) and len(ampliado.paneles) == 4
    assert np.array_equal(ampliado.paneles[0].pixeles, recorte)
    assert ampliado.paneles[0].titulo == "x 16–31, y 16–31 (px)"
    for i, (panel, nombre) in enumerate(zip(ampliado.paneles[1:], ("rojo", "verde", "azul"), strict=True)):
        assert np.array_equal(panel.pixeles[..., i], recorte[..., i]) and not np.delete(panel.pixeles, i, axis=2).any()
        assert panel.titulo == f"{'RGB'[i]}: vector[{i * 256}:{(i + 1) * 256}]"
        assert (
            np.allclose(panel.capa, tensor[i, 16:32, 16:32].numpy(), atol=0.005) and panel.pista == f"{nombre}: {{v}}"
        )


# --- entrada mala ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"P": "12"}, "8, 16 o 32"),
        ({"P": None}, "8, 16 o 32"),
        ({"parche": -1}, "entre 0 y 100\u202f000"),
        ({"parche": math.nan}, "entre 0 y 100\u202f000"),
        ({"parche": "once"}, "entre 0 y 100\u202f000"),
        ({"parche": 2.5}, "entre 0 y 100\u202f000"),
        ({"imagen": "otra.jpg"}, "La imagen debe ser una de"),
        ({"imagen": "mi imagen (subida)"}, "Sube una imagen"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**kw)


# --- el ViT diminuto entrenado --------------------------------------------------------------------


def test_rollout_con_un_bloque_es_el_promedio_mas_identidad_normalizado():
    A = torch.softmax(torch.randn(4, 17, 17), dim=-1)  # (cabezas, L, L)
    esperado = A.mean(0) + torch.eye(17)
    esperado = esperado / esperado.sum(-1, keepdim=True)
    assert torch.allclose(rollout([A]), esperado)


def test_rollout_multiplica_los_bloques_y_sus_filas_suman_1():
    g = torch.Generator().manual_seed(0)
    pesos = [torch.softmax(torch.randn(4, 17, 17, generator=g), dim=-1) for _ in range(3)]
    R = rollout(pesos)
    tildes = [rollout([A]) for A in pesos]
    assert torch.allclose(R, tildes[2] @ tildes[1] @ tildes[0], atol=1e-6)
    assert torch.allclose(R.sum(-1), torch.ones(17), atol=1e-6)


def test_rollout_de_atencion_a_si_mismo_es_la_identidad():
    assert torch.allclose(rollout([torch.eye(17).expand(4, 17, 17)] * 2), torch.eye(17))


@pytest.mark.parametrize("dibujo", [None, {"composite": None, "background": None, "layers": []}])
def test_dibujo_vacio_da_una_pista_y_no_una_prediccion(dibujo):
    prediccion, cabezas, texto = digito(ORIGEN_DIBUJO, 0, dibujo)
    assert texto == PISTA_DIBUJO
    assert isinstance(prediccion, Aviso) and isinstance(cabezas, Aviso)
    assert prediccion.mensaje == "Dibuja un dígito en el recuadro"


@pytest.mark.parametrize("indice", [-1, 450, 2.5, "x", math.inf])
def test_indice_fuera_de_la_particion(indice):
    with pytest.raises(ValueError, match="entre 0 y 449"):
        digito(indice=indice)


def test_vit_acierta_los_digitos_de_prueba():
    from modelos.datos import digitos_sklearn

    _, X, _, y = digitos_sklearn()
    modelo = modelos.cargar("vit-digitos")
    with torch.inference_mode():
        prediccion = modelo(X.to(modelos.dispositivo())).argmax(-1).cpu()
    assert (prediccion == y).float().mean() > 0.9
    i = int(torch.nonzero(prediccion == y)[0])
    _, _, texto = digito(indice=i)
    assert f"el ViT dice **{int(y[i])}**" in texto and "✓ acierta" in texto


def test_las_figuras_del_vit_son_su_rollout_y_sus_pesos():
    from demos.comun.digitos import digito_elegido
    from demos.parches_vit.vit_digito import atender

    x, verdadera, _ = digito_elegido(indice=5)
    p, pesos = atender(x)
    prediccion, cabezas, _ = digito(indice=5)
    entrada, superpuesto, barras = prediccion.paneles
    assert np.array_equal(entrada.pixeles, x[0, 0].numpy()) and entrada.rejilla == 2  # 4 × 4 parches de 2 × 2
    mapa = rollout(pesos)[0, 1:].reshape(4, 4).numpy()
    assert np.allclose(superpuesto.capa, mapa) and superpuesto.numeros_capa
    assert superpuesto.textos_capa()[0][0] == f"{mapa[0, 0]:.2f}"
    assert isinstance(barras, Barras) and np.allclose(barras.series[0].valores, p)
    clase = int(p.argmax())
    assert barras.series[0].colores[clase] == C0 and barras.textos(barras.series[0])[clase] == por_ciento(p[clase], 0)
    assert (
        barras.eje_x == f"Dígito (el verdadero: {verdadera})"
        and barras.titulo == f"Predicción: {clase} ({por_ciento(p[clase], 0)})"
    )
    bloques, cabezas_ = len(pesos), pesos[0].shape[0]
    assert (len(cabezas.paneles), cabezas.columnas) == (bloques * cabezas_, cabezas_)
    for b in range(bloques):
        for h in range(cabezas_):
            panel = cabezas.paneles[b * cabezas_ + h]
            cls = pesos[b][h, 0, 1:].reshape(4, 4).numpy()
            titulo = f"bloque {b + 1} · cabeza {h + 1}: {por_ciento(cls.sum(), 0)}"  # cabezas de la 1 a la h
            assert np.allclose(panel.capa, cls) and panel.titulo == titulo
    assert len({panel.vmax for panel in cabezas.paneles}) == 1  # una sola escala: una sola barra de color
    barras_de_color = [t for t in figura_plotly(cabezas)["data"] if t.get("showscale")]
    assert (
        len(barras_de_color) == 1 and barras_de_color[0]["colorbar"]["title"]["text"] == "Peso del [CLS] en el parche"
    )


def test_la_vista_no_cambia_el_modelo_compartido():
    modelo = modelos.cargar("vit-digitos")
    antes = {k: v.clone() for k, v in modelo.state_dict().items()}
    digito(indice=3)
    assert not modelo.training
    assert all(torch.equal(antes[k], v) for k, v in modelo.state_dict().items())


# --- por el API -----------------------------------------------------------------------------------


def test_api_sin_argumentos_da_la_vista_de_la_leccion(cliente):
    rejilla, secuencia, ampliado, tabla, texto = cliente.predict(api_name="/parches_vit")
    assert json.loads(rejilla["plot"])["layout"]["title"]["text"] == "60 parches de 16 × 16 píxeles"
    assert secuencia["type"] == ampliado["type"] == "plotly"
    assert tabla["data"][2][1] == "(60, 768)"
    assert "El parche **11**" in texto


def test_api_con_valores_tipicos(cliente):
    *_, tabla, texto = cliente.predict(imagen=CHINA, P="8", parche=200, api_name="/parches_vit")
    assert tabla["data"][2][1] == "(260, 192)"
    assert "fila 10, columna 0" in texto


def test_api_subida_con_exif(cliente, tmp_path):
    from gradio_client import handle_file
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = 6
    Image.new("RGB", (320, 200), "teal").save(tmp_path / "girada.jpg", exif=exif)
    *_, tabla, texto = cliente.predict(
        imagen="mi imagen (subida)", subida=handle_file(str(tmp_path / "girada.jpg")), P="32", api_name="/parches_vit"
    )
    assert tabla["data"][0][1] == "(3, 160, 100)"  # girada y reducida a lado mayor 160
    assert "reducida a 160 × 100" in texto


def test_api_rechaza_y_sigue_respondiendo(cliente):
    assert "8, 16 o 32" in espera_error(cliente, "/parches_vit", P="12")
    assert "Sube una imagen" in espera_error(cliente, "/parches_vit", imagen="mi imagen (subida)")
    *_, texto = cliente.predict(P="32", api_name="/parches_vit")
    assert "15 parches" in texto


def test_api_digito_con_dibujo_vacio_da_la_pista(cliente):
    *_, texto = cliente.predict(origen=ORIGEN_DIBUJO, api_name="/parches_vit_digito")
    assert "Dibuja un dígito" in texto


def test_api_digito_sin_argumentos(cliente):
    prediccion, cabezas, texto = cliente.predict(api_name="/parches_vit_digito")
    tipos, textos = figura_api(prediccion)
    assert tipos == ["heatmap"] * 3 + ["bar"] and textos[-1] == "Predicción: 2 (100 %)"
    tipos, textos = figura_api(cabezas)
    assert tipos == ["heatmap"] * 16 and textos[0].startswith("¿A qué parches mira el [CLS]?")
    assert "la imagen n.º 0 del conjunto de prueba (un 2)" in texto


def test_api_digito_rechaza_el_indice_450(cliente):
    assert "entre 0 y 449" in espera_error(cliente, "/parches_vit_digito", indice=450)


def test_dos_clientes_a_la_vez_reciben_cada_uno_lo_suyo(url_app):
    from gradio_client import Client

    def pedir(P: str) -> list[str]:
        c = Client(url_app, verbose=False)
        return [c.predict(P=P, parche=k, api_name="/parches_vit")[3]["data"][2][1] for k in range(3)]

    with ThreadPoolExecutor(2) as grupo:
        ocho, treinta_y_dos = grupo.map(pedir, ["8", "32"])
    assert ocho == ["(240, 192)"] * 3
    assert treinta_y_dos == ["(15, 3072)"] * 3
