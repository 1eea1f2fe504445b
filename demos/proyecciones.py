"""De x a Q, K y V: las proyecciones entrenadas del transformer que invierte dígitos, y por qué K no es Q.

El modelo de *Inversión de dígitos* (checkpoint `inversion-digitos`) suma a cada ficha su posición, y su capa
`qkv` proyecta ese vector (tras LayerNorm) en Q, K y V. Los puntajes Q·Kᵀ/√d de la proyección entrenada dibujan la
antidiagonal; con K = Q (una sola proyección) son simétricos y cada fila se mira a sí misma. El cálculo vive en
`modelos.proyecciones`; aquí, las figuras y los textos.
"""

from __future__ import annotations

import re
from functools import lru_cache

import gradio as gr
import numpy as np
import torch
from torch import nn

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Opcion
from demos.comun.figuras import Mapa, Paneles
from demos.comun.glosario import seccion
from demos.comun.validar import real, uno_de
from demos.comun.vista import Barrido, Vista, explicacion, grafico
from modelos import cargar, dispositivo
from modelos import proyecciones as pr
from modelos.datos import LARGO
from modelos.entrenamiento.inversion import instantaneas
from modelos.formato import miles, numero

NOMBRE = "inversion-digitos"
LECCION = "8 3 3 9 6 9 4 0"
SEPARADORES, MAX_TEXTO = " ,;-\t", 200
ACEPTA = "Escribe 8 dígitos del 0 al 9, con o sin espacios (p. ej. «8 3 3 9 6 9 4 0»)."
PASO_T = 0.05  # 21 paradas de t, de 0 a 1
FUERTE = 0.2  # un peso de al menos esto lleva su número en el mapa; los demás, al pasar el ratón

EXPLICACION = r"""
Por dentro del transformer de *Inversión de dígitos*: no recibe Q, K y V hechos, los **calcula**. A cada ficha
le suma su posición, $x_i = \text{embedding}(d_i) + \text{pos}(i)$, y su capa de atención proyecta
tres veces ese vector (tras LayerNorm): $q_i = x_i W_q$, $k_i = x_i W_k$, $v_i = x_i W_v$. En la lección las tres
matrices van en una sola capa, `q, k, v = self.qkv(x).chunk(3, dim=-1)`. Aquí se ven las proyecciones
**entrenadas**: sus puntajes $q_i \cdot k_j / \sqrt{d}$ dibujan la antidiagonal de la inversión.

Mueve **t** para llevar la clave hacia la consulta, $K = (1 - t)\,K + t\,Q$: con $t = 1$ las dos salen de la misma
proyección, los puntajes se vuelven simétricos ($q_i \cdot q_j = q_j \cdot q_i$) y cada fila se mira sobre todo a sí
misma. Con una sola proyección ninguna cabeza puede dibujar la antidiagonal entera: de cada par de espejos, la fila de
$q$ más larga se puntúa a sí misma al menos tanto como a su espejo. Eso limita el mapa, no la tarea: entrenado con
$K = Q$, este mismo transformer también aprende a invertir, pero con un mapa en X (cada fila reparte su peso entre sí
misma y su espejo). Dos matrices, $W_q$ y $W_k$, dejan que lo que una ficha busca sea distinto de lo que ofrece.
"""


def leer_digitos(texto) -> list[int]:
    """«8 3 3 9 6 9 4 0», «8,3,3,9,6,9,4,0» u «83396940» -> [8, 3, 3, 9, 6, 9, 4, 0]."""
    if not isinstance(texto, str) or len(texto) > MAX_TEXTO:
        raise ValueError(f"Los dígitos llegan como un texto corto. {ACEPTA}")
    limpio = [c for c in texto if c not in SEPARADORES]
    raros = list(dict.fromkeys(c for c in limpio if c not in "0123456789"))  # «٣» o «³» no son 0–9
    if raros:
        muestra = " ".join(f"«{c}»" for c in raros[:5])
        raise ValueError(f"{muestra} no {'es un dígito' if len(raros) == 1 else 'son dígitos'} del 0 al 9. {ACEPTA}")
    if len(limpio) != LARGO:
        raise ValueError(f"Hay {len(limpio)} dígitos y hacen falta {LARGO}. {ACEPTA}")
    return [int(c) for c in limpio]


