"""«Mira cómo aprende» y «Entrénalo tú», de la pestaña de inversión de dígitos.

Las instantáneas son copias del modelo con posición guardadas durante su
entrenamiento; el deslizador recorre su mapa de atención y su exactitud. El
entrenamiento en vivo crea un `TransformerJuguete` nuevo por visitante: su
resultado (config + pesos) vive en el `gr.State` de ese visitante, nunca en el
checkpoint compartido.
"""

from __future__ import annotations

import logging
import time

import gradio as gr
import torch

import modelos
from demos.comun.barrido import Seccion, barrer, paquetes_de
from demos.comun.controles import Deslizador, Opcion
from demos.comun.figuras import Aviso, miles
from demos.comun.validar import uno_de
from demos.comun.vista import Barrido, envolver, grafico, salidas_para_gradio, servido
from demos.inversion_digitos.dibujos import LOTE, PERDIDA_VALIDACION, figura_atencion, figura_curva
from demos.inversion_digitos.modelo import LECCION, MIO, cuantos, leer_digitos, mapa, predecir
from modelos.entrenamiento.inversion import N_VALIDACION, entrenar_inversion, instantaneas
from modelos.formato import por_ciento
from modelos.hilos import un_hilo

log = logging.getLogger(__name__)

D_MODELO = 32
MAX_EPOCAS, MAX_BLOQUES, CABEZAS = 5, 3, (1, 2, 4)
SECUENCIAS_POR_EPOCA = 10_000
SEMILLA = 0
ACTUALIZACIONES = 15  # informes de avance por corrida
REDIBUJO_S = 0.5  # segundos de entrenamiento entre dos dibujos de la curva
ANTES_DE_ENTRENAR = Aviso(
    "Pulsa «Entrenar»: aquí se dibujan la pérdida y la exactitud mientras aprende",
    "Pérdida y exactitud mientras entrena",
)


# --- instantáneas ----------------------------------------------------------------------------------


def _instantaneas() -> list:
    """[(métricas, modelo)] del checkpoint con posición; modelos compartidos, en eval: no se mutan."""
    return instantaneas("inversion-digitos")


def cuantas_instantaneas() -> int:
    return len(_instantaneas())


def pesos_iniciales() -> tuple[float, float]:
    """(mínimo, máximo) de los pesos de la instantánea 0 (sin entrenar) con los dígitos de la lección."""
    _, red = _instantaneas()[0]
    _, _, pesos = predecir(red, leer_digitos(LECCION))
    m = mapa(pesos, 0, None)  # (8, 8): promedio de las cabezas del bloque 1
    return float(m.min()), float(m.max())


def _al_principio() -> str:
    """Cómo mira la instantánea 0, con sus números: parejos serían 1/8 en cada casilla."""
    menor, mayor = pesos_iniciales()
    como = "casi por igual" if mayor < 2 / 8 else "sin un patrón"
    return f"al principio mira a todas partes {como} (pesos de {menor:.2f} a {mayor:.2f}; parejos serían 0.125)"


def ver_instantanea(digitos: str = LECCION, indice: float = 0):
    """Una instantánea del entrenamiento: (mapa de atención promedio del bloque 1, curva, texto)."""
    entrada = leer_digitos(digitos)
    todas = _instantaneas()
    try:
        k = int(indice)
    except (TypeError, ValueError, OverflowError):
        k = -1
    if not (0 <= k < len(todas)) or k != indice:
        raise ValueError(f"La instantánea debe ser un número entero entre 0 y {len(todas) - 1}.")
    info, red = todas[k]
    prediccion, _, pesos = predecir(red, entrada)
    aciertos = sum(p == c for p, c in zip(prediccion, entrada[::-1], strict=True))
    titulo = f"¿A dónde mira cada posición?\npaso {info['paso']} · promedio de las cabezas"
    historia = [i for i, _ in todas]
    curva = figura_curva(
        historia, historia[-1]["paso"], k, "Pérdida y exactitud durante el entrenamiento", PERDIDA_VALIDACION
    )
    vistas = miles(info["secuencias_vistas"])
    texto = (
        f"**Instantánea {k} de {len(todas) - 1}** · paso {info['paso']} · {vistas} secuencias vistas · "
        f"pérdida en validación {info['perdida']:.3f} · exactitud en secuencias nuevas: "
        f"{por_ciento(info['digitos'])} de los dígitos y {por_ciento(info['secuencias'])} de las secuencias enteras. "
        f"Con estos dígitos acierta {aciertos} de 8."
    )
    return figura_atencion(mapa(pesos, 0, None), entrada, prediccion, titulo), curva, texto


