"""Atención multicabeza: los pesos de cada cabeza, su promedio y la comparación con nn.MultiheadAttention."""

from __future__ import annotations

import math
import re
from functools import lru_cache

import gradio as gr
import numpy as np
import torch
from torch import nn

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Numero
from demos.comun.figuras import C0, C1, GRIS, Barras, Imagen, Mapa, Paneles, Serie, miles
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.validar import entero as _entero
from demos.comun.vista import Barrido, Vista, explicacion, grafico, servido
from modelos import AtencionMulticabeza
from modelos.atencion import atencion

D_MAX, CABEZAS_MAX, LARGO_MAX, SEMILLA_MAX = 512, 16, 32, 2**31 - 1
TOLERANCIA = 1e-6  # la de la lección: torch.allclose(..., atol=1e-6)
COLUMNAS_FIGURA = 5  # paneles por fila de la figura

EXPLICACION = r"""
Una cabeza de atención compara las palabras de **una** manera. Con varias cabezas, cada una recibe
su propio trozo de $d_\text{modelo} / \text{cabezas}$ columnas de Q, K y V, calcula sus propios
pesos, y al final una capa de salida mezcla lo que encontró cada una:

$$\text{MultiHead}(X) = \text{Concat}(\text{cabeza}_1, \dots, \text{cabeza}_h)\, W^O,
\qquad \text{cabeza}_i = \text{softmax}\!\left(\frac{Q_i K_i^\top}{\sqrt{d_\text{modelo}/h}}\right) V_i$$

La primera figura es la cuenta: las $d_\text{modelo}$ columnas repartidas entre las cabezas, y los
parámetros, $4 d^2 + 4 d$ con cualquier número de cabezas, los mismos que `nn.MultiheadAttention`. Más
cabezas no añaden parámetros: cortan las mismas columnas en trozos más finos. Debajo, los pesos de cada
cabeza de una capa recién creada (**sin entrenar**) sobre vectores al azar: son distintos solo porque sus
proyecciones al azar lo son. Cabezas entrenadas, que sí miran a algo, hay en *Inversión de dígitos* y
*Parches ViT*. La comparación es en evaluación (`eval()`): las clases del tutorial aplican además dropout a los pesos,
y en entrenamiento sus filas ya no suman 1 (la pestaña siguiente, *Dropout y model.eval()*).
"""

TITULO_FIGURA = "Los pesos de cada cabeza (capa sin entrenar: distintos solo porque sus proyecciones al azar lo son)"


def validar(d_modelo, cabezas, largo, semilla) -> tuple[int, int, int, int]:
    d = _entero(d_modelo, "d_modelo", 1, D_MAX)
    h = _entero(cabezas, "El número de cabezas", 1, CABEZAS_MAX)
    if d % h:
        divisores = [k for k in range(1, CABEZAS_MAX + 1) if d % k == 0]
        raise ValueError(
            f"d_modelo = {d} no se reparte entre {h} cabezas: cada cabeza recibe d_modelo / cabezas columnas "
            f"de Q, K y V, y {d} / {h} = {d / h:.3g} no es entero. Usa un d_modelo múltiplo de {h} "
            f"(como {h * max(1, round(d / h))}) o {', '.join(map(str, divisores))} cabezas."
        )
    return d, h, _entero(largo, "El largo de la frase", 1, LARGO_MAX), _entero(semilla, "La semilla", 0, SEMILLA_MAX)


# --- las dos capas, con los mismos pesos -----------------------------------------------------


def crear_capa(d_modelo: int, cabezas: int, g: torch.Generator) -> AtencionMulticabeza:
    """Una AtencionMulticabeza con pesos al azar del generador `g`, sin tocar el RNG global.

    Se construye en el dispositivo «meta» (sin memoria ni números al azar) y se llena después
    con la misma inicialización que nn.Linear: uniforme en ±1/√(entradas).
    """
    with torch.device("meta"):
        capa = AtencionMulticabeza(d_modelo, cabezas)
    capa = capa.to_empty(device="cpu")
    with torch.no_grad():
        for lineal in (capa.qkv, capa.salida):
            cota = 1 / math.sqrt(lineal.in_features)
            lineal.weight.uniform_(-cota, cota, generator=g)
            lineal.bias.uniform_(-cota, cota, generator=g)
    return capa.eval()


