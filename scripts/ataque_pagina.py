"""La página como ataque (issue 56, punto 2): lo que cuesta servirla y lo que le hace a la clase una inundación.

    python scripts/ataque_pagina.py                      # este árbol
    python scripts/ataque_pagina.py --antes /tmp/antes   # y otro (p. ej. `git archive 9d5834c`), en la misma corrida

Por árbol arranca `python app.py` (scripts/ataques.py, `Servidor`) en un puerto libre y mide:
- bytes de `GET /` y `/config` (la suite) y de `/demo/temperatura/` y su `/config` (una pestaña), sin comprimir y
  con `Accept-Encoding: gzip` (lo que viaja), y la CPU del servidor por petición (utime + stime de /proc, 16 seguidas);
- la mediana de un movimiento honesto (temperatura por la cola, desde la página), sin ataque y mientras otro
  proceso manda 10 `GET /` por segundo desde la misma dirección: leyendo la respuesta, y cerrando el socket a
  los 50 ms sin leer (60 bytes cada una, sin sesión ni token). Con lo que contestó el servidor a la inundación.
Cada árbol tarda ≈ 1 minuto (el arranque incluido; `--segundos` acorta las fases). En 2 núcleos compartidos las
cifras absolutas varían con la carga: valen las proporciones de la misma corrida.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ))
sys.path.insert(0, str(RAIZ / "scripts"))

from ataques import Servidor  # noqa: E402

from tests.ataque import _TOKEN, error_de, llamar  # noqa: E402

HONESTA = ["plata, sacó, Ana, del", "2, 1, 0.5, -1", 1.0, 1000, 0]

# El atacante, en otro proceso: 10 pedidos por segundo a `url` durante `segundos`; «leer» lee la respuesta entera,
# «cerrar» manda el pedido y cierra el socket a los 50 ms. Imprime {estado: cuántas}.
INUNDAR = r"""
import collections, json, socket, sys, threading, time
url, modo, segundos = sys.argv[1], sys.argv[2], float(sys.argv[3])
host, puerto = url.split("//")[1].rstrip("/").split(":")
estados = collections.Counter()
pedido = f"GET / HTTP/1.1\r\nHost: {host}:{puerto}\r\nAccept-Encoding: gzip\r\n\r\n".encode()

def uno():
    try:
        s = socket.create_connection((host, int(puerto)), timeout=30)
        s.sendall(pedido)
        if modo == "cerrar":
            time.sleep(0.05)
            s.close()
            estados["cerrado"] += 1
            return
        datos = b""
        while b"\r\n\r\n" not in datos:
            datos += s.recv(65536)
        cabeza, _, cuerpo = datos.partition(b"\r\n\r\n")
        estado = cabeza.split()[1].decode()
        largos = [int(l.split(b":")[1]) for l in cabeza.split(b"\r\n") if l.lower().startswith(b"content-length")]
        largo = largos[0] if largos else None
        while largo is not None and len(cuerpo) < largo:
            parte = s.recv(1 << 20)
            if not parte:
                break
            cuerpo += parte
        if largo is None:  # a trozos: hasta que el servidor cierre o llegue el último trozo
            while not cuerpo.endswith(b"0\r\n\r\n"):
                parte = s.recv(1 << 20)
                if not parte:
                    break
                cuerpo += parte
        s.close()
        estados[estado] += 1
    except OSError as e:
        estados[type(e).__name__] += 1

hilos, fin = [], time.monotonic() + segundos
siguiente = time.monotonic()
while siguiente < fin:
    h = threading.Thread(target=uno, daemon=True)
    h.start()
    hilos.append(h)
    siguiente += 0.1
    time.sleep(max(0.0, siguiente - time.monotonic()))
for h in hilos:
    h.join(30)