# --- entrenar uno nuevo ----------------------------------------------------------------------------


def _validar(epocas, con_posicion, cabezas, bloques) -> tuple[int, bool, int, int]:
    if con_posicion not in (True, False):  # también 0 y 1
        raise ValueError(f"«Con posición» debe ser verdadero o falso; llegó {con_posicion!r}.")
    return (
        uno_de(epocas, "El número de épocas", range(1, MAX_EPOCAS + 1)),
        bool(con_posicion),
        uno_de(cabezas, "El número de cabezas", CABEZAS),
        uno_de(bloques, "El número de bloques", range(1, MAX_BLOQUES + 1)),
    )


def _con_un_hilo(pasos):
    """Avanza `pasos` con un solo hilo de torch (ver `un_hilo`): una época pasa de casi un minuto a un
    segundo en dos núcleos ocupados. Gradio puede correr cada tramo de un generador en otro hilo, así que
    el ajuste se pone y se quita en cada `next`."""
    while True:
        with un_hilo():
            r = next(pasos, None)
        if r is None:
            return
        yield r


def _avance(r: dict, epocas: int) -> str:
    return (
        f"Época {r['epoca']} de {epocas} · paso {r['paso']} de {r['pasos_totales']} · pérdida de entrenamiento "
        f"{r['perdida']:.3f} (media desde el informe anterior) · "
        f"secuencias enteras bien {por_ciento(r['secuencias'])}"
    )


def _modelo_nuevo(config: dict) -> modelos.TransformerJuguete:
    with torch.random.fork_rng(devices=[]):  # misma configuración, mismo modelo inicial
        torch.manual_seed(SEMILLA)
        red = modelos.TransformerJuguete(**config)
    return red.to(modelos.dispositivo())


def _final(red, config: dict, ultimo: dict, epocas: int, segundos: float) -> tuple[str, dict]:
    """El texto del final y el estado del visitante: {"config", "pesos" (en CPU), "resumen"}."""
    pesos = {k: v.detach().to("cpu", copy=True) for k, v in red.state_dict().items()}
    resumen = {"epocas": epocas, "segundos": segundos, "digitos": ultimo["digitos"], "secuencias": ultimo["secuencias"]}
    posicion = "con posición" if config["con_posicion"] else "sin posición"
    texto = (
        f"**Listo en {segundos:.1f} s** ({posicion}, {cuantos(config['cabezas'], 'cabeza')}, "
        f"{cuantos(config['bloques'], 'bloque')}, {cuantos(epocas, 'época')}): acierta {por_ciento(ultimo['digitos'])} "
        f"de los dígitos y {por_ciento(ultimo['secuencias'])} de las secuencias enteras nuevas. "
        "Arriba ya está elegido **«el mío»**: mira su mapa de atención."
    )
    return texto, {"config": config, "pesos": pesos, "resumen": resumen}