def _sin_entrenar() -> nn.Linear:
    """La capa `qkv` del mismo modelo en el paso 0 de su entrenamiento (su inicialización)."""
    metricas, modelo = instantaneas(NOMBRE)[0]
    assert metricas["paso"] == 0, "la primera instantánea es la del paso 0"
    return modelo.bloques[0].atencion.qkv


@lru_cache(maxsize=64)
def correr(digitos: tuple[int, ...]) -> dict:
    """x, LayerNorm(x), Q, K, V de la capa entrenada, sus puntajes con K y con Q, y las comparaciones, en numpy.

    Por cabeza h: "Q"[h], "K"[h] (L, d/cabezas); "puntajes"[h] (2, L, L) con la K entrenada y con K = Q;
    "pesos", "sin_entrenar" (L, L). "sin_proyeccion" (L, L): Q = K = LayerNorm(x).
    """
    modelo = cargar(NOMBRE)
    atencion = modelo.bloques[0].atencion
    x, normada = pr.entrada_de_la_atencion(modelo, torch.tensor(digitos, device=dispositivo()))  # (L, d)
    q, k, _ = pr.proyectar(atencion.qkv, normada)  # 3 × (L, d)
    # La capa del paso 0 es compartida y ya está en dispositivo(): no se mueve.
    q0, k0, _ = pr.proyectar(_sin_entrenar(), normada)
    H = atencion.cabezas
    cab = [(pr.de_la_cabeza(q, h, H), pr.de_la_cabeza(k, h, H)) for h in range(H)]
    con_k = [pr.puntajes_y_pesos(Q, K) for Q, K in cab]
    con_q = [pr.puntajes_y_pesos(Q, Q) for Q, _ in cab]
    pesos = np.stack([p for _, p in con_k])  # (cabezas, L, L)
    return {
        "digitos": list(digitos),
        "cab": cab,  # [(Q, K)] por cabeza, tensores (L, d/cabezas): las paradas de t salen de aquí
        "x": x.cpu().numpy(),
        "sumandos": [t.cpu().numpy() for t in pr.sumandos(modelo, torch.tensor(digitos, device=x.device))],
        "Q": [Q.cpu().numpy() for Q, _ in cab],
        "K": [K.cpu().numpy() for _, K in cab],
        "puntajes": [np.stack([a[0], b[0]]) for a, b in zip(con_k, con_q, strict=True)],
        "pesos": pesos,
        "prefieren_espejo": [pr.preferirian_el_espejo(Q) for Q, _ in cab],
        "sin_entrenar": [
            pr.puntajes_y_pesos(pr.de_la_cabeza(q0, h, H), pr.de_la_cabeza(k0, h, H))[1] for h in range(H)
        ],
        "sin_proyeccion": pr.puntajes_y_pesos(normada, normada)[1],
        "d": x.shape[-1],
        "cabezas": H,
        "parametros": sum(p.numel() for p in atencion.qkv.parameters()),
        "tutorial": pr.diferencia_con_el_tutorial(atencion.qkv, normada),
        "pytorch": float(np.abs(pr.pesos_de_pytorch(atencion, normada).cpu().numpy() - pesos).max()),
    }


# --- figuras ----------------------------------------------------------------------------------------------


def _ejes(digitos: list[int]) -> dict:
    """Columnas «dígito\\nposición» y filas «posición: dígito», como el mapa de *Inversión de dígitos*."""
    return {
        "x": tuple(f"{d}\n{i}" for i, d in enumerate(digitos)),
        "y": tuple(f"{i}: {d}" for i, d in enumerate(digitos)),
        "nombres_x": tuple(f"la posición {i} (dígito {d})" for i, d in enumerate(digitos)),
        "nombres_y": tuple(f"La posición {i} (dígito {d})" for i, d in enumerate(digitos)),
        "eje_x": "Clave kⱼ: la posición que se mira",
        "eje_y": "Consulta qᵢ",
    }


def _mayores(pesos: np.ndarray) -> tuple[tuple[int, int], ...]:
    return tuple((i, int(j)) for i, j in enumerate(pesos.argmax(axis=1)))


