"""Comprobación en GPU: los caminos de CUDA de `modelos` (y, con gradio, de cada pestaña) frente a la CPU.

    python scripts/gpu_smoke.py                    # CUDA si hay; si no, solo la CPU
    python scripts/gpu_smoke.py --cpu              # solo la CPU, aunque haya CUDA
    python scripts/gpu_smoke.py --cpu --rapido     # lo mismo, con menos pasos y repeticiones: lo corre
                                                   # `make test` (tests/test_gpu_smoke.py), así el guion no se pudre
    python scripts/gpu_smoke.py --informe gpu.md   # además escribe el informe en Markdown (se reescribe al
                                                   # terminar cada sección: un corte deja lo ya medido)

Secciones, cada una «sí», «NO» (con el porqué) o «no corrió» (con el porqué):
 1. la máquina: Python, torch, CUDA, la GPU, qué paquetes hay;
 2. `atencion()` contra `F.scaled_dot_product_attention`, con y sin máscara causal, y cada dispositivo contra la CPU;
 3. los backends de SDPA en CUDA (flash, memory-efficient, cuDNN, math) contra la atención en float32;
 4. cada checkpoint del registro cargado con `cargar()` (en CUDA; con --cpu, en la CPU): las mismas salidas
    (logits y pesos de atención) que la copia incluida armada en la CPU;
 5. la inferencia chica de cada checkpoint (lote 1, como al mover un control) y un lote grande, en ms;
 6. unos pasos de cada receta de entrenamiento: la misma pérdida en CUDA y en CPU, y segundos por época;
 7. la pendiente log-log de la memoria pico al duplicar L: ingenua ≈ 2, flash y memory-efficient ≈ 1;
 8. la medición de la pestaña memoria (`demos.memoria.medida.medir`), si se puede importar;
 9. con gradio: la vista inicial de cada pestaña en CPU y en CUDA, en procesos separados, comparada.
Sale con 0 si todo lo que corrió dio bien y con 1 si algo falló. Torch con un hilo, como la app.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ))
TOL_F32 = 1e-4  # float32: los kernels suman en otro orden
TOL_MEDIA = 2e-2  # float16 / bfloat16 contra float32
TOL_MODELOS = 1e-4  # logits y pesos de los checkpoints, sin TF32
TOL_TF32 = 1e-2  # lo mismo con TF32 (lo que cuDNN usa por omisión en las convoluciones: 10 bits de mantisa)
TOL_PERDIDA = 5e-3  # pérdida media de los primeros pasos de entrenamiento


@dataclass
class Medida:
    """Cuánto se mide; `--rapido` lo achica (mismos caminos de código, números menos firmes)."""

    repeticiones: int = 30  # llamadas cronometradas por inferencia
    secuencias_epoca: int = 10_000  # una época de «Entrénalo tú»
    imagenes: int = 0  # dígitos por época de ViT y CBAM; 0 = los 1 437 de entrenamiento


MEDIDA = Medida()
RAPIDA = Medida(repeticiones=5, secuencias_epoca=640, imagenes=256)


class NoCorre(Exception):
    """La sección no puede correr aquí (sin CUDA, sin gradio…): se dice por qué, y no es un fallo."""


@dataclass
class Seccion:
    titulo: str
    cabecera: list[str] = field(default_factory=list)
    filas: list[list[str]] = field(default_factory=list)
    notas: list[str] = field(default_factory=list)
    estado: str = "sí"
    segundos: float = 0.0

    def fila(self, *celdas, ok: bool | None = None) -> None:
        self.filas.append([str(c) for c in celdas] + ([] if ok is None else ["sí" if ok else "NO"]))
        if ok is False:
            self.estado = "NO"

    def markdown(self) -> str:
        partes = [f"### {self.titulo}: {self.estado} ({self.segundos:.1f} s)\n"]
        if self.filas:
            partes += [f"| {' | '.join(self.cabecera)} |", f"|{'---|' * len(self.cabecera)}"]
            partes += [f"| {' | '.join(f)} |" for f in self.filas]
            partes.append("")
        partes += [f"- {n}" for n in self.notas]
        return "\n".join(partes) + "\n"


class Informe:
    def __init__(self, ruta: Path | None):
        self.ruta, self.secciones = ruta, []

    def correr(self, titulo: str, fn: Callable[[Seccion], None]) -> None:
        s, inicio = Seccion(titulo), time.perf_counter()
        print(f"… {titulo}", flush=True)
        try:
            fn(s)
        except NoCorre as e:
            s.estado = "no corrió"
            s.notas.append(str(e))
        except Exception as e:  # una sección rota no tapa las demás
            s.estado = "NO"
            ultimas = "".join(traceback.format_exception(e)[-3:]).strip().replace("\n", " ⏎ ")
            s.notas.append(f"falló: `{ultimas[-600:]}`")
        s.segundos = time.perf_counter() - inicio
        self.secciones.append(s)
        print(s.markdown(), flush=True)
        self.escribir()

    def escribir(self) -> None:
        if self.ruta is not None:
            self.ruta.write_text("\n".join(s.markdown() for s in self.secciones), encoding="utf-8")

    @property
    def fallos(self) -> list[str]:
        return [s.titulo for s in self.secciones if s.estado == "NO"]


def _dif(a, b) -> float:
    return float((a.detach().float().cpu() - b.detach().float().cpu()).abs().max())


def _sincronizar(dev) -> None:
    import torch

    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def _mediana_ms(fn: Callable, dev, repeticiones: int | None = None, calentar: int = 3) -> float:
    repeticiones = repeticiones or MEDIDA.repeticiones
    for _ in range(calentar):
        fn()
    _sincronizar(dev)
    tiempos = []
    for _ in range(repeticiones):
        t0 = time.perf_counter()
        fn()
        _sincronizar(dev)
        tiempos.append(time.perf_counter() - t0)
    return statistics.median(tiempos) * 1e3


# --- 1 y 2: la máquina, atencion() contra SDPA -------------------------------------------------------------------


def entorno(s: Seccion, disps: list) -> None:
    import importlib.util

    import torch

    s.cabecera = ["qué", "valor"]
    s.fila("Python", platform.python_version())
    s.fila("torch", torch.__version__)
    if any(d.type == "cuda" for d in disps):
        p = torch.cuda.get_device_properties(0)
        s.fila("GPU", f"{p.name}, {p.total_memory / 2**30:.0f} GiB, capacidad {p.major}.{p.minor}")
        s.fila("CUDA (runtime de torch)", torch.version.cuda)
        s.fila("cuDNN", torch.backends.cudnn.version())
    else:
        s.fila("GPU", "ninguna: solo la CPU" + (" (--cpu)" if torch.cuda.is_available() else ""))
    paquetes = ("gradio", "spaces", "matplotlib", "plotly", "sklearn", "huggingface_hub", "safetensors")
    s.fila("paquetes", ", ".join(f"{p} {'sí' if importlib.util.find_spec(p) else 'no'}" for p in paquetes))


def atencion_contra_sdpa(s: Seccion, disps: list) -> None:
    import torch
    import torch.nn.functional as F

    from modelos import atencion, mascara_causal

    s.cabecera = ["forma (B, H, L, d)", "causal", "dispositivo", "atencion − SDPA", "con la CPU", "bien"]
    g = torch.Generator().manual_seed(0)
    for forma in ((1, 1, 8, 64), (2, 4, 128, 64), (2, 4, 1000, 32)):
        Q, K, V = (torch.randn(*forma, generator=g) for _ in range(3))
        for causal in (False, True):
            referencia = atencion(Q, K, V, mascara_causal(forma[2]) if causal else None)[0]
            for dev in disps:
                q, k, v = Q.to(dev), K.to(dev), V.to(dev)
                mia = atencion(q, k, v, mascara_causal(forma[2], dev) if causal else None)[0]
                sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                d1, d2 = _dif(mia, sdpa), _dif(mia, referencia)
                s.fila(forma, causal, dev.type, f"{d1:.1e}", f"{d2:.1e}", ok=max(d1, d2) <= TOL_F32)
    s.notas.append("Diferencias: el máximo de |a − b| elemento a elemento (float32; tolerancia 1e-4).")


# --- 3: backends de SDPA ----------------------------------------------------------------------------------------

BACKENDS = {"flash": "FLASH_ATTENTION", "memory-efficient": "EFFICIENT_ATTENTION", "cuDNN": "CUDNN_ATTENTION"}
BACKENDS["math"] = "MATH"


def _operador_sdpa(fn: Callable) -> str:
    """El operador de aten en que se despachó SDPA, leído del perfilador (como la pestaña memoria)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as perfil:
        fn()
    nombres = [e.name for e in perfil.events() if e.name.startswith("aten::_scaled_dot_product")]
    return nombres[0].removeprefix("aten::_scaled_dot_product_") if nombres else "?"


