"""Atención a mano: Q, K y V de tres palabras en tablas editables, y cada paso con sus números."""

from __future__ import annotations

import math
from functools import lru_cache

import gradio as gr
import numpy as np
import torch

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, TablaEditable
from demos.comun.figuras import Mapa, Paneles, miles, numero
from demos.comun.glosario import seccion
from demos.comun.libro import PASOS, vista_paso
from demos.comun.seguridad import escapar_md
from demos.comun.validar import entero, lista_de_palabras
from demos.comun.vista import LATEX, Vista, envolver, explicacion, grafico, servido
from modelos import atencion
from modelos.hilos import un_hilo

PALABRAS = "Ana, sacó, plata"
Q0 = [[0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]  # una fila por palabra, como en la lección
K0 = [[0.0, 2.0], [1.0, 0.0], [2.0, 1.0]]
V0 = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
MAX_PALABRAS, MAX_COLUMNAS, MAX_LETRAS = 8, 8, 20
MAX_VALOR = 1000.0  # más allá, Q·Kᵀ no cabe en una tabla legible (y con 1e200 desbordaría)

EXPLICACION = r"""
Cada palabra trae tres vectores: una **consulta** $q$ (qué busca), una **clave** $k$ (qué ofrece)
y un **valor** $v$ (qué entrega). La atención compara cada consulta con todas las claves, convierte
los puntajes en pesos que suman 1 y promedia los valores con esos pesos:

$$\text{Atención}(Q, K, V) = \text{softmax}\!\left(\frac{Q K^\top}{\sqrt{d}}\right) V$$

Edita cualquier número de las tablas (una fila por palabra): todo se recalcula. Para agregar una
palabra, escríbela y agrega una fila a Q, K y V.
"""


# --- leer y validar ---------------------------------------------------------------------------


def leer_palabras(texto) -> list[str]:
    """«Ana, sacó, plata» o «Ana sacó plata» -> ["Ana", "sacó", "plata"]."""
    return lista_de_palabras(
        texto,
        "las palabras",
        separador="coma o espacio",
        max_palabras=MAX_PALABRAS,
        max_letras=MAX_LETRAS,
        max_texto=MAX_PALABRAS * (MAX_LETRAS + 2),
    )


def _filas(valor) -> list:
    """Las filas de una tabla que llega como lista de listas, dict {"headers", "data"}, pandas o numpy."""
    if isinstance(valor, dict):
        valor = valor.get("data")
    elif hasattr(valor, "to_numpy"):  # pandas.DataFrame
        valor = valor.to_numpy(dtype=object).tolist()
    if isinstance(valor, np.ndarray):
        valor = valor.tolist()
    return valor if isinstance(valor, list | tuple) else None


def _numero(celda, nombre: str, i: int, j: int) -> float:
    donde = f"{nombre}, fila {i + 1}, columna {j + 1}"
    if isinstance(celda, str):
        texto = celda.strip().replace("−", "-").replace(",", ".")
        if not texto:
            raise ValueError(f"La casilla ({donde}) está vacía: escribe un número.")
        try:
            celda = float(texto)
        except ValueError:
            raise ValueError(f"«{celda[:20]}» ({donde}) no es un número.") from None
    if celda is None:
        raise ValueError(f"La casilla ({donde}) está vacía: escribe un número.")
    if isinstance(celda, bool) or not isinstance(celda, int | float | np.number):
        raise ValueError(f"La casilla ({donde}) no tiene un número.")
    x = float(celda)
    if not math.isfinite(x):
        raise ValueError(f"La casilla ({donde}) vale {x}: usa números finitos.")
    if abs(x) > MAX_VALOR:
        tope = miles(MAX_VALOR)
        raise ValueError(f"La casilla ({donde}) vale {x:g}: usa números entre −{tope} y {tope}.")
    return x


def leer_tabla(valor, nombre: str) -> np.ndarray:
    """Una tabla de números (filas × columnas) validada, o ValueError en español."""
    filas = _filas(valor)
    if filas is None:
        raise ValueError(f"La tabla {nombre} debe ser una tabla de números (filas de números).")
    if not filas or all(isinstance(f, list | tuple) and not f for f in filas):
        raise ValueError(f"La tabla {nombre} está vacía: necesita una fila por palabra.")
    if len(filas) > MAX_PALABRAS:
        raise ValueError(f"La tabla {nombre} tiene {len(filas)} filas; caben hasta {MAX_PALABRAS} (una por palabra).")
    for i, fila in enumerate(filas):
        if not isinstance(fila, list | tuple):
            raise ValueError(f"La fila {i + 1} de {nombre} no es una fila de números.")
        if not 1 <= len(fila) <= MAX_COLUMNAS:
            raise ValueError(f"La fila {i + 1} de {nombre} tiene {len(fila)} números; caben de 1 a {MAX_COLUMNAS}.")
        if len(fila) != len(filas[0]):
            raise ValueError(
                f"Las filas de {nombre} tienen largos distintos ({len(filas[0])} y {len(fila)}): "
                "todas necesitan el mismo número de columnas."
            )
    return np.array([[_numero(c, nombre, i, j) for j, c in enumerate(f)] for i, f in enumerate(filas)])


def _cuantas(n: int, cosa: str) -> str:
    """_cuantas(1, "fila") -> «1 fila»; _cuantas(3, "fila") -> «3 filas»."""
    return f"{n} {cosa}" if n == 1 else f"{n} {cosa}s"


def validar(palabras, Q, K, V) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Las palabras y las tres tablas, con formas que encajan: Q (L, d), K (L, d), V (L, dv)."""
    palabras = leer_palabras(palabras)
    Q, K, V = leer_tabla(Q, "Q"), leer_tabla(K, "K"), leer_tabla(V, "V")
    (Lq, dq), (Lk, dk), (Lv, _) = Q.shape, K.shape, V.shape
    if dq != dk:
        raise ValueError(
            f"Q tiene {_cuantas(dq, 'columna')} y K tiene {_cuantas(dk, 'columna')}: cada consulta se compara "
            "con cada clave por producto punto, así que Q y K necesitan el mismo número de columnas (d)."
        )
    if Lk != Lv:
        raise ValueError(
            f"K tiene {_cuantas(Lk, 'fila')} y V tiene {_cuantas(Lv, 'fila')}: cada clave va con su valor, "
            "así que K y V necesitan el mismo número de filas."
        )
    for nombre, L in (("Q", Lq), ("K", Lk)):
        if L != len(palabras):
            raise ValueError(
                f"Hay {_cuantas(len(palabras), 'palabra')} y {nombre} tiene {_cuantas(L, 'fila')}: Q, K y V "
                "llevan una fila por palabra. Agrega o quita filas (o palabras) para que coincidan."
            )
    return palabras, Q, K, V


# --- el cálculo -------------------------------------------------------------------------------


def atender(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Los tres pasos, en float64. Q: (L, d), K: (L, d), V: (L, dv) -> puntajes (L, L), pesos (L, L), salida (L, dv)."""
    Q, K, V = (torch.as_tensor(t, dtype=torch.float64) for t in (Q, K, V))
    puntajes = Q @ K.T / math.sqrt(Q.shape[1])  # (L, L): cada palabra con cada otra
    pesos = torch.softmax(puntajes, dim=-1)  # cada fila suma 1
    salida = pesos @ V  # (L, dv): promedio de los valores, ponderado
    return puntajes.numpy(), pesos.numpy(), salida.numpy()


def _unicas(palabras: list[str]) -> list[str]:
    """Etiquetas sin repetir (una tabla no admite dos columnas con el mismo nombre)."""
    vistas: dict[str, int] = {}
    etiquetas = []
    for p in palabras:
        vistas[p] = vistas.get(p, 0) + 1
        etiquetas.append(p if vistas[p] == 1 else f"{p} ({vistas[p]})")
    return etiquetas


def _fmt(x: float) -> str:
    return numero(x)


def _tabla(etiquetas_filas, encabezados, matriz) -> dict:
    """Una tabla de salida: la palabra en la primera columna y los números con dos decimales."""
    filas = list(zip(etiquetas_filas, matriz, strict=True))
    return {
        "headers": ["Palabra", *encabezados],  # con nombre: una celda de encabezado vacía no se lee (axe)
        "data": [[e, *(round(float(x), 2) for x in fila)] for e, fila in filas],
        # lo que se ve: siempre dos decimales («1.00», no «1»)
        "metadata": {"display_value": [[e, *(_fmt(x) for x in fila)] for e, fila in filas], "styling": None},
    }


def _num(x: float, parentesis: bool = False) -> str:
    """Un número como se escribe a mano: «−0.5», y «(−0.5)» si va después de un «·»."""
    texto = f"{float(x) + 0.0:g}".replace("-", "−")
    return f"({texto})" if parentesis and x < 0 else texto


def _vector(v) -> str:
    return "(" + ", ".join(_num(x) for x in v) + ")"


def _exp(x: float) -> str:
    """Una exponencial legible, con dos decimales como el modo libro: 4.11, 1.00, 5 740, 2.5e-05."""
    return f"{x:.2f}" if 1e-2 <= x < 1000 else (miles(x) if 1000 <= x < 1e7 else f"{x:.2g}")


def detalle(i: int, palabras, Q, K, V, puntajes, pesos, salida) -> str:
    """Los tres pasos de una fila, con todas sus cuentas."""
    d, p = Q.shape[1], palabras[i]
    productos = [
        " + ".join(f"{_num(a, True)}·{_num(b, True)}" for a, b in zip(Q[i], K[j], strict=True))
        for j in range(len(palabras))
    ]
    paso1 = "; ".join(
        f"con «{escapar_md(palabras[j])}»: ({productos[j]}) / √{d} = **{_fmt(puntajes[i, j])}**"
        for j in range(len(palabras))
    )
    fila = puntajes[i]
    if np.abs(fila).max() <= 50:
        exps = np.exp(fila)
        nota = ""
    else:  # e^s desbordaría la pantalla: se resta el máximo, como hace cualquier softmax de verdad
        exps = np.exp(fila - fila.max())
        nota = f" (se resta el máximo, {_fmt(fila.max())}, antes de exponenciar: los pesos no cambian)"
    paso2 = ", ".join(_exp(x) for x in exps)
    pesos_i = ", ".join(f"**{_fmt(w)}**" for w in pesos[i])
    paso3, suma = _suma_ponderada(pesos[i], V, salida[i])
    return (
        f"**La fila de «{escapar_md(p)}»** (su consulta q = {_vector(Q[i])}):\n\n"
        f"1. **Puntajes** q·k / √d {paso1}.\n"
        f"2. **Softmax**: exponenciales{nota} {paso2}; suman {_exp(exps.sum())}. Dividiendo cada una por la suma, "
        f"los pesos son {pesos_i}, que suman {pesos[i].sum():.2f}.\n"
        f"3. **Salida**, un promedio de los valores que pesa más a la palabra con mayor puntaje: {paso3} = {suma}."
    )


def _suma_ponderada(pesos_i: np.ndarray, V: np.ndarray, salida_i: np.ndarray) -> tuple[str, str]:
    """«0.05·(1, 0) + …» y lo que suman esos términos tal como se escriben (pesos a 2 decimales).

    Si esa suma no es la salida redondeada (los pesos se redondearon), lo dice y da la salida exacta.
    """
    w = np.round(pesos_i, 2)  # (L,): los pesos tal como se escriben
    terminos = " + ".join(f"{_fmt(x)}·{_vector(V[j])}" for j, x in enumerate(w))
    escritos = np.array([[float(_num(x).replace("−", "-")) for x in fila] for fila in V])  # V como se lee
    suma = np.round(w @ escritos, 8)  # (dv,): la cuenta que haría un estudiante, sin más redondeo
    exacta = "(" + ", ".join(_fmt(x) for x in salida_i) + ")"  # como la tabla: dos decimales
    if np.allclose(suma, np.round(salida_i, 2), rtol=0, atol=1e-9):
        return terminos, f"**{exacta}**"
    return terminos, (
        f"{_vector(suma)}; con los pesos sin redondear, la salida es **{exacta}** (la de la tabla): la "
        "diferencia es el redondeo de los pesos"
    )


@lru_cache(maxsize=1)
def en_lote() -> dict[str, tuple[int, ...]]:
    """La llamada en lote de la lección: q (4, 2, 10, 8) -> atencion(q, q, q) da salida y pesos, con sus formas.

    No depende de nada que se mueva en la pestaña: se calcula una vez por proceso.
    """
    q = torch.randn(4, 2, 10, 8, generator=torch.Generator().manual_seed(0))  # 4 frases, 2 cabezas, 10 palabras, 8
    salida, pesos = atencion(q, q, q)  # (4, 2, 10, 8), (4, 2, 10, 10)
    return {"q": tuple(q.shape), "salida": tuple(salida.shape), "pesos": tuple(pesos.shape)}


@lru_cache(maxsize=1)
def fila_tapada() -> str:
    """Lo que `modelos.atencion` da en una fila con todas sus claves tapadas: «ceros» o lo que salga."""
    q = torch.ones(1, 1, 2)  # (1, 1 palabra, 2)
    _, pesos = atencion(q, q, q, mascara=torch.ones(1, 1, dtype=torch.bool))  # (1, 1, 1)
    return "ceros" if bool((pesos == 0).all()) else f"{pesos.flatten().tolist()}"


def _forma(f: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, f)) + ")"


