"""Dispositivo y carga de los checkpoints: del Hub a una revisión fijada, o la copia incluida.

Orden, para cada modelo (`cargar`) y cada archivo extra (`cargar_archivo`):

1. La revisión fijada en el Hub, si la hay: primero la caché de huggingface_hub
   (con un commit fijado no toca la red); si no está, un HEAD con plazo corto
   (`PLAZO_SONDEO_S`) y, si responde con el commit fijado, la descarga. Nunca se
   esperan los reintentos del cliente (sin red, una descarga reintenta ~23 s).
2. Si no, la copia incluida en `checkpoints/NOMBRE/`.

Cada carga deja UNA línea de log con la fuente y el porqué. Solo safetensors, con
claves estrictas; nada se deserializa con pickle. Si la copia incluida falta o no
sirve, el error nombra el archivo y el arreglo.

Variables de entorno:
  ATENCION_HUB_ORG            organización del Hub (por omisión «atencion-transformers»).
  ATENCION_REVISION_<NOMBRE>  commit (40 hex) que fija la revisión en lugar de la del REGISTRO;
                              NOMBRE en mayúsculas y con «_», p. ej. ATENCION_REVISION_VIT_DIGITOS.
                              `python -m modelos.entrenamiento.publicar` imprime estas líneas.
  ATENCION_CHECKPOINTS        carpeta de las copias incluidas (por omisión `checkpoints/`).
  ATENCION_DISPOSITIVO        cpu | cuda | mps: fuerza el dispositivo.
  SPACES_ZERO_GPU=true        (la fija un Space con ZeroGPU) el cálculo va a la CPU salvo dentro de
                              `gpu_prestada()`, que marca las funciones decoradas con `spaces.GPU`.
  HF_HUB_OFFLINE=1            sin red: solo la caché de huggingface_hub y la copia incluida.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import torch
from huggingface_hub import constants, get_hf_file_metadata, hf_hub_download, hf_hub_url, try_to_load_from_cache
from huggingface_hub.errors import (
    HfHubHTTPError,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from torch import nn

from ._archivos import ErrorCheckpoint, construir_validado, una_linea, validar_extra
from .clasificador import ClasificadorAtencion
from .decodificador import DecodificadorJuguete
from .transformer import TransformerJuguete
from .visual import RedCBAM
from .vit import ViTDiminuto

log = logging.getLogger(__name__)

CARPETA = Path(__file__).resolve().parent.parent / "checkpoints"
VARIABLE_DISPOSITIVO = "ATENCION_DISPOSITIVO"
VARIABLE_ZEROGPU = "SPACES_ZERO_GPU"
VARIABLE_ORG = "ATENCION_HUB_ORG"
VARIABLE_CHECKPOINTS = "ATENCION_CHECKPOINTS"
VARIABLE_REVISION = "ATENCION_REVISION_"  # + NOMBRE en mayúsculas con «_»
ORG_POR_OMISION = "atencion-transformers"
ARCHIVOS_MODELO = ("config.json", "model.safetensors")
PLAZO_SONDEO_S = 1.0  # primera respuesta del Hub; sin ella, la copia incluida
PLAZO_DESCARGA_S = 10.0  # la descarga entera, ya con el Hub respondiendo
_COMMIT = re.compile(r"[0-9a-f]{40}")


def en_zerogpu() -> bool:
    """¿Corre en un Space con ZeroGPU? (Spaces fija `SPACES_ZERO_GPU=true`, como lo lee el paquete `spaces`.)"""
    return os.environ.get(VARIABLE_ZEROGPU, "").strip().lower() in ("1", "t", "true")


_en_gpu_prestada: ContextVar[bool] = ContextVar("en_gpu_prestada", default=False)


@contextmanager
def gpu_prestada() -> Iterator[None]:
    """Marca el bloque como parte de una función decorada con `spaces.GPU` (ver `demos/comun/zerogpu.py`).

    En ZeroGPU solo ahí hay una GPU de verdad: fuera, `torch.cuda.is_available()` es una emulación
    y el cálculo en «cuda» falla. Fuera de ZeroGPU no cambia nada.
    """
    marca = _en_gpu_prestada.set(True)
    try:
        yield
    finally:
        _en_gpu_prestada.reset(marca)


def dispositivo() -> torch.device:
    """CUDA si hay, luego MPS, luego CPU. `ATENCION_DISPOSITIVO=cpu|cuda|mps` fuerza uno.

    En ZeroGPU, la CPU fuera de `gpu_prestada()`: las inferencias chicas de las pestañas tardan
    milisegundos en la CPU y no gastan la cuota de GPU del visitante.
    """
    forzado = os.environ.get(VARIABLE_DISPOSITIVO, "").strip().lower()
    hay_mps = getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
    if forzado:
        if forzado not in ("cpu", "cuda", "mps"):
            raise ValueError(f"{VARIABLE_DISPOSITIVO}={forzado!r} no es válido: usa cpu, cuda o mps.")
        if forzado == "cuda" and en_zerogpu() and not _en_gpu_prestada.get():
            return torch.device("cpu")  # en ZeroGPU, «cuda» solo existe dentro de una función decorada
        if forzado == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"{VARIABLE_DISPOSITIVO}=cuda, pero PyTorch no ve ninguna GPU CUDA: usa cpu.")
        if forzado == "mps" and not hay_mps:
            raise ValueError(f"{VARIABLE_DISPOSITIVO}=mps, pero MPS no está disponible aquí: usa cpu.")
        return torch.device(forzado)
    if en_zerogpu() and not _en_gpu_prestada.get():
        return torch.device("cpu")
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("mps" if hay_mps else "cpu")


def dispositivo_pesado() -> torch.device:
    """Dónde corre el trabajo pesado (entrenar, medir): el de `dispositivo()`, salvo en ZeroGPU, donde
    las funciones decoradas con `spaces.GPU` reciben una GPU CUDA (aquí se ve emulada)."""
    with gpu_prestada():
        return dispositivo()


@dataclass(frozen=True)
class Checkpoint:
    nombre: str
    clase: str  # nombre de la clase, una de `CLASES`
    revision: str | None  # commit del Hub fijado; None si aún no se publicó

    @property
    def repo(self) -> str:
        return f"{os.environ.get(VARIABLE_ORG, '').strip() or ORG_POR_OMISION}/{self.nombre}"

    @property
    def variable_revision(self) -> str:
        return VARIABLE_REVISION + self.nombre.upper().replace("-", "_")

    def revision_fijada(self) -> str | None:
        """La de `ATENCION_REVISION_<NOMBRE>` si está puesta; si no, la del registro."""
        return os.environ.get(self.variable_revision, "").strip() or self.revision


REGISTRO: dict[str, Checkpoint] = {
    c.nombre: c
    for c in (
        Checkpoint("inversion-digitos", "TransformerJuguete", None),
        Checkpoint("inversion-digitos-sin-posicion", "TransformerJuguete", None),
        Checkpoint("vit-digitos", "ViTDiminuto", None),
        Checkpoint("cbam-digitos", "RedCBAM", None),
        Checkpoint("clasificador-opiniones", "ClasificadorAtencion", None),
        Checkpoint("decodificador-inversion", "DecodificadorJuguete", None),
    )
}

_cerrojo_cerrojos = threading.Lock()
_cerrojos: dict[object, threading.Lock] = {}  # uno por modelo y uno por archivo extra
_cargados: dict[str, nn.Module] = {}
_archivos: dict[tuple[str, str], Path] = {}
_hub_caido: str | None = None  # si la red falló una vez, no se vuelve a esperar al Hub


class _SinHub(Exception):
    """Razón para no usar el Hub, para la línea de log, con el nivel de esa línea."""

    def __init__(self, razon: str, nivel: int = logging.WARNING):
        super().__init__(razon)
        self.nivel = nivel


def carpeta_incluida() -> Path:
    """Carpeta de las copias incluidas: `ATENCION_CHECKPOINTS`, o `checkpoints/` del proyecto."""
    return Path(os.environ.get(VARIABLE_CHECKPOINTS, "").strip() or CARPETA)


def cargar(nombre: str) -> nn.Module:
    """El modelo `nombre`, en modo eval y en `dispositivo()`, cargado una vez por proceso.

    Compartido entre hilos: no lo mutes; úsalo bajo `torch.inference_mode()`.
    """
    ck = _checkpoint(nombre)
    with _cerrojo_de(nombre):
        if nombre not in _cargados:
            clase = _clase(ck.clase)

            def construir(rutas: dict[str, Path], arreglo: str) -> nn.Module:
                return construir_validado(clase, rutas["config.json"], rutas["model.safetensors"], arreglo)

            modelo = _con_respaldo(ck, ARCHIVOS_MODELO, construir, f"Checkpoint {nombre}")
            _cargados[nombre] = modelo.eval().to(dispositivo())
        return _cargados[nombre]


def cargar_archivo(nombre: str, archivo: str) -> Path:
    """Ruta local de un archivo extra del checkpoint `nombre` (p. ej. «instantaneas.safetensors»).

    Mismo orden que `cargar`. Los .json y .safetensors se validan antes de darlos por buenos.
    """
    ck = _checkpoint(nombre)
    if not archivo or "\\" in archivo or archivo.startswith("/") or ".." in PurePosixPath(archivo).parts:
        raise ValueError(
            f"Nombre de archivo no válido: {archivo[:80]!r}; se espera uno relativo, como «instantaneas.json»."
        )
    with _cerrojo_de((nombre, archivo)):
        if (nombre, archivo) not in _archivos:

            def validar(rutas: dict[str, Path], arreglo: str) -> Path:
                validar_extra(rutas[archivo], arreglo)
                return rutas[archivo]

            _archivos[nombre, archivo] = _con_respaldo(ck, (archivo,), validar, f"Archivo {archivo} de {nombre}")
        return _archivos[nombre, archivo]


def desde_carpeta(nombre: str, carpeta: str | Path) -> nn.Module:
    """Valida y arma (en la CPU, sin caché) el modelo `nombre` desde una carpeta con config.json y model.safetensors."""
    carpeta, clase = Path(carpeta), _clase(_checkpoint(nombre).clase)
    return construir_validado(clase, carpeta / "config.json", carpeta / "model.safetensors", _arreglo_incluida(nombre))


def _checkpoint(nombre: str) -> Checkpoint:
    if nombre not in REGISTRO:
        raise ValueError(f"Checkpoint desconocido «{str(nombre)[:80]}»; los hay: {', '.join(REGISTRO)}.")
    return REGISTRO[nombre]


def _cerrojo_de(clave: object) -> threading.Lock:
    with _cerrojo_cerrojos:
        return _cerrojos.setdefault(clave, threading.Lock())


# Las clases que puede nombrar un `Checkpoint` del registro.
CLASES: dict[str, type[nn.Module]] = {
    c.__name__: c for c in (TransformerJuguete, ViTDiminuto, RedCBAM, ClasificadorAtencion, DecodificadorJuguete)
}


def _clase(nombre_clase: str) -> type[nn.Module]:
    return CLASES[nombre_clase]


def _arreglo_incluida(nombre: str) -> str:
    return f"regenera con `python -m modelos.entrenamiento {nombre}`"


def _con_respaldo(ck: Checkpoint, archivos: tuple[str, ...], usar, que: str):
    """`usar(rutas, arreglo)` con los archivos de la revisión fijada del Hub; si no, con los de la
    copia incluida. Deja una línea de log con la fuente y el porqué."""
    try:
        rutas, como = _del_hub(ck, archivos)
        arreglo = f"publica de nuevo con `python -m modelos.entrenamiento.publicar {ck.nombre}` y fija el commit"
        resultado = usar(rutas, arreglo)
        log.info("%s: Hub %s@%s (revisión fijada, %s).", que, ck.repo, ck.revision_fijada(), como)
        return resultado
    except _SinHub as e:
        razon, nivel = str(e), e.nivel
    except ErrorCheckpoint as e:
        razon, nivel = f"la copia del Hub no sirve: {una_linea(e, 800).rstrip('.')}", logging.WARNING
    carpeta = carpeta_incluida() / ck.nombre
    try:
        resultado = usar({a: carpeta / a for a in archivos}, _arreglo_incluida(ck.nombre))
    except ErrorCheckpoint as e:
        raise type(e)(f"{e} (Tampoco se usó el Hub: {razon}.)") from None
    log.log(nivel, "%s: copia incluida %s (%s).", que, carpeta, razon)
    return resultado


# --- El Hub ---------------------------------------------------------------------------------


def _del_hub(ck: Checkpoint, archivos: tuple[str, ...]) -> tuple[dict[str, Path], str]:
    """Rutas locales de `archivos` en la revisión fijada y de dónde salieron; si no se puede, `_SinHub`."""
    global _hub_caido
    rev = ck.revision_fijada()
    if rev is None:
        raise _SinHub(
            "no hay revisión fijada en el Hub: publica con `python -m modelos.entrenamiento.publicar` y fíjala en "
            f"el REGISTRO o en {ck.variable_revision}",
            logging.INFO,
        )
    if not _COMMIT.fullmatch(rev):
        raise _SinHub(f"la revisión fijada «{rev[:60]}» no es un commit de 40 hex (revisa {ck.variable_revision})")
    # 1) la caché, solo mirando el disco (hf_hub_download, aun con local_files_only, arma cabeceras
    # que la primera vez consultan el Hub hasta 3 s para detectar agentes)
    try:
        en_cache = [try_to_load_from_cache(ck.repo, a, revision=rev) for a in archivos]
    except Exception:  # una caché ilegible es una caché vacía
        en_cache = [None]
    if all(isinstance(ruta, str) for ruta in en_cache):
        return {a: Path(ruta) for a, ruta in zip(archivos, en_cache, strict=True)}, "de la caché de huggingface_hub"
    if constants.is_offline_mode():
        raise _SinHub(f"HF_HUB_OFFLINE=1 y {ck.repo}@{rev[:7]} no está en la caché de huggingface_hub")
    if _hub_caido is not None:
        raise _SinHub(_hub_caido)
    # 2) la red: un HEAD sin reintentos y con plazo corto decide si se descarga
    try:
        _con_plazo(lambda: _sondear(ck.repo, rev, archivos[0]), PLAZO_SONDEO_S)
    except _SinHub:
        raise
    except Exception as e:  # red caída, plazo vencido, algo que no habla como el Hub
        _hub_caido = f"el Hub no responde ({type(e).__name__}: {una_linea(e, 120)})"
        raise _SinHub(_hub_caido) from None

    def descargar() -> dict[str, Path]:
        rutas = {}
        for archivo in archivos:
            try:
                rutas[archivo] = Path(hf_hub_download(ck.repo, archivo, revision=rev, etag_timeout=PLAZO_SONDEO_S))
            except HfHubHTTPError as e:
                raise _SinHub(_razon_http(e, ck.repo, rev, archivo)) from None
        return rutas

    try:
        rutas = _con_plazo(descargar, PLAZO_DESCARGA_S)
    except _SinHub:
        raise
    except Exception as e:
        raise _SinHub(f"falló la descarga de {ck.repo}@{rev[:7]} ({type(e).__name__}: {una_linea(e, 160)})") from None
    for archivo, ruta in rutas.items():  # la caché guarda cada archivo bajo snapshots/<commit servido>/
        if rev not in ruta.parts:
            raise _SinHub(f"el Hub sirvió {archivo} de otro commit que el fijado {rev}")
    return rutas, "descargada ahora"


def _sondear(repo: str, rev: str, archivo: str) -> None:
    """HEAD de un archivo, sin reintentos: ¿responde el Hub, y con el commit fijado?"""
    try:
        meta = get_hf_file_metadata(hf_hub_url(repo, archivo, revision=rev), timeout=PLAZO_SONDEO_S)
    except HfHubHTTPError as e:  # el Hub respondió: el problema es de este repo
        raise _SinHub(_razon_http(e, repo, rev, archivo)) from None
    if meta.commit_hash != rev:
        raise _SinHub(f"el Hub sirvió el commit {meta.commit_hash} en lugar del fijado {rev}")


def _razon_http(error: HfHubHTTPError, repo: str, rev: str, archivo: str) -> str:
    if isinstance(error, RepositoryNotFoundError):
        return f"el repo {repo} no existe en el Hub (o es privado)"
    if isinstance(error, RevisionNotFoundError):
        return f"la revisión fijada {rev} no existe en {repo}"
    if isinstance(error, RemoteEntryNotFoundError):
        return f"{repo}@{rev[:7]} no tiene {archivo}"
    estado = error.response.status_code if error.response is not None else "?"
    return f"el Hub respondió {estado} a {archivo} de {repo}@{rev[:7]} ({una_linea(error, 160)})"


def _con_plazo(fn, plazo: float):
    """`fn()` en un hilo aparte; si no termina en `plazo` s, TimeoutError (el hilo sigue por su cuenta)."""
    resultado: dict[str, object] = {}

    def trabajo() -> None:
        try:
            resultado["valor"] = fn()
        except BaseException as e:
            resultado["error"] = e

    hilo = threading.Thread(target=trabajo, name="hub-con-plazo", daemon=True)
    hilo.start()
    hilo.join(plazo)
    if hilo.is_alive():
        raise TimeoutError(f"sin respuesta en {plazo:g} s")
    if "error" in resultado:
        raise resultado["error"]
    return resultado["valor"]
