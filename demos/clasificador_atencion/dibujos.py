"""Las figuras de «Clasificador con atención»: los pesos de la agrupación y la atención de cada cabeza.

Las palabras del visitante van en las marcas de los ejes y en las pistas (Plotly las recibe escapadas
de `demos.comun.figuras`), nunca en los títulos.
"""

from __future__ import annotations

import numpy as np

from demos.comun.figuras import Imagen, Mapa, Paneles
from modelos.prediccion import Lectura
from modelos.vocabulario import DESCONOCIDA

NUMEROS_PESOS = 24  # hasta tantas palabras, cada casilla de los pesos lleva su número (si es ≥ 0.01)
MAPAS_CABEZAS = 24  # hasta tantas palabras, cada cabeza es un mapa con su valor al pasar el ratón
COLUMNAS = 3  # 8 cabezas y su promedio: 3 × 3


def _nombre(f) -> str:
    """Cómo se llama una ficha en la pista: tal cual, y si no la conoce, lo que lee en su lugar."""
    escrita = f.escrita if len(f.escrita) <= 30 else f.escrita[:29] + "…"
    return f"«{escrita}»" if f.conocida else f"«{escrita}» (no la conoce: la lee como {DESCONOCIDA})"


def _desconocidas(lectura: Lectura, fila: int = 0) -> tuple[tuple[int, int], ...]:
    return tuple((fila, j) for j, f in enumerate(lectura.fichas) if not f.conocida)


def _una_de_cada(etiquetas: tuple[str, ...], maximo: int) -> tuple[str, ...]:
    """Con muchas palabras, solo una de cada tantas se escribe en el eje (la pista las dice todas)."""
    paso = -(-len(etiquetas) // maximo)
    return tuple(e if i % paso == 0 else "" for i, e in enumerate(etiquetas))


def figura_pesos(antes: Lectura, despues: Lectura | None, quitada: int) -> Paneles:
    """Una fila de casillas: el peso de cada palabra en la agrupación; con una palabra quitada, dos filas.

    En la segunda fila, la casilla de la palabra quitada queda gris y las demás llevan su peso nuevo.
    """
    L = len(antes.fichas)
    x = tuple(f.escrita[:20] for f in antes.fichas)
    filas = [antes.pesos.numpy()]
    tapada = np.zeros((1, L), bool)
    nombres_y: tuple[str, ...] = ("la frase entera",)
    y: tuple[str, ...] = ("peso",)
    titulo = f"Peso α de cada posición en la agrupación (suman 1): {antes.clase}, {antes.probabilidad:.3f}"
    marcas = _desconocidas(antes)
    if despues is not None:
        # Las L − 1 que quedan, en sus columnas (si la frase pasaba del tope, entra una más al final: no se dibuja).
        quedan = np.zeros(L - 1)
        d = despues.pesos.numpy()[: L - 1]
        quedan[: len(d)] = d
        nuevos = np.insert(quedan, quitada - 1, 0.0)  # (L,): la quitada, en su sitio
        filas.append(nuevos)
        tapada = np.vstack([tapada, np.arange(L)[None, :] == quitada - 1])
        y = ("entera", f"sin la n.º {quitada}")
        nombres_y = ("la frase entera", f"sin la palabra n.º {quitada}")
        titulo = (
            f"Pesos de la agrupación: entera, {antes.clase} ({antes.probabilidad:.3f}); "
            f"sin la n.º {quitada}, {despues.clase} ({despues.probabilidad:.3f})"
        )
        marcas += tuple((1, j) for i, j in _desconocidas(antes) if j != quitada - 1)
    mapa = Mapa(
        np.round(np.vstack(filas), 3),  # la pista da 3 decimales: más no se ve y pesa
        x=x if L <= 40 else _una_de_cada(x, 40),
        y=y,
        nombres_x=tuple(_nombre(f) for f in antes.fichas),
        nombres_y=nombres_y,
        titulo=titulo,
        eje_x="Posición en la frase (en naranja, las palabras que no conoce)" if marcas else "Posición en la frase",
        numeros=L <= NUMEROS_PESOS,
        umbral=0.01,
        tapada=tapada,
        texto_tapada="—",
        leyenda_tapada="palabra quitada",
        pista="{y}: {x} pesa {v}",
        marcas=marcas,
    )
    return Paneles((mapa,), columnas=1, alto_fila=170 + 60 * len(filas))


def figura_cabezas(lectura: Lectura, bloque: int) -> Paneles:
    """Los pesos de atención de cada cabeza del `bloque` (desde 1) y su promedio, con una sola escala de 0 a 1."""
    pesos = lectura.atencion[bloque - 1].numpy()  # (cabezas, L, L)
    h, L, _ = pesos.shape
    palabras = tuple(f.escrita[:16] for f in lectura.fichas)
    # La pista nombra cada casilla con sus dos palabras (van una vez por casilla: sin comillas ni notas, que
    # ya pone la plantilla de la pista y la figura de los pesos).
    nombres = tuple(f.escrita[:30] for f in lectura.fichas)
    x = palabras if L <= 12 else _una_de_cada(palabras, 12)
    y = palabras if L <= 24 else _una_de_cada(palabras, 24)
    paneles = []
    for k in range(h + 1):
        promedio = k == h
        titulo = "Promedio de las cabezas" if promedio else f"Cabeza {k + 1}"
        matriz = np.round(pesos.mean(axis=0) if promedio else pesos[k], 3)  # (L, L)
        if L > MAPAS_CABEZAS and not promedio:
            paneles.append(Imagen(_pixeles(matriz), titulo=titulo))
            continue
        paneles.append(
            Mapa(
                matriz,
                # Las palabras, solo al pie y a la izquierda (las columnas y filas son las mismas en cada panel).
                x=x if k >= h + 1 - COLUMNAS else ("",) * L,
                y=y if k % COLUMNAS == 0 else ("",) * L,
                nombres_x=nombres,
                nombres_y=nombres,
                titulo=titulo,
                eje_x="Palabra que se mira (clave)" if k >= h + 1 - COLUMNAS else "",
                eje_y="Palabra que mira (consulta)" if k % COLUMNAS == 0 else "",
                numeros=L <= 5,
                vmax=1.0,
                pista=f"{titulo}: «{{y}}» mira a «{{x}}»: {{v}}",
            )
        )
    alto = int(np.clip(140 + 14 * L, 300, 520))
    titulo = f"Bloque {bloque}: a quién mira cada palabra"
    # En un teléfono, una cabeza a la vez con todas sus palabras: apiladas eran nueve mapas de ≈ 80 px de ancho.
    return Paneles(tuple(paneles), columnas=COLUMNAS, titulo=titulo, alto_fila=alto, de_a_uno=True)


def _pixeles(matriz: np.ndarray) -> np.ndarray:
    """Pesos (L, L) de 0 a 1 -> imagen RGB (L, L, 3) en blanco→C0, la escala de los mapas."""
    blanco, tinta = np.array([255.0, 255.0, 255.0]), np.array([0x1F, 0x77, 0xB4], float)
    t = np.round(np.clip(matriz, 0, 1) * 255)[..., None] / 255  # (L, L, 1): 256 tonos, PNG con paleta
    return np.round(blanco + t * (tinta - blanco)).astype(np.uint8)