def _mapa_pesos(pesos: np.ndarray, digitos: list[int], titulo: str, barra: str | None = "Peso", **ejes) -> Mapa:
    """El mapa de pesos; `ejes` cambia los títulos de los ejes (en una fila de tres, cortos: a 960 px se pisaban)."""
    return Mapa(
        np.round(pesos, 3),
        **{**_ejes(digitos), **ejes},
        titulo=titulo,
        umbral=FUERTE,
        barra=barra,
        marcas=_mayores(pesos),
        pista="{y} mira a {x}: peso {v}",
    )


def con_t(r: dict, h: int, t: float) -> tuple[np.ndarray, np.ndarray]:
    """Puntajes Q·Kₜᵀ/√d y pesos (L, L) de la cabeza h con Kₜ = (1 − t)·K + t·Q."""
    Q, K = r["cab"][h]
    return pr.puntajes_y_pesos(Q, pr.mezclar(Q, K, t))


def _figura_t(r: dict, h: int, t: float) -> Paneles:
    """Puntajes y pesos con Kₜ; la escala de color, la misma en todas las t (Sₜ es lineal en t: |Sₜ| ≤ sus extremos)."""
    S, pesos = con_t(r, h, t)
    tope = float(np.abs(r["puntajes"][h]).max())
    cual = "K entrenada" if t == 0 else "K = Q" if t == 1 else f"Kₜ = {numero(1 - t)}·K + {numero(t)}·Q"
    puntajes = Mapa(
        np.round(S, 1),
        **_ejes(r["digitos"]),
        titulo=f"Puntajes q·k/√d ({cual})",
        formato=".1f",
        vmin=-tope,
        vmax=tope,
        colores="divergente",
        barra="Puntaje",
        pista="{y} con {x}: puntaje {v}",
    )
    # Las mismas filas que los puntajes: sin título del eje y (a 960 px lo pisaba la barra de los puntajes).
    pesos_ = _mapa_pesos(pesos, r["digitos"], f"Pesos: softmax por fila (cabeza {h + 1})", eje_y="")
    return Paneles((puntajes, pesos_))


def _figura_x(r: dict, h: int) -> Paneles:
    """Arriba, x = embedding + posición (tres L × d); abajo, las Q y K de la cabeza h (L × d/cabezas). Una escala."""
    (embedding, posicion), x, Q, K = r["sumandos"], r["x"], r["Q"][h], r["K"][h]
    tope = float(max(np.abs(m).max() for m in (embedding, posicion, x, Q, K)))
    filas = tuple(f"{i}: {d}" for i, d in enumerate(r["digitos"]))
    d, dh = x.shape[1], Q.shape[1]

    def mapa(m: np.ndarray, titulo: str, columnas: str) -> Mapa:
        return Mapa(
            np.round(m, 1),  # un decimal: basta al pasar el ratón, y pesa menos
            y=filas,
            titulo=titulo,
            eje_x=columnas,
            eje_y="Posición: dígito",
            numeros=False,
            vmin=-tope,
            vmax=tope,
            colores="divergente",
            barra="Valor",
            pista="{y}, columna {x}: {v}",
        )

    columnas = ""  # arriba sin título de eje: en el proyector pisaba los títulos de Q y K
    return Paneles(
        (
            mapa(embedding, f"embedding(dígito) ({LARGO} × {d})", columnas),
            mapa(posicion, f"+ posición ({LARGO} × {d})", columnas),
            mapa(x, f"= x ({LARGO} × {d})", columnas),
            mapa(Q, f"Q = LN(x)·W_q + b_q, cabeza {h + 1} ({LARGO} × {dh})", "Columna de la cabeza"),
            mapa(K, f"K = LN(x)·W_k + b_k, cabeza {h + 1} ({LARGO} × {dh})", "Columna de la cabeza"),
        ),
        columnas=3,
    )


