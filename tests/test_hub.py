"""Carga de checkpoints: la revisión fijada del Hub, o la copia incluida, con una línea de log.

El camino del Hub corre con el código real de descarga de huggingface_hub contra un Hub
falso en loopback (`hub_falso.py`). huggingface_hub lee HF_ENDPOINT y HF_HUB_OFFLINE al
importarse, así que esos casos corren en subprocesos con su propio entorno y su HF_HOME.
Lo demás (copia incluida, cerrojos, dispositivo, publicar) corre en este proceso, con un
checkpoint de prueba registrado solo durante cada prueba.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch
from hub_falso import HubFalso, Mudo, puerto_cerrado

import modelos
from modelos import hub
from modelos.entrenamiento import publicar
from modelos.transformer import TransformerJuguete

RAIZ = Path(__file__).resolve().parent.parent
OTRO_COMMIT = "0123456789abcdef0123456789abcdef01234567"  # un commit que el Hub falso no tiene

GUION = r"""
import json, logging, sys, time
logging.basicConfig(level=logging.WARNING, format="LOG|%(name)s|%(levelname)s|%(message)s", stream=sys.stderr)
logging.getLogger("modelos.hub").setLevel(logging.INFO)
import torch
from safetensors.torch import load_file
from modelos import hub
pedido = json.loads(sys.argv[1])
for nombre in pedido["registrar"]:
    hub.REGISTRO[nombre] = hub.Checkpoint(nombre, "TransformerJuguete", None)
salida = {}
for accion in pedido["acciones"]:
    t0 = time.perf_counter()
    try:
        if "archivo" in accion:
            r = {"ruta": str(hub.cargar_archivo(accion["nombre"], accion["archivo"]))}
        else:
            modelo = hub.cargar(accion["nombre"])
            r = {"eval": not modelo.training, "dispositivo": str(next(modelo.parameters()).device)}
            if "referencia" in accion:
                ref, sd = load_file(accion["referencia"]), modelo.state_dict()
                r["iguales"] = set(sd) == set(ref) and all(torch.equal(sd[k].cpu(), ref[k]) for k in ref)
    except Exception as e:
        r = {"error": type(e).__name__, "mensaje": str(e)}
    r["segundos"] = time.perf_counter() - t0
    salida[accion["nombre"] + "/" + accion.get("archivo", "")] = r
print(json.dumps(salida))
"""


def guardar_juguete(carpeta: Path, semilla: int = 0, **config) -> Path:
    """Un TransformerJuguete pequeño guardado con PyTorchModelHubMixin, más un archivo extra."""
    torch.manual_seed(semilla)
    TransformerJuguete(d_modelo=16, cabezas=2, largo=8, **config).save_pretrained(carpeta)
    (carpeta / "instantaneas.json").write_text(json.dumps({"pasos": [0, 10, 20], "semilla": semilla}))
    return carpeta


def variable(nombre: str) -> str:
    return hub.Checkpoint(nombre, "TransformerJuguete", None).variable_revision


def correr(raiz: Path, acciones: list[dict], registrar=(), **entorno: str) -> tuple[dict, list[str]]:
    """Corre GUION en un subproceso con un entorno limpio (HF_HOME y copias incluidas bajo `raiz`,
    organización «prueba»); devuelve sus resultados y sus líneas de log de modelos.hub."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "ATENCION_")) and "proxy" not in k.lower()}
    env.update(
        HF_HOME=str(raiz / "hf"),
        NO_PROXY="127.0.0.1,localhost",
        ATENCION_CHECKPOINTS=str(raiz / "incluidas"),
        ATENCION_HUB_ORG="prueba",
        ATENCION_DISPOSITIVO="cpu",
        PYTHONPATH=str(RAIZ),
    )
    env.update(entorno)
    pedido = json.dumps({"registrar": list(registrar), "acciones": acciones})
    proceso = subprocess.run(
        [sys.executable, "-c", GUION, pedido], cwd=RAIZ, env=env, capture_output=True, text=True, timeout=120
    )
    assert proceso.returncode == 0, proceso.stderr[-3000:]
    lineas = [linea.split("|", 3)[2:] for linea in proceso.stderr.splitlines() if linea.startswith("LOG|modelos.hub|")]
    return json.loads(proceso.stdout.splitlines()[-1]), [f"{nivel}: {texto}" for nivel, texto in lineas]