print(json.dumps(dict(estados)))
"""


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        campos = f.read().rsplit(")", 1)[1].split()
    return (int(campos[11]) + int(campos[12])) / 100  # utime + stime, en ticks de 100 Hz


# Las medidas de costo y el token, desde otra dirección de loopback: no gastan el tope por dirección de la inundación.
OTRA = "127.0.0.2"


def cliente() -> httpx.Client:
    return httpx.Client(timeout=60, transport=httpx.HTTPTransport(local_address=OTRA))


def pedir(url: str, gzip: bool) -> tuple[int, int, str]:
    """(bytes sin comprimir, bytes que viajan, Content-Encoding) de un GET."""
    cabeceras = {"accept-encoding": "gzip" if gzip else "identity"}
    with cliente() as c:
        with c.stream("GET", url, headers=cabeceras) as r:
            viajan = sum(len(p) for p in r.iter_raw())
            codificacion = r.headers.get("content-encoding", "")
        cuerpo = c.get(url, headers=cabeceras).content  # httpx descomprime
    return len(cuerpo), viajan, codificacion


def costo(s: Servidor, url: str, n: int = 16) -> tuple[int, int, str, float]:
    """(bytes, bytes con gzip, codificación, ms de CPU del servidor por petición)."""
    crudo, _, _ = pedir(url, gzip=False)
    _, viajan, codificacion = pedir(url, gzip=True)
    with cliente() as c:
        antes = cpu_s(s.proc.pid)
        for _ in range(n):
            c.get(url, headers={"accept-encoding": "gzip"}).read()
        despues = cpu_s(s.proc.pid)
    return crudo, viajan, codificacion, (despues - antes) / n * 1000


def honestas(s: Servidor, fn_index: int, segundos: float) -> tuple[list[float], int]:
    """Movimientos honestos seguidos durante `segundos`: (tiempos, rechazos). El token, de antes del ataque."""
    tiempos, rechazos, fin = [], 0, time.monotonic() + segundos
    while time.monotonic() < fin:
        inicio = time.monotonic()
        try:
            r = llamar(s.url, fn_index, HONESTA, timeout=60, token=s.token)
            rechazos += bool(error_de(r))
        except TimeoutError:
            rechazos += 1
        tiempos.append(time.monotonic() - inicio)
    return tiempos, rechazos


def paso(texto: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {texto}", file=sys.stderr, flush=True)


def medir(arbol: Path, nombre: str, segundos: float) -> dict:
    paso(f"arranca {arbol}")
    with Servidor(arbol) as s:
        paso("listo")
        config = s.config()
        temperatura = next(d["id"] for d in config["dependencies"] if d.get("api_name") == "temperatura")
        filas = {}
        for etiqueta, url in [
            ("suite `GET /`", s.url),
            ("suite `/config`", f"{s.url}config"),
            ("pestaña `GET /demo/temperatura/`", f"{s.url}demo/temperatura/"),
            ("pestaña `/demo/temperatura/config`", f"{s.url}demo/temperatura/config"),
        ]:
            filas[etiqueta] = costo(s, url)
            paso(f"{etiqueta}: {filas[etiqueta]}")
        with cliente() as c:
            s.token = _TOKEN.search(c.get(f"{s.url}config").text).group(1)
        for _ in range(2):  # en caliente
            llamar(s.url, temperatura, HONESTA, timeout=60, token=s.token)
        quieto, _ = honestas(s, temperatura, segundos)
        paso(f"sin ataque: {len(quieto)} movimientos, mediana {statistics.median(quieto):.3f} s")
        inundaciones = {}
        for modo in ("leer", "cerrar"):
            orden = [sys.executable, "-c", INUNDAR, s.url, modo, str(segundos + 1)]
            atacante = subprocess.Popen(orden, stdout=subprocess.PIPE, text=True)
            time.sleep(0.5)
            tiempos, rechazos = honestas(s, temperatura, segundos)
            estados = json.loads(atacante.communicate(timeout=120)[0])
            inundaciones[modo] = (tiempos, rechazos, estados)
            paso(f"{modo}: {len(tiempos)} movimientos, mediana {statistics.median(tiempos):.3f} s; {estados}")
        trazas = sum("Traceback" in linea for linea in s.lineas_de_log())
    return {"nombre": nombre, "filas": filas, "quieto": quieto, "inundaciones": inundaciones, "trazas": trazas}


def tabla(medidas: list[dict]) -> str:
    lineas = ["| qué | " + " | ".join(m["nombre"] for m in medidas) + " |", "|---" * (len(medidas) + 1) + "|"]
    for etiqueta in medidas[0]["filas"]:
        celdas = []
        for m in medidas:
            crudo, viajan, codificacion, ms = m["filas"][etiqueta]
            gz = f"con gzip {viajan / 1e3:.0f} kB ({codificacion or 'sin comprimir'})"
            celdas.append(f"{crudo / 1e6:.2f} MB; {gz}; {ms:.1f} ms de CPU")
        lineas.append(f"| {etiqueta} | " + " | ".join(celdas) + " |")

    def resumen(tiempos: list[float], base: float) -> str:
        mediana = statistics.median(tiempos)
        peor = max(tiempos) * 1000
        return f"mediana {mediana * 1000:.0f} ms ({mediana / base:.1f}×), peor {peor:.0f} ms, n = {len(tiempos)}"

    fila = [f"mediana {statistics.median(m['quieto']) * 1000:.0f} ms, n = {len(m['quieto'])}" for m in medidas]
    lineas.append("| movimiento honesto, sin ataque | " + " | ".join(fila) + " |")
    for modo, texto in [("leer", "10 `GET /`/s que leen"), ("cerrar", "10 `GET /`/s que cierran a los 50 ms")]:
        celdas = []
        for m in medidas:
            tiempos, rechazos, estados = m["inundaciones"][modo]
            quieto = statistics.median(m["quieto"])
            celdas.append(f"{resumen(tiempos, quieto)}; rechazos {rechazos}; al atacante: {estados}")
        lineas.append(f"| movimiento honesto, {texto} | " + " | ".join(celdas) + " |")
    lineas.append("| trazas en el log | " + " | ".join(str(m["trazas"]) for m in medidas) + " |")
    return "\n".join(lineas)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--antes", type=Path, help="otro árbol, medido en la misma corrida (primero)")
    p.add_argument("--segundos", type=float, default=10.0, help="lo que dura cada fase de movimientos honestos")
    args = p.parse_args()
    medidas = []
    if args.antes:
        medidas.append(medir(args.antes, f"antes ({args.antes})", args.segundos))
    medidas.append(medir(RAIZ, "después (este árbol)", args.segundos))
    print(tabla(medidas))


if __name__ == "__main__":
    main()
