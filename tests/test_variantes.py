"""La pestaña «Variantes de la atención»: la tabla del §6.2 del tutorial y la atención dispersa como máscaras."""

import numpy as np
import pytest
import torch

from demos.comun.figuras import Mapa, Paneles
from demos.variantes import calcular, casillas_grandes, compuertas_cbam, lado_longformer, mascaras
from modelos import CBAM, dispersa
from tests.ayuda import espera_error


def test_las_mascaras_son_las_de_cada_variante():
    L = 16
    m = mascaras(L, 4, 1, 1, 0)
    ventana, globales, azar, bigbird = (m[k] for k in list(m)[2:])
    i = torch.arange(L)
    assert torch.equal(m["causal"], i[None, :] > i[:, None])  # la máscara causal de la lección
    assert torch.equal(~ventana, (i[None, :] - i[:, None]).abs() <= 2)  # w = 4: 2 a cada lado
    assert (~globales[0]).all() and (~globales[:, 0]).all() and (~globales[1:, 1:]).sum() == 0
    assert torch.equal(bigbird, ventana & globales & azar)  # BigBird: se mira si lo deja alguna de las tres
    bloques = (~azar).view(8, 2, 8, 2).all(dim=(1, 3))  # bloques de 2 × 2: abiertos enteros o cerrados enteros
    assert ((~azar).view(8, 2, 8, 2).any(dim=(1, 3)) == bloques).all() and (bloques.sum(1) == 1).all()


def test_la_figura_dibuja_cada_mascara_con_su_cuenta():
    figura, _, _ = calcular()
    assert isinstance(figura, Paneles) and len(figura.paneles) == 6
    m = mascaras(16, 4, 1, 1, 0)
    for mapa, (nombre, tapada) in zip(figura.paneles, m.items(), strict=True):
        assert isinstance(mapa, Mapa) and np.array_equal(mapa.tapada, tapada.numpy())
        n = int((~tapada).sum())
        assert mapa.titulo.startswith(nombre) and f"{n} de 256 casillas" in mapa.titulo


def test_bigbird_crece_como_l_y_no_como_l2():
    n, total = casillas_grandes(4, 1, 1, 0)
    assert total == 2048**2
    assert n == int((~dispersa.bigbird(2048, 4, 1, 64, 1, 0)).sum())
    assert 60 < n / 2048 < 80  # ≈ w + 1 + 2g + 64·r = 71 por fila
    *_, texto = calcular()
    assert f"**{n:,}**".replace(",", "\u202f") in texto and "≈ 71 por fila" in texto


def test_longformer_mira_256_a_cada_lado():
    assert lado_longformer() == 256
    *_, texto = calcular()
    assert "(512: 256 a cada lado)" in texto


def test_la_tabla_enlaza_cada_variante_a_su_pestana_y_cuenta_las_compuertas_de_cbam():
    from demos import POR_ID
    from demos.variantes import tabla as filas_de_la_tabla

    tabla = filas_de_la_tabla(mascaras(16, 4, 1, 1, 0), 16)
    _, markdown, _ = calcular()
    assert markdown.splitlines()[0].startswith("| Variante | De dónde sale Q | De dónde salen K y V | Para qué |")
    assert all("| " + " | ".join(f) + " |" in markdown for f in tabla)
    assert [f[0].split(" ")[0] for f in tabla] == ["Autoatención", "Cruzada", "Canal", "Espacial", "Dispersa"]
    enlazadas = {e.split(")")[0] for f in tabla for e in f[5].split("(/?tab=")[1:]}
    assert enlazadas == {"multicabeza", "atencion-cruzada", "cbam", "memoria", "mascara-causal"} <= set(POR_ID)
    with torch.inference_mode():
        _, w, m = CBAM(32, 8)(torch.rand(1, 32, 8, 8))
    assert compuertas_cbam() == (w.numel(), m.numel()) == (32, 64)
    assert tabla[2][4].startswith("32 pesos") and tabla[3][4].startswith("64 pesos")
    bigbird = mascaras(16, 4, 1, 1, 0)["BigBird: ventana ∪ globales ∪ azar"]
    assert tabla[4][4].startswith(f"{int((~bigbird).sum())} de 256")
    assert all(f"[{POR_ID[i].titulo}](/?tab={i})" in " ".join(f[5] for f in tabla) for i in enlazadas)


@pytest.mark.parametrize("kw", [{"L": 3}, {"L": 65}, {"w": -1}, {"g": 5}, {"r": 9}, {"semilla": -1}, {"L": "x"}])
def test_entrada_mala_da_valueerror_en_espanol(kw):
    with pytest.raises(ValueError, match=r"debe ser|entre"):
        calcular(**kw)


def test_api_sin_argumentos_y_con_entrada_mala(cliente):
    figura, tabla, texto = cliente.predict(api_name="/variantes")
    assert figura["type"] == "plotly" and "| Autoatención |" in tabla and "BigBird" in texto
    assert "entre 4 y 64" in espera_error(cliente, "/variantes", L=10**9)
