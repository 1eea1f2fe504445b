"""La tarjeta de cada checkpoint (README.md con el front matter del Hub) y las medidas que cita.

`python -m modelos.entrenamiento NOMBRE` la escribe con lo medido en esa misma corrida:
exactitud en datos no usados para entrenar, tiempo, máquina y, para
inversion-digitos, la razón frente al bucle de entrenamiento de la lección.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch

from ..datos import secuencias_digitos
from . import decodificador, tarjeta_opiniones
from .inversion import validacion_inversion
from .recetas import RECETAS

TITULOS = {
    "inversion-digitos": "Transformer de juguete que invierte 8 dígitos",
    "inversion-digitos-sin-posicion": "El mismo transformer, sin posición: el contraste",
    "cbam-digitos": "Red convolucional pequeña con CBAM para los dígitos de sklearn",
    "vit-digitos": "ViT diminuto para los dígitos de sklearn",
    "clasificador-opiniones": tarjeta_opiniones.TITULO,
    "decodificador-inversion": decodificador.TITULO,
}

DESCRIPCIONES = {
    "inversion-digitos": (
        "El transformer de la lección «Atención y transformers»: fichas de dígitos más una posición aprendida, "
        "un bloque transformer pre-norma (2 cabezas, d_modelo = 32) y una capa lineal a 10 clases. Recibe 8 "
        "dígitos y escribe la secuencia al revés: cada posición tiene que aprender a mirar a su espejo, y ese "
        "patrón se ve en sus pesos de atención."
    ),
    "inversion-digitos-sin-posicion": (
        "Idéntico a `inversion-digitos`, pero con `con_posicion=False`. Sin la tabla de posiciones la "
        "autoatención no distingue el orden: el modelo sabe qué dígitos hay, no dónde están, así que no puede "
        "invertir la secuencia. Acierta alrededor de un dígito de cada tres y casi ninguna secuencia entera "
        "(en la lección, 32 % de los dígitos). Está aquí para compararlo con el que sí tiene posición."
    ),
    "cbam-digitos": (
        "Dos convoluciones 3 × 3 de 32 canales (con BatchNorm y ReLU), un bloque CBAM (atención de canal con "
        "reducción 8 y atención espacial con kernel 7 × 7), un promedio a 2 × 2 y una capa lineal a 10 clases. "
        "Devuelve, además de los logits, los pesos de canal y el mapa espacial que muestra la pestaña."
    ),
    "vit-digitos": (
        "Un Vision Transformer diminuto: cada dígito de 8 × 8 se corta en 16 parches de 2 × 2, cada parche se "
        "proyecta a un vector de 64, se antepone el token [CLS] y se suma una posición aprendida; siguen 2 "
        "bloques transformer de 4 cabezas y una capa lineal desde el [CLS]. Devuelve también los pesos de "
        "atención de cada bloque."
    ),
    "clasificador-opiniones": tarjeta_opiniones.DESCRIPCION,
    "decodificador-inversion": decodificador.DESCRIPCION,
}

ELECCION = {
    "cbam-digitos": (
        "Además de la entropía cruzada, un presupuesto de atención: se suma "
        "1 · relu(media de m − 0.5) + 1 · relu(media de w − 0.35), por imagen (una L1 sobre lo que se pase). "
        "Sin él, la primera receta llegaba a 99.8 % en prueba, pero sus compuertas no enseñaban nada: el mapa "
        "espacial valía 0.98–1.00 en todas las casillas y los pesos de canal ≈ 1 salvo dos canales ≈ 0. Con el "
        "presupuesto la red tiene que elegir qué casillas y qué canales dejar pasar. Un λ·media(m) a secas no "
        "servía: con λ = 0.1 m apenas se movía (diferencia dentro − fuera del trazo 0.004), con 0.3 y 0.5 se "
        "separaba poco (0.27 y 0.10) y con λ = 1, o sumando 0.5·media(w), las compuertas se apagaban y la "
        "exactitud caía al 10–22 %. El castigo (1) y los presupuestos se eligieron en una validación apartada "
        "del entrenamiento (337 de las 1,347 imágenes). Para m, 0.5 es la fracción de píxeles con algo de tinta. "
        "Para w, un presupuesto de 0.5 dejaba una salida fácil: apagar la capa oculta de la rama de canal, con lo "
        "que w = 0.5 exacto en todos los canales (un tercio de las imágenes); con 0.35 ninguna imagen queda así. "
        "En validación, con la semilla 0: 97.9 % de exactitud y m 0.45 más alto dentro del trazo que fuera; con "
        "las semillas 1 y 2: 0.26 y 0.26 (97.6 % y 97.9 %): la selectividad se repite, pero cuánta depende "
        "de la semilla. La partición de prueba se midió solo con la receta ya fija."
    ),
    "vit-digitos": (
        "Épocas, tasa y decaimiento se eligieron con una validación apartada del entrenamiento (337 de las "
        "1,347 imágenes, con tres semillas); la partición de prueba se midió solo con la receta ya fija."
    ),
}

# Lo que imprime la lección con la receta de inversion-digitos (atencion_y_transformers.salida.txt).
LECCION = {
    "inversion-digitos": {"perdidas": "0.599 y 0.006", "digitos": "100.0 %", "secuencias": "100.0 %"},
    "inversion-digitos-sin-posicion": {"perdidas": "1.867 y 1.680", "digitos": "31.7 %", "secuencias": "0.0 %"},
}

DATOS_IMAGENES = (
    "`sklearn.datasets.load_digits()`: 1,797 dígitos escritos a mano, de 8 × 8 píxeles en gris (de 0 a 16, "
    "escalados a 0–1 en `modelos.datos.normalizar_digitos`). Partición de `modelos.datos.digitos_sklearn()`: "
    "`train_test_split(test_size=0.25, random_state=0, stratify=y)`, 1,347 imágenes para entrenar y 450 de "
    "prueba. La aumentación (desplazamientos al azar de hasta 1 px en cada eje) se aplica solo al "
    "entrenamiento. La exactitud de abajo se mide en las 450 de prueba, que el entrenamiento nunca ve."
)


def hilos(n: int) -> str:
    return f"{n} hilo" if n == 1 else f"{n} hilos"


def maquina() -> str:
    """Procesador, núcleos, hilos de torch y versiones, en una línea."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((linea.split(":", 1)[1].strip() for linea in f if linea.startswith("model name")), cpu)
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} núcleos, {hilos(torch.get_num_threads())} de torch; {platform.system()}, "
        f"Python {platform.python_version()}, torch {torch.__version__}"
    )


