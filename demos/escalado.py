"""¿Por qué dividir por √d? Productos punto de consultas y claves al azar, con y sin escala."""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterator
from functools import lru_cache

import gradio as gr
import numpy as np
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Numero
from demos.comun.figuras import C0, C1, Curva, Curvas, Histograma, Nota, Paneles, Referencia, miles
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.validar import entero
from demos.comun.vista import Barrido, Vista, envolver, explicacion, grafico, llenar_al_abrir
from modelos.gradiente import norma_gradiente
from modelos.hilos import un_hilo

CONSULTAS = 1000
D_MAX, CLAVES_MAX, SEMILLA_MAX = 4096, 64, 2**31 - 1
DIMENSIONES_CURVA = tuple(2**k for k in range(13))  # 1, 2, 4, ..., 4096
LOG2_D_MAX = 12  # el deslizador en escala logarítmica: log₂ 4096
PASO_LOG2 = 0.5  # su paso: 25 posiciones (`d_del_deslizador`)
D_LECCION = (2, 64, 512)  # las d de la lección: donde no pasa nada, un tamaño de cabeza típico y uno grande
D_INICIAL = 64  # abre donde se ve el problema: sin escala, un peso se lleva casi todo (0.87)
CLAVES_INICIAL = 8  # las de la lección

EXPLICACION = r"""
Si las consultas y las claves tienen $d$ números al azar independientes, de media 0 y varianza 1, el producto punto
$q \cdot k$ es una suma de $d$ términos: su desviación típica crece como $\sqrt{d}$. Con $d$ grande
los puntajes son enormes, el softmax se vuelve casi un *one-hot* (un peso cerca de 1, el resto
cerca de 0) y los gradientes se apagan. Dividir por $\sqrt{d}$ devuelve la desviación típica a 1:

$$\text{Atención}(Q, K, V) = \text{softmax}\!\left(\frac{Q K^\top}{\sqrt{d}}\right) V$$

Aquí, 1 000 consultas al azar miran a unas cuantas claves al azar. Mueve $d$ y compara; la tabla
repite el experimento de la lección con d = 2, 64 y 512.
"""

EXPLICACION_GRADIENTE = r"""
### ¿Y el gradiente?
El softmax deja pasar el gradiente según $\dfrac{\partial p_i}{\partial s_j} = p_i\,(\delta_{ij} - p_j)$: si un
peso se lleva casi todo, cada entrada es casi 0 y a los puntajes $s$ no les llega nada. Con las mismas 1 000
consultas y 8 claves de la tabla, la norma $\lVert \partial p / \partial s \rVert$ del jacobiano de cada
consulta, calculada con autograd, sin y con la división por $\sqrt{d}$:
"""

PUENTE = (
    "Dividir por √d es lo mismo que usar una **temperatura T = √d** en el softmax: "
    "la pestaña *Temperatura* muestra qué hace T con los pesos."
)


def _validar(d, claves, semilla) -> tuple[int, int, int]:
    return (
        entero(d, "La dimensión d", 1, D_MAX),
        entero(claves, "El número de claves", 2, CLAVES_MAX),
        entero(semilla, "La semilla", 0, SEMILLA_MAX),
    )


def _entropia(p: torch.Tensor) -> torch.Tensor:
    """Entropía en bits de cada fila de pesos: −Σ p·log₂ p (los mismos bits que escrita así, con un tensor
    intermedio menos: con 64 claves, 0.47 ms contra 0.63)."""
    return torch.log2(p.clamp_min(1e-30)).mul_(p).sum(dim=-1).neg_()


