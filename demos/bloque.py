"""Bloque transformer: el diagrama de la lección y de dónde salen sus parámetros; abajo, una pila de N bloques con y
sin sus atajos residuales (tutorial §7.1) y con su LayerNorm final (§5.1), medida con `modelos.transformer`."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from itertools import pairwise

import gradio as gr
import numpy as np
import torch
from torch import nn

from demos.comun import aprender as ap
from demos.comun.controles import Deslizador
from demos.comun.figuras import (
    C0,
    C1,
    C2,
    Barras,
    Caja,
    Curva,
    Curvas,
    Diagrama,
    Flecha,
    Mapa,
    Nota,
    Paneles,
    Referencia,
    Serie,
    miles,
    numero,
)
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.validar import entero as _entero
from demos.comun.vista import Barrido, Vista, explicacion, grafico, servido
from modelos import BloqueTransformer
from modelos.formato import por_ciento
from modelos.transformer import PilaTransformer, medir_pila

D_MAX, CABEZAS_MAX, D_MLP_MAX = 1024, 64, 4096
N_MAX, N_INICIAL = 16, 4  # la pila sin atajos: hasta 16 bloques de la lección; abre con 4
D_PILA, CABEZAS_PILA, MLP_PILA = 64, 4, 256  # los bloques de la pila: el de la lección
LIMITE_SALIDAS = 1_000_000  # hasta estos parámetros se comparan también las salidas, en vivo
PARTES = ("Atención", "MLP", "LayerNorm")

EXPLICACION = r"""
Un bloque transformer consta de dos pasos, cada uno con su **atajo residual** (la entrada se suma a la
salida): primero las palabras se miran entre sí (atención multicabeza) y luego cada palabra pasa
sola por un MLP. Antes de cada paso, LayerNorm normaliza cada vector a media 0 y varianza 1 (la
poblacional: divide por el número de columnas) y
luego lo escala y desplaza con dos vectores aprendidos, $\gamma$ y $\beta$ (así que la salida ya no
tiene por qué tener media 0 y varianza 1). La norma va *antes* de cada paso, dentro del atajo: es la
variante *pre-norma*, la de `nn.TransformerEncoderLayer(norm_first=True)`; la *post-norma* del artículo
original normaliza después de sumar, $\text{LN}(x + \text{Atención}(x))$:

$$x' = x + \text{Atención}(\text{LN}(x)), \qquad y = x' + \text{MLP}(\text{LN}(x'))$$

La salida tiene la misma forma que la entrada, así que los bloques se apilan (abajo, una pila de $N$ bloques con y
sin sus atajos, y la LayerNorm final que la cierra). Mueve
$d_\text{modelo}$, las cabezas y $d_\text{mlp}$ y mira dónde están los parámetros.
"""

SIN_ATAJOS = rf"""
### Sin los atajos residuales
El tutorial (§7.1) pide «conexión residual + normalización de capas» y lo llama «una condición necesaria para
entrenar Transformers profundos». Aquí se apilan $N$ bloques de la lección ($d_\text{{modelo}}$ = {D_PILA},
{CABEZAS_PILA} cabezas, $d_\text{{mlp}}$ = {MLP_PILA}), recién creados, y se miden con sus dos atajos y sin ellos,
con los mismos pesos: sin atajos, $x' = \text{{Atención}}(\text{{LN}}(x))$ e $y = \text{{MLP}}(\text{{LN}}(x'))$. A la
izquierda, el coseno entre lo que sale del bloque $N$ en cada par de posiciones (1 = la misma dirección); a la
derecha, el gradiente de una pérdida de prueba que llega a las filas de Q y K del bloque de arriba.
"""


def validar(d_modelo, cabezas, d_mlp) -> tuple[int, int, int]:
    d = _entero(d_modelo, "d_modelo", 1, D_MAX)
    h = _entero(cabezas, "El número de cabezas", 1, CABEZAS_MAX)
    m = _entero(d_mlp, "d_mlp", 1, D_MLP_MAX)
    if d % h:
        raise ValueError(
            f"d_modelo ({d}) debe ser múltiplo del número de cabezas ({h}): cada cabeza recibe d / cabezas."
        )
    return d, h, m


def formula(d: int, d_mlp: int) -> dict[str, int]:
    """Parámetros por parte, en fórmula cerrada (pesos + sesgos)."""
    return {
        "Atención": 4 * d * d + 4 * d,  # qkv: d → 3d, salida: d → d
        "MLP": 2 * d * d_mlp + d_mlp + d,  # d → d_mlp → d
        "LayerNorm": 4 * d,  # dos LayerNorm, cada una con escala y sesgo
    }


def _contar(*modulos: nn.Module) -> int:
    return sum(p.numel() for m in modulos for p in m.parameters())


def _pareja(d: int, h: int, m: int, dispositivo: str) -> tuple[BloqueTransformer, nn.TransformerEncoderLayer]:
    with torch.device(dispositivo):
        nuestro = BloqueTransformer(d, h, m)
    # device= en vez del contexto torch.device, que intercepta cada operación de su __init__: ~1/3 más rápido.
    suyo = nn.TransformerEncoderLayer(
        d, h, dim_feedforward=m, dropout=0.0, batch_first=True, norm_first=True, device=dispositivo
    )
    return nuestro, suyo


def desglose(d: int, h: int, m: int) -> dict[str, dict[str, int]]:
    """Parámetros por parte de BloqueTransformer y de nn.TransformerEncoderLayer, contados en "meta".

    En el dispositivo "meta" los módulos tienen formas pero no datos: contar no reserva memoria.
    """
    return _partes(*_pareja(d, h, m, "meta"))


def _partes(nuestro: BloqueTransformer, suyo: nn.TransformerEncoderLayer) -> dict[str, dict[str, int]]:
    return {
        "nuestro": {
            "Atención": _contar(nuestro.atencion),
            "MLP": _contar(nuestro.mlp),
            "LayerNorm": _contar(nuestro.norma1, nuestro.norma2),
        },
        "pytorch": {
            "Atención": _contar(suyo.self_attn),
            "MLP": _contar(suyo.linear1, suyo.linear2),
            "LayerNorm": _contar(suyo.norm1, suyo.norm2),
        },
    }


def _pares(nuestro: BloqueTransformer, suyo: nn.TransformerEncoderLayer) -> list[tuple[nn.Module, str, nn.Parameter]]:
    """(módulo de `suyo`, nombre de su parámetro, el parámetro de `nuestro` que le corresponde)."""
    a, s = nuestro.atencion, suyo.self_attn  # la misma disposición qkv que nn.MultiheadAttention
    return [
        (s, "in_proj_weight", a.qkv.weight),
        (s, "in_proj_bias", a.qkv.bias),
        (s.out_proj, "weight", a.salida.weight),
        (s.out_proj, "bias", a.salida.bias),
        (suyo.linear1, "weight", nuestro.mlp[0].weight),
        (suyo.linear1, "bias", nuestro.mlp[0].bias),
        (suyo.linear2, "weight", nuestro.mlp[2].weight),
        (suyo.linear2, "bias", nuestro.mlp[2].bias),
        (suyo.norm1, "weight", nuestro.norma1.weight),
        (suyo.norm1, "bias", nuestro.norma1.bias),
        (suyo.norm2, "weight", nuestro.norma2.weight),
        (suyo.norm2, "bias", nuestro.norma2.bias),
    ]


def copiar_pesos(nuestro: BloqueTransformer, suyo: nn.TransformerEncoderLayer) -> None:
    """Pone en `suyo` los pesos de `nuestro` (la misma disposición qkv que nn.MultiheadAttention)."""
    with torch.no_grad():
        for modulo, nombre, origen in _pares(nuestro, suyo):
            getattr(modulo, nombre).copy_(origen)


def _compartir_pesos(nuestro: BloqueTransformer, suyo: nn.TransformerEncoderLayer) -> None:
    """Como `copiar_pesos`, pero `suyo` usa los mismos tensores: puede venir de "meta" sin memoria propia."""
    for modulo, nombre, origen in _pares(nuestro, suyo):
        setattr(modulo, nombre, origen)


def diferencia_con_pytorch(d: int, h: int, m: int, semilla: int = 0) -> float:
    """Diferencia máxima entre las salidas de los dos bloques con los mismos pesos, en x (2, 10, d)."""
    return _diferencia(*_pareja(d, h, m, "meta"), d, semilla)


def _diferencia(nuestro: BloqueTransformer, suyo: nn.TransformerEncoderLayer, d: int, semilla: int) -> float:
    """`diferencia_con_pytorch` con la pareja ya creada en "meta" (la misma con la que se contó)."""
    g = torch.Generator().manual_seed(semilla)
    nuestro = nuestro.to_empty(device="cpu").eval()
    with torch.no_grad():  # pesos de un generador propio: no se toca el generador global
        for nombre, p in nuestro.named_parameters():
            escala = 1 / math.sqrt(p.shape[-1]) if p.dim() == 2 else 0.1  # matrices: 1/√entradas
            # En el lugar: los mismos números que torch.randn(p.shape, generator=g) * escala (se comprueba en
            # las pruebas), sin los tres tensores intermedios de cada parámetro.
            p.normal_(generator=g).mul_(escala)
            if nombre.startswith("norma") and "weight" in nombre:
                p.add_(1.0)  # γ alrededor de 1
    _compartir_pesos(nuestro, suyo)  # los mismos pesos, sin reservar ni copiar otros tantos
    suyo.eval()
    x = torch.randn(2, 10, d, generator=g)  # (B, L, d)
    with torch.inference_mode():
        y, _ = nuestro(x)
        return (y - suyo(x)).abs().max().item()


@lru_cache(maxsize=1)
def layernorm_de_la_leccion() -> tuple[float, ...]:
    """`nn.LayerNorm(4)` recién creada (γ = 1, β = 0) sobre la palabra (1, 2, 3, 4), redondeada como la lección."""
    with torch.inference_mode():
        return tuple(nn.LayerNorm(4)(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))[0].round(decimals=2).tolist())


@lru_cache(maxsize=1)
def varianzas_de_la_leccion() -> tuple[float, float]:
    """La varianza de LN(1, 2, 3, 4): la poblacional (÷ n, la que LayerNorm lleva a 1) y la muestral (÷ n − 1)."""
    with torch.inference_mode():
        y = nn.LayerNorm(4)(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
        return y.var(unbiased=False).item(), y.var().item()


class AtencionDelTutorial(nn.Module):
    """La capa `TransformerAttention` del §2.2 del tutorial, tal cual: autoatención y `layernorm(x + atención)`."""

    def __init__(self, d_model: int, n_heads: int, device=None):
        super().__init__()
        self.attention = nn.MultiheadAttention(d_model, n_heads, dropout=0.0, batch_first=True, device=device)
        self.layernorm = nn.LayerNorm(d_model, device=device)

    def forward(self, x, key_padding_mask=None):
        attn_output, attn_weights = self.attention(x, x, x, key_padding_mask=key_padding_mask)
        output = self.layernorm(x + attn_output)  # el tutorial la llama «Pre-Norm»
        return output, attn_weights


def _capa_de_pytorch(atencion: nn.MultiheadAttention, d: int, h: int) -> nn.TransformerEncoderLayer:
    """`nn.TransformerEncoderLayer` con la atención `atencion` (sus mismos tensores) y el MLP en cero: sin él, la
    capa es su primera subcapa, x + A(LN(x)) con `norm_first=True`, y LN₂(LN₁(x + A(x))) con `norm_first=False`."""
    capa = nn.TransformerEncoderLayer(d, h, dim_feedforward=1, dropout=0.0, batch_first=True, device="meta")
    capa = capa.to_empty(device="cpu")
    capa.self_attn = atencion
    with torch.no_grad():
        for parte in (capa.linear1, capa.linear2):
            parte.weight.zero_(), parte.bias.zero_()
    capa.norm1.reset_parameters(), capa.norm2.reset_parameters()  # γ = 1, β = 0
    return capa.eval()


@lru_cache(maxsize=8)
def tutorial_2_2(d: int, h: int, semilla: int = 0) -> dict[str, float]:
    """La capa del §2.2 del tutorial (`AtencionDelTutorial`) contra `nn.TransformerEncoderLayer` con la misma
    atención: post-norma (`norm_first=False`) y pre-norma (`norm_first=True`, la del bloque).

    Devuelve la diferencia máxima con cada una, en x (2, 10, d). La post-norma de PyTorch termina con una segunda
    LayerNorm (la de su MLP, aquí en cero): a la salida del tutorial se le aplica una igual, γ = 1 y β = 0.
    """
    g = torch.Generator().manual_seed(semilla)
    tutorial = AtencionDelTutorial(d, h, device="meta").to_empty(device="cpu").eval()
    with torch.no_grad():  # los pesos salen de `g`, sin tocar el generador global
        for p in tutorial.attention.parameters():
            p.normal_(generator=g).div_(math.sqrt(d))  # = torch.randn(p.shape, generator=g) / √d, en el lugar
    tutorial.layernorm.reset_parameters()  # γ = 1, β = 0
    capa = _capa_de_pytorch(tutorial.attention, d, h)
    x = torch.randn(2, 10, d, generator=g)  # (B, L, d)
    with torch.inference_mode():
        del_tutorial, _ = tutorial(x)
        capa.norm_first = False
        post = (nn.functional.layer_norm(del_tutorial, (d,)) - capa(x)).abs().max().item()
        capa.norm_first = True
        return {"post": post, "pre": (del_tutorial - capa(x)).abs().max().item()}


X, ANCHO, ALTO = 3.7, 4.2, 0.64  # el tronco del bloque: centro y tamaño de sus cajas
X_ATAJO, RADIO = 0.9, 0.32  # por dónde suben los atajos residuales; el círculo de cada suma


def figura_diagrama(d: int, h: int, m: int, partes: dict[str, int]) -> Diagrama:
    """El bloque de abajo hacia arriba, como en la lección, con los parámetros de cada parte al lado.

    Los atajos residuales (en C2) salen de la entrada de cada paso y llegan a su suma (+).
    """
    norma = f"{miles(partes['LayerNorm'] // 2)} parámetros"
    cabezas = f"{h} {'cabeza' if h == 1 else 'cabezas'}"
    cajas = [
        Caja(X, 0.5, "Embeddings + posición", ANCHO, ALTO, nota=f"entrada (L × {d})"),
        Caja(X, 1.6, "LayerNorm", ANCHO, ALTO, nota=norma),
        Caja(
            X,
            2.7,
            "Atención multicabeza",
            ANCHO,
            ALTO,
            resaltada=True,
            nota=f"{miles(partes['Atención'])} parámetros, {cabezas}",
        ),
        Caja(X, 4.9, "LayerNorm", ANCHO, ALTO, nota=norma),
        Caja(X, 6.0, f"MLP ({d} → {m} → {d})", ANCHO, ALTO, nota=f"{miles(partes['MLP'])} parámetros"),
        Caja(X, 8.2, "Salida: mismo tamaño", ANCHO, ALTO, nota=f"salida (L × {d})"),
    ]
    sumas = [Caja(X, y, "+", 2 * RADIO, 2 * RADIO, redonda=True) for y in (3.8, 7.1)]
    tronco = sorted(cajas + sumas, key=lambda c: c.y)
    flechas = [Flecha(X, a.y + a.alto / 2, X, b.y - b.alto / 2) for a, b in pairwise(tronco)]
    for desde, suma in ((1.05, sumas[0]), (4.35, sumas[1])):  # entre una caja y la siguiente, hasta su +
        codos = ((X_ATAJO, desde), (X_ATAJO, suma.y))
        flechas.append(Flecha(X, desde, X - RADIO, suma.y, color=C2, codos=codos, texto="residual", tramo=1))
    return Diagrama(
        tuple(tronco),
        tuple(flechas),
        titulo=f"Un bloque transformer: {miles(sum(partes.values()))} parámetros",
        ancho=10.0,
        alto=8.7,
    )


def figura_barras(partes: dict[str, int]) -> Barras:
    total = sum(partes.values())
    valores = [partes[p] for p in PARTES]
    textos = tuple(f"{miles(v)} ({por_ciento(v / total, 1 if v >= 0.01 * total else 2)})" for v in valores)
    return Barras(
        PARTES,
        (Serie("parámetros", valores, colores=(C1, C0, C2), numeros=textos),),
        titulo="¿Dónde están los parámetros?",
        eje_y="Parámetros",
        horizontal=True,
        rango=(0, max(valores) * 1.5),
        pista="{c}: {t} parámetros",
    )


def calcular(d_modelo: float = 64, cabezas: float = 4, d_mlp: float = 256, bloques: float = N_INICIAL):
    """La vista: (diagrama, barras, tabla del desglose, texto de la comprobación, figura y texto de la pila de
    `bloques` bloques con y sin atajos)."""
    d, h, m = validar(d_modelo, cabezas, d_mlp)
    n = _entero(bloques, "El número de bloques", 1, N_MAX)
    return (*_vista_del_bloque(d, h, m), *sin_atajos(n))


def _vista_del_bloque(d: int, h: int, m: int):
    pareja = _pareja(d, h, m, "meta")  # se cuenta y, si no es muy grande, se llena para comparar salidas
    cuentas = _partes(*pareja)
    nuestro, suyo, cerrada = cuentas["nuestro"], cuentas["pytorch"], formula(d, m)
    formulas = {"Atención": "4·d² + 4·d", "MLP": "2·d·d_mlp + d_mlp + d", "LayerNorm": "2 × 2·d"}
    tabla = [[p, formulas[p], miles(nuestro[p]), miles(suyo[p])] for p in PARTES]
    total, total_suyo = sum(nuestro.values()), sum(suyo.values())
    tabla.append(["Total", "", miles(total), miles(total_suyo)])
    igual = nuestro == suyo == cerrada
    texto = (
        f"**Igual a PyTorch: {'sí' if igual else 'no'}.** `BloqueTransformer({d}, {h}, {m})` tiene "
        f"**{miles(total)}** parámetros; `nn.TransformerEncoderLayer({d}, {h}, dim_feedforward={m}, dropout=0.0, "
        f"batch_first=True, norm_first=True)` tiene **{miles(total_suyo)}** (contados en vivo, sin reservar memoria)."
    )
    if total <= LIMITE_SALIDAS:
        texto += (
            f" Con los mismos parámetros y una entrada (2, 10, {d}), los dos dan una salida (2, 10, {d}) que difiere a "
            f"lo sumo en **{_diferencia(*pareja, d, semilla=0):.1e}**: es el mismo cálculo."
        )
    texto += f"\n\nLas cabezas no cambian la cuenta: reparten las {d} columnas, no las multiplican."
    ln = ", ".join(numero(v) for v in layernorm_de_la_leccion())
    poblacional, muestral = varianzas_de_la_leccion()
    texto += (
        f"\n\n**LayerNorm, como en la lección:** `nn.LayerNorm(4)` lleva la palabra (1, 2, 3, 4) a **({ln})**: "
        "media 0 y varianza 1, porque recién creada tiene γ = 1 y β = 0; al entrenar, γ y β se aprenden. "
        f"Es la varianza **poblacional**, la que divide por 4: `y.var(unbiased=False)` da {poblacional:.2f}; "
        f"`y.var()` divide por 3 (la muestral, la de PyTorch por omisión) y da {muestral:.2f}."
    )
    dif = tutorial_2_2(d, h)
    texto += (
        "\n\n**Ojo con el tutorial (§2.2):** su comentario dice «Pre-Norm», pero su código, "
        "`layernorm(x + atención(x))`, normaliza después de sumar: es **post-norma**. Con los mismos módulos y "
        f"una entrada (2, 10, {d}), su capa difiere de la pre-norma de este bloque, x + Atención(LN(x)), hasta "
        f"en **{dif['pre']:.2f}**, y de la post-norma de `nn.TransformerEncoderLayer` (`norm_first=False`) "
        f"en {dif['post']:.1e}."
    )
    return figura_diagrama(d, h, m, nuestro), figura_barras(nuestro), tabla, texto


# --- la pila, con y sin atajos residuales (tutorial §7.1), y su norma final (§5.1) ------------------

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


# --- aprender: predecir y comprobarse (las respuestas las calcula `desglose`) ----------------------


def _partes_de(salida) -> dict[str, int]:
    """{parte: parámetros} de la tabla del desglose de la vista (la columna de nuestro bloque), con «Total»."""
    return {fila[0]: int(re.sub(r"\D", "", fila[2])) for fila in salida[2]}


def _total(salida) -> dict:
    partes = _partes_de(salida)
    return {
        "respuesta": partes["Total"],
        "total": miles(partes["Total"]),
        **{k.lower(): miles(v) for k, v in partes.items() if k != "Total"},
    }


def _mayor(salida) -> dict:
    partes = {k: v for k, v in _partes_de(salida).items() if k != "Total"}
    return {"respuesta": max(partes, key=partes.get), **{k.lower(): miles(v) for k, v in partes.items()}}


def _posiciones(salida) -> dict:
    """Cómo salen las posiciones sin atajos, leído del texto de la pila que muestra la vista."""
    texto = salida[5]
    con = re.search(r"diferencia relativa \*\*([^*]+)\*\*", texto).group(1)
    sin = re.search(r"sin atajos, [^(]*\(diferencia \*\*([^*]+)\*\*", texto).group(1)
    entrada = re.search(r"llega a la entrada: [^ ]+ con atajos y ([^ ]+) sin ellos", texto).group(1)
    valor = float(sin.replace("−", "-"))
    respuesta = "iguales" if valor < 1e-3 else "ceros" if valor == 0 else "distintas"
    return {"respuesta": respuesta, "con": con, "sin": sin, "entrada": entrada}


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "El bloque de la lección (d_modelo = 64, 4 cabezas, d_mlp = 256): ¿cuántos parámetros tiene?",
        verdad=ap.EnLaPestana(calcular, _total),
        decimales=0,
        minimo=0,
        maximo=1e9,
        porque="{total}: atención {atención}, MLP {mlp} y LayerNorm {layernorm}. El de PyTorch "
        "(`nn.TransformerEncoderLayer`) tiene los mismos.",
    ),
    preguntas=(
        ap.Pregunta(
            "El bloque de la lección (d_modelo = 64, d_mlp = 256) con 8 cabezas en vez de 4: ¿cuántos parámetros "
            "tiene?",
            (
                ap.Alternativa(
                    49_984,
                    "49 984, los mismos",
                    "Las cabezas se reparten las 64 columnas: más cabezas, más "
                    "pequeñas; los tamaños de las capas no cambian ({total}).",
                ),
                ap.Alternativa(
                    2 * 16_640 + 33_088 + 256,
                    "66 624 (el doble de atención)",
                    "Las cabezas no traen capas "
                    "nuevas: 8 cabezas de 8 columnas usan la misma `qkv` que 4 de 16. Siguen {total}.",
                ),
                ap.Alternativa(
                    2 * 49_984,
                    "99 968, el doble",
                    "Nada se duplica: las cabezas parten las 64 columnas en trozos más pequeños. Siguen {total}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _total, cambio={"cabezas": 8}),
            tipo=ap.CANTIDAD,
        ),
        ap.Pregunta(
            "En el bloque de la lección (d_modelo = 64, d_mlp = 4 · 64 = 256), ¿qué parte tiene más parámetros?",
            (
                ap.Alternativa(
                    "MLP", "el MLP", "{mlp}: dos capas de 64 × 256 y 256 × 64. La atención tiene {atención}."
                ),
                ap.Alternativa(
                    "Atención",
                    "la atención",
                    "Tiene {atención}; el MLP, con sus capas de 64 × 256 y 256 × 64, tiene {mlp}.",
                ),
                ap.Alternativa(
                    "LayerNorm",
                    "las LayerNorm",
                    "Solo {layernorm}: un γ y un β por columna, en dos normas. El MLP tiene {mlp}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _mayor),
        ),
        ap.Pregunta(
            "Abajo, la pila de 8 bloques de la lección **sin atajos residuales** (los mismos pesos que con ellos): "
            "¿cómo salen las 8 posiciones del último bloque?",
            (
                ap.Alternativa(
                    "iguales",
                    "todas el mismo vector",
                    "Diferencia relativa {sin} (con atajos, {con}): cada atención mezcla las posiciones y, sin el "
                    "atajo, ninguna recupera lo suyo.",
                ),
                ap.Alternativa(
                    "distintas",
                    "distintas, como con atajos",
                    "Con atajos sí ({con}); sin ellos la diferencia relativa es {sin}: cada atención mezcla las "
                    "posiciones y nada le devuelve a cada una lo suyo.",
                ),
                ap.Alternativa(
                    "ceros",
                    "en cero: la señal se apaga",
                    "No se apagan: las LayerNorm de cada paso reescalan la señal (el gradiente a la entrada es "
                    "{entrada}). Lo que se pierde es la diferencia entre posiciones: {sin}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _posiciones, cambio={"bloques": 8}),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        d_modelo = Deslizador(16, D_MAX, value=64, step=16, label="d_modelo (columnas por palabra)")
        cabezas = Deslizador(1, 16, value=4, step=1, label="Cabezas de atención (dividen a d_modelo)")
        d_mlp = Deslizador(16, D_MLP_MAX, value=256, step=16, label="d_mlp (neuronas del MLP)")
    with gr.Row():
        diagrama = grafico("Diagrama del bloque transformer", scale=3)
        with gr.Column(scale=2):
            barras = grafico("Parámetros por parte del bloque")
            texto = gr.Markdown()
    tabla = gr.Dataframe(
        headers=["Parte", "Fórmula", "BloqueTransformer", "nn.TransformerEncoderLayer"],
        label="Parámetros por parte",
        interactive=False,
    )
    with gr.Column(elem_id="bloque-atajos"):
        explicacion(SIN_ATAJOS)
        bloques = Deslizador(1, N_MAX, value=N_INICIAL, step=1, label="Bloques apilados N (los de la lección)")
        figura_atajos = grafico("Coseno entre posiciones y gradiente en Q y K, con y sin atajos residuales")
        texto_atajos = gr.Markdown()
    seccion_glosario(("LayerNorm", "parámetros", "cabeza", "embedding"), "bloque")
    servido(d_modelo, "sus 64 paradas costarían ≈ 1.4 s de cálculo en cada edición")
    servido(d_mlp, "256 paradas, 178 kB: con las de cabezas (20 kB) quedarían al borde de los 200 kB")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=[d_modelo, cabezas, d_mlp, bloques],
        salidas=[diagrama, barras, tabla, texto, figura_atajos, texto_atajos],
        url={"d_modelo": d_modelo, "cabezas": cabezas, "d_mlp": d_mlp, "bloques": bloques},
        # d_modelo (64 paradas) costaría ≈ 1.4 s de cálculo en cada edición: queda en el servidor.
        barridos=(Barrido(cabezas), Barrido(bloques)),
    )