def _figura_comparar(r: dict, h: int) -> Paneles:
    digitos = r["digitos"]
    return Paneles(
        (
            _mapa_pesos(r["pesos"][h], digitos, "Proyección entrenada", barra=None, eje_x="Clave kⱼ"),
            _mapa_pesos(r["sin_entrenar"][h], digitos, "Antes de entrenar (paso 0)", barra=None, eje_x="Clave kⱼ"),
            _mapa_pesos(r["sin_proyeccion"], digitos, "Sin proyección: Q = K = LN(x)", eje_x="Clave kⱼ"),
        ),
        columnas=3,
    )


# --- textos -------------------------------------------------------------------------------------------------


def _miran(n: int) -> str:
    """«**8 de 8** filas miran», «**1 de 8** filas mira»."""
    return f"**{n} de {LARGO}** filas {'mira' if n == 1 else 'miran'}"


def _texto_t(r: dict, h: int, t: float) -> str:
    S, pesos = con_t(r, h, t)
    espejo, propia = pr.cuantas_miran(pesos)
    asimetria = np.abs(S - S.T)
    i, j = np.unravel_index(int(asimetria.argmax()), S.shape)
    cual = (
        "la K entrenada"
        if t == 0
        else "K = Q, una sola proyección"
        if t == 1
        else f"Kₜ = {numero(1 - t)}·K + {numero(t)}·Q"
    )
    partes = [
        f"**t = {numero(t)} ({cual}), cabeza {h + 1}.** {_miran(espejo)} sobre todo a su espejo (la "
        f"antidiagonal) y {_miran(propia)} sobre todo a sí mismas (la diagonal)."
    ]
    if t < 1:
        partes.append(
            f"Los puntajes no son simétricos: el de la fila {i} con la columna {j} es {numero(S[i, j])} y el de la "
            f"fila {j} con la columna {i}, {numero(S[j, i])} (q_i·k_j ≠ q_j·k_i)."
        )
    else:
        cota, prefieren = pr.cota_con_k_igual_a_q(LARGO), r["prefieren_espejo"][h]
        partes.append(
            f"Con K = Q los puntajes son simétricos (la mayor diferencia entre q_i·q_j y q_j·q_i es "
            f"{numero(asimetria.max())}) y la diagonal vale |q_i|²/√d. Por Cauchy–Schwarz, q_i·q_j ≤ |q_i|·|q_j| ≤ "
            f"max(|q_i|², |q_j|²): de cada par de espejos (i, {LARGO - 1} − i), la fila de q más larga puntúa a sí "
            f"misma al menos tanto como a su espejo. Así, con K = Q, a lo sumo **{cota} de {LARGO}** filas podrían "
            f"preferir su espejo, con cualquier W_q; aquí lo prefieren {prefieren}."
        )
    return " ".join(partes)


def _diferencia(x: float) -> str:
    """«idénticos, bit a bit» o «difieren en 6.0e−08» (redondeo de float32)."""
    return "idénticos, bit a bit" if x == 0 else f"difieren en {numero(x, '.1e')}"


def _texto_qkv(r: dict, h: int) -> str:
    d, H = r["d"], r["cabezas"]
    dh = d // H
    trozos = ", ".join(f"{a}–{a + d - 1} son {n}" for a, n in zip((0, d, 2 * d), ("W_q", "W_k", "W_v"), strict=True))
    return (
        f"**w_q, w_k y w_v son `qkv`.** La capa `qkv` es una sola `nn.Linear({d}, {3 * d})`: `qkv.weight` mide "
        f"{3 * d} × {d}, y sus filas {trozos} (más un sesgo de {3 * d}); la cabeza {h + 1} usa las filas "
        f"{h * dh}–{(h + 1) * dh - 1} de cada trozo. Copiadas en tres capas `nn.Linear({d}, {d})`, las `w_q`, `w_k` "
        f"y `w_v` del tutorial, dan los mismos Q, K y V ({_diferencia(r['tutorial'])}), con los mismos "
        f"{miles(r['parametros'])} parámetros. `nn.MultiheadAttention` guarda la misma matriz en `in_proj_weight`: "
        f"con los parámetros copiados, los pesos de sus {H} cabezas son los de aquí ({_diferencia(r['pytorch'])})."
    )