def backends_sdpa(s: Seccion, disps: list) -> None:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from modelos import atencion, mascara_causal

    if not any(d.type == "cuda" for d in disps):
        raise NoCorre("sin CUDA: los backends flash, memory-efficient y cuDNN son de la GPU")
    s.cabecera = ["tipo", "backend", "con atencion en float32", "corre", "bien"]
    g = torch.Generator().manual_seed(1)
    Q, K, V = (torch.randn(2, 4, 512, 64, generator=g).cuda() for _ in range(3))
    referencia = atencion(Q, K, V, mascara_causal(512, "cuda"))[0]
    for tipo in (torch.float16, torch.bfloat16, torch.float32):
        q, k, v = Q.to(tipo), K.to(tipo), V.to(tipo)
        tol, nombre_tipo = (TOL_F32 if tipo == torch.float32 else TOL_MEDIA), str(tipo).removeprefix("torch.")
        fusionados = 0
        for nombre, backend in BACKENDS.items():
            try:
                with sdpa_kernel([getattr(SDPBackend, backend)]):
                    salida = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                torch.cuda.synchronize()
            except RuntimeError as e:  # este backend no admite el tipo o la forma: no es un fallo
                s.fila(nombre_tipo, nombre, "—", f"no ({str(e).splitlines()[0][:70]})")
                continue
            fusionados += nombre in ("flash", "memory-efficient")
            d = _dif(salida, referencia)
            s.fila(nombre_tipo, nombre, f"{d:.1e}", "sí", ok=d <= tol)
        elegido = _operador_sdpa(lambda q=q, k=k, v=v: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        s.notas.append(f"{nombre_tipo}: sin forzar, SDPA elige `{elegido}`.")
        if tipo != torch.float32 and fusionados == 0:
            s.estado = "NO"
            s.notas.append(f"{nombre_tipo}: ni flash ni memory-efficient corrieron en esta GPU.")


# --- 4 y 5: los checkpoints del registro ------------------------------------------------------------------------


def _entradas(nombre: str, n: int = 16):
    """n entradas fijas para el checkpoint `nombre`: secuencias de dígitos o dígitos de prueba; None si su
    clase no es ninguna de esas (un checkpoint nuevo en el registro: se informa sin comprobarlo)."""
    from modelos import REGISTRO
    from modelos.datos import digitos_sklearn, secuencias_digitos

    clase = REGISTRO[nombre].clase
    if clase == "TransformerJuguete":
        return secuencias_digitos(n, semilla=123)[0]  # (n, 8)
    if clase in ("ViTDiminuto", "RedCBAM"):
        return digitos_sklearn()[1][:n]  # (≤ n, 1, 8, 8)
    if clase == "ClasificadorAtencion":  # frases de 8 fichas (0 es el relleno)
        return secuencias_digitos(n, semilla=123)[0] + 1  # (n, 8)
    return None


def _llamar(modelo, x):
    """La salida completa del modelo: con los pesos de atención si hay que pedirlos (`con_pesos`)."""
    import inspect

    return modelo(x, con_pesos=True) if "con_pesos" in inspect.signature(modelo.forward).parameters else modelo(x)


def _planos(salida) -> list[float]:
    """Todos los números de una salida (tensor, o tuplas y listas de tensores), en orden."""
    if isinstance(salida, list | tuple):
        return [x for parte in salida for x in _planos(parte)]
    return salida.detach().float().cpu().ravel().tolist()


def _en_proceso(argumento: str, dispositivo: str) -> dict:
    entorno = {**os.environ, "ATENCION_DISPOSITIVO": dispositivo, "HF_HUB_OFFLINE": "1"}
    hecho = subprocess.run(
        [sys.executable, __file__, argumento], env=entorno, cwd=RAIZ, capture_output=True, text=True, timeout=300
    )
    if hecho.returncode != 0:
        raise RuntimeError(f"{argumento} con {dispositivo} salió con {hecho.returncode}: {hecho.stderr[-800:]}")
    return json.loads(hecho.stdout.strip().splitlines()[-1])


def checkpoints(s: Seccion, disps: list) -> None:
    """Cada checkpoint por `cargar()` (en `dispositivo()`: cuda, o cpu con --cpu) contra la copia incluida en CPU."""
    import torch

    from modelos import REGISTRO, cargar, dispositivo, hub

    dev = dispositivo()
    if dev.type != disps[-1].type:
        raise NoCorre(f"`dispositivo()` da {dev.type}; esta sección quiere {disps[-1].type}")
    s.cabecera = ["checkpoint", "cargar() lo dejó en", "números comparados", "dif. con la CPU", "sin TF32", "bien"]
    for nombre in REGISTRO:
        x = _entradas(nombre)
        if x is None:
            s.fila(nombre, "—", 0, "—", "—", f"sin entradas de ejemplo para {REGISTRO[nombre].clase}: no se comprobó")
            continue
        try:
            modelo = cargar(nombre)
        except Exception as e:  # un checkpoint roto no tapa los demás
            s.fila(nombre, "—", 0, "—", "—", ok=False)
            s.notas.append(f"{nombre}: `cargar()` falló: {type(e).__name__}: {str(e)[:300]}")
            continue
        en = next(modelo.parameters()).device
        copia = hub.desde_carpeta(nombre, hub.carpeta_incluida() / nombre).eval()
        with torch.inference_mode():
            b = np.asarray(_planos(_llamar(copia, x)))
            a = np.asarray(_planos(_llamar(modelo, x.to(en))))
            with _sin_tf32():
                a_exacta = np.asarray(_planos(_llamar(modelo, x.to(en))))
        d, d_exacta = float(np.abs(a - b).max()), float(np.abs(a_exacta - b).max())
        bien = d_exacta <= TOL_MODELOS and d <= TOL_TF32 and np.isfinite(a).all() and en.type == dev.type
        s.fila(nombre, en, len(b), f"{d:.1e}", f"{d_exacta:.1e}", ok=bool(bien))
    s.notas.append(
        "Logits y pesos de atención de 16 entradas fijas (secuencias o dígitos de prueba); diferencia máxima "
        f"absoluta. Con los ajustes por omisión de torch (cuDNN usa TF32 en las convoluciones: tolerancia {TOL_TF32}) "
        f"y con TF32 apagado (tolerancia {TOL_MODELOS})."
    )


@contextmanager
def _sin_tf32():
    """Convoluciones y matmul de CUDA en float32 de verdad (sin TF32) mientras dura el bloque."""
    import torch

    antes = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = antes


def inferencia(s: Seccion, disps: list) -> None:
    import torch

    from modelos import REGISTRO, hub

    s.cabecera = ["checkpoint", "lote", *(f"{d.type} (ms)" for d in disps)]
    con_copia = [n for n in REGISTRO if (hub.carpeta_incluida() / n / "config.json").is_file()]
    for nombre in (n for n in con_copia if _entradas(n) is not None):
        cpu = hub.desde_carpeta(nombre, hub.carpeta_incluida() / nombre).eval()
        for x in (_entradas(nombre, 1), _entradas(nombre, 2000)):  # un control que se mueve; un lote grande
            tiempos = []
            for dev in disps:
                modelo, entrada = cpu.to(dev), x.to(dev)
                with torch.inference_mode():
                    tiempos.append(_mediana_ms(lambda m=modelo, e=entrada: _llamar(m, e), dev))
            s.fila(nombre, len(x), *(f"{t:.2f}" for t in tiempos))
            cpu.to("cpu")
    s.notas.append(
        f"Mediana de {MEDIDA.repeticiones} llamadas (con los pesos de atención), tras 3 de calentamiento; "
        "torch con 1 hilo."
    )


# --- 6: entrenamiento -------------------------------------------------------------------------------------------


def _inversion(config: dict, dev, secuencias: int, cada: int) -> tuple[float, float, dict]:
    """(pérdida media del primer informe, segundos, último informe) entrenando un TransformerJuguete nuevo."""
    import torch

    from modelos import TransformerJuguete
    from modelos.entrenamiento.inversion import entrenar_inversion

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        red = TransformerJuguete(**config).to(dev)
    inicio = time.perf_counter()
    informes = list(entrenar_inversion(red, epocas=1, secuencias_por_epoca=secuencias, lote=64, cada=cada))
    _sincronizar(dev)
    return informes[0]["perdida"], time.perf_counter() - inicio, informes[-1]


def _imagenes(nombre: str, dev) -> tuple[float, float]:
    """(pérdida de la primera época, segundos de una época) con la receta del checkpoint `nombre`."""
    from modelos.datos import digitos_sklearn
    from modelos.entrenamiento.imagenes import entrenar_imagenes
    from modelos.entrenamiento.recetas import RECETAS, construir, exceso_de_atencion

    receta = RECETAS[nombre]
    X, _, y, _ = digitos_sklearn()
    X, y = (X[: MEDIDA.imagenes], y[: MEDIDA.imagenes]) if MEDIDA.imagenes else (X, y)
    castigo = (lambda w, m: exceso_de_atencion(w, m, receta)) if receta.castigo else None
    modelo = construir(nombre).to(dev)
    inicio = time.perf_counter()
    perdidas = entrenar_imagenes(
        modelo, X.to(dev), y.to(dev), epocas=1, tasa=receta.tasa, decaimiento=receta.decaimiento, castigo=castigo
    )
    _sincronizar(dev)
    return perdidas[0], time.perf_counter() - inicio


def entrenamiento(s: Seccion, disps: list) -> None:
    s.cabecera = ["receta", "dispositivo", "pérdida (primeros pasos)", "segundos por época", "bien"]
    perdidas: dict[str, float] = {}
    for cabezas, bloques in ((2, 1), (4, 3)):  # lo que la pestaña da por omisión, y lo más grande que deja
        etiqueta = f"{cabezas} cabezas, {bloques} bloque{'s' if bloques > 1 else ''}"
        config = {"d_modelo": 32, "cabezas": cabezas, "bloques": bloques}
        for dev in disps:
            perdida, _, _ = _inversion(config, dev, secuencias=320, cada=5)  # 5 pasos; también calienta
            _, segundos, ultimo = _inversion(config, dev, MEDIDA.secuencias_epoca, cada=MEDIDA.secuencias_epoca)
            referencia = perdidas.setdefault(etiqueta, perdida)
            s.fila(
                f"inversión, la pestaña ({etiqueta})",
                dev.type,
                f"{perdida:.4f}",
                f"{segundos:.2f} ({ultimo['secuencias']:.0%} bien)",
                ok=abs(perdida - referencia) <= TOL_PERDIDA,
            )
    for nombre in ("vit-digitos", "cbam-digitos"):
        for dev in disps:
            perdida, _ = _imagenes(nombre, dev)  # la primera época también calienta los kernels
            _, segundos = _imagenes(nombre, dev)
            referencia = perdidas.setdefault(nombre, perdida)
            s.fila(nombre, dev.type, f"{perdida:.4f}", f"{segundos:.2f}", ok=abs(perdida - referencia) <= TOL_PERDIDA)
    imagenes = MEDIDA.imagenes or 1437
    s.notas.append(
        f"Inversión: pérdida media de los 5 primeros pasos (Adam, lote 64) y una época de la pestaña «Entrénalo tú» "
        f"({MEDIDA.secuencias_epoca:,} secuencias, {-(-MEDIDA.secuencias_epoca // 64)} pasos, con la exactitud "
        f"final en 2 000 de validación). ViT y CBAM: su receta, una época de {imagenes:,} dígitos de entrenamiento "
        f"({-(-imagenes // 64)} pasos). Misma semilla en cada dispositivo; la primera corrida calienta los kernels."
    )


# --- 7 y 8: memoria ---------------------------------------------------------------------------------------------


def _pendiente(largos: list[int], valores: list[float]) -> float:
    return float(np.polyfit(np.log(largos[-3:]), np.log(valores[-3:]), 1)[0])


def pendiente_memoria(s: Seccion, disps: list) -> None:
    import torch
    from torch.nn.attention import SDPBackend

    from modelos import atencion

    dev = disps[-1]
    cuda = dev.type == "cuda"
    largos = [512, 1024, 2048, 4096, 8192] if cuda else [256, 512, 1024, 2048]
    # En CUDA, 16 cabezas: con una sola, flash reparte las claves en trozos (split-KV) y reserva acumuladores
    # que dependen de cuántos trozos elige, no de L (medido en una H200: 1.1, 4.3, 4.6, 5.1, 2.1 MB).
    cabezas = 16 if cuda else 1
    metodos = {"ingenua (float32)": (None, torch.float32), "SDPA sin forzar (float32)": ([], torch.float32)}
    if cuda:
        metodos |= {
            "SDPA flash (bfloat16)": ([SDPBackend.FLASH_ATTENTION], torch.bfloat16),
            "SDPA memory-efficient (float32)": ([SDPBackend.EFFICIENT_ATTENTION], torch.float32),
            "SDPA math (float32)": ([SDPBackend.MATH], torch.float32),
        }
    s.cabecera = ["método", *(f"L={L}" for L in largos), "pendiente memoria", "pendiente tiempo"] + ["bien"] * cuda
    g = torch.Generator().manual_seed(2)
    for nombre, (backends, tipo) in metodos.items():
        memorias, tiempos = [], []
        for L in largos:
            q, k, v = (torch.randn(1, cabezas, L, 64, generator=g).to(dev, tipo) for _ in range(3))
            if backends is None:
                fn = lambda q=q, k=k, v=v: atencion(q, k, v)  # noqa: E731
            else:
                fn = lambda q=q, k=k, v=v, b=backends: _sdpa_con(b, q, k, v)  # noqa: E731
            with torch.inference_mode():
                tiempos.append(_mediana_ms(fn, dev, repeticiones=3, calentar=1))
                if cuda:
                    torch.cuda.synchronize()
                    base = torch.cuda.memory_allocated()
                    torch.cuda.reset_peak_memory_stats()
                    fn()
                    torch.cuda.synchronize()
                    memorias.append(torch.cuda.max_memory_allocated() - base)
        pm = _pendiente(largos, memorias) if cuda else float("nan")
        celdas = [f"{m / 2**20:,.1f} MB" for m in memorias] if cuda else [f"{t:.2f} ms" for t in tiempos]
        esperado = 2 if ("ingenua" in nombre or "math" in nombre) else 1
        ok = abs(pm - esperado) <= 0.25 if cuda else None
        s.fila(nombre, *celdas, f"{pm:.2f}" if cuda else "—", f"{_pendiente(largos, tiempos):.2f}", ok=ok)
    s.notas.append(
        f"Una frase, {cabezas} cabeza{'s' if cabezas > 1 else ''} de 64 columnas; pendientes log-log de los "
        "tres largos mayores. "
        + (
            "Memoria: `torch.cuda.max_memory_allocated` por encima de lo ya reservado. Se espera ≈ 2 (O(L²)) en "
            "la ingenua y en math, ≈ 1 (O(L)) en flash y memory-efficient."
            if cuda
            else "En la CPU, las celdas son tiempos (mediana de 3): la memoria pico la mide la pestaña (sección 8)."
        )
    )


def _sdpa_con(backends: list, q, k, v):
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel

    if not backends:
        return F.scaled_dot_product_attention(q, k, v)
    with sdpa_kernel(backends):
        return F.scaled_dot_product_attention(q, k, v)


def medicion_pestana(s: Seccion, disps: list) -> None:
    try:
        from demos.memoria.medida import medir
    except ImportError as e:
        raise NoCorre(f"no se pudo importar `demos.memoria.medida` ({e})") from None
    from modelos import dispositivo

    if dispositivo().type != disps[-1].type:
        raise NoCorre(f"`dispositivo()` da {dispositivo().type}; la sección quiere {disps[-1].type}")
    cuda = disps[-1].type == "cuda"
    for tipo in ("float32", "bfloat16") if cuda else ("float32",):
        inicio = time.perf_counter()
        _, tabla, texto = medir(32768 if cuda else 1024, tipo)
        segundos = time.perf_counter() - inicio
        s.cabecera = ["tipo", "largo", "ingenua (ms)", "SDPA (ms)", "ingenua (MB)", "SDPA (MB)", "backend de SDPA"]
        for fila in tabla:
            s.fila(tipo, *fila)
        backend = tabla[-1][-1]
        pendiente = re.search(r"pendiente \*\*([\d.]+)\*\*", texto)
        s.notas.append(
            f"{tipo}: `medir` tardó {segundos:.1f} s; SDPA con **{backend}**; pendiente de memoria de la ingenua "
            f"{pendiente.group(1) if pendiente else '—'}."
        )
        if cuda and backend not in ("flash", "memory-efficient", "cuDNN"):
            s.estado = "NO"
            s.notas.append(f"{tipo}: en CUDA se esperaba un backend fusionado, no «{backend}».")


# --- 9: cada pestaña, con gradio --------------------------------------------------------------------------------


def numeros(valor) -> list:
    """Lo numérico de una salida de pestaña, en una estructura anidada comparable."""
    if hasattr(valor, "savefig"):  # figura de matplotlib: imágenes y curvas
        return [
            np.nan_to_num(np.asarray(a, dtype=float), nan=-1.0).ravel().tolist()
            for eje in valor.axes
            for a in [im.get_array() for im in eje.images] + [linea.get_ydata() for linea in eje.lines]
        ]
    if hasattr(valor, "to_plotly_json"):
        return numeros(valor.to_plotly_json())
    if dataclasses.is_dataclass(valor) and not isinstance(valor, type):
        return numeros(dataclasses.asdict(valor))
    if hasattr(valor, "tolist"):
        return np.nan_to_num(np.asarray(valor, dtype=float), nan=-1.0).ravel().tolist()
    if isinstance(valor, dict):
        return [numeros(valor[k]) for k in sorted(valor, key=str)]
    if isinstance(valor, list | tuple):
        return [numeros(v) for v in valor]
    if isinstance(valor, str):
        return [float(x) for x in re.findall(r"-?\d+\.\d+", valor)]
    if isinstance(valor, bool | int | float):
        return [float(valor)]
    return []


def volcar_pestanas() -> None:
    """En este proceso: la vista inicial de cada pestaña y la memoria CUDA que reservó, a JSON."""
    import torch

    import app

    cuda = torch.cuda.is_available() and os.environ.get("ATENCION_DISPOSITIVO") == "cuda"
    resultado = {}
    for id_, vista in app.vistas(app.demo).items():
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        resultado[id_] = {"valores": numeros(vista.fn()), "memoria": torch.cuda.max_memory_allocated() if cuda else 0}
    print(json.dumps(resultado))


def diferencia(a, b) -> float:
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return float("inf")
        return max((diferencia(x, y) for x, y in zip(a, b, strict=True)), default=0.0)
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b)
    return float("inf")