def con_la_funcion(Q, K, V, salida: np.ndarray) -> str:
    """La misma cuenta con `modelos.atencion` (la función de la lección) comparada con la de a mano, y en lote."""
    Q, K, V = (torch.as_tensor(t, dtype=torch.float64) for t in (Q, K, V))
    salida_f, _ = atencion(Q, K, V)
    igual = torch.allclose(salida_f, torch.as_tensor(salida))
    lote = en_lote()
    tapada = fila_tapada()
    return (
        f"**Con la función de la lección**, `atencion(Q, K, V)` de `modelos`: igual que a mano: `{igual}`. "
        f"Una diferencia: con una máscara que tapa una fila entera, la de la lección da NaN (0/0 en el softmax) y "
        f"esta deja esa fila en {tapada} (lo muestra *Máscara causal*). "
        f"La misma función atiende un lote entero: con `q` de forma {_forma(lote['q'])} (4 frases, 2 cabezas, "
        f"10 palabras, vectores de 8), `atencion(q, q, q)` da la salida {_forma(lote['salida'])} y los pesos "
        f"{_forma(lote['pesos'])}: cada frase y cada cabeza se calculan por separado, sobre las dos últimas "
        "dimensiones."
    )


def _formato(m: np.ndarray) -> str:
    """Dos decimales, salvo números grandes, que no cabrían en la casilla."""
    return ".2f" if np.abs(m).max() < 100 else ".3g"


