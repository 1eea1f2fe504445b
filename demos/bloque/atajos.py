"""La pila de N bloques con y sin sus atajos residuales (tutorial §7.1) y con su LayerNorm final (§5.1), medida
con `modelos.transformer`."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import torch
from torch import nn

from demos.bloque.parametros import copiar_pesos
from demos.comun.figuras import (
    C1,
    C2,
    Curva,
    Curvas,
    Mapa,
    Nota,
    Paneles,
    Referencia,
    numero,
)
from modelos.transformer import PilaTransformer, medir_pila

N_MAX, N_INICIAL = 16, 4  # la pila sin atajos: hasta 16 bloques de la lección; abre con 4
D_PILA, CABEZAS_PILA, MLP_PILA = 64, 4, 256  # los bloques de la pila: el de la lección

SIN_ATAJOS = rf"""
### Sin los atajos residuales
El tutorial (§7.1) pide «conexión residual + normalización de capas» y lo llama «una condición necesaria para
entrenar Transformers profundos». Aquí se apilan $N$ bloques de la lección ($d_\text{{modelo}}$ = {D_PILA},
{CABEZAS_PILA} cabezas, $d_\text{{mlp}}$ = {MLP_PILA}), recién creados, y se miden con sus dos atajos y sin ellos,
con los mismos pesos: sin atajos, $x' = \text{{Atención}}(\text{{LN}}(x))$ e $y = \text{{MLP}}(\text{{LN}}(x'))$. A la
izquierda, el coseno entre lo que sale del bloque $N$ en cada par de posiciones (1 = la misma dirección); a la
derecha, el gradiente de una pérdida de prueba que llega a las filas de Q y K del bloque de arriba.
"""


APAGADO = 1e-4  # un gradiente de Q y K por debajo de esto: esa atención ya no aprende a qué mirar


@lru_cache(maxsize=1)
def medidas_de_la_pila() -> dict:
    """`modelos.transformer.medir_pila` con N_MAX bloques de la lección: una vez por proceso (≈ 1 s)."""
    return medir_pila(N_MAX, d_modelo=D_PILA, cabezas=CABEZAS_PILA, d_mlp=MLP_PILA)


@lru_cache(maxsize=N_MAX)
def diferencia_con_encoder(n: int, norma_final: bool = True, semilla: int = 0) -> float:
    """`PilaTransformer` de n bloques de la lección contra `nn.TransformerEncoder(capa, n, norm=nn.LayerNorm(64))`
    (o `norm=None`) con los mismos pesos: la diferencia máxima de sus salidas en x (2, 10, 64)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(semilla)
        pila = PilaTransformer(D_PILA, CABEZAS_PILA, MLP_PILA, n, norma_final=norma_final).eval()
    suyo = encoder_con_los_pesos_de(pila)
    x = torch.randn(2, 10, D_PILA, generator=torch.Generator().manual_seed(semilla))  # (B, L, d)
    with torch.inference_mode():
        return (pila(x)[0] - suyo(x)).abs().max().item()


def encoder_con_los_pesos_de(pila: PilaTransformer) -> nn.TransformerEncoder:
    """El `nn.TransformerEncoder` de PyTorch (pre-norma, sin dropout) con los pesos de `pila`, en eval."""
    d, h = pila.bloques[0].norma1.normalized_shape[0], pila.bloques[0].atencion.cabezas
    m = pila.bloques[0].mlp[0].out_features
    capa = nn.TransformerEncoderLayer(d, h, dim_feedforward=m, dropout=0.0, batch_first=True, norm_first=True)
    norma = nn.LayerNorm(d) if pila.norma is not None else None
    suyo = nn.TransformerEncoder(capa, len(pila.bloques), norm=norma, enable_nested_tensor=False)
    for nuestro, su_capa in zip(pila.bloques, suyo.layers, strict=True):
        copiar_pesos(nuestro, su_capa)
    if norma is not None:
        with torch.no_grad():
            norma.weight.copy_(pila.norma.weight), norma.bias.copy_(pila.norma.bias)
    return suyo.eval()


