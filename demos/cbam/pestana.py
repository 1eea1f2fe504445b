"""CBAM en imagen: qué canales y qué posiciones pesa la red `cbam-digitos` al mirar un dígito."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import gradio as gr
import numpy as np
import torch

import modelos
from demos.cbam.foto import seccion as seccion_foto
from demos.comun import aprender as ap
from demos.comun.controles import Deslizador, Opcion
from demos.comun.digitos import (
    ORIGEN_PRUEBA,
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
from demos.comun.figuras import C0, CLARO, GRIS, Barras, Mapa, Paneles, Serie, numero
from demos.comun.glosario import seccion as seccion_glosario
from demos.comun.validar import real
from demos.comun.vista import Barrido, Vista, envolver, explicacion, grafico
from modelos.datos import digitos_sklearn
from modelos.formato import por_ciento

NOMBRE = "cbam-digitos"

EXPLICACION = r"""
Primero, el bloque **SE** (*Squeeze-and-Excitation*, Hu et al., 2018; §4.1 del tutorial): resume cada canal por
su media sobre las posiciones y un MLP da un número de 0 a 1 por canal, $w = \sigma(\mathrm{MLP}(\mathrm{media}(x)))$.
CBAM (Woo et al., 2018) pone dos compuertas en serie sobre los mapas de rasgos $x$. La de **canal** es un SE que
suma también el máximo: $w = \sigma(\mathrm{MLP}(\mathrm{media}(x)) + \mathrm{MLP}(\max(x)))$ (la fórmula del
artículo y de esta red; el CBAM del tutorial, §4.3, usa solo la media, como SE). La **espacial** decide qué
posiciones importan: $m = \sigma(\mathrm{conv}_{7\times 7}([\mathrm{media}_c(x),\ \max_c(x)]))$, un número de
0 a 1 por píxel. Entonces

$$y = m \odot (w \odot x)$$

Aquí, la red pequeña `cbam-digitos`, entrenada con los dígitos de 8 × 8 de scikit-learn; su CBAM recibe las
activaciones de dos convoluciones con ReLU (todas ≥ 0). Apaga una rama y elige a qué pasa su compuerta: a su
media (la escala se conserva, se pierde la selección) o a 1 (como quitarla).
"""

APAGAR = [("a su media (conserva la escala)", "media"), ("a 1 (como quitarla)", "uno")]
ABLACION = (  # (nombre, canal, espacial, apagada)
    ("las dos encendidas", True, True, "uno"),
    ("espacial = 1", True, False, "uno"),
    ("espacial = su media", True, False, "media"),
    ("canal = 1", False, True, "uno"),
    ("canal = su media", False, True, "media"),
)


def _interruptor(valor: Any, nombre: str) -> bool:
    if isinstance(valor, bool | np.bool_):
        return bool(valor)
    raise ValueError(f"«{nombre}» debe ser verdadero o falso; llegó {valor!s:.20}.")


def _apagada(valor: Any) -> str:
    if valor not in dict(APAGAR).values():
        raise ValueError("Una rama apagada debe pasar «a su media» (media) o «a 1» (uno).")
    return valor


def mirar(
    x: torch.Tensor, canal: bool = True, espacial: bool = True, apagada: str = "uno"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x (1, 1, 8, 8) en CPU -> (probabilidades (10,), pesos de canal (C,), mapa espacial (8, 8)), en CPU."""
    modelo = modelo_entrenado(NOMBRE)
    with torch.inference_mode():
        disp = modelos.dispositivo()
        logits, w, m = modelo(x.to(disp), con_pesos=True, canal=canal, espacial=espacial, apagada=apagada)
    return probabilidades(logits), w[0, :, 0, 0].float().cpu().numpy(), m[0, 0].float().cpu().numpy()


def pesos_se(x: torch.Tensor) -> np.ndarray:
    """(C,): la compuerta de canal con solo la media, como un bloque SE, con el MLP entrenado de la red."""
    modelo = modelo_entrenado(NOMBRE)
    with torch.inference_mode():
        f = modelo.extractor(x.to(modelos.dispositivo()))  # (1, C, 8, 8), después de una ReLU
        w = torch.sigmoid(modelo.cbam.canal.mlp(f.mean(dim=(2, 3), keepdim=True)))  # (1, C, 1, 1)
    return w[0, :, 0, 0].float().cpu().numpy()


