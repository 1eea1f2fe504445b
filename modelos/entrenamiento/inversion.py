"""El bucle que enseña a invertir 8 dígitos, la exactitud con que se mide y las instantáneas.

`entrenar_inversion` es el bucle de la receta de inversion-digitos y también el de la pestaña
«entrénalo tú»: entrena in situ el modelo que le dan y va informando del progreso.
`instantaneas()` carga las del entrenamiento de inversion-digitos. Semillas fijas y generadores
propios, nunca el estado aleatorio global: dos corridas iguales dan los mismos pesos, bit a bit.
Las recetas de los checkpoints están en `recetas.py`; la línea de comandos, en `__main__.py`.
"""

from __future__ import annotations

import json
import math
import numbers
import statistics
from collections.abc import Callable, Iterator
from functools import lru_cache

import torch
from torch import Tensor, nn

from ..datos import DIGITOS, LARGO, secuencias_digitos
from ..formato import miles
from ..hilos import un_hilo
from ..hub import cargar_archivo, dispositivo
from ..transformer import TransformerJuguete

# torch toma la semilla módulo 2³²: la de validación es la última y `semilla` no puede llegar a ella.
SEMILLA_VALIDACION = 2**32 - 1
N_VALIDACION, N_VALIDACION_RAPIDA = 2_000, 500
MAXIMO_PASOS = 20_000  # ≈ 1 min en 2 núcleos: ninguna llamada del API retiene un trabajador más


# ---------------------------------------------------------------- medir


def exactitud(modelo: nn.Module, X: Tensor, Y: Tensor) -> tuple[float, float]:
    """Fracción de aciertos por elemento y por muestra entera, en el modo en que esté el modelo.

    Secuencias: X (N, L) dígitos, Y (N, L) -> (por dígito, por secuencia entera).
    Imágenes: X (N, 1, 8, 8), Y (N,) -> (exactitud, exactitud). No cambia el modelo.
    """
    if not isinstance(X, Tensor) or not isinstance(Y, Tensor) or len(X) != len(Y) or len(Y) == 0:
        raise ValueError("X e Y deben ser tensores con el mismo número (≥ 1) de muestras.")
    dev = next(modelo.parameters()).device
    with torch.inference_mode():
        pred = torch.cat([modelo(x.to(dev)).argmax(dim=-1).cpu() for x in X.split(4096)])
    if pred.shape != Y.shape:
        raise ValueError(f"Las predicciones tienen forma {tuple(pred.shape)}; Y tiene {tuple(Y.shape)}.")
    acierto = pred == Y.cpu()  # (N, L) o (N,)
    por_muestra = acierto.all(dim=1) if acierto.dim() == 2 else acierto
    return acierto.float().mean().item(), por_muestra.float().mean().item()


@lru_cache(maxsize=1)
def validacion_inversion() -> tuple[Tensor, Tensor]:
    """Las 2,000 secuencias fijas de validación (2000, 8), de una semilla que no entrena nada."""
    return secuencias_digitos(N_VALIDACION, SEMILLA_VALIDACION)


# ---------------------------------------------------------------- validar argumentos


def _corto(valor: object) -> str:
    texto = repr(valor)
    return texto if len(texto) <= 40 else texto[:37] + "…"


def _entero(nombre: str, valor: object, minimo: int, maximo: int) -> int:
    entero = isinstance(valor, numbers.Integral) or (isinstance(valor, float) and valor.is_integer())
    if isinstance(valor, bool) or not entero or not minimo <= valor <= maximo:
        raise ValueError(
            f"«{nombre}» debe ser un número entero de {miles(minimo)} a {miles(maximo)}; llegó {_corto(valor)}."
        )
    return int(valor)


def _validar(modelo, epocas, secuencias, lote, tasa, semilla, cada, detener) -> tuple[int, int, int, float, int, int]:
    if not isinstance(modelo, TransformerJuguete):
        raise ValueError(f"El modelo debe ser un TransformerJuguete; llegó {type(modelo).__name__}.")
    if modelo.largo < LARGO or modelo.digitos != DIGITOS:
        raise ValueError(f"El modelo debe aceptar secuencias de {LARGO} dígitos del 0 al 9.")
    if not all(p.requires_grad for p in modelo.parameters()):
        raise ValueError("Ese modelo es de solo lectura (¿una instantánea?): entrena uno nuevo, propio.")
    epocas = _entero("epocas", epocas, 1, 50)
    secuencias = _entero("secuencias_por_epoca", secuencias, 1, 50_000)
    lote = _entero("lote", lote, 1, 4_096)
    semilla = _entero("semilla", semilla, 0, SEMILLA_VALIDACION - 1)
    cada = _entero("cada", cada, 1, MAXIMO_PASOS)
    if isinstance(tasa, bool) or not isinstance(tasa, numbers.Real) or not 0 < tasa <= 1:  # NaN también falla
        raise ValueError(f"«tasa» debe ser un número mayor que 0 y de a lo sumo 1; llegó {_corto(tasa)}.")
    if detener is not None and not callable(detener):
        raise ValueError("«detener» debe ser una función sin argumentos que devuelva True para parar, o None.")
    pasos = epocas * math.ceil(secuencias / lote)
    if pasos > MAXIMO_PASOS:
        raise ValueError(
            f"Serían {miles(pasos)} pasos de entrenamiento; el máximo es {miles(MAXIMO_PASOS)} "
            "(menos épocas, menos secuencias o un lote más grande)."
        )
    return epocas, secuencias, lote, float(tasa), semilla, cada