def _carga() -> str:
    """La carga media del último minuto, si el sistema la da: los tiempos dependen de ella."""
    if not hasattr(os, "getloadavg"):
        return ""
    return (
        f"Carga media del sistema al terminar: {os.getloadavg()[0]:.1f} (la CPU puede compartirse con otros procesos)."
    )


def _front_matter(nombre: str, metrica: str, valor: float) -> str:
    if nombre.startswith("clasificador"):
        return _front_matter_texto(nombre, metrica, valor)
    imagen = not nombre.startswith(("inversion", "decodificador"))
    etiquetas = ["pytorch_model_hub_mixin", "model_hub_mixin", "educational", "attention"]
    etiquetas += ["cbam", "image-classification"] if nombre.startswith("cbam") else []
    etiquetas += ["vision-transformer", "image-classification"] if nombre.startswith("vit") else []
    etiquetas += ["transformer", "toy-task"] if nombre.startswith("inversion") else []
    etiquetas += ["transformer", "causal-decoder", "toy-task"] if nombre.startswith("decodificador") else []
    tarea = "image-classification" if imagen else "other"
    conjunto = "sklearn digits (partición de prueba)" if imagen else "secuencias de 8 dígitos al azar (validación)"
    return "\n".join(
        ["---", "license: mit", "library_name: pytorch", "tags:", *[f"- {e}" for e in etiquetas]]
        + (["pipeline_tag: image-classification"] if imagen else [])
        + ["metrics:", "- accuracy", "model-index:", f"- name: {nombre}", "  results:", "  - task:"]
        + [f"      type: {tarea}", "    dataset:", f"      name: {conjunto}", f"      type: {conjunto.split(' (')[0]}"]
        + ["    metrics:", "    - type: accuracy", f"      name: {metrica}", f"      value: {valor:.4f}", "---", ""]
    )