def _g(v: float) -> str:
    """Un número positivo con dos cifras: 0.12, 0.036, 6.5e−6."""
    return numero(v, ".2f" if v >= 0.095 else ".2g" if v >= 1e-3 else ".1e")


def _veces(r: float) -> str:
    """Un cociente grande con dos cifras: 4, 37, 1.8 × 10⁴, 2.5 × 10⁶."""
    if r < 100:
        return numero(r, ".0f")
    exponente = math.floor(math.log10(r))
    mantisa = r / 10**exponente
    if round(mantisa, 1) >= 10:
        mantisa, exponente = mantisa / 10, exponente + 1
    return f"{numero(mantisa, '.1f')} × {_potencia(exponente)}"


def _potencia(exponente: int) -> str:
    """10 elevado a un entero, con superíndices: 10⁴, 10⁻⁴."""
    return "10" + str(exponente).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))


def _diferencia_encoder(n: int) -> str:
    dif = diferencia_con_encoder(n)
    return "en nada: dan los mismos números, bit a bit" if dif == 0 else f"a lo sumo en {dif:.1e}"


def _coseno_medio(parecido) -> float:
    """El coseno medio entre dos posiciones distintas (sin la diagonal, que es 1)."""
    L = parecido.shape[0]
    return float((parecido.sum() - parecido.trace()) / (L * L - L))


def _mapa(parecido, titulo: str) -> Mapa:
    etiquetas = tuple(str(k) for k in range(1, parecido.shape[0] + 1))
    return Mapa(
        parecido,
        x=etiquetas,
        y=etiquetas,
        titulo=titulo,
        eje_x="Posición",
        eje_y="Posición",
        vmin=0.0,
        vmax=1.0,
        barra=None,  # cada casilla lleva su número: una barra de color junto a la curva pisaba su eje
        formato=".1f",  # con dos decimales, los números de casillas vecinas se tocaban a 1280 px
        pista="posiciones {y} y {x}: coseno {v}",
        cuadrado=True,
    )


def figura_sin_atajos(n: int) -> Paneles:
    """El parecido entre las 8 salidas del bloque n, con y sin atajos, y el gradiente en Q y K del bloque de arriba."""
    medidas = medidas_de_la_pila()
    con, sin = medidas["con"][n - 1], medidas["sin"][n - 1]
    x = np.arange(1, N_MAX + 1, dtype=float)
    y_con = np.log10([m["grad_qk"][-1] for m in medidas["con"]])
    y_sin = np.log10([m["grad_qk"][-1] for m in medidas["sin"]])
    gradiente = Curvas(
        (Curva("con atajos", x, y_con, color=C2), Curva("sin atajos", x, y_sin, color=C1)),
        titulo="Gradiente en Q y K del bloque de arriba",
        eje_x="Bloques apilados N",
        eje_y="log₁₀ de la norma",
        rango_y=(-9.0, 1.0),
        verticales=(Referencia(n, f"N = {n}", color="#4d4d4d", punteada=False),),
        notas=(
            Nota(n, y_con[n - 1], _g(con["grad_qk"][-1]), color=C2, lado="arriba"),
            Nota(n, y_sin[n - 1], _g(sin["grad_qk"][-1]), color=C1, lado="abajo"),  # la curva sigue plana
        ),
        formato=".1f",
        pista="{n}<br>N = {x}: 10^{y}",
    )
    return Paneles(
        (
            _mapa(con["parecido"], f"Con atajos: coseno entre posiciones, N = {n}"),
            _mapa(sin["parecido"], f"Sin atajos: coseno entre posiciones, N = {n}"),
            gradiente,
        ),
        columnas=3,
        anchos=(1, 1, 1.3),
        alto_fila=340,
    )


