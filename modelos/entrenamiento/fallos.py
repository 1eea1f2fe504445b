"""El laboratorio de fallos (§7.2 del tutorial): cada error de las preguntas frecuentes, reproducido.

La tabla de preguntas frecuentes del tutorial dice dos síntomas y sus causas:

    «los pesos de atención quedan parejos»  ← entrada sin normalizar o tasa de aprendizaje demasiado alta
    «la pérdida no baja»                    ← falta la codificación posicional o la máscara está al revés

Aquí cada causa es un interruptor sobre la tarea de invertir 8 dígitos (el TransformerJuguete de la
lección, d_modelo = 32, 1 bloque, o 4 para los atajos residuales): `fallo` arma el modelo y lo entrena, paso a
paso, registrando la pérdida y la entropía de la atención de cada paso,

    H = −Σ_j p_ij · log₂ p_ij   (media sobre lote, cabezas y filas; 3 bits = log₂ 8 = pesos parejos)

Máscara invertida: una máscara de relleno escrita con la convención de Hugging Face (1 = conservar)
y pasada donde se espera la de la lección (True = no mirar): sin relleno, tapa todas las claves.
Sin atajos residuales (tutorial §7.1, «una condición necesaria para entrenar Transformers profundos»): cada
bloque es y = MLP(LN(Atención(LN(x)))). Con 1 bloque aprende igual; con 4, las posiciones salen del último bloque
iguales entre sí y el modelo no sabe qué dígito va en cada lugar (lo mide `diferencia_entre_posiciones`).
Semillas fijas y generadores propios; el modelo es nuevo en cada llamada, nunca uno compartido.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import torch
from torch import Tensor, nn

from ..datos import LARGO, secuencias_digitos
from ..hilos import un_hilo
from ..transformer import TransformerJuguete
from .inversion import validacion_inversion

TASA, TASA_ALTA = 1e-3, 0.1
MAXIMO_PASOS, MAXIMO_LOTE = 2_000, 256
CABEZAS = (1, 2, 4, 8)  # divisores de d_modelo = 32: d_k = 32, 16, 8, 4
BLOQUES = (1, 4)  # el de la lección y uno más hondo, para los atajos residuales (600 pasos con 4: ≈ 10 s)
ENTROPIA_PAREJA = math.log2(LARGO)  # 3 bits: los 8 pesos de una fila iguales
PERDIDA_AL_AZAR = math.log(10)  # ln 10 ≈ 2.30: predecir los 10 dígitos por igual


@dataclass(frozen=True)
class Fallo:
    """Qué se rompe. Todo en False (y la tasa de la lección) es el modelo que aprende."""

    mascara_invertida: bool = False  # la attention_mask de 1 = conservar, pasada como True = no mirar
    tasa_alta: bool = False  # Adam con tasa 0.1 en vez de 0.001
    sin_layernorm: bool = False  # las tres LayerNorm cambiadas por la identidad
    sin_posicion: bool = False  # sin la tabla de posiciones
    calentamiento: bool = False  # warmup lineal (10 % de los pasos) y luego decaimiento coseno
    sin_residual: bool = False  # los dos atajos de cada bloque quitados: y = MLP(LN(Atención(LN(x))))

    @property
    def tasa(self) -> float:
        return TASA_ALTA if self.tasa_alta else TASA


def _validar(fallo, pasos, lote, semilla, cabezas, bloques) -> None:
    if not isinstance(fallo, Fallo):
        raise ValueError("«fallo» debe ser un Fallo (qué interruptores van encendidos).")
    if cabezas not in CABEZAS:
        raise ValueError(f"«cabezas» debe ser una de {', '.join(map(str, CABEZAS))} (las que dividen d_modelo 32).")
    if isinstance(bloques, bool) or bloques not in BLOQUES:
        raise ValueError(f"«bloques» debe ser {' o '.join(map(str, BLOQUES))}.")
    for nombre, valor, maximo in (("pasos", pasos, MAXIMO_PASOS), ("lote", lote, MAXIMO_LOTE)):
        if isinstance(valor, bool) or not isinstance(valor, int) or not 1 <= valor <= maximo:
            raise ValueError(f"«{nombre}» debe ser un entero de 1 a {maximo}; llegó {valor!r}.")
    if isinstance(semilla, bool) or not isinstance(semilla, int) or not 0 <= semilla < 2**31:
        raise ValueError("«semilla» debe ser un entero de 0 a 2³¹ − 1.")


def modelo_con_fallo(fallo: Fallo, semilla: int = 0, cabezas: int = 2, bloques: int = 1) -> TransformerJuguete:
    """Un TransformerJuguete nuevo (d_modelo 32, `bloques` bloques, `cabezas` de 32 / cabezas columnas), sin
    LayerNorm o sin atajos residuales si toca."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(semilla)
        red = TransformerJuguete(con_posicion=not fallo.sin_posicion, cabezas=cabezas, bloques=int(bloques))
    for bloque in red.bloques:
        bloque.residual = not fallo.sin_residual  # el modelo es de esta corrida: nadie más lo ve
    if fallo.sin_layernorm:
        red.norma = nn.Identity()
        for bloque in red.bloques:
            bloque.norma1, bloque.norma2 = nn.Identity(), nn.Identity()
    return red


def mascara(fallo: Fallo, x: Tensor) -> Tensor | None:
    """La máscara que recibe la atención: ninguna (no hay relleno) o la de Hugging Face sin convertir."""
    if not fallo.mascara_invertida:
        return None
    conservar = (x >= 0).long()  # (B, L): 1 = conservar, todo 1 porque no hay relleno
    return conservar.bool()[:, None, None, :]  # pasada tal cual como «True = no mirar»: (B, 1, 1, L)


