"""Las recetas de los checkpoints incluidos: cómo se entrena y se mide cada uno.

`python -m modelos.entrenamiento NOMBRE` (en `__main__.py`) entrena con la receta y escribe
checkpoints/NOMBRE/. En la CPU, con un hilo, semilla 0 y `torch.use_deterministic_algorithms(True)`:
en la misma máquina y versión de torch, los pesos salen iguales bit a bit. Aquí también está el
bucle de la lección, como vara de medir la receta de inversion-digitos.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field, replace

import torch
from torch import Tensor, nn

from ..clasificador import ClasificadorAtencion
from ..datos import digitos_sklearn, secuencias_digitos
from ..decodificador import DecodificadorJuguete
from ..transformer import TransformerJuguete
from ..visual import RedCBAM
from ..vit import ViTDiminuto
from .decodificador import entrenar_decodificador, medir_validacion
from .imagenes import entrenar_imagenes
from .inversion import entrenar_inversion, exactitud, validacion_inversion
from .opiniones import entrenar_opiniones, vocabulario_entrenamiento

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
    # La receta de la lección: 20,000 secuencias de la semilla 0, lotes de 64, Adam 1e-3, 2 épocas (626 pasos).
    # Pasa de no saber a invertir entre los pasos 40 y 100; el resto baja la pérdida. Instantáneas cada 20
    # pasos hasta el 160 y al final de cada época (313 y 626).
    "inversion-digitos": Receta(
        TransformerJuguete, {}, 2, 1e-3, 20_000, instantaneas=(*range(0, 161, 20), 313, 626), meta=0.995
    ),
    # El contraste de la lección, con la misma receta: sin posición se queda en ≈ 32 % de los dígitos.
    "inversion-digitos-sin-posicion": Receta(TransformerJuguete, {"con_posicion": False}, 2, 1e-3, 20_000),
    # Sin castigo, las compuertas se saturan (m ≈ 1 en todo el dígito, w ≈ 1 salvo dos canales) y no enseñan
    # nada. Con un presupuesto (m: media ≤ 0.5 por imagen, la fracción de píxeles con algo de tinta; w: ≤ 0.35)
    # la red tiene que elegir dónde y en qué canales mirar. Elegido en una validación apartada (tarjetas.py).
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
    # El escenario Decoder: la misma tarea, escrita de a un dígito con máscara causal; la receta de la lección
    # (20,000 secuencias, lotes de 64, Adam 1e-3, 2 épocas), con la pérdida de las 8 posiciones en una pasada.
    "decodificador-inversion": Receta(DecodificadorJuguete, {}, 2, 1e-3, 20_000, meta=0.995),
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
        config = {"vocabulario": len(vocabulario_entrenamiento()), **config}
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(semilla)
        return receta.clase(**config)


EJEMPLO_LECCION = (8, 3, 3, 9, 6, 9, 4, 0)  # la que invierte la lección tras entrenar


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


def probabilidades(modelo: nn.Module, X: Tensor, Y: Tensor) -> dict:
    """Cuánto se fía el modelo de sus dígitos: X, Y (N, L) -> medias y mínimos de probabilidad.

    "correcta": la media de la probabilidad que da al dígito correcto; "predicha_minima": la más
    baja que da a un dígito que predice; "correcta_minima": la más baja que da al correcto.
    """
    with torch.inference_mode():
        p = modelo(X).softmax(dim=-1)  # (N, L, 10)
    correcta = p.gather(-1, Y.unsqueeze(-1)).squeeze(-1)  # (N, L)
    return {
        "correcta": correcta.mean().item(),
        "correcta_minima": correcta.min().item(),
        "predicha_minima": p.amax(dim=-1).min().item(),
    }


def ejemplo_leccion(modelo: nn.Module) -> tuple[list[int], list[int], list[float]]:
    """La secuencia que invierte la lección (8 3 3 9 6 9 4 0): (entrada, predicción, probabilidad de cada dígito)."""
    x = torch.tensor([EJEMPLO_LECCION])  # (1, 8)
    with torch.inference_mode():
        p = modelo(x)[0].softmax(dim=-1).max(dim=-1)  # valores y argmax, (8,)
    return list(EJEMPLO_LECCION), p.indices.tolist(), p.values.tolist()


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
    # Informes solo donde hace falta una instantánea (el final de cada época siempre informa): medir cuesta.
    cada = math.gcd(*(p for p in receta.instantaneas if p % por_epoca)) or por_epoca
    suma, anterior = [0.0] * epocas, 0  # la pérdida de entrenamiento de cada época, como la imprime la lección
    for informe in entrenar_inversion(modelo, epocas=epocas, secuencias_por_epoca=n, tasa=receta.tasa, cada=cada):
        suma[informe["epoca"] - 1] += informe["perdida"] * (informe["paso"] - anterior)  # media desde el anterior
        anterior = informe["paso"]
        if informe["paso"] in receta.instantaneas:
            tomar(informe["paso"])
    final = tomas[-1][0] if tomas and tomas[-1][0]["paso"] == epocas * por_epoca else _medir_secuencias(modelo)
    metricas = {k: final[k] for k in ("perdida", "digitos", "secuencias")}
    metricas["perdidas_entrenamiento"] = [s / por_epoca for s in suma]
    metricas["probabilidades"] = probabilidades(modelo, *validacion_inversion())
    metricas["ejemplo"] = ejemplo_leccion(modelo)
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
    modelo = construir(nombre)
    metricas = entrenar_opiniones(modelo, replace(receta, epocas=epocas))
    return Resultado(modelo, metricas, archivos={"vocabulario.json": vocabulario_entrenamiento().a_json()})


def _entrenar_decodificador(nombre: str, receta: Receta, epocas: int) -> Resultado:
    modelo = construir(nombre)
    perdidas = entrenar_decodificador(modelo, epocas=epocas, secuencias=receta.secuencias_por_epoca, tasa=receta.tasa)
    return Resultado(modelo, {**medir_validacion(modelo), "perdidas_entrenamiento": perdidas})


def entrenar(nombre: str, epocas: int | None = None) -> Resultado:
    """Entrena en la CPU el checkpoint `nombre` con su receta (`epocas` la acorta, para pruebas)."""
    if nombre not in RECETAS:
        raise ValueError(f"Checkpoint desconocido «{nombre}»; los hay: {', '.join(RECETAS)}.")
    receta = RECETAS[nombre]
    inicio = time.perf_counter()
    tareas = {
        TransformerJuguete: _entrenar_secuencias,
        ClasificadorAtencion: _entrenar_opiniones,
        DecodificadorJuguete: _entrenar_decodificador,
    }
    tarea = tareas.get(receta.clase, _entrenar_imagenes)
    resultado = tarea(nombre, receta, receta.epocas if epocas is None else epocas)
    resultado.segundos = time.perf_counter() - inicio
    return resultado


# ---------------------------------------------------------------- frente al bucle de la lección


def bucle_leccion(epocas: int = 2) -> tuple[float, float]:
    """El bucle de la lección, como vara de medir: (segundos, exactitud por secuencia).

    20,000 secuencias, DataLoader con shuffle, lote 64, Adam 1e-3 y la validación al final de cada época.
    """
    from torch.utils.data import DataLoader, TensorDataset

    inicio = time.perf_counter()
    X, Y = secuencias_digitos(20_000, 0)
    X_val, Y_val = validacion_inversion()
    modelo = construir("inversion-digitos")
    cargador = DataLoader(TensorDataset(X, Y), batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(0))
    optimizador = torch.optim.Adam(modelo.parameters(), lr=1e-3)
    for _ in range(epocas):
        modelo.train()
        for x, y in cargador:
            optimizador.zero_grad()
            nn.functional.cross_entropy(modelo(x).transpose(1, 2), y).backward()
            optimizador.step()
        _, secuencias = exactitud(modelo.eval(), X_val, Y_val)
    return time.perf_counter() - inicio, secuencias


def comparar_con_leccion(repeticiones: int = 3, epocas_leccion: int = 2) -> dict:
    """Medianas de corridas alternadas de la receta de inversion-digitos y del bucle de la lección.

    Las dos hacen lo mismo (20,000 secuencias, lote 64, Adam 1e-3, 2 épocas); la receta además
    valida cada 20 pasos y guarda instantáneas, y baraja con `randperm` en vez de un DataLoader.
    Mide el tiempo de reloj y el de CPU del proceso (este varía menos si otros procesos comparten
    la máquina). Comprueba de paso el determinismo: todas las corridas dan los mismos pesos. En
    "resultado" va el `Resultado` de la última corrida de la receta.
    """
    # La primera pasada de torch prepara núcleos y memoria: que no le cueste a ninguno de los dos.
    list(entrenar_inversion(construir("inversion-digitos"), epocas=1, secuencias_por_epoca=640))
    medidas: dict[str, list[float]] = {"nuestra": [], "leccion": [], "nuestra_cpu": [], "leccion_cpu": []}
    pesos = []
    for _ in range(repeticiones):
        cpu = time.process_time()
        r = entrenar("inversion-digitos")
        medidas["nuestra_cpu"].append(time.process_time() - cpu)
        medidas["nuestra"].append(r.segundos)
        pesos.append(r.modelo.state_dict())
        cpu, reloj = time.process_time(), time.perf_counter()
        bucle_leccion(epocas_leccion)
        medidas["leccion_cpu"].append(time.process_time() - cpu)
        medidas["leccion"].append(time.perf_counter() - reloj)
    c: dict = {k: statistics.median(v) for k, v in medidas.items()}
    c["razon"], c["razon_cpu"] = c["nuestra"] / c["leccion"], c["nuestra_cpu"] / c["leccion_cpu"]
    c["iguales"] = all(torch.equal(p[k], pesos[0][k]) for p in pesos for k in p)
    c["pasos"] = RECETAS["inversion-digitos"].epocas * -(-RECETAS["inversion-digitos"].secuencias_por_epoca // 64)
    c["repeticiones"], c["hilos"], c["resultado"] = repeticiones, torch.get_num_threads(), r
    c["epocas_leccion"] = epocas_leccion
    return c
