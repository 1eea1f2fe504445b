"""Espiga (#26): ¿servir /demo/<id>/ desde la suite misma, con una sola cola?

    python scripts/espiga_una_cola.py

Hoy cada pestaña suelta es un `gr.Blocks` propio, montado al pedirlo (`servidor.asgi.MontajesPerezosos`),
con su cola: de ahí los montajes perezosos, los contadores entre colas y los cerrojos del proceso. Con una
sola cola, la manera de Gradio es `Blocks.route`: páginas del mismo Blocks, cada una con su configuración
filtrada. Esto mide, cada modo en un proceso nuevo, lo que cuesta armar la suite y luego las 14 pestañas
sueltas de cada manera: segundos y RSS. (`Blocks.route` no admite «/» en el camino: las páginas serían
/demo-<id>, no /demo/<id>/, y hay que crearlas al arrancar, no al pedirlas.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent

MEDIR = """
import sys, time
sys.path.insert(0, {raiz!r})

def rss():
    for linea in open("/proc/self/status"):
        if linea.startswith("VmRSS"):
            return int(linea.split()[1]) / 1024

t0 = time.perf_counter()
import app
from demos import PESTANAS
from demos.servir.conectar import conectar

t1, r1 = time.perf_counter(), rss()
modo = {modo!r}
if modo == "montajes":  # lo de hoy, si se pidieran las 14 /demo/<id>/
    bloques = [app.construir_una(p.id) for p in PESTANAS]
elif modo == "rutas":  # una sola cola: cada pestaña suelta, una página del Blocks de la suite
    for p in PESTANAS:
        with app.demo.route(p.titulo, f"demo-{{p.id}}", show_in_navbar=False):
            conectar(p.cargar().construir(), api_name=p.api + "_suelta", prefijo=p.id + "-suelta")
    app.demo.get_config_file()
print(f"{{t1 - t0:.1f}}\\t{{r1:.0f}}\\t{{time.perf_counter() - t1:.1f}}\\t{{rss() - r1:.0f}}")
"""


def medir(modo: str) -> list[str]:
    salida = subprocess.run(
        [sys.executable, "-c", MEDIR.format(raiz=str(RAIZ), modo=modo)],
        cwd=RAIZ,
        capture_output=True,
        text=True,
        check=True,
        env={"HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "PATH": "/usr/bin:/bin"},
    )
    return salida.stdout.strip().splitlines()[-1].split("\t")


def main() -> None:
    print("| modo | armar la suite (s) | RSS de la suite (MB) | armar las 14 sueltas (s) | RSS de más (MB) |")
    print("|---|---|---|---|---|")
    for modo in ("solo la suite", "montajes", "rutas"):
        print(f"| {modo} | " + " | ".join(medir(modo)) + " |", flush=True)


if __name__ == "__main__":
    main()
