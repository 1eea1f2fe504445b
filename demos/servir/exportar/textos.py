"""Lo que no es figura, en HTML para el archivo exportado: Markdown (con sus fórmulas), tablas y etiquetas.

En la app lo dibuja el frontend de Gradio (Markdown con KaTeX, Dataframe, Label); el archivo no lo tiene, así que
cada valor (el que Gradio mandaría: `barrido.al_navegador`) se vuelve HTML aquí, en Python, una vez por valor
distinto. Todo texto se escapa: el Markdown se lee sin HTML crudo (`html=False`: un `<img>` escrito por un
visitante queda como texto), y las casillas de una tabla y las etiquetas van con `html.escape`. Las fórmulas
($…$, $$…$$) van como texto con sus símbolos (√, Σ, subíndices): el archivo no lleva KaTeX (≈ 1 MB con sus letras).
"""

from __future__ import annotations

import html
import re
from typing import Any

from markdown_it import MarkdownIt

from demos.comun.seguridad import sin_bidi

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")

_FORMULA = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", re.S)
_SIMBOLOS = {
    "cdot": "·",
    "times": "×",
    "sum": "Σ",
    "prod": "Π",
    "infty": "∞",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "approx": "≈",
    "neq": "≠",
    "in": "∈",
    "ldots": "…",
    "dots": "…",
    "cdots": "⋯",
    "top": "ᵀ",
    "odot": "⊙",
    "otimes": "⊗",
    "oplus": "⊕",
    "pm": "±",
    "mid": "|",
    "lvert": "|",
    "rvert": "|",
    "lVert": "‖",
    "rVert": "‖",
    "sim": "∼",
    "propto": "∝",
    "max": "max",
    "min": "min",
    "log": "log",
    "exp": "exp",
    "softmax": "softmax",
    "quad": "  ",
    "qquad": "   ",
    "partial": "∂",
    "nabla": "∇",
    "mathbb": "",
    "ell": "ℓ",
    "star": "⋆",
    "circ": "∘",
    "forall": "∀",
    "lfloor": "⌊",
    "rfloor": "⌋",
    "lceil": "⌈",
    "rceil": "⌉",
    "langle": "⟨",
    "rangle": "⟩",
    "neg": "¬",
    "cap": "∩",
    "cup": "∪",
}
_GRIEGAS = (
    "alpha:α beta:β gamma:γ delta:δ epsilon:ε varepsilon:ε zeta:ζ eta:η theta:θ lambda:λ mu:μ nu:ν xi:ξ pi:π "
    "rho:ρ sigma:σ tau:τ phi:φ varphi:φ chi:χ psi:ψ omega:ω Gamma:Γ Delta:Δ Theta:Θ Lambda:Λ Xi:Ξ Pi:Π Sigma:Σ "
    "Phi:Φ Psi:Ψ Omega:Ω"
)
_SIMBOLOS.update(par.split(":") for par in _GRIEGAS.split(" "))
_LLAVES = r"\{([^{}]*)\}"


