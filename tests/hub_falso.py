"""Un Hub de Hugging Face falso en loopback: solo el protocolo de descarga de archivos.

    HEAD/GET /{org}/{repo}/resolve/{revision}/{archivo}

Responde como el Hub: `X-Repo-Commit` (el commit que resolvió la revisión), `ETag`
(el sha256 del contenido, entre comillas, como los archivos LFS), `Content-Length`;
y en los errores, 404 con `X-Error-Code` = RepoNotFound, RevisionNotFound o
EntryNotFound (este último con `X-Repo-Commit`, que huggingface_hub guarda en caché).

Y lo que usan `create_repo` y `upload_folder` para escribir (siempre con `Authorization: Bearer …`):

    POST /api/repos/create                                  crea el repo (un Space: «spaces/org/nombre»)
    GET  /api/{tipo}s/{org}/{nombre}/tree/{revision}        lista los archivos (recursivo, una página)
    POST /api/{tipo}s/{org}/{nombre}/preupload/{revision}   responde «regular» para todo (sin LFS ni Xet)
    POST /api/{tipo}s/{org}/{nombre}/commit/{revision}      NDJSON: archivos en base64 y borrados
    POST /api/validate-yaml                                 el front matter de un README.md que se sube

    with HubFalso() as hub:
        hub.publicar("org/modelo", carpeta)          # -> commit (40 hex)
        os.environ["HF_ENDPOINT"] = hub.url          # en el subproceso, antes de importar huggingface_hub
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


class HubFalso:
    """Servidor en un hilo, en un puerto libre de 127.0.0.1. `pedidos` guarda (método, ruta)."""

    def __init__(self):
        self.repos: dict[str, dict[str, dict[str, bytes]]] = {}  # repo -> commit -> archivo -> bytes
        self.alias: dict[tuple[str, str], str] = {}  # (repo, revisión) -> commit que se sirve
        self.pedidos: list[tuple[str, str]] = []
        self.creados: dict[str, dict] = {}  # repo -> lo pedido al crearlo (tipo, sdk, visibilidad…)
        self.autorizaciones: list[str] = []  # la cabecera Authorization de cada escritura
        self.mensajes: dict[str, str] = {}  # commit -> mensaje
        self.validados: list[str] = []  # tipo de repo de cada README.md validado
        self._cerrojo = threading.Lock()
        self._servidor = ThreadingHTTPServer(("127.0.0.1", 0), _manejador(self))
        self._servidor.daemon_threads = True
        self._hilo = threading.Thread(target=self._servidor.serve_forever, name="hub-falso", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._servidor.server_address[1]}"

    def __enter__(self) -> HubFalso:
        self._hilo.start()
        return self

    def __exit__(self, *_) -> None:
        self._servidor.shutdown()
        self._servidor.server_close()

    def publicar(self, repo: str, archivos: dict[str, bytes] | Path) -> str:
        """Un commit nuevo en `repo` con `archivos` (un dict o una carpeta); devuelve su sha."""
        if isinstance(archivos, Path):
            archivos = {p.name: p.read_bytes() for p in sorted(archivos.iterdir()) if p.is_file()}
        contenido = json.dumps(sorted((k, hashlib.sha256(v).hexdigest()) for k, v in archivos.items()))
        commit = hashlib.sha1(f"{repo}\n{len(self.repos.get(repo, {}))}\n{contenido}".encode()).hexdigest()
        with self._cerrojo:
            self.repos.setdefault(repo, {})[commit] = dict(archivos)
            self.alias[repo, "main"] = commit
        return commit

    def resolver(self, repo: str, revision: str) -> str | None:
        commits = self.repos.get(repo, {})
        return self.alias.get((repo, revision)) or (revision if revision in commits else None)

    def archivos(self, repo: str, revision: str = "main") -> dict[str, bytes]:
        """Los archivos de `repo` en `revision` ({} si no existe)."""
        commit = self.resolver(repo, revision)
        return dict(self.repos[repo][commit]) if commit else {}


def _oid_git(datos: bytes) -> str:
    """El sha1 de blob de git: el «oid» que el Hub da de cada archivo."""
    return hashlib.sha1(b"blob %d\0" % len(datos) + datos).hexdigest()


def _repo_de(tipo: str, org: str, nombre: str) -> str:
    """La clave de `repos`: «org/nombre» para un modelo, «spaces/org/nombre» para un Space."""
    return f"{org}/{nombre}" if tipo in ("model", "models") else f"{tipo.rstrip('s')}s/{org}/{nombre}"


def _manejador(hub: HubFalso) -> type[BaseHTTPRequestHandler]:
    class Manejador(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_HEAD(self) -> None:
            self._responder(con_cuerpo=False)

        def do_GET(self) -> None:
            if urlsplit(self.path).path.startswith("/api/"):
                return self._arbol()
            self._responder(con_cuerpo=True)

        def do_POST(self) -> None:
            ruta = urlsplit(self.path).path
            cuerpo = self._leer_cuerpo()
            with hub._cerrojo:
                hub.pedidos.append(("POST", ruta))
            autorizacion = self.headers.get("Authorization", "")
            if not autorizacion.startswith("Bearer "):
                return self._json(401, {"error": "Invalid credentials in Authorization header"})
            hub.autorizaciones.append(autorizacion)
            if ruta == "/api/repos/create":
                return self._crear(json.loads(cuerpo))
            if ruta == "/api/validate-yaml":
                return self._validar_yaml(json.loads(cuerpo))
            partes = ruta.strip("/").split("/")
            if len(partes) < 6 or partes[0] != "api" or partes[4] not in ("preupload", "commit"):
                return self._error(404, None, "Ruta desconocida", True)
            repo = _repo_de(partes[1], partes[2], partes[3])
            if repo not in hub.repos:
                return self._error(404, "RepoNotFound", f"Repository {repo} not found", True)
            actuales = hub.archivos(repo, unquote(partes[5]))
            if partes[4] == "preupload":
                return self._preupload(json.loads(cuerpo), actuales)
            return self._commit(repo, cuerpo, actuales)

        def log_message(self, *_) -> None:  # silencio en la salida de pytest
            pass

        def _responder(self, con_cuerpo: bool) -> None:
            ruta = urlsplit(self.path).path
            with hub._cerrojo:
                hub.pedidos.append((self.command, ruta))
            partes = ruta.strip("/").split("/")
            if len(partes) < 5 or partes[2] != "resolve":
                return self._error(404, None, "Ruta desconocida", con_cuerpo)
            repo, revision, archivo = f"{partes[0]}/{partes[1]}", unquote(partes[3]), "/".join(partes[4:])
            if repo not in hub.repos:
                return self._error(404, "RepoNotFound", f"Repository {repo} not found", con_cuerpo)
            commit = hub.resolver(repo, revision)
            if commit is None:
                return self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}", con_cuerpo)
            datos = hub.repos[repo][commit].get(archivo)
            if datos is None:
                return self._error(404, "EntryNotFound", f"{archivo} does not exist", con_cuerpo, commit)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(datos)))
            self.send_header("ETag", f'"{hashlib.sha256(datos).hexdigest()}"')
            self.send_header("X-Repo-Commit", commit)
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            if con_cuerpo:
                self.wfile.write(datos)

        # --- escritura -------------------------------------------------------------------------------

        def _leer_cuerpo(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
                return self.rfile.read(int(self.headers.get("Content-Length", 0)))
            trozos = []
            while (largo := int(self.rfile.readline().split(b";")[0], 16)) > 0:
                trozos.append(self.rfile.read(largo))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(trozos)

        def _crear(self, pedido: dict) -> None:
            repo = _repo_de(pedido.get("type") or "model", pedido["organization"], pedido["name"])
            url = f"{hub.url}/{repo}"
            if repo in hub.repos:
                return self._json(409, {"error": "You already created this repo", "url": url})
            hub.creados[repo] = pedido
            hub.publicar(repo, {".gitattributes": b"*.safetensors filter=lfs diff=lfs merge=lfs -text\n"})
            self._json(200, {"url": url, "name": f"{pedido['organization']}/{pedido['name']}"})

        def _validar_yaml(self, pedido: dict) -> None:
            """Como el Hub: 400 con la lista de errores si el front matter no es un diccionario de YAML."""
            import yaml

            hub.validados.append(pedido.get("repoType", "model"))
            texto = pedido["content"]
            try:
                datos = yaml.safe_load(texto.split("---\n")[1]) if texto.startswith("---\n") else {}
                assert isinstance(datos, dict)
            except (yaml.YAMLError, IndexError, AssertionError):
                return self._json(400, {"errors": [{"message": "El front matter no es YAML válido"}]})
            self._json(200, {"errors": [], "warnings": []})

        def _preupload(self, pedido: dict, actuales: dict[str, bytes]) -> None:
            archivos = [
                {
                    "path": f["path"],
                    "uploadMode": "regular",
                    "shouldIgnore": False,
                    "oid": _oid_git(actuales[f["path"]]) if f["path"] in actuales else None,
                }
                for f in pedido["files"]
            ]
            self._json(200, {"files": archivos})

        def _commit(self, repo: str, cuerpo: bytes, actuales: dict[str, bytes]) -> None:
            mensaje = ""
            for linea in cuerpo.decode().splitlines():
                op = json.loads(linea)
                clave, valor = op["key"], op["value"]
                if clave == "header":
                    mensaje = valor["summary"]
                elif clave == "file":
                    actuales[valor["path"]] = base64.b64decode(valor["content"])
                elif clave == "deletedFile":
                    actuales.pop(valor["path"], None)
                elif clave == "deletedFolder":
                    prefijo = valor["path"].rstrip("/") + "/"
                    actuales = {k: v for k, v in actuales.items() if not k.startswith(prefijo)}
                else:  # lfsFile: el preupload nunca pidió LFS
                    return self._json(400, {"error": f"Operación no soportada por el Hub falso: {clave}"})
            commit = hub.publicar(repo, actuales)
            hub.mensajes[commit] = mensaje
            self._json(200, {"success": True, "commitOid": commit, "commitUrl": f"{hub.url}/{repo}/commit/{commit}"})

        def _arbol(self) -> None:
            ruta = urlsplit(self.path).path
            with hub._cerrojo:
                hub.pedidos.append(("GET", ruta))
            partes = ruta.strip("/").split("/")
            if len(partes) < 6 or partes[4] != "tree":
                return self._error(404, None, "Ruta desconocida", True)
            repo = _repo_de(partes[1], partes[2], partes[3])
            if repo not in hub.repos:
                return self._error(404, "RepoNotFound", f"Repository {repo} not found", True)
            archivos = hub.archivos(repo, unquote(partes[5]))
            lista = [{"type": "file", "path": k, "size": len(v), "oid": _oid_git(v)} for k, v in archivos.items()]
            self._json(200, lista)

        def _json(self, estado: int, objeto) -> None:
            cuerpo = json.dumps(objeto).encode()
            self.send_response(estado)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(cuerpo)))
            self.end_headers()
            self.wfile.write(cuerpo)

        def _error(self, estado: int, codigo: str | None, mensaje: str, con_cuerpo: bool, commit: str | None = None):
            cuerpo = json.dumps({"error": mensaje}).encode()
            self.send_response(estado)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(cuerpo)))
            if codigo:
                self.send_header("X-Error-Code", codigo)
                self.send_header("X-Error-Message", mensaje)
            if commit:
                self.send_header("X-Repo-Commit", commit)
            self.end_headers()
            if con_cuerpo:
                self.wfile.write(cuerpo)

    return Manejador


class Mudo:
    """Un puerto que acepta conexiones TCP (las del backlog) y nunca responde: el peor caso de red."""

    def __enter__(self) -> Mudo:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        return self

    def __exit__(self, *_) -> None:
        self._socket.close()


def puerto_cerrado() -> str:
    """Una URL de loopback a la que nadie escucha (conexión rechazada al instante)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        puerto = s.getsockname()[1]
    return f"http://127.0.0.1:{puerto}"