def _caben(m: np.ndarray, formato: str, ancho_px: float) -> bool:
    """¿Caben los números en las casillas? (≈ 9 px por carácter a la letra de los mapas, y un margen)."""
    largo = max(len(numero(x, formato)) for x in m.flat)
    return ancho_px / m.shape[1] >= 9 * largo + 8


ANCHO_UTIL = 860  # px que quedan para las casillas en una figura a lo ancho de la página (sin etiquetas ni huecos)
GRIS_SUMA = 16  # la columna de sumas en grises de 0 a 16: una suma de 1 queda gris muy claro, no parece un peso


def _figura(palabras, puntajes, pesos, salida) -> Paneles:
    """Los tres pasos lado a lado, y entre los pesos y la salida la suma de cada fila de pesos."""
    L, dv = salida.shape
    etiquetas = tuple(palabras)
    sin_etiquetas = ("",) * L  # las filas se nombran una vez, a la izquierda; la pista sí dice la palabra
    proporciones = (L, L, max(1, L / 4), max(dv, 1.6))  # la columna de sumas, con lugar para «1.00»
    anchos = [ANCHO_UTIL * p / sum(proporciones) for p in proporciones]
    lo_p, hi_p = min(float(puntajes.min()), 0.0), max(float(puntajes.max()), 0.0)
    lo_s, hi_s = min(float(salida.min()), 0.0), max(float(salida.max()), 0.0)

    def mapa(m, vmin, vmax, ancho_px, **kw) -> Mapa:
        formato = _formato(m)
        return Mapa(m, formato=formato, numeros=_caben(m, formato, ancho_px), vmin=vmin, vmax=vmax, barra=None, **kw)

    paneles = (
        mapa(
            puntajes,
            lo_p,
            hi_p,
            anchos[0],
            x=etiquetas,
            y=etiquetas,
            titulo="1) Puntajes Q·Kᵀ / √d",
            eje_x="Palabra que se mira (clave)",
            eje_y="Palabra que mira (consulta)",
            pista="«{y}» con «{x}»: puntaje {v}",
        ),
        mapa(
            pesos,
            0.0,
            1.0,
            anchos[1],
            x=etiquetas,
            y=sin_etiquetas,
            nombres_y=etiquetas,
            titulo="2) Pesos: softmax por fila",
            eje_x="Palabra que se mira (clave)",
            pista="«{y}» mira a «{x}»: peso {v}",
        ),
        Mapa(
            pesos.sum(axis=1, keepdims=True),  # (L, 1)
            x=("Σ fila",),
            y=sin_etiquetas,
            nombres_y=etiquetas,
            numeros=True,
            vmin=0,
            vmax=GRIS_SUMA,
            colores="grises",
            barra=None,
            pista="la fila de «{y}» suma {v}",
        ),
        mapa(
            salida,
            lo_s,
            hi_s,
            anchos[3],
            x=tuple(f"v{j + 1}" for j in range(dv)),
            y=sin_etiquetas,
            nombres_y=etiquetas,
            titulo="3) Salida = pesos · V",
            eje_x="Columna del valor",
            pista="salida de «{y}», {x}: {v}",
        ),
    )
    return Paneles(paneles, columnas=4, anchos=proporciones, alto_fila=300 if L <= 4 else 380)