def _sorteo(d: int, claves: int, semilla: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Las consultas (CONSULTAS, d) y las claves (claves, d) al azar de la semilla.

    Las d de la lección salen como en la lección: un solo generador para d = 2, 64 y 512, en ese
    orden (así d = 64 da 8.0 → 1.00, como la lección, y no lo de un generador recién sembrado).
    Otra d empieza su propio generador con la semilla.
    """
    g = torch.Generator().manual_seed(semilla)
    for anterior in D_LECCION if d in D_LECCION else ():
        if anterior == d:
            break
        torch.randn(CONSULTAS + claves, anterior, generator=g)  # lo que la lección sorteó antes
    return torch.randn(CONSULTAS, d, generator=g), torch.randn(claves, d, generator=g)


def _sorteos_leccion(claves: int, semilla: int) -> dict[int, tuple[torch.Tensor, torch.Tensor]]:
    """`_sorteo(d, claves, semilla)` para las tres d de la lección, con los mismos números y menos sorteos.

    d = 64 y d = 512 salen de un solo generador: lo que d = 64 sortea (CONSULTAS + claves filas de 64
    números, un múltiplo de 16 en dos llamadas) gasta tantos números del generador como el salto
    `torch.randn(CONSULTAS + claves, 64)` de `_sorteo(512, …)`, así que d = 512 sigue donde terminó d = 64
    en lugar de volver a sortear d = 2 y d = 64 (580 · (CONSULTAS + claves) números en vez de 646).
    """
    sorteos = {D_LECCION[0]: _sorteo(D_LECCION[0], claves, semilla)}
    g = torch.Generator().manual_seed(semilla)
    torch.randn(CONSULTAS + claves, D_LECCION[0], generator=g)  # lo que la lección sorteó para d = 2
    for d in D_LECCION[1:]:
        sorteos[d] = torch.randn(CONSULTAS, d, generator=g), torch.randn(claves, d, generator=g)
    return sorteos


def medir(d: int, claves: int = 8, semilla: int = 0) -> dict[str, float | np.ndarray]:
    """Productos punto de CONSULTAS consultas contra `claves` claves en dimensión `d`.

    Devuelve la desviación antes y después de dividir por √d, el peso máximo
    medio y la entropía media (bits) de los pesos, y los puntajes mismos.
    Con semilla 0 y 8 claves, d = 2, 64 y 512 dan las tres filas de la lección.
    """
    return _medida(*_sorteo(d, claves, semilla), d)


def _medida(q: torch.Tensor, k: torch.Tensor, d: int) -> dict[str, float | np.ndarray]:
    """`medir` de unas consultas (CONSULTAS, d) y claves (claves, d) ya sorteadas."""
    punto = q @ k.T  # (CONSULTAS, claves)
    escalado = punto / math.sqrt(d)
    p_sin, p_con = torch.softmax(punto, dim=-1), torch.softmax(escalado, dim=-1)
    return {
        "desv_sin": punto.std().item(),
        "desv_con": escalado.std().item(),
        "max_sin": p_sin.amax(dim=-1).mean().item(),
        "max_con": p_con.amax(dim=-1).mean().item(),
        "entropia_sin": _entropia(p_sin).mean().item(),
        "entropia_con": _entropia(p_con).mean().item(),
        "punto": punto.flatten().numpy(),
        "escalado": escalado.flatten().numpy(),
    }


def curva(claves: int, semilla: int) -> tuple[np.ndarray, np.ndarray]:
    """Peso máximo medio para cada d de DIMENSIONES_CURVA, sin y con escala (copias: nadie altera la caché).

    Con semilla 0 (la de la figura), la primera vez que se pide otro número de claves que el inicial,
    un hilo calcula de una vez la curva de todos (`_tabla_semilla_0`, ≈ 1 s de CPU en 2 núcleos); hasta que
    termina, cada número de claves se calcula solo. Los números son los mismos por los dos caminos.
    """
    tabla = _tabla_lista() if semilla == 0 else None
    if tabla is None:
        if semilla == 0 and claves != CLAVES_INICIAL:
            _empezar_tabla()
        sin, con = _curva(claves, semilla)
    else:
        sin, con = tabla[0][claves], tabla[1][claves]
    return sin.copy(), con.copy()


@lru_cache(maxsize=64)
def _curva(claves: int, semilla: int) -> tuple[np.ndarray, np.ndarray]:
    filas = [medir(d, claves, semilla) for d in DIMENSIONES_CURVA]
    return np.array([f["max_sin"] for f in filas]), np.array([f["max_con"] for f in filas])


def _maximos(punto: torch.Tensor, d: int) -> tuple[float, float]:
    """El peso máximo medio de los puntajes (CONSULTAS, claves), sin y con ÷ √d (como en `medir`)."""
    sin = torch.softmax(punto, dim=-1).amax(dim=-1).mean().item()
    return sin, torch.softmax(punto / math.sqrt(d), dim=-1).amax(dim=-1).mean().item()


def _tabla_semilla_0() -> tuple[np.ndarray, np.ndarray]:
    """`curva(claves, 0)` para todos los números de claves: (sin, con), (CLAVES_MAX + 1, len(DIMENSIONES_CURVA)).

    Las consultas de una d se sortean una vez para todas las claves: fuera de las d de la lección, las
    claves de `_sorteo(d, c, 0)` son las primeras c filas de las de CLAVES_MAX (el generador de torch las
    llena de a 16 números cuando c·d es múltiplo de 16; si no, se sortean aparte, como en `_sorteo`).
    El producto se hace para cada c: el de las 64 claves recortado a c difiere en el último bit con c ≤ 11
    (la BLAS elige otro núcleo con pocas columnas; visto en una CPU de 2 núcleos). Cuesta ≈ 0.3 s más, una vez.
    """
    sin = np.full((CLAVES_MAX + 1, len(DIMENSIONES_CURVA)), np.nan)
    con = sin.copy()
    with un_hilo():
        for j, d in enumerate(DIMENSIONES_CURVA):
            for c, punto in _productos_semilla_0(d):  # de a uno: 63 productos de (CONSULTAS, c) juntos son 8 MB
                sin[c, j], con[c, j] = _maximos(punto, d)
    return sin, con


def _productos_semilla_0(d: int) -> Iterator[tuple[int, torch.Tensor]]:
    """(c, los puntajes (CONSULTAS, c) de `_sorteo(d, c, 0)`) para c = 2…CLAVES_MAX, sorteando lo menos posible."""
    todas = range(2, CLAVES_MAX + 1)
    if d in D_LECCION:  # sus consultas dependen de las claves (lo que la lección sorteó antes)
        for c in todas:
            yield c, _producto(*_sorteo(d, c, 0))
        return
    g = torch.Generator().manual_seed(0)
    q = torch.randn(CONSULTAS, d, generator=g)
    tras_q = g.get_state()
    claves = torch.randn(CLAVES_MAX, d, generator=g)  # (CLAVES_MAX, d)
    for c in todas:
        if c * d % 16:
            g.set_state(tras_q)
            yield c, _producto(q, torch.randn(c, d, generator=g))
        else:  # un producto por c: recortar el de las 64 no da los mismos bits con pocas claves
            yield c, _producto(q, claves[:c])


def _producto(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return q @ k.T  # (CONSULTAS, claves)


_tabla: list = []  # [la tabla de `_tabla_semilla_0`] cuando está lista; solo se escribe una vez
_cerrojo_tabla = threading.Lock()
_hilo_tabla: list[threading.Thread] = []


def _tabla_lista() -> tuple[np.ndarray, np.ndarray] | None:
    return _tabla[0] if _tabla else None


def _empezar_tabla() -> None:
    """Lanza (una vez por proceso) el hilo que calcula la tabla de todas las claves."""
    with _cerrojo_tabla:
        if _hilo_tabla:
            return
        hilo = threading.Thread(target=lambda: _tabla.append(_tabla_semilla_0()), name="escalado-curvas", daemon=True)
        _hilo_tabla.append(hilo)
    hilo.start()


@lru_cache(maxsize=8)
def gradientes(claves: int = 8, semilla: int = 0) -> dict[str, np.ndarray]:
    """Para cada d de DIMENSIONES_CURVA, con las mismas consultas y claves que `medir`: la mediana y la media
    sobre las consultas de ‖∂p/∂s‖ (el jacobiano del softmax de cada consulta, con autograd), sin y con ÷ √d."""
    filas: dict[str, list[float]] = {f"{e}_{c}": [] for e in ("mediana", "media") for c in ("sin", "con")}
    with un_hilo():  # matrices de 1 000 × 8: con más hilos solo se estorban (0.26 s contra 0.015 s cada d)
        _gradientes(filas, claves, semilla)
    return {nombre: np.array(v) for nombre, v in filas.items()}


def _gradientes(filas: dict[str, list[float]], claves: int, semilla: int) -> None:
    for d in DIMENSIONES_CURVA:
        q, k = _sorteo(d, claves, semilla)
        punto = q @ k.T  # (CONSULTAS, claves)
        for cual, s in (("sin", punto), ("con", punto / math.sqrt(d))):
            n = norma_gradiente(s)  # (CONSULTAS,)
            filas[f"mediana_{cual}"].append(n.median().item())
            filas[f"media_{cual}"].append(n.mean().item())


def calcular_gradiente() -> tuple[Curvas, str]:
    """La sección del gradiente: (curvas de ‖∂p/∂s‖ según d, texto), con las 8 claves y la semilla de la tabla."""
    g, parejos = gradientes(8, 0), norma_gradiente(torch.zeros(1, 8)).item()
    empate = norma_gradiente(torch.tensor([[0.0, 0.0] + [-60.0] * 6])).item()  # dos pesos en 1/2, el resto en 0
    x = np.array(DIMENSIONES_CURVA, dtype=float)
    i = {d: DIMENSIONES_CURVA.index(d) for d in D_LECCION}
    figura = Curvas(
        (
            Curva("sin escala: mediana", x, g["mediana_sin"], color=C1),
            Curva("con escala (÷ √d): mediana", x, g["mediana_con"], color=C0),
            Curva("sin escala: media", x, g["media_sin"], color=C1, estilo="punteada"),
            Curva("con escala: media", x, g["media_con"], color=C0, estilo="punteada"),
        ),
        titulo="‖∂p/∂s‖ del softmax según d (1 000 consultas, 8 claves, semilla 0)",
        eje_x="Dimensión d (escala log)",
        eje_y="‖∂p/∂s‖ (escala log)",
        log_x=True,
        log_y=True,
        marcas_x=DIMENSIONES_CURVA[::2],
        horizontales=(Referencia(parejos, f"pesos parejos ({parejos:.2f})"),),
        notas=(Nota(512, g["mediana_sin"][i[512]], f"{g['mediana_sin'][i[512]]:.1e}", color=C1),),
        formato=".3g",
        pista="{n}<br>d = {x}<br>‖∂p/∂s‖ = {y}",
    )
    mediana = [g["mediana_sin"][i[d]] for d in D_LECCION]
    cae = "cae" if mediana[0] > mediana[1] > mediana[2] else "va"
    one_hot = (
        ": con d = 512, en más de la mitad de las consultas el softmax ya es casi un *one-hot* y casi no deja pasar "
        "gradiente"
        if mediana[2] < 1e-2
        else ""
    )
    texto = (
        f"Sin escala, la mediana de ‖∂p/∂s‖ {cae} de **{mediana[0]:.2f}** con d = 2 a "
        f"**{mediana[1]:.3f}** con d = 64 y **{mediana[2]:.1e}** con d = 512{one_hot}. Con ÷ √d se queda en "
        f"{g['mediana_con'].min():.2f}–{g['mediana_con'].max():.2f} para toda d (pesos parejos darían {parejos:.2f}; "
        f"la línea no es el máximo: dos pesos empatados en 1/2 dan {empate:.2f}). "
        f"La media sin escala baja menos ({g['media_sin'][i[512]]:.3f} con d = 512) porque unas pocas consultas con "
        "dos puntajes casi empatados conservan gradiente."
    )
    return figura, texto


def _figura_histogramas(m: dict, d: int) -> Paneles:
    """Los puntajes sin y con escala, con el mismo eje x: con d grande, el primero es √d veces más ancho."""
    sin = Histograma.de(
        {"sin escala": m["punto"]},
        colores=(C1,),
        titulo=f"Sin escala: q·k   (desviación típica {m['desv_sin']:.1f})",  # los decimales de la lección
        eje_x="Puntaje",
        eje_y="Cantidad de pares",
    )
    con = Histograma.de(
        {"con escala": m["escalado"]},
        colores=(C0,),
        titulo=f"Con escala: q·k / √{d}   (desviación típica {m['desv_con']:.2f})",
        eje_x="Puntaje",
        eje_y="",
    )
    return Paneles((sin, con), columnas=2, compartir_x=True, alto_fila=300)


def _figura_curva(claves: int, d: int, m: dict) -> Curvas:
    # La tendencia no depende de la semilla: la curva usa siempre la 0 (se calcula una vez por número de
    # claves; con la semilla de cada visitante costaba ≈ 100 ms por respuesta, el 15 % de la CPU de una clase).
    sin, con = curva(claves, 0)
    x = np.array(DIMENSIONES_CURVA, dtype=float)
    return Curvas(
        (
            Curva("sin escala", x, sin, color=C1),
            Curva("con escala (÷ √d)", x, con, color=C0),
        ),
        titulo="Peso máximo medio del softmax según d (semilla 0)",
        eje_x="Dimensión d (escala log)",
        eje_y="Peso máximo medio",
        log_x=True,
        rango_y=(0, 1.16),
        marcas_x=DIMENSIONES_CURVA[::2],
        horizontales=(Referencia(1 / claves, f"parejos (1/{claves})"),),  # leyenda corta: cabe en una línea
        verticales=(Referencia(d, f"d = {d}", color="#4d4d4d", punteada=False),),
        notas=(
            Nota(d, m["max_sin"], f"{m['max_sin']:.2f}", color=C1),
            Nota(d, m["max_con"], f"{m['max_con']:.2f}", color=C0),
        ),
        formato=".2f",
    )


def _fila(d: int, m: dict, elegida: bool) -> list[str]:
    """Una fila de la tabla, con los decimales que imprime la lección: «8.0 → 1.00»."""
    return [
        f"{miles(d)}{'  ◀ elegida' if elegida else ''}",
        f"{m['desv_sin']:.1f} → {m['desv_con']:.2f}",
        f"{m['max_sin']:.2f} → {m['max_con']:.2f}",
        f"{m['entropia_sin']:.2f} → {m['entropia_con']:.2f}",
    ]


@lru_cache(maxsize=256)
def _filas_leccion(claves: int, semilla: int) -> tuple[tuple[str, ...], ...]:
    """Las tres d de la lección (sin marcar); la elegida, si es una de ellas, se marca aparte."""
    sorteos = _sorteos_leccion(claves, semilla)
    return tuple(tuple(_fila(dl, _medida(*sorteos[dl], dl), False)) for dl in D_LECCION)


def calcular(d: float = D_INICIAL, claves: float = CLAVES_INICIAL, semilla: float = 0):
    """La vista: (histogramas, curva, tabla de la lección y de la d elegida, texto)."""
    d, claves, semilla = _validar(d, claves, semilla)
    m = medir(d, claves, semilla)
    filas = {dl: list(fila) for dl, fila in zip(D_LECCION, _filas_leccion(claves, semilla), strict=True)}
    filas[d] = _fila(d, m, True)
    tabla = [filas[k] for k in sorted(filas)]
    texto = (
        f"Con d = {miles(d)}: desviación típica **{m['desv_sin']:.1f} → {m['desv_con']:.2f}**, peso máximo medio "
        f"**{m['max_sin']:.2f} → {m['max_con']:.2f}**. La entropía máxima posible con {claves} claves "
        f"es log₂ {claves} = {math.log2(claves):.2f} bits (pesos parejos); 0 bits es un *one-hot*.\n\n{PUENTE}"
    )
    return _figura_histogramas(m, d), _figura_curva(claves, d, m), tabla, texto


def _d_desde_log(log_d) -> int:
    """El deslizador (log₂ d) -> d, entero."""
    return min(max(round(2 ** float(log_d)), 1), D_MAX)


def d_del_deslizador() -> tuple[int, ...]:
    """Las d que da el deslizador de log₂ d, una por posición (los botones dan tres de ellas: 2, 64 y 512)."""
    return tuple(_d_desde_log(k * PASO_LOG2) for k in range(round(LOG2_D_MAX / PASO_LOG2) + 1))


def _log_desde_d(d, log_d):
    """Mueve el deslizador cuando d cambia por otro camino (escrita a mano, un botón o la URL)."""
    try:
        d, log_d = float(d), float(log_d)
    except (TypeError, ValueError):
        return gr.skip()
    if not 1 <= d <= D_MAX or round(2**log_d) == round(d):
        return gr.skip()  # ya coincide (el cambio vino del deslizador) o d no es válida
    return round(math.log2(d) * 2) / 2  # el paso del deslizador: medio log₂


# La de arriba, en el navegador (`js=`, sin evento en la cola): escribir d mueve el deslizador. Del deslizador a
# d no hay fórmula en el navegador: cada parada trae su d, calculada por `_d_desde_log` (el Barrido).
# tests/test_velocidad.py la compara con su versión en Python.
JS_LOG_DESDE_D = f"""(d, log_d) => {{
  const v = Number(d), x = Number(log_d);
  if (!(v >= 1 && v <= {D_MAX}) || Math.round(Math.pow(2, x)) === Math.round(v)) return log_d;
  return Math.round(Math.log2(v) * 2) / 2;
}}"""


# --- aprender: predecir y comprobarse (las respuestas las calcula `medir`) -------------------------


def _cifras_de(salida) -> dict[str, float]:
    """Lo que dice el texto de la vista: desviación y peso máximo medio, sin y con escala."""
    texto = salida[3]
    patron = r"desviación típica \*\*([\d.]+) → ([\d.]+)\*\*, peso máximo medio \*\*([\d.]+) → ([\d.]+)\*\*"
    desv_sin, desv_con, max_sin, max_con = map(float, re.search(patron, texto).groups())
    return {"desv_sin": desv_sin, "desv_con": desv_con, "max_sin": max_sin, "max_con": max_con}


def _verdad_512(salida) -> dict:
    c = _cifras_de(salida)
    return {"respuesta": c["max_sin"], "desv": f"{c['desv_sin']:.1f}", "con": f"{c['max_con']:.2f}"}


def _crece_desviacion(antes, despues) -> dict:
    """Cuántas veces crece la desviación de q·k sin escala al pasar de d = 64 a d = 256."""
    a, b = _cifras_de(antes)["desv_sin"], _cifras_de(despues)["desv_sin"]
    veces = b / a
    return {"respuesta": 2 if abs(veces - 2) < 0.3 else 4 if abs(veces - 4) < 0.6 else 1, "veces": f"{veces:.2f}"}


def _quieto_con_escala(antes, despues) -> dict:
    a64, a512 = _cifras_de(antes)["max_con"], _cifras_de(despues)["max_con"]
    return {
        "respuesta": "quieto" if abs(a512 - a64) < 0.05 else ("sube" if a512 > a64 else "baja"),
        "a64": f"{a64:.2f}",
        "a512": f"{a512:.2f}",
    }


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        f"Sin escala, ¿cuánto vale el peso máximo medio a d = 512? (Con {CLAVES_INICIAL} claves, "
        f"{1 / CLAVES_INICIAL:g} es parejo y 1 es "
        "un solo peso con todo.)",
        verdad=ap.EnLaPestana(calcular, _verdad_512, cambio={"d": 512}),
        porque="Con d = 512 (el botón «d = 512» lo muestra) la desviación de q·k es {desv}: un puntaje le saca "
        "tanta ventaja a los demás que el softmax le da casi todo. Dividir por √d la devuelve a 1, y el peso máximo "
        "baja a {con}.",
    ),
    preguntas=(
        ap.Pregunta(
            "Al pasar de d = 64 a d = 256 (cuatro veces más números), la desviación de q·k sin escala…",
            (
                ap.Alternativa(
                    2,
                    "se duplica",
                    "Es una suma de d términos de varianza 1: la varianza crece como d y la "
                    "desviación como √d; √4 = 2 (aquí, {veces} veces).",
                ),
                ap.Alternativa(
                    4,
                    "se cuadruplica",
                    "Eso le pasa a la varianza, que crece como d; la desviación es su "
                    "raíz: crece como √d, el doble (aquí, {veces} veces).",
                ),
                ap.Alternativa(
                    1,
                    "no cambia",
                    "La que no cambia es la desviación con escala. Sin escala, cada término nuevo suma varianza y la "
                    "desviación crece como √d (aquí, {veces} veces).",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _crece_desviacion, cambio={"d": 256}),
        ),
        ap.Pregunta(
            f"Con escala (÷ √d) y {CLAVES_INICIAL} claves, al pasar de d = 64 a d = 512 el peso máximo medio…",
            (
                ap.Alternativa(
                    "quieto",
                    "queda casi quieto",
                    "La escala devuelve la desviación a 1 para toda d: de "
                    "d = 64 a d = 512 el peso máximo va de {a64} a {a512}.",
                ),
                ap.Alternativa(
                    "sube",
                    "sube hasta 1",
                    "Eso pasa sin escala; con ÷ √d la desviación queda en 1 y el peso máximo va de {a64} a {a512}.",
                ),
                ap.Alternativa(
                    "baja",
                    f"baja hacia 1/{CLAVES_INICIAL} (pesos parejos)",
                    "Los pesos no se igualan: la desviación queda en 1, no en 0; el peso máximo va de {a64} a {a512}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _quieto_con_escala, cambio={"d": 512}),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        log_d = Deslizador(
            0,
            LOG2_D_MAX,
            value=math.log2(D_INICIAL),
            step=PASO_LOG2,
            scale=3,
            label=f"log₂ d  (0 → d = 1;  6 → d = 64;  9 → d = 512;  {LOG2_D_MAX} → d = {miles(D_MAX)})",
        )
        d = Numero(
            D_INICIAL,
            precision=0,
            minimum=1,
            maximum=D_MAX,
            step=1,
            scale=1,
            label=f"Dimensión d (de 1 a {miles(D_MAX)})",
        )
    # d es la entrada de `calcular` y de la URL. El deslizador de log₂ d y los botones la escriben desde el
    # navegador con sus paradas ya calculadas (el `Barrido` de abajo); escrita a mano, mueve el deslizador.
    d.change(None, [d, log_d], log_d, js=JS_LOG_DESDE_D, api_visibility="private", show_progress="hidden")
    histogramas = grafico("Puntajes antes y después de dividir por √d")
    with gr.Row():
        rapidos = [gr.Button(f"d = {v}", size="sm", min_width=80) for v in D_LECCION]
        claves = Deslizador(2, CLAVES_MAX, value=CLAVES_INICIAL, step=1, scale=3, label="Número de claves")
        semilla = Numero(0, precision=0, minimum=0, maximum=SEMILLA_MAX, scale=1, label="Semilla")
    with gr.Row():
        curva_ = grafico("Peso máximo medio según d", scale=3)
        with gr.Column(scale=2):
            tabla = gr.Dataframe(
                headers=["d", "Desviación típica", "Peso máximo", "Entropía (bits)"],
                column_widths=["22%", "26%", "26%", "26%"],
                label="Sin escala → con escala (1 000 consultas; las d de la lección, y la elegida)",
                interactive=False,
            )
            texto = gr.Markdown()
    with gr.Column(elem_id="escalado-gradiente"):
        explicacion(EXPLICACION_GRADIENTE)
        figura_gradiente = grafico("‖∂p/∂s‖ del softmax según d, sin y con escala")
        texto_gradiente = gr.Markdown()
    llenar_al_abrir(texto, envolver(calcular_gradiente), [], [figura_gradiente, texto_gradiente])
    seccion_glosario(("puntaje", "softmax", "pesos", "one-hot", "entropía"), "escalado")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[d, claves, semilla],
        salidas=[histogramas, curva_, tabla, texto],
        url={"d": d, "claves": claves, "semilla": semilla},
        disparadores=[semilla.input],  # d y las claves las barre el navegador
        barridos=(
            Barrido(claves),
            Barrido(
                log_d,
                entrada=d,
                a_entrada=_d_desde_log,
                atajos=tuple((b, math.log2(v)) for b, v in zip(rapidos, D_LECCION, strict=True)),
            ),
        ),
    )
