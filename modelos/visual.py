"""Atención en imágenes: por canal (SE), espacial y CBAM, y una red pequeña con CBAM.

    canal:    w = σ(MLP(media(x)) [+ MLP(máx(x))])            (B, C, 1, 1)   SE: solo la media; CBAM: las dos
    espacial: m = σ(conv7×7([media_c(x), máx_c(x)]))         (B, 1, H, W)
    CBAM:     y = m ⊙ (w ⊙ x)

Hu et al., «Squeeze-and-Excitation Networks», 2018 (https://arxiv.org/abs/1709.01507);
Woo et al., «CBAM», 2018 (https://arxiv.org/abs/1807.06521).
"""

from __future__ import annotations

import torch
from huggingface_hub import PyTorchModelHubMixin
from torch import Tensor, nn


class AtencionCanal(nn.Module):
    """Qué canales importan. Con `con_maximo=False` es el bloque SE; con True, la rama de CBAM."""

    def __init__(self, canales: int, reduccion: int = 16, con_maximo: bool = False):
        super().__init__()
        oculta = max(1, canales // reduccion)
        self.con_maximo = con_maximo
        self.mlp = nn.Sequential(
            nn.Conv2d(canales, oculta, 1, bias=False), nn.ReLU(), nn.Conv2d(oculta, canales, 1, bias=False)
        )

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """x: (B, C, H, W) -> y = w·x (B, C, H, W), w (B, C, 1, 1) en [0, 1]."""
        s = self.mlp(x.mean(dim=(2, 3), keepdim=True))  # (B, C, 1, 1)
        if self.con_maximo:
            s = s + self.mlp(x.amax(dim=(2, 3), keepdim=True))
        w = torch.sigmoid(s)
        return x * w, w


class AtencionEspacial(nn.Module):
    """Qué posiciones importan: media y máximo sobre los canales, convolución k×k, sigmoide."""

    def __init__(self, kernel: int = 7):
        super().__init__()
        if kernel % 2 == 0:
            raise ValueError(f"El kernel debe ser impar para conservar el tamaño; llegó {kernel}.")
        self.conv = nn.Conv2d(2, 1, kernel, padding=kernel // 2, bias=False)

    @staticmethod
    def resumen(x: Tensor) -> Tensor:
        """x: (B, C, H, W) -> (B, 2, H, W): media y máximo sobre los canales."""
        return torch.cat([x.mean(dim=1, keepdim=True), x.amax(dim=1, keepdim=True)], dim=1)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """x: (B, C, H, W) -> y = m·x (B, C, H, W), m (B, 1, H, W) en [0, 1]."""
        m = torch.sigmoid(self.conv(self.resumen(x)))
        return x * m, m


APAGADAS = ("uno", "media")  # a qué vale una compuerta apagada


class CBAM(nn.Module):
    """Atención de canal y luego espacial, en serie (Woo et al., 2018)."""

    def __init__(self, canales: int, reduccion: int = 16, kernel: int = 7):
        super().__init__()
        self.canal = AtencionCanal(canales, reduccion, con_maximo=True)
        self.espacial = AtencionEspacial(kernel)

    def forward(
        self, x: Tensor, canal: bool = True, espacial: bool = True, apagada: str = "uno"
    ) -> tuple[Tensor, Tensor, Tensor]:
        """x: (B, C, H, W) -> y (B, C, H, W), pesos_canal (B, C, 1, 1), mapa_espacial (B, 1, H, W).

        `canal=False` o `espacial=False` apagan esa rama. Con `apagada="uno"` su compuerta vale 1 (como
        quitarla); con `apagada="media"`, la media de sus propios valores en esa imagen: la escala de las
        activaciones se conserva y solo se pierde la selección.
        """
        if apagada not in APAGADAS:
            raise ValueError(f"`apagada` debe ser una de {APAGADAS}; llegó {apagada!r:.20}.")
        B, C, H, W = x.shape
        if canal:
            x, w = self.canal(x)
        elif apagada == "media":
            w = self.canal(x)[1].mean(dim=1, keepdim=True).expand(B, C, 1, 1)  # (B, C, 1, 1): un valor por imagen
            x = x * w
        else:
            w = x.new_ones(B, C, 1, 1)
        if espacial:
            x, m = self.espacial(x)
        elif apagada == "media":
            m = self.espacial(x)[1].mean(dim=(2, 3), keepdim=True).expand(B, 1, H, W)  # (B, 1, H, W)
            x = x * m
        else:
            m = x.new_ones(B, 1, H, W)
        return x, w, m


class RedCBAM(nn.Module, PyTorchModelHubMixin):
    """CNN pequeña para los dígitos de sklearn (1 × 8 × 8) con un bloque CBAM."""

    def __init__(self, *, canales: int = 32, reduccion: int = 8, kernel: int = 7, clases: int = 10):
        super().__init__()
        self.extractor = nn.Sequential(
            nn.Conv2d(1, canales, 3, padding=1),
            nn.BatchNorm2d(canales),
            nn.ReLU(),
            nn.Conv2d(canales, canales, 3, padding=1),
            nn.BatchNorm2d(canales),
            nn.ReLU(),
        )
        self.cbam = CBAM(canales, reduccion, kernel)
        self.cabeza = nn.Sequential(nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(4 * canales, clases))

    def forward(
        self, x: Tensor, con_pesos: bool = False, canal: bool = True, espacial: bool = True, apagada: str = "uno"
    ) -> Tensor | tuple[Tensor, Tensor, Tensor]:
        """x: (B, 1, 8, 8) -> logits (B, clases); con `con_pesos`, también
        pesos_canal (B, C, 1, 1) y mapa_espacial (B, 1, 8, 8). CBAM recibe activaciones después de una ReLU (≥ 0)."""
        y, w, m = self.cbam(self.extractor(x), canal=canal, espacial=espacial, apagada=apagada)
        logits = self.cabeza(y)
        return (logits, w, m) if con_pesos else logits
