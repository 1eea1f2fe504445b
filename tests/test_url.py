"""«Un valor inválido en la URL se ignora con un aviso» (README, «En diapositivas»), sin navegador.

Dos formas de que un ajuste no sirva, en cada pestaña:
- no se puede leer como su control (una letra para un número, una opción que no existe, un texto de más):
  `aplicar_url` lo deja fuera y lo avisa;
- se lee, pero la función de la pestaña lo rechaza (`?palabras=a,b` en temperatura: dos palabras y cuatro
  puntajes): `vista_inicial` abre la vista de siempre y avisa que los ajustes se ignoraron.
En los dos casos la pestaña abre (nada se pierde) y el aviso, en español, nombra el ajuste. Sin el respaldo de
`vista_inicial`, la segunda prueba levanta el ValueError de la pestaña.
"""

from __future__ import annotations

import gradio as gr
import pytest

from demos import PESTANAS
from demos.servir import conectar
from demos.servir.conectar import MAX_TEXTO_URL, aplicar_url, vista_inicial


def _vista(id_: str):
    import app

    return app.vistas(app.demo)[id_]


def _ilegible(componente) -> str:
    """Un valor que el control no acepta: una palabra donde va un número o una opción, un texto de más."""
    if isinstance(componente, gr.Textbox):
        return "x" * (MAX_TEXTO_URL + 1)
    return "no-es-un-valor"


@pytest.mark.parametrize("p", PESTANAS, ids=[p.id for p in PESTANAS])
def test_cada_ajuste_ilegible_de_la_url_se_ignora_con_un_aviso_que_lo_nombra(p, monkeypatch):
    vista = _vista(p.id)
    valores = [c.value for c in vista.entradas]
    parametros = {nombre: _ilegible(c) for nombre, c in vista.url.items() if not isinstance(c, gr.Checkbox)}
    nuevos, avisos = aplicar_url(vista, parametros, valores)
    assert nuevos == valores
    sin_aviso = [n for n in parametros if not any(f"«{n}=" in a for a in avisos)]
    assert not sin_aviso, f"{p.id}: sin aviso para {sin_aviso} ({avisos})"
    dichos = []
    monkeypatch.setattr(conectar, "avisar_url", lambda texto, _: dichos.append(texto))
    _, salidas = vista_inicial(p.id, vista, parametros, valores)
    assert len(dichos) == len(parametros) and salidas


def test_un_ajuste_que_la_pestana_rechaza_abre_la_vista_de_siempre_con_un_aviso(monkeypatch):
    vista = _vista("temperatura")
    valores = [c.value for c in vista.entradas]
    dichos = []
    monkeypatch.setattr(conectar, "avisar_url", lambda texto, _: dichos.append(texto))
    entradas, salidas = vista_inicial("temperatura", vista, {"palabras": "a,b"}, valores)
    (aviso,) = dichos
    assert aviso.startswith("Los ajustes de la URL se ignoraron:") and "2 palabras y 4 puntajes" in aviso, aviso
    _, siempre = vista_inicial("temperatura", vista, {}, valores)
    assert len(salidas) == len(siempre)
    assert "a,b" not in [e.get("value") if isinstance(e, dict) else e for e in entradas]  # el cuadro no queda en a,b
