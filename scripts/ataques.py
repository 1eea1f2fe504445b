"""Los ataques del issue «Security, second round», a escala real, contra un servidor en otro proceso.

    python scripts/ataques.py                 # contra este árbol
    python scripts/ataques.py --arbol /otro   # contra otro checkout (p. ej. el de antes del arreglo)
    python scripts/ataques.py --solo sesiones,capa

Arranca `python app.py` del árbol en un puerto libre, corre cada ataque y escribe una tabla en
Markdown: RSS del servidor (antes, después), lo que contestó y cuánto tardó un visitante honesto.
Las pruebas (tests/test_seguridad_*.py) corren los mismos ataques a escala pequeña.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

RAIZ = Path(__file__).resolve().parent.parent
MB = 2**20


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(linea.split()[1]) for linea in f if linea.startswith("VmRSS")) / 1024


def puerto_libre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Servidor:
    def __init__(self, arbol: Path):
        self.arbol, self.puerto = arbol, puerto_libre()
        self.url = f"http://127.0.0.1:{self.puerto}/"
        self.carpeta = tempfile.mkdtemp(prefix="ataques-")

    def __enter__(self):
        entorno = {**os.environ, "ATENCION_CARPETA": self.carpeta, "HF_HUB_OFFLINE": "1", "ATENCION_DISPOSITIVO": "cpu"}
        entorno["GRADIO_ANALYTICS_ENABLED"] = "False"
        self.log = open(Path(self.carpeta) / "servidor.log", "w")
        orden = [sys.executable, "app.py", "--port", str(self.puerto)]
        self.proc = subprocess.Popen(orden, cwd=self.arbol, env=entorno, stdout=self.log, stderr=subprocess.STDOUT)
        limite = time.monotonic() + 180
        while time.monotonic() < limite:
            try:
                if httpx.get(f"{self.url}config", timeout=5).status_code == 200:
                    time.sleep(3)  # la precarga de checkpoints
                    return self
            except httpx.HTTPError:
                time.sleep(0.5)
        raise RuntimeError("el servidor no arrancó")

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(30)
        self.log.close()

    @property
    def rss(self) -> float:
        return rss_mb(self.proc.pid)

    def config(self) -> dict:
        return httpx.get(f"{self.url}config", timeout=30).json()

    def lineas_de_log(self) -> list[str]:
        return (Path(self.carpeta) / "servidor.log").read_text(errors="replace").splitlines()


def _lienzo(config: dict) -> int:
    return next(c["id"] for c in config["components"] if "accept_blobs" in (c.get("props", {}).get("server_fns") or []))


def trozo(url: str, componente: int, indice: str, sesion: str | None = None, datos: bytes = b"\x89PNG" + b"\0" * 100):
    campos = {"component_id": str(componente), "fn_name": "accept_blobs", "session_hash": sesion or uuid.uuid4().hex}
    campos |= {"id": uuid.uuid4().hex[:12], "type": "layer", "index": indice}
    return httpx.post(f"{url}gradio_api/component_server/", data=campos, files={"file": ("l.png", datos)}, timeout=120)


def ataque_capa(s: Servidor) -> list[str]:
    """Un pedido a component_server con un índice de capa de 20 millones (160 MB de lista en Gradio)."""
    lienzo = _lienzo(s.config())
    antes = s.rss
    r = trozo(s.url, lienzo, str(20_000_000))
    time.sleep(1)
    return [f"| capa 20 000 000 | {r.status_code} | {antes:.0f} | {s.rss:.0f} | {s.rss - antes:+.0f} |"]


def ataque_sesiones(s: Servidor, n: int = 2000, conexiones: int = 4) -> list[str]:
    """`n` sesiones inventadas a queue/join con un fn_index desconocido (`conexiones` a la vez); /config honesto."""
    antes, tiempos, estados = s.rss, [], Counter()
    fin = threading.Event()

    def honesto():
        while not fin.is_set():
            t = time.monotonic()
            httpx.get(f"{s.url}config", timeout=60)
            tiempos.append(time.monotonic() - t)
            fin.wait(0.2)

    local = threading.local()

    def uno(i):
        if not hasattr(local, "c"):
            local.c = httpx.Client(timeout=120)  # una conexión por hilo: el cliente no es el cuello de botella
        cuerpo = {"data": [], "fn_index": 100_000 + i, "session_hash": uuid.uuid4().hex, "trigger_id": None}
        estados[local.c.post(f"{s.url}gradio_api/queue/join", json=cuerpo).status_code] += 1

    hilo = threading.Thread(target=honesto, daemon=True)
    hilo.start()
    inicio = time.monotonic()
    with ThreadPoolExecutor(conexiones) as ex:
        list(ex.map(uno, range(n)))
    duracion = time.monotonic() - inicio
    fin.set()
    hilo.join()
    mediana = statistics.median(tiempos) if tiempos else float("nan")
    return [
        f"| {n} sesiones inventadas ({conexiones} conexiones, {duracion:.0f} s) | {dict(estados)} | {antes:.0f} "
        f"| {s.rss:.0f} | {s.rss - antes:+.0f} | /config honesto: mediana {mediana:.2f} s, peor {max(tiempos):.2f} s |"
    ]


def ataque_subidas(s: Servidor, n: int = 60, tamano: int = int(9.9 * MB)) -> list[str]:
    """`n` subidas de 9.9 MB a la vez que ningún evento usa: cuántas entran y cuánto queda en disco.

    Primero con `Content-Length` (lo que manda un navegador); después, en un servidor nuevo, las
    mismas a trozos (sin `Content-Length`: el servidor no sabe cuánto pesan hasta recibirlas).
    """
    lineas = [_rafaga(s, n, tamano, a_trozos=False)]
    with Servidor(s.arbol) as otro:
        lineas.append(_rafaga(otro, n, tamano, a_trozos=True))
    return lineas


def _rafaga(s: Servidor, n: int, tamano: int, a_trozos: bool) -> str:
    """`n` subidas distintas de `tamano` bytes, todas a la vez; lo que contestó el servidor y su disco."""
    frontera = uuid.uuid4().hex
    cabeza = f'--{frontera}\r\nContent-Disposition: form-data; name="files"; filename="x.png"\r\n\r\n'.encode()
    cola = f"\r\n--{frontera}--\r\n".encode()
    listas = threading.Barrier(n)

    def subir(i: int) -> str:
        datos = os.urandom(64) + bytes([i % 256]) * (tamano - 64)  # distintas: Gradio guarda una vez cada contenido
        cuerpo = cabeza + datos + cola
        contenido = (cuerpo[j : j + MB] for j in range(0, len(cuerpo), MB)) if a_trozos else cuerpo
        listas.wait()
        try:
            r = httpx.post(
                f"{s.url}gradio_api/upload",
                content=contenido,
                headers={"content-type": f"multipart/form-data; boundary={frontera}"},
                timeout=300,
            )
            return str(r.status_code)
        except httpx.HTTPError as e:  # el servidor cortó la subida a mitad
            return type(e).__name__

    with ThreadPoolExecutor(n) as hilos:
        estados = Counter(hilos.map(subir, range(n)))
    time.sleep(1)
    archivos = [f for f in Path(s.carpeta).rglob("*") if f.is_file()]
    subidas = sum(f.stat().st_size for f in archivos if "gradio" in f.parts) / MB
    a_medias = sum(1 for f in archivos if f.parent.name == "gradio")  # los temporales de Gradio, fuera de su carpeta
    modo = "a trozos, sin Content-Length" if a_trozos else "con Content-Length"
    return (
        f"| {n} subidas de {tamano / MB:.1f} MB a la vez, {modo} | {dict(sorted(estados.items()))} "
        f"| carpeta de subidas: {subidas:.0f} MB | archivos a medias: {a_medias} |"
    )


def _fn_index(config: dict, nombre: str) -> int:
    return next(d["id"] for d in config["dependencies"] if d.get("api_name") == nombre)


def _llamar(url: str, fn_index: int, datos: list, timeout: float = 120) -> tuple[float, str]:
    """(segundos, error o '') de una llamada completa por la cola."""
    sys.path.insert(0, str(RAIZ))
    from tests.ataque import error_de, llamar

    inicio = time.monotonic()
    try:
        respuesta = llamar(url, fn_index, datos, timeout=timeout)
    except TimeoutError as e:
        return time.monotonic() - inicio, str(e)
    return time.monotonic() - inicio, error_de(respuesta)


def ataque_inundacion(s: Servidor, sesiones: int = 32, por_sesion: int = 8) -> list[str]:
    """`sesiones` inventadas × `por_sesion` Posición en su máximo (512 × 512) a la vez; temperatura honesta."""
    config = s.config()
    posicion, temperatura = _fn_index(config, "posicion"), _fn_index(config, "temperatura")
    honesta = ["plata, sacó, Ana, del", "2, 1, 0.5, -1", 1.0, 1000, 0]
    sin_ataque = statistics.median(_llamar(s.url, temperatura, honesta)[0] for _ in range(3))
    sys.path.insert(0, str(RAIZ))
    from tests.test_seguridad_reparto import INUNDAR  # el atacante, en otro proceso

    orden = [sys.executable, "-c", INUNDAR, s.url, str(posicion), str(sesiones), str(por_sesion)]
    atacante = subprocess.Popen(orden, stdout=subprocess.PIPE, text=True)
    time.sleep(1.0)
    honestas = [_llamar(s.url, temperatura, honesta) for _ in range(5)]
    estados = Counter(json.loads(atacante.communicate(timeout=300)[0]))
    tiempos = [t for t, _ in honestas]
    rechazos = [e for _, e in honestas if e]
    return [
        f"| {sesiones} sesiones × {por_sesion} Posición 512 × 512 | {dict(estados)} | temperatura sin ataque "
        f"{sin_ataque:.2f} s | con ataque: mediana {statistics.median(tiempos):.2f} s, peor {max(tiempos):.2f} s "
        f"| rechazos al honesto: {len(rechazos)} {rechazos[:1]} |"
    ]


ATAQUES = {
    "capa": ataque_capa,
    "sesiones": ataque_sesiones,
    "subidas": ataque_subidas,
    "inundacion": ataque_inundacion,
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arbol", type=Path, default=RAIZ)
    p.add_argument("--solo", default=",".join(ATAQUES))
    p.add_argument("--sesiones", type=int, default=2000)
    p.add_argument("--inundadores", type=int, default=32, help="sesiones inventadas de la inundación")
    args = p.parse_args()
    print(f"Árbol: {args.arbol}")
    for nombre in args.solo.split(","):
        with Servidor(args.arbol) as s:  # un servidor nuevo por ataque: uno no ensucia la medida del otro
            print(f"\n### {nombre}\n\n| ataque | respuestas | RSS antes (MB) | RSS después | Δ | … |")
            print("|---|---|---|---|---|---|")
            ataque = ATAQUES[nombre]
            if nombre == "sesiones":
                lineas = ataque(s, n=args.sesiones)
            elif nombre == "inundacion":
                lineas = ataque(s, sesiones=args.inundadores)
            else:
                lineas = ataque(s)
            for linea in lineas:
                print(linea, flush=True)
            trazas = sum("Traceback" in linea for linea in s.lineas_de_log())
            print(f"\nTrazas en el log del servidor: {trazas}")


if __name__ == "__main__":
    main()