def _frase_posiciones(con: dict, sin: dict) -> str:
    c_con, c_sin = _coseno_medio(con["parecido"]), _coseno_medio(sin["parecido"])
    if sin["diferencia"] < 1e-3:
        sin_ = (
            f"salen **iguales** (diferencia **{_g(sin['diferencia'])}**; coseno medio {numero(c_sin)}): cada atención "
            "mezcla las posiciones y, sin el atajo, nada le devuelve a cada una lo suyo; la pila ya no sabe qué "
            "palabra era cuál"
        )
    else:
        sin_ = f"se parecen más entre sí (diferencia **{_g(sin['diferencia'])}**; coseno medio {numero(c_sin)})"
    return (
        f"con atajos, las 8 posiciones salen distintas (diferencia relativa **{_g(con['diferencia'])}**, la media de "
        f"‖y_i − ȳ‖ / ‖y_i‖; coseno medio entre dos posiciones {numero(c_con)}); sin atajos, {sin_}"
    )


def _frase_gradiente(n: int, con: dict, sin: dict) -> str:
    g_con, g_sin = con["grad_qk"][-1], sin["grad_qk"][-1]
    if g_sin < g_con / 2:
        cuanto = f"**{_veces(g_con / g_sin)} veces menos** sin atajos"
    elif g_sin > 2 * g_con:
        cuanto = "más sin atajos: a este bloque todavía le llegan posiciones distintas"
    else:
        cuanto = "parecido en las dos"
    apagados = sum(g < APAGADO for g in sin["grad_qk"])
    frase = (
        f"**El gradiente que llega a Q y K del bloque {n}** (el de arriba) es {_g(g_con)} con atajos y {_g(g_sin)} "
        f"sin ellos: {cuanto}."
    )
    if apagados:
        frase += (
            f" Sin atajos, {apagados} de los {n} bloques {'recibe' if apagados == 1 else 'reciben'} en Q y K menos "
            f"de {_potencia(round(math.log10(APAGADO)))}: {'le' if apagados == 1 else 'les'} "
            "llegan todas las posiciones iguales, así que sus pesos de atención salen parejos muevan lo que muevan "
            "Q y K, y no tienen de dónde aprender a qué mirar."
        )
    return frase


def texto_sin_atajos(n: int) -> str:
    medidas = medidas_de_la_pila()
    con, sin = medidas["con"][n - 1], medidas["sin"][n - 1]
    primero, ultimo = medidas["con"][0], medidas["con"][-1]
    return "\n\n".join(
        [
            f"**Con N = {n} {'bloque' if n == 1 else 'bloques'}**, sobre 4 frases al azar de 8 palabras y con los "
            f"mismos pesos: {_frase_posiciones(con, sin)}.",
            _frase_gradiente(n, con, sin),
            f"Lo que aquí **no** se apaga es el gradiente que llega a la entrada: {_g(con['grad_entrada'])} con atajos "
            f"y {_g(sin['grad_entrada'])} sin ellos. Las LayerNorm de cada paso reescalan la señal; lo que se pierde "
            "sin atajos no es su tamaño, es qué posición era cuál. Entrenar eso lo muestra el laboratorio de fallos "
            "de *Inversión de dígitos* («Sin atajos residuales», con 4 bloques).",
            f"**La norma final (tutorial §5.1).** La pila del tutorial termina con `self.final_norm(x)`, y la lección "
            "con `self.norma` antes de `salida`: en pre-norma, cada LayerNorm va dentro de su paso y no en el camino "
            "del atajo, así que lo que sale del último bloque nunca pasó por una. Con atajos, cada vector sale con "
            f"tamaño √(media de sus cuadrados) = **{numero(con['rms'])}** (la entrada: "
            f"{numero(medidas['rms_entrada'])}; con 1 bloque {numero(primero['rms'])}, con {N_MAX} "
            f"{numero(ultimo['rms'])}: crece con N, porque cada bloque suma lo suyo); tras la norma final, "
            f"**{numero(con['rms_final'])}** (recién creada, γ = 1 y β = 0). Con los mismos pesos, esta pila es "
            f"`nn.TransformerEncoder(capa, num_layers={n}, norm=nn.LayerNorm({D_PILA}))`: sus salidas difieren "
            f"{_diferencia_encoder(n)}.",
        ]
    )


def sin_atajos(n: int) -> tuple[Paneles, str]:
    """(figura, texto) de la pila de n bloques de la lección con y sin atajos residuales."""
    return figura_sin_atajos(n), texto_sin_atajos(n)
