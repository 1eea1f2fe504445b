"""La vista de una pestaña en un HTML sin servidor (issue 55): la orden, sus errores en español, lo escapado, el tope.

Las pruebas en Chromium (el archivo abierto desde file:// con la red cortada) están en test_exportar_navegador.py.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from demos import PESTANAS, POR_ID
from demos.servir import exportar as ex
from demos.servir.exportar import orden

MALICIOSAS = ("</script><b>x", "<img src=//o/x>")  # caben en una palabra de temperatura (30 letras)


def _datos(pagina: str) -> dict:
    m = re.search(r'<script type="application/json" id="datos-exportados">(.*?)</script>', pagina, re.S)
    return json.loads(m.group(1))


def _main(*args: str) -> int:
    import app

    with pytest.raises(SystemExit) as salida:
        app.main(["--exportar", *args])
    return salida.value.code


# --- la orden --------------------------------------------------------------------------------------


def test_la_orden_escribe_el_archivo_con_los_ajustes(tmp_path, capsys):
    archivo = tmp_path / "t.html"
    assert _main("temperatura", "--salida", str(archivo), "--param", "T=0.5", "--base", "https://app.example") == 0
    pagina = archivo.read_text(encoding="utf-8")
    assert "<title>Temperatura · Atención y transformers</title>" in pagina
    assert "softmax(s / T) con T = 0.5" in pagina  # la vista de T = 0.5, calculada por la pestaña
    assert 'href="https://app.example/demo/temperatura/?T=0.5"' in pagina  # la pestaña en vivo, con su ajuste
    assert "temperatura en" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "dice"),
    [
        (("nada",), "No hay una pestaña «nada». Las hay: a-mano, escalado, temperatura"),
        (("temperatura", "--param", "zz=1"), "no tiene el ajuste «zz». Tiene: palabras, puntajes, T, n, semilla"),
        (("temperatura", "--param", "T=50"), "«T=50» no sirve: debe estar entre 0.05 y 10."),
        (("temperatura", "--param", "T"), "«T» no es un ajuste: se escribe nombre=valor"),
        (("mascara-causal", "--param", "tipo=otra"), "«tipo=otra» no sirve: debe ser una de:"),
        (("temperatura", "--param", "presentacion=2"), "debe ser 1 o 0"),
        (("temperatura", "--base", "javascript:alert(1)"), "no es una dirección: empieza con http://"),
    ],
)
def test_lo_que_no_sirve_se_dice_en_espanol_y_sale_con_error(tmp_path, capsys, args, dice):
    archivo = tmp_path / "t.html"
    assert _main(args[0], "--salida", str(archivo), *args[1:]) == 2
    error = capsys.readouterr().err
    assert error.startswith("No se exportó: ") and dice in error, error
    assert not archivo.exists()


def test_sin_salida_lo_dice(capsys, tmp_path):
    assert _main("temperatura") == 2
    assert "Falta --salida" in capsys.readouterr().err
    assert _main("temperatura", "--salida", str(tmp_path / "no-existe" / "t.html")) == 2
    assert "no se puede escribir" in capsys.readouterr().err


def test_la_vista_que_la_funcion_rechaza_no_se_exporta():
    with pytest.raises(ValueError, match="puntaje"):
        orden.exportar_id("temperatura", {"palabras": "a,b", "puntajes": "1,2,3"})


# --- el archivo ------------------------------------------------------------------------------------


@pytest.mark.parametrize("id_", [p.id for p in PESTANAS])
def test_cada_pestana_se_exporta_en_un_archivo_de_menos_de_3_mb(id_):
    """Todas las del registro (las nuevas también): título, «Qué mirar», una figura por cada Figura de la vista, un
    deslizador o una lista por cada barrido que cabe, y nada que se pida a la red."""
    p = POR_ID[id_]
    pagina = orden.exportar_id(id_, {})
    assert len(pagina.encode()) < ex.MAX_BYTES_ARCHIVO
    assert p.titulo in pagina and ex.escapar(p.que_mirar) in pagina
    datos = _datos(pagina)
    figuras = [s for s in datos["salidas"] if s["tipo"] == "figura"]
    assert figuras and all(s["valor"] for s in figuras)
    assert pagina.count('class="figura-propia"') == len(figuras)
    vivos = [b for b in datos["barridos"] if not b["paquete"].get("servidor")]
    controles = pagina.count('type="range" id=') + pagina.count('role="radiogroup"')
    assert controles == len(vivos)
    # Nada que el navegador pida solo: sin src ni href de hojas o guiones, y la política no deja conectar.
    assert not re.search(r"<(?:script|img|link|iframe)[^>]*\s(?:src|href)=", pagina)
    assert "connect-src 'none'" in pagina and "default-src 'none'" in pagina


def test_lo_que_escribe_un_visitante_va_escapado():
    pagina = orden.exportar_id("temperatura", {"palabras": f"uno,{','.join(MALICIOSAS)},cuatro"})
    # La suite, los datos, Plotly.js, pagina.js y las teclas del mazo: ninguno del visitante.
    assert pagina.count("<script") == 5
    assert "<img" not in pagina and "<b>x" not in pagina
    assert "&lt;/script&gt;&lt;b&gt;x" in pagina and "&lt;img src=//o/x&gt;" in pagina  # se leen como texto
    # En los datos, `<` va como \u003c: ningún texto cierra el elemento.
    crudo = re.search(r'id="datos-exportados">(.*?)</script>', pagina, re.S).group(1)
    assert "<" not in crudo


def test_un_control_que_necesita_el_servidor_muestra_su_valor_desactivado_y_enlaza_a_la_pestana():
    pagina = orden.exportar_id("temperatura", {"n": "50", "semilla": "3"}, base="https://app.example/")
    assert re.search(r'<input type="number" data-entrada="3" disabled value="50">', pagina)
    assert "Estos controles necesitan el servidor" in pagina
    assert 'href="https://app.example/demo/temperatura/?n=50&amp;semilla=3"' in pagina


def test_sin_base_el_enlace_es_relativo_o_el_del_space(monkeypatch):
    monkeypatch.delenv(ex.VARIABLE_BASE, raising=False)
    monkeypatch.delenv("SPACE_HOST", raising=False)
    assert 'href="/demo/temperatura/"' in orden.exportar_id("temperatura", {})
    monkeypatch.setenv("SPACE_HOST", "org-atencion.hf.space")
    assert 'href="https://org-atencion.hf.space/demo/temperatura/"' in orden.exportar_id("temperatura", {})


def test_un_archivo_que_pasaria_del_tope_no_se_escribe(monkeypatch):
    monkeypatch.setattr(ex, "MAX_BYTES_ARCHIVO", 1_000_000)
    with pytest.raises(ValueError, match=r"pesaría 1\.\d MB, más que el tope de 1 MB"):
        orden.exportar_id("temperatura", {})


def test_cada_parada_trae_sus_textos_hechos_en_python():
    """El texto bajo las figuras cambia con T como en la app: el HTML de cada parada, hecho con la función."""
    datos = _datos(orden.exportar_id("temperatura", {}))
    (b,) = datos["barridos"]
    assert b["datos"]["controles"] == 2 and b["entrada_etiqueta"].startswith("Temperatura T")
    textos = b["textos"]
    assert textos, "la tabla y el texto cambian con T"
    for t in textos.values():
        assert len(t["i"]) == len(b["paquete"]["paradas"]) and len(set(t["i"])) > 10


def test_formulas_como_texto():
    from demos.servir.exportar.textos import formula, markdown

    assert formula(r"\mathrm{softmax}(QK^\top/\sqrt{d})V") == "softmax(QKᵀ/√d)V"
    assert formula(r"\sum_j e^{s_j}") == "Σ<sub>j</sub> e<sup>s<sub>j</sub></sup>"
    assert "&lt;img" in markdown("<img src=x> $a<b$")
    # Un subíndice con nombre es la palabra entera (atención cruzada: «L_objetivo × L_fuente», no «L_o bjetivo»).
    assert formula(r"L_\text{objetivo} \times L_\text{fuente}") == "L<sub>objetivo</sub> × L<sub>fuente</sub>"
    assert formula(r"x^\text{a} + \text{softmax}(y)") == "x<sup>a</sup> + softmax(y)"


def test_el_archivo_lleva_lo_que_la_app_dice_de_sus_figuras():
    """La barra de Plotly se esconde con el dedo y en una página angosta, con la misma regla que la app (un solo
    archivo, demos/servir/pagina/figuras.css, que la app carga y el archivo lleva): a 390 px tapaba el título."""
    from demos.servir.exportar.armado import CSS_DE_LAS_FIGURAS
    from demos.servir.pagina import archivos

    css = CSS_DE_LAS_FIGURAS.read_text(encoding="utf-8")
    assert ".modebar-container { display: none" in css
    assert any(Path(r).name == "figuras.css" for r in archivos("css"))
    assert css in orden.exportar_id("atencion-cruzada", {})


# --- la descarga -----------------------------------------------------------------------------------


def test_la_descarga_escribe_el_html_de_la_vista_que_se_ve():
    from demos.servir.descarga import exportar_html

    p, vista = orden.construir("variantes")
    valores = [c.value for c in vista.entradas]
    i = next(k for k, c in enumerate(vista.entradas) if c is vista.url["L"])
    valores[i] = 12
    (ruta,) = exportar_html("variantes", vista, valores)
    assert ruta.endswith("variantes-html-interactivo-sin-conexion.html")
    pagina = Path(ruta).read_text(encoding="utf-8")
    assert "/demo/variantes/?L=12" in pagina
    with pytest.raises(ValueError, match="no se puede exportar"):
        exportar_html("otra", vista, valores)
    with pytest.raises(ValueError, match="no se puede exportar"):
        exportar_html("variantes", vista, valores[:-1])


def test_las_paradas_del_boton_gastan_el_presupuesto_de_quien_lo_pulsa(monkeypatch):
    """El botón lo pulsa un visitante: sus paradas van por el `Taller` de las ediciones y gastan su presupuesto
    (una vista por parada). Sin saldo, el archivo no se arma a medias: un error en español, y nada se calcula."""
    from types import SimpleNamespace

    from demos.comun import barrido
    from demos.servir.descarga import exportar_html

    taller = barrido.Taller(max_en_fila=6, por_sesion=barrido.Presupuesto(capacidad=100, por_s=0))
    monkeypatch.setattr(barrido, "TALLER", taller)
    pedido = SimpleNamespace(session_hash="sesion-1", client=SimpleNamespace(host="203.0.113.9"))
    monkeypatch.setattr(barrido, "peticion_actual", lambda: pedido)
    p, vista = orden.construir("temperatura")
    valores = [c.value for c in vista.entradas]
    i = next(k for k, c in enumerate(vista.entradas) if c is vista.url["T"])
    valores[i] = 1.37  # una vista que nadie pidió: sus paradas no están guardadas
    llamadas = []
    fn = vista.fn
    monkeypatch.setattr(vista, "fn", lambda *a: llamadas.append(a) or fn(*a))
    with pytest.raises(ValueError, match="prueba otra vez en un minuto"):
        exportar_html("temperatura", vista, valores)
    assert len(llamadas) == 1  # la vista que se ve, y ninguna parada
    assert taller.por_sesion.saldo("sesion-1", time.monotonic()) < 0


def test_la_ruta_de_una_imagen_subida_no_sale_en_el_archivo():
    """Una subida o un lienzo llegan como una ruta del servidor: el archivo no la lleva (ni en las entradas ni en las
    de cada paquete), solo dice que está en la app."""
    import gradio as gr

    from demos.servir.exportar.armado import _deshabilitado

    assert ex._entrada(gr.Image(), "/tmp/gradio/abc/x.png")["valor"] is None
    assert ex._entrada(gr.Textbox(), "hola")["valor"] == "hola"
    html = _deshabilitado(3, gr.Image(label="Tu imagen"), "/tmp/gradio/abc/x.png")
    assert "/tmp" not in html and "en la app" in html


def test_controles_predecir_y_presentacion_como_en_la_url_de_la_app():
    """`controles=w` deja a la vista solo el control de w (los demás, ocultos con su valor); `predecir` se acepta;
    un nombre de `controles` que no es de la pestaña es un error que dice los que hay."""
    pagina = orden.exportar_id("variantes", {"controles": "w", "predecir": "0", "presentacion": "1", "L": "12"})
    assert re.search(r'<div class="control barrido">(?:(?!</div>).)*variantes-w', pagina)
    assert re.search(r'<div class="control barrido" hidden>(?:(?!</div>).)*variantes-g', pagina)
    assert _datos(pagina)["presentacion"] is True
    assert "/demo/variantes/?L=12&amp;controles=w" in pagina
    with pytest.raises(ValueError, match=r"«zz» no es un control de esta pestaña\. Hay: L, w, g, r, semilla"):
        orden.exportar_id("variantes", {"controles": "w,zz"})


def test_la_seccion_barrida_de_inversion_entra_con_sus_11_instantaneas():
    """«Mira cómo aprende» no está en la Vista: la pestaña la barre ella misma (`barrido.Seccion`). La exportación la
    toma de `barrido.secciones_barridas()` (no leyendo el `js=` de sus eventos), con los datos de su evento; con
    otros dígitos sus paradas ya no son las de la vista, y queda fuera."""
    barridos = _datos(orden.exportar_id("inversion-digitos", {}))["barridos"]
    (seccion,) = barridos
    assert seccion["datos"]["modo"] == "control" and len(seccion["paquete"]["paradas"]) == 11
    assert _datos(orden.exportar_id("inversion-digitos", {"digitos": "12345678"}))["barridos"] == []


def test_el_boton_espera_las_paradas_de_la_edicion_de_su_sesion(monkeypatch):
    """Quien edita y enseguida pulsa el botón tiene en el taller las paradas de su edición (un pedido por sesión):
    la exportación espera a que salgan en lugar de recibir «ocupado» (en CI, con la máquina cargada, el archivo
    del botón fallaba así)."""
    import threading
    from types import SimpleNamespace

    from demos.comun import barrido
    from demos.servir.descarga import exportar_html

    taller = barrido.Taller(max_en_fila=6)
    monkeypatch.setattr(barrido, "TALLER", taller)
    pedido = SimpleNamespace(session_hash="sesion-2", client=SimpleNamespace(host="203.0.113.10"))
    monkeypatch.setattr(barrido, "peticion_actual", lambda: pedido)
    p, vista = orden.construir("temperatura")
    valores = [c.value for c in vista.entradas]
    en_curso = barrido._Pedido(vista, valores, None, "sesion-2", "203.0.113.10", 1, time.monotonic())
    taller._corren.append(en_curso)  # la edición de la sesión, calculándose
    threading.Timer(0.5, lambda: taller._corren.remove(en_curso)).start()
    inicio = time.monotonic()
    (ruta,) = exportar_html("temperatura", vista, valores)
    assert time.monotonic() - inicio >= 0.5 and Path(ruta).stat().st_size > 1_000_000
