"""«Entrénalo tú», segunda parte: el laboratorio de fallos (§7.2 del tutorial) y la comparación de cabezas (§7.1).

Arriba, las funciones puras: cada una entrena modelos nuevos con `modelos.entrenamiento.fallos` y produce
(figura o None, texto, avance de 0 a 1) en cada informe, como `entrenar.entrenar`. Abajo, `construir_fallos()`.
Los dos botones hacen fila con los demás entrenamientos (`exclusivo_de="entrenar"`, `concurrency_id`).
"""

from __future__ import annotations

import math
import statistics
import time
from functools import lru_cache

import gradio as gr
import torch

from demos.comun.controles import Deslizador
from demos.comun.figuras import C0, C1, C2, C3, Aviso, Curva, Curvas, Paneles, Referencia
from demos.comun.vista import LATEX, envolver, grafico, salidas_para_gradio, servido
from modelos import atencion
from modelos.datos import LARGO, secuencias_digitos
from modelos.entrenamiento.fallos import (
    BLOQUES,
    CABEZAS,
    ENTROPIA_PAREJA,
    PERDIDA_AL_AZAR,
    TASA_ALTA,
    Fallo,
    entrenar_con_fallo,
    mascara,
)
from modelos.formato import miles, numero, por_ciento
from modelos.hilos import un_hilo

PASOS, PASOS_MIN, PASOS_MAX = 200, 20, 600
D_MODELO = 32
REDIBUJO_S = 0.5  # segundos entre dos dibujos de las curvas mientras entrena
NO_BAJA = 0.5 * PERDIDA_AL_AZAR  # por encima, al final, «la pérdida no baja» (ln 10 = no saber nada)
PAREJOS = 0.9 * ENTROPIA_PAREJA  # por encima, al final, «los pesos quedan parejos» (3 bits = todos iguales)
INTERRUPTORES = {
    "mascara_invertida": "Máscara invertida (la attention_mask de Hugging Face, 1 = mirar, leída como 1 = tapar)",
    "tasa_alta": f"Tasa de aprendizaje {TASA_ALTA:g} (en vez de 0.001)",
    "sin_layernorm": "Sin LayerNorm",
    "sin_posicion": "Sin posición",
    "calentamiento": "Warmup (10 % de los pasos) y decaimiento coseno",
    "sin_residual": "Sin atajos residuales",
}
IGUALES = 1e-3  # por debajo, las posiciones salen del último bloque iguales (diferencia relativa media)
FAQ = {  # el síntoma que la tabla de preguntas frecuentes (§7.2) da para cada causa
    "mascara_invertida": "la pérdida no baja",
    "sin_posicion": "la pérdida no baja",
    "tasa_alta": "los pesos quedan parejos",
    "sin_layernorm": "los pesos quedan parejos",
}
ANTES = Aviso("Elige los fallos y pulsa «Entrenar con estos fallos»", "Pérdida y entropía de la atención por paso")
ANTES_CABEZAS = Aviso("Pulsa «Comparar cabezas»: 1, 2, 4 y 8 cabezas con d_modelo = 32", "Pérdida por paso")
COLORES = (C0, C1, C2, C3)


@lru_cache(maxsize=1)
def fila_toda_tapada() -> dict[str, str]:
    """Qué pasa con la máscara invertida en esta tarea, calculado: cuántas claves tapa (no hay relleno), qué da el
    softmax de una fila toda en −∞ (el de la lección, a mano) y qué da `modelos.atencion` (deja la fila en ceros)."""
    X, _ = secuencias_digitos(64, semilla=0)  # (64, 8): un lote como los del laboratorio
    tapadas = float(mascara(Fallo(mascara_invertida=True), X).float().mean())
    a_mano = torch.softmax(torch.full((1, LARGO), float("-inf")), dim=-1)  # (1, 8)
    q = torch.ones(1, LARGO, 4)  # (1, 8, 4)
    _, pesos = atencion(q, q, q, mascara=torch.ones(1, LARGO, LARGO, dtype=torch.bool))  # (1, 8, 8)
    return {
        "tapadas": por_ciento(tapadas, 0),
        "a_mano": "NaN" if bool(a_mano.isnan().all()) else "números",
        "modelos": "ceros" if bool((pesos == 0).all()) else "otros números",
    }