def copia_oficial(capa: AtencionMulticabeza) -> nn.MultiheadAttention:
    """nn.MultiheadAttention con los pesos de `capa`: qkv -> in_proj_*, salida -> out_proj.

    Usa los mismos tensores (no los copia): se crea en «meta», sin memoria ni inicialización, y cada
    parámetro pasa a ser el de `capa`.
    """
    d = capa.qkv.in_features
    oficial = nn.MultiheadAttention(d, capa.cabezas, batch_first=True, device="meta")
    oficial.in_proj_weight = capa.qkv.weight  # (3d, d): Q, K y V apilados, como qkv
    oficial.in_proj_bias = capa.qkv.bias
    oficial.out_proj.weight = capa.salida.weight
    oficial.out_proj.bias = capa.salida.bias
    return oficial.eval()


def parametros(modulo: nn.Module) -> int:
    return sum(p.numel() for p in modulo.parameters())


def pesos_en_float64(capa: AtencionMulticabeza, x: torch.Tensor) -> torch.Tensor:
    """Los pesos (B, cabezas, L, L) de `capa` sobre x (B, L, d) en float64: los pasos 1) y 2) de su forward.

    Da lo mismo, bit a bit, que `capa.double()(x.double())[1]` (se comprueba en las pruebas), sin convertir
    la capa `salida`, que los pesos no usan (medido con d = 512 y 5 palabras: 1.5 ms de CPU en lugar de 10).
    """
    W, b = capa.qkv.weight.double(), capa.qkv.bias.double()  # (3d, d), (3d,)
    q, k, v = nn.functional.linear(x.double(), W, b).chunk(3, dim=-1)  # 3 × (B, L, d)
    return atencion(capa.separar(q), capa.separar(k), capa.separar(v))[1]  # (B, cabezas, L, L)


def comparar(d_modelo: int = 16, cabezas: int = 4, largo: int = 5, semilla: int = 0) -> dict:
    """Nuestra capa y la de PyTorch sobre el mismo lote al azar x: (2, largo, d_modelo), como la lección.

    Devuelve los pesos de la primera frase (cabezas, largo, largo), las formas de la entrada, la
    salida y los pesos del lote, las diferencias máximas de salidas y
    pesos, y los parámetros de cada parte. "pesos_figura" son los mismos pesos calculados
    en float64: en float32 su último dígito cambia de una petición a otra (MKL suma en otro
    orden según la alineación de la memoria), y la figura no debe cambiar si la entrada no cambia.
    """
    g = torch.Generator().manual_seed(semilla)
    x = torch.randn(1, largo, d_modelo, generator=g)  # la frase de la figura: `largo` palabras
    capa = crear_capa(d_modelo, cabezas, g)
    x = torch.cat([x, torch.randn(1, largo, d_modelo, generator=g)])  # y otra: un lote de 2, como la lección
    oficial = copia_oficial(capa)
    with torch.inference_mode():
        nuestra, pesos = capa(x)  # (2, L, d), (2, cabezas, L, L)
        # Autoatención: la misma x hace de consultas, claves y valores
        suya, pesos_suyos = oficial(x, x, x, average_attn_weights=False)
        _, por_omision = oficial(x, x, x)  # average_attn_weights=True por omisión: el promedio de las cabezas
        pesos_figura = pesos_en_float64(capa, x[:1])  # (1, cabezas, L, L)
    return {
        "formas": {"entrada": tuple(x.shape), "salida": tuple(nuestra.shape), "pesos": tuple(pesos.shape)},
        "pesos": pesos[0].numpy(),
        "pesos_figura": pesos_figura[0].numpy(),
        "dif_salidas": (nuestra - suya).abs().max().item(),
        "dif_pesos": (pesos - pesos_suyos).abs().max().item(),
        "forma_por_omision": tuple(por_omision.shape),  # (2, L, L): sin la dimensión de las cabezas
        "dif_promedio": (pesos.mean(dim=1) - por_omision).abs().max().item(),
        "qkv": parametros(capa.qkv),
        "salida": parametros(capa.salida),
        "total": parametros(capa),
        "total_oficial": parametros(oficial),
    }


