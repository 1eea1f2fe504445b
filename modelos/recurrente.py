"""Autoatención frente a una RNN (tutorial §3.1): el camino entre dos palabras y los pasos en secuencia.

Una RNN de Elman (la de `nn.RNN`, una capa, tanh) lee la frase de izquierda a derecha:

    h_t = tanh(x_t·W_ihᵀ + b_ih + h_{t−1}·W_hhᵀ + b_hh)

así que lo que dice la palabra 1 llega a la palabra L después de L − 1 pasos, y el gradiente
∂h_L/∂x_1 es un producto de L − 1 jacobianos diag(1 − h_t²)·W_hh. La autoatención
(softmax(Q·Kᵀ/√d)·V, «Attention Is All You Need», https://arxiv.org/abs/1706.03762) mira todas las
palabras a la vez: un solo paso de cualquier palabra a cualquier otra, y un producto de matrices para
todas las posiciones juntas.
"""

from __future__ import annotations

import math
import statistics
import time

import torch
from torch import Tensor, nn

from .atencion import AtencionMulticabeza
from .hilos import un_hilo

L_SORTEO = 256  # las palabras al azar de `redes`: las primeras L sirven para cada largo


class RNNElman(nn.Module):
    """La RNN de Elman escrita paso a paso: el mismo cálculo que `nn.RNN(d_entrada, d_oculto, batch_first=True)`."""

    def __init__(self, d_entrada: int, d_oculto: int):
        super().__init__()
        self.d_oculto = d_oculto
        self.entrada = nn.Linear(d_entrada, d_oculto)  # W_ih, b_ih
        self.oculto = nn.Linear(d_oculto, d_oculto)  # W_hh, b_hh
        limite = 1 / math.sqrt(d_oculto)  # la inicialización de nn.RNN: U(−1/√d, 1/√d) para todo
        for p in self.parameters():
            nn.init.uniform_(p, -limite, limite)

    @classmethod
    def de_torch(cls, rnn: nn.RNN) -> RNNElman:
        """La misma red que `rnn` (una capa, tanh, batch_first), con sus parámetros copiados."""
        if rnn.num_layers != 1 or rnn.nonlinearity != "tanh" or rnn.bidirectional or not rnn.batch_first:
            raise ValueError("Solo una nn.RNN de una capa, tanh, en un sentido y batch_first=True.")
        propia = cls(rnn.input_size, rnn.hidden_size)
        with torch.no_grad():
            propia.entrada.weight.copy_(rnn.weight_ih_l0)
            propia.entrada.bias.copy_(rnn.bias_ih_l0)
            propia.oculto.weight.copy_(rnn.weight_hh_l0)
            propia.oculto.bias.copy_(rnn.bias_hh_l0)
        return propia

    def forward(self, x: Tensor) -> Tensor:
        """x: (B, L, d_entrada) -> los estados h_1…h_L, (B, L, d_oculto)."""
        B, L, _ = x.shape
        a = self.entrada(x)  # (B, L, d_oculto): la parte de la entrada sí va junta
        h = x.new_zeros(B, self.d_oculto)  # h_0
        estados = []
        for t in range(L):  # la recurrencia no: h_t necesita h_{t−1}
            h = torch.tanh(a[:, t] + self.oculto(h))  # (B, d_oculto)
            estados.append(h)
        return torch.stack(estados, dim=1)  # (B, L, d_oculto)


def pasos_rnn(L: int) -> Tensor:
    """(L, L): cuántos pasos de la RNN lleva lo de la palabra j a la palabra i (i − j); −1 si j > i (no llega)."""
    i = torch.arange(L)
    d = i[:, None] - i[None, :]  # (L, L)
    return torch.where(d >= 0, d, torch.full_like(d, -1))


def pasos_autoatencion(L: int) -> Tensor:
    """(L, L): pasos de la palabra j a la i en una capa de autoatención: 1 (0 de una palabra a sí misma)."""
    return 1 - torch.eye(L, dtype=torch.long)