@lru_cache(maxsize=1)
def ablacion() -> dict:
    """Cada manera de apagar (ABLACION) sobre los 450 dígitos del conjunto de prueba: exactitud y confianza media;
    y la media de m y de w con las dos ramas encendidas (la escala que la red vio al entrenar)."""
    modelo = modelo_entrenado(NOMBRE)
    _, X, _, y = digitos_sklearn()
    filas = []
    with torch.inference_mode():
        X = X.to(modelos.dispositivo())
        for nombre, canal, espacial, apagada in ABLACION:
            p = torch.softmax(modelo(X, canal=canal, espacial=espacial, apagada=apagada), -1).cpu()
            exactitud = (p.argmax(-1) == y).float().mean().item()
            filas.append((nombre, canal, espacial, apagada, exactitud, p.max(-1).values.mean().item()))
        _, w, m = modelo(X, con_pesos=True)
    return {"filas": filas, "m_media": m.mean().item(), "w_media": w.mean().item(), "n": len(y)}


def _texto_ablacion() -> str:
    a = ablacion()
    filas = "\n".join(f"| {f[0]} | {por_ciento(f[4])} | {por_ciento(f[5])} |" for f in a["filas"])
    return (
        f"\n\n**En los {a['n']} dígitos del conjunto de prueba:**\n\n| Compuertas | Exactitud | Confianza media |\n"
        f"|---|---|---|\n{filas}"
    )


def _texto_apagada(apagada: str, canal: bool, espacial: bool) -> str:
    a = ablacion()
    if apagada == "media":
        return (
            " Cada compuerta apagada vale la media de sus propios valores en esta imagen: las activaciones "
            "conservan su escala y solo se pierde la selección de canales o posiciones."
        )
    rama, media = ("espacial", a["m_media"]) if not espacial else ("de canal", a["w_media"])
    return (
        f" Ojo: eso no mide cuánto importa la rama. La red se entrenó con la compuerta {rama} valiendo "
        f"{media:.2f} de media (en el conjunto de prueba); con 1, las activaciones llegan a la cabeza ≈ "
        f"{1 / media:.1f} veces más grandes que las que vio al entrenar: es un **cambio de distribución**, y la "
        "confianza puede subir aunque la exactitud baje (mira la tabla). Congelarla a su media conserva la escala."
    )


def _figura_mapas(digito: np.ndarray, mapa: np.ndarray, opacidad: float, espacial: bool) -> Paneles:
    return Paneles(
        (
            imagen_digito(digito, "Entrada (8 × 8)"),
            Mapa(
                mapa,
                titulo="Mapa espacial m" + ("" if espacial else " (apagado: 1)"),
                barra="m",
                pista="m en (fila {y}, columna {x}): {v}",
                cuadrado=True,
            ),
            imagen_digito(digito, "m sobre la entrada", mapa, opacidad=opacidad, pista="m = {v}"),
        ),
        columnas=3,
        anchos=(1, 1.5, 1),  # el mapa lleva un número en cada casilla: más ancho
        alto_fila=340,
    )


def _figura_pesos(p: np.ndarray, w: np.ndarray, se: np.ndarray, verdadera: int | None, canal: bool) -> Paneles:
    orden = np.argsort(-w, kind="stable")
    constante = np.ptp(w) == 0
    titulo = (
        f"Pesos de canal w ({len(w)} canales)"
        if canal
        else f"Rama de canal apagada: todos los w valen {'1' if w[0] == 1 else numero(float(w[0]))}"
        if constante
        else "Rama de canal apagada"
    )
    pesos = Barras(
        tuple(str(k) for k in orden),
        (
            Serie("w (CBAM: media y máximo)", w[orden], color=C0 if canal else GRIS),
            Serie("solo la media (como SE)", se[orden], color=CLARO),
        ),
        titulo=titulo,
        eje_x="Canal (ordenados de mayor a menor peso)",
        eje_y="Peso w",
        numeros=False,
        rango=(0, 1.05),
        pista="canal {c}, {s}: {v}",
    )
    return Paneles((barras_probabilidades(p, verdadera), pesos), columnas=2, anchos=(1, 1.9), alto_fila=300)