def modelo(nombre: str, referencia: Path) -> dict:
    return {"nombre": nombre, "referencia": str(referencia / "model.safetensors")}


def del_caso(log: list[str], nombre: str) -> list[str]:
    return [linea for linea in log if f" {nombre}: " in linea]


# --- El Hub fijado, con el código real de huggingface_hub ------------------------------------
#
# Un Hub falso para todo el módulo y dos subprocesos: uno con red (cada caso es un checkpoint
# registrado aparte, con su repo y su revisión fijada) y otro con HF_HUB_OFFLINE=1 y la misma
# caché. El Hub guarda OTROS pesos (semilla 1) que las copias incluidas (semilla 0): si un
# modelo sale igual al incluido, se usó el incluido.

CASOS_QUE_CAEN = {
    "repo-no-encontrado": "el repo prueba/repo-no-encontrado no existe en el Hub (o es privado)",
    "revision-no-encontrada": f"la revisión fijada {OTRO_COMMIT} no existe en prueba/revision-no-encontrada",
    "otro-commit": "el Hub sirvió el commit ",
    "safetensors-truncado": "model.safetensors: está dañado o no es safetensors",
    "config-de-otra-forma": "«fichas.weight» tiene forma (10, 16), pero ",
    "sin-model-safetensors": "prueba/sin-model-safetensors@{commit} no tiene model.safetensors",
}


def publicar_casos(hub_falso: HubFalso, raiz: Path, otros: Path) -> dict[str, str]:
    """Prepara el Hub falso para cada caso; devuelve la revisión que fija cada uno."""
    archivos = {p.name: p.read_bytes() for p in otros.iterdir()}
    sin_pesos = {k: v for k, v in archivos.items() if k != "model.safetensors"}

    def publica(nombre: str, contenido: dict[str, bytes] | Path = otros) -> str:
        return hub_falso.publicar(f"prueba/{nombre}", contenido)

    publica("revision-no-encontrada")
    fijados = {
        # lo que haría `python -m modelos.entrenamiento.publicar`: la copia incluida, tal cual
        "publicado": publica("publicado", raiz / "incluidas" / "publicado"),
        "no-en-cache": publica("no-en-cache"),
        "repo-no-encontrado": OTRO_COMMIT,  # nada publicado
        "revision-no-encontrada": OTRO_COMMIT,
        "otro-commit": publica("otro-commit"),
        "safetensors-truncado": publica(
            "safetensors-truncado", {**archivos, "model.safetensors": archivos["model.safetensors"][:-100]}
        ),
        "config-de-otra-forma": publica("config-de-otra-forma", {**archivos, "config.json": b'{"d_modelo": 64}'}),
        "sin-model-safetensors": publica("sin-model-safetensors", sin_pesos),
    }
    # un Hub (o un espejo) que resuelve la revisión fijada a otro commit
    hub_falso.alias["prueba/otro-commit", fijados["otro-commit"]] = publica("otro-commit")
    return fijados