def calcular(palabras: str = PALABRAS, Q=Q0, K=K0, V=V0, fila: float = 1):
    """La vista: (figura, puntajes, pesos con su suma, salida, detalle de una fila)."""
    palabras, Q, K, V = validar(palabras, Q, K, V)
    fila = entero(fila, "La fila que se detalla", 1, MAX_PALABRAS)
    i = min(fila, len(palabras)) - 1  # si sobran filas en el control, se detalla la última palabra
    with un_hilo():  # matrices de a lo sumo 8 × 8: con más hilos de torch, cada softmax esperaba al otro ≈ 15 ms
        puntajes, pesos, salida = atender(Q, K, V)
        con_funcion = con_la_funcion(Q, K, V, salida)
    etiquetas = _unicas(palabras)
    texto = detalle(i, palabras, Q, K, V, puntajes, pesos, salida) + "\n\n" + con_funcion
    if int(fila) > len(palabras):
        texto = (
            f"*(Pediste la fila {int(fila)}, pero hay {len(palabras)} palabras: se detalla la última, "
            f"la {len(palabras)}.)*\n\n" + texto
        )
    return (
        _figura(etiquetas, puntajes, pesos, salida),
        _tabla(etiquetas, etiquetas, puntajes),
        _tabla(etiquetas, [*etiquetas, "suma"], np.column_stack([pesos, pesos.sum(axis=1)])),
        _tabla(etiquetas, [f"v{j + 1}" for j in range(salida.shape[1])], salida),
        texto,
    )