def calcular(
    origen: str = ORIGEN_PRUEBA,
    indice: float = 0,
    dibujo: Any = None,
    canal: bool = True,
    espacial: bool = True,
    opacidad: float = 0.5,
    apagada: str = "media",
):
    """La vista: (entrada y mapa espacial, predicción y pesos de canal, texto)."""
    canal, espacial = _interruptor(canal, "Rama de canal"), _interruptor(espacial, "Rama espacial")
    apagada = _apagada(apagada)
    opacidad = real(opacidad, "La opacidad del mapa", 0, 1)
    elegido = digito_elegido(origen, indice, dibujo)
    if elegido is None:
        return vista_sin_dibujo("Entrada y mapa espacial", "Predicción y pesos de canal")
    x, verdadera, descripcion = elegido
    p, w, m = mirar(x, canal, espacial, apagada)
    se = pesos_se(x)
    texto = lectura("la red", descripcion, p, verdadera)
    if canal and espacial:
        texto += "."
    else:
        p_completa, *_ = mirar(x)
        apagadas = " y ".join(n for n, activa in (("de canal", canal), ("espacial", espacial)) if not activa)
        texto += (
            f" con la rama {apagadas} apagada. Con las dos ramas decía **{int(p_completa.argmax())}** "
            f"({por_ciento(p_completa.max(), 0)})." + _texto_apagada(apagada, canal, espacial)
        )
    if canal:
        bajos = int((w < 0.5).sum())
        texto += (
            f" Pesos de canal: de {w.min():.2f} a {w.max():.2f}; {bajos} de {len(w)} canales quedan por debajo de 0.5."
        )
    if espacial:
        texto += f" Mapa espacial: de {m.min():.2f} a {m.max():.2f}"
        texto += " (casi parejo: aquí la rama espacial apenas distingue posiciones)." if np.ptp(m) < 0.05 else "."
    texto += (
        f" Con solo la media (un bloque SE, §4.1, con el mismo MLP) los pesos de canal irían de {se.min():.2f} a "
        f"{se.max():.2f}: el máximo de CBAM los cambia hasta en {np.abs(se - mirar(x)[1]).max():.2f}."
        + _texto_ablacion()
    )
    figura_pesos = _figura_pesos(p, w, se, verdadera, canal)
    return _figura_mapas(x[0, 0].numpy(), m, opacidad, espacial), figura_pesos, texto


# --- aprender: predecir y comprobarse (las respuestas las lee de lo que muestra `calcular`) ----------


def _probabilidades(salida) -> np.ndarray:
    """(10,): las barras de probabilidad que dibuja la vista."""
    return np.asarray(salida[1].paneles[0].series[0].valores, dtype=float)


def _fila_ablacion(salida, nombre: str) -> tuple[str, str]:
    """(exactitud, confianza media) de la fila `nombre` de la tabla de ablación del texto de la vista."""
    exactitud, confianza = re.search(rf"\| {re.escape(nombre)} \| ([\d.]+\s?%) \| ([\d.]+\s?%) \|", salida[2]).groups()
    return exactitud, confianza


def _apagar(rama: str):
    """Qué pasa con la confianza en la clase que elegía la red al apagar `rama`, como abre la pestaña."""

    def leer(antes, despues) -> dict:
        p, q = _probabilidades(antes), _probabilidades(despues)
        k = int(p.argmax())
        a, d = float(p[k]), float(q[k])
        cambio = "sube" if d > a + 0.005 else "baja" if d < a - 0.005 else "igual"
        w = np.asarray(antes[1].paneles[1].series[0].valores, dtype=float)
        m = np.asarray(antes[0].paneles[1].matriz, dtype=float)
        fila = f"{rama} = su media"
        return {
            "respuesta": cambio,
            "antes": por_ciento(a, 0),
            "despues": por_ciento(d, 0),
            "clase": k,
            "m_min": f"{m.min():.2f}",
            "m_max": f"{m.max():.2f}",
            "w_min": f"{w.min():.2f}",
            "w_max": f"{w.max():.2f}",
            "w_bajos": int((w < 0.5).sum()),
            "canales": len(w),
            "exactitud": _fila_ablacion(despues, "las dos encendidas")[0],
            "exactitud_apagada": _fila_ablacion(despues, fila)[0],
            "confianza": _fila_ablacion(despues, "las dos encendidas")[1],
            "confianza_apagada": _fila_ablacion(despues, fila)[1],
        }

    return leer


def _rango_w(salida) -> dict:
    w = np.asarray(salida[1].paneles[1].series[0].valores, dtype=float)
    dentro = bool((w >= 0).all() and (w <= 1).all())
    return {
        "respuesta": "0 y 1" if dentro else "otro",
        "min": f"{w.min():.2f}",
        "max": f"{w.max():.2f}",
        "suma": f"{w.sum():.1f}",
    }


