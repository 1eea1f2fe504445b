"""La línea de comandos que entrena un checkpoint incluido y escribe su carpeta.

    python -m modelos.entrenamiento NOMBRE   ->   checkpoints/NOMBRE/{config.json, model.safetensors, README.md}

Determinista: `torch.use_deterministic_algorithms(True)` y un hilo de torch, solo en este proceso
(la app no pasa por aquí). Las recetas están en `recetas.py`; la tarjeta, en `tarjetas.py`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from safetensors.torch import save_file

from ..hilos import fijar_para_el_proceso
from ..hub import CARPETA
from . import tarjetas
from .recetas import RECETAS, Resultado, comparar_con_leccion, entrenar


def guardar(nombre: str, resultado: Resultado, carpeta: Path, comparacion: dict | None = None) -> None:
    """config.json y model.safetensors (del mixin), las instantáneas y otros archivos si los hay, y la tarjeta."""
    carpeta.mkdir(parents=True, exist_ok=True)
    resultado.modelo.save_pretrained(carpeta)
    if resultado.instantaneas:
        tensores = {
            f"{m['indice']}/{k}": v.contiguous() for m, pesos in resultado.instantaneas for k, v in pesos.items()
        }
        save_file(tensores, carpeta / "instantaneas.safetensors", metadata={"format": "pt"})
        metricas = json.dumps([m for m, _ in resultado.instantaneas], indent=1, ensure_ascii=False)
        (carpeta / "instantaneas.json").write_text(metricas + "\n", encoding="utf-8")
    for archivo, texto in resultado.archivos.items():
        (carpeta / archivo).write_text(texto, encoding="utf-8")
    tarjetas.escribir(carpeta, nombre, resultado, RECETAS[nombre], comparacion)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m modelos.entrenamiento",
        description="Entrena un checkpoint incluido, de forma determinista en la CPU, y escribe CARPETA/NOMBRE/.",
    )
    parser.add_argument("nombre", choices=list(RECETAS))
    parser.add_argument("--carpeta", type=Path, default=CARPETA, help="por omisión, checkpoints/ del repositorio")
    args = parser.parse_args(argv)
    torch.use_deterministic_algorithms(True)  # solo en este proceso: la app no pasa por aquí
    # Un hilo: los pesos no dependen de cuántos núcleos haya, y estos modelos diminutos apenas ganan con más.
    fijar_para_el_proceso(1)
    comparacion = None
    if args.nombre == "inversion-digitos":
        print("Midiendo frente al bucle de la lección (3 corridas de cada uno, alternadas)…", flush=True)
        comparacion = comparar_con_leccion(3)
        resultado = comparacion.pop("resultado")  # la última de las 3 corridas, idénticas
        resultado.segundos = comparacion["nuestra"]
    else:
        resultado = entrenar(args.nombre)
    guardar(args.nombre, resultado, args.carpeta / args.nombre, comparacion)
    medidas = "  ".join(f"{k} {v:.4f}" for k, v in resultado.metricas.items() if isinstance(v, float))
    print(f"{args.nombre}: {medidas}  ({resultado.segundos:.2f} s) -> {args.carpeta / args.nombre}")
    if comparacion:
        print(f"Razón frente al bucle de la lección: {comparacion['razon']:.2f}")
    receta = RECETAS[args.nombre]
    logrado = resultado.metricas.get("secuencias", resultado.metricas.get("prueba", 0.0))
    if logrado < receta.meta:
        print(f"AVISO: {logrado:.2%} no llega a la meta de {receta.meta:.1%}.")
        return 1
    if resultado.metricas.get("clave", 1.0) < receta.meta_clave:
        print(
            f"AVISO: la agrupación pesa más la palabra clave en {resultado.metricas['clave']:.2%} de las frases; "
            f"la meta es {receta.meta_clave:.0%}."
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