def libro(palabras: str = PALABRAS, Q=Q0, K=K0, V=V0, fila: float = 1, paso: float = 1):
    """Modo libro: (la fórmula con el término del paso resaltado y su frase, la matriz del paso con la fila)."""
    palabras, Q, K, V = validar(palabras, Q, K, V)
    i = min(entero(fila, "La fila que se detalla", 1, MAX_PALABRAS), len(palabras)) - 1
    paso = entero(paso, "El paso del modo libro", 1, PASOS)
    with un_hilo():  # como en `calcular`
        return vista_paso(_unicas(palabras), Q, K, V, paso, i)


def _construir_libro(palabras, q, k, v, fila) -> None:
    """El modo libro: un paso a la vez; los botones mueven el paso en el navegador, el paso pide la vista."""
    with gr.Accordion("Modo libro: la fórmula paso a paso", open=False, elem_id="a-mano-libro") as acordeon:
        with gr.Row():
            anterior = gr.Button("← Paso anterior", size="sm", elem_id="a-mano-libro-anterior")
            paso = gr.Slider(1, PASOS, value=1, step=1, label="Paso", scale=3, elem_id="a-mano-libro-paso")
            servido(paso, "sin barrer aún: el modo libro (un acordeón cerrado) pide la vista de cada paso")
            siguiente = gr.Button("Paso siguiente →", size="sm", elem_id="a-mano-libro-siguiente")
        texto = gr.Markdown(latex_delimiters=LATEX, elem_id="a-mano-libro-texto")
        figura = grafico("La matriz del paso", elem_id="a-mano-libro-figura")
    sin_reloj = {"api_visibility": "private", "show_progress": "hidden"}  # en el navegador: nada que esperar
    anterior.click(None, paso, paso, js="(p) => Math.max(1, p - 1)", **sin_reloj)
    siguiente.click(None, paso, paso, js=f"(p) => Math.min({PASOS}, p + 1)", **sin_reloj)
    entradas = [palabras, q, k, v, fila, paso]
    for evento in (acordeon.expand, paso.change):
        evento(envolver(libro), entradas, [texto, figura], api_visibility="private", show_progress="hidden")


