"""`scripts/gpu_smoke.py` corre en la CPU en cada `make test`: cuando haya una GPU, el guion funciona."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def informe(tmp_path_factory) -> tuple[subprocess.CompletedProcess, str]:
    ruta = tmp_path_factory.mktemp("gpu") / "informe.md"
    entorno = {**os.environ, "HF_HUB_OFFLINE": "1"}
    hecho = subprocess.run(
        [sys.executable, "scripts/gpu_smoke.py", "--cpu", "--rapido", "--informe", str(ruta)],
        cwd=RAIZ,
        env=entorno,
        capture_output=True,
        text=True,
        timeout=240,
    )
    return hecho, ruta.read_text(encoding="utf-8") if ruta.exists() else ""


def _estados(texto: str) -> dict[str, str]:
    return dict(re.findall(r"^### (\d)\. .*?: (sí|NO|no corrió) \(", texto, flags=re.M))


def test_en_la_cpu_todo_lo_que_corre_da_bien(informe):
    hecho, texto = informe
    assert hecho.returncode == 0, hecho.stdout[-3000:] + hecho.stderr[-2000:]
    assert _estados(texto) == {
        "1": "sí", "2": "sí", "3": "no corrió", "4": "sí", "5": "sí", "6": "sí", "7": "sí", "8": "sí", "9": "no corrió"
    }  # fmt: skip
    assert "Corrieron 7 de 9 secciones; fallaron: ninguna." in hecho.stdout


def test_lo_que_no_corre_dice_por_que(informe):
    _, texto = informe
    assert "sin CUDA: los backends flash, memory-efficient y cuDNN son de la GPU" in texto
    assert "sin CUDA: esta sección compara cada pestaña en CUDA con la CPU" in texto


def test_cada_checkpoint_del_registro_por_cargar_igual_a_la_copia(informe):
    from modelos import REGISTRO

    _, texto = informe
    for nombre in (n for n in REGISTRO if REGISTRO[n].clase in ("TransformerJuguete", "ViTDiminuto", "RedCBAM")):
        fila = re.search(rf"^\| {re.escape(nombre)} \| cpu \| (\d+) \| (\S+) \| (\S+) \| sí \|$", texto, flags=re.M)
        assert fila, nombre
        assert int(fila[1]) > 0 and float(fila[2]) == float(fila[3]) == 0.0  # en la CPU, los mismos números exactos


def test_la_inferencia_chica_tarda_milisegundos_en_la_cpu(informe):
    _, texto = informe
    lote_1 = [float(ms) for ms in re.findall(r"^\| [\w-]+ \| 1 \| ([\d.]+) \|$", texto, flags=re.M)]
    assert len(lote_1) >= 4 and max(lote_1) < 50  # ≈ 0.2–0.7 ms en un núcleo libre; holgado para CI cargada


def test_la_medicion_de_la_pestana_memoria_corre_con_su_backend(informe):
    _, texto = informe
    # 1 024 con espacio fino, como escriben los números las pestañas (demos.comun.figuras.numero)
    assert re.search(r"^\| float32 \| 1\u202f024 \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| flash", texto, flags=re.M)


def test_una_seccion_rota_queda_en_no_y_las_demas_siguen(tmp_path):
    sys.path.insert(0, str(RAIZ / "scripts"))
    import gpu_smoke as G

    def rota(s):
        raise RuntimeError("kernel roto")

    def sin_gpu(s):
        raise G.NoCorre("sin CUDA aquí")

    def bien(s):
        s.cabecera = ["qué", "bien"]
        s.fila("algo", ok=True)

    informe = G.Informe(tmp_path / "x.md")
    for titulo, fn in (("1. rota", rota), ("2. sin gpu", sin_gpu), ("3. bien", bien)):
        informe.correr(titulo, fn)
    texto = (tmp_path / "x.md").read_text(encoding="utf-8")
    assert _estados(texto) == {"1": "NO", "2": "no corrió", "3": "sí"}
    assert "kernel roto" in texto and "sin CUDA aquí" in texto and "| algo | sí |" in texto
    assert informe.fallos == ["1. rota"]  # main() sale con 1
