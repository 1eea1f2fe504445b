"""Controles que dejan la validación a la función de cálculo, para que responda en español.

El API se salta los límites de la interfaz, y Gradio rechaza lo que queda fuera de ellos (o lo
que no tiene el tipo esperado) con un mensaje en inglés antes de llamar a la función. Estas
variantes se ven igual en el navegador, pero pasan el valor tal cual.
"""

from __future__ import annotations

import gradio as gr
from pydantic import ValidationError, model_validator

from demos.comun.gradio_interno import GradioModel
from demos.comun.seguridad import rechazo


class Deslizador(gr.Slider):
    is_template = True  # el navegador lo dibuja como un Slider

    def preprocess(self, payload):
        return payload


class Numero(gr.Number):
    is_template = True

    def preprocess(self, payload):
        return payload


class Opcion(gr.Radio):
    is_template = True

    def preprocess(self, payload):
        return payload


class Desplegable(gr.Dropdown):
    is_template = True

    def preprocess(self, payload):
        return payload


class _CualquierTabla(GradioModel):
    """Acepta lo que llegue por el API (lista de listas, texto…): la función de cálculo lo valida en español."""

    headers: list | None = None
    data: object = None
    metadata: dict | None = None

    @model_validator(mode="before")
    @classmethod
    def _envolver(cls, valor):
        return valor if isinstance(valor, dict) else {"data": valor}


MARCA_INVALIDA = "\x00entrada-invalida"


def tolerante(modelo: type[GradioModel]) -> type[GradioModel]:
    """El `data_model` de un componente, pero sin el error en inglés de pydantic.

    Si lo que llega por el API no valida (un texto donde va una imagen…), en vez de fallar
    deja una marca en el primer campo; el `preprocess` del componente la convierte en un
    `gr.Error` en español con `rechazar_invalido`. Lo válido valida igual que antes, con
    las mismas comprobaciones de archivos de Gradio, y el esquema del API no cambia.
    """

    class Tolerante(modelo):
        @model_validator(mode="wrap")
        @classmethod
        def _marcar_si_no_valida(cls, valor, handler):
            try:
                return handler(valor)
            except ValidationError:
                return cls.model_construct(**{_campo_de_texto(cls): MARCA_INVALIDA})

    Tolerante.__name__ = Tolerante.__qualname__ = modelo.__name__
    return Tolerante


def _campo_de_texto(modelo: type[GradioModel]) -> str:
    """El primer campo que admite texto (donde la marca no molesta al serializar)."""
    campos = modelo.model_fields
    return next((n for n, f in campos.items() if "str" in str(f.annotation)), next(iter(campos)))


def rechazar_invalido(payload, mensaje: str, donde: str = "?") -> None:
    """Lanza el `gr.Error(mensaje)` de `rechazo` (una línea en el log) si `payload` trae la marca de `tolerante`."""
    campos = getattr(type(payload), "model_fields", {})
    if any(getattr(payload, c, None) == MARCA_INVALIDA for c in campos):
        raise rechazo(mensaje, donde)


class TablaEditable(gr.Dataframe):
    """Un Dataframe que deja la validación a la función de cálculo (como los controles de arriba)."""

    is_template = True  # el navegador lo dibuja como un Dataframe
    data_model = _CualquierTabla

    def preprocess(self, payload):
        return payload.data if isinstance(payload, _CualquierTabla) else payload