# --- la pestaña -------------------------------------------------------------------------------


def _editable(valor, letra: str, etiqueta: str) -> gr.Dataframe:
    return TablaEditable(
        value=valor,
        headers=[f"{letra}{j + 1}" for j in range(len(valor[0]))],
        datatype="number",
        type="array",
        interactive=True,
        label=etiqueta,
        show_row_numbers=True,
    )


def _limitar_fila(palabras, fila):
    """El deslizador «Fila que se detalla» llega solo hasta el número de palabras escritas."""
    try:
        n = len(leer_palabras(palabras))
    except ValueError:
        return gr.skip()  # las palabras malas ya tienen su mensaje en la vista
    try:
        fila = min(max(int(fila), 1), n)
    except (TypeError, ValueError):
        fila = 1
    return gr.update(maximum=max(n, 2), value=fila, interactive=n > 1, label=_etiqueta_fila(n))


def _etiqueta_fila(n: int) -> str:
    return f"Fila que se detalla (n.º de palabra, de 1 a {n})" if n > 1 else "Fila que se detalla (hay una palabra)"


# --- aprender: predecir (la respuesta la lee de las tablas que muestra `calcular`) ----------------------


def _mira_plata(salida) -> dict:
    """En la fila de «plata» (la tercera palabra): a qué palabra da más peso, con sus puntajes y pesos."""
    puntajes, pesos = salida[1]["data"], salida[2]["data"]
    fila_p, fila_w = puntajes[2], pesos[2]  # [palabra, un número por columna (los pesos, y su suma al final)]
    palabras = [f[0] for f in pesos]
    w = fila_w[1 : 1 + len(palabras)]
    j = max(range(len(w)), key=w.__getitem__)
    return {
        "respuesta": palabras[j] if max(w) - min(w) > 0.05 else "parejo",
        "fila": fila_w[0],
        "puntajes": ", ".join(f"{x:.2f}" for x in fila_p[1:]),
        "pesos": ", ".join(f"{x:.2f}" for x in w),
        "suma": f"{fila_w[-1]:.2f}",
    }


