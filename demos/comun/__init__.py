"""Lo que importan las pestañas, en una sola fachada: `from demos.comun import Vista, Mapa, entero…`.

- `vista`: `Vista` (lo que devuelve `construir()`), `envolver`, `grafico`, `explicacion`,
  `llenar_al_abrir`, `exclusivo`, `a_gradio`;
- `controles`: controles que dejan validar a la función de cálculo (`Deslizador`, `Numero`…);
- `validar`: enteros, reales y listas de palabras que llegan por el API, con mensajes en español;
- `seguridad`: escapar lo que escribe un visitante (`escapar_md`, `escapar_html`);
- `figuras`: el vocabulario de figuras (`Mapa`, `Barras`, `Curvas`…), los colores y `numero()`;
  `pantalla` las dibuja con Plotly (lo usa `envolver`; las pestañas no lo llaman);
- `imagenes` y `digitos`: subidas, dibujos y la sección «elige o dibuja un dígito»;
- `zerogpu`: el decorador `@gpu` de las funciones que merecen una GPU en ZeroGPU.

Los nombres se cargan al pedirlos (PEP 562): así `demos.memoria.medida`, que solo usa las
figuras y `@gpu`, se importa sin gradio (la máquina de `scripts/gpu_smoke.py` no lo tiene).
Lo que arma la página y no llaman las pestañas está en `demos.servir`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# ruff: noqa: F401 (los imports de TYPE_CHECKING solo nombran lo que reexporta `__getattr__`)

if TYPE_CHECKING:  # la misma lista que _NOMBRES, para los editores y el grafo de imports
    from demos.comun.controles import Deslizador, Desplegable, Numero, Opcion, TablaEditable
    from demos.comun.digitos import (
        ORIGEN_DIBUJO,
        ORIGEN_PRUEBA,
        PISTA_DIBUJO,
        SIN_DIBUJO,
        al_elegir_digito,
        barras_probabilidades,
        digito_elegido,
        imagen_digito,
        lectura,
        modelo_entrenado,
        probabilidades,
        selector_digito,
        vista_sin_dibujo,
    )
    from demos.comun.figuras import (
        C0,
        C1,
        C2,
        C3,
        CLARO,
        GRIS,
        MAX_NUMEROS,
        Aviso,
        Barras,
        Caja,
        Curva,
        Curvas,
        Diagrama,
        Flecha,
        Histograma,
        Imagen,
        Mapa,
        Nota,
        Paneles,
        Referencia,
        Serie,
        miles,
        numero,
    )
    from demos.comun.imagenes import Dibujo, Subida, abrir_imagen
    from demos.comun.seguridad import escapar_html, escapar_md
    from demos.comun.validar import entero, lista_de_palabras, real, uno_de
    from demos.comun.vista import Vista, a_gradio, envolver, exclusivo, explicacion, grafico, llenar_al_abrir
    from demos.comun.zerogpu import gpu

_NOMBRES = {
    "controles": "Deslizador Desplegable Numero Opcion TablaEditable",
    "digitos": "ORIGEN_DIBUJO ORIGEN_PRUEBA PISTA_DIBUJO SIN_DIBUJO al_elegir_digito barras_probabilidades "
    "digito_elegido imagen_digito lectura modelo_entrenado probabilidades selector_digito vista_sin_dibujo",
    "figuras": "C0 C1 C2 C3 CLARO GRIS MAX_NUMEROS Aviso Barras Caja Curva Curvas Diagrama Flecha Histograma "
    "Imagen Mapa Nota Paneles Referencia Serie miles numero",
    "imagenes": "Dibujo Subida abrir_imagen",
    "seguridad": "escapar_html escapar_md",
    "validar": "entero lista_de_palabras real uno_de",
    "vista": "Vista a_gradio envolver exclusivo explicacion grafico llenar_al_abrir",
    "zerogpu": "gpu",
}
_DONDE = {nombre: modulo for modulo, nombres in _NOMBRES.items() for nombre in nombres.split()}
__all__ = sorted(_DONDE)


def __getattr__(nombre: str) -> Any:
    if nombre not in _DONDE:
        raise AttributeError(f"`demos.comun` no tiene «{nombre}»")
    valor = getattr(importlib.import_module(f"{__name__}.{_DONDE[nombre]}"), nombre)
    globals()[nombre] = valor
    return valor


def __dir__() -> list[str]:
    return __all__
