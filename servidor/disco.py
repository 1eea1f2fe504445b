"""Todo lo que la app escribe vive bajo una carpeta propia, y esa carpeta no crece sin tope.

La raíz es `ATENCION_CARPETA` (por omisión `<tmp>/atencion-transformers`). Cada proceso escribe
en `proceso-<pid>/`: las subidas y la caché de Gradio (`GRADIO_TEMP_DIR`), las figuras y las
descargas (todo lo que pasa por `tempfile`). Al arrancar se borran las carpetas de procesos que
ya no existen (un `kill -9` a mitad de clase no deja basura para siempre); al salir, la propia.
Mientras corre, un barrendero quita cada 10 minutos las carpetas vacías (Gradio borra sus
archivos con `delete_cache`, y las figuras y descargas expiran solas, pero todos dejan la carpeta).

Las subidas (`/gradio_api/upload`) tienen un tope en total, `MAX_SUBIDAS`, que cuenta lo que ya
está en su carpeta y lo que está llegando (`Reserva`, que servidor/laterales.py toma por cada
subida), y las que ningún evento usó se borran a los 5 minutos (`barrer_subidas`).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import math
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
MAX_SUBIDAS = 256 * 2**20  # las subidas, en total (en disco y llegando): más allá, /upload contesta 429
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
    from servidor.gradio_interno import carpeta_de_subidas

    return carpeta_de_subidas()


_usadas: dict[str, float] = {}  # ruta de una subida que un evento usó -> cuándo


class _Cuenta:
    """Lo que ocupan las subidas, en bytes (se lee y se cambia con `_cerrojo`)."""

    def __init__(self):
        self.medida = 0  # la carpeta de subidas en la última medida
        self.medida_en = -math.inf  # cuándo empezó esa medida (`time.monotonic`)
        self.en_curso = 0  # lo reservado por las subidas que están llegando
        self.llegadas: list[tuple[float, int]] = []  # (cuándo terminó, bytes) de las que esa medida quizá no vio


_cuenta = _Cuenta()


def usada(ruta: str) -> None:
    """Anota que un evento usó esta subida (`servidor.entradas.revisar`): ya no vence a los 5 minutos."""
    with _cerrojo:
        _usadas[os.path.realpath(ruta)] = time.time()


def bytes_de_subidas(vigencia_s: float = 1.0) -> int:
    """Lo que ocupa la carpeta de subidas (medido a lo sumo una vez por `vigencia_s`)."""
    if time.monotonic() - _cuenta.medida_en > vigencia_s:
        inicio = time.monotonic()
        medida = tamano(subidas()) if subidas().is_dir() else 0
        with _cerrojo:
            if inicio > _cuenta.medida_en:
                _cuenta.medida, _cuenta.medida_en = medida, inicio
                # las que terminaron antes de empezar a medir ya están en la medida
                _cuenta.llegadas = [(t, n) for t, n in _cuenta.llegadas if t >= inicio]
    return _cuenta.medida


def bytes_ocupados(vigencia_s: float = 1.0) -> int:
    """Lo que cuenta contra `MAX_SUBIDAS`: la carpeta medida, lo que está llegando y lo que llegó después de medirla."""
    bytes_de_subidas(vigencia_s)
    with _cerrojo:
        return _ocupados()


def _ocupados() -> int:
    return _cuenta.medida + _cuenta.en_curso + sum(n for _, n in _cuenta.llegadas)


class Reserva:
    """Los bytes de una subida a `/gradio_api/upload`, contados contra `MAX_SUBIDAS` desde antes de su primer byte.

    Medir la carpeta no basta: las subidas de una ráfaga empiezan todas antes de que la primera
    llegue al disco, y todas verían la misma medida. Cada una reserva al empezar lo que puede pesar
    (su `Content-Length`; sin él, el tope del cuerpo), y lo que llegue de más, mientras llega. Al
    terminar, lo que llegó sigue contado hasta que lo ve una medida de la carpeta que empezó
    después: ni queda un momento en que no se cuenta, ni se cuenta dos veces más de un segundo.
    Mientras llega, lo ya escrito puede contarse en la medida y en la reserva: el tope se adelanta
    un poco, nunca se pasa.
    """

    def __init__(self):
        self.bytes = 0
        self._suelta = False

    def ampliar(self, n: int, vigencia_s: float = 1.0) -> bool:
        """Reserva `n` bytes más si, con ellos, lo ocupado no pasa de `MAX_SUBIDAS`; si no, False y no reserva nada."""
        return self._tomar(n, vigencia_s, entero=True) == n

    def tomar(self, n: int, vigencia_s: float = 1.0) -> int:
        """Reserva hasta `n` bytes más, los que quepan bajo `MAX_SUBIDAS`; devuelve cuántos."""
        return self._tomar(n, vigencia_s, entero=False)

    def _tomar(self, n: int, vigencia_s: float, entero: bool) -> int:
        bytes_de_subidas(vigencia_s)
        with _cerrojo:
            libre = 0 if self._suelta else max(0, MAX_SUBIDAS - _ocupados())
            n = n if n <= libre else (0 if entero else libre)
            _cuenta.en_curso += n
            self.bytes += n
            return n

    def soltar(self, llegados: int) -> None:
        """La subida terminó tras recibir `llegados` bytes: sus archivos ya están en la carpeta, o borrados.

        Lo que se guardó no pesa más que lo que llegó: eso queda contado hasta la próxima medida.
        """
        with _cerrojo:
            if self._suelta:
                return
            self._suelta = True
            _cuenta.en_curso -= self.bytes
            _cuenta.llegadas.append((time.monotonic(), min(self.bytes, llegados)))


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
    with _cerrojo:
        _cuenta.medida_en = -math.inf  # la próxima consulta mide otra vez
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
