"""Subidas y dibujos: cualquier imagen que Pillow lea entra; lo demás, y lo enorme, da un error en español."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest
from gradio.data_classes import FileData, ImageData
from PIL import Image, ImageOps

from demos.comun.digitos import ORIGEN_DIBUJO, digito_elegido
from demos.comun.imagenes import MAX_PIXELES, Dibujo, Subida, abrir_imagen, tinta_desde_dibujo
from tests.ayuda import RAIZ, espera_error

MALAS = {
    "trunc.jpg": "dañado o incompleto",
    "trunc.png": "dañado o incompleto",
    "bomba.png": "megapíxeles",
    "bomba_36mp.png": "megapíxeles",
    "20000x20.png": "demasiado alargada",
    "dibujo.svg": "no es una imagen",
    "texto.png": "no es una imagen",
}
MODOS = ("l.png", "rgba.png", "p.png", "i16.png", "cmyk.jpg", "cmyk.tif", "exif.jpg", "rgb.jpg")


def png_bomba(ancho: int, alto: int) -> bytes:
    """Un PNG de pocos bytes que declara ancho × alto (1 bit por píxel); sus datos están incompletos."""

    def trozo(tipo: bytes, datos: bytes) -> bytes:
        return struct.pack(">I", len(datos)) + tipo + datos + struct.pack(">I", zlib.crc32(tipo + datos))

    filas = zlib.compress((b"\x00" * (1 + ancho // 8)) * 50, 9)
    cabecera = struct.pack(">IIBBBBB", ancho, alto, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + trozo(b"IHDR", cabecera) + trozo(b"IDAT", filas) + trozo(b"IEND", b"")


@pytest.fixture(scope="session")
def carpeta(tmp_path_factory):
    """Las imágenes de prueba, buenas y malas."""
    d = tmp_path_factory.mktemp("imagenes")
    rng = np.random.default_rng(0)
    foto = Image.fromarray(rng.integers(0, 256, (60, 90, 3), dtype=np.uint8))
    foto.save(d / "rgb.jpg")
    foto.save(d / "rgb.png")
    foto.convert("L").save(d / "l.png")
    rgba = np.dstack([np.asarray(foto), np.full((60, 90), 128, np.uint8)])
    Image.fromarray(rgba, "RGBA").save(d / "rgba.png")
    foto.convert("P").save(d / "p.png")
    Image.fromarray(np.linspace(0, 65535, 60 * 90).reshape(60, 90).astype(np.uint16)).save(d / "i16.png")
    foto.convert("CMYK").save(d / "cmyk.jpg")
    foto.convert("CMYK").save(d / "cmyk.tif")
    exif = Image.Exif()
    exif[0x0112] = 6  # orientación: girar 90° para mostrarla
    foto.save(d / "exif.jpg", exif=exif)
    for nombre in ("rgb.jpg", "rgb.png"):
        datos = (d / nombre).read_bytes()
        (d / f"trunc{nombre[3:]}").write_bytes(datos[: len(datos) // 2])
    (d / "bomba.png").write_bytes(png_bomba(30000, 30000))
    (d / "bomba_36mp.png").write_bytes(png_bomba(6000, 6000))
    Image.new("RGB", (1, 1), "red").save(d / "1x1.png")
    Image.new("RGB", (20000, 20), "red").save(d / "20000x20.png")
    (d / "texto.png").write_text("hola, no soy una imagen\n" * 10)
    (d / "dibujo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><circle r="4"/></svg>')
    Image.new("RGB", (4000, 3000), "gray").save(d / "grande.jpg", quality=50)
    return d


# --- abrir_imagen --------------------------------------------------------------------------------


@pytest.mark.parametrize("nombre", MODOS)
def test_cualquier_modo_llega_como_rgb_de_0_a_1(carpeta, nombre):
    rgb, descripcion = abrir_imagen(carpeta / nombre)
    assert rgb.dtype == np.float32 and rgb.ndim == 3 and rgb.shape[2] == 3
    assert 0 <= rgb.min() and rgb.max() <= 1
    assert "60" in descripcion and "90" in descripcion


def test_i16_usa_todo_el_rango(carpeta):
    rgb, descripcion = abrir_imagen(carpeta / "i16.png")
    assert "I;16" in descripcion
    assert rgb.min() == 0 and rgb.max() == 1


def test_rgba_a_medias_se_pinta_sobre_blanco(carpeta):
    rgb, _ = abrir_imagen(carpeta / "rgba.png")
    original = np.asarray(Image.open(carpeta / "rgb.png"), dtype=np.float32) / 255
    assert np.allclose(rgb, original * 128 / 255 + (1 - 128 / 255), atol=2 / 255)


def test_exif_endereza_la_foto(carpeta):
    rgb, _ = abrir_imagen(carpeta / "exif.jpg")
    esperada = np.asarray(ImageOps.exif_transpose(Image.open(carpeta / "exif.jpg")), dtype=np.float32) / 255
    assert rgb.shape == (90, 60, 3)  # girada: alto y ancho intercambiados
    assert np.allclose(rgb, esperada)


def test_reduce_al_lado_mayor_pedido(carpeta):
    rgb, descripcion = abrir_imagen(carpeta / "grande.jpg", 160)
    assert rgb.shape == (120, 160, 3)
    assert "3000 × 4000 px (alto × ancho)" in descripcion and "reducida a 120 × 160" in descripcion


def test_una_imagen_pequena_no_se_amplia(carpeta):
    rgb, _ = abrir_imagen(carpeta / "1x1.png")
    assert rgb.shape == (1, 1, 3)
    assert np.allclose(rgb[0, 0], [1, 0, 0])


@pytest.mark.parametrize("nombre, mensaje", MALAS.items())
def test_archivo_malo_da_error_en_espanol_sin_gastar_memoria(carpeta, nombre, mensaje):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=mensaje):
            abrir_imagen(carpeta / nombre)
        _, pico = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pico < 20 * 2**20  # nada se decodificó a tamaño completo


def test_el_limite_es_de_25_megapixeles():
    assert MAX_PIXELES == 25_000_000


# Un proceso aparte: su pico de RSS (VmHWM) sobre el reposo, con `n` hilos que abren la misma imagen a la vez.
PICO_DE_RSS = """
import json, sys, threading
from demos.comun.imagenes import abrir_imagen
from servidor.proceso import limitar_arenas_malloc

