"""El bloque de la lección: su diagrama, dónde están sus parámetros (contados y comparados en vivo con
`nn.TransformerEncoderLayer`), su LayerNorm y la comparación con la capa del tutorial (§2.2)."""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import pairwise

import torch
from torch import nn

from demos.comun.figuras import (
    C0,
    C1,
    C2,
    Barras,
    Caja,
    Diagrama,
    Flecha,
    Serie,
    miles,
    numero,
)
from demos.comun.validar import entero as _entero
from modelos import BloqueTransformer
from modelos.formato import por_ciento

D_MAX, CABEZAS_MAX, D_MLP_MAX = 1024, 64, 4096
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


def vista_del_bloque(d: int, h: int, m: int):
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