def _texto_comparar(r: dict, h: int) -> str:
    entrenada, _ = pr.cuantas_miran(r["pesos"][h])
    antes = r["sin_entrenar"][h]
    antes_espejo, antes_propia = pr.cuantas_miran(antes)
    _, sin_propia = pr.cuantas_miran(r["sin_proyeccion"])
    return (
        f"Con la misma x, lo que cambia es la proyección. La entrenada: {_miran(entrenada)} sobre todo a su "
        f"espejo. La misma capa `qkv` antes de entrenar (paso 0): ningún peso pasa de {numero(antes.max())} (parejo "
        f"sería {numero(1 / LARGO, '.3f')}), y el peso mayor de una fila cae en su espejo en {antes_espejo} de {LARGO} "
        f"filas y en la fila misma en {antes_propia}. Sin proyección (Q = K = LN(x), como una W identidad, otra "
        f"proyección compartida): {_miran(sin_propia)} sobre todo a sí mismas."
    )


def cabezas() -> int:
    return cargar(NOMBRE).bloques[0].atencion.cabezas


def _cabeza(cabeza) -> int:
    return uno_de(cabeza, "La cabeza", range(1, cabezas() + 1)) - 1


def calcular(digitos: str = LECCION, cabeza: str = "1", t: float = 0.0):
    """La vista: (figura de t, su texto, figura de x, Q y K, texto de qkv, figura comparada, su texto)."""
    r = correr(tuple(leer_digitos(digitos)))
    h = _cabeza(cabeza)
    t_ = round(real(t, "t", 0, 1), 6)
    return (
        _figura_t(r, h, t_),
        _texto_t(r, h, t_),
        _figura_x(r, h),
        _texto_qkv(r, h),
        _figura_comparar(r, h),
        _texto_comparar(r, h),
    )


# --- aprender: predecir y comprobarse (las respuestas salen de lo que muestra la pestaña) ----------------


def _a_donde_con_k_igual_a_q(salida) -> dict:
    espejo, propia = (int(n) for n in re.findall(rf"\*\*(\d+) de {LARGO}\*\* filas miran? sobre todo", salida[1])[:2])
    respuesta = "si-misma" if propia > LARGO // 2 else "espejo" if espejo > LARGO // 2 else "otra"
    return {"respuesta": respuesta, "propia": propia, "espejo": espejo}


def _al_espejo(salida) -> int:
    return int(re.search(rf"\*\*(\d+) de {LARGO}\*\* filas miran? sobre todo a su espejo", salida[1]).group(1))


def _filas_de_w_k(salida) -> dict:
    a, b = re.search(r"(\d+)–(\d+) son W_k", salida[3]).groups()
    return {"respuesta": f"{a}-{b}", "desde": a, "hasta": b}


