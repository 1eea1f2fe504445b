"""El front matter del Space concuerda con requirements.txt y con el registro de checkpoints."""

from pathlib import Path

import yaml

from modelos.hub import REGISTRO

RAIZ = Path(__file__).resolve().parent.parent


def front_matter() -> dict:
    texto = (RAIZ / "README.md").read_text(encoding="utf-8")
    assert texto.startswith("---\n"), "README.md debe empezar con el front matter del Space"
    return yaml.safe_load(texto.split("---\n")[1])


def requisitos() -> dict[str, str]:
    pares = {}
    for linea in (RAIZ / "requirements.txt").read_text().splitlines():
        linea = linea.split("#")[0].strip()
        if linea:
            nombre, version = linea.split("==")
            pares[nombre.lower().replace("_", "-")] = version
    return pares


def test_front_matter_del_space_esta_completo():
    fm = front_matter()
    for clave in ("title", "emoji", "sdk", "sdk_version", "python_version", "app_file", "short_description", "license"):
        assert fm.get(clave), f"falta {clave}"
    assert fm["sdk"] == "gradio" and fm["app_file"] == "app.py" and fm["python_version"] == "3.11"
    assert (RAIZ / fm["app_file"]).is_file()
    assert len(fm["short_description"]) <= 60  # el límite de los Spaces


def test_version_de_gradio_igual_a_requirements():
    assert front_matter()["sdk_version"] == requisitos()["gradio"]


def test_requirements_fija_todo_con_version_exacta():
    reqs = requisitos()
    assert reqs["torch"] == "2.13.0"
    for paquete in ("gradio", "matplotlib", "scikit-learn", "huggingface-hub", "safetensors"):
        assert paquete in reqs


def test_models_del_space_son_los_del_registro():
    assert sorted(front_matter()["models"]) == sorted(c.repo for c in REGISTRO.values())


def test_hardware_sugerido_cpu_basic_basta_para_la_clase():
    # ZeroGPU no es un valor de suggested_hardware en la referencia de Spaces; se elige en los ajustes del Space
    assert front_matter()["suggested_hardware"] == "cpu-basic"


def test_spaces_fijado_para_zerogpu():
    assert requisitos()["spaces"] == "0.51.3"


def test_preload_solo_para_checkpoints_publicados_con_revision():
    fijados = {c.repo for c in REGISTRO.values() if c.revision_fijada() is not None}
    precargados = {e.split()[0] for e in front_matter().get("preload_from_hub", [])}
    assert precargados == fijados  # hoy ninguno está publicado: ni una línea de preload_from_hub


def test_el_front_matter_pasa_la_validacion_del_ensayo():
    from scripts import space

    assert space.validar_front_matter(RAIZ) == []