def formula(tex: str) -> str:
    """Una fórmula de LaTeX -> HTML legible (texto escapado, <sup> y <sub>): `\\frac{a}{b}` -> a/b, `\\sqrt{d}` ->
    √d, `\\sum_j` -> Σ<sub>j</sub>. Sin motor de fórmulas: lo que no conoce queda como texto."""
    t = html.escape(sin_bidi(tex), quote=False)
    t = re.sub(r"\\(?:left|right|big|Big|bigg|displaystyle)\b", "", t)
    estilos = r"\\(?:text|mathrm|operatorname|mathit|textbf|mathbf|boldsymbol|mathcal)" + _LLAVES
    t = re.sub(r"([_^])" + estilos, r"\1{\2}", t)  # L_\text{objetivo}: el subíndice es la palabra entera
    t = re.sub(estilos, r"\1", t)
    for _ in range(4):  # de adentro hacia afuera
        t = re.sub(r"\\frac" + _LLAVES + _LLAVES, lambda m: f"{_grupo(m[1])}/{_grupo(m[2])}", t)
        t = re.sub(r"\\sqrt" + _LLAVES, lambda m: "√" + _grupo(m[1]), t)
        t = re.sub(r"\^" + _LLAVES, r"<sup>\1</sup>", t)
        t = re.sub(r"_" + _LLAVES, r"<sub>\1</sub>", t)
    t = re.sub(r"\\([A-Za-z]+)", lambda m: _SIMBOLOS.get(m[1], m[1]), t)
    t = re.sub(r"\^(\\?[^\s<\\{}])", r"<sup>\1</sup>", t)
    t = re.sub(r"_([^\s<\\{}])", r"<sub>\1</sub>", t)
    t = t.replace("<sup>ᵀ</sup>", "ᵀ").replace("\\,", " ").replace("\\;", " ").replace("\\!", "")
    t = t.replace("\\{", "{").replace("\\}", "}").replace("{", "").replace("}", "").replace("\\", "")
    return t


def _grupo(x: str) -> str:
    """Un numerador, un denominador o lo de una raíz: entre paréntesis si tiene más de una pieza."""
    return x if re.fullmatch(r"[\w.·√]+|<su[bp]>.*?</su[bp]>|\w+<su[bp]>[^<]*</su[bp]>", x) else f"({x})"


def markdown(texto: str) -> str:
    """Markdown de una pestaña -> HTML, sin HTML crudo, con sus fórmulas como texto."""
    formulas: list[str] = []

    def guardar(m: re.Match) -> str:
        aparte = m[1] is not None
        cuerpo = formula(m[1] if aparte else m[2])
        formulas.append(f'<span class="formula{" aparte" if aparte else ""}">{cuerpo}</span>')
        return f"FORMULAEXPORTADA{len(formulas) - 1}X"

    hecho = _MD.render(_FORMULA.sub(guardar, sin_bidi(texto)))
    return re.sub(r"FORMULAEXPORTADA(\d+)X", lambda m: formulas[int(m[1])], hecho)


def tabla(valor: dict) -> str:
    """El valor de un Dataframe ({headers, data}) -> una tabla, cada casilla escapada."""
    cab = "".join(f"<th>{_texto(h)}</th>" for h in valor.get("headers") or [])
    datos = (valor.get("metadata") or {}).get("display_value") or valor.get("data") or []  # como la app los muestra
    filas = "".join("<tr>" + "".join(f"<td>{_texto(x)}</td>" for x in fila) + "</tr>" for fila in datos)
    return f'<div class="tabla"><table><thead><tr>{cab}</tr></thead><tbody>{filas}</tbody></table></div>'


def etiqueta(valor: dict) -> str:
    """El valor de un Label ({label, confidences}) -> la clase y sus confianzas."""
    lista = "".join(
        f"<li>{_texto(c.get('label'))}: {_texto(_numero(c.get('confidence')))}</li>"
        for c in valor.get("confidences") or []
    )
    return f'<div class="etiqueta"><strong>{_texto(valor.get("label"))}</strong><ul>{lista}</ul></div>'


def _numero(x: Any) -> Any:
    return f"{x:.3f}" if isinstance(x, float) else x


def _texto(x: Any) -> str:
    return html.escape(sin_bidi("" if x is None else x), quote=True)


def a_html(tipo: str, valor: Any) -> str:
    """Lo que Gradio mandaría a una salida que no es figura -> su HTML en el archivo. `tipo`: markdown, tabla,
    etiqueta, html (el HTML que la pestaña ya arma y la app muestra tal cual) o texto."""
    if valor is None:
        return ""
    if tipo == "markdown":
        return markdown(str(valor))
    if tipo == "tabla" and isinstance(valor, dict):
        return tabla(valor)
    if tipo == "etiqueta" and isinstance(valor, dict):
        return etiqueta(valor)
    if tipo == "html":
        return str(valor)
    return f"<p>{_texto(valor)}</p>"
