"""Las recetas de los checkpoints incluidos y la línea de comandos que los escribe.

    python -m modelos.entrenar NOMBRE   ->   checkpoints/NOMBRE/{config.json, model.safetensors, README.md}

En la CPU, con un hilo, semilla 0 y `torch.use_deterministic_algorithms(True)`:
en la misma máquina y versión de torch, los pesos salen iguales bit a bit.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor, nn

from .clasificador import ClasificadorAtencion
from .datos import digitos_sklearn
from .entrenar import entrenar_imagenes, entrenar_inversion, exactitud, validacion_inversion
from .hub import CARPETA
from .transformer import TransformerJuguete
from .visual import RedCBAM
from .vit import ViTDiminuto

# ---------------------------------------------------------------- recetas de los checkpoints


@dataclass(frozen=True)
class Receta:
    """Cómo se entrena un checkpoint: el modelo, su optimización y lo que se guarda."""

    clase: type[nn.Module]
    config: dict  # argumentos del constructor distintos de los por omisión
    epocas: int
    tasa: float
    secuencias_por_epoca: int = 0  # solo inversión
    decaimiento: float = 0.0  # solo imágenes (AdamW)
    instantaneas: tuple[int, ...] = ()  # pasos en que se guarda una instantánea
    meta: float = 0.0  # exactitud mínima (por secuencia o de prueba); 0 = sin meta
    # Solo CBAM: presupuesto de atención. Se castiga con `castigo`·relu(media − presupuesto) la media por
    # imagen del mapa espacial m y de los pesos de canal w que pase de su presupuesto; 0 = sin castigo.
    castigo: float = 0.0
    presupuesto_mapa: float = 1.0
    presupuesto_canal: float = 1.0
    # Solo el clasificador de opiniones: fracción mínima de frases de una sola palabra de sentimiento
    # en que la agrupación pesa más esa palabra (medida en la partición de prueba); 0 = sin meta.
    meta_clave: float = 0.0


RECETAS: dict[str, Receta] = {
    # Adam 1e-3 como en la lección, pero 160 pasos en vez de 313: pasa de no saber a invertir entre los
    # pasos 60 y 100 y a los 120 ya acierta todo. Una instantánea cada 20 pasos.
    "inversion-digitos": Receta(
        TransformerJuguete, {}, 1, 1e-3, 10_240, instantaneas=tuple(range(0, 161, 20)), meta=0.995
    ),
    "inversion-digitos-sin-posicion": Receta(TransformerJuguete, {"con_posicion": False}, 1, 1e-3, 10_240),
    # Sin castigo, las compuertas se saturan (m ≈ 1 en todo el dígito, w ≈ 1 salvo dos canales) y no enseñan
    # nada. Con un presupuesto (m: media ≤ 0.5 por imagen, la fracción de píxeles con algo de tinta; w: ≤ 0.35)
    # la red tiene que elegir dónde y en qué canales mirar. Elegido en una validación apartada (tarjeta.py).
    "cbam-digitos": Receta(
        RedCBAM, {}, 30, 3e-3, decaimiento=1e-4, meta=0.97, castigo=1.0, presupuesto_mapa=0.5, presupuesto_canal=0.35
    ),
    "vit-digitos": Receta(ViTDiminuto, {}, 150, 2e-3, decaimiento=0.05, meta=0.96),
    # d_modelo 64 y 8 cabezas: con 32 (o 48) la agrupación a menudo pesaba más una palabra vecina que la de
    # sentimiento; elegido en la partición de validación (tarjeta_opiniones.ELECCION).
    "clasificador-opiniones": Receta(
        ClasificadorAtencion,
        {"d_modelo": 64, "cabezas": 8, "bloques": 2, "d_mlp": 256},
        6,
        3e-3,
        decaimiento=0.01,
        meta=0.95,
        meta_clave=0.9,
    ),
}


@dataclass
class Resultado:
    modelo: nn.Module
    metricas: dict  # exactitudes medidas en datos no usados para entrenar
    segundos: float = 0.0
    instantaneas: list[tuple[dict, dict[str, Tensor]]] = field(default_factory=list)
    archivos: dict[str, str] = field(default_factory=dict)  # otros archivos de texto del checkpoint


def construir(nombre: str, semilla: int = 0) -> nn.Module:
    """El modelo sin entrenar de la receta `nombre`, inicializado con `semilla` (sin tocar el RNG global)."""
    receta = RECETAS[nombre]
    config = receta.config
    if receta.clase is ClasificadorAtencion:  # el tamaño del vocabulario sale de los datos
        from .entrenar_opiniones import vocabulario_entrenamiento

        config = {"vocabulario": len(vocabulario_entrenamiento()), **config}
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(semilla)
        return receta.clase(**config)


def _medir_secuencias(modelo: nn.Module) -> dict:
    """Pérdida y exactitudes en las 2,000 secuencias de validación, con una sola pasada."""
    X, Y = validacion_inversion()
    with torch.inference_mode():
        logits = modelo(X)  # (2000, 8, 10)
    acierto = logits.argmax(dim=-1) == Y  # (2000, 8)
    return {
        "perdida": nn.functional.cross_entropy(logits.transpose(1, 2), Y).item(),
        "digitos": acierto.float().mean().item(),
        "secuencias": acierto.all(dim=1).float().mean().item(),
    }


def _entrenar_secuencias(nombre: str, receta: Receta, epocas: int) -> Resultado:
    modelo = construir(nombre)
    n, lote = receta.secuencias_por_epoca, 64
    por_epoca = math.ceil(n / lote)
    tomas = []

    def tomar(paso: int) -> None:
        vistas = (paso // por_epoca) * n + min((paso % por_epoca) * lote, n)
        metricas = {"indice": len(tomas), "paso": paso, "secuencias_vistas": vistas, **_medir_secuencias(modelo)}
        tomas.append((metricas, {k: v.detach().clone() for k, v in modelo.state_dict().items()}))

    if 0 in receta.instantaneas:
        tomar(0)
    # Informes solo donde hace falta una instantánea (o al final de cada época): medir cuesta.
    cada = math.gcd(*receta.instantaneas) or por_epoca
    for informe in entrenar_inversion(modelo, epocas=epocas, secuencias_por_epoca=n, tasa=receta.tasa, cada=cada):
        if informe["paso"] in receta.instantaneas:
            tomar(informe["paso"])
    final = tomas[-1][0] if tomas and tomas[-1][0]["paso"] == epocas * por_epoca else _medir_secuencias(modelo)
    metricas = {k: final[k] for k in ("perdida", "digitos", "secuencias")}
    return Resultado(modelo, metricas, instantaneas=tomas)


def exceso_de_atencion(w: Tensor, m: Tensor, receta: Receta) -> Tensor:
    """El castigo del presupuesto: w (B, C, 1, 1), m (B, 1, H, W) -> escalar.

    Una L1 sobre lo que la media de cada imagen pase de su presupuesto: por debajo no cuesta nada, así
    que no empuja las compuertas a cero (un λ·mean(m) a secas las apagaba todas o no movía nada).
    """
    sobra_m = (m.mean(dim=(1, 2, 3)) - receta.presupuesto_mapa).relu()  # (B,)
    sobra_w = (w.mean(dim=(1, 2, 3)) - receta.presupuesto_canal).relu()  # (B,)
    return receta.castigo * (sobra_m + sobra_w).mean()


def selectividad(modelo: RedCBAM, X: Tensor, umbral: float = 0.3) -> dict:
    """Cuánto distingue el mapa espacial el trazo (píxeles de entrada > `umbral`) del resto. X: (N, 1, 8, 8).

    Medias sobre las N imágenes de: m dentro y fuera del trazo, su diferencia, el mínimo y el máximo de m
    por imagen; y de los pesos de canal, la media y cuántos quedan por debajo de 0.5.
    """
    with torch.inference_mode():
        _, w, m = modelo(X, con_pesos=True)  # (N, C, 1, 1), (N, 1, 8, 8)
    trazo = X > umbral
    dentro = (m * trazo).sum(dim=(1, 2, 3)) / trazo.sum(dim=(1, 2, 3)).clamp(min=1)
    fuera = (m * ~trazo).sum(dim=(1, 2, 3)) / (~trazo).sum(dim=(1, 2, 3)).clamp(min=1)
    return {
        "mapa_dentro": dentro.mean().item(),
        "mapa_fuera": fuera.mean().item(),
        "mapa_diferencia": (dentro - fuera).mean().item(),
        "mapa_min": m.amin(dim=(1, 2, 3)).mean().item(),
        "mapa_max": m.amax(dim=(1, 2, 3)).mean().item(),
        "canal_media": w.mean().item(),
        "canales_bajo_05": (w < 0.5).float().sum(dim=1).mean().item(),
    }


def _entrenar_imagenes(nombre: str, receta: Receta, epocas: int) -> Resultado:
    X_ent, X_prueba, y_ent, y_prueba = digitos_sklearn()
    modelo = construir(nombre)
    castigo = (lambda w, m: exceso_de_atencion(w, m, receta)) if receta.castigo else None
    perdidas = entrenar_imagenes(
        modelo, X_ent, y_ent, epocas=epocas, tasa=receta.tasa, decaimiento=receta.decaimiento, castigo=castigo
    )
    prueba, _ = exactitud(modelo, X_prueba, y_prueba)
    entrenamiento, _ = exactitud(modelo, X_ent, y_ent)
    metricas = {"prueba": prueba, "entrenamiento": entrenamiento, "perdida_final": perdidas[-1]}
    if isinstance(modelo, RedCBAM):
        metricas |= selectividad(modelo, X_prueba)
    return Resultado(modelo, metricas)


def _entrenar_opiniones(nombre: str, receta: Receta, epocas: int) -> Resultado:
    from dataclasses import replace

    from .entrenar_opiniones import entrenar_opiniones, vocabulario_entrenamiento

    modelo = construir(nombre)
    metricas = entrenar_opiniones(modelo, replace(receta, epocas=epocas))
    return Resultado(modelo, metricas, archivos={"vocabulario.json": vocabulario_entrenamiento().a_json()})


def entrenar(nombre: str, epocas: int | None = None) -> Resultado:
    """Entrena en la CPU el checkpoint `nombre` con su receta (`epocas` la acorta, para pruebas)."""
    if nombre not in RECETAS:
        raise ValueError(f"Checkpoint desconocido «{nombre}»; los hay: {', '.join(RECETAS)}.")
    receta = RECETAS[nombre]
    inicio = time.perf_counter()
    tareas = {TransformerJuguete: _entrenar_secuencias, ClasificadorAtencion: _entrenar_opiniones}
    tarea = tareas.get(receta.clase, _entrenar_imagenes)
    resultado = tarea(nombre, receta, receta.epocas if epocas is None else epocas)
    resultado.segundos = time.perf_counter() - inicio
    return resultado


# ---------------------------------------------------------------- línea de comandos


def guardar(nombre: str, resultado: Resultado, carpeta: Path, comparacion: dict | None = None) -> None:
    """config.json y model.safetensors (del mixin), las instantáneas y otros archivos si los hay, y la tarjeta."""
    from safetensors.torch import save_file

    from . import tarjeta

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
    tarjeta.escribir(carpeta, nombre, resultado, RECETAS[nombre], comparacion)


def main(argv: list[str] | None = None) -> int:
    from . import tarjeta

    parser = argparse.ArgumentParser(
        prog="python -m modelos.entrenar",
        description="Entrena un checkpoint incluido, de forma determinista en la CPU, y escribe CARPETA/NOMBRE/.",
    )
    parser.add_argument("nombre", choices=list(RECETAS))
    parser.add_argument("--carpeta", type=Path, default=CARPETA, help="por omisión, checkpoints/ del repositorio")
    args = parser.parse_args(argv)
    torch.use_deterministic_algorithms(True)  # solo en este proceso: la app no pasa por aquí
    # Un hilo: los pesos no dependen de cuántos núcleos haya, y estos modelos diminutos apenas ganan con más.
    torch.set_num_threads(1)
    comparacion = None
    if args.nombre == "inversion-digitos":
        print("Midiendo frente al bucle de la lección (3 corridas de cada uno, alternadas)…", flush=True)
        comparacion = tarjeta.comparar_con_leccion(3)
        resultado = comparacion.pop("resultado")  # la última de las 3 corridas, idénticas
        resultado.segundos = comparacion["nuestra"]
    else:
        resultado = entrenar(args.nombre)
    guardar(args.nombre, resultado, args.carpeta / args.nombre, comparacion)
    medidas = "  ".join(f"{k} {v:.4f}" for k, v in resultado.metricas.items())
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