def _nota_mascara(con_atajos: bool = True) -> str:
    f = fila_toda_tapada()
    llega = (
        "a cada posición le llega solo su propio vector, por la conexión residual."
        if con_atajos
        else "sin la conexión residual, a ninguna posición le llega ni su propio vector."
    )
    nan = ", y la salida y la pérdida serían NaN desde el primer paso" if f["a_mano"] == "NaN" else ""
    return (
        f"**Máscara invertida, qué pasa aquí:** sin relleno, la máscara de «1 = conservar» es toda 1 y, leída como "
        f"«`True` = no mirar», tapa el {f['tapadas']} de las claves. Con −∞ y el softmax a mano (la función de la "
        f"lección), una fila toda tapada da {f['a_mano']}{nan} (lo muestra *Máscara causal*). Este laboratorio "
        f"entrena solo porque `modelos.atencion` deja esa fila en {f['modelos']}: la atención no aporta nada y " + llega
    )


def _validar(interruptores: dict, pasos, bloques=1) -> tuple[Fallo, int, int]:
    for nombre, valor in interruptores.items():
        if valor not in (True, False):  # también 0 y 1
            raise ValueError(f"«{INTERRUPTORES[nombre]}» debe ser verdadero o falso; llegó {str(valor)[:20]!r}.")
    if isinstance(bloques, bool) or not isinstance(bloques, int | float | str) or str(bloques) not in map(str, BLOQUES):
        raise ValueError(
            f"Los bloques del modelo deben ser {' o '.join(map(str, BLOQUES))}; llegó {str(bloques)[:20]!r}."
        )
    if isinstance(pasos, bool) or not isinstance(pasos, int | float) or not math.isfinite(pasos) or pasos != int(pasos):
        raise ValueError(f"Los pasos deben ser un número entero de {PASOS_MIN} a {PASOS_MAX}.")
    if not PASOS_MIN <= pasos <= PASOS_MAX:
        raise ValueError(f"Los pasos deben ser un número entero de {PASOS_MIN} a {PASOS_MAX}; llegó {miles(pasos)}.")
    return Fallo(**{k: bool(v) for k, v in interruptores.items()}), int(pasos), int(bloques)


