"""La forma de la casa, leída del código con `ast`: sin ciclos de import y sin imports hacia arriba.

Las capas, de abajo arriba: `modelos` (PyTorch puro) → `demos.comun` (lo que llaman las pestañas) →
las pestañas → `demos.servir` (lo que las conecta a Gradio) → `servidor` (sirve y protege) → `app`
(arma la suite y la sirve). Nada importa hacia arriba. `scripts` (medidas, ataques, el Space) usa el proyecto; el
proyecto no lo usa a él, y sus secciones de `make bench` toman lo común de `scripts.medir`, no unas de otras.
El grafo se arma con todos los `import` del archivo, también
los que van dentro de una función: un import perezoso no esconde un ciclo.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent
PAQUETES = ("modelos", "demos", "servidor", "scripts")


def _modulos() -> dict[str, Path]:
    """nombre con puntos -> archivo, para app.py y cada .py de los paquetes del proyecto."""
    modulos = {"app": RAIZ / "app.py"}
    for paquete in PAQUETES:
        for archivo in sorted((RAIZ / paquete).rglob("*.py")):
            partes = archivo.relative_to(RAIZ).with_suffix("").parts
            if partes[-1] == "__init__":
                partes = partes[:-1]
            modulos[".".join(partes)] = archivo
    return modulos


MODULOS = _modulos()


def _absoluto(nombre: str, archivo: Path, nivel: int, modulo: str | None) -> str:
    """El módulo al que apunta un `from .x import y` escrito en `nombre`."""
    if not nivel:
        return modulo or ""
    base = nombre.split(".")
    if archivo.name != "__init__.py":
        base = base[:-1]  # un módulo: el punto es su paquete
    base = base[: len(base) - (nivel - 1)]
    return ".".join([*base, modulo] if modulo else base)


def _importados(nombre: str, archivo: Path) -> set[str]:
    """Los módulos del proyecto que importa `nombre` (en cualquier parte del archivo)."""
    destinos: set[str] = set()
    for nodo in ast.walk(ast.parse(archivo.read_text(encoding="utf-8"), filename=str(archivo))):
        if isinstance(nodo, ast.Import):
            candidatos = [a.name for a in nodo.names]
        elif isinstance(nodo, ast.ImportFrom):
            origen = _absoluto(nombre, archivo, nodo.level, nodo.module)
            # `from paquete import modulo` importa el módulo; `from modulo import nombre`, el módulo.
            candidatos = [f"{origen}.{a.name}" if f"{origen}.{a.name}" in MODULOS else origen for a in nodo.names]
        else:
            continue
        for c in candidatos:
            # `import a.b.c` de algo que no es módulo del proyecto: el módulo más largo que sí lo es
            while c and c not in MODULOS:
                c = c.rpartition(".")[0]
            if c and c != nombre:
                destinos.add(c)
    return destinos


def _externos(archivo: Path) -> set[str]:
    """Los paquetes de fuera que importa el archivo (la primera parte del nombre)."""
    fuera = set()
    for nodo in ast.walk(ast.parse(archivo.read_text(encoding="utf-8"))):
        if isinstance(nodo, ast.Import):
            fuera |= {a.name.split(".")[0] for a in nodo.names}
        elif isinstance(nodo, ast.ImportFrom) and not nodo.level and nodo.module:
            fuera.add(nodo.module.split(".")[0])
    return fuera


GRAFO = {nombre: _importados(nombre, archivo) for nombre, archivo in MODULOS.items()}


def _ciclo(grafo: dict[str, set[str]]) -> list[str]:
    """Un ciclo de imports (sus módulos, en rueda), o [] si no hay; `graphlib` lo encuentra al ordenar."""
    try:
        graphlib.TopologicalSorter(grafo).prepare()
    except graphlib.CycleError as e:
        return e.args[1]
    return []


def test_el_detector_encuentra_un_ciclo_y_un_import_relativo():
    """La prueba misma: un ciclo de tres y uno de dos se ven; un árbol no."""
    assert sorted(set(_ciclo({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}))) == ["a", "b", "c"]
    assert sorted(set(_ciclo({"a": {"b"}, "b": {"a"}}))) == ["a", "b"]
    assert _ciclo({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    assert _absoluto("demos.x.pestana", Path("demos/x/pestana.py"), 1, "dibujos") == "demos.x.dibujos"
    assert _absoluto("demos.x", Path("demos/x/__init__.py"), 1, "pestana") == "demos.x.pestana"
    assert _absoluto("demos.x.pestana", Path("demos/x/pestana.py"), 2, "comun") == "demos.comun"


def test_se_leen_todos_los_modulos_del_proyecto():
    assert {"app", "modelos", "modelos.atencion", "demos", "servidor"} <= set(MODULOS)
    assert len(MODULOS) > 40
    assert "modelos.atencion" in GRAFO["modelos"]  # el __init__ reexporta: la arista se ve


def test_no_hay_ciclos_de_import():
    ciclo = _ciclo(GRAFO)
    assert not ciclo, "Ciclo de import: " + " → ".join(ciclo)


def _capa(nombre: str) -> str:
    if nombre.startswith("scripts."):
        return "scripts"
    if nombre == "app" or nombre.startswith("servidor"):
        return nombre.split(".")[0]
    if nombre.startswith("modelos"):
        return "modelos"
    if nombre.startswith("demos.comun"):
        return "comun"
    if nombre.startswith("demos.servir"):
        return "servir"
    if nombre == "demos":
        return "registro"
    return "pestana"


# Lo que cada capa NO puede importar: todo lo que está por encima de ella.
PROHIBIDO = {
    "modelos": {"comun", "pestana", "registro", "servir", "app", "servidor"},
    "comun": {"pestana", "registro", "servir", "app", "servidor"},
    "pestana": {"servir", "app", "servidor", "registro"},
    "registro": {"app", "servidor", "servir"},
    "servir": {"app", "servidor"},
    "servidor": {"app"},
    "app": set(),
}
for _prohibido in PROHIBIDO.values():
    _prohibido.add("scripts")  # nada del proyecto usa las medidas ni los ataques


@pytest.mark.parametrize("capa", sorted(PROHIBIDO))
def test_nada_importa_hacia_arriba(capa):
    malos = [
        f"{origen} → {destino}"
        for origen, destinos in GRAFO.items()
        if _capa(origen) == capa
        for destino in sorted(destinos)
        if _capa(destino) in PROHIBIDO[capa]
    ]
    assert not malos, f"Imports hacia arriba desde «{capa}»: " + ", ".join(malos)


def test_make_bench_ordena_sus_secciones_y_ninguna_lo_importa():
    """scripts/bench.py importa cada sección (bench_clase, bench_navegador…); ninguna importa scripts.bench: lo común
    está en scripts.medir (antes, bench y bench_clase se importaban uno al otro)."""
    malos = [o for o, destinos in GRAFO.items() if o.startswith("scripts.") and "scripts.bench" in destinos]
    assert not malos, "Importan scripts.bench: " + ", ".join(malos)
    assert {"scripts.bench_clase", "scripts.bench_navegador", "scripts.medir"} <= GRAFO["scripts.bench"]


def test_el_perfil_de_la_clase_reconoce_la_variante_de_telefono_por_las_lineas_de_hoy():
    """`make bench` reparte las muestras de py-spy por capa; la variante de teléfono se reconoce por las líneas de
    `figura_plotly` que la arman. Escritas a mano (72–74), un cambio arriba en pantalla.py las dejó apuntando a
    `_dominios`, y el 13 % de teléfono del perfil iba a contar como «figura (ancha)»."""
    from scripts import bench_clase

    lineas = bench_clase.lineas_de_telefono()
    codigo = Path("demos/comun/figuras/pantalla.py").read_text(encoding="utf-8").splitlines()
    llamadas = [codigo[int(m.rsplit(":", 1)[1].rstrip(")")) - 1] for m in lineas]
    assert any("angosta.apilar" in c for c in llamadas) and any("angosta.diferencia" in c for c in llamadas)
    pila = ["wrapper (demos/comun/vista.py:10)", f"figura_plotly ({lineas[0]}"]  # py-spy: «función (archivo:línea)»
    assert bench_clase._capa([*pila, "mapa (demos/comun/figuras/pantalla_mapas.py:99)"]) == "variante de teléfono"


def test_una_pestana_no_importa_otra_pestana():
    """Cada pestaña (o paquete de pestaña) se basta con `demos.comun` y `modelos`."""

    def dueno(nombre: str) -> str:
        return ".".join(nombre.split(".")[:2])

    malos = [
        f"{o} → {d}"
        for o, destinos in GRAFO.items()
        if _capa(o) == "pestana"
        for d in destinos
        if _capa(d) == "pestana" and dueno(d) != dueno(o)
    ]
    assert not malos, "Una pestaña importa otra: " + ", ".join(malos)


def test_modelos_no_importa_ninguna_biblioteca_de_interfaz():
    interfaz = {"gradio", "matplotlib", "PIL", "plotly", "fastapi", "starlette", "uvicorn"}
    malos = {n: sorted(_externos(a) & interfaz) for n, a in MODULOS.items() if n.startswith("modelos")}
    assert not {n: m for n, m in malos.items() if m}


def test_las_pestanas_no_importan_las_bibliotecas_de_figuras():
    """Las pestañas describen sus figuras; matplotlib (y plotly.py) son cosa de los dibujantes de
    `demos.comun.figuras`, que las pestañas no importan."""
    dibujantes = {"demos.comun.figuras.pantalla", "demos.comun.figuras.papel"}
    malos = {
        n: sorted(_externos(a) & {"matplotlib", "plotly"})
        for n, a in MODULOS.items()
        if _capa(n) in ("pestana", "comun") and n not in dibujantes
    }
    malos |= {n: sorted(ds & dibujantes) for n, ds in GRAFO.items() if _capa(n) == "pestana"}
    assert not {n: m for n, m in malos.items() if m}


def test_la_biblioteca_no_importa_su_entrenamiento():
    """`modelos.entrenamiento` (recetas, tarjetas, publicar) usa la biblioteca; la biblioteca no lo usa a él."""
    malos = [
        f"{o} → {d}"
        for o, destinos in GRAFO.items()
        if o.startswith("modelos") and not o.startswith("modelos.entrenamiento")
        for d in destinos
        if d.startswith("modelos.entrenamiento")
    ]
    assert not malos, ", ".join(malos)
