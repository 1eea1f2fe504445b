"""Lectura validada de un checkpoint: config.json con topes, safetensors con claves y formas estrictas.

Nada se deserializa con pickle. Cada error nombra el archivo, lo que le pasa y el arreglo.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file
from torch import nn

# Tope de cada entero de config.json (los no listados: 64). Con ellos, el modelo más grande
# posible pesa unos 130 MiB: se puede construir antes de comparar sus formas con los pesos.
TOPES_CONFIG = {"d_modelo": 512, "cabezas": 16, "bloques": 8, "largo": 256, "digitos": 100, "lado": 64}
TOPES_CONFIG |= {"canales": 256, "P": 8, "clases": 100, "reduccion": 256, "kernel": 15}
TOPES_CONFIG |= {"vocabulario": 4096, "d_mlp": 2048}


class ErrorCheckpoint(RuntimeError):
    """Un checkpoint dañado o que no cuadra; el mensaje nombra el archivo y el arreglo."""


class FaltaCheckpoint(ErrorCheckpoint, FileNotFoundError):
    """Falta un archivo del checkpoint."""


def una_linea(error: BaseException | str, largo: int = 240) -> str:
    texto = " ".join(str(error).split()) or type(error).__name__
    return texto if len(texto) <= largo else texto[: largo - 1] + "…"


def mal(ruta: Path, que: str, arreglo: str, tipo: type[ErrorCheckpoint] = ErrorCheckpoint) -> ErrorCheckpoint:
    """El error que nombra el archivo, lo que le pasa y el arreglo."""
    return tipo(f"{ruta}: {que}; {arreglo}.")


def construir_validado(clase: type[nn.Module], ruta_config: Path, ruta_pesos: Path, arreglo: str) -> nn.Module:
    """Valida config.json y model.safetensors y arma el modelo en la CPU, con claves estrictas."""
    config = leer_config(clase, ruta_config, arreglo)
    try:
        with torch.random.fork_rng(devices=[]):  # cargar no mueve el generador global
            modelo = clase(**config)
    except (TypeError, ValueError, RuntimeError) as e:
        raise mal(ruta_config, f"no describe un {clase.__name__} válido ({una_linea(e, 160)})", arreglo) from None
    estado = modelo.state_dict()
    pesos = leer_pesos(ruta_pesos, sum(t.numel() * t.element_size() for t in estado.values()), arreglo)
    faltan, sobran = sorted(set(estado) - set(pesos)), sorted(set(pesos) - set(estado))
    if faltan or sobran:
        raise mal(ruta_pesos, f"no cuadra con {ruta_config}: faltan {faltan[:3]}, sobran {sobran[:3]}", arreglo)
    for clave, t in estado.items():
        if pesos[clave].shape != t.shape:
            que = f"«{clave}» tiene forma {tuple(pesos[clave].shape)}, pero {ruta_config} pide {tuple(t.shape)}"
            raise mal(ruta_pesos, que, arreglo)
        if pesos[clave].is_floating_point() and not torch.isfinite(pesos[clave]).all():
            raise mal(ruta_pesos, f"«{clave}» tiene NaN o infinitos", arreglo)
    modelo.load_state_dict(pesos, strict=True)
    return modelo


def leer_config(clase: type[nn.Module], ruta: Path, arreglo: str) -> dict:
    if not ruta.is_file():
        raise mal(ruta, "falta", arreglo, FaltaCheckpoint)
    try:
        if ruta.stat().st_size > 64_000:
            raise ValueError("pesa más de 64 kB")
        config = json.loads(ruta.read_text(encoding="utf-8"))
        if not isinstance(config, dict):
            raise ValueError("no es un objeto JSON")
    except (OSError, ValueError) as e:  # JSONDecodeError y UnicodeDecodeError son ValueError
        raise mal(ruta, f"no es un config.json válido ({una_linea(e, 120)})", arreglo) from None
    parametros = inspect.signature(clase.__init__).parameters
    for clave, valor in config.items():
        por_omision = parametros[clave].default if clave in parametros and clave != "self" else None
        tope = TOPES_CONFIG.get(clave, 64)
        if isinstance(por_omision, bool):
            valido = isinstance(valor, bool)
        else:
            valido = isinstance(por_omision, int) and type(valor) is int and 1 <= valor <= tope
        if not valido:
            que = f"«{str(clave)[:40]}»={str(valor)[:40]} no vale para {clase.__name__}"
            raise mal(ruta, f"{que} (se acepta un entero de 1 a {tope}, o un booleano, según el argumento)", arreglo)
    return config


def leer_pesos(ruta: Path, total: int, arreglo: str) -> dict[str, torch.Tensor]:
    if not ruta.is_file():
        raise mal(ruta, "falta", arreglo, FaltaCheckpoint)
    if ruta.stat().st_size > total + 2**20:  # salvo la cabecera, no puede pesar más que el modelo
        raise mal(ruta, f"pesa {ruta.stat().st_size} bytes, más de lo que pide config.json", arreglo)
    try:
        return load_file(ruta, device="cpu")
    except Exception as e:  # SafetensorError no hereda de nada más específico
        raise mal(ruta, f"está dañado o no es safetensors ({una_linea(e, 120)})", arreglo) from None


def validar_extra(ruta: Path, arreglo: str) -> None:
    if not ruta.is_file():
        raise mal(ruta, "falta", arreglo, FaltaCheckpoint)
    try:
        if ruta.suffix == ".json":
            json.loads(ruta.read_text(encoding="utf-8"))
        elif ruta.suffix == ".safetensors":
            with safe_open(ruta, framework="pt") as f:  # cabecera y tamaño, sin leer tensores
                f.keys()
    except Exception as e:
        raise mal(ruta, f"está dañado ({una_linea(e, 120)})", arreglo) from None
