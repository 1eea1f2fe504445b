"""La aplicación ASGI: la página de la raíz en «/» y cada pestaña suelta en /demo/<id>/, armada al pedirla.

Este módulo no importa `app` ni las pestañas: recibe ya armada la página de la raíz y la función
que arma una pestaña suelta (`crear_app(suite, construir_una, ids, opciones, host_propio)`).

¿Por qué montajes perezosos y no `gr.mount_gradio_app` de las 13 al arrancar? Medido (mediana de
3, en 2 núcleos, hasta que `/config` responde): `import gradio, torch` 4.88 s; la app con las
pestañas sueltas perezosas 5.73 s (1.17×); con las 13 montadas al arrancar 9.11 s (1.87×), por
encima del tope de 1.5×. Las rutas de varias páginas de Gradio (`Blocks.route`) también se
arman todas al arrancar. Así que `MontajesPerezosos` usa partes internas de Gradio (la lista de
rutas de Starlette, el contexto de vida de la app de Gradio, sus eventos de arranque), y
tests/test_servidor.py::test_un_montaje_perezoso_responde_corre_su_cola_y_borra_sus_archivos_al_apagar
falla si una versión de Gradio las rompe.

¿Y servir /demo/<id>/ desde la suite, con una sola cola (sin montajes, sin contadores entre colas)?
Probado (la espiga scripts/espiga_una_cola.py, ya borrada: está en la historia de git; 2 núcleos con carga 7–11,
valen las proporciones) y descartado:
- La página de la suite abierta en `?tab=<id>` tarda 1.5–2.9× más que /demo/<id>/ en mostrar su primera
  figura, con 1.7–2.3× más memoria de JavaScript (715 kB de configuración contra 72–159 kB): una
  diapositiva pagaría todas las pestañas.
- Con `Blocks.route` (páginas del mismo Blocks, cada una con su configuración filtrada) las 14 sueltas
  cuestan +21 MB de RSS en vez de los +173 MB de 14 montajes; pero se arman todas al arrancar (el
  arranque casi se duplica, por encima del tope), su camino no admite «/» (serían /demo-<id>, no
  /demo/<id>/) y sus `api_name` chocan con los de la suite: cambiarían las URL de las diapositivas y el API.
Un montaje perezoso solo cuesta si alguien abre esa pestaña suelta.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection

import anyio
import gradio as gr
from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse

from demos.comun.figuras.componente import RUTA_PLOTLY
from servidor import disco, registro
from servidor.admision import GUION, configurar_cola
from servidor.entradas import montados, montar_protegido
from servidor.gradio_interno import arrancar_montaje
from servidor.protecciones import Protecciones

log = logging.getLogger(__name__)


def crear_app(
    raiz: gr.Blocks,
    construir_una: Callable[[str], gr.Blocks] | None = None,
    ids: Collection[str] = (),
    opciones: dict | None = None,
    host_propio: str = "localhost",
):
    """`raiz` en «/» y, si hay `construir_una`, cada id de `ids` en /demo/<id>/ (armado al pedirlo).

    Todo montaje pasa por `servidor.entradas.montar_protegido` (la comprobación de archivos subidos de
    Gradio, activa), con su cola configurada (`servidor.admision`), sin trazas de error para el
    visitante (`show_error=False`), y todo va detrás de `Protecciones` (cuerpos acotados,
    nosniff, Host); `host_propio` es el nombre que reemplaza a un `Host` ajeno. `opciones` son
    las de `gr.mount_gradio_app` (estilo, JS, límite de subida), más `cabeza_html`: lo que va al final
    del `<head>` del HTML servido, antes de que corra el JS de Gradio (servidor/laterales.py).
    """
    registro.instalar()
    disco.arrancar_barrendero(lambda: [b.upload_file_set for b in montados()])
    opciones = {**(opciones or {}), "show_error": False}
    opciones["head"] = GUION + (opciones.get("head") or "")  # el token de la página (servidor/admision.py)
    # Plotly.js, pedido mientras el navegador lee el HTML (no cuando se monta la primera figura): `async`, lo
    # evalúa en cuanto llega. Cada figura lo pide también en su `head` (quien arma la página desde /config).
    opciones["cabeza_html"] = opciones.get("cabeza_html", "") + f'<script async src="{RUTA_PLOTLY}"></script>'
    app = FastAPI(title=raiz.title, docs_url=None, redoc_url=None)
    if construir_una is None:
        return Protecciones(montar_protegido(app, configurar_cola(raiz), path="/", **opciones), host_propio)

    @app.get("/demo/{id_}", include_in_schema=False)
    def con_barra(id_: str, request: Request):
        """/demo/<id> -> /demo/<id>/, conservando los ajustes de la URL."""
        consulta = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"{request.scope.get('root_path', '')}/demo/{id_}/{consulta}", status_code=307)

    montar_protegido(app, configurar_cola(raiz), path="/", **opciones)
    return Protecciones(MontajesPerezosos(app, construir_una, ids, opciones), host_propio)


class MontajesPerezosos:
    """ASGI delante de la app: monta /demo/<id>/ (un Blocks nuevo) en la primera petición que lo pide.

    El montaje nuevo va antes del de la raíz en «/» (que si no lo taparía), y como la app ya
    arrancó, se corren a mano los eventos de arranque de Gradio que ponen a andar su cola. Su
    contexto de vida (el que borra sus archivos con `delete_cache`) se cierra al apagarse la app,
    como el de la raíz: así lo que creó un montaje también se borra al salir.
    """

    def __init__(self, app: FastAPI, construir_una: Callable[[str], gr.Blocks], ids: Collection[str], opciones: dict):
        self.app, self.construir_una, self.ids, self.opciones = app, construir_una, frozenset(ids), opciones
        self.montadas: dict[str, gr.Blocks] = {}
        self.cerrojo: asyncio.Lock | None = None
        self.vidas = contextlib.AsyncExitStack()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, self._al_apagar(send))
        if scope["type"] in ("http", "websocket"):
            partes = scope["path"].split("/", 3)
            if len(partes) > 3 and partes[1] == "demo" and partes[2] in self.ids and partes[2] not in self.montadas:
                await self._montar(partes[2])
        await self.app(scope, receive, send)

    def _al_apagar(self, send):
        async def enviar(mensaje):
            if mensaje["type"] == "lifespan.shutdown.complete":  # la raíz ya cerró la suya
                await self.cerrar()
            await send(mensaje)

        return enviar

    async def cerrar(self) -> None:
        """Cierra el contexto de vida de cada montaje: su cola se detiene y sus archivos se borran."""
        await self.vidas.aclose()

    async def _montar(self, id_: str) -> None:
        self.cerrojo = self.cerrojo or asyncio.Lock()
        async with self.cerrojo:
            if id_ in self.montadas:
                return
            blocks = configurar_cola(await anyio.to_thread.run_sync(self.construir_una, id_))
            rutas = self.app.router.routes
            montar_protegido(self.app, blocks, path=f"/demo/{id_}", **self.opciones)
            montaje = rutas.pop()
            raiz = next(i for i, r in enumerate(rutas) if getattr(r, "path", None) == "")
            rutas.insert(raiz, montaje)  # antes de la raíz en «/»
            await arrancar_montaje(self.vidas, montaje.app)
            self.montadas[id_] = blocks
            log.info("Montada /demo/%s/", id_)
