"""Publica en el Hub las copias incluidas en `checkpoints/NOMBRE/` e imprime las revisiones a fijar.

    python -m modelos.entrenamiento.publicar                          # todos, en ATENCION_HUB_ORG
    python -m modelos.entrenamiento.publicar --org mi-org vit-digitos
    python -m modelos.entrenamiento.publicar --ensayo                 # valida y lista, sin subir nada

Necesita red y un token con permiso de escritura (`HF_TOKEN` o `hf auth login`); no se
corre en CI. Antes de subir, cada carpeta pasa la misma validación que `cargar` (config.json
y model.safetensors con claves estrictas). Solo se suben safetensors, JSON y la ficha
README.md (nada de pickles). Al final imprime, por checkpoint, el commit que hay que
fijar: en el REGISTRO de `modelos/hub.py`, o con `ATENCION_REVISION_<NOMBRE>=<commit>`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import hub

PATRONES = ["*.safetensors", "*.json", "*.md"]


def archivos_a_subir(carpeta: Path) -> list[Path]:
    """Los archivos de `carpeta` que se suben (los de PATRONES, en la raíz), en orden."""
    return sorted(p for p in carpeta.iterdir() if p.is_file() and any(p.match(patron) for patron in PATRONES))


def publicar(nombres: list[str], org: str, *, privado: bool = False, ensayo: bool = False, api=None) -> dict[str, str]:
    """Valida y sube cada checkpoint; devuelve {nombre: commit} (vacío en un ensayo)."""
    carpetas = {nombre: hub.carpeta_incluida() / nombre for nombre in nombres}
    for nombre, carpeta in carpetas.items():  # todo validado antes de subir nada
        hub.desde_carpeta(nombre, carpeta)
        print(f"{nombre}: {carpeta} válido ({', '.join(p.name for p in archivos_a_subir(carpeta))})")
    if ensayo:
        return {}
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    commits = {}
    for nombre, carpeta in carpetas.items():
        repo = f"{org}/{nombre}"
        api.create_repo(repo, repo_type="model", private=privado, exist_ok=True)
        info = api.upload_folder(
            repo_id=repo,
            folder_path=carpeta,
            allow_patterns=PATRONES,
            commit_message=f"Checkpoint {nombre} desde checkpoints/{nombre}",
        )
        commits[nombre] = info.oid
        print(f"{nombre}: subido a {repo}@{info.oid}")
    return commits


def main(argv: list[str] | None = None) -> int:
    lector = argparse.ArgumentParser(
        prog="python -m modelos.entrenamiento.publicar", description=__doc__.splitlines()[0]
    )
    lector.add_argument("nombres", nargs="*", metavar="NOMBRE", help=f"por omisión, todos: {', '.join(hub.REGISTRO)}")
    org_omision = os.environ.get(hub.VARIABLE_ORG, "").strip() or hub.ORG_POR_OMISION
    lector.add_argument(
        "--org", default=org_omision, help=f"organización o usuario del Hub (por omisión {org_omision})"
    )
    lector.add_argument("--privado", action="store_true", help="crea los repos privados")
    lector.add_argument("--ensayo", action="store_true", help="valida y lista los archivos, sin subir nada")
    args = lector.parse_args(argv)
    desconocidos = [n for n in args.nombres if n not in hub.REGISTRO]
    if desconocidos:
        lector.error(f"checkpoint desconocido: {', '.join(desconocidos)}; los hay: {', '.join(hub.REGISTRO)}")
    try:
        commits = publicar(args.nombres or list(hub.REGISTRO), args.org, privado=args.privado, ensayo=args.ensayo)
    except hub.ErrorCheckpoint as e:
        print(f"No se publicó nada: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # red, permisos, token: lo ya subido quedó impreso arriba
        print(f"Falló la publicación ({type(e).__name__}): {e}", file=sys.stderr)
        return 1
    if commits:
        print("\nRevisiones a fijar (en el REGISTRO de modelos/hub.py, o en el entorno):")
        print(f"{hub.VARIABLE_ORG}={args.org}")
        for nombre, commit in commits.items():
            print(f"{hub.REGISTRO[nombre].variable_revision}={commit}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
