"""Bloque transformer: el diagrama de la lección y de dónde salen sus parámetros."""

from __future__ import annotations

import math
from itertools import pairwise

import gradio as gr
import torch
from matplotlib.patches import FancyBboxPatch
from matplotlib.ticker import MaxNLocator, StrMethodFormatter
from torch import nn

from demos import _graficos as G
from demos._ui import Deslizador, Vista, explicacion, imagen
from demos._validar import entero as _entero
from modelos import BloqueTransformer

D_MAX, CABEZAS_MAX, D_MLP_MAX = 1024, 64, 4096
LIMITE_SALIDAS = 1_000_000  # hasta estos parámetros se comparan también las salidas, en vivo
PARTES = ("Atención", "MLP", "LayerNorm")

EXPLICACION = r"""
Un bloque transformer repite dos pasos, cada uno con su **atajo residual** (la entrada se suma a la
salida): primero las palabras se miran entre sí (atención multicabeza) y luego cada palabra pasa
sola por un MLP. Antes de cada paso, LayerNorm deja cada vector con media 0 y varianza 1
(la variante *pre-norma*, la de `nn.TransformerEncoderLayer(norm_first=True)`):

$$x' = x + \text{Atención}(\text{LN}(x)), \qquad y = x' + \text{MLP}(\text{LN}(x'))$$

La salida tiene la misma forma que la entrada, así que los bloques se apilan. Mueve
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
        suyo = nn.TransformerEncoderLayer(d, h, dim_feedforward=m, dropout=0.0, batch_first=True, norm_first=True)
    return nuestro, suyo


def desglose(d: int, h: int, m: int) -> dict[str, dict[str, int]]:
    """Parámetros por parte de BloqueTransformer y de nn.TransformerEncoderLayer, contados en "meta".

    En el dispositivo "meta" los módulos tienen formas pero no datos: contar no reserva memoria.
    """
    nuestro, suyo = _pareja(d, h, m, "meta")
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


def copiar_pesos(nuestro: BloqueTransformer, suyo: nn.TransformerEncoderLayer) -> None:
    """Pone en `suyo` los pesos de `nuestro` (la misma disposición qkv que nn.MultiheadAttention)."""
    pares = [
        (suyo.self_attn.in_proj_weight, nuestro.atencion.qkv.weight),
        (suyo.self_attn.in_proj_bias, nuestro.atencion.qkv.bias),
        (suyo.self_attn.out_proj.weight, nuestro.atencion.salida.weight),
        (suyo.self_attn.out_proj.bias, nuestro.atencion.salida.bias),
        (suyo.linear1.weight, nuestro.mlp[0].weight),
        (suyo.linear1.bias, nuestro.mlp[0].bias),
        (suyo.linear2.weight, nuestro.mlp[2].weight),
        (suyo.linear2.bias, nuestro.mlp[2].bias),
        (suyo.norm1.weight, nuestro.norma1.weight),
        (suyo.norm1.bias, nuestro.norma1.bias),
        (suyo.norm2.weight, nuestro.norma2.weight),
        (suyo.norm2.bias, nuestro.norma2.bias),
    ]
    with torch.no_grad():
        for destino, origen in pares:
            destino.copy_(origen)


def diferencia_con_pytorch(d: int, h: int, m: int, semilla: int = 0) -> float:
    """Diferencia máxima entre las salidas de los dos bloques con los mismos pesos, en x (2, 10, d)."""
    g = torch.Generator().manual_seed(semilla)
    nuestro, suyo = (b.to_empty(device="cpu").eval() for b in _pareja(d, h, m, "meta"))
    with torch.no_grad():  # pesos de un generador propio: no se toca el generador global
        for nombre, p in nuestro.named_parameters():
            escala = 1 / math.sqrt(p.shape[-1]) if p.dim() == 2 else 0.1  # matrices: 1/√entradas
            p.copy_(torch.randn(p.shape, generator=g) * escala + (nombre.startswith("norma") and "weight" in nombre))
    copiar_pesos(nuestro, suyo)
    x = torch.randn(2, 10, d, generator=g)  # (B, L, d)
    with torch.inference_mode():
        y, _ = nuestro(x)
        return (y - suyo(x)).abs().max().item()


def _caja(eje, y: float, texto: str, clave: bool = False) -> None:
    eje.add_patch(
        FancyBboxPatch(
            (2.0, y - 0.32),
            4.4,
            0.64,
            boxstyle="round,pad=0.04",
            facecolor="#fde3c8" if clave else "#e3eef8",
            edgecolor=G.C1 if clave else G.C0,
            linewidth=2.6 if clave else 1.2,
        )
    )
    eje.text(4.2, y, texto, ha="center", va="center", fontsize=11, fontweight="bold" if clave else "normal")


def figura_diagrama(d: int, h: int, m: int, partes: dict[str, int]):
    """El bloque de abajo hacia arriba, con los atajos residuales en C2 y los parámetros de cada parte."""
    fig, eje = G.figura(6.4, 5.0)
    cajas = [  # (y, texto, clave, parámetros)
        (0.5, "Embeddings + posición", False, f"entrada (L × {d})"),
        (1.6, "LayerNorm", False, f"{partes['LayerNorm'] // 2:,} parámetros"),
        (
            2.7,
            "Atención multicabeza",
            True,
            f"{partes['Atención']:,} parámetros\n{h} {'cabeza' if h == 1 else 'cabezas'}",
        ),
        (4.9, "LayerNorm", False, f"{partes['LayerNorm'] // 2:,} parámetros"),
        (6.0, f"MLP ({d} → {m} → {d})", False, f"{partes['MLP']:,} parámetros"),
        (8.2, "Salida: mismo tamaño", False, f"salida (L × {d})"),
    ]
    sumas = (3.8, 7.1)
    for y, texto, clave, nota in cajas:
        _caja(eje, y, texto, clave)
        eje.text(6.7, y, nota, ha="left", va="center", fontsize=10, color="0.35")
    for y in sumas:
        eje.scatter([4.2], [y], s=520, facecolor="white", edgecolor=G.C0, zorder=3)
        eje.text(4.2, y, "+", ha="center", va="center", fontsize=16, zorder=4)
    centros = sorted([c[0] for c in cajas] + list(sumas))
    for y0, y1 in pairwise(centros):
        eje.annotate("", (4.2, y1 - 0.34), (4.2, y0 + 0.34), arrowprops={"arrowstyle": "->", "color": G.C0})
    for y_desde, y_hasta in ((1.05, 3.8), (4.35, 7.1)):
        eje.plot([4.2, 1.3, 1.3], [y_desde, y_desde, y_hasta], color=G.C2, linewidth=1.5)
        eje.annotate(
            "", (3.95, y_hasta), (1.3, y_hasta), arrowprops={"arrowstyle": "->", "color": G.C2, "linewidth": 1.5}
        )
        eje.text(0.95, (y_desde + y_hasta) / 2, "residual", rotation=90, color=G.C2, ha="center", va="center")
    eje.set_xlim(0.4, 9.6)
    eje.set_ylim(0, 8.7)
    eje.axis("off")
    eje.set_title(f"Un bloque transformer: {sum(partes.values()):,} parámetros")
    return fig


def figura_barras(partes: dict[str, int]):
    total = sum(partes.values())
    fig, eje = G.figura(5.0, 2.6)
    colores = [G.C1, G.C0, G.C2]
    nombres = list(reversed(PARTES))
    valores = [partes[p] for p in nombres]
    eje.barh(nombres, valores, color=list(reversed(colores)))
    for k, v in enumerate(valores):
        eje.text(
            v,
            k,
            f"  {v:,} ({v / total:.1%})" if v >= 0.01 * total else f"  {v:,} ({v / total:.2%})",
            va="center",
            fontsize=10,
        )
    eje.set_xlim(0, max(valores) * 1.45)
    eje.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    eje.xaxis.set_major_locator(MaxNLocator(4))
    eje.set_xlabel("Parámetros")
    eje.set_title("¿Dónde están los parámetros?")
    return fig


def calcular(d_modelo: float = 64, cabezas: float = 4, d_mlp: float = 256):
    """La vista: (diagrama, barras, tabla del desglose, texto de la comprobación)."""
    d, h, m = validar(d_modelo, cabezas, d_mlp)
    cuentas = desglose(d, h, m)
    nuestro, suyo, cerrada = cuentas["nuestro"], cuentas["pytorch"], formula(d, m)
    formulas = {"Atención": "4·d² + 4·d", "MLP": "2·d·d_mlp + d_mlp + d", "LayerNorm": "2 × 2·d"}
    tabla = [[p, formulas[p], f"{nuestro[p]:,}", f"{suyo[p]:,}"] for p in PARTES]
    total, total_suyo = sum(nuestro.values()), sum(suyo.values())
    tabla.append(["Total", "", f"{total:,}", f"{total_suyo:,}"])
    igual = nuestro == suyo == cerrada
    texto = (
        f"**Igual a PyTorch: {'sí' if igual else 'no'}.** `BloqueTransformer({d}, {h}, {m})` tiene "
        f"**{total:,}** parámetros; `nn.TransformerEncoderLayer({d}, {h}, dim_feedforward={m}, dropout=0.0, "
        f"batch_first=True, norm_first=True)` tiene **{total_suyo:,}** (contados en vivo, sin reservar memoria)."
    )
    if total <= LIMITE_SALIDAS:
        texto += (
            f" Con los mismos pesos, sus salidas difieren a lo sumo en "
            f"**{diferencia_con_pytorch(d, h, m):.1e}**: es el mismo cálculo."
        )
    texto += f"\n\nLas cabezas no cambian la cuenta: reparten las {d} columnas, no las multiplican."
    return figura_diagrama(d, h, m, nuestro), figura_barras(nuestro), tabla, texto


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        d_modelo = Deslizador(16, D_MAX, value=64, step=16, label="d_modelo (columnas por palabra)")
        cabezas = Deslizador(1, 16, value=4, step=1, label="Cabezas de atención (dividen a d_modelo)")
        d_mlp = Deslizador(16, D_MLP_MAX, value=256, step=16, label="d_mlp (neuronas del MLP)")
    with gr.Row():
        diagrama = imagen("Diagrama del bloque transformer", scale=3)
        with gr.Column(scale=2):
            barras = imagen("Parámetros por parte del bloque")
            texto = gr.Markdown()
    tabla = gr.Dataframe(
        headers=["Parte", "Fórmula", "BloqueTransformer", "nn.TransformerEncoderLayer"],
        label="Parámetros por parte",
        interactive=False,
    )
    return Vista(
        fn=calcular,
        entradas=[d_modelo, cabezas, d_mlp],
        salidas=[diagrama, barras, tabla, texto],
        url={"d_modelo": d_modelo, "cabezas": cabezas, "d_mlp": d_mlp},
    )


if __name__ == "__main__":
    from app import construir_una, opciones_lanzamiento

    construir_una("bloque").launch(**opciones_lanzamiento())
