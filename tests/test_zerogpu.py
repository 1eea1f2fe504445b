"""ZeroGPU: la app con un `spaces` de reemplazo que se porta como el de un Space con ZeroGPU.

En ZeroGPU, `spaces` hace creer a torch que hay CUDA fuera de las funciones decoradas (es una
emulación: el cálculo en «cuda» ahí falla) y presta la GPU de verdad solo dentro de ellas. El
reemplazo imita eso: `torch.cuda.is_available()` da True fuera y el valor real (aquí, sin GPU,
False) dentro; anota qué funciones se decoraron, con qué duración, y cuántas veces corrieron.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from modelos import hub

RAIZ = Path(__file__).resolve().parent.parent

SPACES_DE_REEMPLAZO = '''
"""`spaces` de reemplazo para las pruebas: anota lo que ZeroGPU vería."""
import functools
import inspect
import os
import sys

IMPORTADOS_ANTES = sorted(m for m in ("torch", "gradio") if m in sys.modules)  # ZeroGPU los quiere después
ZERO_GPU = os.environ.get("SPACES_ZERO_GPU") == "true"
DECORADAS = []  # [(módulo.nombre, duración)]
LLAMADAS = []  # [(módulo.nombre, torch.cuda.is_available() dentro)]

if ZERO_GPU:
    import torch

    _real = torch.cuda.is_available
    torch.cuda.is_available = lambda: True  # la emulación de ZeroGPU fuera de las funciones decoradas


def GPU(task=None, *, duration=None, size=None):
    if task is None:
        return lambda f: GPU(f, duration=duration, size=size)
    nombre = f"{task.__module__}.{task.__qualname__}"
    DECORADAS.append((nombre, duration))
    if not ZERO_GPU:
        return task

    def con_gpu(paso):
        torch.cuda.is_available = _real  # dentro: la GPU de verdad (aquí no hay)
        try:
            LLAMADAS.append((nombre, torch.cuda.is_available()))
            return paso()
        finally:
            torch.cuda.is_available = lambda: True

    if inspect.isgeneratorfunction(task):

        @functools.wraps(task)
        def generador(*args, **kwargs):
            pasos = task(*args, **kwargs)
            while True:
                try:
                    valor = con_gpu(lambda: next(pasos))
                except StopIteration:
                    return
                yield valor

        return generador
    return functools.wraps(task)(lambda *a, **k: con_gpu(lambda: task(*a, **k)))
'''

ZERO_DE_REEMPLAZO = """
ARRANQUES = []


def startup():
    ARRANQUES.append(True)
"""

GUION = """
import json

import app  # como en un Space: `spaces` entra primero

import spaces
import spaces.zero
import torch

import demos.comun.zerogpu
from demos.inversion_digitos.entrenar import entrenar
from demos.memoria.medida import medir
from modelos import REGISTRO, cargar, dispositivo

r = {"importados_antes": spaces.IMPORTADOS_ANTES, "cuda_emulada": torch.cuda.is_available()}
r["decoradas"] = dict(spaces.DECORADAS)
r["dispositivo"] = str(dispositivo())
r["modelos"] = sorted({str(next(cargar(n).parameters()).device) for n in REGISTRO})
r["vista_inversion"] = len(app.vistas(app.demo)["inversion-digitos"].fn())
_, tabla, texto = medir(256, "float32")
r["medir"] = [len(tabla), texto.split("**")[1]]
ultimo = list(entrenar(1, True, 1, 1))[-1]
r["entrenar"] = [sorted(ultimo[3]), str(ultimo[3]["pesos"]["salida.weight"].device)]
try:
    medir(100, "float32")
except Exception as e:
    r["error"] = [type(e).__name__, str(e)]