def _cota(salida) -> dict:
    cota = int(re.search(rf"a lo sumo \*\*(\d+) de {LARGO}\*\*", salida[1]).group(1))
    return {"respuesta": cota, "aqui": int(re.search(r"aquí lo prefieren (\d+)", salida[1]).group(1))}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "Si la clave usara la misma proyección que la consulta (K = Q, t = 1), ¿a dónde miraría sobre todo cada "
        "una de las 8 filas?",
        verdad=ap.EnLaPestana(calcular, _a_donde_con_k_igual_a_q, cambio={"t": 1}),
        opciones=(
            ap.Alternativa(
                "espejo",
                "a su espejo, como con la K entrenada",
                "La antidiagonal la dibuja la K entrenada; con K = Q, {propia} de 8 filas miran a sí mismas.",
            ),
            ap.Alternativa(
                "si-misma",
                "a sí mismas: la diagonal",
                "Con K = Q el puntaje de una fila consigo es |q_i|²/√d, y por Cauchy–Schwarz ningún otro lo supera "
                "si q_i es la más larga: {propia} de 8 filas miran a sí mismas.",
            ),
            ap.Alternativa(
                "otra",
                "a todas casi por igual",
                "Las q entrenadas son largas y distintas entre sí: el puntaje consigo mismo gana lejos. Con K = Q, "
                "{propia} de 8 filas miran a sí mismas.",
            ),
        ),
        porque="Con K = Q, {propia} de 8 filas miran sobre todo a sí mismas y {espejo} a su espejo: los puntajes "
        "q_i·q_j son simétricos y la diagonal |q_i|²/√d es el máximo de su fila en cuanto q_i es la más larga. Con "
        "W_q y W_k distintas, lo que una ficha busca puede ser distinto de lo que ofrece.",
    ),
    preguntas=(
        ap.Pregunta(
            "`qkv.weight` mide 96 × 32. ¿Qué filas son la matriz de la capa `w_k` del tutorial?",
            (
                ap.Alternativa(
                    "32-63", "las filas 32 a 63", "`chunk(3)` corta Q, K y V en ese orden: K es el trozo del medio."
                ),
                ap.Alternativa(
                    "0-31",
                    "las filas 0 a 31",
                    "Esas son W_q: `chunk(3)` da Q, K, V en ese orden; W_k son {desde}–{hasta}.",
                ),
                ap.Alternativa(
                    "64-95", "las filas 64 a 95", "Esas son W_v, el último trozo; W_k son las filas {desde}–{hasta}."
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _filas_de_w_k),
            tipo=ap.POSICION,
        ),
        ap.Pregunta(
            "Con K = Q, ¿cuántas de las 8 filas podrían, como mucho, preferir su espejo a sí mismas, eligiendo W_q "
            "a propósito?",
            (
                ap.Alternativa(
                    4,
                    "4",
                    "Una por par de espejos: de q_i y la q de su espejo, la más larga puntúa a sí misma al menos "
                    "tanto como a la otra. Aquí lo prefieren {aqui}.",
                ),
                ap.Alternativa(
                    8,
                    "8",
                    "Cauchy–Schwarz lo impide: en cada par de espejos, la fila de q más larga se prefiere a sí misma.",
                ),
                ap.Alternativa(
                    0,
                    "ninguna",
                    "La fila de q más corta de cada par sí puede preferir su espejo: a lo sumo {respuesta}, una por "
                    "par.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _cota, cambio={"t": 1}),
            tipo=ap.CANTIDAD,
        ),
        ap.Pregunta(
            "Con los 8 dígitos iguales («1 1 1 1 1 1 1 1») y la K entrenada, ¿cuántas filas miran sobre todo a su "
            "espejo?",
            (
                ap.Alternativa(
                    8,
                    "8: la antidiagonal sigue",
                    "x = embedding + posición: con los dígitos iguales solo cambia la posición, y de ella sale la "
                    "antidiagonal ({respuesta} de 8 filas).",
                ),
                ap.Alternativa(
                    0,
                    "ninguna: todas las fichas son iguales",
                    "Los embeddings son iguales, pero las posiciones no: W_q y W_k convierten la posición en la "
                    "antidiagonal ({respuesta} de 8 filas).",
                ),
                ap.Alternativa(
                    4,
                    "la mitad",
                    "El límite de la mitad es de K = Q; con la K entrenada, la posición basta para {respuesta} de 8.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _al_espejo, cambio={"digitos": "1 1 1 1 1 1 1 1"}),
            tipo=ap.CANTIDAD,
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        digitos = gr.Textbox(LECCION, label="8 dígitos (con o sin espacios; Enter para calcular)", max_lines=1, scale=2)
        cabeza = Opcion([str(h) for h in range(1, cabezas() + 1)], value="1", label="Cabeza", scale=1)
        t = Deslizador(0, 1, value=0, step=PASO_T, scale=3, label="t: de la K entrenada (0) a K = Q (1)")
    figura_t = grafico("Puntajes y pesos de la cabeza, de la K entrenada a K = Q")
    texto_t = gr.Markdown()
    figura_x = grafico("De x a Q y K: embedding + posición y las dos proyecciones")
    texto_qkv = gr.Markdown()
    figura_comparar = grafico("Pesos con la proyección entrenada, antes de entrenar y sin proyección")
    texto_comparar = gr.Markdown()
    seccion(
        ("embedding", "posición", "consulta, clave y valor", "puntaje", "pesos", "cabeza", "LayerNorm"), "proyecciones"
    )
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[digitos, cabeza, t],
        salidas=[figura_t, texto_t, figura_x, texto_qkv, figura_comparar, texto_comparar],
        url={"digitos": digitos, "cabeza": cabeza, "t": t},
        barridos=(Barrido(t),),
    )