# ---------------------------------------------------------------- inversión de dígitos


def entrenar_inversion(
    modelo: TransformerJuguete,
    *,
    epocas: int,
    secuencias_por_epoca: int = 10_000,
    lote: int = 64,
    tasa: float = 1e-3,
    semilla: int = 0,
    cada: int = 25,
    detener: Callable[[], bool] | None = None,
) -> Iterator[dict]:
    """Entrena in situ (el modelo es del llamador, nunca uno compartido) a invertir 8 dígitos.

    Adam con entropía cruzada sobre `secuencias_por_epoca` secuencias de la semilla `semilla`,
    barajadas en cada época. Produce un dict cada `cada` pasos y al final de cada época:
    {"paso", "pasos_totales", "epoca", "perdida", "digitos", "secuencias"}; la pérdida es la media
    de entrenamiento desde el informe anterior, y digitos/secuencias la exactitud en 500 de las
    2,000 secuencias de validación (en las 2,000 al final de época). Si `detener()` da True, para
    antes del paso siguiente con un último informe (en las 2,000). Deja el modelo en eval.
    Los argumentos se validan al llamar (ValueError), antes de reservar nada.
    """
    argumentos = _validar(modelo, epocas, secuencias_por_epoca, lote, tasa, semilla, cada, detener)
    return _bucle_inversion(modelo, *argumentos, detener)


def _bucle_inversion(modelo, epocas, n, lote, tasa, semilla, cada, detener) -> Iterator[dict]:
    dev = next(modelo.parameters()).device
    X, Y = (t.to(dev) for t in secuencias_digitos(n, semilla))  # (n, 8) y su inversión
    X_val, Y_val = validacion_inversion()
    optimizador = torch.optim.Adam(modelo.parameters(), lr=tasa)
    g = torch.Generator().manual_seed(semilla)  # propio: no toca el estado aleatorio global
    por_epoca = math.ceil(n / lote)
    lotes = ((e, i) for e in range(1, epocas + 1) for i in torch.randperm(n, generator=g).to(dev).split(lote))
    estado = {"paso": 0, "pasos_totales": epocas * por_epoca, "epoca": 1, "detenido": False}
    perdidas: list[float] = []  # desde el último informe

    def informe(completo: bool) -> dict:
        modelo.eval()
        m = N_VALIDACION if completo else N_VALIDACION_RAPIDA
        digitos, secuencias = exactitud(modelo, X_val[:m], Y_val[:m])
        claves = ("paso", "pasos_totales", "epoca")
        resultado = {**{k: estado[k] for k in claves}, "perdida": statistics.fmean(perdidas)}
        perdidas.clear()
        return {**resultado, "digitos": digitos, "secuencias": secuencias}

    def avanzar() -> dict | None:
        """Entrena hasta el próximo informe y lo devuelve; None si ya no queda nada que informar."""
        for epoca, indices in lotes:
            if detener is not None and detener():
                estado["detenido"] = True
                return informe(completo=True) if perdidas else None
            estado["epoca"] = epoca
            modelo.train()
            optimizador.zero_grad()
            logits = modelo(X[indices])  # (B, 8, 10)
            perdida = nn.functional.cross_entropy(logits.transpose(1, 2), Y[indices])  # clases en la dim 1
            perdida.backward()
            optimizador.step()
            perdidas.append(perdida.item())
            estado["paso"] += 1
            fin_de_epoca = estado["paso"] % por_epoca == 0
            if fin_de_epoca or estado["paso"] % cada == 0:
                return informe(completo=fin_de_epoca)
        return None

    try:
        while not estado["detenido"]:
            with un_hilo():  # Gradio puede reanudar el generador desde otro hilo: se fija en cada tramo
                resultado = avanzar()
            if resultado is None:
                return
            yield resultado
    finally:
        modelo.eval()


@lru_cache(maxsize=2)
def _instantaneas(nombre: str) -> tuple[tuple[dict, TransformerJuguete], ...]:
    from safetensors.torch import load_file

    config = json.loads(cargar_archivo(nombre, "config.json").read_text(encoding="utf-8"))
    metricas = json.loads(cargar_archivo(nombre, "instantaneas.json").read_text(encoding="utf-8"))
    tensores = load_file(cargar_archivo(nombre, "instantaneas.safetensors"))
    resultado = []
    for m in metricas:
        prefijo = f"{m['indice']}/"
        modelo = TransformerJuguete(**config)
        modelo.load_state_dict({k[len(prefijo) :]: v for k, v in tensores.items() if k.startswith(prefijo)})
        resultado.append((m, modelo.eval().requires_grad_(False).to(dispositivo())))
    return tuple(resultado)


def instantaneas(nombre: str = "inversion-digitos") -> list[tuple[dict, TransformerJuguete]]:
    """Instantáneas del entrenamiento de `nombre`, del paso 0 al final: [(métricas, modelo en eval)].

    Las métricas son {"indice", "paso", "secuencias_vistas", "perdida", "digitos", "secuencias"}
    (entropía cruzada y exactitudes en las 2,000 secuencias de validación). Los modelos se cargan
    una vez por proceso y se comparten: no los mutes.
    """
    return [(dict(m), modelo) for m, modelo in _instantaneas(nombre)]
