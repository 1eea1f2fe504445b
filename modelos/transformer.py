"""Posición sinusoidal, el bloque transformer pre-norma, la pila de bloques y el transformer de juguete.

    bloque(x) = x' + MLP(LayerNorm(x')),   x' = x + Atención(LayerNorm(x))
    pila(x)   = LayerNorm(bloque_N(… bloque_1(x)))   (la norma final: tutorial §5.1)

Vaswani et al., 2017 (https://arxiv.org/abs/1706.03762); la variante pre-norma
es la de Xiong et al., 2020 (https://arxiv.org/abs/2002.04745), la misma que
`nn.TransformerEncoderLayer(norm_first=True)`.
"""

from __future__ import annotations

import torch
from huggingface_hub import PyTorchModelHubMixin
from torch import Tensor, nn

from .atencion import AtencionMulticabeza
from .hilos import un_hilo


def posicion_sinusoidal(largo: int, d_modelo: int) -> Tensor:
    """Codificación posicional (largo, d_modelo): seno en columnas pares, coseno en impares.

    PE[pos, 2i] = sin(pos / 10000^(2i/d)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/d)).
    """
    pos = torch.arange(largo).unsqueeze(1)  # (largo, 1)
    i = torch.arange(0, d_modelo, 2)  # 0, 2, 4, ...
    frecuencia = 1 / 10000 ** (i / d_modelo)  # (ceil(d/2),)
    pe = torch.zeros(largo, d_modelo)
    pe[:, 0::2] = torch.sin(pos * frecuencia)
    # Con d_modelo impar hay una columna de coseno menos que de seno.
    pe[:, 1::2] = torch.cos(pos * frecuencia[: d_modelo // 2])
    return pe


class BloqueTransformer(nn.Module):
    """Un bloque transformer pre-norma: atención y MLP, cada uno con su residual.

    Con `residual=False` (solo para ver qué se pierde) no hay atajos: x' = Atención(LN(x)), y = MLP(LN(x')).
    Con `dropout` = p (el del tutorial: 0.1; la lección y los checkpoints, 0), en `train()` apaga al azar los pesos
    de la atención, lo que suma cada paso y las neuronas del MLP, en el orden de
    `nn.TransformerEncoderLayer(dropout=p, norm_first=True)`; en `eval()` no hace nada.
    """

    def __init__(self, d_modelo: int, cabezas: int, d_mlp: int, *, residual: bool = True, dropout: float = 0.0):
        super().__init__()
        self.residual = residual  # no es un parámetro: no cambia el state_dict ni los checkpoints
        self.norma1 = nn.LayerNorm(d_modelo)
        self.atencion = AtencionMulticabeza(d_modelo, cabezas, dropout)
        self.norma2 = nn.LayerNorm(d_modelo)
        self.mlp = nn.Sequential(nn.Linear(d_modelo, d_mlp), nn.ReLU(), nn.Linear(d_mlp, d_modelo))
        # Los dropout no tienen parámetros: el state_dict es el mismo con cualquier p (las claves del MLP, mlp.0 y
        # mlp.2, tampoco cambian: el del medio va fuera del Sequential).
        self.dropout_atencion, self.dropout_mlp, self.dropout_salida = (nn.Dropout(dropout) for _ in range(3))

    def forward(self, x: Tensor, mascara: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """x: (B, L, d_modelo) -> y (B, L, d_modelo), pesos (B, cabezas, L, L)."""
        # 1) las palabras se miran entre sí, y se suma (residual)
        a, pesos = self.atencion(self.norma1(x), mascara)
        a = self.dropout_atencion(a)
        x = x + a if self.residual else a
        # 2) cada palabra pasa sola por el MLP, y se suma
        capa1, activacion, capa2 = self.mlp
        m = self.dropout_salida(capa2(self.dropout_mlp(activacion(capa1(self.norma2(x))))))
        return (x + m if self.residual else m), pesos


class PilaTransformer(nn.Module):
    """N bloques pre-norma y una LayerNorm final: el `TransformerEncoder` del tutorial (§5.1, su `final_norm`).

    Es `nn.TransformerEncoder(nn.TransformerEncoderLayer(..., norm_first=True), N, norm=nn.LayerNorm(d))`. En
    pre-norma, las LayerNorm de cada bloque están dentro de cada paso y no en el camino del atajo: lo que sale del
    último bloque nunca se normalizó, y la norma final lo hace (la lección: `self.norma` antes de `salida`).
    """

    def __init__(
        self, d_modelo: int, cabezas: int, d_mlp: int, bloques: int, *, norma_final: bool = True, residual: bool = True
    ):
        super().__init__()
        self.bloques = nn.ModuleList(
            [BloqueTransformer(d_modelo, cabezas, d_mlp, residual=residual) for _ in range(bloques)]
        )
        self.norma = nn.LayerNorm(d_modelo) if norma_final else None

    def forward(self, x: Tensor, mascara: Tensor | None = None) -> tuple[Tensor, list[Tensor]]:
        """x: (B, L, d_modelo) -> y (B, L, d_modelo), [pesos (B, cabezas, L, L) de cada bloque]."""
        todos = []
        for bloque in self.bloques:
            x, pesos = bloque(x, mascara)
            todos.append(pesos)
        return (self.norma(x) if self.norma is not None else x), todos


class TransformerJuguete(nn.Module, PyTorchModelHubMixin):
    """El transformer de la lección que invierte secuencias de dígitos.

    Fichas (+ posición aprendida) → bloques → LayerNorm → lineal a `digitos` clases.
    Sin posición, la autoatención no distingue el orden y la tarea es imposible.
    """

    def __init__(
        self,
        *,
        d_modelo: int = 32,
        cabezas: int = 2,
        bloques: int = 1,
        con_posicion: bool = True,
        largo: int = 8,
        digitos: int = 10,
    ):
        super().__init__()
        self.largo, self.digitos = largo, digitos
        self.fichas = nn.Embedding(digitos, d_modelo)
        self.posicion = nn.Embedding(largo, d_modelo) if con_posicion else None
        self.bloques = nn.ModuleList([BloqueTransformer(d_modelo, cabezas, 4 * d_modelo) for _ in range(bloques)])
        self.norma = nn.LayerNorm(d_modelo)
        self.salida = nn.Linear(d_modelo, digitos)

    def forward(
        self, x: Tensor, con_pesos: bool = False, mascara: Tensor | None = None
    ) -> Tensor | tuple[Tensor, list[Tensor]]:
        """x: (B, L) enteros en [0, digitos) con L <= largo; mascara: True donde NO se mira, o None.

        Devuelve logits (B, L, digitos); con `con_pesos`, también la lista de
        pesos de cada bloque, cada uno (B, cabezas, L, L).
        """
        B, L = x.shape
        if self.largo < L:
            raise ValueError(f"La secuencia tiene {L} dígitos; este modelo acepta a lo sumo {self.largo}.")
        z = self.fichas(x)  # (B, L, d_modelo)
        if self.posicion is not None:
            z = z + self.posicion(torch.arange(L, device=x.device))  # (L, d_modelo) se difunde
        todos = []
        for bloque in self.bloques:
            z, pesos = bloque(z, mascara)
            todos.append(pesos)
        logits = self.salida(self.norma(z))  # (B, L, digitos)
        return (logits, todos) if con_pesos else logits


PILA_MAXIMA = 32  # `medir_pila` no arma pilas más hondas (ni más anchas que esto)
D_MAXIMA, LARGO_MAXIMO, LOTE_MAXIMO = 256, 64, 16


def _validar_pila(bloques: int, d_modelo: int, cabezas: int, d_mlp: int, largo: int, lote: int, semilla: int) -> None:
    for nombre, v, hi in (
        ("bloques", bloques, PILA_MAXIMA),
        ("d_modelo", d_modelo, D_MAXIMA),
        ("cabezas", cabezas, D_MAXIMA),
        ("d_mlp", d_mlp, 4 * D_MAXIMA),
        ("largo", largo, LARGO_MAXIMO),
        ("lote", lote, LOTE_MAXIMO),
    ):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
            raise ValueError(f"«{nombre}» debe ser un entero de 1 a {hi}; llegó {v!r}.")
    if d_modelo % cabezas:
        raise ValueError(f"d_modelo ({d_modelo}) debe ser múltiplo del número de cabezas ({cabezas}).")
    if isinstance(semilla, bool) or not isinstance(semilla, int) or not 0 <= semilla < 2**31 - 1:
        raise ValueError("«semilla» debe ser un entero de 0 a 2³¹ − 2.")


def medir_pila(
    bloques: int,
    *,
    d_modelo: int = 64,
    cabezas: int = 4,
    d_mlp: int = 256,
    largo: int = 8,
    lote: int = 4,
    semilla: int = 0,
) -> dict:
    """Qué pasa con y sin atajos residuales en las pilas de 1…`bloques` bloques: los mismos pesos, recién creados.

    x (lote, largo, d_modelo) al azar; la pérdida es de juguete: la norma final, una capa lineal fija a 10 clases y
    etiquetas al azar. Para cada N (la pila de los N primeros bloques) y cada variante, "con" y "sin" atajos:
      parecido     (largo, largo): coseno entre las salidas del bloque N en cada par de posiciones (media del lote)
      diferencia   media de ‖y_i − ȳ‖ / ‖y_i‖: cuánto se distinguen las posiciones (0 = todas el mismo vector)
      grad_qk      (N,): norma del gradiente de la pérdida en las filas de Q y K de `qkv`, bloque por bloque
      grad_entrada norma del gradiente de la pérdida en x
      rms, rms_final: √(media de los cuadrados) de cada vector que sale del bloque N, sin y con la norma final
    Devuelve {"con": [un dict por N], "sin": [...], "rms_entrada": el de x}.
    """
    _validar_pila(bloques, d_modelo, cabezas, d_mlp, largo, lote, semilla)
    with torch.random.fork_rng(devices=[]):  # los pesos salen de `semilla` sin tocar el generador global
        torch.manual_seed(semilla)
        pila = PilaTransformer(d_modelo, cabezas, d_mlp, bloques)
    g = torch.Generator().manual_seed(semilla + 1)
    x = torch.randn(lote, largo, d_modelo, generator=g)  # (B, L, d)
    lectura = torch.randn(d_modelo, 10, generator=g) / d_modelo**0.5  # (d, 10)
    etiquetas = torch.randint(0, 10, (lote, largo), generator=g)  # (B, L)
    medidas = {"rms_entrada": _rms(x)}
    # Tensores pequeños: con más hilos, en una máquina cargada tardaba decenas de veces más (21 s contra 0.5 s).
    with un_hilo(), torch.enable_grad():
        for variante, residual in (("con", True), ("sin", False)):
            for b in pila.bloques:
                b.residual = residual  # la pila es de esta llamada: nadie más la ve
            medidas[variante] = [_medir_prefijo(pila, n, x, lectura, etiquetas) for n in range(1, bloques + 1)]
    return medidas


def _rms(z: Tensor) -> float:
    return z.pow(2).mean(dim=-1).sqrt().mean().item()


def _medir_prefijo(pila: PilaTransformer, n: int, x: Tensor, lectura: Tensor, etiquetas: Tensor) -> dict:
    """Las medidas de `medir_pila` para la pila de los `n` primeros bloques."""
    d = x.shape[-1]
    x = x.clone().requires_grad_(True)
    z = x
    for bloque in pila.bloques[:n]:
        z, _ = bloque(z)  # (B, L, d)
    final = pila.norma(z)
    perdida = nn.functional.cross_entropy((final @ lectura).transpose(1, 2), etiquetas)  # logits (B, 10, L)
    qkv = [b.atencion.qkv.weight for b in pila.bloques[:n]]  # cada uno (3d, d): filas de Q, de K y de V
    grad_x, *grad_qkv = torch.autograd.grad(perdida, [x, *qkv])
    with torch.no_grad():
        unitarios = nn.functional.normalize(z, dim=-1)  # (B, L, d)
        parecido = (unitarios @ unitarios.transpose(1, 2)).mean(dim=0)  # (L, L)
        centrados = z - z.mean(dim=1, keepdim=True)  # (B, L, d): cada posición menos la media de las posiciones
        diferencia = (centrados.norm(dim=-1) / z.norm(dim=-1)).mean().item()
        return {
            "parecido": parecido.numpy().copy(),
            "diferencia": diferencia,
            "grad_qk": [gq[: 2 * d].norm().item() for gq in grad_qkv],
            "grad_entrada": grad_x.norm().item(),
            "rms": _rms(z),
            "rms_final": _rms(final),
        }