APRENDER = ap.Aprender(
    prediccion=ap.Prediccion(
        "Con el primer dígito de prueba y «Una rama apagada pasa: a su media» (como abre la pestaña): ¿apagar la "
        "rama espacial sube o baja la confianza de la red?",
        verdad=ap.EnLaPestana(calcular, _apagar("espacial"), cambio={"espacial": False}),
        opciones=(
            ap.Alternativa(
                "sube",
                "sube",
                "Con la compuerta a su media las activaciones conservan su escala: la red ya no sabe qué casillas "
                "pesaban más (m iba de {m_min} a {m_max}), y no tiene de dónde sacar más seguridad.",
                opuesta="baja",
            ),
            ap.Alternativa(
                "baja",
                "baja",
                "Todas las casillas pasan con el mismo peso, el de la media de m: la red pierde la selección de "
                "posiciones que aprendió (m iba de {m_min} a {m_max}).",
                opuesta="sube",
            ),
            ap.Alternativa(
                "igual",
                "no cambia",
                "La compuerta espacial sí hacía algo en este dígito: m iba de {m_min} a {m_max}, y con todas las "
                "casillas a la media la red lee otra cosa.",
            ),
        ),
        porque="La confianza en el {clase} pasa de {antes} a {despues}. En los 450 dígitos de prueba pasa lo mismo: "
        "con la rama espacial a su media, la confianza media va de {confianza} a {confianza_apagada} y la exactitud "
        "de {exactitud} a {exactitud_apagada}. (Con «a 1», como quitarla, las activaciones llegan más grandes que "
        "las que la red vio al entrenar: la confianza puede subir aunque la exactitud baje; el «Ojo» de la pestaña "
        "lo explica.)",
    ),
    preguntas=(
        ap.Pregunta(
            "Y apagar la rama de canal (a su media, como abre la pestaña): la confianza…",
            (
                ap.Alternativa(
                    "baja",
                    "baja",
                    "Baja de {antes} a {despues}: todos los canales pasan con el mismo peso y se pierde qué canales "
                    "elegía la red ({w_bajos} de {canales} tenían w < 0.5; w iba de {w_min} a {w_max}). En los 450 "
                    "dígitos, la exactitud va de {exactitud} a {exactitud_apagada}.",
                    opuesta="sube",
                ),
                ap.Alternativa(
                    "sube",
                    "sube",
                    "Baja de {antes} a {despues}: a su media, la compuerta conserva la escala pero borra la selección "
                    "de canales ({w_bajos} de {canales} tenían w < 0.5).",
                    opuesta="baja",
                ),
                ap.Alternativa(
                    "igual",
                    "no cambia",
                    "Cambia: baja de {antes} a {despues}. Los pesos de canal no eran todos iguales (iban de {w_min} a "
                    "{w_max}), y a su media lo son.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _apagar("canal"), cambio={"canal": False}),
        ),
        ap.Pregunta(
            "Los pesos de canal w salen de una sigmoide: quedan…",
            (
                ap.Alternativa(
                    "0 y 1",
                    "entre 0 y 1",
                    "Una sigmoide da de 0 a 1: aquí, de {min} a {max}. Cada canal se "
                    "multiplica por su w, así que solo se apaga o se deja pasar, nunca se agranda.",
                ),
                ap.Alternativa(
                    "-1 y 1",
                    "entre −1 y 1",
                    "Eso sería una tangente hiperbólica; la sigmoide da de 0 a 1 (aquí, de {min} a {max}).",
                ),
                ap.Alternativa(
                    "suman 1",
                    "sumando 1 entre todos, como un softmax",
                    "No compiten entre sí: cada w es su propia sigmoide, de {min} a {max}, y suman {suma}.",
                ),
            ),
            verdad=ap.EnLaPestana(calcular, _rango_w),
        ),
    ),
)


def construir() -> Vista:
    explicacion(EXPLICACION)
    with gr.Row():
        with gr.Column(scale=2):
            origen, indice, dibujo = selector_digito()
        with gr.Column(scale=5):
            with gr.Row():
                canal = gr.Checkbox(value=True, label="Rama de canal (w) encendida")
                espacial = gr.Checkbox(value=True, label="Rama espacial (m) encendida")
                apagada = Opcion(APAGAR, value="media", label="Una rama apagada pasa")
                opacidad = Deslizador(0, 1, value=0.5, step=0.05, label="Opacidad del mapa sobre la entrada (0–1)")
            mapas = grafico("Entrada, mapa espacial y su superposición")
            pesos = grafico("Predicción y pesos de canal ordenados")
            texto = gr.Markdown()
    entradas = [origen, indice, dibujo, canal, espacial, opacidad, apagada]
    salidas = [mapas, pesos, texto]
    al_elegir_digito(origen, indice, dibujo, envolver(calcular), entradas, salidas)
    seccion_foto(aparece=texto)
    seccion_glosario(("pesos", "parámetros", "conjunto de prueba", "exactitud"), "cbam")
    return Vista(
        aprender=APRENDER,
        fn=calcular,
        entradas=entradas,
        salidas=salidas,
        url={
            "origen": origen,
            "indice": indice,
            "canal": canal,
            "espacial": espacial,
            "opacidad": opacidad,
            "apagada": apagada,
        },
        disparadores=[origen.input, canal.input, espacial.input, apagada.input],  # la opacidad la barre el navegador
        barridos=(Barrido(opacidad),),
    )
