"""Todo lo que la app escribe vive bajo una carpeta propia, y esa carpeta no crece sin tope.

La raíz es `ATENCION_CARPETA` (por omisión `<tmp>/atencion-transformers`). Cada proceso escribe
en `proceso-<pid>/`: las subidas y la caché de Gradio (`GRADIO_TEMP_DIR`), las figuras y las
descargas (todo lo que pasa por `tempfile`). Al arrancar se borran las carpetas de procesos que
ya no existen (un `kill -9` a mitad de clase no deja basura para siempre); al salir, la propia.
Mientras corre, un barrendero quita cada 10 minutos las carpetas vacías (Gradio borra sus
archivos con `delete_cache`, y las figuras y descargas expiran solas, pero todos dejan la carpeta).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

log = logging.getLogger(__name__)

PREFIJO = "proceso-"
CADA_S = 600  # cada cuánto pasa el barrendero (como `delete_cache` de la suite)
EDAD_CARPETA_VACIA_S = 300  # una carpeta recién creada puede estar por recibir su archivo
MAX_SUBIDAS = 256 * 2**20  # la carpeta de subidas, en total: más allá, /upload contesta 429
VIDA_SIN_USO_S = 300  # una subida que ningún evento usó se borra a los 5 minutos
CADA_SUBIDAS_S = 30  # cada cuánto se barren las subidas sin uso

_estado: dict[str, object] = {}
_cerrojo = threading.Lock()


def raiz() -> Path:
    """La carpeta de la app (de todos sus procesos)."""
    if "raiz" not in _estado:
        por_omision = Path(tempfile.gettempdir()) / "atencion-transformers"
        _estado["raiz"] = Path(os.environ.get("ATENCION_CARPETA") or por_omision)
    return _estado["raiz"]  # type: ignore[return-value]


def carpeta() -> Path:
    """La carpeta de este proceso (existe después de `preparar()`)."""
    return raiz() / f"{PREFIJO}{os.getpid()}"


def preparar() -> Path:
    """Manda a la carpeta propia todo lo que este proceso escriba; borra los restos de procesos muertos.

    La llama `proceso.preparar()` al importar `app`, antes de crear un solo componente: Gradio
    fija su carpeta de subidas al crear cada bloque y `demos.servir.descarga` la suya al importarse.
    """
    with _cerrojo:
        propia = carpeta()
        if _estado.get("preparada") == propia:
            return propia
        borrados = limpiar_restos()
        if propia.exists():  # un proceso muerto con nuestro mismo pid: lo suyo es basura
            shutil.rmtree(propia, ignore_errors=True)
        propia.mkdir(parents=True, exist_ok=True)
        os.environ["GRADIO_TEMP_DIR"] = str(propia / "gradio")
        tempfile.tempdir = str(propia)
        atexit.register(shutil.rmtree, propia, ignore_errors=True)
        _estado["preparada"] = propia
    if borrados:
        log.info("Borrados al arrancar los restos de %d proceso(s) anteriores en %s", len(borrados), raiz())
    return propia


def _vivo(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # existe, pero es de otro usuario
        return True
    return True


def limpiar_restos() -> list[Path]:
    """Borra las carpetas `proceso-<pid>` de procesos que ya no corren; devuelve las borradas."""
    borrados = []
    if not raiz().is_dir():
        return borrados
    for hija in raiz().iterdir():
        pid = hija.name.removeprefix(PREFIJO)
        if hija.name.startswith(PREFIJO) and pid.isdigit() and int(pid) != os.getpid() and not _vivo(int(pid)):
            shutil.rmtree(hija, ignore_errors=True)
            borrados.append(hija)
    return borrados


def barrer(base: Path | None = None, ahora: float | None = None) -> int:
    """Una pasada del barrendero: quita las carpetas vacías bajo `base`; devuelve cuántas.

    Cada archivo ya tiene quien lo borre: Gradio los suyos (`delete_cache`, una hora, y respeta
    los que deben quedar, como los ejemplos) y `demos.servir.descarga` las descargas (una
    hora); las figuras ya no son archivos. Pero unos y otros dejan la carpeta de cada archivo, vacía.
    """
    base = base or carpeta()
    ahora = time.time() if ahora is None else ahora
    borradas = 0
    for dirpath, _, _ in os.walk(base, topdown=False):
        actual = Path(dirpath)
        if actual in (base, base / "gradio"):
            continue
        try:
            if not any(actual.iterdir()) and actual.stat().st_mtime < ahora - EDAD_CARPETA_VACIA_S:
                actual.rmdir()
                borradas += 1
        except OSError:
            pass
    return borradas


def tamano(base: Path | None = None) -> int:
    """Bytes bajo `base` (por omisión, la carpeta de este proceso)."""
    total = 0
    for dirpath, _, filenames in os.walk(base or carpeta()):
        for nombre in filenames:
            with contextlib.suppress(OSError):
                total += (Path(dirpath) / nombre).lstat().st_size
    return total


def subidas() -> Path:
    """La carpeta donde Gradio guarda lo que llega a `/gradio_api/upload`."""
    from gradio.utils import get_upload_folder

    return Path(get_upload_folder())


_usadas: dict[str, float] = {}  # ruta de una subida que un evento usó -> cuándo
_medida: list[float] = [0.0, -1.0]  # [bytes, cuándo se midió]


def usada(ruta: str) -> None:
    """Anota que un evento usó esta subida (`servidor.entradas.revisar`): ya no vence a los 5 minutos."""
    with _cerrojo:
        _usadas[os.path.realpath(ruta)] = time.time()


def bytes_de_subidas(vigencia_s: float = 1.0) -> int:
    """Lo que ocupa la carpeta de subidas (medido a lo sumo una vez por `vigencia_s`)."""
    ahora = time.monotonic()
    if ahora - _medida[1] > vigencia_s:
        _medida[:] = [tamano(subidas()) if subidas().is_dir() else 0, ahora]
    return int(_medida[0])


def barrer_subidas(conjuntos: Iterable[set], ahora: float | None = None) -> int:
    """Borra las subidas que ningún evento usó en `VIDA_SIN_USO_S`; devuelve cuántas.

    `conjuntos`: los `upload_file_set` de cada Blocks (lo que llegó por `/gradio_api/upload`; los
    archivos de salida que Gradio guarda en la misma carpeta no están ahí). Las usadas las
    borra Gradio (`delete_cache`, una hora).
    """
    ahora = time.time() if ahora is None else ahora
    borradas = 0
    for conjunto in conjuntos:
        for ruta in list(conjunto):
            with contextlib.suppress(OSError):
                if os.path.realpath(ruta) not in _usadas and os.lstat(ruta).st_mtime < ahora - VIDA_SIN_USO_S:
                    os.unlink(ruta)
                    borradas += 1
            if not os.path.lexists(ruta):
                conjunto.discard(ruta)
    with _cerrojo:
        for r in [r for r, t in _usadas.items() if t < ahora - 2 * 3600]:
            del _usadas[r]
    _medida[1] = -1.0
    return borradas


def arrancar_barrendero(subidas_de: Callable[[], Iterable[set]] = tuple) -> None:
    """Un hilo por proceso que barre la carpeta propia cada `CADA_S` segundos.

    Cada `CADA_SUBIDAS_S` borra además las subidas sin uso de los conjuntos que da `subidas_de()`.
    """
    with _cerrojo:
        if _estado.get("barrendero"):
            return
        _estado["barrendero"] = True

    def ciclo():
        vueltas = 0
        while True:
            time.sleep(CADA_SUBIDAS_S)
            vueltas += 1
            try:
                barrer_subidas(subidas_de())
                if vueltas % max(1, CADA_S // CADA_SUBIDAS_S) == 0:
                    barrer()
            except Exception:
                log.exception("El barrendero de %s falló", carpeta())

    threading.Thread(target=ciclo, name="barrendero", daemon=True).start()
