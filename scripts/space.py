"""El Space tal como se despliega: la carpeta que recibe, su front matter, la app arrancada desde ella, la subida.

    python -m scripts.space --ensayo                  arma la carpeta, la valida, arranca la app desde ella como
                                                      un Space (GRADIO_SERVER_NAME=0.0.0.0) y llama un endpoint
    python -m scripts.space --ensayo --carpeta DIR    lo mismo, y deja la carpeta armada en DIR para mirarla
    HF_TOKEN=… python -m scripts.space --repo ORG/NOMBRE    todo lo anterior y, si pasa, la sube con
                                                      `huggingface_hub.upload_folder` (`--sin-arrancar` se salta la app)

La carpeta lleva solo lo que la app usa: app.py y los paquetes de la raíz (demos/, modelos/, servidor/…),
checkpoints/, README.md (con el front matter) y requirements.txt, de lo que git sigue o no ignora; nada de
pruebas, scripts, docs, .venv, capturas ni __pycache__. La subida borra del Space lo que ya no está en la
carpeta (salvo .gitattributes). El front matter se valida contra la referencia de configuración de Spaces
(huggingface.co/docs/hub/spaces-config-reference), requirements.txt y el registro de checkpoints. Sale con 0
si todo está bien y con 1 si no, diciendo qué.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ))

ARCHIVOS_RAIZ = ("README.md", "requirements.txt", "LICENSE", "SECURITY.md")  # y los .py de la raíz (app.py)
DATOS = ("checkpoints",)  # carpetas de datos que la app lee; las de código son los paquetes de la raíz
NO_VAN = ("tests", "scripts")  # paquetes o no, son del desarrollo
ENDPOINT = "temperatura"  # el que se llama en el ensayo: liviano, sin modelos
NOMBRE_SPACE = "atencion-y-transformers"

# De la referencia de configuración de Spaces: los campos que acepta y los valores de los que tienen lista.
CAMPOS = {
    "title", "emoji", "colorFrom", "colorTo", "sdk", "python_version", "sdk_version", "suggested_hardware",
    "suggested_storage", "app_file", "app_port", "base_path", "fullWidth", "header", "short_description",
    "models", "datasets", "tags", "thumbnail", "pinned", "hf_oauth", "hf_oauth_scopes",
    "hf_oauth_expiration_minutes", "hf_oauth_authorized_org", "hf_oauth_redirect_path", "disable_embedding",
    "startup_duration_timeout", "custom_headers", "preload_from_hub", "license",
}  # fmt: skip
COLORES = {"red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray"}
HARDWARE = {
    "cpu-basic", "cpu-upgrade", "t4-small", "t4-medium", "l4x1", "l4x4", "a10g-small", "a10g-large",
    "a10g-largex2", "a10g-largex4", "a100-large", "v5e-1x1", "v5e-2x2", "v5e-2x4",
}  # fmt: skip
ALMACENAMIENTO = {"small", "medium", "large"}
MAX_DESCRIPCION = 60


# --- la carpeta -------------------------------------------------------------------------------------------------


def carpetas_del_space(raiz: Path) -> set[str]:
    """Los paquetes de Python de la raíz (demos, modelos, servidor…) y las carpetas de datos (checkpoints)."""
    paquetes = {d.name for d in raiz.iterdir() if d.is_dir() and (d / "__init__.py").is_file()}
    return (paquetes - set(NO_VAN)) | {d for d in DATOS if (raiz / d).is_dir()}


def _va_al_space(ruta: str, carpetas: set[str]) -> bool:
    partes = ruta.split("/")
    if len(partes) == 1:
        return ruta in ARCHIVOS_RAIZ or (ruta.endswith(".py") and ruta != "conftest.py")
    ocultas = any(p.startswith(".") or p == "__pycache__" for p in partes)
    return partes[0] in carpetas and not ocultas and not ruta.endswith((".pyc", ".pyi"))


def archivos_del_space(raiz: Path = RAIZ) -> list[str]:
    """Rutas (relativas, con «/») de lo que recibe el Space: lo que git sigue o no ignora, filtrado.

    Los .py de la raíz y sus paquetes (lo que `python app.py` puede importar), checkpoints/, README.md y
    requirements.txt; nada de tests/, scripts/, docs/, .venv, capturas, __pycache__ ni archivos ocultos.
    """
    carpetas = carpetas_del_space(raiz)
    try:
        listado = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=raiz,
            capture_output=True,
            check=True,
        ).stdout.decode()
        candidatos = {c for c in listado.split("\0") if c}
    except (OSError, subprocess.CalledProcessError):  # sin git (p. ej. un tar del proyecto): el disco
        candidatos = {p.name for p in raiz.iterdir()}
        candidatos |= {p.relative_to(raiz).as_posix() for c in carpetas for p in (raiz / c).rglob("*")}
    return sorted(c for c in candidatos if _va_al_space(c, carpetas) and (raiz / c).is_file())


def armar(destino: Path, raiz: Path = RAIZ) -> list[str]:
    """Copia en `destino` (nueva o vacía) los archivos del Space; devuelve sus rutas."""
    if destino.exists() and any(destino.iterdir()):
        raise ValueError(f"{destino} no está vacía: elige una carpeta nueva (nada se borra por las dudas).")
    archivos = archivos_del_space(raiz)
    for ruta in archivos:
        (destino / ruta).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(raiz / ruta, destino / ruta)
    return archivos


def resumen(carpeta: Path, archivos: list[str]) -> str:
    grupos: dict[str, int] = {}
    for ruta in archivos:
        clave = ruta.split("/")[0] + ("/" if "/" in ruta else "")
        grupos[clave] = grupos.get(clave, 0) + 1
    total = sum((carpeta / r).stat().st_size for r in archivos)
    partes = [f"{g} ({n})" if g.endswith("/") else g for g, n in sorted(grupos.items())]
    return f"{len(archivos)} archivos, {total / 2**20:.1f} MB: {', '.join(partes)}"


# --- el front matter --------------------------------------------------------------------------------------------


def leer_front_matter(texto: str) -> dict:
    import yaml

    if not texto.startswith("---\n") or "\n---\n" not in texto[4:]:
        raise ValueError("README.md debe empezar con el front matter del Space, entre dos líneas «---».")
    datos = yaml.safe_load(texto[4 : texto.index("\n---\n", 4)])
    if not isinstance(datos, dict):
        raise ValueError("El front matter de README.md no es un diccionario de YAML.")
    return datos


def requisitos(ruta: Path) -> tuple[dict[str, str], list[str]]:
    """({paquete normalizado: versión}, errores) de un requirements.txt que debe fijar todo con «==»."""
    pares, errores = {}, []
    for linea in ruta.read_text(encoding="utf-8").splitlines():
        linea = linea.split("#")[0].strip()
        if not linea:
            continue
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+\-]+", linea):
            errores.append(f"requirements.txt: «{linea}» no fija una versión exacta (paquete==versión).")
            continue
        nombre, version = linea.split("==")
        pares[nombre.lower().replace("_", "-")] = version
    return pares, errores


def _preload(entradas, errores: list[str]) -> dict[str, tuple[list[str], str | None]]:
    """{repo: (archivos, commit)} de `preload_from_hub` («repo [a,b] [commit]» por entrada)."""
    if not isinstance(entradas, list) or not all(isinstance(e, str) for e in entradas):
        errores.append("preload_from_hub debe ser una lista de textos «repo [archivos] [commit]».")
        return {}
    resultado = {}
    for entrada in entradas:
        partes = entrada.split()
        commit = partes.pop() if len(partes) > 1 and re.fullmatch(r"[0-9a-f]{40}", partes[-1]) else None
        archivos = partes[1].split(",") if len(partes) > 1 else []
        resultado[partes[0]] = (archivos, commit)
    return resultado


def validar_front_matter(carpeta: Path) -> list[str]:
    """Errores (en español) del front matter de `carpeta`/README.md; [] si está bien."""
    from modelos.hub import REGISTRO

    try:
        fm = leer_front_matter((carpeta / "README.md").read_text(encoding="utf-8"))
        reqs, errores = requisitos(carpeta / "requirements.txt")
    except (OSError, ValueError) as e:
        return [str(e)]
    if desconocidos := sorted(set(fm) - CAMPOS):
        errores.append(f"Campos que la referencia de Spaces no conoce: {', '.join(desconocidos)}.")
    errores += [
        f"Falta «{c}» en el front matter." for c in ("title", "sdk", "sdk_version", "app_file") if not fm.get(c)
    ]
    if fm.get("sdk") != "gradio":
        errores.append(f"sdk debe ser «gradio» (la app es de Gradio); dice «{fm.get('sdk')}».")
    if fm.get("sdk_version") is not None and str(fm["sdk_version"]) != reqs.get("gradio"):
        errores.append(f"sdk_version {fm['sdk_version']} no es la versión fijada de gradio ({reqs.get('gradio')}).")
    errores += [
        f"{c} «{fm[c]}» no es un color de Spaces." for c in ("colorFrom", "colorTo") if fm.get(c, "red") not in COLORES
    ]
    if "emoji" in fm and (not isinstance(fm["emoji"], str) or re.search(r"[\x00-\x7f]", fm["emoji"])):
        errores.append(f"emoji «{fm['emoji']}» debe ser solo un emoji.")
    if "python_version" in fm and not re.fullmatch(r"3\.\d+(\.\d+)?", str(fm["python_version"])):
        errores.append(f"python_version «{fm['python_version']}» no es 3.x ni 3.x.x (ponlo entre comillas).")
    if not isinstance(fm.get("python_version", ""), str):
        errores.append("python_version debe ir entre comillas: YAML lee 3.10 como el número 3.1.")
    if "suggested_hardware" in fm and fm["suggested_hardware"] not in HARDWARE:
        errores.append(f"suggested_hardware «{fm['suggested_hardware']}» no es un hardware de la referencia.")
    if "suggested_storage" in fm and fm["suggested_storage"] not in ALMACENAMIENTO:
        errores.append(f"suggested_storage «{fm['suggested_storage']}» no es small, medium ni large.")
    if len(str(fm.get("short_description", ""))) > MAX_DESCRIPCION:
        errores.append(f"short_description tiene más de {MAX_DESCRIPCION} caracteres.")
    if fm.get("app_file") and not (carpeta / str(fm["app_file"])).is_file():
        errores.append(f"app_file «{fm['app_file']}» no está en la carpeta.")
    repos = {c.repo: c for c in REGISTRO.values()}
    modelos = fm.get("models") or []
    errores += [f"models: «{m}» no está en el registro de modelos/hub.py." for m in modelos if m not in repos]
    errores += [f"models: falta «{r}», que la app carga." for r in repos if r not in modelos]
    precargas = _preload(fm.get("preload_from_hub", []), errores)
    for repo, (archivos, commit) in precargas.items():
        ck = repos.get(repo)
        if ck is None or ck.revision_fijada() is None:
            errores.append(f"preload_from_hub: «{repo}» no es un checkpoint publicado con revisión fijada.")
        elif commit != ck.revision_fijada():
            errores.append(f"preload_from_hub: «{repo}» debe precargar la revisión fijada {ck.revision_fijada()}.")
        elif archivos and not {"config.json", "model.safetensors"} <= set(archivos):
            errores.append(f"preload_from_hub: «{repo}» debe incluir config.json y model.safetensors.")
    for repo, ck in repos.items():
        if ck.revision_fijada() is not None and repo not in precargas:
            errores.append(
                f"preload_from_hub: falta «{repo} config.json,model.safetensors {ck.revision_fijada()}» "
                "(publicado y fijado: que el Space lo baje al construirse, no al arrancar)."
            )
    errores += [f"requirements.txt no fija {p}." for p in ("gradio", "torch", "spaces") if p not in reqs]
    return errores


def validar_carpeta(carpeta: Path) -> list[str]:
    """El front matter y que no haya nada que el Space no deba recibir."""
    carpetas = carpetas_del_space(carpeta)
    sobran = [r for r in _archivos_en(carpeta) if not _va_al_space(r, carpetas) or r.split("/")[0] in NO_VAN]
    return validar_front_matter(carpeta) + [f"Sobra en la carpeta: {r}" for r in sobran[:20]]


def versiones_distintas(carpeta: Path) -> list[str]:
    """Paquetes fijados cuya versión instalada aquí es otra: el ensayo no probaría lo que el Space instala."""
    reqs, _ = requisitos(carpeta / "requirements.txt")
    distintas = []
    for nombre, version in reqs.items():
        try:
            instalada = importlib.metadata.version(nombre)
        except importlib.metadata.PackageNotFoundError:
            instalada = "ninguna"
        if instalada.split("+")[0] != version:
            distintas.append(
                f"{nombre}: el Space instala {version}; aquí hay {instalada} (`pip install -r requirements.txt`)."
            )
    return distintas


# --- la app, arrancada desde la carpeta -------------------------------------------------------------------------


def _puerto_libre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def arrancar_y_llamar(carpeta: Path, plazo: float = 240.0) -> str:
    """Arranca `python app.py` en `carpeta` como un Space y llama al endpoint ENDPOINT; devuelve qué contestó.

    Solo con lo de la carpeta (sin PYTHONPATH, sin escribir __pycache__ en ella) y sin red al Hub.
    Espera además a que los checkpoints carguen desde `carpeta/checkpoints`. RuntimeError si algo falla.
    """
    from gradio_client import Client

    puerto = _puerto_libre()
    entorno = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ATENCION_CHECKPOINTS")}
    entorno |= {"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": str(puerto), "HF_HUB_OFFLINE": "1"}
    entorno |= {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        app = subprocess.Popen(
            [sys.executable, "app.py"],
            cwd=carpeta,
            env=entorno,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

        def leido() -> str:
            log.seek(0)
            return log.read()

        try:
            url, limite = f"http://127.0.0.1:{puerto}/", time.monotonic() + plazo
            while True:
                if app.poll() is not None:
                    raise RuntimeError(f"La app salió con {app.returncode} al arrancar:\n{leido()[-3000:]}")
                if time.monotonic() > limite:
                    raise RuntimeError(f"La app no contestó en {plazo:.0f} s:\n{leido()[-3000:]}")
                try:
                    with urllib.request.urlopen(url, timeout=5) as r:
                        if r.status == 200:
                            break
                except OSError:
                    time.sleep(0.5)
            salida = Client(url, verbose=False).predict(api_name=f"/{ENDPOINT}")
            while "Checkpoints listos" not in leido() and "NO disponible" not in leido():
                if time.monotonic() > limite:
                    raise RuntimeError(f"Los checkpoints no terminaron de cargar en {plazo:.0f} s:\n{leido()[-3000:]}")
                time.sleep(0.5)
            texto = leido()
            desde = f"copia incluida {carpeta.resolve() / 'checkpoints'}"
            if "NO disponible" in texto or desde not in texto:
                raise RuntimeError(f"Los checkpoints no cargaron desde {carpeta}/checkpoints:\n{texto[-3000:]}")
        finally:
            _terminar(app)
    partes = len(salida) if isinstance(salida, tuple | list) else 1
    return f"{url} contestó /{ENDPOINT} ({partes} salidas) y cargó los checkpoints desde la carpeta"


def quitar_lo_nuevo(carpeta: Path, archivos: list[str]) -> list[str]:
    """Borra de `carpeta` lo que no estaba en `archivos` (Gradio escribe stubs .pyi junto a los módulos que
    definen componentes, al importarlos); devuelve qué borró."""
    nuevos = sorted(set(_archivos_en(carpeta)) - set(archivos))
    for ruta in nuevos:
        (carpeta / ruta).unlink()
    for d in sorted((d for d in carpeta.rglob("*") if d.is_dir()), key=lambda d: len(d.parts), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()
    return nuevos


def _archivos_en(carpeta: Path) -> list[str]:
    return [p.relative_to(carpeta).as_posix() for p in carpeta.rglob("*") if p.is_file()]


def _terminar(app: subprocess.Popen) -> None:
    """SIGTERM al grupo de la app (uvicorn y sus hilos); SIGKILL si no sale en 15 s."""
    for senal, espera in ((signal.SIGTERM, 15), (signal.SIGKILL, None)):
        try:
            os.killpg(app.pid, senal)
        except ProcessLookupError:  # ya había salido
            break
        try:
            app.wait(timeout=espera)
            break
        except subprocess.TimeoutExpired:
            continue
    app.wait()


# --- la subida --------------------------------------------------------------------------------------------------


def subir(carpeta: Path, repo: str, token: str) -> str:
    """Crea el Space si falta y sube `carpeta` entera (lo que ya no esté, se borra); devuelve el commit."""
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo, repo_type="space", space_sdk="gradio", exist_ok=True)
    version = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=RAIZ, capture_output=True, text=True)
    desde = version.stdout.strip() or "una copia sin git"
    info = api.upload_folder(
        repo_id=repo,
        repo_type="space",
        folder_path=carpeta,
        delete_patterns="*",  # un espejo: lo borrado en el proyecto se borra del Space (menos .gitattributes)
        commit_message=f"Despliegue desde {desde}",
    )
    return info.oid


def main(argv: list[str] | None = None) -> int:
    from modelos.hub import ORG_POR_OMISION, VARIABLE_ORG

    org = os.environ.get(VARIABLE_ORG, "").strip() or ORG_POR_OMISION
    lector = argparse.ArgumentParser(prog="python -m scripts.space", description=__doc__.splitlines()[0])
    lector.add_argument("--ensayo", action="store_true", help="arma, valida y arranca, sin subir nada")
    lector.add_argument("--carpeta", type=Path, help="dónde armar el Space (nueva o vacía); por omisión, una temporal")
    lector.add_argument("--repo", default=f"{org}/{NOMBRE_SPACE}", help="el Space (por omisión %(default)s)")
    lector.add_argument("--sin-arrancar", action="store_true", help="no arranca la app antes de subir")
    args = lector.parse_args(argv)
    token = os.environ.get("HF_TOKEN", "").strip()
    if not args.ensayo and not token:
        print("Para subir hace falta HF_TOKEN (un token con permiso de escritura); para probar: --ensayo.")
        return 1
    temporal = None if args.carpeta else tempfile.TemporaryDirectory(prefix="space-")
    carpeta = args.carpeta or Path(temporal.name)
    try:
        archivos = armar(carpeta)
        print(f"Carpeta {carpeta}: {resumen(carpeta, archivos)}")
        errores = validar_carpeta(carpeta) + versiones_distintas(carpeta)
        if errores:
            print("El Space no pasa:\n" + "\n".join(f"  - {e}" for e in errores))
            return 1
        print("Front matter y requirements.txt: bien.")
        if not args.sin_arrancar:
            print(arrancar_y_llamar(carpeta))
            if escritos := quitar_lo_nuevo(carpeta, archivos):
                print(f"La app escribió {', '.join(escritos)}; se quitó de lo que se sube.")
        if args.ensayo:
            print("Ensayo bien: no se subió nada.")
            return 0
        try:
            commit = subir(carpeta, args.repo, token)
        except Exception as e:  # red, permisos, token: el mensaje del Hub dice cuál
            print(f"Falló la subida a spaces/{args.repo} ({type(e).__name__}): {e}")
            return 1
        print(f"Subido a spaces/{args.repo} @ {commit}")
        return 0
    except (ValueError, RuntimeError) as e:
        print(f"El Space no pasa: {e}")
        return 1
    finally:
        if temporal is not None:
            temporal.cleanup()


if __name__ == "__main__":
    sys.exit(main())
