"""La pestaña «¿Por qué √d?» reproduce la tabla de la lección."""

import math
import threading

import numpy as np
import pytest

from demos import escalado
from demos.comun.figuras import C0, C1, Curvas, Histograma, Paneles
from demos.comun.figuras.pantalla import figura_plotly
from demos.escalado import CONSULTAS, DIMENSIONES_CURVA, calcular, curva, medir
from tests.ayuda import espera_error


def test_d2_semilla0_da_la_fila_de_la_leccion():
    m = medir(2, claves=8, semilla=0)
    assert f"{m['desv_sin']:.1f}" == "1.5"
    assert f"{m['desv_con']:.2f}" == "1.05"
    assert f"{m['max_sin']:.2f}" == "0.40"
    assert f"{m['max_con']:.2f}" == "0.32"


@pytest.mark.parametrize(
    "d, desv_sin, desv_con, max_sin, max_con",
    [(64, "8.0", "1.00", "0.87", "0.36"), (512, "23.3", "1.03", "0.96", "0.37")],
)
def test_d_grande_da_la_fila_de_la_leccion(d, desv_sin, desv_con, max_sin, max_con):
    """Exactas: las tres d de la lección salen de un solo generador, en su orden, como en la lección."""
    m = medir(d, claves=8, semilla=0)
    medido = (f"{m['desv_sin']:.1f}", f"{m['desv_con']:.2f}", f"{m['max_sin']:.2f}", f"{m['max_con']:.2f}")
    assert medido == (desv_sin, desv_con, max_sin, max_con)


def test_otra_d_empieza_su_propio_generador():
    import torch

    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(CONSULTAS, 100, generator=g), torch.randn(8, 100, generator=g)
    assert medir(100, 8, 5)["punto"].tolist() == (q @ k.T).flatten().tolist()


def test_las_tres_d_de_la_leccion_en_una_pasada_dan_los_mismos_sorteos():
    """Exacta, para todo número de claves: d = 512 sigue el generador donde terminó d = 64 (gastan los mismos
    números) en lugar de volver a sortear d = 2 y d = 64, como `_sorteo`."""
    import torch

    for claves in range(2, escalado.CLAVES_MAX + 1):
        juntos = escalado._sorteos_leccion(claves, 11)
        for d in escalado.D_LECCION:
            q, k = escalado._sorteo(d, claves, 11)
            assert torch.equal(juntos[d][0], q) and torch.equal(juntos[d][1], k), (claves, d)


def test_escalar_devuelve_la_desviacion_a_1_y_baja_el_peso_maximo():
    m = medir(4096, claves=8, semilla=3)
    assert m["desv_con"] == pytest.approx(1.0, abs=0.1)
    assert m["desv_sin"] == pytest.approx(64.0, rel=0.1)
    assert m["max_con"] < 0.5 < 0.9 < m["max_sin"]
    assert m["entropia_con"] > m["entropia_sin"]
    assert m["entropia_con"] <= math.log2(8)


LECCION = [
    ["2", "1.5 → 1.05", "0.40 → 0.32"],
    ["64", "8.0 → 1.00", "0.87 → 0.36"],
    ["512", "23.3 → 1.03", "0.96 → 0.37"],
]


def test_vista_inicial_tiene_la_tabla_de_la_leccion_y_abre_en_d_64():
    _, _, tabla, texto = calcular()
    assert [[f[0].split()[0], *f[1:3]] for f in tabla] == LECCION
    assert [f[0] for f in tabla] == ["2", "64  ◀ elegida", "512"]
    assert "Con d = 64: desviación típica **8.0 → 1.00**" in texto and "T = √d" in texto


def test_una_d_fuera_de_la_leccion_entra_en_la_tabla_en_su_lugar():
    _, _, tabla, _ = calcular(d=4096)
    assert [f[0] for f in tabla] == ["2", "64", "512", "4\u202f096  ◀ elegida"]
    assert [[f[0].split()[0], *f[1:3]] for f in tabla[:3]] == LECCION