def entrenar(epocas: float = 2, con_posicion: bool = True, cabezas: float = 2, bloques: float = 1):
    """Entrena un TransformerJuguete nuevo; produce (curva, texto, avance, estado) en cada informe.

    `curva` (la descripción, `Paneles`) es None cuando no toca redibujarla: se manda tras ≥ REDIBUJO_S
    de entrenamiento, porque cada una es otra respuesta que el navegador vuelve a dibujar; `avance` va
    de 0 a 1; `estado` es None hasta el último, que trae el modelo para el `gr.State` del visitante.
    """
    epocas, con_posicion, cabezas, bloques = _validar(epocas, con_posicion, cabezas, bloques)
    config = {"d_modelo": D_MODELO, "cabezas": cabezas, "bloques": bloques, "con_posicion": con_posicion}
    red = _modelo_nuevo(config)
    cada = max(5, epocas * (SECUENCIAS_POR_EPOCA // LOTE) // ACTUALIZACIONES)
    pasos = entrenar_inversion(red, epocas=epocas, secuencias_por_epoca=SECUENCIAS_POR_EPOCA, lote=LOTE, cada=cada)
    historia, inicio, dibujada = [], time.perf_counter(), -REDIBUJO_S
    for r in _con_un_hilo(pasos):
        historia.append(r)
        curva = None
        if time.perf_counter() - dibujada >= REDIBUJO_S:
            curva = figura_curva(historia, r["pasos_totales"], titulo=f"Entrenando: época {r['epoca']} de {epocas}")
        yield curva, _avance(r, epocas), r["paso"] / r["pasos_totales"], None
        if curva is not None:  # medido al volver: incluye lo que tardó en mostrarse
            dibujada = time.perf_counter()
    texto, estado = _final(red, config, historia[-1], epocas, time.perf_counter() - inicio)
    titulo = f"Tu modelo, tras {cuantos(epocas, 'época')}: {por_ciento(historia[-1]['secuencias'])} de secuencias bien"
    yield figura_curva(historia, historia[-1]["pasos_totales"], titulo=titulo), texto, 1.0, estado


# --- interfaz --------------------------------------------------------------------------------------


# Sigue a los dígitos sin ir al servidor si ya los muestra: el texto de la vista principal cambió y los
# dígitos son otros que los de la instantánea (p. ej. llegaron por la URL) -> la señal toma los dígitos.
INSTANTANEA = "inversion-digitos-instantanea"  # el elem_id del mapa de la instantánea (lo buscan las pruebas)
JS_SI_SON_OTROS = "(digitos, mostrados, senal) => (digitos === mostrados ? senal : digitos)"


def construir_aprende(digitos: gr.Textbox, texto_principal: gr.Markdown):
    """El panel de instantáneas, abierto en la lección y la instantánea 0 (su valor viene en la página).

    Devuelve `(entradas, salidas, seguir)`: la pestaña suma `seguir(digitos, indice)` a su evento de
    los dígitos, y así escribir otros recalcula la vista y la instantánea con un solo evento (issue 22).
    Si los dígitos cambian por otro camino (la URL), el texto de arriba cambia y, solo si la
    instantánea muestra otros dígitos, un evento la pone al día.
    """
    try:
        n = cuantas_instantaneas()
    except FileNotFoundError as e:  # sin las instantáneas, el resto de la app arranca igual
        log.warning("Sin «Mira cómo aprende»: %s", e)
        gr.Markdown(f"### Mira cómo aprende\nFaltan las instantáneas del entrenamiento: {e}")
        return [], [], lambda texto_digitos: ()
    gr.Markdown(
        f"### Mira cómo aprende\n{n} instantáneas del modelo con posición mientras se entrenaba con la receta "
        "de la lección (2 épocas de 20 000 secuencias, lotes de 64, Adam con tasa 0.001). Mueve el "
        f"deslizador: {_al_principio()}; poco a poco aparece la antidiagonal (los "
        "recuadros naranjas marcan el espejo de cada fila) y la exactitud sube. La pérdida de cada instantánea es "
        f"la entropía cruzada en las {miles(N_VALIDACION)} secuencias de validación, medida en ese paso; la lección "
        "imprime otra: la media de la pérdida de entrenamiento de toda la época, que incluye los primeros pasos y "
        "por eso es más alta."
    )
    indice = Deslizador(0, n - 1, value=0, step=1, label=f"Instantánea (0 = sin entrenar, {n - 1} = final)")
    inicial_mapa, inicial_curva, inicial_texto = salidas_para_gradio(ver_instantanea(digitos.value, 0))
    with gr.Row():
        mapa_ = grafico("Mapa de atención en esta instantánea", value=inicial_mapa, elem_id=INSTANTANEA)
        curva = grafico("Pérdida y exactitud durante el entrenamiento", value=inicial_curva)
    texto = gr.Markdown(inicial_texto)
    mostrados = gr.Textbox(digitos.value, visible="hidden", interactive=False)  # los dígitos de la instantánea
    senal = gr.Textbox(digitos.value, visible="hidden", interactive=False)
    # El deslizador lo barre el navegador: las 11 instantáneas con estos dígitos llegan juntas (≈ 2 ms cada una).
    instantaneas_ = Seccion(ver_instantanea, [digitos, indice], [mapa_, curva, texto], (Barrido(indice),))
    barrer(instantaneas_, [], iniciales=paquetes_de(instantaneas_, [digitos.value, 0]))
    salidas = [mapa_, curva, texto, mostrados, *instantaneas_.paquetes]
    ver = envolver(ver_instantanea)

    def seguir(texto_digitos, i):
        try:
            leer_digitos(texto_digitos)
        except ValueError:  # ya se escribió otra cosa: se queda la instantánea anterior, sin avisos
            return (gr.skip(),) * len(salidas)
        return (*ver(texto_digitos, i), texto_digitos, *paquetes_de(instantaneas_, [texto_digitos, i]))

    texto_principal.change(
        None, [digitos, mostrados, senal], senal, js=JS_SI_SON_OTROS, api_visibility="private", show_progress="hidden"
    )
    senal.change(
        seguir, [digitos, indice], salidas, api_visibility="private", trigger_mode="always_last", show_progress="hidden"
    )
    return [indice], salidas, seguir


def construir_entrena(modelo: gr.Radio, propio: gr.State):
    """El panel de entrenamiento; devuelve el evento que, al terminar, elige «el mío» arriba."""
    gr.Markdown(
        "### Entrénalo tú\nEntrena un modelo nuevo aquí mismo (unos segundos: cada época usa la mitad de "
        "secuencias que la lección). Prueba a quitar la posición, "
        "o a cambiar cabezas y bloques, y luego elige **«el mío»** arriba para ver su mapa de atención. "
        "Tu modelo es solo tuyo: se pierde al recargar la página."
    )
    with gr.Row():
        epocas = Deslizador(1, MAX_EPOCAS, value=2, step=1, label="Épocas (10 000 secuencias cada una)")
        con_posicion = gr.Checkbox(True, label="Con posición")
        cabezas = Opcion(list(CABEZAS), value=2, label="Cabezas")
        bloques = Deslizador(1, MAX_BLOQUES, value=1, step=1, label="Bloques")
        for c in (epocas, bloques):
            servido(c, "solo se lee al pulsar «Entrenar»")
    boton = gr.Button("Entrenar", variant="primary")
    with gr.Row():
        curva = grafico("Pérdida y exactitud mientras entrena", scale=3, value=salidas_para_gradio(ANTES_DE_ENTRENAR))
        texto = gr.Markdown(scale=2)

    def entrenar_aqui(epocas=2, con_posicion=True, cabezas=2, bloques=1, progreso=gr.Progress()):  # noqa: B008 (así lo pide Gradio)
        for curva_, texto_, avance, estado in entrenar(epocas, con_posicion, cabezas, bloques):
            progreso(avance, desc=texto_ if estado is None else "Listo")
            yield gr.skip() if curva_ is None else curva_, texto_, gr.skip() if estado is None else estado

    evento = boton.click(
        envolver(entrenar_aqui, exclusivo_de="entrenar"),
        [epocas, con_posicion, cabezas, bloques],
        [curva, texto, propio],
        api_name="inversion_digitos_entrenar",
        concurrency_limit=1,
        concurrency_id="entrenar",  # solo los entrenamientos hacen fila entre sí
        show_progress_on=[texto],
    )
    return evento.success(lambda: MIO, outputs=modelo, api_visibility="private", queue=False)
