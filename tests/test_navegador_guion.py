"""El guion de la suite en el navegador (demos/comun/navegador): un solo `<script>`, sin globales más que su puerta.

Las funciones puras de cada módulo tienen sus pruebas en tests/js/ (`node --test`, en `make test`)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from demos.comun import navegador

NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="sin Node.js")
def test_el_guion_es_javascript_valido(tmp_path):
    archivo = tmp_path / "guion.js"
    archivo.write_text(navegador.guion() + ";", encoding="utf-8")
    r = subprocess.run([NODE, "--check", str(archivo)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_los_modulos_se_hablan_por_import_y_la_pagina_por_una_puerta():
    """Entre módulos, `import`; con Gradio, `window.__suite` y nada más (ni `window.__algo` ni propiedades `__` en
    los <div> de las figuras); y sin marcadores de texto que sustituir."""
    texto = navegador.guion()
    assert set(re.findall(r"window\.(__\w+)", texto)) == {"__suite"}
    assert not re.search(r"\b[a-z]\.__\w+", texto)
    assert "__TINTAS__" not in texto and "import " not in texto.replace("// ", "")


def test_las_constantes_compartidas_vienen_de_python():
    from demos.comun.figuras import pantalla_angosta, pantalla_lienzo

    a = navegador.ajustes()
    assert a["ANCHO_FIGURA"] == pantalla_angosta.ANCHO_FIGURA and a["ANCHO_LETRA"] == pantalla_lienzo.ANCHO_LETRA
    assert f'"ANCHO_FIGURA": {pantalla_angosta.ANCHO_FIGURA}' in navegador.guion()


def test_un_import_en_circulo_se_dice(tmp_path):
    (tmp_path / "a.mjs").write_text('import {b} from "./b.mjs";\nexport const a = 1;\n')
    (tmp_path / "b.mjs").write_text('import {a} from "./a.mjs";\nexport const b = 2;\n')
    with pytest.raises(ValueError, match="en círculo"):
        navegador.enlazar(tmp_path / "a.mjs")