@pytest.mark.parametrize("d", [2, 512])
def test_histogramas_cuentan_todos_los_pares_con_el_eje_x_compartido(d):
    histos, *_ = calcular(d, 8, 0)
    m = medir(d, 8, 0)
    assert isinstance(histos, Paneles) and histos.compartir_x and len(histos.paneles) == 2
    sin, con = histos.paneles
    assert isinstance(sin, Histograma) and isinstance(con, Histograma)
    for h, datos in ((sin, m["punto"]), (con, m["escalado"])):
        assert h.series[0].valores.sum() == CONSULTAS * 8  # 1000 consultas × 8 claves
        assert h.bordes[0] == datos.min() and h.bordes[-1] == datos.max()
    assert sin.titulo == f"Sin escala: q·k   (desviación típica {m['desv_sin']:.1f})"
    assert con.titulo == f"Con escala: q·k / √{d}   (desviación típica {m['desv_con']:.2f})"
    assert sin.series[0].color == C1 and con.series[0].color == C0
    # Con d = 512 el ancho de los puntajes sin escala es ≈ √512 ≈ 23 veces el de los escalados.
    ancho = (sin.bordes[-1] - sin.bordes[0]) / (con.bordes[-1] - con.bordes[0])
    assert ancho == pytest.approx(math.sqrt(d), rel=0.01)
    assert figura_plotly(histos)["layout"]["xaxis2"]["matches"] == "x"


def test_curva_del_peso_maximo_marca_la_d_elegida():
    _, fig, *_ = calcular(64, 8, 0)
    sin, con = curva(8, 0)
    assert isinstance(fig, Curvas) and fig.log_x
    assert fig.curvas[0].x.tolist() == list(DIMENSIONES_CURVA)
    assert fig.curvas[0].y.tolist() == sin.tolist() and fig.curvas[1].y.tolist() == con.tolist()
    assert sin[6] == pytest.approx(0.87, abs=0.05) and con[6] == pytest.approx(0.36, abs=0.05)  # d = 64
    assert [r.valor for r in fig.verticales] == [64] and fig.verticales[0].texto == "d = 64"
    assert fig.horizontales[0].valor == 1 / 8 and "1/8" in fig.horizontales[0].texto
    m = medir(64, 8, 0)
    assert [(n.x, n.y, n.texto) for n in fig.notas] == [
        (64, m["max_sin"], f"{m['max_sin']:.2f}"),
        (64, m["max_con"], f"{m['max_con']:.2f}"),
    ]
    assert (fig.eje_x, fig.eje_y) == ("Dimensión d (escala log)", "Peso máximo medio")


@pytest.mark.parametrize(
    "d, claves, semilla",
    [(0, 8, 0), (4097, 8, 0), (2, 1, 0), (2, 65, 0), (2.5, 8, 0), (float("nan"), 8, 0), ("abc", 8, 0), (2, 8, -1)],
)
def test_entrada_mala_da_valueerror_en_espanol(d, claves, semilla):
    with pytest.raises(ValueError, match="debe ser"):
        calcular(d, claves, semilla)


def test_api_sin_argumentos_da_la_vista_inicial(cliente):
    histos, curva, tabla, texto = cliente.predict(api_name="/escalado")
    assert histos["type"] == "plotly" and curva["type"] == "plotly"
    assert [f[1] for f in tabla["data"]] == ["1.5 → 1.05", "8.0 → 1.00", "23.3 → 1.03"]


def test_api_rechaza_d_fuera_de_rango_y_sigue_respondiendo(cliente):
    mensaje = espera_error(cliente, "/escalado", d=10**9)
    assert "entre 1 y 4\u202f096" in mensaje
    *_, texto = cliente.predict(d=512, api_name="/escalado")
    assert "d = 512" in texto


def test_el_deslizador_logaritmico_y_los_botones_escriben_d():
    import gradio as gr

    from demos import escalado

    assert [escalado._d_desde_log(x) for x in (0, 1, 6, 9, 12)] == [1, 2, 64, 512, 4096]
    assert escalado._log_desde_d(512, 1) == 9 and escalado._log_desde_d(100, 1) == 6.5  # log₂ 100 ≈ 6.64
    assert isinstance(escalado._log_desde_d(64, 6), type(gr.skip()))  # ya coincide: no se mueve
    with gr.Blocks() as demo:
        vista = escalado.construir()
    botones = [b.value for b in demo.blocks.values() if isinstance(b, gr.Button)]
    assert botones == ["d = 2", "d = 64", "d = 512"]
    assert vista.url["d"].value == 64  # abre donde se ve el problema; los botones saltan a 2, 64 y 512
    (deslizador,) = [b for b in demo.blocks.values() if isinstance(b, gr.Slider) and b.maximum == escalado.LOG2_D_MAX]
    posiciones = np.arange(deslizador.minimum, deslizador.maximum + deslizador.step / 2, deslizador.step)
    assert escalado.d_del_deslizador() == tuple(escalado._d_desde_log(x) for x in posiciones)  # lo que da la página
    assert len(escalado.d_del_deslizador()) == 25 and set(escalado.D_LECCION) <= set(escalado.d_del_deslizador())


