"""El gradiente del softmax: cuánto cambian los pesos p = softmax(s) al mover los puntajes s.

    ∂p_i / ∂s_j = p_i · (δ_ij − p_j)        (el jacobiano de una fila: diag(p) − p·pᵀ)

Si un peso se lleva casi todo (p ≈ one-hot), cada entrada es ≈ 0 y a los puntajes no les llega
gradiente: por eso la atención divide por √d (Vaswani et al., 2017, §3.2.1,
https://arxiv.org/abs/1706.03762).
"""

from __future__ import annotations

import torch
from torch import Tensor


def jacobiano_softmax(puntajes: Tensor) -> Tensor:
    """puntajes (N, n) -> jacobianos (N, n, n) de softmax(puntajes, dim=-1), uno por fila, con autograd.

    Las filas no se mezclan, así que n pasadas hacia atrás bastan: la j-ésima, de la suma de la columna j
    de p, da la fila j del jacobiano de cada fila a la vez.
    """
    N, n = puntajes.shape
    with torch.inference_mode(False), torch.enable_grad():  # también si se llama dentro de inference_mode
        # float64: los gradientes diminutos (10⁻¹⁴ con d = 4 096) no se redondean a 0
        s = puntajes.detach().to(torch.float64, copy=True).requires_grad_(True)
        p = torch.softmax(s, dim=-1)  # (N, n)
        filas = [torch.autograd.grad(p[:, j].sum(), s, retain_graph=j < n - 1)[0] for j in range(n)]
    return torch.stack(filas, dim=1)  # (N, n, n): [fila, i, j] = ∂p_i / ∂s_j


def norma_gradiente(puntajes: Tensor) -> Tensor:
    """(N,): la norma de Frobenius ‖∂p/∂s‖ del jacobiano de cada fila."""
    return jacobiano_softmax(puntajes).flatten(1).norm(dim=1)