def _final(historia: list[dict], clave: str) -> float | None:
    """La media de `clave` en el último 10 % de los pasos (None si no hay valores finitos)."""
    ultimos = [h[clave] for h in historia[-max(1, len(historia) // 10) :]]
    finitos = [v for v in ultimos if v is not None and math.isfinite(v)]
    return statistics.fmean(finitos) if finitos else None


def _puntos(historia: list[dict], clave: str) -> tuple[list[int], list[float]]:
    """Los pasos con valor finito: una figura no lleva NaN ni ∞ (una pérdida que explota se corta)."""
    pares = [(h["paso"], h[clave]) for h in historia if h[clave] is not None and math.isfinite(h[clave])]
    return [p for p, _ in pares], [v for _, v in pares]


def figura_fallos(historia: list[dict], pasos_totales: int, titulo: str = "") -> Paneles:
    """Pérdida por paso (con ln 10, no saber nada) y entropía de la atención por paso (con 3 bits, parejos)."""
    x, y = _puntos(historia, "perdida")
    perdida = Curvas(
        (Curva("pérdida del lote", x, y, color=C1, estilo="lineas"),) if x else (),
        eje_y="Pérdida",
        horizontales=(Referencia(PERDIDA_AL_AZAR, f"ln 10 = {PERDIDA_AL_AZAR:.2f}: no sabe nada"),),
        verticales=(Referencia(pasos_totales, f"fin (paso {pasos_totales})", punteada=False),),
        mensaje="" if x else "la pérdida no es un número finito",
    )
    x, y = _puntos(historia, "entropia")
    entropia = Curvas(
        (Curva("entropía de la atención", x, y, color=C0, estilo="lineas"),) if x else (),
        eje_x="Paso (lotes de 64 secuencias nuevas)",
        eje_y="Entropía (bits)",
        rango_y=(-0.1, ENTROPIA_PAREJA + 0.25),
        horizontales=(Referencia(ENTROPIA_PAREJA, f"{ENTROPIA_PAREJA:g} bits: pesos parejos"),),
        verticales=(Referencia(pasos_totales, f"fin (paso {pasos_totales})", punteada=False),),
        mensaje="" if x else "sin pesos: todas las claves tapadas",
        formato=".2f",
    )
    return Paneles((perdida, entropia), columnas=1, titulo=titulo, compartir_x=True, alto_fila=210)


def diagnostico(historia: list[dict], fallo: Fallo, final: dict) -> str:
    """Qué síntomas aparecieron (medidos) y cuáles da la FAQ para los fallos encendidos."""
    perdida, entropia = _final(historia, "perdida"), _final(historia, "entropia")
    k = max(1, len(historia) // 10)
    no_baja = perdida is None or perdida > NO_BAJA
    parejos = entropia is not None and entropia > PAREJOS
    texto_h = "sin pesos (ninguna clave a la vista)" if entropia is None else f"{entropia:.2f} bits"
    lineas = [
        f"**Al final** (media de los últimos {k} pasos): pérdida "
        f"{'no finita' if perdida is None else f'{perdida:.3f}'} (ln 10 = {PERDIDA_AL_AZAR:.2f} es no saber nada) y "
        f"entropía de la atención {texto_h} ({ENTROPIA_PAREJA:g} bits = pesos parejos). En las secuencias de "
        f"validación acierta {por_ciento(final['digitos'])} de los dígitos y {por_ciento(final['secuencias'])} de "
        "las secuencias.",
        f"- «la pérdida no baja»: **{'sí' if no_baja else 'no'}** (umbral: {NO_BAJA:.2f});",
        f"- «los pesos quedan parejos»: **{'sí' if parejos else 'no'}** (umbral: {PAREJOS:.1f} bits)"
        + ("; al contrario, se concentran." if entropia is not None and entropia < 0.5 else "."),
    ]
    encendidos = [n for n, v in vars(fallo).items() if v and n in FAQ]
    if encendidos:
        lineas.append("**La FAQ del tutorial (§7.2) dice:**")
        for n in encendidos:
            visto = no_baja if FAQ[n] == "la pérdida no baja" else parejos
            lineas.append(f"- {INTERRUPTORES[n]} → «{FAQ[n]}»: {'se reproduce' if visto else '**aquí no**'}.")
    elif not fallo.sin_residual:
        lineas.append("Sin fallos encendidos: es el modelo que aprende, para comparar.")
    if fallo.mascara_invertida:
        lineas.append(_nota_mascara(con_atajos=not fallo.sin_residual))
    if fallo.calentamiento:
        lineas.append("El warmup con coseno (§7.1) no es un fallo: compara la misma corrida con y sin él.")
    if fallo.sin_residual:
        lineas.append(_nota_atajos(fallo, final, no_baja, parejos))
    return _en_parrafos(lineas)


def _en_parrafos(lineas: list[str]) -> str:
    """Las líneas en Markdown, con una línea en blanco antes de cada párrafo que sigue a una lista (si no, el
    párrafo queda dentro del último punto)."""
    partes: list[str] = []
    for linea in lineas:
        if partes and partes[-1].startswith("- ") and not linea.startswith("- "):
            partes.append("")
        partes.append(linea)
    return "\n".join(partes)


def _nota_atajos(fallo: Fallo, final: dict, no_baja: bool, parejos: bool) -> str:
    """Lo que midió esta corrida sin atajos: si aprendió, cómo salen las posiciones y qué predice."""
    n = final.get("bloques", 1)
    inicial, al_final = final["diferencia_inicial"], final["diferencia_final"]
    posiciones = (
        f"las 8 posiciones salían del último bloque **iguales** antes de entrenar (diferencia relativa "
        f"{numero(inicial, '.1e')}) y "
        + (
            f"seguían iguales al final ({numero(al_final, '.1e')})"
            if al_final < IGUALES
            else f"al final ya no ({numero(al_final)})"
        )
        if inicial < IGUALES
        else f"las 8 posiciones salían del último bloque distintas (diferencia relativa {numero(inicial)} antes de "
        f"entrenar, {numero(al_final)} al final)"
    )
    texto = (
        f"**Sin atajos residuales, con {n} {'bloque' if n == 1 else 'bloques'}:** {posiciones}; predice el mismo "
        f"dígito en las 8 posiciones en {por_ciento(final['mismo_digito'])} de las secuencias de validación. "
    )
    if fallo.mascara_invertida:  # la atención da ceros: sin atajo, a ninguna posición le llega su propio vector
        return texto + (
            "Con la máscara invertida, la atención de cada bloque da ceros y, sin el atajo, a ninguna posición le "
            "llega su propio vector: lo que sale no depende de los dígitos."
        )
    if not no_baja:
        if n == 1:
            return texto + (
                "**Aprende igual:** con un solo bloque, la atención lleva a cada posición el dígito de su espejo y el "
                "MLP lo lee; el atajo no hace falta. El tutorial (§7.1) dice que es «una condición necesaria para "
                f"entrenar Transformers profundos»: elige {max(BLOQUES)} bloques y entrena otra vez, con y sin atajos."
            )
        return texto + "**Aprendió** en esta corrida, aun sin atajos. Apaga la casilla para comparar."
    if al_final >= IGUALES:
        return texto + "**La pérdida no baja**, pero las posiciones no salen iguales: mira los otros fallos encendidos."
    texto += (
        "**La pérdida no baja:** sin atajos, cada atención mezcla las posiciones y nada le devuelve a cada una lo "
        "suyo; lo que queda es qué dígitos hay, no dónde (*Bloque transformer* lo mide con la pila de la lección)."
    )
    if parejos:
        texto += " Con todas las claves iguales, los pesos de atención salen parejos: por eso la entropía queda alta."
    return texto + " Apaga la casilla y entrena el mismo modelo con los atajos para comparar."


def _entrenar(fallo: Fallo, pasos: int, cabezas: int = 2, bloques: int = 1):
    """Los informes de un entrenamiento, cada `next` con un solo hilo (Gradio puede cambiar de hilo)."""
    corrida = entrenar_con_fallo(fallo, pasos=pasos, cabezas=cabezas, bloques=bloques)
    while True:
        with un_hilo():
            r = next(corrida, None)
        if r is None:
            return
        yield r


def laboratorio(
    mascara_invertida: bool = False,
    tasa_alta: bool = False,
    sin_layernorm: bool = False,
    sin_posicion: bool = False,
    calentamiento: bool = False,
    sin_residual: bool = False,
    pasos: float = PASOS,
    bloques: float = 1,
):
    """Entrena un modelo de `bloques` bloques con los fallos elegidos; produce (figura o None, texto, avance) en cada
    informe."""
    interruptores = dict(
        mascara_invertida=mascara_invertida,
        tasa_alta=tasa_alta,
        sin_layernorm=sin_layernorm,
        sin_posicion=sin_posicion,
        calentamiento=calentamiento,
        sin_residual=sin_residual,
    )
    fallo, pasos, bloques = _validar(interruptores, pasos, bloques)
    historia, dibujada = [], -REDIBUJO_S
    for r in _entrenar(fallo, pasos, bloques=bloques):
        if r.get("final"):
            de = "" if bloques == 1 else f" ({bloques} bloques)"
            titulo = f"Con estos fallos{de}, tras {miles(pasos)} pasos: {por_ciento(r['digitos'])} de los dígitos bien"
            yield figura_fallos(historia, pasos, titulo), diagnostico(historia, fallo, r), 1.0
            return
        historia.append(r)
        figura = None
        if time.perf_counter() - dibujada >= REDIBUJO_S:
            figura = figura_fallos(historia, pasos, f"Entrenando: paso {r['paso']} de {pasos}")
            dibujada = time.perf_counter()
        yield figura, f"Paso {r['paso']} de {pasos} · pérdida {r['perdida']:.3f}", r["paso"] / (pasos + 1)


def figura_cabezas(historias: dict[int, list[dict]], pasos: int, titulo: str = "") -> Curvas:
    curvas = []
    for color, (h, historia) in zip(COLORES, historias.items(), strict=False):
        x, y = _puntos(historia, "perdida")
        curvas.append(Curva(f"{h} cabeza{'s' if h > 1 else ''} (d_k = {D_MODELO // h})", x, y, color=color))
    return Curvas(
        tuple(curvas),
        titulo=titulo,
        eje_x="Paso (lotes de 64 secuencias nuevas)",
        eje_y="Pérdida",
        log_y=True,
        verticales=(Referencia(pasos, f"fin (paso {pasos})", punteada=False),),
    )


def comparar_cabezas(pasos: float = PASOS):
    """Entrena el mismo modelo con 1, 2, 4 y 8 cabezas (d_modelo 32); produce (figura o None, texto, avance)."""
    _, pasos, _ = _validar({}, pasos)
    historias: dict[int, list[dict]] = {}
    finales, parametros, dibujada = {}, {}, -REDIBUJO_S
    for k, h in enumerate(CABEZAS):
        historias[h] = []
        for r in _entrenar(Fallo(), pasos, cabezas=h):
            if r.get("final"):
                finales[h] = r
                parametros[h] = sum(p.numel() for p in r["modelo"].parameters())
                continue
            historias[h].append(r)
            figura = None
            if time.perf_counter() - dibujada >= REDIBUJO_S:
                figura = figura_cabezas(historias, pasos, f"Entrenando: {h} cabezas, paso {r['paso']} de {pasos}")
                dibujada = time.perf_counter()
            yield figura, f"{h} cabezas · paso {r['paso']} de {pasos}", (k * pasos + r["paso"]) / (len(CABEZAS) * pasos)
    titulo = f"d_modelo = {D_MODELO} repartido en 1, 2, 4 y 8 cabezas: pérdida por paso"
    yield figura_cabezas(historias, pasos, titulo), texto_cabezas(historias, finales, parametros), 1.0


def texto_cabezas(historias: dict[int, list[dict]], finales: dict[int, dict], parametros: dict[int, int]) -> str:
    filas = [
        f"| {h} | {D_MODELO // h} | {miles(parametros[h])} | {_final(historias[h], 'perdida'):.3f} | "
        f"{por_ciento(finales[h]['digitos'])} | {por_ciento(finales[h]['secuencias'])} |"
        for h in historias
    ]
    mejor = min(historias, key=lambda h: _final(historias[h], "perdida"))
    peor = max(historias, key=lambda h: _final(historias[h], "perdida"))
    iguales = len(set(parametros.values())) == 1
    return "\n".join(
        [
            f"Con d_modelo = {D_MODELO}, cada cabeza recibe d_k = {D_MODELO} / h columnas: más cabezas, cada una más "
            f"pequeña (§7.1). Los parámetros {'no cambian' if iguales else 'cambian'} con h: las proyecciones son "
            f"de {D_MODELO} × {D_MODELO} igual.",
            "",
            "| cabezas | d_k | parámetros | pérdida final | dígitos | secuencias |",
            "|---|---|---|---|---|---|",
            *filas,
            "",
            f"La pérdida final más baja es la de {mejor} cabeza{'s' if mejor > 1 else ''} y la más alta la de {peor} "
            f"(d_k = {D_MODELO // peor}). La pérdida final es la media de los últimos pasos; la exactitud, en las "
            "secuencias de validación.",
        ]
    )


# --- interfaz --------------------------------------------------------------------------------------


def _con_progreso(pasos_de_entrenamiento, progreso):
    """Cada informe a la barra de progreso; la figura solo cuando toca redibujarla."""
    for figura, texto, avance in pasos_de_entrenamiento:
        progreso(avance, desc=texto if avance < 1 else "Listo")
        yield gr.skip() if figura is None else figura, texto


def laboratorio_aqui(
    mascara_invertida=False,
    tasa_alta=False,
    sin_layernorm=False,
    sin_posicion=False,
    calentamiento=False,
    sin_residual=False,
    pasos=PASOS,
    bloques=1,
    progreso=gr.Progress(),  # noqa: B008 (así lo pide Gradio)
):
    corrida = laboratorio(
        mascara_invertida, tasa_alta, sin_layernorm, sin_posicion, calentamiento, sin_residual, pasos, bloques
    )
    yield from _con_progreso(corrida, progreso)


def cabezas_aqui(pasos=PASOS, progreso=gr.Progress()):  # noqa: B008 (así lo pide Gradio)
    yield from _con_progreso(comparar_cabezas(pasos), progreso)


def _pesado(fn, entradas, salidas, boton) -> None:
    """Un entrenamiento: en la fila de los demás, a lo sumo uno a la vez en todo el proceso."""
    boton.click(
        envolver(fn, exclusivo_de="entrenar"),
        entradas,
        salidas,
        api_visibility="private",
        concurrency_limit=1,
        concurrency_id="entrenar",  # solo los entrenamientos hacen fila entre sí
        show_progress_on=[salidas[1]],
    )


def construir_fallos() -> None:
    """El laboratorio de fallos (elem_id `inversion-digitos-fallos`) y la comparación de cabezas."""
    with gr.Column(elem_id="inversion-digitos-fallos"):
        gr.Markdown(
            "### Laboratorio de fallos\nLa tabla de preguntas frecuentes del tutorial (§7.2) da dos síntomas: "
            "**«los pesos de atención quedan parejos»** (entrada sin normalizar —aquí, lo más cercano es quitar la "
            "LayerNorm del bloque— o tasa demasiado alta) y **«la "
            "pérdida no baja»** (falta la posición o la máscara está al revés). Enciende cada causa y entrena: "
            "abajo, la pérdida de cada paso y la entropía de la atención, $H = -\\sum_j p_{ij} \\log_2 p_{ij}$ "
            f"(media de las filas; {ENTROPIA_PAREJA:g} bits = los 8 pesos iguales). Cada paso usa 64 secuencias "
            "nuevas. **Sin atajos residuales** no está en esa tabla: el tutorial (§7.1) llama a la conexión "
            "residual «una condición necesaria para entrenar Transformers profundos»; pruébalo con "
            f"{' y con '.join(map(str, BLOQUES))} bloques. " + _nota_mascara(),
            latex_delimiters=LATEX,
        )
        with gr.Row():
            casillas = [gr.Checkbox(False, label=etiqueta) for etiqueta in INTERRUPTORES.values()]
        with gr.Row():
            pasos = Deslizador(PASOS_MIN, PASOS_MAX, value=PASOS, step=10, label="Pasos de entrenamiento", scale=3)
            servido(pasos, "solo se lee al pulsar «Entrenar con estos fallos»")
            bloques = gr.Radio(
                [(f"{b}, el de la lección" if b == 1 else str(b), b) for b in BLOQUES],
                value=BLOQUES[0],
                label="Bloques del modelo",
                scale=1,
            )
            boton = gr.Button("Entrenar con estos fallos", variant="primary", scale=1)
        with gr.Row():
            figura = grafico("Pérdida y entropía por paso", scale=3, value=salidas_para_gradio(ANTES))
            texto = gr.Markdown()
    _pesado(laboratorio_aqui, [*casillas, pasos, bloques], [figura, texto], boton)
    with gr.Column(elem_id="inversion-digitos-cabezas"):
        gr.Markdown(
            "### ¿Cuántas cabezas?\n«Demasiadas cabezas reducen la dimensión d_k de cada una» (§7.1): el mismo "
            f"modelo con d_modelo = {D_MODELO} y 1, 2, 4 y 8 cabezas (d_k = 32, 16, 8 y 4), entrenado los pasos "
            "de arriba, uno tras otro."
        )
        boton_cabezas = gr.Button("Comparar cabezas", variant="secondary")
        with gr.Row():
            figura_c = grafico(
                "Pérdida por paso según el número de cabezas", scale=3, value=salidas_para_gradio(ANTES_CABEZAS)
            )
            texto_c = gr.Markdown()
    _pesado(cabezas_aqui, [pasos], [figura_c, texto_c], boton_cabezas)