# --- el gradiente (#25.1) ---------------------------------------------------------------------------


def test_el_jacobiano_por_autograd_es_el_de_torch_y_el_de_la_formula():
    """Caso pequeño: 3 filas de 4 puntajes; jacobiano de autograd = torch.autograd.functional.jacobian
    = diag(p) − p·pᵀ."""
    import torch

    from modelos.gradiente import jacobiano_softmax, norma_gradiente

    s = torch.randn(3, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    J = jacobiano_softmax(s)
    for i in range(3):
        referencia = torch.autograd.functional.jacobian(lambda f: torch.softmax(f, dim=-1), s[i])
        p = torch.softmax(s[i], dim=-1)
        assert torch.allclose(J[i], referencia, atol=1e-12)
        assert torch.allclose(J[i], torch.diag(p) - torch.outer(p, p), atol=1e-12)
    assert torch.allclose(norma_gradiente(s), J.flatten(1).norm(dim=1))


def test_sin_escala_el_gradiente_se_apaga_y_con_escala_no():
    """Las mismas 1 000 consultas de la tabla: a d = 512 la mediana de ‖∂p/∂s‖ sin escala es < 10⁻³; con escala,
    la de pesos casi parejos."""
    import torch

    from demos.escalado import calcular_gradiente, gradientes
    from modelos.gradiente import norma_gradiente

    g = gradientes(8, 0)
    i = DIMENSIONES_CURVA.index(512)
    m = medir(512, 8, 0)  # las mismas muestras: la lección sortea d = 2 y 64 antes que 512
    punto = torch.tensor(m["punto"]).view(CONSULTAS, 8)
    assert g["mediana_sin"][i] == pytest.approx(norma_gradiente(punto).median().item())
    assert g["mediana_con"][i] == pytest.approx(norma_gradiente(punto / math.sqrt(512)).median().item())
    assert g["mediana_sin"][i] < 1e-3 < 0.3 < g["mediana_con"].min()
    assert (np.diff(g["mediana_sin"][DIMENSIONES_CURVA.index(8) :]) < 0).all()  # desde d = 8, baja siempre
    figura, texto = calcular_gradiente()
    assert isinstance(figura, Curvas) and figura.log_y and len(figura.curvas) == 4
    assert figura.curvas[0].y.tolist() == g["mediana_sin"].tolist()
    assert f"**{g['mediana_sin'][i]:.1e}** con d = 512" in texto
    assert "{y}" in figura.pista  # el valor de cada punto al pasar el ratón


def test_la_seccion_del_gradiente_tiene_su_id_estable():
    import gradio as gr

    from demos import escalado

    with gr.Blocks() as demo:
        escalado.construir()
    assert "escalado-gradiente" in {b.elem_id for b in demo.blocks.values()}


def _esperar_la_tabla():
    for hilo in threading.enumerate():
        if hilo.name == "escalado-curvas":
            hilo.join()


def test_la_curva_de_otras_claves_sale_de_la_tabla_sin_sortear(monkeypatch):
    """La curva (semilla 0) depende solo del número de claves: tras la primera con otro número que el
    inicial, las demás salen de la tabla de todas, sin volver a sortear 1 000 consultas por cada d."""
    curva(11, 0)
    _esperar_la_tabla()
    sorteos = []
    original = escalado._sorteo
    monkeypatch.setattr(escalado, "_sorteo", lambda *a: sorteos.append(a) or original(*a))
    curva(13, 0), curva(40, 0)
    assert sorteos == []


@pytest.mark.parametrize("claves", [2, 3, 5, 8, 17, 64])
def test_la_tabla_de_curvas_da_los_mismos_numeros_que_una_por_una(claves):
    """Exacta: las claves de CLAVES_MAX recortadas y las consultas compartidas dan los mismos bits."""
    curva(9, 0)
    _esperar_la_tabla()
    sin, con = escalado._curva.__wrapped__(claves, 0)  # sin caché: medir para cada d
    assert curva(claves, 0)[0].tolist() == sin.tolist() and curva(claves, 0)[1].tolist() == con.tolist()