def _jacobiano_al_primero(f, x: Tensor) -> Tensor:
    """‖∂f(x)/∂x_1‖ (Frobenius): f lleva x (1, L, d) a la salida de la última palabra, (d,)."""
    x = x.detach().requires_grad_(True)
    y = f(x)  # (d,)
    filas = [torch.autograd.grad(y[k], x, retain_graph=True)[0][0, 0] for k in range(y.shape[0])]  # d × (d,)
    return torch.stack(filas).norm()


def redes(d: int = 16, semilla: int = 0) -> tuple[RNNElman, AtencionMulticabeza, Tensor]:
    """(la RNN, una capa de autoatención de 2 cabezas, las palabras (1, L_MAX, d)) recién iniciadas con `semilla`."""
    with torch.random.fork_rng(devices=[]):  # sin tocar el generador global (hilos de Gradio)
        torch.manual_seed(semilla)
        rnn, capa = RNNElman(d, d).eval(), AtencionMulticabeza(d, 2).eval()
        return rnn, capa, torch.randn(1, L_SORTEO, d)


def gradientes(largos: list[int], d: int = 16, semilla: int = 0) -> tuple[list[float], list[float]]:
    """Para cada L de `largos`: (‖∂h_L/∂x_1‖ de la RNN, ‖∂y_L/∂x_1‖ de la autoatención), con parámetros al azar.

    Las mismas redes y las mismas primeras L palabras para todo L (las L primeras filas de un sorteo).
    """
    rnn, capa, palabras = redes(d, semilla)
    if max(largos) > palabras.shape[1]:
        raise ValueError(f"A lo sumo {palabras.shape[1]} palabras.")
    de_rnn, de_atencion = [], []
    with un_hilo():
        for L in largos:
            x = palabras[:, :L]  # (1, L, d)
            de_rnn.append(_jacobiano_al_primero(lambda z: rnn(z)[0, -1], x).item())
            de_atencion.append(_jacobiano_al_primero(lambda z: capa(z)[0][0, -1], x).item())
    return de_rnn, de_atencion


def _medianas_ms(funciones: dict, presupuesto_s: float, veces: int) -> tuple[dict[str, float], int]:
    """({nombre: mediana en ms}, vueltas): en cada vuelta corre cada función una vez, por turnos, para que el ruido
    de una máquina compartida caiga parejo sobre todas; a lo sumo `veces` vueltas, al menos 5, y se corta al pasar
    `presupuesto_s`."""
    for f in funciones.values():
        f()  # la primera, fuera: calienta
    tiempos: dict[str, list[float]] = {n: [] for n in funciones}
    inicio, vueltas = time.perf_counter(), 0
    while vueltas < veces and (vueltas < 5 or time.perf_counter() - inicio < presupuesto_s):
        for n, f in funciones.items():
            t0 = time.perf_counter()
            f()
            tiempos[n].append((time.perf_counter() - t0) * 1000)
        vueltas += 1
    return {n: statistics.median(t) for n, t in tiempos.items()}, vueltas


def medir_tiempos(L: int = 256, d: int = 64, presupuesto_s: float = 1.0, veces: int = 21) -> dict[str, float]:
    """Cronometra, con un hilo, L pasos de RNN (los de `RNNElman` y los de `nn.RNN`) y una capa de autoatención.

    Devuelve la mediana en ms de cada una y cuántas vueltas corrió; tarda ≈ `presupuesto_s`, más una vuelta.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        rnn = nn.RNN(d, d, batch_first=True).eval()
        propia, capa = RNNElman.de_torch(rnn).eval(), AtencionMulticabeza(d, 2).eval()
        x = torch.randn(1, L, d)
    funciones = {"rnn_propia_ms": lambda: propia(x), "rnn_torch_ms": lambda: rnn(x), "atencion_ms": lambda: capa(x)}
    with torch.inference_mode(), un_hilo():
        medianas, vueltas = _medianas_ms(funciones, presupuesto_s, veces)
    return {"L": L, "d": d, **medianas, "veces": vueltas}