@lru_cache(maxsize=64)
def parametros_por_cabezas(d_modelo: int) -> dict[int, tuple[int, int]]:
    """{cabezas: (parámetros de AtencionMulticabeza, de nn.MultiheadAttention)} para cada número de cabezas
    que divide a d_modelo (hasta CABEZAS_MAX), contados en el dispositivo "meta" (sin reservar memoria)."""
    cuentas = {}
    for h in (k for k in range(1, CABEZAS_MAX + 1) if d_modelo % k == 0):
        with torch.device("meta"):
            nuestra = AtencionMulticabeza(d_modelo, h)
        # device="meta" en vez del contexto: el contexto intercepta cada operación de su __init__ (~1/3 más lento).
        cuentas[h] = (parametros(nuestra), parametros(nn.MultiheadAttention(d_modelo, h, device="meta")))
    return cuentas


# --- la vista ---------------------------------------------------------------------------------


def figura_reparto(d: int, h: int) -> Paneles:
    """Qué columnas de Q, K y V recibe cada cabeza (un bloque de d/h), y los parámetros según las cabezas."""
    trozo = d // h
    columnas = np.arange(d)
    dueno = (columnas[None, :] // trozo == np.arange(h)[:, None]).astype(float)  # (h, d): 1 si la columna es suya
    nombres = tuple(f"cabeza {k + 1}" for k in range(h))
    reparto = Mapa(
        dueno,
        y=nombres,
        nombres_x=tuple(f"la columna {c}" for c in columnas),
        titulo=f"{d} columnas ÷ {h} {'cabeza' if h == 1 else 'cabezas'} = {trozo} por cabeza",
        eje_x="Columna de Q, K y V",
        numeros=False,
        barra=None,
        pista="{x} es de la {y}: {v}",
        formato=".0f",
    )
    cuentas = parametros_por_cabezas(d)
    cabezas = tuple(cuentas)
    resalte = tuple(C1 if k == h else C0 for k in cabezas)
    barras = Barras(
        tuple(map(str, cabezas)),
        (
            Serie("AtencionMulticabeza", [cuentas[k][0] for k in cabezas], colores=resalte),
            # El número, sobre la nuestra: el de PyTorch es el mismo (la altura lo muestra, y la pista lo da); sobre
            # las dos, los diez «1 088» de a pares se pisaban a 1280 × 800.
            Serie("nn.MultiheadAttention", [cuentas[k][1] for k in cabezas], color=GRIS, numeros=("",) * len(cabezas)),
        ),
        titulo=f"Parámetros según las cabezas: {miles(cuentas[h][0])} con cualquiera",
        eje_x="Cabezas",
        eje_y="Parámetros",
        numeros=len(cabezas) <= 5,
        formato=",.0f",
        rango=(0, max(max(c) for c in cuentas.values()) * 1.25),
        pista="{s} con {c} cabezas: {v} parámetros",
    )
    return Paneles((reparto, barras), columnas=2, anchos=(1.5, 1.0), alto_fila=260)


ANCHO_UTIL = 1050  # px de pantalla para los paneles de una fila (la figura va a lo ancho de la página)
CASILLAS_MAPA = 2048  # con más casillas en las cabezas, van como imágenes: la respuesta queda en ≲ 40 kB


def _pixeles(matriz: np.ndarray, vmax: float) -> np.ndarray:
    """Pesos (L, L) -> imagen RGB (L, L, 3) en blanco→C0, la escala de los mapas, de 0 a `vmax`."""
    blanco, tinta = np.array([255.0, 255.0, 255.0]), np.array([int(C0[k : k + 2], 16) for k in (1, 3, 5)], float)
    t = np.round(np.clip(matriz / vmax, 0, 1) * 255)[..., None] / 255  # (L, L, 1), en 256 tonos: PNG con paleta
    return np.round(blanco + t * (tinta - blanco)).astype(np.uint8)  # (L, L, 3)


def _figura(pesos: np.ndarray) -> Paneles:
    """Un mapa por cabeza y uno del promedio, en filas de COLUMNAS_FIGURA paneles, con una sola barra de color."""
    h, L, _ = pesos.shape
    paneles = h + 1 if h > 1 else 1  # con una cabeza, el promedio es ella misma
    if 1 < paneles <= COLUMNAS_FIGURA:
        # Hasta 4 cabezas, una sola fila baja (cabe en una diapositiva junto a sus controles): las
        # cabezas chicas, el promedio del doble de ancho y con los números; los de cada cabeza, al pasar el ratón.
        columnas, anchos = paneles, (1.0,) * h + (2.0,)
    else:
        columnas, anchos = min(paneles, 3 if paneles <= 9 else COLUMNAS_FIGURA), (1.0,) * min(paneles, 5)
        anchos = anchos[:columnas]
    libre = ANCHO_UTIL * (1 - 0.1 * (columnas - 1))  # px de los paneles de una fila, sin los huecos
    ancho = [libre * a / sum(anchos) for a in anchos]  # px de cada columna
    alto_fila = int(np.clip(max(ancho) + 60, 200, 420))  # los mapas son cuadrados
    umbral = 40 if L <= 6 else 32  # px de casilla para «0.23» en la letra de las casillas (más grande hasta 6)
    caben = [min(a, alto_fila - 60) / L >= umbral for a in ancho]
    # Una escala común a todos los paneles, de 0 al peso más alto: con una capa sin entrenar
    # los pesos son casi parejos (≈ 1/L) y en una escala de 0 a 1 todo se vería blanco.
    vmax = max(round(float(pesos.max()), 6), 1e-6)  # redondeado: el ruido de la 16.ª cifra no cambia la figura
    como_imagen = h > 1 and h * L * L > CASILLAS_MAPA
    figuras = []
    for k in range(paneles):
        promedio = k == h or h == 1
        titulo = "Promedio de las cabezas" if promedio and h > 1 else f"Cabeza {k + 1}"
        matriz = pesos.mean(axis=0) if promedio else pesos[k]
        if como_imagen and not promedio:
            figuras.append(Imagen(_pixeles(matriz, vmax), titulo=titulo))
            continue
        figuras.append(
            Mapa(
                matriz,
                titulo=titulo,
                eje_x="Posición que se mira" if k + columnas >= paneles else "",
                eje_y="Posición que mira" if k % columnas == 0 else "",
                numeros=caben[k % columnas],
                vmax=vmax,
                barra="Peso",
                pista=f"{titulo}: la posición {{y}} mira a la {{x}}: peso {{v}}",
                cuadrado=True,
            )
        )
    # En un teléfono, una cabeza a la vez (elegida en un desplegable) en vez de una columna de hasta 9 mapas. Las
    # cabezas como imágenes (muchas casillas) siguen apiladas: cada una ya llena el ancho, y de a una la respuesta
    # llevaría los ejes de cada panel (16 cabezas de 32: de 60 a 72 kB).
    return Paneles(
        tuple(figuras),
        columnas=columnas,
        titulo=TITULO_FIGURA,
        anchos=anchos,
        alto_fila=alto_fila,
        de_a_uno=paneles > 1 and not como_imagen,
    )


def _si_no(dif: float) -> str:
    return "sí" if dif <= TOLERANCIA else "no"


def calcular(d_modelo: float = 16, cabezas: float = 4, largo: float = 5, semilla: float = 0):
    """La vista: (reparto de columnas y parámetros, figura de pesos, comprobación contra PyTorch, parámetros, texto)."""
    d, h, L, semilla = validar(d_modelo, cabezas, largo, semilla)
    r = comparar(d, h, L, semilla)
    formas = r["formas"]
    comprobacion = [
        [f"Salidas {formas['salida']}: (lote, L, d_modelo)", _si_no(r["dif_salidas"]), f"{r['dif_salidas']:.1e}"],
        [f"Pesos {formas['pesos']}: (lote, cabezas, L, L)", _si_no(r["dif_pesos"]), f"{r['dif_pesos']:.1e}"],
        [
            f"Pesos por omisión {r['forma_por_omision']}: el promedio de las cabezas",
            _si_no(r["dif_promedio"]),
            f"{r['dif_promedio']:.1e}",
        ],
    ]
    tabla = [
        ["qkv: d → 3d (Q, K y V juntos)", f"{d}·{3 * d} + {3 * d}", r["qkv"]],
        ["salida: d → d (mezcla las cabezas)", f"{d}·{d} + {d}", r["salida"]],
        ["Total (nuestra capa)", "4d² + 4d", r["total"]],
        ["Total (nn.MultiheadAttention)", "in_proj + out_proj", r["total_oficial"]],
    ]
    iguales = "los mismos que los" if r["total"] == r["total_oficial"] else "distintos de los"
    texto = (
        f"Cada una de las **{h} cabezas** recibe **{d} / {h} = {d // h} columnas** de Q, K y V y divide sus "
        f"puntajes por √{d // h}. Los parámetros no dependen del número de cabezas: son {miles(r['total'])} "
        f"con cualquier número de cabezas, {iguales} de `nn.MultiheadAttention` ({miles(r['total_oficial'])}). "
        f"«¿Iguales?» usa la tolerancia de la lección: diferencia máxima ≤ {TOLERANCIA:g}.\n\n"
        "**Ojo:** `nn.MultiheadAttention` devuelve por omisión el **promedio** de las cabezas "
        f"(`average_attn_weights=True`): pesos {r['forma_por_omision']}, sin la dimensión de las cabezas. La "
        f"comparación de la lección pide `average_attn_weights=False` para tener {formas['pesos']}; con el valor "
        f"por omisión solo se puede comparar con el promedio de las nuestras (diferencia {r['dif_promedio']:.1e}).\n\n"
        f"La capa no está entrenada: sus pesos salen de números al azar (el más alto es {r['pesos_figura'].max():.2f}; "
        f"parejos serían 1/{L} = {1 / L:.2f}), así que la escala de color va de 0 al peso más alto. "
        "Solo al entrenar cada cabeza aprende a fijarse en algo distinto."
    )
    if h > 1 and h * L * L > CASILLAS_MAPA:
        texto += (
            f"\n\nCon {h} cabezas de {L} × {L} pesos, cada cabeza va como una imagen con la misma escala de color, "
            "sin su valor al pasar el ratón (serían demasiados números que mandar); el promedio sí lo dice."
        )
    return figura_reparto(d, h), _figura(r["pesos_figura"]), comprobacion, tabla, texto


# --- aprender: predecir y comprobarse (las respuestas las calcula `comparar`) ----------------------


def _total_de(salida) -> int:
    """El total de parámetros de nuestra capa, de la tabla de parámetros de la vista."""
    return int(salida[3][2][2])


def _forma_de(salida, fila: int) -> tuple[int, ...]:
    """La forma que nombra la fila `fila` de la tabla de comprobación («Pesos (2, 4, 5, 5): …»)."""
    return tuple(int(x) for x in re.search(r"\(([\d, ]+)\)", salida[2][fila][0]).group(1).split(","))


def _mas_cabezas(antes, despues) -> dict:
    cuatro, ocho = _total_de(antes), _total_de(despues)
    cambio = "igual" if ocho == cuatro else "doble" if ocho == 2 * cuatro else "mitad" if 2 * ocho == cuatro else "otro"
    return {"respuesta": cambio, "total": miles(cuatro), "ocho": miles(ocho)}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "Con d_modelo = 16, ¿qué pasa con los parámetros de la capa si pasas de 4 a 8 cabezas?",
        verdad=ap.EnLaPestana(calcular, _mas_cabezas, cambio={"cabezas": 8}),
        opciones=(
            ap.Alternativa("igual", "no cambian", "Con 4 cabezas son {total} y con 8, {ocho}."),
            ap.Alternativa(
                "doble",
                "se duplican",
                "Una cabeza más no trae capas nuevas: con 8 cabezas cada una recibe menos columnas (16 / 8 = 2), y "
                "las matrices siguen siendo de 16 × 48 y 16 × 16: {ocho}.",
                opuesta="mitad",
            ),
            ap.Alternativa(
                "mitad",
                "bajan a la mitad",
                "Las cabezas más angostas no achican las capas: entre todas siguen cubriendo las 16 columnas de Q, "
                "K y V. Son {ocho}, como con 4.",
                opuesta="doble",
            ),
        ),
        porque="Siguen en {total}: las cabezas se reparten las 16 columnas de Q, K y V (4 cabezas de 4, u 8 de 2); "
        "las capas `qkv` y `salida` no cambian de tamaño.",
    ),
    preguntas=(
        ap.Pregunta(
            "Un lote de 2 frases de 5 palabras, d_modelo = 16 y 4 cabezas: ¿qué forma tienen los pesos?",
            (
                ap.Alternativa((2, 4, 5, 5), "(2, 4, 5, 5)", "Uno por frase, por cabeza y por par de palabras."),
                ap.Alternativa(
                    (2, 5, 16),
                    "(2, 5, 16)",
                    "Esa es la forma de la entrada y de la salida; los pesos van "
                    "de palabra a palabra: (lote, cabezas, L, L).",
                ),
                ap.Alternativa(
                    (2, 5, 5),
                    "(2, 5, 5)",
                    "Esa es la de `nn.MultiheadAttention` por omisión, que promedia "
                    "las cabezas; aquí se guarda una matriz por cabeza.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, lambda salida: _forma_de(salida, 1)),
        ),
        ap.Pregunta(
            "`nn.MultiheadAttention` sin más argumentos devuelve pesos de forma…",
            (
                ap.Alternativa(
                    (2, 5, 5),
                    "(2, 5, 5)",
                    "Promedia las cabezas (`average_attn_weights=True`); `average_attn_weights=False` da (2, 4, 5, 5).",
                ),
                ap.Alternativa(
                    (2, 4, 5, 5),
                    "(2, 4, 5, 5)",
                    "Esa la da con `average_attn_weights=False`; por omisión promedia las cabezas.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, lambda salida: _forma_de(salida, 2)),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        d = Deslizador(8, D_MAX, value=16, step=8, label="d_modelo (números por palabra)")
        cabezas = Deslizador(1, CABEZAS_MAX, value=4, step=1, label="Cabezas")
        largo = Deslizador(2, LARGO_MAX, value=5, step=1, label="Largo de la frase (palabras)")
        semilla = Numero(0, precision=0, minimum=0, maximum=SEMILLA_MAX, label="Semilla")
    reparto = grafico("Las columnas de cada cabeza y los parámetros según las cabezas")
    figura = grafico("Pesos de cada cabeza y su promedio")
    with gr.Row():
        comprobacion = gr.Dataframe(
            headers=["Comparación con nn.MultiheadAttention", "¿iguales?", "Diferencia máxima"],
            label="Mismos parámetros, misma frase",
            interactive=False,
        )
        tabla = gr.Dataframe(headers=["Parte", "Cuenta", "Parámetros"], label="Parámetros", interactive=False)
    texto = gr.Markdown()
    seccion_glosario(("cabeza", "pesos", "parámetros"), "multicabeza")
    servido(d, "sus 64 paradas pesarían 741 kB (más de los 200 kB de la pestaña)")
    servido(largo, "sus 31 paradas pesarían 361 kB (más de los 200 kB de la pestaña)")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[d, cabezas, largo, semilla],
        salidas=[reparto, figura, comprobacion, tabla, texto],
        url={"d_modelo": d, "cabezas": cabezas, "largo": largo, "semilla": semilla},
        ejemplo={"cabezas": "8"},
        barridos=(Barrido(cabezas),),
    )
