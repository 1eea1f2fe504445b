"""`python -m scripts.space`: la carpeta que recibe el Space, su front matter, la app arrancada desde ella
(como la arranca un Space) y la subida con `upload_folder`, contra el Hub falso en loopback."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hub_falso import HubFalso

from modelos.hub import REGISTRO
from scripts import space

RAIZ = Path(__file__).resolve().parent.parent


def _archivos(carpeta: Path) -> set[str]:
    return {p.relative_to(carpeta).as_posix() for p in carpeta.rglob("*") if p.is_file()}


# --- el ensayo: armar, validar, arrancar y llamar --------------------------------------------------------------


@pytest.fixture(scope="module")
def ensayo(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    carpeta = tmp_path_factory.mktemp("ensayo") / "space"
    hecho = subprocess.run(
        [sys.executable, "-m", "scripts.space", "--ensayo", "--carpeta", str(carpeta)],
        cwd=RAIZ,
        capture_output=True,
        text=True,
        timeout=400,
    )
    return hecho, carpeta


def test_el_ensayo_arranca_la_app_desde_la_carpeta_y_contesta(ensayo):
    hecho, _ = ensayo
    assert hecho.returncode == 0, hecho.stdout[-4000:] + hecho.stderr[-2000:]
    assert re.search(r"http://127\.0\.0\.1:\d+/ contestó /temperatura \(\d+ salidas\)", hecho.stdout)
    assert "cargó los checkpoints desde la carpeta" in hecho.stdout
    assert "Ensayo bien: no se subió nada." in hecho.stdout


def test_la_carpeta_lleva_lo_que_la_app_usa_y_nada_mas(ensayo):
    _, carpeta = ensayo
    archivos = _archivos(carpeta)
    assert archivos == set(space.archivos_del_space(RAIZ))
    assert {"app.py", "README.md", "requirements.txt", "demos/comun/zerogpu.py", "modelos/hub.py"} <= archivos
    for nombre in REGISTRO:
        assert {f"checkpoints/{nombre}/config.json", f"checkpoints/{nombre}/model.safetensors"} <= archivos
    prohibidos = ("tests/", "scripts/", "docs/", ".venv/", ".git/", "artefactos/")
    assert not [r for r in archivos if r.startswith(prohibidos) or "__pycache__" in r or r.endswith((".png", ".pyc"))]
    assert not {"Makefile", "BENCHMARKS.md", "requirements-dev.txt", "pyproject.toml", ".gitignore"} & archivos
    for r in ("README.md", "requirements.txt", *(r for r in archivos if r.startswith("checkpoints/"))):
        assert (carpeta / r).read_bytes() == (RAIZ / r).read_bytes(), r


def test_cada_archivo_que_git_sigue_en_los_paquetes_va_al_space(ensayo):
    _, carpeta = ensayo
    seguidos = subprocess.run(["git", "ls-files", "demos", "modelos", "checkpoints"], cwd=RAIZ, capture_output=True)
    if seguidos.returncode != 0:
        pytest.skip("sin git")
    esperados = {r for r in seguidos.stdout.decode().split() if (RAIZ / r).is_file()}
    assert esperados <= _archivos(carpeta)


def test_arrancar_la_app_no_deja_nada_en_lo_que_se_sube(ensayo):
    _, carpeta = ensayo
    # ni __pycache__ (PYTHONDONTWRITEBYTECODE) ni los stubs .pyi que Gradio escribe al importar los componentes
    assert not list(carpeta.rglob("__pycache__")) and not list(carpeta.rglob("*.pyi"))


def test_una_carpeta_con_algo_no_se_reusa(tmp_path):
    (tmp_path / "mio.txt").write_text("no me borres")
    with pytest.raises(ValueError, match="no está vacía"):
        space.armar(tmp_path)
    assert (tmp_path / "mio.txt").read_text() == "no me borres"


# --- el front matter, contra la referencia de Spaces -------------------------------------------------------------


@pytest.fixture
def carpeta(tmp_path) -> Path:
    for archivo in ("README.md", "requirements.txt", "app.py"):
        shutil.copy(RAIZ / archivo, tmp_path / archivo)
    return tmp_path


def _cambiar(carpeta: Path, viejo: str, nuevo: str, archivo: str = "README.md") -> None:
    texto = (carpeta / archivo).read_text(encoding="utf-8")
    assert viejo in texto, viejo
    (carpeta / archivo).write_text(texto.replace(viejo, nuevo, 1), encoding="utf-8")


def test_el_front_matter_del_proyecto_pasa(carpeta):
    assert space.validar_front_matter(carpeta) == []
    assert space.validar_carpeta(carpeta) == []


@pytest.mark.parametrize(
    ("viejo", "nuevo", "error"),
    [
        ("sdk_version: 6.31.0", "sdk_version: 6.30.0", "no es la versión fijada de gradio"),
        ("app_file: app.py", "app_file: app.py\nsugested_hardware: cpu-basic", "no conoce: sugested_hardware"),
        ("suggested_hardware: cpu-basic", "suggested_hardware: h200", "no es un hardware de la referencia"),
        ("colorFrom: blue", "colorFrom: azul", "«azul» no es un color de Spaces"),
        ('python_version: "3.11"', "python_version: 3.10", "entre comillas"),
        ("app_file: app.py", "app_file: principal.py", "«principal.py» no está en la carpeta"),
        ("sdk: gradio", "sdk: docker", "sdk debe ser «gradio»"),
        ("emoji: 🔎", "emoji: lupa", "debe ser solo un emoji"),
        ("models:\n", "models:\n  - otra-org/otro-modelo\n", "«otra-org/otro-modelo» no está en el registro"),
        ("  - atencion-transformers/vit-digitos\n", "", "falta «atencion-transformers/vit-digitos»"),
        ("short_description: ", "short_description: " + "muy " * 20, "más de 60 caracteres"),
        (
            "app_file: app.py",
            "app_file: app.py\npreload_from_hub:\n  - atencion-transformers/vit-digitos",
            "«atencion-transformers/vit-digitos» no es un checkpoint publicado con revisión fijada",
        ),
        ("---\ntitle:", "title:", "debe empezar con el front matter"),
    ],
)
def test_un_front_matter_que_spaces_no_acepta_se_dice(carpeta, viejo, nuevo, error):
    _cambiar(carpeta, viejo, nuevo)
    errores = space.validar_front_matter(carpeta)
    assert any(error in e for e in errores), errores


def test_requirements_sin_version_exacta_se_dice(carpeta):
    _cambiar(carpeta, "torch==2.13.0", "torch>=2.13", archivo="requirements.txt")
    assert any("«torch>=2.13» no fija una versión exacta" in e for e in space.validar_front_matter(carpeta))


COMMIT = "0123456789abcdef0123456789abcdef01234567"


def test_un_checkpoint_con_revision_fijada_se_precarga_a_esa_revision(carpeta, monkeypatch):
    """Publicado y fijado: preload_from_hub lo baja al construir el Space, y `cargar()` lo halla en la caché."""
    monkeypatch.setenv("ATENCION_REVISION_VIT_DIGITOS", COMMIT)
    assert any(
        f"falta «atencion-transformers/vit-digitos config.json,model.safetensors {COMMIT}»" in e
        for e in space.validar_front_matter(carpeta)
    )
    precarga = (
        "app_file: app.py\npreload_from_hub:\n  - atencion-transformers/vit-digitos config.json,model.safetensors"
    )
    _cambiar(carpeta, "app_file: app.py", f"{precarga} {'f' * 40}")
    assert any("debe precargar la revisión fijada" in e for e in space.validar_front_matter(carpeta))
    _cambiar(carpeta, "f" * 40, COMMIT)
    assert space.validar_front_matter(carpeta) == []


# --- la subida, contra el Hub falso -----------------------------------------------------------------------------


def _subir(hub: HubFalso, carpeta: Path, repo: str, token: str | None = "hf_prueba") -> subprocess.CompletedProcess:
    entorno = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_TOKEN")}
    entorno |= {"HF_ENDPOINT": hub.url, "HF_HUB_DISABLE_PROGRESS_BARS": "1"} | ({"HF_TOKEN": token} if token else {})
    orden = [sys.executable, "-m", "scripts.space", "--repo", repo, "--sin-arrancar", "--carpeta", str(carpeta)]
    return subprocess.run(orden, cwd=RAIZ, env=entorno, capture_output=True, text=True, timeout=300)


def test_la_subida_crea_el_space_y_deja_exactamente_la_carpeta(tmp_path):
    with HubFalso() as hub:
        hecho = _subir(hub, tmp_path / "space", "org/nuevo")
        assert hecho.returncode == 0, hecho.stdout[-3000:] + hecho.stderr[-2000:]
        commit = re.search(r"Subido a spaces/org/nuevo @ ([0-9a-f]{40})", hecho.stdout)[1]
        subidos = hub.archivos("spaces/org/nuevo")
    local = {r: (tmp_path / "space" / r).read_bytes() for r in _archivos(tmp_path / "space")}
    assert {k: v for k, v in subidos.items() if k != ".gitattributes"} == local
    pedido = hub.creados["spaces/org/nuevo"]
    assert [pedido[k] for k in ("organization", "name", "type", "sdk")] == ["org", "nuevo", "space", "gradio"]
    assert hub.validados == ["space"]  # el Hub valida el front matter de README.md al subirlo
    assert set(hub.autorizaciones) == {"Bearer hf_prueba"}
    assert hub.mensajes[commit].startswith("Despliegue desde ")


def test_la_subida_borra_del_space_lo_que_ya_no_esta(tmp_path):
    with HubFalso() as hub:
        atributos = b"*.safetensors filter=lfs diff=lfs merge=lfs -text\n"
        viejos = {".gitattributes": atributos, "demos/_viejo.py": b"x = 1\n", "README.md": b"---\ntitle: viejo\n---\n"}
        hub.publicar("spaces/org/espacio", viejos)
        hecho = _subir(hub, tmp_path / "space", "org/espacio")
        assert hecho.returncode == 0, hecho.stdout[-3000:] + hecho.stderr[-2000:]
        subidos = hub.archivos("spaces/org/espacio")
    assert "demos/_viejo.py" not in subidos and subidos[".gitattributes"] == atributos
    assert subidos["README.md"] == (RAIZ / "README.md").read_bytes()
    assert "spaces/org/espacio" not in hub.creados  # ya existía: create_repo con exist_ok


def test_sin_token_no_se_sube_nada(tmp_path):
    with HubFalso() as hub:
        hecho = _subir(hub, tmp_path / "space", "org/nuevo", token=None)
        assert hecho.returncode == 1 and "hace falta HF_TOKEN" in hecho.stdout
        assert not [p for p in hub.pedidos if p[0] == "POST"] and not (tmp_path / "space").exists()
