"""Seguridad §2 sin navegador: cada evento de la suite que recibe un texto del visitante, con las palabras de
ataque, por el camino del API de Gradio (`Blocks.process_api`: preprocesa, llama, posprocesa).

No se elige a mano qué pestañas repiten texto: se recorren todos los eventos con una función de Python y una
entrada de texto (`Textbox`, `Desplegable`), y cada una de esas entradas recibe cada ataque. Lo que vuelve se
mira por lo que hace el navegador con cada salida:
- un `gr.Markdown` o `gr.HTML` interpreta Markdown o HTML: no puede traer el ataque crudo (ni la dirección
  de la baliza, ni `<img`, `<a `, `](`), ni un control bidireccional;
- una figura (Plotly) interpreta `<a href>`, `<img>` y otras marcas en sus textos: no puede traer `<` crudo
  del ataque;
- un aviso de error se muestra como HTML: lo mismo.
Un cuadro de texto, una tabla de texto o una etiqueta muestran texto plano y pueden repetir el ataque tal cual.

La próxima pestaña o el próximo texto que repita una palabra sin escapar (como el modo libro, que la ponía
cruda en su `gr.Markdown`) hace fallar esta prueba, sin Chromium.
"""

from __future__ import annotations

import asyncio
import json
import re

import gradio as gr
import pytest

BALIZA = "127.1"  # la «dirección de un tercero» de los ataques (//127.1 = 127.0.0.1)
ATAQUES = (
    "![](//127.1/m1)",
    "[Entra](//127.1/l1)",
    "<img src=//127.1/i1>",
    "<a href=//127.1/a1>aquí</a>",
    "‮al revés",
)


def _formas(defecto: object) -> list[str]:
    """Cada ataque en lugar de la primera palabra del texto de siempre (así cuadra con los puntajes o las filas
    que la pestaña espera), separada por comas o por espacios; y sola, en lugar de todo el texto."""
    texto = str(defecto or "Ana, sacó, plata")
    separador = "," if "," in texto else " "
    resto = texto.split(separador)[1:]
    return [f for a in ATAQUES for f in (separador.join([a, *resto]), a)]


def _de_cifras(componente) -> bool:
    """Un cuadro que trae números (los puntajes de temperatura, los dígitos de inversión): todo ataque se
    rechaza, y lo que se mira es el aviso."""
    return re.fullmatch(r"[\d\s.,;+-]*", str(getattr(componente, "value", ""))) is not None


DE_TEXTO = ("Textbox", "Desplegable")
INTERPRETAN = (gr.Markdown, gr.HTML)
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def _eventos():
    import app

    return [
        (k, f)
        for k, f in app.demo.fns.items()
        if f.fn is not None
        and any(type(c).__name__ in DE_TEXTO for c in f.inputs)
        and any(isinstance(c, INTERPRETAN) for c in f.outputs)  # las descargas: test_figuras (SVG escapado)
    ]


def _crudo_en_marcado(texto: str) -> list[str]:
    """Lo que un Markdown o HTML interpretaría del ataque."""
    malos = [m for m in (BALIZA, "<img", "<a ") if m in texto]  # un `](` propio de la pestaña es un enlace suyo
    return malos + [f"U+{ord(c):04X}" for c in BIDI if c in texto]


def _crudo_en_figura(texto: str) -> list[str]:
    return [m for m in ("<img", "<a ") if m in texto]


def _llamar(demo, f, valores):
    from gradio.state_holder import SessionState

    return asyncio.run(demo.process_api(block_fn=f, inputs=valores, state=SessionState(demo)))


def _revisar(f, salida) -> list[str]:
    faltas = []
    for componente, valor in zip(f.outputs, salida["data"], strict=False):
        texto = json.dumps(valor, ensure_ascii=False, default=str)
        if type(componente).__name__ == "Figura":  # un gr.HTML cuya plantilla no usa el valor: va a Plotly
            malos = _crudo_en_figura(texto)
        elif isinstance(componente, INTERPRETAN):
            malos = _crudo_en_marcado(texto)
        else:
            continue
        if malos:
            faltas.append(f"{type(componente).__name__} {getattr(componente, 'elem_id', '')}: {malos}")
    return faltas


def test_hay_eventos_de_texto_en_cada_pestana_que_repite_palabras():
    """La prueba de abajo cubre lo que debe: si un cambio dejara de encontrar los eventos, esto lo dice."""
    nombres = {f.api_name for _, f in _eventos()}
    for api in ("a_mano", "libro", "temperatura", "mascara_causal", "atencion_cruzada", "clasificador_atencion"):
        assert api in nombres, f"sin evento de texto «{api}»: ¿cambió cómo se encuentran los eventos?"


def _casos():
    return [(k, f, j) for k, f in _eventos() for j, c in enumerate(f.inputs) if type(c).__name__ in DE_TEXTO]


@pytest.mark.parametrize("k, f, j", _casos(), ids=lambda x: x if isinstance(x, int) else getattr(x, "name", ""))
def test_ningun_texto_de_un_visitante_vuelve_como_marcado(k, f, j):
    import app

    faltas, llegaron = [], 0
    for forma in _formas(f.inputs[j].value):
        valores = [getattr(e, "value", None) for e in f.inputs]
        valores[j] = forma
        try:
            salida = _llamar(app.demo, f, valores)
        except gr.Error as e:  # una entrada rechazada: el aviso se muestra como HTML
            malos = _crudo_en_figura(str(e.message)) + [f"U+{ord(c):04X}" for c in BIDI if c in e.message]
            faltas += [f"con {forma!r}, el aviso trae {malos}"] if malos else []
            continue
        llegaron += 1
        faltas += [f"con {forma!r}, {m}" for m in _revisar(f, salida)]
    if not llegaron and not _de_cifras(f.inputs[j]):
        faltas.append("ningún ataque llegó a una salida: la prueba no miró nada (¿otra forma de texto?)")
    assert not faltas, f"evento {k} ({f.api_name or f.name}), entrada {j}:\n" + "\n".join(faltas)


def test_el_modo_libro_escapa_la_palabra_en_cada_paso():
    """El hallazgo de la tercera ronda (#56, 5): `?palabras=![](//127.1/m1),sacó,plata` y abrir el libro."""
    from demos.a_mano import libro

    for paso in range(1, 6):
        texto, _ = libro(palabras="![](//127.1/m1),sacó,plata", paso=paso, fila=1)
        assert not _crudo_en_marcado(texto), texto
        if paso in (1, 5):  # los pasos cuya frase nombra la palabra de la fila: se lee, escapada
            assert "&#33;&#91;&#93;&#40;&#47;&#47;127&#46;1&#47;m1&#41;" in texto, texto
