"""Llamadas crudas, como las haría un atacante (o la página): sin gradio_client, que completa y valida.

`llamar` une un evento a la cola por `fn_index` y lee el resultado por `/gradio_api/queue/data`;
`Sondeo` mide, mientras dura un ataque, cuánto tarda `/config`.

Un extraño llama sin más. Quien imita la página (`como_pagina=True`, o `token=` de
`token_de_pagina`) pide antes su configuración y manda el token que el servidor escribió en ella
en la cabecera `x-atencion-pagina`, como el guion de la página (servidor/admision.py): así puede
llamar también los eventos privados, que sin él reciben 403.
"""

from __future__ import annotations

import json
import re
import statistics
import threading
import time
import uuid

import httpx

ARCHIVO = {"_type": "gradio.FileData"}
CABECERA = "x-atencion-pagina"  # servidor.admision.CABECERA (sin importar gradio en el proceso atacante)
_TOKEN = re.compile(r'const token = \\?"([0-9a-z.]+)\\?"')


def token_de_pagina(base: str) -> str:
    """Como la página: pide `…/config` del montaje `base` y saca el token que el servidor escribió en su guion."""
    encontrado = _TOKEN.search(httpx.get(f"{base}config", timeout=60).text)
    if encontrado is None:
        raise AssertionError(f"{base}config no trae el token de la página (servidor/admision.py)")
    return encontrado.group(1)


def file_data(ruta: str) -> dict:
    return {"path": ruta, "meta": dict(ARCHIVO)}


def unir(
    base: str,
    fn_index: int,
    datos: list,
    sesion: str | None = None,
    timeout: float = 10,
    token: str | None = None,
    desde: str | None = None,
) -> httpx.Response:
    """POST …/queue/join (con `token`, como la página): la respuesta tal cual (200 con event_id, o la negativa).
    Con `desde`, la dirección que el proxy de confianza añade a `X-Forwarded-For` (con `ATENCION_PROXIES=1`)."""
    cuerpo = {"data": datos, "fn_index": fn_index, "session_hash": sesion or uuid.uuid4().hex, "trigger_id": None}
    cabeceras = {CABECERA: token} if token else {}
    if desde:
        cabeceras["x-forwarded-for"] = desde
    return httpx.post(f"{base}gradio_api/queue/join", json=cuerpo, headers=cabeceras, timeout=timeout)


def llamar(
    base: str,
    fn_index: int,
    datos: list,
    sesion: str | None = None,
    timeout: float = 20,
    token: str | None = None,
    como_pagina: bool = False,
) -> dict:
    """Une el evento y espera su final. {"estado": código, "detalle": …} si la cola lo rechazó;
    si no, el mensaje `process_completed` ({"success": …, "output": {"error": …} o {"data": …}}).
    Con `como_pagina`, pide antes un token a la página (`token_de_pagina`), como haría ella."""
    sesion = sesion or uuid.uuid4().hex
    token = token or (token_de_pagina(base) if como_pagina else None)
    r = unir(base, fn_index, datos, sesion, timeout, token)
    if r.status_code != 200:
        return {"estado": r.status_code, "detalle": r.json().get("detail")}
    evento = r.json()["event_id"]
    limite = time.monotonic() + timeout
    with httpx.stream("GET", f"{base}gradio_api/queue/data", params={"session_hash": sesion}, timeout=timeout) as s:
        for linea in s.iter_lines():
            if time.monotonic() > limite:
                break
            if not linea.startswith("data:"):
                continue
            mensaje = json.loads(linea[5:])
            if mensaje.get("event_id") == evento and mensaje.get("msg") == "process_completed":
                return mensaje
    raise TimeoutError(f"sin respuesta de fn_index={fn_index} en {timeout} s")


def error_de(respuesta: dict) -> str:
    """El texto del error de una llamada (de la cola o del evento); '' si salió bien."""
    if "estado" in respuesta:
        return str(respuesta["detalle"])
    if respuesta.get("success"):
        return ""
    return str((respuesta.get("output") or {}).get("error"))


class Sondeo:
    """Pide `/config` cada `cada_s` en un hilo mientras dura el bloque; `peor_s` es la respuesta más lenta."""

    def __init__(self, base: str, cada_s: float = 0.1):
        self.base, self.cada_s = base, cada_s
        self.tiempos: list[float] = []
        self._fin = threading.Event()

    def __enter__(self):
        self._hilo = threading.Thread(target=self._sondear, daemon=True)
        self._hilo.start()
        return self

    def _sondear(self):
        with httpx.Client(timeout=30) as c:
            while not self._fin.is_set():
                inicio = time.monotonic()
                try:
                    c.get(f"{self.base}config").raise_for_status()
                    self.tiempos.append(time.monotonic() - inicio)
                except httpx.HTTPError:
                    self.tiempos.append(float("inf"))
                self._fin.wait(self.cada_s)

    def __exit__(self, *exc):
        self._fin.set()
        self._hilo.join(timeout=35)

    @property
    def peor_s(self) -> float:
        return max(self.tiempos, default=float("inf"))

    def responde(self, tope: float, colgado_s: float = 10.0) -> None:
        """El servidor siguió contestando: la mediana de `/config` bajo `tope` y ninguna por encima de `colgado_s`.

        Un `/dev/zero` aceptado cuelga todas las rutas: desde ahí cada sondeo agota sus 30 s (o falla), y
        las dos condiciones lo detectan. Un pico suelto en una máquina cargada (segundos, no decenas) no.
        """
        assert self.tiempos, "no se sondeó /config"
        mediana = statistics.median(self.tiempos)
        assert mediana < tope, f"/config tardó {mediana:.2f} s de mediana durante el ataque (tope {tope:.2f} s)"
        assert self.peor_s < colgado_s, f"/config tardó {self.peor_s:.2f} s: el servidor se colgó"