def _front_matter_texto(nombre: str, metrica: str, valor: float) -> str:
    conjunto = "opiniones sintéticas en español (gramática de modelos/opiniones.py, partición de prueba)"
    etiquetas = ["pytorch_model_hub_mixin", "model_hub_mixin", "educational", "attention", "attention-pooling"]
    etiquetas += ["transformer", "text-classification", "sentiment-analysis", "synthetic-data"]
    lineas = ["---", "license: mit", "language:", "- es", "library_name: pytorch", "tags:"]
    lineas += [f"- {e}" for e in etiquetas]
    lineas += ["pipeline_tag: text-classification", "metrics:", "- accuracy", "model-index:", f"- name: {nombre}"]
    lineas += ["  results:", "  - task:", "      type: text-classification", "    dataset:", f"      name: {conjunto}"]
    lineas += ["      type: opiniones-sinteticas", "    metrics:", "    - type: accuracy", f"      name: {metrica}"]
    return "\n".join([*lineas, f"      value: {valor:.4f}", "---", ""])


def _coincidencias_validacion(n: int) -> int:
    """Cuántas de las 2,000 secuencias de validación aparecen, por azar, entre las n de entrenamiento."""
    potencias = 10 ** torch.arange(7, -1, -1)  # cada secuencia de 8 dígitos como un número
    vistas = set((secuencias_digitos(n, 0)[0] @ potencias).tolist())
    return sum(v in vistas for v in (validacion_inversion()[0] @ potencias).tolist())


def _seccion_datos(nombre: str, receta) -> str:
    if nombre.startswith("clasificador"):
        return tarjeta_opiniones.datos()
    if nombre.startswith("decodificador"):
        return decodificador.datos()
    if not nombre.startswith("inversion"):
        return DATOS_IMAGENES
    n = receta.secuencias_por_epoca
    return (
        "Secuencias de 8 dígitos del 0 al 9, uniformes al azar: `modelos.datos.secuencias_digitos(n, semilla)`; "
        f"el objetivo es la misma secuencia al revés. Entrenamiento: {n:,} secuencias de la semilla 0, las mismas "
        "que `X_ent` en la lección (`torch.randint(0, 10, (20000, 8), generator=g)` con `g` de semilla 0). "
        "Validación (la métrica de abajo): 2,000 secuencias nuevas de la semilla 2³² − 1 "
        "(`modelos.entrenamiento.inversion.validacion_inversion()`), que ningún entrenamiento usa; por azar, "
        f"{_coincidencias_validacion(n)} coinciden con alguna de entrenamiento (hay 10⁸ posibles)."
    )


