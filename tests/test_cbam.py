"""La pestaña «CBAM en imagen»: la red cbam-digitos con sus ramas encendidas o apagadas, y la mecánica en una foto."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import gradio as gr
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import modelos
from demos.cbam.foto import (
    PESOS_APRENDIDOS,
    PESOS_FIJOS,
    _kernel_gaussiano,
    calcular_foto,
    foto,
    pasos,
    rama_espacial,
    reduccion,
)
from demos.cbam.pestana import calcular, mirar
from demos.comun.digitos import ORIGEN_DIBUJO, PISTA_DIBUJO
from demos.comun.figuras import C0, GRIS, Aviso, Barras, Imagen, Mapa, Paneles
from demos.comun.figuras.pantalla import figura_plotly
from modelos import AtencionEspacial
from tests.ayuda import espera_error, figura_api

# --- la mecánica en una foto ----------------------------------------------------------------------


def test_kernel_fijo_es_un_suavizado_gaussiano_que_suma_1():
    k = _kernel_gaussiano()
    assert k.shape == (1, 2, 7, 7)
    assert k.sum().item() == pytest.approx(1.0)
    assert torch.equal(k[0, 0], k[0, 1])  # media y máximo pesan igual
    assert torch.allclose(k[0, 0], k[0, 0].T) and torch.allclose(k[0, 0], k[0, 0].flip(0))
    assert k[0, 0].argmax().item() == 24  # el centro pesa más


def test_los_pasos_son_los_de_atencion_espacial():
    rgb, descripcion = foto("china.jpg")
    assert rgb.shape == (107, 160, 3) and rgb.dtype == np.float32 and descripcion == "china.jpg[::4, ::4]"
    modulo = rama_espacial(PESOS_FIJOS)
    p = pasos(rgb, modulo)
    x = torch.tensor(rgb).permute(2, 0, 1)[None]
    x = (x - x.mean(dim=(2, 3), keepdim=True)) / x.std(dim=(2, 3), keepdim=True)
    assert np.allclose(p["media"], x.mean(1)[0].numpy(), atol=1e-5)
    assert np.allclose(p["maximo"], x.amax(1)[0].numpy(), atol=1e-5)
    z = F.conv2d(torch.cat([x.mean(1, keepdim=True), x.amax(1, keepdim=True)], 1), _kernel_gaussiano(), padding=3)
    assert np.allclose(p["z"], z[0, 0].numpy(), atol=1e-5)
    with torch.inference_mode():
        _, m = modulo(x)  # el forward del módulo de modelos/visual.py
    assert np.allclose(p["mapa"], m[0, 0].numpy(), atol=1e-6)
    assert p["mapa"].shape == (107, 160) and 0 < p["mapa"].min() < p["mapa"].max() < 1


def _promedio(mapa: np.ndarray, k: int) -> np.ndarray:
    """El mapa promediado de a k × k píxeles (el borde que sobra, repetido), como va a la pantalla."""
    t = torch.tensor(mapa)[None, None]
    t = F.pad(t, (0, -t.shape[-1] % k, 0, -t.shape[-2] % k), mode="replicate")
    return F.avg_pool2d(t, k)[0, 0].numpy()


def test_la_figura_de_los_pasos_muestra_cada_paso_con_su_escala():
    rgb, _ = foto("china.jpg")
    p = pasos(rgb, rama_espacial(PESOS_FIJOS))
    figura, kernel, _ = calcular_foto()
    assert isinstance(figura, Paneles) and (figura.filas, figura.columnas) == (2, 3)
    foto_, media, maximo, z, m, ponderada = figura.paneles
    assert np.array_equal(foto_.pixeles, (rgb * 255).round().astype(np.uint8))
    assert np.allclose(ponderada.pixeles, p["ponderada"] * 255, atol=0.51)
    assert reduccion(107, 160) == 3 and reduccion(96, 160) == 3 and reduccion(40, 60) == 1  # ≤ 2500 casillas
    for panel, clave in ((media, "media"), (maximo, "maximo"), (z, "z"), (m, "mapa")):
        assert isinstance(panel, Mapa) and panel.matriz.shape == (36, 54) and not panel.ejes
        assert np.allclose(panel.matriz, _promedio(p[clave], 3), atol=0.005)
    tope = max(np.abs(p["media"]).max(), np.abs(p["maximo"]).max())
    assert media.rango() == maximo.rango() == pytest.approx((-tope, tope))  # se comparan en la misma escala
    assert z.rango() == pytest.approx((-np.abs(p["z"]).max(), np.abs(p["z"]).max())) and z.colores == "divergente"
    assert m.rango() == (0, 1) and m.colores == "azul"
    assert figura.titulo.endswith("(mapas promediados de a 3 × 3 píxeles)")
    assert "m sigue al brillo de la foto: no es atención aprendida" in figura.titulo  # con el kernel fijo
    assert [panel.titulo for panel in figura.paneles] == [
        "Foto (entrada)",
        "1. Media sobre los canales",
        "2. Máximo sobre los canales",
        "3. Convolución 7 × 7 (z)",
        "4. Sigmoide: m = σ(z)",
        "Foto × m",
    ]
    barras = [t["colorbar"]["title"]["text"] for t in figura_plotly(figura)["data"] if t.get("showscale")]
    assert barras == ["valor", "valor", "valor", "m"]  # escalas distintas: cada mapa con la suya


def test_los_98_pesos_del_kernel_con_su_numero_en_cada_casilla():
    _, figura, _ = calcular_foto()
    k = _kernel_gaussiano()[0].numpy()  # (2, 7, 7)
    titulos = ["Parámetros sobre el mapa de media", "Parámetros sobre el mapa de máximo"]
    assert [panel.titulo for panel in figura.paneles] == titulos
    for panel, pesos_ in zip(figura.paneles, k, strict=True):
        assert np.allclose(panel.matriz, pesos_ * 1000) and panel.colores == "divergente"  # en milésimas: son < 0.1
        assert panel.textos()[3][3] == f"{pesos_[3, 3] * 1000:.1f}" == "36.6"  # el centro: 0.0366
        assert panel.x == ("−3", "−2", "−1", "0", "+1", "+2", "+3") and panel.barra == "Valor × 1\u202f000"
    assert figura.titulo == (
        "Los 2 × 7 × 7 parámetros de la convolución (en milésimas):\nnúcleo fijo: suavizado gaussiano (no aprendido)"
    )
    assert len([t for t in figura_plotly(figura)["data"] if t.get("showscale")]) == 1  # una escala común


def test_la_foto_dice_que_pesos_usa():
    *_, texto = calcular_foto()
    assert "núcleo fijo: suavizado gaussiano (no aprendido)" in texto
    assert "(1, 2, 107, 160)" in texto


def test_el_kernel_fijo_no_se_altera():
    antes = rama_espacial(PESOS_FIJOS).conv.weight.clone()
    calcular_foto("flower.jpg")
    assert torch.equal(rama_espacial(PESOS_FIJOS).conv.weight, antes)
    assert isinstance(rama_espacial(PESOS_FIJOS), AtencionEspacial)


def test_pesos_aprendidos_son_los_de_cbam_digitos():
    modulo = rama_espacial(PESOS_APRENDIDOS)
    assert modulo is modelos.cargar("cbam-digitos").cbam.espacial
    _, kernel, texto = calcular_foto("flower.jpg", None, PESOS_APRENDIDOS)
    assert "parámetros aprendidos de cbam-digitos" in texto and "no sobre fotos" in texto
    pesos_ = modulo.conv.weight[0].detach().cpu().numpy()  # (2, 7, 7), de −0.32 a 0.37: con 2 decimales
    assert np.allclose(kernel.paneles[0].matriz, pesos_[0]) and np.allclose(kernel.paneles[1].matriz, pesos_[1])
    assert kernel.paneles[0].textos()[3][3] == f"{pesos_[0, 3, 3]:.2f}".replace("-", "−")
    assert kernel.titulo.startswith(
        "Los 2 × 7 × 7 parámetros de la convolución:\nparámetros aprendidos de cbam-digitos"
    )


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"imagen": "otra.jpg"}, "La foto debe ser una de"),
        ({"imagen": "mi imagen (subida)"}, "Sube una imagen"),
        ({"pesos": "al azar"}, "Los parámetros de la convolución deben ser"),
    ],
)
def test_foto_entrada_mala(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular_foto(**kw)


# --- la red cbam-digitos --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, mensaje",
    [
        ({"canal": "abc"}, "verdadero o falso"),
        ({"espacial": None}, "verdadero o falso"),
        ({"opacidad": 7}, "entre 0 y 1"),
        ({"opacidad": math.nan}, "entre 0 y 1"),
        ({"opacidad": "mucha"}, "entre 0 y 1"),
        ({"origen": "la calle"}, "El origen del dígito"),
        ({"indice": 450}, "entre 0 y 449"),
        ({"indice": 2.5}, "entre 0 y 449"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        calcular(**kw)


@pytest.mark.parametrize("dibujo", [None, {"composite": None, "background": None, "layers": []}])
def test_dibujo_vacio_da_una_pista_y_no_una_prediccion(dibujo):
    mapas, pesos_, texto = calcular(ORIGEN_DIBUJO, 0, dibujo)
    assert texto == PISTA_DIBUJO
    assert isinstance(mapas, Aviso) and isinstance(pesos_, Aviso) and mapas.mensaje == "Dibuja un dígito en el recuadro"


@pytest.mark.parametrize("canal, opacidad", [(True, 0.5), (False, 0.9)])
def test_las_figuras_son_el_mapa_m_y_los_pesos_w_ordenados(canal, opacidad):
    from modelos.datos import digitos_sklearn

    x = digitos_sklearn()[1][3:4]
    p, w, m = mirar(x, canal)
    mapas, pesos_, _ = calcular(indice=3, canal=canal, opacidad=opacidad, apagada="uno")
    entrada, mapa, encima = mapas.paneles
    assert np.array_equal(entrada.pixeles, x[0, 0].numpy()) and entrada.capa is None
    assert isinstance(mapa, Mapa) and np.allclose(mapa.matriz, m) and mapa.rango() == (0, 1)
    assert mapa.textos()[0][0] == f"{m[0, 0]:.2f}"  # el número en cada casilla, como la lección
    assert isinstance(encima, Imagen) and np.allclose(encima.capa, m) and encima.opacidad == opacidad
    prediccion, canales = pesos_.paneles
    assert isinstance(prediccion, Barras) and np.allclose(prediccion.series[0].valores, p)
    clase = int(p.argmax())
    assert prediccion.series[0].colores[clase] == C0
    assert prediccion.textos(prediccion.series[0])[clase] == f"{p[clase] * 100:.0f} %"
    orden = np.argsort(-w, kind="stable")
    assert canales.categorias == tuple(map(str, orden)) and np.allclose(canales.series[0].valores, w[orden])
    assert (canales.series[0].valores[:-1] >= canales.series[0].valores[1:]).all()  # de mayor a menor
    assert canales.series[0].color == (C0 if canal else GRIS)
    apagada = "Rama de canal apagada: todos los w valen 1"
    assert canales.titulo == ("Pesos de canal w (32 canales)" if canal else apagada)


def test_cbam_acierta_los_digitos_de_prueba():
    from modelos.datos import digitos_sklearn

    _, X, _, y = digitos_sklearn()
    modelo = modelos.cargar("cbam-digitos")
    with torch.inference_mode():
        prediccion = modelo(X.to(modelos.dispositivo())).argmax(-1).cpu()
    assert (prediccion == y).float().mean() > 0.9
    i = int(torch.nonzero(prediccion == y)[0])
    *_, texto = calcular(indice=i)
    assert f"la red dice **{int(y[i])}**" in texto and "✓ acierta" in texto


@pytest.mark.parametrize("canal, espacial", [(True, True), (False, True), (True, False), (False, False)])
def test_apagar_una_rama_pone_su_compuerta_en_1(canal, espacial):
    from modelos.datos import digitos_sklearn

    x = digitos_sklearn()[1][:1]
    p, w, m = mirar(x, canal, espacial)
    modelo = modelos.cargar("cbam-digitos")
    with torch.inference_mode():
        logits, *_ = modelo(x.to(modelos.dispositivo()), con_pesos=True, canal=canal, espacial=espacial)
    assert np.allclose(p, torch.softmax(logits, -1)[0].cpu().numpy(), atol=1e-6)
    assert w.shape == (32,) and m.shape == (8, 8)
    assert (w == 1).all() == (not canal)
    assert (m == 1).all() == (not espacial)
    *_, texto = calcular(canal=canal, espacial=espacial, apagada="uno")
    assert ("Con las dos ramas decía" in texto) == (not (canal and espacial))


# --- por el API -----------------------------------------------------------------------------------


def test_api_foto_sin_argumentos(cliente):
    import json

    pasos_, kernel, texto = cliente.predict(api_name="/cbam_foto")
    assert json.loads(pasos_["plot"])["layout"]["title"]["text"].startswith("Rama espacial con núcleo fijo")
    assert kernel["type"] == "plotly" and "no aprendido" in texto


def test_api_foto_con_flor_y_sigue_respondiendo_tras_un_error(cliente):
    assert "Los parámetros de la convolución deben ser" in espera_error(cliente, "/cbam_foto", pesos="al azar")
    *_, texto = cliente.predict(imagen="flower.jpg", api_name="/cbam_foto")
    assert "flower.jpg" in texto


def test_api_dibujo_vacio_da_la_pista(cliente, tmp_path):
    from gradio_client import handle_file
    from PIL import Image

    Image.new("RGBA", (256, 256), "white").save(tmp_path / "blanco.png")
    vacio = {"background": None, "layers": [], "composite": handle_file(str(tmp_path / "blanco.png"))}
    *_, texto = cliente.predict(origen=ORIGEN_DIBUJO, dibujo=vacio, api_name="/cbam")
    assert "Dibuja un dígito" in texto


def test_api_rechaza_opacidad_7(cliente):
    assert "entre 0 y 1" in espera_error(cliente, "/cbam", opacidad=7)


def test_api_sin_argumentos_y_con_dibujo(cliente, tmp_path):
    from gradio_client import handle_file
    from PIL import Image

    mapas, pesos_, texto = cliente.predict(api_name="/cbam")
    assert figura_api(mapas) == (["heatmap"] * 4, ["Entrada (8 × 8)", "Mapa espacial m", "m sobre la entrada"])
    assert figura_api(pesos_) == (["bar"] * 3, ["Predicción: 2 (96 %)", "Pesos de canal w (32 canales)"])
    assert "la imagen n.º 0 del conjunto de prueba (un 2)" in texto
    im = Image.new("RGBA", (256, 256), "white")
    im.paste("black", (120, 40, 136, 216))  # un «1»
    im.save(tmp_path / "uno.png")
    dibujo = {"background": None, "layers": [], "composite": handle_file(str(tmp_path / "uno.png"))}
    *_, texto = cliente.predict(origen=ORIGEN_DIBUJO, dibujo=dibujo, espacial=False, api_name="/cbam")
    assert "Para tu dibujo" in texto and "rama espacial apagada" in texto


def test_dos_clientes_a_la_vez_reciben_cada_uno_lo_suyo(url_app):
    from gradio_client import Client

    def pedir(imagen: str) -> list[str]:
        c = Client(url_app, verbose=False)
        return [c.predict(imagen=imagen, api_name="/cbam_foto")[2] for _ in range(3)]

    with ThreadPoolExecutor(2) as grupo:
        china, flor = grupo.map(pedir, ["china.jpg", "flower.jpg"])
    assert all(t.startswith("Imagen: china.jpg") for t in china)
    assert all(t.startswith("Imagen: flower.jpg") for t in flor)


def test_dos_clientes_con_digitos_distintos_a_la_vez(url_app):
    from gradio_client import Client

    def pedir(indice: int) -> list[str]:
        c = Client(url_app, verbose=False)
        return [c.predict(indice=indice, canal=k % 2 == 0, api_name="/cbam")[2] for k in range(3)]

    with ThreadPoolExecutor(2) as grupo:
        cero, uno = grupo.map(pedir, [0, 1])
    assert all("la imagen n.º 0 del conjunto" in t for t in cero)
    assert all("la imagen n.º 1 del conjunto" in t for t in uno)


def test_la_foto_con_kernel_fijo_avisa_que_m_sigue_al_brillo():
    *_, fijo = calcular_foto()
    assert "mapa de brillo suavizado" in fijo and "no es una atención aprendida" in fijo
    figura, _, aprendido = calcular_foto(pesos=PESOS_APRENDIDOS)
    assert "brillo" not in figura.titulo and "brillo" not in aprendido  # los aprendidos llevan su propio aviso


# --- #23 y #25: apagar no mide importancia; SE antes que CBAM ----------------------------------------


def test_apagar_la_espacial_a_1_sube_la_confianza_pero_congelarla_a_su_media_no():
    """La imagen 0: 96 % con las dos ramas, 99 % con m = 1 (las activaciones llegan ≈ 2 veces más grandes
    que en el entrenamiento: un cambio de distribución), y menos con m congelada a su media."""
    from modelos.datos import digitos_sklearn

    x = digitos_sklearn()[1][:1]
    completa, _, m = mirar(x)
    a_uno, *_ = mirar(x, espacial=False, apagada="uno")
    a_media, _, m_media = mirar(x, espacial=False, apagada="media")
    assert (f"{completa.max():.0%}", f"{a_uno.max():.0%}") == ("96%", "99%")
    assert a_media.max() < completa.max() < a_uno.max()
    assert np.allclose(m_media, m.mean())  # la compuerta congelada vale la media de su propio mapa
    *_, texto = calcular(espacial=False, apagada="uno")
    assert "cambio de distribución" in texto and "no mide cuánto importa" in texto


def test_la_tabla_del_conjunto_de_prueba_sale_de_correr_la_red():
    from demos.cbam.pestana import ablacion
    from modelos.datos import digitos_sklearn

    _, X, _, y = digitos_sklearn()
    modelo = modelos.cargar("cbam-digitos")
    filas = ablacion()
    with torch.inference_mode():
        for _nombre, canal, espacial, apagada, exactitud, confianza in filas["filas"]:
            p = torch.softmax(modelo(X, canal=canal, espacial=espacial, apagada=apagada), -1)
            assert exactitud == pytest.approx((p.argmax(-1) == y).float().mean().item())
            assert confianza == pytest.approx(p.max(-1).values.mean().item())
        _, _, m = modelo(X, con_pesos=True)
    assert filas["m_media"] == pytest.approx(m.mean().item())
    por_nombre = {f[0]: f[4] for f in filas["filas"]}
    assert por_nombre["espacial = 1"] < por_nombre["las dos encendidas"]  # con m = 1 la exactitud baja
    *_, texto = calcular()
    assert "| Compuertas | Exactitud | Confianza media |" in texto and "conjunto de prueba" in texto


def test_cbam_recibe_activaciones_despues_de_una_relu():
    from demos.cbam.foto import minimo_activaciones

    assert minimo_activaciones() == 0.0
    *_, texto = calcular_foto()
    assert "después de una ReLU" in texto and "≥ 0" in texto


def test_el_bloque_se_es_el_del_tutorial_y_cbam_suma_el_maximo():
    """AtencionCanal sin máximo da lo mismo que el SEBlock del tutorial (§4.1) con los mismos pesos."""
    from torch import nn

    se = modelos.AtencionCanal(256, 16).eval()
    tutorial = nn.Sequential(
        nn.Linear(256, 16, bias=False), nn.ReLU(), nn.Linear(16, 256, bias=False), nn.Sigmoid()
    )  # su excitation
    with torch.no_grad():
        tutorial[0].weight.copy_(se.mlp[0].weight[:, :, 0, 0])
        tutorial[2].weight.copy_(se.mlp[2].weight[:, :, 0, 0])
        x = torch.randn(4, 256, 32, 32)
        y, w = se(x)
        w_tutorial = tutorial(x.mean(dim=(2, 3))).view(4, 256, 1, 1)
    assert torch.allclose(w, w_tutorial, atol=1e-6) and torch.allclose(y, x * w_tutorial, atol=1e-6)
    assert sum(p.numel() for p in se.parameters()) == sum(p.numel() for p in tutorial.parameters()) == 8192
    from demos.cbam.pestana import pesos_se
    from modelos.datos import digitos_sklearn

    x = digitos_sklearn()[1][:1]
    modelo = modelos.cargar("cbam-digitos")
    with torch.inference_mode():
        f = modelo.extractor(x)
        esperado = torch.sigmoid(modelo.cbam.canal.mlp(f.mean(dim=(2, 3), keepdim=True)))[0, :, 0, 0]
    assert np.allclose(pesos_se(x), esperado.numpy(), atol=1e-6)
    _, pesos_, texto = calcular()
    _, canales = pesos_.paneles
    assert [s.nombre for s in canales.series] == ["w (CBAM: media y máximo)", "solo la media (como SE)"]
    assert "SE" in texto and "§4.1" in texto


def test_el_lienzo_solo_se_muestra_con_mi_dibujo():
    """El lienzo abre oculto y «origen» lo muestra desde el navegador (sin ir a la cola), solo con «mi dibujo»."""
    import app
    from demos.comun.digitos import JS_VER_LIENZO

    vista = app.vistas(app.construir_una("cbam"))["cbam"]
    dibujo = vista.entradas[2]
    caja = dibujo.parent
    assert isinstance(caja, gr.Column) and caja.visible is False
    assert ORIGEN_DIBUJO in JS_VER_LIENZO and "visible" in JS_VER_LIENZO


@pytest.mark.navegador
def test_en_un_telefono_el_lienzo_no_va_antes_de_la_figura_con_el_conjunto_de_prueba(navegador, url_app):
    """A 390 px, con «conjunto de prueba», no se ve el lienzo vacío con su barra; con «mi dibujo» sí, y dibuja."""
    contexto = navegador.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    pg = contexto.new_page()
    visibles = "() => [...document.querySelectorAll('.lienzo')].filter(e => e.offsetParent).length"
    try:
        pg.goto(url_app + "demo/cbam/?predecir=0")
        pg.locator("#cbam-ruta").wait_for(timeout=120_000)
        pg.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
        assert pg.evaluate(visibles) == 0
        pg.get_by_text("mi dibujo").first.click()
        pg.wait_for_function(f"() => ({visibles})() === 1", timeout=30_000)
        pg.get_by_text("conjunto de prueba").first.click()
        pg.wait_for_function(f"() => ({visibles})() === 0", timeout=30_000)
        pg.goto(url_app + "demo/cbam/?predecir=0&origen=mi%20dibujo")  # desde la URL, también
        pg.wait_for_function(f"() => ({visibles})() === 1", timeout=120_000)
    finally:
        contexto.close()
