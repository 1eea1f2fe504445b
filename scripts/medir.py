"""Lo que comparten las secciones de `make bench` (scripts/bench.py y sus scripts/bench_*.py): el servidor en otro
proceso, el endpoint vacío de referencia, puertos, percentiles y las tablas en Markdown. Ninguna sección importa
a otra por esto: todas lo toman de aquí, y scripts/bench.py solo las ordena."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ))
ENTORNO = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONPATH": str(RAIZ)}

VACIA = """
import sys, gradio as gr
with gr.Blocks() as demo:
    entrada, salida = gr.Number(0), gr.Number()
    entrada.change(lambda x: x, entrada, salida, api_name="vacia")
demo.queue(default_concurrency_limit=4, max_size=64)
demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]))
"""


def puerto_libre() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentil(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q / 100 * (len(xs) - 1)))]


def ms(x: float) -> str:
    return f"{1000 * x:,.0f} ms" if x >= 0.1 else f"{1000 * x:.1f} ms"


def tabla(titulo: str, cabecera: list[str], filas: list[list]) -> str:
    lineas = [f"\n### {titulo}\n", "| " + " | ".join(cabecera) + " |", "|" + "---|" * len(cabecera)]
    lineas += ["| " + " | ".join(str(c) for c in fila) + " |" for fila in filas]
    texto = "\n".join(lineas)
    print(texto, flush=True)
    return texto


class Servidor:
    """Un proceso servidor; espera hasta que el API responde."""

    def __init__(self, argumentos: list[str], puerto: int, ruta: str = "/", entorno: dict | None = None):
        self.url = f"http://127.0.0.1:{puerto}{ruta}"
        self.proceso = subprocess.Popen(
            [sys.executable, *argumentos],
            cwd=RAIZ,
            env={**ENTORNO, **(entorno or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def esperar(self, limite: float = 300) -> float:
        import urllib.request

        inicio = time.perf_counter()
        while time.perf_counter() - inicio < limite:
            if self.proceso.poll() is not None:
                raise RuntimeError(self.proceso.stderr.read().decode()[-2000:])
            try:
                urllib.request.urlopen(self.url + "gradio_api/info", timeout=1)
                return time.perf_counter() - inicio
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{self.url} no respondió en {limite} s")

    def rss_pico_mb(self) -> float:
        for linea in Path(f"/proc/{self.proceso.pid}/status").read_text().splitlines():
            if linea.startswith("VmHWM:"):
                return int(linea.split()[1]) / 1024
        return float("nan")

    def cerrar(self):
        self.proceso.terminate()
        try:
            self.proceso.wait(timeout=5)
        except subprocess.TimeoutExpired:  # uvicorn espera conexiones abiertas; no hace falta
            self.proceso.kill()
            self.proceso.wait()