@pytest.fixture(scope="module")
def escenario(tmp_path_factory):
    raiz = tmp_path_factory.mktemp("hub")
    nombres = ["publicado", "no-en-cache", *CASOS_QUE_CAEN]
    for nombre in nombres:
        guardar_juguete(raiz / "incluidas" / nombre)
    with HubFalso() as hub_falso:
        fijados = publicar_casos(hub_falso, raiz, guardar_juguete(raiz / "otros", semilla=1))
        entorno = {variable(n): c for n, c in fijados.items()}
        acciones = [modelo(n, raiz / "incluidas" / n) for n in ["publicado", *CASOS_QUE_CAEN]]
        acciones.append({"nombre": "publicado", "archivo": "instantaneas.json"})
        con_red = correr(raiz, acciones, nombres, HF_ENDPOINT=hub_falso.url, **entorno)
        pedidos = list(hub_falso.pedidos)

        # Sin red y sin la copia incluida de «publicado»: solo puede salir de la caché.
        shutil.move(raiz / "incluidas" / "publicado", raiz / "publicado-fuera")
        acciones = [
            modelo("publicado", raiz / "publicado-fuera"),
            modelo("no-en-cache", raiz / "incluidas" / "no-en-cache"),
        ]
        sin_red = correr(raiz, acciones, nombres, HF_ENDPOINT=hub_falso.url, HF_HUB_OFFLINE="1", **entorno)
        pedidos_sin_red = hub_falso.pedidos[len(pedidos) :]
    return dict(
        raiz=raiz, fijados=fijados, con_red=con_red, sin_red=sin_red, pedidos=pedidos, pedidos_sin_red=pedidos_sin_red
    )


def test_revision_fijada_se_descarga_y_es_la_copia_publicada(escenario):
    resultados, log = escenario["con_red"]
    commit, cache = escenario["fijados"]["publicado"], escenario["raiz"] / "hf" / "hub" / "models--prueba--publicado"
    r = resultados["publicado/"]
    assert r["iguales"] and r["eval"] and r["dispositivo"] == "cpu"
    fuente = f"Hub prueba/publicado@{commit} (revisión fijada, descargada ahora)."
    assert del_caso(log, "publicado") == [
        f"INFO: Checkpoint publicado: {fuente}",
        f"INFO: Archivo instantaneas.json de publicado: {fuente}",
    ]
    assert ("GET", f"/prueba/publicado/resolve/{commit}/model.safetensors") in escenario["pedidos"]
    assert (cache / "snapshots" / commit / "model.safetensors").is_file()
    assert resultados["publicado/instantaneas.json"]["ruta"] == str(cache / "snapshots" / commit / "instantaneas.json")


def test_con_hf_hub_offline_sale_de_la_cache_o_de_la_copia_sin_tocar_la_red(escenario):
    resultados, log = escenario["sin_red"]
    fijados = escenario["fijados"]
    assert resultados["publicado/"]["iguales"]  # sin copia incluida: salió de la caché
    fuente = f"Hub prueba/publicado@{fijados['publicado']} (revisión fijada, de la caché de huggingface_hub)."
    assert del_caso(log, "publicado") == [f"INFO: Checkpoint publicado: {fuente}"]
    assert resultados["no-en-cache/"]["iguales"]
    carpeta = escenario["raiz"] / "incluidas" / "no-en-cache"
    assert del_caso(log, "no-en-cache") == [
        f"WARNING: Checkpoint no-en-cache: copia incluida {carpeta} (HF_HUB_OFFLINE=1 y"
        f" prueba/no-en-cache@{fijados['no-en-cache'][:7]} no está en la caché de huggingface_hub)."
    ]
    assert escenario["pedidos_sin_red"] == []


@pytest.mark.parametrize(("caso", "razon"), CASOS_QUE_CAEN.items(), ids=list(CASOS_QUE_CAEN))
def test_hub_que_falla_cae_en_la_copia_incluida_con_su_razon(escenario, caso, razon):
    resultados, log = escenario["con_red"]
    r, lineas = resultados[f"{caso}/"], del_caso(log, caso)
    assert r["iguales"], r
    assert len(lineas) == 1 and lineas[0].startswith(f"WARNING: Checkpoint {caso}: copia incluida ")
    assert razon.format(commit=escenario["fijados"][caso][:7]) in lineas[0], lineas[0]
    print(f"\n{r['segundos']:.3f} s  {lineas[0]}")
    assert r["segundos"] < 2, r