def _seccion_receta(nombre: str, receta) -> str:
    if nombre.startswith("clasificador"):
        return tarjeta_opiniones.receta(receta)
    if nombre.startswith("decodificador"):
        return decodificador.receta(receta)
    if nombre.startswith("inversion"):
        pasos = receta.epocas * -(-receta.secuencias_por_epoca // 64)
        return (
            f"la de la lección: Adam con tasa {receta.tasa:g}, lotes de 64 y entropía cruzada por posición; "
            f"{receta.epocas} épocas de las mismas {receta.secuencias_por_epoca:,} secuencias, barajadas en cada "
            f"una, {pasos} pasos; el modelo, con `torch.manual_seed(0)` como en la lección. Es "
            "`modelos.entrenamiento.inversion.entrenar_inversion`, el mismo bucle que usa la pestaña «entrénalo "
            "tú»; baraja con `torch.randperm` y un generador propio en lugar del DataLoader de la lección, así que "
            "los lotes no son los mismos que los de la lección."
        )
    pasos = receta.epocas * -(-1347 // 64)
    return (
        f"AdamW con una sola subida y bajada de la tasa (OneCycle, máximo {receta.tasa:g}) y decaimiento de pesos "
        f"{receta.decaimiento:g}; lotes de 64, entropía cruzada, {receta.epocas} épocas ({pasos:,} pasos). "
        + ELECCION[nombre]
    )


def _seccion_resultados(nombre: str, resultado, receta) -> tuple[str, str, float]:
    m = resultado.metricas
    if nombre.startswith("clasificador"):
        return tarjeta_opiniones.tabla(m, receta), "exactitud en prueba", m["prueba"]
    if nombre.startswith("decodificador"):
        return decodificador.tabla(m, receta), "secuencias enteras acertadas, generando", m["secuencias"]
    if nombre.startswith("inversion"):
        meta = f"≥ {receta.meta:.1%}" if receta.meta else "ninguna: es el contraste"
        leccion = LECCION[nombre]
        perdidas = " y ".join(f"{p:.3f}" for p in m["perdidas_entrenamiento"])
        pr = m["probabilidades"]
        tabla = (
            "Medido en las 2,000 secuencias de validación, que el entrenamiento no vio; la última columna es lo "
            "que imprime la lección con la misma receta.\n\n"
            "| medida | valor | meta | la lección |\n|---|---|---|---|\n"
            f"| secuencias enteras acertadas | {m['secuencias']:.2%} | {meta} | {leccion['secuencias']} |\n"
            f"| dígitos acertados | {m['digitos']:.2%} | | {leccion['digitos']} |\n"
            f"| pérdida de entrenamiento de cada época (media por lote) | {perdidas} | | {leccion['perdidas']} |\n"
            f"| pérdida en validación (entropía cruzada) | {m['perdida']:.4f} | | |\n"
            f"| probabilidad media del dígito correcto | {pr['correcta']:.4f} | | |\n"
            f"| la más baja que da al dígito correcto | {pr['correcta_minima']:.4f} | | |\n"
            f"| la más baja que da a un dígito que predice | {pr['predicha_minima']:.4f} | | |"
        )
        entrada, prediccion, prob = m["ejemplo"]
        tabla += (
            f"\n\nEl ejemplo de la lección, {' '.join(map(str, entrada))}: el modelo escribe "
            f"{' '.join(map(str, prediccion))}, con probabilidades "
            + ", ".join(f"{p:.3f}" for p in prob)
            + " (una por posición)."
        )
        if not receta.meta:  # el contraste: lo que dice algo es cuántos dígitos acierta
            return tabla, "dígitos acertados", m["digitos"]
        return tabla, "secuencias enteras acertadas", m["secuencias"]
    tabla = (
        "| medida | valor | meta |\n|---|---|---|\n"
        f"| exactitud en prueba (450 imágenes) | {m['prueba']:.2%} ({round(m['prueba'] * 450)} de 450) "
        f"| ≥ {receta.meta:.0%} |\n| exactitud en entrenamiento (sin aumentación) | {m['entrenamiento']:.2%} | |"
    )
    if "mapa_diferencia" in m:
        tabla += (
            "\n\nLas compuertas, en las mismas 450 imágenes de prueba (medias por imagen; «trazo» = píxeles de "
            "entrada > 0.3; `modelos.entrenamiento.recetas.selectividad`):\n\n| medida | valor |\n|---|---|\n"
            f"| mapa espacial m dentro del trazo | {m['mapa_dentro']:.2f} |\n"
            f"| m fuera del trazo | {m['mapa_fuera']:.2f} |\n"
            f"| **diferencia dentro − fuera** | **{m['mapa_diferencia']:.2f}** |\n"
            f"| mínimo y máximo de m en cada imagen | {m['mapa_min']:.2f} y {m['mapa_max']:.2f} |\n"
            f"| pesos de canal w: media | {m['canal_media']:.2f} |\n"
            f"| canales con w < 0.5 | {m['canales_bajo_05']:.1f} de {receta.config.get('canales', 32)} |"
        )
    return tabla, "exactitud en prueba", m["prueba"]


def _seccion_leccion(c: dict) -> str:
    return (
        "## Frente al bucle de la lección\n\n"
        f"Medianas de {c['repeticiones']} corridas alternadas en la misma máquina y el mismo proceso, con "
        f"{hilos(c['hilos'])} de torch (`python scripts/bench_entrenamiento.py` repite la medida). "
        f"El bucle de la lección: 20,000 secuencias con DataLoader, lote 64, Adam 1e-3, {c['epocas_leccion']} "
        "épocas, sin validar a mitad ni guardar instantáneas: la misma receta.\n\n"
        "| entrenamiento | reloj (s) | CPU (s) |\n|---|---|---|\n"
        f"| esta receta ({c['pasos']} pasos, con validaciones e instantáneas) | {c['nuestra']:.2f} "
        f"| {c['nuestra_cpu']:.2f} |\n"
        f"| bucle de la lección, {c['epocas_leccion']} épocas | {c['leccion']:.2f} | {c['leccion_cpu']:.2f} |\n"
        f"| **razón** | **{c['razon']:.2f}** | **{c['razon_cpu']:.2f}** |\n\n"
        f"Las {c['repeticiones']} corridas dieron los mismos pesos, bit a bit: {'sí' if c['iguales'] else 'NO'}.\n"
    )


def _transicion(tomas: list) -> str:
    """Entre qué pasos pasa de no acertar ninguna secuencia a acertar casi todas."""
    antes = max((m["paso"] for m, _ in tomas if m["secuencias"] < 0.01), default=0)
    despues = min((m["paso"] for m, _ in tomas if m["secuencias"] >= 0.95), default=tomas[-1][0]["paso"])
    return f"La transición de no saber a invertir se ve entre los pasos {antes} y {despues}"


def _seccion_instantaneas(tomas: list) -> str:
    filas = "\n".join(
        f"| {m['indice']} | {m['paso']} | {m['secuencias_vistas']:,} | {m['perdida']:.3f} | {m['digitos']:.1%} "
        f"| {m['secuencias']:.1%} |"
        for m, _ in tomas
    )
    return (
        "## Instantáneas del entrenamiento\n\n`instantaneas.safetensors` guarda los pesos en "
        f"{len(tomas)} momentos (las claves de la instantánea k llevan el prefijo `k/`) e `instantaneas.json` "
        "sus métricas en las 2,000 secuencias de validación; `modelos.entrenamiento.inversion.instantaneas()` "
        "las carga. "
        f"{_transicion(tomas)}; después, hasta el final de cada época, baja la pérdida.\n\n"
        "| k | paso | secuencias vistas | pérdida | dígitos | secuencias |\n|---|---|---|---|---|---|\n" + filas + "\n"
    )


def escribir(carpeta: Path, nombre: str, resultado, receta, comparacion: dict | None = None) -> None:
    """Escribe carpeta/README.md: front matter del Hub y la tarjeta en español."""
    tabla, metrica, valor = _seccion_resultados(nombre, resultado, receta)
    clase = type(resultado.modelo).__name__
    parametros = sum(p.numel() for p in resultado.modelo.parameters())
    tiempo = "mediana de 3 corridas" if comparacion else "una corrida"
    partes = [
        _front_matter(nombre, metrica, valor),
        f"# {nombre}: {TITULOS[nombre]}\n\n{DESCRIPCIONES[nombre]} {parametros:,} parámetros.\n",
        "Acompaña a las demos interactivas de la lección de atención y transformers; es un modelo de juguete, "
        "para mirar por dentro, no para usar en nada serio.\n",
        "## Uso\n\n```python\nfrom modelos import cargar, " + clase + "\n\n"
        f'modelo = cargar("{nombre}")  # en eval, una vez por proceso\n'
        f'modelo = {clase}.from_pretrained("checkpoints/{nombre}")  # o directo, desde la carpeta\n```\n',
        f"## Datos\n\n{_seccion_datos(nombre, receta)}\n",
        f"## Entrenamiento\n\n- Comando, desde la raíz del repositorio: `python -m modelos.entrenamiento {nombre}`\n"
        f"- Receta: {_seccion_receta(nombre, receta)}\n"
        "- Determinista: semilla 0, generadores propios, un hilo de torch y "
        "`torch.use_deterministic_algorithms(True)`, en la CPU. En la misma máquina y versión de torch, los pesos "
        "salen iguales bit a bit.\n"
        f"- Tiempo de entrenamiento: {resultado.segundos:.2f} s ({tiempo}).\n- Máquina: {maquina()}. "
        + _carga()
        + "\n",
        f"## Resultados\n\n{tabla}\n",
    ]
    if comparacion:
        partes.append(_seccion_leccion(comparacion))
    if resultado.instantaneas:
        partes.append(_seccion_instantaneas(resultado.instantaneas))
    otras = ", ".join(f"`{n}`" for n in RECETAS if n != nombre)
    partes.append(f"## Véase también\n\nLos otros checkpoints de la suite: {otras}.\n")
    (carpeta / "README.md").write_text("\n".join(partes), encoding="utf-8")
