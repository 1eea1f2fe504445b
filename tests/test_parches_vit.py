"""La pestaña «Parches ViT»: el recorte de la lección, la rejilla clicable y el ViT diminuto entrenado."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import torch

import modelos
from demos import _parches
from demos._digitos import ORIGEN_DIBUJO, PISTA_DIBUJO
from demos._parches import IMAGENES, formas, foto, geometria, parche_en
from demos._ui import figura_a_imagen
from demos._vit_digito import digito, rollout
from demos.parches_vit import calcular, parche_del_clic
from tests.conftest import espera_error


def _hay(nombre: str) -> bool:
    try:
        modelos.cargar(nombre)
        return True
    except Exception:
        return False


necesita_vit = pytest.mark.skipif(not _hay("vit-digitos"), reason="falta el checkpoint vit-digitos")
CHINA = IMAGENES[1]


# --- el caso de la lección ------------------------------------------------------------------------


def test_recorte_de_la_leccion_da_60_parches_de_768():
    *_, tabla, texto = calcular()
    formas_ = {fila[0]: fila[1] for fila in tabla}
    assert formas_["imagen"] == "(3, 96, 160)"
    assert formas_["unfold(1, P, P).unfold(2, P, P)"] == "(3, 6, 10, 16, 16)"
    assert formas_["aplanar cada parche"] == "(60, 768)"
    assert formas_["nn.Linear(768, 64)"] == "(1, 60, 64)"
    assert formas_["+ [CLS] al frente"] == "(1, 61, 64)"
    assert "60 parches de 768 números" in texto


def test_parche_11_es_fila_1_columna_1_pixeles_16_a_31():
    imagen, _ = foto()
    _, secuencia = formas(imagen, 16)
    assert torch.equal(secuencia[11].view(3, 16, 16), imagen[:, 16:32, 16:32])
    *_, texto = calcular(parche=11)
    assert "fila 1, columna 1" in texto and "y 16–31, x 16–31" in texto and "**True**" in texto


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


# --- clic en la rejilla ---------------------------------------------------------------------------


@pytest.mark.parametrize("imagen, P", [(IMAGENES[0], 16), (CHINA, 8), (IMAGENES[2], 32)])
def test_clic_en_el_centro_de_cada_parche_lo_elige(imagen, P):
    tensor, _ = foto(imagen)
    _, H, W = tensor.shape
    fig_w, fig_h, eje_w, eje_h = geometria(H, W)
    dpi = 110
    columnas = W // P
    for k in range((H // P) * columnas):
        f, c = divmod(k, columnas)
        x = (_parches.MARGEN + (c + 0.5) * P / W * eje_w) * dpi
        y = (_parches.TITULO + (f + 0.5) * P / H * eje_h) * dpi
        assert parche_en(x, y, H, W, P) == k
    assert parche_en(5, 5, H, W, P) is None  # en el título
    assert parche_en(fig_w * dpi - 2, fig_h * dpi - 2, H, W, P) is None  # en el borde descartado o fuera


@pytest.mark.parametrize("k", [0, 11, 59])
def test_el_resaltado_de_la_figura_esta_donde_cae_el_clic(k):
    """La caja naranja (C1) del parche elegido, en píxeles de la figura rasterizada, se traduce de vuelta a k."""
    fig, *_ = calcular(parche=k)
    rgb = figura_a_imagen(fig).astype(int)
    naranja = (abs(rgb[..., 0] - 255) < 15) & (abs(rgb[..., 1] - 127) < 15) & (rgb[..., 2] < 40)
    ys, xs = np.nonzero(naranja)
    assert parche_del_clic(IMAGENES[0], None, "16", np.median(xs), np.median(ys)) == k


def test_la_figura_mide_lo_que_dice_la_geometria():
    fig, *_ = calcular()
    alto, ancho, _ = figura_a_imagen(fig).shape
    fig_w, fig_h, *_ = geometria(96, 160)
    assert abs(ancho - fig_w * 110) <= 1 and abs(alto - fig_h * 110) <= 1


# --- entrada mala ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"P": "12"}, "8, 16 o 32"),
        ({"P": None}, "8, 16 o 32"),
        ({"parche": -1}, "entre 0 y 100000"),
        ({"parche": math.nan}, "entre 0 y 100000"),
        ({"parche": "once"}, "entre 0 y 100000"),
        ({"parche": 2.5}, "entre 0 y 100000"),
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
    *_, texto = digito(ORIGEN_DIBUJO, 0, dibujo)
    assert texto == PISTA_DIBUJO


@pytest.mark.parametrize("indice", [-1, 450, 2.5, "x", math.inf])
def test_indice_fuera_de_la_particion(indice):
    with pytest.raises(ValueError, match="entre 0 y 449"):
        digito(indice=indice)


@necesita_vit
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


@necesita_vit
def test_la_vista_no_cambia_el_modelo_compartido():
    modelo = modelos.cargar("vit-digitos")
    antes = {k: v.clone() for k, v in modelo.state_dict().items()}
    digito(indice=3)
    assert not modelo.training
    assert all(torch.equal(antes[k], v) for k, v in modelo.state_dict().items())


# --- por el API -----------------------------------------------------------------------------------


def test_api_sin_argumentos_da_la_vista_de_la_leccion(cliente):
    rejilla, secuencia, ampliado, tabla, texto = cliente.predict(api_name="/parches_vit")
    assert rejilla and secuencia and ampliado
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
    assert "reducida a 100 × 160" in texto


def test_api_rechaza_y_sigue_respondiendo(cliente):
    assert "8, 16 o 32" in espera_error(cliente, "/parches_vit", P="12")
    assert "Sube una imagen" in espera_error(cliente, "/parches_vit", imagen="mi imagen (subida)")
    *_, texto = cliente.predict(P="32", api_name="/parches_vit")
    assert "15 parches" in texto


def test_api_digito_con_dibujo_vacio_da_la_pista(cliente):
    *_, texto = cliente.predict(origen=ORIGEN_DIBUJO, api_name="/parches_vit_digito")
    assert "Dibuja un dígito" in texto


@necesita_vit
def test_api_digito_sin_argumentos(cliente):
    prediccion, cabezas, texto = cliente.predict(api_name="/parches_vit_digito")
    assert prediccion and cabezas and "el dígito 0 de la partición de prueba" in texto


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