@pytest.mark.parametrize("red", ["puerto_cerrado", "puerto_mudo", "ip_de_documentacion"])
def test_sin_red_cae_en_la_copia_incluida_en_menos_de_2_s(tmp_path, red):
    guardar_juguete(tmp_path / "incluidas" / "sin-red")
    with Mudo() as mudo:
        # 192.0.2.1 (TEST-NET-1, RFC 5737) no se enruta: o falla al instante o nunca contesta.
        url = {"puerto_cerrado": puerto_cerrado(), "puerto_mudo": mudo.url, "ip_de_documentacion": "http://192.0.2.1"}
        acciones = [
            modelo("sin-red", tmp_path / "incluidas" / "sin-red"),
            {"nombre": "sin-red", "archivo": "instantaneas.json"},
        ]
        resultados, log = correr(
            tmp_path, acciones, ["sin-red"], HF_ENDPOINT=url[red], **{variable("sin-red"): OTRO_COMMIT}
        )
    r, extra = resultados["sin-red/"], resultados["sin-red/instantaneas.json"]
    print(f"\ncaída sin red ({red}): {r['segundos']:.2f} s; el archivo extra después: {extra['segundos']:.3f} s")
    assert r["iguales"] and r["segundos"] < 2
    assert extra["ruta"] == str(tmp_path / "incluidas" / "sin-red" / "instantaneas.json")
    assert extra["segundos"] < 0.5  # la red ya falló una vez: no se la vuelve a esperar
    assert len(log) == 2 and all("copia incluida" in linea and "el Hub no responde" in linea for linea in log)


# --- La copia incluida, en este proceso ------------------------------------------------------


@pytest.fixture
def juguete(tmp_path, monkeypatch) -> Path:
    """Un checkpoint `prueba-juguete` registrado solo durante la prueba, con su copia incluida."""
    carpeta = guardar_juguete(tmp_path / "incluidas" / "prueba-juguete")
    monkeypatch.setenv(hub.VARIABLE_CHECKPOINTS, str(tmp_path / "incluidas"))
    monkeypatch.setitem(hub.REGISTRO, "prueba-juguete", hub.Checkpoint("prueba-juguete", "TransformerJuguete", None))
    monkeypatch.setattr(hub, "_cargados", {})  # los modelos reales ya cargados quedan intactos
    monkeypatch.setattr(hub, "_archivos", {})
    return carpeta


def test_sin_revision_fijada_usa_la_copia_incluida_con_una_linea_de_log(juguete, caplog):
    caplog.set_level(logging.INFO, logger="modelos.hub")
    modelo = modelos.cargar("prueba-juguete")
    referencia = TransformerJuguete.from_pretrained(juguete)
    assert not modelo.training and next(modelo.parameters()).device == modelos.dispositivo()
    for (clave, a), b in zip(modelo.state_dict().items(), referencia.state_dict().values(), strict=True):
        assert torch.equal(a, b), clave
    assert modelos.cargar("prueba-juguete") is modelo
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "INFO",
            f"Checkpoint prueba-juguete: copia incluida {juguete} (no hay revisión fijada en el Hub: publica con"
            " `python -m modelos.entrenamiento.publicar` y fíjala en el REGISTRO o en"
            " ATENCION_REVISION_PRUEBA_JUGUETE).",
        )
    ]


def test_revision_que_no_es_un_commit_se_dice_en_el_log(juguete, caplog, monkeypatch):
    monkeypatch.setenv("ATENCION_REVISION_PRUEBA_JUGUETE", "main")
    caplog.set_level(logging.INFO, logger="modelos.hub")
    modelos.cargar("prueba-juguete")
    assert "«main» no es un commit de 40 hex" in caplog.records[-1].getMessage()


def test_ocho_hilos_a_la_vez_construyen_el_modelo_una_vez(juguete, monkeypatch):
    construidos, original = [], hub.construir_validado

    def construir_lento(*args):
        construidos.append(args)
        time.sleep(0.05)  # ensancha la ventana de la carrera
        return original(*args)

    monkeypatch.setattr(hub, "construir_validado", construir_lento)
    barrera, resultados = threading.Barrier(8), []

    def pedir() -> None:
        barrera.wait()
        resultados.append(modelos.cargar("prueba-juguete"))

    hilos = [threading.Thread(target=pedir) for _ in range(8)]
    for hilo in hilos:
        hilo.start()
    for hilo in hilos:
        hilo.join(10)
    assert len(construidos) == 1 and len(resultados) == 8 and all(m is resultados[0] for m in resultados)