limitar_arenas_malloc()  # como el servidor (servidor.proceso.preparar)

def kb(campo):
    with open("/proc/self/status") as f:
        return next(int(linea.split()[1]) for linea in f if linea.startswith(campo))

ruta, chica, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
abrir_imagen(chica)  # lo perezoso de Pillow y numpy, ya cargado
reposo, errores = kb("VmRSS"), []

def abrir():
    try:
        abrir_imagen(ruta)
    except ValueError as e:
        errores.append(str(e))

hilos = [threading.Thread(target=abrir) for _ in range(n)]
for h in hilos:
    h.start()
for h in hilos:
    h.join()
print(json.dumps([(kb("VmHWM") - reposo) / 1024, errores]))
"""


def imagen_maxima_de_16_bits(ruta: Path) -> Path:
    """Un PNG en gris de 16 bits de 5000 × 5000 (25 megapíxeles, el máximo) que pesa ≈ 0.3 MB."""
    valores = (np.arange(5000 * 5000, dtype=np.uint32) % 65536).astype(np.uint16).reshape(5000, 5000)
    Image.fromarray(valores).save(ruta)
    return ruta


def test_doce_imagenes_maximas_a_la_vez_caben_en_400_mb(tmp_path, carpeta):
    """12 subidas de 25 megapíxeles y 16 bits a la vez: antes, RSS +4.5 GB (una sola, +430 MB)."""
    ruta = imagen_maxima_de_16_bits(tmp_path / "max16.png")
    orden = [sys.executable, "-c", PICO_DE_RSS, str(ruta), str(carpeta / "rgb.png"), "12"]
    salida = subprocess.run(orden, cwd=RAIZ, capture_output=True, text=True, timeout=600, check=True)
    pico_mb, errores = json.loads(salida.stdout)
    assert errores == []  # ninguna se rechaza: esperan su turno
    assert pico_mb < 400, f"12 imágenes máximas a la vez: RSS +{pico_mb:.0f} MB"


def test_sin_turno_a_tiempo_una_imagen_grande_recibe_un_mensaje(tmp_path, carpeta, monkeypatch):
    from demos.comun import imagenes

    monkeypatch.setattr(imagenes, "ESPERA_TURNO_S", 0.05)
    grande = tmp_path / "grande.png"
    Image.new("L", (2000, 1500), 90).save(grande)  # 3 megapíxeles: necesita turno
    for _ in range(imagenes.TURNOS_GRANDES):  # otras imágenes grandes ocupan todos los turnos
        imagenes._TURNOS.acquire()
    try:
        with pytest.raises(ValueError, match="abriendo otras imágenes grandes"):
            abrir_imagen(grande)
        assert abrir_imagen(carpeta / "rgb.png")[0].shape == (60, 90, 3)  # una chica no espera turno
    finally:
        for _ in range(imagenes.TURNOS_GRANDES):
            imagenes._TURNOS.release()
    assert abrir_imagen(grande)[0].shape == (480, 640, 3)


@pytest.mark.parametrize("modo", ["I;16", "P", "CMYK"])
def test_reducir_antes_de_convertir_da_la_misma_imagen(tmp_path, modo):
    """Una grande se reduce en su modo original y luego a RGB: lo mismo que convertirla entera primero."""
    y, x = np.mgrid[0:2400, 0:3200]
    gris = ((x + y) * 65535 // (3200 + 2400)).astype(np.uint16)  # (alto, ancho)
    im = Image.fromarray(gris) if modo == "I;16" else Image.fromarray((gris >> 8).astype(np.uint8)).convert(modo)
    ruta = tmp_path / ("g.tif" if modo == "CMYK" else "g.png")
    im.save(ruta, **({"compression": "tiff_deflate"} if modo == "CMYK" else {}))
    rgb, _ = abrir_imagen(ruta)
    referencia = Image.fromarray((gris / 65535 * 255 + 0.5).astype(np.uint8)).convert("RGB")
    referencia.thumbnail((640, 640), Image.Resampling.LANCZOS)
    if modo == "CMYK":
        referencia = im.convert("RGB").resize(referencia.size, Image.Resampling.LANCZOS)
    assert rgb.shape == (480, 640, 3)
    assert np.abs(rgb - np.asarray(referencia, dtype=np.float32) / 255).max() < 0.03


def test_tipo_o_ruta_que_no_son_imagen():
    with pytest.raises(ValueError, match="Se esperaba una imagen"):
        abrir_imagen(12)
    with pytest.raises(ValueError, match="No llegó el archivo"):
        abrir_imagen("/no/existe.png")


def test_bytes_tambien_valen(carpeta):
    rgb, _ = abrir_imagen((carpeta / "rgb.png").read_bytes())
    assert rgb.shape == (60, 90, 3)


# --- dibujos -------------------------------------------------------------------------------------


def lienzo(fondo: str = "white", trazo: str = "black", modo: str = "RGBA") -> Image.Image:
    """Un lienzo como el que manda el navegador (RGBA opaco, trazo negro) con un «1» vertical."""
    im = Image.new(modo, (256, 256), fondo)
    im.paste(trazo, (120, 40, 136, 216))
    return im


@pytest.mark.parametrize(
    "fondo, trazo, modo",
    [
        ("white", "black", "RGBA"),
        ((0, 0, 0, 0), (0, 0, 0, 255), "RGBA"),
        ("black", "white", "RGB"),
        ("gray", "black", "L"),
    ],
)
def test_el_trazo_es_la_tinta_sea_cual_sea_el_fondo(tmp_path, fondo, trazo, modo):
    lienzo(fondo, trazo, modo).save(tmp_path / "dibujo.png")
    tinta = tinta_desde_dibujo({"composite": str(tmp_path / "dibujo.png"), "background": None, "layers": []})
    assert tinta is not None and tinta.shape == (256, 256)
    assert tinta[100, 128] > 0.3 and tinta[100, 20] == 0


def test_el_dibujo_llega_como_un_digito_de_sklearn(tmp_path):
    lienzo().save(tmp_path / "uno.png")
    x, verdadera, descripcion = digito_elegido(ORIGEN_DIBUJO, 0, {"composite": str(tmp_path / "uno.png")})
    assert x.shape == (1, 1, 8, 8) and verdadera is None and descripcion == "tu dibujo"
    columnas = x[0, 0].sum(dim=0)
    assert columnas[3:5].sum() > 0.9 * columnas.sum()  # un «1» centrado: la tinta en las columnas del medio


@pytest.mark.parametrize("color", ["white", "black", (0, 0, 0, 0), "red"])
def test_lienzo_liso_esta_vacio(tmp_path, color):
    Image.new("RGBA", (256, 256), color).save(tmp_path / "liso.png")
    assert tinta_desde_dibujo({"composite": str(tmp_path / "liso.png")}) is None
    assert digito_elegido(ORIGEN_DIBUJO, 0, {"composite": str(tmp_path / "liso.png")}) is None


@pytest.mark.parametrize("valor", [None, {}, {"composite": None, "background": None, "layers": []}])
def test_sin_dibujo_esta_vacio(valor):
    assert tinta_desde_dibujo(valor) is None


def test_dibujo_como_arreglo():
    a = np.zeros((50, 50, 4), np.uint8)  # transparente
    a[10:40, 20:25, 3] = 255  # trazo negro opaco
    tinta = tinta_desde_dibujo(a)
    assert tinta.max() == 1 and (tinta > 0).sum() == 150
    with pytest.raises(ValueError, match="alto × ancho"):
        tinta_desde_dibujo(np.zeros((5, 5, 7)))


# --- los componentes no abren el archivo: la función de cálculo lo valida y responde en español ------


def test_eps_no_llega_al_decodificador_de_pillow(tmp_path, monkeypatch):
    """Un EPS (que Pillow abriría con Ghostscript) se rechaza por su formato: solo se prueban los anunciados."""
    from PIL import EpsImagePlugin

    abiertos = []
    monkeypatch.setattr(EpsImagePlugin.EpsImageFile, "_open", lambda self: abiertos.append(self))
    eps = tmp_path / "dibujo.eps"
    eps.write_bytes(b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n%%EOF\n")
    with pytest.raises(ValueError, match="no es una imagen que se pueda leer"):
        abrir_imagen(str(eps))
    assert abiertos == []


def _como_subida(ruta: Path) -> str:
    """Una copia de `ruta` en la carpeta de subidas de Gradio, como la deja /gradio_api/upload."""
    from gradio.utils import get_upload_folder

    destino = Path(get_upload_folder()) / "prueba-imagenes" / ruta.name
    destino.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ruta, destino)
    return str(destino)


def test_subida_entrega_la_ruta_sin_abrirla(carpeta):
    ruta = _como_subida(carpeta / "texto.png")
    assert Subida(type="filepath").preprocess(ImageData(path=ruta)) == ruta
    assert Subida(type="filepath").preprocess(None) is None


def test_dibujo_entrega_rutas_sin_abrirlas(carpeta):
    ruta = _como_subida(carpeta / "bomba.png")
    valor = Dibujo().preprocess(Dibujo.data_model(composite=FileData(path=ruta), layers=[FileData(path=ruta)]))
    assert valor == {"background": None, "layers": [ruta], "composite": ruta}


def test_los_componentes_no_entregan_un_archivo_que_nadie_subio(carpeta):
    """Aunque Gradio lo dejara pasar: una ruta del servidor no llega a la pestaña."""
    import gradio as gr

    for ruta in (str(carpeta / "texto.png"), "/etc/hostname", "/dev/zero"):
        with pytest.raises(gr.Error, match="no se subió"):
            Subida(type="filepath").preprocess(ImageData(path=ruta))
        with pytest.raises(gr.Error, match="no se subió"):
            Dibujo().preprocess(Dibujo.data_model(composite=FileData(path=ruta)))


# --- por el API -----------------------------------------------------------------------------------

FOTO = "mi imagen (subida)"  # la opción de subir, igual en las dos pestañas
ENDPOINTS = ("/parches_vit", "/cbam_foto")


@pytest.mark.parametrize("api", ENDPOINTS)
@pytest.mark.parametrize("nombre, mensaje", MALAS.items())
def test_api_rechaza_archivos_malos_en_espanol(cliente, carpeta, api, nombre, mensaje):
    from gradio_client import handle_file

    error = espera_error(cliente, api, imagen=FOTO, subida=handle_file(str(carpeta / nombre)))
    assert mensaje in error


@pytest.mark.parametrize("nombre", MODOS)
def test_api_acepta_cada_modo(cliente, carpeta, nombre):
    from gradio_client import handle_file

    *_, texto = cliente.predict(imagen=FOTO, subida=handle_file(str(carpeta / nombre)), api_name="/cbam_foto")
    assert "tu imagen" in texto and "reducida" not in texto


def test_api_imagen_1x1(cliente, carpeta):
    from gradio_client import handle_file

    subida = handle_file(str(carpeta / "1x1.png"))
    assert "no cabe" in espera_error(cliente, "/parches_vit", imagen=FOTO, subida=subida, P="8")
    *_, texto = cliente.predict(imagen=FOTO, subida=subida, api_name="/cbam_foto")
    assert "1 × 1 px" in texto