r["llamadas"] = sorted({n for n, _ in spaces.LLAMADAS})
r["cuda_dentro"] = sorted({c for _, c in spaces.LLAMADAS})
r["arranque"] = [demos.comun.zerogpu.arrancar_zerogpu(), len(spaces.zero.ARRANQUES)]
print(json.dumps(r))
"""


@pytest.fixture(scope="module")
def en_zerogpu_de_reemplazo(tmp_path_factory) -> dict:
    """Importa la app y corre las funciones decoradas en un proceso con el `spaces` de reemplazo."""
    carpeta = tmp_path_factory.mktemp("reemplazo")
    (carpeta / "spaces" / "zero").mkdir(parents=True)
    (carpeta / "spaces" / "__init__.py").write_text(textwrap.dedent(SPACES_DE_REEMPLAZO))
    (carpeta / "spaces" / "zero" / "__init__.py").write_text(ZERO_DE_REEMPLAZO)
    entorno = {k: v for k, v in os.environ.items() if k != "ATENCION_DISPOSITIVO"}
    entorno |= {"SPACES_ZERO_GPU": "true", "PYTHONPATH": f"{carpeta}{os.pathsep}{RAIZ}", "HF_HUB_OFFLINE": "1"}
    salida = subprocess.run(
        [sys.executable, "-c", GUION], cwd=RAIZ, env=entorno, capture_output=True, text=True, timeout=240
    )
    assert salida.returncode == 0, salida.stderr[-3000:]
    return json.loads(salida.stdout.strip().splitlines()[-1])


def test_spaces_se_importa_antes_que_torch_y_gradio(en_zerogpu_de_reemplazo):
    assert en_zerogpu_de_reemplazo["importados_antes"] == []


def test_solo_la_medicion_de_memoria_pide_gpu_y_por_20_s(en_zerogpu_de_reemplazo):
    # Entrenar no: en una H200, una época de la pestaña tarda 0.46–0.50 s en CUDA y 0.40–0.50 s en un núcleo
    # (docs/gpu_smoke.md); con GPU gastaría la cuota del visitante sin ganar nada que se note.
    assert en_zerogpu_de_reemplazo["decoradas"] == {"demos.memoria.medida.medir": 20}


def test_con_la_cuda_emulada_los_modelos_y_las_vistas_quedan_en_la_cpu(en_zerogpu_de_reemplazo):
    r = en_zerogpu_de_reemplazo
    assert r["cuda_emulada"] is True
    assert r["dispositivo"] == "cpu" and r["modelos"] == ["cpu"]
    assert r["vista_inversion"] > 0  # la vista inicial calculó sin tocar la «cuda» emulada


def test_la_funcion_decorada_corre_dentro_de_la_gpu_prestada(en_zerogpu_de_reemplazo):
    r = en_zerogpu_de_reemplazo
    assert r["llamadas"] == ["demos.memoria.medida.medir"]
    assert r["cuda_dentro"] == [False]  # dentro, el torch real: esta máquina no tiene GPU
    assert r["medir"] == [3, "cpu"]  # 256, 128 y 64; medido en la CPU, lo que hay dentro


def test_entrenar_corre_en_la_cpu_aunque_cuda_parezca_estar(en_zerogpu_de_reemplazo):
    assert en_zerogpu_de_reemplazo["entrenar"] == [["config", "pesos", "resumen"], "cpu"]


def test_un_error_de_entrada_cruza_zerogpu_con_su_mensaje(en_zerogpu_de_reemplazo):
    # ZeroGPU devuelve un gr.Error tal cual; cualquier otra excepción, como «ZeroGPU worker error»
    tipo, mensaje = en_zerogpu_de_reemplazo["error"]
    assert tipo == "Error" and "potencia de 2" in mensaje


def test_el_arranque_de_zerogpu_se_pide_a_mano(en_zerogpu_de_reemplazo):
    assert en_zerogpu_de_reemplazo["arranque"] == [True, 1]


# --- dispositivo() fuera y dentro de ZeroGPU ------------------------------------------------------


@pytest.fixture
def maquina(monkeypatch):
    """Fija qué ve torch (CUDA, MPS) y si estamos en ZeroGPU; sin ATENCION_DISPOSITIVO."""
    monkeypatch.delenv("ATENCION_DISPOSITIVO", raising=False)
    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)

    def fijar(cuda: bool = False, mps: bool = False, zerogpu: bool = False) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
        if zerogpu:
            monkeypatch.setenv("SPACES_ZERO_GPU", "true")

    return fijar


@pytest.mark.parametrize(
    ("cuda", "mps", "esperado"),
    [(True, False, "cuda"), (True, True, "cuda"), (False, True, "mps"), (False, False, "cpu")],
)
def test_fuera_de_zerogpu_cuda_luego_mps_luego_cpu(maquina, cuda, mps, esperado):
    maquina(cuda=cuda, mps=mps)
    assert hub.dispositivo().type == esperado
    with hub.gpu_prestada():  # fuera de ZeroGPU la marca no cambia nada
        assert hub.dispositivo().type == esperado
    assert hub.dispositivo_pesado().type == esperado


def test_en_zerogpu_la_cpu_salvo_con_la_gpu_prestada(maquina):
    maquina(cuda=True, zerogpu=True)
    assert hub.dispositivo().type == "cpu"
    with hub.gpu_prestada():
        assert hub.dispositivo().type == "cuda"
    assert hub.dispositivo().type == "cpu"
    assert hub.dispositivo_pesado().type == "cuda"  # dónde correrá lo decorado


def test_en_zerogpu_cuda_forzada_solo_dentro_y_cpu_forzada_siempre(maquina, monkeypatch):
    maquina(cuda=True, zerogpu=True)
    monkeypatch.setenv("ATENCION_DISPOSITIVO", "cuda")
    assert hub.dispositivo().type == "cpu"
    with hub.gpu_prestada():
        assert hub.dispositivo().type == "cuda"
    monkeypatch.setenv("ATENCION_DISPOSITIVO", "cpu")
    with hub.gpu_prestada():
        assert hub.dispositivo().type == "cpu"


# --- el decorador fuera de ZeroGPU ------------------------------------------------------------------


def test_fuera_de_zerogpu_las_funciones_decoradas_son_las_mismas():
    """Con el `spaces` real y sin ZeroGPU, `spaces.GPU` devuelve la función tal cual."""
    import spaces

    from demos.memoria.medida import medir

    assert "site-packages" in (spaces.__file__ or "") and not spaces.config.Config.zero_gpu  # el real, sin ZeroGPU
    assert not hasattr(medir, "__wrapped__") and medir.__module__ == "demos.memoria.medida"
    assert medir.duracion_gpu == 20


def test_sin_el_paquete_spaces_el_decorador_no_hace_nada(monkeypatch):
    import demos.comun.zerogpu as G

    monkeypatch.setattr(G, "_spaces", lambda: None)

    def f(x):
        return x + 1

    assert G.gpu(10)(f) is f
    assert G.arrancar_zerogpu() is False
