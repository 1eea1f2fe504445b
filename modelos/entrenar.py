"""Los bucles de entrenamiento, deterministas, y la exactitud con que se miden.

    python -m modelos.entrenar NOMBRE   ->   checkpoints/NOMBRE/{config.json, model.safetensors, README.md}

`entrenar_inversion` es también el bucle de la pestaña «entrénalo tú»: entrena in
situ el modelo que le dan y va informando del progreso. `instantaneas()` carga
las del entrenamiento de inversion-digitos. Semillas fijas y generadores propios,
nunca el estado aleatorio global: dos corridas iguales dan los mismos pesos, bit a
bit. Las recetas de los checkpoints y la línea de comandos están en `recetas.py`.
"""

from __future__ import annotations

import json
import math
import numbers
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache

import torch
from torch import Tensor, nn

from .datos import DIGITOS, LARGO, secuencias_digitos
from .hub import cargar_archivo, dispositivo
from .transformer import TransformerJuguete

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
        raise ValueError(f"«{nombre}» debe ser un número entero de {minimo:,} a {maximo:,}; llegó {_corto(valor)}.")
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
            f"Serían {pasos:,} pasos de entrenamiento; el máximo es {MAXIMO_PASOS:,} "
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


@contextmanager
def _un_hilo() -> Iterator[None]:
    """Un solo hilo de cálculo mientras dura el bloque, en el hilo del sistema que lo ejecuta.

    Con modelos tan pequeños, repartir cada operación entre núcleos ahorra poco, y si otros
    procesos ocupan la CPU los hilos de OpenMP que se esperan entre sí la hacen 5 a 10 veces más
    lenta. torch guarda ese número por hilo (OpenMP y MKL): los demás hilos (otras peticiones de
    Gradio) siguen como estaban, salvo uno que usara torch por primera vez justo ahora, que
    empezaría con un hilo. Se restaura al salir, antes de cada `yield`.
    """
    antes = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(antes)


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
            with _un_hilo():  # Gradio puede reanudar el generador desde otro hilo: se fija en cada tramo
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


# ---------------------------------------------------------------- imágenes (dígitos de sklearn)


def desplazar(x: Tensor, g: torch.Generator, margen: int = 1) -> Tensor:
    """Aumentación: cada imagen (B, 1, H, W) se corre al azar hasta `margen` px en cada eje, con ceros."""
    B, _, H, W = x.shape
    relleno = nn.functional.pad(x, (margen,) * 4)  # (B, 1, H + 2m, W + 2m)
    dy, dx = torch.randint(0, 2 * margen + 1, (2, B, 1), generator=g)  # (B, 1) cada uno
    filas, columnas = dy + torch.arange(H), dx + torch.arange(W)  # (B, H), (B, W)
    recorte = relleno[torch.arange(B)[:, None, None], 0, filas[:, :, None], columnas[:, None, :]]  # (B, H, W)
    return recorte.unsqueeze(1)


def entrenar_imagenes(
    modelo: nn.Module,
    X: Tensor,
    y: Tensor,
    *,
    epocas: int,
    tasa: float,
    decaimiento: float,
    semilla: int = 0,
    castigo: Callable[..., Tensor] | None = None,
) -> list[float]:
    """AdamW con un ciclo de tasa (OneCycle), lotes de 64 y desplazamientos de ±1 px.

    X: (N, 1, 8, 8), y: (N,). Con `castigo`, el modelo se llama con `con_pesos=True` y a la
    entropía cruzada se suma `castigo(*compuertas)` (p. ej. el presupuesto de atención de CBAM).
    Devuelve la entropía cruzada media de cada época (sin el castigo); deja el modelo en eval.
    """
    g = torch.Generator().manual_seed(semilla)
    optimizador = torch.optim.AdamW(modelo.parameters(), lr=tasa, weight_decay=decaimiento)
    por_epoca = math.ceil(len(X) / 64)
    programa = torch.optim.lr_scheduler.OneCycleLR(optimizador, max_lr=tasa, total_steps=epocas * por_epoca)
    perdidas = []
    for _ in range(epocas):
        modelo.train()
        suma = 0.0
        for indices in torch.randperm(len(X), generator=g).split(64):
            optimizador.zero_grad()
            x = desplazar(X[indices], g)
            if castigo is None:
                perdida = nn.functional.cross_entropy(modelo(x), y[indices])
                perdida.backward()
            else:
                logits, *compuertas = modelo(x, con_pesos=True)
                perdida = nn.functional.cross_entropy(logits, y[indices])
                (perdida + castigo(*compuertas)).backward()
            optimizador.step()
            programa.step()
            suma += perdida.item() * len(indices)
        perdidas.append(suma / len(X))
    modelo.eval()
    return perdidas


if __name__ == "__main__":  # `python -m modelos.entrenar NOMBRE`: la línea de comandos vive en recetas.py
    from modelos.recetas import main

    raise SystemExit(main())