_Q, _K = Q0[2], K0  # la consulta de «plata» y las tres claves de la lección
_QK = [sum(a * b for a, b in zip(_Q, k, strict=True)) for k in _K]  # Q·Kᵀ de la fila de «plata», sin escalar


def _vec(v) -> str:
    return "(" + ", ".join(f"{x:g}" for x in v) + ")"


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        f"Con las tablas de la lección, ¿a qué palabra le da más peso la fila de «plata»? (Su consulta es "
        f"q = {_vec(_Q)}; las claves, {', '.join(_vec(k) for k in _K)}.)",
        verdad=ap.EnLaPestana(calcular, _mira_plata),
        opciones=(
            ap.Alternativa(
                "Ana",
                "a «Ana»",
                f"q · k con la clave de «Ana», {_vec(_K[0])}, da {_QK[0]:g}; con la de «plata», {_vec(_K[2])}, da "
                f"{_QK[2]:g}: más puntaje, más peso.",
            ),
            ap.Alternativa(
                "sacó",
                "a «sacó»",
                f"q · k con la clave de «sacó», {_vec(_K[1])}, da {_QK[1]:g}, pero con la de «plata», {_vec(_K[2])}, "
                f"da {_QK[2]:g}: más puntaje, más peso.",
            ),
            ap.Alternativa(
                "plata",
                "a «plata», a sí misma",
                f"Su clave, {_vec(_K[2])}, da con su consulta el producto punto más alto: {_QK[2]:g}.",
            ),
            ap.Alternativa(
                "parejo",
                "a las tres por igual",
                "Los pesos salen parejos solo si los puntajes son iguales; aquí q · k da "
                f"{', '.join(f'{x:g}' for x in _QK)}.",
            ),
        ),
        porque="En la fila de «{fila}», los puntajes (ya ÷ √2) son {puntajes} y los pesos, {pesos}: el softmax le da "
        "más peso al puntaje más alto, y la fila suma {suma}.",
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        etiqueta = "Palabras (una por fila de Q, K y V; separadas por comas o espacios)"
        palabras = gr.Textbox(PALABRAS, label=etiqueta, scale=3)
        n = len(leer_palabras(PALABRAS))
        fila = Deslizador(1, n, value=1, step=1, label=_etiqueta_fila(n), scale=2)
    figura = grafico("Puntajes, pesos y salida")
    with gr.Row():
        q = _editable(Q0, "q", "Q: consultas")
        k = _editable(K0, "k", "K: claves")
        v = _editable(V0, "v", "V: valores")
    detalle_ = gr.Markdown()
    # .change, no .input: también cuando las palabras llegan por la URL o de otra pestaña.
    palabras.change(_limitar_fila, [palabras, fila], fila, api_visibility="private", queue=False)
    with gr.Row():
        puntajes = gr.Dataframe(label="1) Puntajes Q·Kᵀ/√d (fila: quien mira)", interactive=False)
        pesos = gr.Dataframe(label="2) Pesos (cada fila suma 1)", interactive=False)
        salida = gr.Dataframe(label="3) Salida: pesos · V", interactive=False)
    _construir_libro(palabras, q, k, v, fila)
    seccion(("consulta, clave y valor", "palabra que mira", "puntaje", "softmax", "pesos", "ficha"), "a-mano")
    servido(fila, "su máximo cambia con las filas de las tablas; las paradas de un barrido son fijas")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[palabras, q, k, v, fila],
        salidas=[figura, puntajes, pesos, salida, detalle_],
        url={"palabras": palabras, "fila": fila},
        ejemplo={"palabras": "Ana, sacó, dinero"},  # la fila a detallar no cambia la figura; las palabras sí
    )
