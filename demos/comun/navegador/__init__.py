"""El código de la suite en el navegador: módulos ES (`*.mjs`) y el guion que los lleva a la página.

Cada módulo tiene un papel y sus pruebas con `node --test` (tests/js/):

- `maqueta.mjs`: adaptar una figura al ancho de verdad (funciones puras sobre el {data, layout} de Plotly);
- `instantaneas.mjs`: lo que Plotly ya dibujó, para volver a ponerlo sin Plotly;
- `turnos.mjs`: en qué orden se dibujan las figuras y las paradas;
- `figuras.mjs`: cada Figura de la página (recibe sus valores, mide, dibuja, observa);
- `barrido.mjs`: la vista de una parada de un control barrido (demos/comun/barrido.py), sin el servidor;
- `pagina.mjs`: la puerta, `window.__suite`, lo único que ven los guiones de Gradio.

La página los recibe en un solo `<script>` sin pedir nada más (`guion`): cada módulo va en su función, sin sus
líneas de comentario, y sus `import` pasan a ser constantes de la anterior. Así cabe en el `<head>` del HTML
(antes que Gradio) y en un archivo que funciona sin conexión. Las constantes que Python y el navegador comparten
(`ajustes`) se definen en Python y van como argumento de `iniciar`, no copiadas a mano.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

CARPETA = Path(__file__).parent
# Tras una edición de una pestaña con barrido, lo que barrido.mjs espera sus paradas antes de pedirlas otra vez.
ESPERA_PAQUETE_MS = 20_000
ENTRADA = CARPETA / "pagina.mjs"

_IMPORT = re.compile(r'^import \{([^}]*)\} from "(\./[\w.]+\.mjs)";\n', re.M)
_COMENTARIO = re.compile(r"^\s*//.*\n", re.M)  # una línea que es solo un comentario: no viaja
_EXPORT = re.compile(r"^export (?:const|let|function) (\w+)", re.M)


def _nombre(ruta: Path) -> str:
    return "modulo_" + ruta.stem


def enlazar(entrada: Path = ENTRADA) -> str:
    """Los módulos que alcanza `entrada`, en orden de dependencias, cada uno en `const modulo_X = (() => {…})();`."""
    orden: list[Path] = []

    def visitar(ruta: Path, camino: tuple[Path, ...] = ()) -> None:
        if ruta in orden:
            return
        if ruta in camino:
            raise ValueError(f"Los módulos se importan en círculo: {' -> '.join(p.name for p in (*camino, ruta))}")
        for _, dep in _IMPORT.findall(ruta.read_text(encoding="utf-8")):
            visitar((ruta.parent / dep).resolve(), (*camino, ruta))
        orden.append(ruta)

    visitar(entrada.resolve())
    partes = []
    for ruta in orden:
        texto = ruta.read_text(encoding="utf-8")
        importados = []
        for nombres, dep in _IMPORT.findall(texto):
            pares = [n.strip().replace(" as ", ": ") for n in nombres.split(",") if n.strip()]
            importados.append(f"const {{{', '.join(pares)}}} = {_nombre((ruta.parent / dep).resolve())};")
        cuerpo = _EXPORT.sub(lambda m: m.group(0).removeprefix("export "), _IMPORT.sub("", _COMENTARIO.sub("", texto)))
        exportados = ", ".join(_EXPORT.findall(texto))
        partes.append(
            f"/* {ruta.name} */\nconst {_nombre(ruta)} = (() => {{\n"
            + "\n".join(importados)
            + f"\n{cuerpo}\nreturn {{{exportados}}};\n}})();"
        )
    return "\n".join(partes)


def ajustes() -> dict:
    """Lo que Python define y el navegador usa: las tintas del modo oscuro, los anchos del teléfono, lo que mide una
    letra y un renglón de título, la letra más chica de un número de casilla, la espera de las paradas de una
    edición. Las reglas que ajustan un texto o un panel al ancho de verdad (el título de la figura de teléfono, los
    números de sus casillas, los títulos de lado, los altos de los paneles apilados, las marcas de categorías) son
    solo del navegador (maqueta.mjs): el servidor les manda estas constantes y sus entradas, en `layout.meta.angosto`
    (pantalla_angosta.terminar y .medida, pantalla_lienzo.Lienzo.casillas, pantalla_graficas)."""
    from demos.comun.figuras import pantalla_angosta as angosta
    from demos.comun.figuras import pantalla_lienzo as lienzo

    return {
        "TINTAS": lienzo.TINTAS,
        "TRANSPARENTE": lienzo.TRANSPARENTE,
        "ANCHO_MAXIMO": angosta.ANCHO_MAXIMO,
        "ANCHO_FIGURA": angosta.ANCHO_FIGURA,
        "ANCHO_LETRA": lienzo.ANCHO_LETRA,
        "LETRA_MINIMA": lienzo.LETRA_MINIMA,
        "LETRA_TITULO": lienzo.LETRA_TITULO,
        "ANCHO_DE_LETRA": lienzo.ANCHO_DE_LETRA,
        "RENGLON": lienzo.RENGLON,
        "HOLGURA_DE_LADO": angosta.HOLGURA_DE_LADO,
        "ESPERA_PAQUETE_MS": ESPERA_PAQUETE_MS,
    }


@cache
def guion() -> str:
    """Una expresión de JavaScript que arranca la suite en la página (una vez) y vale su puerta, `window.__suite`."""
    return f"(() => {{\n{enlazar()}\nreturn {_nombre(ENTRADA)}.iniciar({json.dumps(ajustes())});\n}})()"


def cabeza() -> str:
    """El `<script>` de la suite, para el `<head>` del HTML servido y el de la configuración."""
    return f"<script>{guion()};</script>"