def _estropear(carpeta: Path, caso: str) -> str:
    """Estropea la copia incluida; devuelve el archivo que el error debe nombrar."""
    config = carpeta / "config.json"
    if caso == "carpeta_ausente":
        for p in carpeta.iterdir():
            p.unlink()
        carpeta.rmdir()
        return "config.json"
    if caso == "safetensors_ausente":
        (carpeta / "model.safetensors").unlink()
    elif caso == "safetensors_truncado":
        datos = (carpeta / "model.safetensors").read_bytes()
        (carpeta / "model.safetensors").write_bytes(datos[: len(datos) // 2])
    elif caso == "safetensors_de_otra_forma":  # config.json dice d_modelo 32; los pesos son de 16
        config.write_text(json.dumps({**json.loads(config.read_text()), "d_modelo": 32}))
    elif caso == "config_no_json":
        config.write_text("{esto no es json")
        return "config.json"
    elif caso == "config_enorme":  # se rechaza antes de reservar memoria
        config.write_text(json.dumps({"d_modelo": 10**9}))
        return "config.json"
    elif caso == "config_con_clave_ajena":
        config.write_text(json.dumps({"d_modelo": 16, "pickle": "sí"}))
        return "config.json"
    return "model.safetensors"


@pytest.mark.parametrize(
    ("caso", "mensaje", "tipo"),
    [
        ("carpeta_ausente", "falta", FileNotFoundError),
        ("safetensors_ausente", "falta", FileNotFoundError),
        ("safetensors_truncado", "está dañado o no es safetensors", hub.ErrorCheckpoint),
        ("safetensors_de_otra_forma", "«fichas.weight» tiene forma (10, 16), pero", hub.ErrorCheckpoint),
        ("config_no_json", "no es un config.json válido", hub.ErrorCheckpoint),
        ("config_enorme", "«d_modelo»=1000000000 no vale", hub.ErrorCheckpoint),
        ("config_con_clave_ajena", "«pickle»=sí no vale", hub.ErrorCheckpoint),
    ],
)
def test_copia_incluida_rota_da_un_error_que_nombra_archivo_y_arreglo(juguete, caso, mensaje, tipo):
    archivo = _estropear(juguete, caso)
    with pytest.raises(tipo) as info:
        modelos.cargar("prueba-juguete")
    texto = str(info.value)
    assert f"{juguete / archivo}: {mensaje}" in texto, texto
    assert "regenera con `python -m modelos.entrenamiento prueba-juguete`" in texto
    assert "Tampoco se usó el Hub: no hay revisión fijada" in texto
    # Reparada la copia, la siguiente llamada carga (el error no quedó guardado).
    if juguete.exists():
        for p in juguete.iterdir():
            p.unlink()
    guardar_juguete(juguete)
    assert not modelos.cargar("prueba-juguete").training


def test_cargar_archivo_da_la_ruta_incluida_o_un_error_claro(juguete):
    assert modelos.cargar_archivo("prueba-juguete", "instantaneas.json") == juguete / "instantaneas.json"
    with pytest.raises(FileNotFoundError, match=r"instantaneas\.safetensors: falta; regenera con `python -m"):
        modelos.cargar_archivo("prueba-juguete", "instantaneas.safetensors")
    (juguete / "rota.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}")
    with pytest.raises(hub.ErrorCheckpoint, match=r"rota\.safetensors: está dañado"):
        modelos.cargar_archivo("prueba-juguete", "rota.safetensors")
    with pytest.raises(ValueError, match="Nombre de archivo no válido"):
        modelos.cargar_archivo("prueba-juguete", "../secreto.json")


def test_nombre_desconocido_da_error_en_espanol():
    with pytest.raises(ValueError, match="Checkpoint desconocido «gpt-5»; los hay: inversion-digitos"):
        modelos.cargar("gpt-5")


# --- dispositivo() ---------------------------------------------------------------------------


def test_dispositivo_forzado_y_validado(monkeypatch):
    monkeypatch.setenv(hub.VARIABLE_DISPOSITIVO, " CPU ")
    assert modelos.dispositivo() == torch.device("cpu")
    monkeypatch.setenv(hub.VARIABLE_DISPOSITIVO, "tpu")
    with pytest.raises(ValueError, match="ATENCION_DISPOSITIVO='tpu' no es válido: usa cpu, cuda o mps"):
        modelos.dispositivo()
    if not torch.cuda.is_available():
        monkeypatch.setenv(hub.VARIABLE_DISPOSITIVO, "cuda")
        with pytest.raises(ValueError, match="no ve ninguna GPU CUDA"):
            modelos.dispositivo()
        monkeypatch.delenv(hub.VARIABLE_DISPOSITIVO)
        esperado = "mps" if torch.backends.mps.is_available() else "cpu"
        assert modelos.dispositivo() == torch.device(esperado)


# --- Los checkpoints reales y la publicación -------------------------------------------------


def test_los_checkpoints_reales_cargan_de_la_copia_incluida_en_menos_de_2_s(tmp_path):
    faltan = [n for n in hub.REGISTRO if not (hub.CARPETA / n / "model.safetensors").is_file()]
    if faltan:
        pytest.skip(f"aún no existen: {', '.join(faltan)} (python -m modelos.entrenamiento NOMBRE)")
    acciones = [{"nombre": n} for n in hub.REGISTRO]
    resultados, log = correr(tmp_path, acciones, HF_HUB_OFFLINE="1", ATENCION_CHECKPOINTS=str(hub.CARPETA))
    total = sum(r["segundos"] for r in resultados.values())
    print(f"\nlos {len(hub.REGISTRO)} checkpoints reales: {total:.2f} s")
    assert all(r.get("eval") for r in resultados.values()), resultados
    assert total < 2 and len(log) == len(hub.REGISTRO) and all("copia incluida" in linea for linea in log)


def test_publicar_valida_y_sube_con_upload_folder(juguete, capsys):
    class ApiFalsa:
        def __init__(self):
            self.llamadas = []

        def create_repo(self, repo, **kw):
            self.llamadas.append(("create_repo", repo, kw))

        def upload_folder(self, **kw):
            self.llamadas.append(("upload_folder", kw["repo_id"], kw))
            return type("CommitInfo", (), {"oid": "a" * 40})()

    (juguete / "basura.pt").write_bytes(b"pickle")
    api = ApiFalsa()
    assert publicar.publicar(["prueba-juguete"], "org", api=api) == {"prueba-juguete": "a" * 40}
    (_, repo, kw_crear), (_, _, kw_subir) = api.llamadas
    assert repo == "org/prueba-juguete" and kw_crear["exist_ok"]
    assert kw_subir["folder_path"] == juguete and kw_subir["allow_patterns"] == publicar.PATRONES
    assert [p.name for p in publicar.archivos_a_subir(juguete)] == [
        "README.md",
        "config.json",
        "instantaneas.json",
        "model.safetensors",
    ]
    assert "subido a org/prueba-juguete@" + "a" * 40 in capsys.readouterr().out


def test_publicar_ensaya_sin_red_y_no_sube_nada_si_una_copia_esta_rota(juguete, capsys):
    assert publicar.main(["--ensayo", "prueba-juguete"]) == 0
    assert f"prueba-juguete: {juguete} válido (README.md, config.json" in capsys.readouterr().out
    (juguete / "model.safetensors").write_bytes(b"roto")
    assert publicar.main(["--ensayo", "prueba-juguete"]) == 1
    assert "No se publicó nada:" in capsys.readouterr().err
