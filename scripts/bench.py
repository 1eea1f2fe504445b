"""Rendimiento medido de la suite: arranque en frío, clase, navegador, barrido, apertura, carga y entrenamiento.

    python scripts/bench.py                      todo (≈ 12 min en 2 núcleos)
    python scripts/bench.py --solo clase         una sección: arranque, clase, mezcla, cpu, navegador, barrido…
    python scripts/bench.py --markdown BENCHMARKS.md   además escribe las tablas en ese archivo

Cada cifra va junto a su referencia medida en la misma corrida: el arranque junto a
`import gradio, torch`; la clase y la mezcla de clase (scripts/bench_clase.py) junto a un endpoint vacío servido
por Gradio con la misma cola, la CPU por evento (scripts/bench_cpu.py) junto a ese mismo endpoint,
el navegador y el barrido (scripts/bench_navegador.py) junto a una página que solo devuelve el número, y la
apertura (scripts/bench_apertura.py) junto a una página de Gradio con una sola figura. Se dan
medianas y percentiles, no tiempos sueltos. Todo en loopback; el servidor corre en otro proceso,
para que el cliente no le quite el GIL.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `python scripts/bench.py`, desde la raíz

from scripts.medir import ENTORNO, Servidor, ms, percentil, puerto_libre, tabla

LECTURA = "### Lectura"  # desde aquí, BENCHMARKS.md es prosa y `--markdown` la conserva


def arranque(repeticiones: int) -> str:
    """De `python app.py` a la primera respuesta del API, junto a `import gradio, torch`."""
    from gradio_client import Client

    importar, primera = [], []
    for _ in range(repeticiones):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import gradio, torch"], env=ENTORNO, check=True)
        importar.append(time.perf_counter() - t)
        puerto = puerto_libre()
        t = time.perf_counter()
        s = Servidor(["app.py", "--port", str(puerto)], puerto)
        try:
            s.esperar()
            Client(s.url, verbose=False).predict(api_name="/escalado")
            primera.append(time.perf_counter() - t)
        finally:
            s.cerrar()
    base, app = statistics.median(importar), statistics.median(primera)
    return tabla(
        f"Arranque en frío (mediana de {repeticiones})",
        ["medida", "mediana", "razón"],
        [
            ["`import gradio, torch`", f"{base:.2f} s", "1.00×"],
            ["`python app.py` → 1.ª respuesta", f"{app:.2f} s", f"{app / base:.2f}×"],
        ],
    )


def argumentos_al_azar(vista, azar) -> dict:
    """Un valor al azar (en su rejilla) del control numérico de la URL de la vista, como argumento del API."""
    import inspect

    control = vista.control_numerico()
    if control is None:
        return {}
    _, c = control
    paso = getattr(c, "step", None) or 1
    pasos = round((c.maximum - c.minimum) / paso)
    valor = c.minimum + azar.randint(0, pasos) * paso
    i = next(k for k, e in enumerate(vista.entradas) if e is c)
    return {list(inspect.signature(vista.fn).parameters)[i]: valor}


def carga(clientes: int, segundos: float) -> str:
    """`clientes` hilos mezclando todas las pestañas durante `segundos`, con un entrenamiento en medio."""
    import random

    from gradio_client import Client

    import app as suite
    from demos import PESTANAS

    puerto = puerto_libre()
    app = Servidor(["app.py", "--port", str(puerto)], puerto)
    tiempos: dict[str, list[float]] = defaultdict(list)
    errores: dict[str, Counter] = defaultdict(Counter)  # por pestaña: cuántas veces cada motivo
    cerrojo = threading.Lock()
    try:
        app.esperar()
        fin = time.perf_counter() + segundos

        def visitante(k: int):
            cliente = Client(app.url, verbose=False)
            azar = random.Random(k)
            i = k
            while time.perf_counter() < fin:
                p = PESTANAS[i % len(PESTANAS)]
                i += 1
                # La mitad de las veces, la vista inicial (la que toda la sala abre); la otra mitad,
                # un valor al azar del control numérico: casi siempre uno que nadie pidió antes.
                kwargs = argumentos_al_azar(suite.vistas(suite.demo)[p.id], azar) if azar.random() < 0.5 else {}
                t = time.perf_counter()
                try:
                    cliente.predict(**kwargs, api_name=f"/{p.api}")
                    with cerrojo:
                        tiempos[p.id].append(time.perf_counter() - t)
                except Exception as e:
                    with cerrojo:
                        errores[p.id][motivo_del_error(e, kwargs)] += 1

        def entrenamiento():
            time.sleep(segundos / 3)
            cliente = Client(app.url, verbose=False)
            t = time.perf_counter()
            try:
                cliente.predict(epocas=2, api_name="/inversion_digitos_entrenar")
                with cerrojo:
                    tiempos["(entrenar 2 épocas)"].append(time.perf_counter() - t)
            except Exception as e:
                with cerrojo:
                    errores["(entrenar 2 épocas)"][motivo_del_error(e, {"epocas": 2})] += 1

        with ThreadPoolExecutor(clientes + 1) as pool:
            futuros = [pool.submit(visitante, k) for k in range(clientes)]
            if any(p.id == "inversion-digitos" for p in PESTANAS):
                futuros.append(pool.submit(entrenamiento))
            for f in futuros:
                f.result()
        rss = app.rss_pico_mb()
        disco = disco_del_servidor(app)
    finally:
        app.cerrar()
    filas = [
        [k, len(v), _con_motivos(errores.get(k, Counter())), ms(statistics.median(v)), ms(percentil(v, 95))]
        for k, v in sorted(tiempos.items())
    ]
    filas += [[k, 0, _con_motivos(n), "—", "—"] for k, n in errores.items() if k not in tiempos]
    total = sum(len(v) for v in tiempos.values())
    filas.append(["**total**", total, sum(sum(c.values()) for c in errores.values()), "", ""])
    return tabla(
        f"Carga: {clientes} clientes durante {segundos:.0f} s, mitad vista inicial y mitad un valor al azar "
        f"(RSS pico del servidor: {rss:,.0f} MB; su carpeta al terminar: {disco})",
        ["pestaña", "servidas", "errores", "p50", "p95"],
        filas,
    )


def motivo_del_error(e: Exception, kwargs: dict) -> str:
    """Lo que la tabla de carga dice de un error: el código HTTP y el motivo que dio el servidor (o el tipo y el
    comienzo del mensaje), y si fue con un valor al azar o la vista inicial."""
    respuesta = getattr(e, "response", None)
    if respuesta is not None:
        try:
            detalle = respuesta.json().get("detail", "")
        except Exception:  # sin cuerpo JSON (o ya leído): basta el código
            detalle = ""
        mensaje = f"HTTP {respuesta.status_code}" + (f": {detalle}" if detalle else "")
    else:
        mensaje = f"{type(e).__name__}: {e!s}"
    return f"{' '.join(mensaje.split())[:90]} ({'valor al azar' if kwargs else 'vista inicial'})"


def _con_motivos(motivos: Counter) -> str:
    n = sum(motivos.values())
    if not n:
        return "0"
    lista = "; ".join(f"{m} × {k}" for m, k in motivos.most_common(2))
    return f"{n} ({lista}{'; …' if len(motivos) > 2 else ''})"


def disco_del_servidor(servidor: Servidor) -> str:
    """Lo que ocupa la carpeta del proceso servidor (servidor/disco.py): subidas, caché de Gradio, descargas."""
    from servidor import disco

    carpeta = disco.raiz() / f"{disco.PREFIJO}{servidor.proceso.pid}"
    archivos = sum(1 for p in carpeta.rglob("*") if p.is_file())
    return f"{disco.tamano(carpeta) / 2**20:,.1f} MB en {archivos} archivos"


def entrenamiento() -> str:
    """Hasta el 100 % de secuencias: el entrenamiento del proyecto frente al bucle de la lección."""
    import torch

    from scripts.bench_entrenamiento import comparar

    torch.set_num_threads(1)  # como la app y `python -m modelos.entrenamiento`
    return tabla("Entrenamiento de la inversión de dígitos, hasta el 100 % de secuencias", *comparar())


SECCIONES = ("arranque", "clase", "mezcla", "cpu", "navegador", "barrido", "apertura", "carga", "entrenamiento")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--solo", choices=[*SECCIONES], action="append")
    parser.add_argument("--estudiantes", type=int, default=30)
    parser.add_argument("--repeticiones", type=int, default=5)
    parser.add_argument("--clientes", type=int, default=16)
    parser.add_argument("--segundos", type=float, default=60)
    parser.add_argument("--markdown", type=Path, help="escribe las tablas en este archivo")
    args = parser.parse_args()
    secciones = args.solo or list(SECCIONES)
    cabecera = (
        f"Medido el {datetime.date.today().isoformat()} en {platform.node() or 'esta máquina'}: "
        f"{os.cpu_count()} núcleos, {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        + ("con CUDA" if _hay_cuda() else "sin GPU")
    )
    print(cabecera)
    partes = []
    for s in secciones:
        inicio = time.perf_counter()
        if s == "arranque":
            partes.append(arranque(args.repeticiones))
        elif s == "clase":
            from scripts.bench_clase import clase

            partes.append(clase(args.estudiantes, 40))
        elif s == "mezcla":
            from scripts.bench_clase import mezcla

            partes.append(mezcla(args.estudiantes, 40))
        elif s == "cpu":
            from scripts.bench_cpu import cpu

            partes.append(cpu())
        elif s == "navegador":
            from scripts.bench_navegador import navegador

            partes.append(navegador())
        elif s == "barrido":
            from scripts.bench_navegador import barrido

            partes.append(barrido())
        elif s == "apertura":
            from scripts.bench_apertura import apertura

            partes.append(apertura())
        elif s == "carga":
            partes.append(carga(args.clientes, args.segundos))
        elif s == "entrenamiento":
            partes.append(entrenamiento())
        print(f"\n(La sección {s} tardó {time.perf_counter() - inicio:.0f} s.)", file=sys.stderr, flush=True)
    if args.markdown:
        escribir(args.markdown, cabecera, partes, args.solo)


def escribir(ruta: Path, cabecera: str, partes: list[str], solo: list[str] | None) -> None:
    """Las tablas de esta corrida en `ruta` (BENCHMARKS.md).

    La lectura (prosa escrita a mano al final del archivo) se conserva: hay que revisarla si las cifras cambian,
    pero no se pierde al volver a medir. Con `solo`, las secciones que no se midieron esta vez se conservan (con su
    fecha de antes). También sirve para pasar al archivo lo que imprimió una corrida sin `--markdown`."""
    previo = ruta.read_text(encoding="utf-8") if ruta.exists() else ""
    lectura = previo[previo.index(LECTURA) :] if LECTURA in previo else ""
    nuevas = {_clave(t): t for parte in partes for t in _secciones(parte)}
    viejas = [t for t in _secciones(previo.split(LECTURA)[0]) if _clave(t) not in nuevas]
    if viejas and solo:
        viejas = [
            f"{t.rstrip()}\n\n(De una corrida anterior; esta vez se midió solo: {', '.join(solo)}.)\n"
            if "De una corrida anterior" not in t
            else t
            for t in viejas
        ]
    cuerpo = "\n".join(partes) + ("\n" + "\n".join(viejas) if solo else "")
    texto = "# Rendimiento medido\n\n" + cabecera + "\n" + cuerpo + "\n\n" + lectura
    ruta.write_text(texto, encoding="utf-8")


def _secciones(texto: str) -> list[str]:
    """Las secciones «### …» de un texto de tablas, cada una con su título."""
    trozos = texto.split("\n### ")
    return ["\n### " + t for t in trozos[1:]]


def _clave(seccion: str) -> str:
    """La primera palabra del título: «Clase», «Navegador», «Arranque»…"""
    return seccion.strip().removeprefix("### ").split()[0].rstrip(":")


def _hay_cuda() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


if __name__ == "__main__":
    main()