def pestanas(s: Seccion, disps: list) -> None:
    import importlib.util

    if importlib.util.find_spec("gradio") is None:
        raise NoCorre("gradio no está instalado en esta máquina: las pestañas no se pueden armar")
    if disps[-1].type != "cuda":
        raise NoCorre("sin CUDA: esta sección compara cada pestaña en CUDA con la CPU")
    cpu, cuda = _en_proceso("--volcar-pestanas", "cpu"), _en_proceso("--volcar-pestanas", "cuda")
    s.cabecera = ["pestaña", "memoria CUDA", "dif. máx. con CPU", "bien"]
    for id_ in cpu:
        d = diferencia(cpu[id_]["valores"], cuda[id_]["valores"])
        s.fila(id_, f"{cuda[id_]['memoria'] / 2**20:.1f} MB", f"{d:.1e}", ok=d <= 1e-3)
    s.notas.append("Números de tablas, textos y figuras ya redondeados para mostrar; 0 MB = la pestaña calcula en CPU.")


# --- la orden -------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    lector = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    lector.add_argument("--cpu", action="store_true", help="solo la CPU, aunque haya CUDA")
    lector.add_argument("--informe", type=Path, help="escribe el informe en Markdown en este archivo")
    lector.add_argument("--rapido", action="store_true", help="menos pasos y repeticiones (para las pruebas)")
    args = lector.parse_args(argv)
    global MEDIDA
    MEDIDA = RAPIDA if args.rapido else Medida()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # antes de importar huggingface_hub: nada de red
    if args.cpu:
        os.environ["ATENCION_DISPOSITIVO"] = "cpu"
    import torch

    torch.set_num_threads(int(os.environ.get("ATENCION_HILOS_TORCH", "1")))
    disps = [torch.device("cpu")]
    if torch.cuda.is_available() and not args.cpu:
        disps.append(torch.device("cuda"))
    print(f"Comprobación en {' y '.join(d.type for d in disps)} (torch {torch.__version__})\n", flush=True)
    informe = Informe(args.informe)
    secciones = {
        "1. La máquina": entorno,
        "2. atencion() contra SDPA": atencion_contra_sdpa,
        "3. Backends de SDPA en CUDA": backends_sdpa,
        "4. Checkpoints por cargar(), CUDA contra CPU": checkpoints,
        "5. Inferencia chica de cada checkpoint": inferencia,
        "6. Entrenamiento: unos pasos de cada receta": entrenamiento,
        "7. Memoria pico al duplicar L": pendiente_memoria,
        "8. La medición de la pestaña memoria": medicion_pestana,
        "9. Cada pestaña, CUDA contra CPU (con gradio)": pestanas,
    }
    for titulo, fn in secciones.items():
        informe.correr(titulo, lambda s, fn=fn: fn(s, disps))
    corrieron = [s.titulo for s in informe.secciones if s.estado != "no corrió"]
    fallos = ", ".join(informe.fallos) or "ninguna"
    print(f"Corrieron {len(corrieron)} de {len(secciones)} secciones; fallaron: {fallos}.")
    return 1 if informe.fallos else 0


if __name__ == "__main__":
    if "--volcar-pestanas" in sys.argv:
        volcar_pestanas()
    else:
        sys.exit(main())