def entropia(pesos: Tensor) -> float | None:
    """Entropía media en bits de las filas de pesos (..., Lq, Lk); None si ninguna fila tiene pesos (todo tapado).

    Una fila toda tapada (pesos 0, como la deja `modelos.atencion`) no entra en la media: no es una fila
    «concentrada», es una fila que no mira a nada.
    """
    con_pesos = pesos.sum(dim=-1) > 0.5  # (..., Lq)
    if not con_pesos.any():
        return None
    h = -(pesos * pesos.clamp_min(1e-12).log2()).sum(dim=-1)  # (..., Lq)
    return float(h[con_pesos].mean())


def tasa_en(paso: int, pasos: int, fallo: Fallo) -> float:
    """La tasa del paso `paso` (desde 0): fija, o warmup lineal del 10 % de los pasos y coseno hasta 0."""
    if not fallo.calentamiento:
        return fallo.tasa
    calentar = max(1, pasos // 10)
    if paso < calentar:
        return fallo.tasa * (paso + 1) / calentar
    avance = (paso - calentar) / max(1, pasos - calentar)
    return fallo.tasa * 0.5 * (1 + math.cos(math.pi * avance))


def entrenar_con_fallo(
    fallo: Fallo, *, pasos: int = 300, lote: int = 64, semilla: int = 0, cabezas: int = 2, bloques: int = 1
) -> Iterator[dict]:
    """Entrena un modelo nuevo con `fallo`; produce un dict por paso y, al final, uno con "final": True.

    Cada paso: {"paso", "pasos_totales", "tasa", "perdida", "entropia"} (la pérdida del lote y la entropía
    de la atención en esa pasada). El último añade "digitos" y "secuencias" (exactitud en las 2,000
    secuencias de validación), "mismo_digito" (la fracción de esas secuencias en que predice el mismo dígito en las
    8 posiciones), "diferencia_inicial" y "diferencia_final" (`diferencia_entre_posiciones` antes del primer paso y
    al final, en el primer lote) y "modelo" (el modelo entrenado, en eval, del llamador).
    """
    _validar(fallo, pasos, lote, semilla, cabezas, bloques)
    return _bucle(fallo, pasos, lote, semilla, cabezas, int(bloques))


def diferencia_entre_posiciones(red: TransformerJuguete, fallo: Fallo, x: Tensor) -> float:
    """Cuánto se distinguen las posiciones a la salida del último bloque: la media de ‖z_i − z̄‖ / ‖z_i‖ sobre el
    lote x (B, L) (0 = todas las posiciones el mismo vector)."""
    with torch.no_grad():
        z = red.fichas(x)  # (B, L, d)
        if red.posicion is not None:
            z = z + red.posicion(torch.arange(x.shape[1]))
        for bloque in red.bloques:
            z, _ = bloque(z, mascara(fallo, x))
        centrados = z - z.mean(dim=1, keepdim=True)  # (B, L, d)
        return (centrados.norm(dim=-1) / z.norm(dim=-1).clamp_min(1e-12)).mean().item()


def _bucle(fallo: Fallo, pasos: int, lote: int, semilla: int, cabezas: int, bloques: int) -> Iterator[dict]:
    red = modelo_con_fallo(fallo, semilla, cabezas, bloques)
    X, Y = secuencias_digitos(pasos * lote, semilla)  # (pasos · lote, 8): cada paso, secuencias nuevas
    with un_hilo():
        diferencia_inicial = diferencia_entre_posiciones(red, fallo, X[:lote])
    optimizador = torch.optim.Adam(red.parameters(), lr=fallo.tasa)
    for paso in range(pasos):
        with un_hilo():
            for grupo in optimizador.param_groups:
                grupo["lr"] = tasa_en(paso, pasos, fallo)
            x, y = X[paso * lote : (paso + 1) * lote], Y[paso * lote : (paso + 1) * lote]  # (lote, 8)
            red.train()
            optimizador.zero_grad()
            logits, pesos = red(x, con_pesos=True, mascara=mascara(fallo, x))  # (lote, 8, 10), [(lote, 2, 8, 8)]
            perdida = nn.functional.cross_entropy(logits.transpose(1, 2), y)
            perdida.backward()
            optimizador.step()
            valor = perdida.item()
        yield {
            "paso": paso + 1,
            "pasos_totales": pasos,
            "tasa": optimizador.param_groups[0]["lr"],
            "perdida": valor if math.isfinite(valor) else float("nan"),
            "entropia": entropia(pesos[0].detach()),
        }
    red.eval()
    X_val, Y_val = validacion_inversion()
    with un_hilo():
        digitos, secuencias, mismo = _exactitud(red, fallo, X_val, Y_val)
        diferencia_final = diferencia_entre_posiciones(red, fallo, X[:lote])
    yield {
        "final": True,
        "digitos": digitos,
        "secuencias": secuencias,
        "mismo_digito": mismo,
        "diferencia_inicial": diferencia_inicial,
        "diferencia_final": diferencia_final,
        "bloques": bloques,
        "modelo": red,
        "fallo": asdict(fallo),
    }


def _exactitud(red: TransformerJuguete, fallo: Fallo, X: Tensor, Y: Tensor) -> tuple[float, float, float]:
    """(por dígito, por secuencia, fracción de secuencias con el mismo dígito predicho en las 8 posiciones)."""
    with torch.inference_mode():
        pred = red(X, mascara=mascara(fallo, X)).argmax(dim=-1)  # (N, 8)
    acierto = pred == Y
    mismo = (pred == pred[:, :1]).all(dim=1).float().mean().item()
    return acierto.float().mean().item(), acierto.all(dim=1).float().mean().item(), mismo
