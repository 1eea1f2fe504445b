"""Leer una frase con el clasificador de opiniones: fichas, clase, probabilidad y pesos.

    predecir("La película no fue nada aburrida.")   ->   Lectura(clase="positiva", probabilidad=…, pesos=…)

Funciones puras para la pestaña y para quien use el modelo: el texto se acota antes
de reservar nada (a lo sumo `MAXIMO_CARACTERES` caracteres y `largo` fichas), las
palabras desconocidas se marcan y se explican, y nada se guarda en el modelo.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch import Tensor

from .clasificador import ClasificadorAtencion
from .formato import miles
from .hub import cargar, cargar_archivo
from .opiniones import CLASES
from .vocabulario import DESCONOCIDA, Ficha, Vocabulario

NOMBRE = "clasificador-opiniones"
MAXIMO_CARACTERES = 5_000  # 64 fichas caben de sobra; lo demás ni se normaliza
MAXIMO_NOMBRADAS = 5  # palabras desconocidas que se nombran en los avisos


@dataclass(frozen=True)
class Lectura:
    """Lo que el modelo hace con una frase. Tensores en la CPU."""

    texto: str  # el texto leído, en NFC y acotado: fichas[i].inicio y .fin son posiciones en él
    fichas: tuple[Ficha, ...]  # las que lee el modelo, en orden (L)
    probabilidades: tuple[float, ...]  # una por clase de CLASES
    pesos: Tensor  # (L,) pesos de la agrupación: suman 1
    atencion: Tensor  # (bloques, cabezas, L, L) pesos de atención de cada cabeza
    avisos: tuple[str, ...]  # en español, para mostrar tal cual (texto del usuario entre «»)
    recortada: bool  # el texto tenía más de lo que se lee

    @property
    def clase(self) -> str:
        return CLASES[max(range(len(CLASES)), key=self.probabilidades.__getitem__)]

    @property
    def probabilidad(self) -> float:
        return max(self.probabilidades)


@lru_cache(maxsize=2)
def vocabulario(nombre: str = NOMBRE) -> Vocabulario:
    """El vocabulario del checkpoint `nombre` (su `vocabulario.json`), cargado una vez por proceso."""
    ruta = cargar_archivo(nombre, "vocabulario.json")
    try:
        return Vocabulario.desde_json(ruta.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ValueError(f"{ruta}: {e} Regenera con `python -m modelos.entrenamiento {nombre}`.") from None


def _recortar(texto: object) -> tuple[str, bool]:
    if not isinstance(texto, str):
        raise ValueError(f"La frase debe ser texto; llegó {type(texto).__name__}.")
    recortado = len(texto) > MAXIMO_CARACTERES
    texto = texto[:MAXIMO_CARACTERES]
    if not texto.strip():
        raise ValueError("Escribe una frase: el texto está vacío.")
    return texto, recortado


def _nombrar(palabras: list[str]) -> str:
    vistas = list(dict.fromkeys(p if len(p) <= 30 else p[:29] + "…" for p in palabras))
    nombradas = ", ".join(f"«{p}»" for p in vistas[:MAXIMO_NOMBRADAS])
    resto = len(vistas) - MAXIMO_NOMBRADAS
    return nombradas + (f" y {resto} más" if resto > 0 else "")


def _avisos(fichas: list[Ficha], caracteres: bool, fichas_de_mas: bool, largo: int) -> list[str]:
    avisos = []
    if caracteres:
        avisos.append(f"El texto es muy largo: solo se leen los primeros {miles(MAXIMO_CARACTERES)} caracteres.")
    if fichas_de_mas:
        avisos.append(f"La frase tiene más de {largo} palabras y signos: el modelo lee solo los primeros {largo}.")
    desconocidas = [f.escrita for f in fichas if not f.conocida]
    if desconocidas:
        la = "la" if len(set(desconocidas)) == 1 else "las"
        avisos.append(f"{_nombrar(desconocidas)}: no {la} conoce; {la} trata como {DESCONOCIDA}.")
    if not any(f.conocida and f.forma[0].isalnum() for f in fichas):
        avisos.append(
            "El modelo no conoce ninguna palabra de la frase, así que su predicción no dice nada de ella: "
            "prueba con palabras de reseñas (película, comida, hotel, buena, aburrida…)."
        )
    corregidas = [f for f in fichas if f.corregida]
    if corregidas:
        pares = list(dict.fromkeys(f"«{f.escrita}» como «{f.forma}»" for f in corregidas))
        avisos.append("Sin tildes no la encontraba: lee " + ", ".join(pares[:MAXIMO_NOMBRADAS]) + ".")
    return avisos


def fichas(texto: str, voc: Vocabulario | None = None, largo: int = 64) -> tuple[list[Ficha], list[str], bool]:
    """Las fichas que el modelo leería de `texto` (a lo sumo `largo`), los avisos y si se recortó.

    ValueError en español si el texto no es texto o está vacío.
    """
    texto, caracteres = _recortar(texto)
    leidas, de_mas = (voc or vocabulario()).fichas_de(texto, maximo=largo)
    return leidas, _avisos(leidas, caracteres, de_mas, largo), caracteres or de_mas


def predecir(texto: str, modelo: ClasificadorAtencion | None = None, voc: Vocabulario | None = None) -> Lectura:
    """Clase, probabilidades y pesos de `texto`, con el modelo incluido si no se da otro.

    ValueError en español si el texto no es texto o está vacío; cualquier otro texto (emoji, palabras
    desconocidas, 10,000 caracteres) da una lectura, con sus avisos.
    """
    modelo = modelo if modelo is not None else cargar(NOMBRE)
    voc = voc if voc is not None else vocabulario()
    if modelo.fichas.num_embeddings != len(voc):
        raise ValueError(f"El vocabulario tiene {len(voc)} fichas y el modelo {modelo.fichas.num_embeddings}.")
    leidas, avisos, recortada = fichas(texto, voc, modelo.largo)
    dev = next(modelo.parameters()).device
    x = torch.tensor([[f.indice for f in leidas]], device=dev)  # (1, L)
    with torch.inference_mode():
        logits, pesos, atenciones = modelo(x)
        probabilidades = torch.softmax(logits[0], dim=-1).cpu()  # (clases,)
        atencion = torch.stack([a[0] for a in atenciones]).cpu()  # (bloques, cabezas, L, L)
    leido = unicodedata.normalize("NFC", texto[:MAXIMO_CARACTERES])
    probabilidades = tuple(probabilidades.tolist())
    return Lectura(leido, tuple(leidas), probabilidades, pesos[0].cpu(), atencion, tuple(avisos), recortada)


def sin_ficha(texto: str, indice: int) -> str:
    """`texto` (en NFC) sin la ficha `indice` de las que lee el modelo: para «quita esta palabra».

    ValueError en español si no hay esa ficha.
    """
    leidas, _, _ = fichas(texto)
    if isinstance(indice, bool) or not isinstance(indice, int) or not 0 <= indice < len(leidas):
        raise ValueError(f"No hay palabra número {str(indice)[:20]}: la frase tiene {len(leidas)} (desde 0).")
    f = leidas[indice]
    texto = unicodedata.normalize("NFC", texto[:MAXIMO_CARACTERES])
    antes, despues = texto[: f.inicio].rstrip(), texto[f.fin :].lstrip()
    pegar = not antes or not despues or despues[0] in ",.;:!?)" or antes[-1] in "¡¿("
    return antes + ("" if pegar else " ") + despues
