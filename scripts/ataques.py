"""Los ataques de los issues «Security, second round» y del 56 (tercera ronda), a escala real, contra un servidor en
otro proceso.

    python scripts/ataques.py                 # contra este árbol
    python scripts/ataques.py --arbol /otro   # contra otro checkout (p. ej. el de antes del arreglo)
    python scripts/ataques.py --solo sesiones,capa
    python scripts/ataques.py --solo sin_leer,taller,entrenar   # la tercera ronda

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
    def __init__(self, arbol: Path, **entorno: str):
        self.arbol, self.puerto, self.entorno = arbol, puerto_libre(), entorno
        self.url = f"http://127.0.0.1:{self.puerto}/"
        self.carpeta = tempfile.mkdtemp(prefix="ataques-")

    def __enter__(self):
        entorno = {**os.environ, "ATENCION_CARPETA": self.carpeta, "HF_HUB_OFFLINE": "1", "ATENCION_DISPOSITIVO": "cpu"}
        entorno["GRADIO_ANALYTICS_ENABLED"] = "False"
        entorno.update(self.entorno)
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


# --- tercera ronda (issue 56): resultados sin leer, el taller de paradas, la fila de los entrenamientos ------

MEMORIA = "demo/memoria/"  # la pestaña del informe: sus paradas (128 cabezas × 3 tipos) son las más caras


def _pagina(url: str) -> tuple[dict, str]:
    """(configuración, token) de una carga de la página, como la haría el navegador."""
    sys.path.insert(0, str(RAIZ))
    from tests.ataque import _TOKEN

    texto = httpx.get(f"{url}config", timeout=60).text
    return json.loads(texto), _TOKEN.search(texto).group(1)


def _recalcular(config: dict, etiqueta: str = "Lote (frases") -> tuple[int, list]:
    """(fn_index, valores de la página) del evento privado que recalcula la vista y las paradas de memoria (el que
    tiene una entrada cuya etiqueta empieza con `etiqueta`: en la suite hay uno por pestaña con barridos)."""
    por_id = {c["id"]: c.get("props", {}) for c in config["components"]}
    dep = next(
        d
        for d in config["dependencies"]
        if str(d.get("api_name", "")).startswith("recalcular")
        and any(str(por_id[i].get("label", "")).startswith(etiqueta) for i in d["inputs"])
    )
    return dep["id"], [por_id[i].get("value") for i in dep["inputs"]]


def _unir(c: httpx.Client, url: str, fn_index: int, datos: list, sesion: str, token: str) -> httpx.Response:
    cuerpo = {"data": datos, "fn_index": fn_index, "session_hash": sesion, "trigger_id": None}
    return c.post(f"{url}gradio_api/queue/join", json=cuerpo, headers={"x-atencion-pagina": token}, timeout=60)


def ataque_sin_leer(s: Servidor, hilos: int = 4, segundos: float = 30) -> list[str]:
    """Una sesión con un token de página: `hilos` hilos unen el recálculo de memoria sin abrir nunca /queue/data."""
    url = s.url + MEMORIA
    config, token = _pagina(url)
    fn_index, valores = _recalcular(config)
    sesion, estados, fin = uuid.uuid4().hex, Counter(), time.monotonic() + segundos
    time.sleep(2)
    antes, pico = s.rss, [s.rss]

    def bucle(_):
        with httpx.Client() as c:
            while time.monotonic() < fin:
                estados[_unir(c, url, fn_index, valores, sesion, token).status_code] += 1
                pico[0] = max(pico[0], s.rss)

    with ThreadPoolExecutor(hilos) as ex:
        list(ex.map(bucle, range(hilos)))
    time.sleep(2)
    lleno = s.rss
    time.sleep(35)  # lo que tarda el servidor en soltar lo que nadie leyó (admision.VIDA_SIN_LEER_S)
    return [
        f"| sin leer: {hilos} hilos, 1 sesión, {segundos:.0f} s | {dict(estados)} | {antes:.0f} | pico {pico[0]:.0f}, "
        f"al final {lleno:.0f} | {pico[0] - antes:+.0f} | 35 s después: {s.rss:.0f} MB ({s.rss - antes:+.0f}) |"
    ]


def _paradas(c: httpx.Client, url: str, fn_index: int, datos: list, sesion: str, token: str) -> str:
    """«paradas» si el paquete del primer barrido trae sus paradas; si no, el comienzo del aviso («el servidor está
    ocupado…», «pediste muchas paradas…») o el estado de la negativa (429)."""
    r = _unir(c, url, fn_index, datos, sesion, token)
    if r.status_code != 200:
        return str(r.status_code)
    with c.stream("GET", f"{url}gradio_api/queue/data", params={"session_hash": sesion}, timeout=120) as flujo:
        for linea in flujo.iter_lines():
            if not (linea.startswith("data:") and '"process_completed"' in linea):
                continue
            salida = (json.loads(linea[5:]).get("output") or {}).get("data") or []
            paquetes = [v for v in salida if isinstance(v, dict) and "paradas" in v]
            if not paquetes:
                return "sin paquetes"
            return str(paquetes[0]["servidor"])[:24] if "servidor" in paquetes[0] else "paradas"
    return "sin final"


def ataque_taller(s: Servidor, conexiones: int = 12, honestas: int = 10) -> list[str]:
    """`conexiones` sesiones de un visitante (cada una con su token) recalculan en bucle con valores nuevos;
    mientras, `honestas` ediciones de un estudiante: ¿cuántas reciben sus paradas?"""
    import random

    url = s.url + MEMORIA
    config, _ = _pagina(url)
    fn_index, valores = _recalcular(config)
    i_capas, i_lote = 2, 3  # memoria: tipo, cabezas, capas, lote, ventana
    fin, estados = threading.Event(), Counter()

    def nuevos(r: random.Random, capas: tuple[int, int], lotes: tuple[int, int]) -> list:
        """Valores chicos (ligeros para `admision.costo`, y el paquete del primer barrido cabe en 200 kB), distintos
        para el atacante y el estudiante: ninguno recibe paradas ya guardadas por el otro."""
        otros = list(valores)
        otros[i_capas], otros[i_lote] = r.randint(*capas), r.randint(*lotes)
        return otros

    def honesto(semilla: int) -> tuple[Counter, list[float]]:
        r, cuenta, tiempos = random.Random(semilla), Counter(), []
        sesion, token = uuid.uuid4().hex, _pagina(url)[1]
        with httpx.Client() as c:
            for _ in range(honestas):
                inicio = time.monotonic()
                cuenta[_paradas(c, url, fn_index, nuevos(r, (13, 20), (1, 10)), sesion, token)] += 1
                tiempos.append(time.monotonic() - inicio)
                time.sleep(1.0)
        return cuenta, tiempos

    # La mitad del atacante en la suite y la otra en /demo/memoria/: cada montaje corre 4 eventos ligeros a la vez,
    # así llegan al taller más pedidos que su fila (6), como en el informe.
    montajes = [(url, fn_index), (s.url, _recalcular(_pagina(s.url)[0])[0])]

    def atacante(k: int):
        base, indice = montajes[k % 2]
        r, sesion, token = random.Random(100 + k), uuid.uuid4().hex, _pagina(base)[1]
        with httpx.Client() as c:
            while not fin.is_set():
                estados[_paradas(c, base, indice, nuevos(r, (1, 12), (1, 40)), sesion, token)] += 1

    quieto, t_quieto = honesto(7)
    hilos = [threading.Thread(target=atacante, args=(k,), daemon=True) for k in range(conexiones)]
    for h in hilos:
        h.start()
    time.sleep(3)
    bajo_ataque, t_ataque = honesto(8)
    fin.set()
    for h in hilos:
        h.join(timeout=120)
    return [
        f"| taller: {conexiones} sesiones en bucle, {honestas} ediciones honestas | atacante: {dict(estados)} "
        f"| honestas sin ataque: {dict(quieto)}, mediana {statistics.median(t_quieto):.2f} s "
        f"| con ataque: {dict(bajo_ataque)}, mediana {statistics.median(t_ataque):.2f} s, "
        f"peor {max(t_ataque):.2f} s | |"
    ]


MAXIMO = [5, True, 4, 3]  # el entrenamiento más largo de inversion_digitos_entrenar (tests/test_seguridad_cola.py)


def ataque_entrenar(s: Servidor, segundos: float = 45) -> list[str]:
    """Una red (10.9.9.9) pide el entrenamiento más largo con una sesión inventada nueva cada 2 s; un estudiante de
    otra red (10.1.1.1) lo intenta cada 5 s hasta entrar: cuántas veces le dijeron que no y cuánto esperó su turno
    (hasta `process_starts`). El servidor corre con `ATENCION_PROXIES=1` (como en un Space)."""
    config = s.config()
    entrenar = _fn_index(config, "inversion_digitos_entrenar")
    fin, estados, aceptadas = threading.Event(), Counter(), []

    def unir(sesion: str, red: str) -> httpx.Response:
        cuerpo = {"data": MAXIMO, "fn_index": entrenar, "session_hash": sesion, "trigger_id": None}
        return httpx.post(f"{s.url}gradio_api/queue/join", json=cuerpo, headers={"x-forwarded-for": red}, timeout=60)

    def atacante():
        while not fin.is_set():
            sesion = uuid.uuid4().hex
            r = unir(sesion, "10.9.9.9")
            estados[r.status_code] += 1
            if r.status_code == 200:
                aceptadas.append((sesion, r.json()["event_id"]))
            fin.wait(2)

    hilo = threading.Thread(target=atacante, daemon=True)
    hilo.start()
    time.sleep(8)  # la fila, llena
    sesion, intentos, inicio, espera = uuid.uuid4().hex, Counter(), time.monotonic(), None
    while time.monotonic() - inicio < segundos:
        r = unir(sesion, "10.1.1.1")
        intentos[r.status_code] += 1
        if r.status_code == 200:
            entro = time.monotonic()
            with httpx.stream(
                "GET", f"{s.url}gradio_api/queue/data", params={"session_hash": sesion}, timeout=180
            ) as flujo:
                for linea in flujo.iter_lines():
                    if '"process_starts"' in linea:
                        espera = (entro - inicio, time.monotonic() - entro)
                        break
            break
        time.sleep(5)
    fin.set()
    hilo.join(timeout=30)
    cuando = f"entró a los {espera[0]:.0f} s y empezó {espera[1]:.0f} s después" if espera else "no entró"
    return [
        f"| entrenamientos: una red, una sesión nueva cada 2 s | atacante: {dict(estados)} | estudiante de otra red: "
        f"{dict(intentos)} | {cuando} | | |"
    ]


ATAQUES = {
    "capa": ataque_capa,
    "sesiones": ataque_sesiones,
    "subidas": ataque_subidas,
    "inundacion": ataque_inundacion,
    "sin_leer": ataque_sin_leer,
    "taller": ataque_taller,
    "entrenar": ataque_entrenar,
}
ENTORNO = {"entrenar": {"ATENCION_PROXIES": "1"}}  # cada visitante con su dirección, como detrás del proxy de un Space


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arbol", type=Path, default=RAIZ)
    p.add_argument("--solo", default=",".join(ATAQUES))
    p.add_argument("--sesiones", type=int, default=2000)
    p.add_argument("--inundadores", type=int, default=32, help="sesiones inventadas de la inundación")
    args = p.parse_args()
    print(f"Árbol: {args.arbol}")
    for nombre in args.solo.split(","):
        with Servidor(args.arbol, **ENTORNO.get(nombre, {})) as s:  # uno nuevo por ataque: no ensucia la medida
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
