"""El laboratorio de fallos (§7.2) y la comparación de cabezas (§7.1) de «Entrénalo tú».

Entrenamientos cortos (20–40 pasos, un hilo): cada prueba corre en segundos en dos núcleos.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from demos.comun.figuras import Curvas, Paneles
from demos.inversion_digitos import fallos as F_
from modelos.convenciones import mascaras_de_relleno
from modelos.entrenamiento.fallos import (
    ENTROPIA_PAREJA,
    PERDIDA_AL_AZAR,
    Fallo,
    entrenar_con_fallo,
    entropia,
    mascara,
    modelo_con_fallo,
    tasa_en,
)


def test_la_entropia_es_la_de_torch_en_bits_y_una_fila_tapada_no_cuenta():
    pesos = torch.softmax(torch.randn(3, 2, 8, 8, generator=torch.Generator().manual_seed(0)), dim=-1)
    de_torch = torch.distributions.Categorical(probs=pesos).entropy() / math.log(2)  # (3, 2, 8), en bits
    assert entropia(pesos) == pytest.approx(de_torch.mean().item(), rel=1e-5)
    assert entropia(torch.full((8, 8), 1 / 8)) == pytest.approx(ENTROPIA_PAREJA) == 3.0
    assert entropia(torch.eye(8)) == pytest.approx(0.0, abs=1e-9)
    assert entropia(torch.zeros(2, 8, 8)) is None  # todo tapado: no mira a nada
    mitad = torch.cat([torch.full((4, 8), 1 / 8), torch.zeros(4, 8)])
    assert entropia(mitad) == pytest.approx(3.0)


def test_la_mascara_invertida_es_la_attention_mask_de_hugging_face_sin_convertir():
    x = torch.randint(0, 10, (2, 8), generator=torch.Generator().manual_seed(1))
    hf = mascaras_de_relleno([8, 8])["hugging_face"]  # sin relleno: todo 1 = conservar
    assert torch.equal(mascara(Fallo(mascara_invertida=True), x)[:, 0, 0], hf.bool())
    assert mascara(Fallo(), x) is None


def test_sin_layernorm_quita_las_tres_y_sus_parametros():
    con, sin = modelo_con_fallo(Fallo()), modelo_con_fallo(Fallo(sin_layernorm=True))
    assert not any(isinstance(m, torch.nn.LayerNorm) for m in sin.modules())
    contar = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert contar(con) == 13674 and contar(con) - contar(sin) == 3 * 2 * 32  # γ y β de 3 LayerNorm
    assert modelo_con_fallo(Fallo(sin_posicion=True)).posicion is None


def test_warmup_sube_lineal_y_baja_en_coseno_hasta_cero():
    f = Fallo(calentamiento=True)
    tasas = [tasa_en(p, 100, f) for p in range(100)]
    assert tasas[0] == pytest.approx(1e-4) and tasas[9] == pytest.approx(1e-3) == max(tasas)
    assert np.all(np.diff(tasas[9:]) <= 0) and tasas[-1] < 1e-6
    assert tasas[10 + 45] == pytest.approx(1e-3 * 0.5 * (1 + math.cos(math.pi * 45 / 90)))
    assert {tasa_en(p, 100, Fallo()) for p in range(100)} == {1e-3}
    assert tasa_en(0, 100, Fallo(tasa_alta=True)) == 0.1


def test_con_la_mascara_invertida_la_perdida_no_baja_de_ln_10():
    """Toda clave tapada: la atención no aporta nada y cada posición solo ve su dígito, que no dice nada del
    espejo: la pérdida se queda en ln 10 y acierta 1 de cada 10."""
    *pasos, final = entrenar_con_fallo(Fallo(mascara_invertida=True), pasos=40)
    assert all(p["entropia"] is None for p in pasos)
    assert abs(np.mean([p["perdida"] for p in pasos[-10:]]) - PERDIDA_AL_AZAR) < 0.05
    assert abs(final["digitos"] - 0.1) < 0.03


def test_el_laboratorio_transmite_curvas_y_nombra_el_sintoma_de_la_faq():
    informes = list(F_.laboratorio(mascara_invertida=True, pasos=30))
    figura, texto, avance = informes[-1]
    assert avance == 1.0 and all(0 <= a < 1 for *_, a in informes[:-1])
    assert isinstance(figura, Paneles) and all(isinstance(p, Curvas) for p in figura.paneles)
    perdida, entropia_ = figura.paneles
    assert perdida.curvas[0].x.tolist() == list(range(1, 31))
    assert not entropia_.curvas and "todas las claves tapadas" in entropia_.mensaje
    assert "«la pérdida no baja»: **sí**" in texto and "→ «la pérdida no baja»: se reproduce." in texto


def test_el_diagnostico_sale_de_las_cuentas():
    historia = [{"paso": p, "perdida": 0.1, "entropia": 2.9} for p in range(1, 21)]
    texto = F_.diagnostico(historia, Fallo(tasa_alta=True), {"digitos": 1.0, "secuencias": 1.0})
    assert "pérdida 0.100" in texto and "entropía de la atención 2.90 bits" in texto
    assert "«la pérdida no baja»: **no**" in texto and "«los pesos quedan parejos»: **sí**" in texto
    assert "→ «los pesos quedan parejos»: se reproduce." in texto
    historia[-1]["perdida"] = float("nan")  # una pérdida que explota no llega a la figura
    x, _ = F_._puntos(historia, "perdida")
    assert x == list(range(1, 20))


@pytest.mark.parametrize(
    ("kw", "mensaje"),
    [
        ({"pasos": 5}, "de 20 a 600"),
        ({"pasos": 10**9}, "de 20 a 600"),
        ({"pasos": 2.5}, "entero"),
        ({"tasa_alta": "sí"}, "verdadero o falso"),
    ],
)
def test_entrada_mala_da_valueerror_en_espanol(kw, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        next(F_.laboratorio(**kw))


def test_comparar_cabezas_mismo_d_modelo_mismos_parametros():
    *_, (figura, texto, avance) = F_.comparar_cabezas(pasos=20)
    assert avance == 1.0 and [c.nombre for c in figura.curvas] == [
        "1 cabeza (d_k = 32)",
        "2 cabezas (d_k = 16)",
        "4 cabezas (d_k = 8)",
        "8 cabezas (d_k = 4)",
    ]
    filas = [f for f in texto.splitlines() if f.startswith("| ") and f[2].isdigit()]
    assert [f.split(" | ")[1] for f in filas] == ["32", "16", "8", "4"]
    assert all("13\u202f674" in f for f in filas) and "Los parámetros no cambian" in texto
    for fila, curva in zip(filas, figura.curvas, strict=True):  # la pérdida final es la de la curva
        assert fila.split(" | ")[3] == f"{np.mean(curva.y[-2:]):.3f}"


def test_la_pestana_los_pone_en_la_fila_de_los_entrenamientos():
    import gradio as gr

    from demos.inversion_digitos.pestana import construir

    with gr.Blocks() as demo:
        construir()
    ids = {getattr(b, "elem_id", None) for b in demo.blocks.values()}
    assert {"inversion-digitos-fallos", "inversion-digitos-cabezas"} <= ids
    pesados = [f for f in demo.fns.values() if f.name in ("laboratorio_aqui", "cabezas_aqui")]
    assert len(pesados) == 2
    assert all(f.concurrency_id == "entrenar" and f.concurrency_limit == 1 for f in pesados)


@pytest.mark.navegador
def test_en_el_navegador_el_laboratorio_entrena_y_nombra_el_sintoma(pagina, url_app):
    pagina.goto(f"{url_app}demo/inversion-digitos/")
    lab = pagina.locator("#inversion-digitos-fallos")
    # La casilla por su nombre: la explicación del laboratorio también nombra la «máscara invertida», y un clic en
    # ese texto no la marcaba (el laboratorio entrenaba «sin fallos encendidos»).
    lab.get_by_role("checkbox", name="Máscara invertida").first.check()
    pasos = lab.locator("input[type=number]").first
    pasos.fill("20")
    pasos.press("Enter")
    lab.get_by_role("button", name="Entrenar con estos fallos").click()
    lab.get_by_text("→ «la pérdida no baja»: se reproduce.").first.wait_for(timeout=120_000)
    assert "media de los últimos 2 pasos" in lab.inner_text()  # 20 pasos: el último 10 %
    assert lab.locator(".js-plotly-plot").count() == 1
    assert pagina.errores == []


def test_la_mascara_invertida_dice_que_tapa_todo_y_que_solo_corre_por_los_ceros_de_modelos():
    """Sin relleno, la máscara invertida tapa todas las claves: con el softmax a mano daría NaN; el laboratorio entrena
    porque `modelos.atencion` deja en ceros la fila toda tapada. El texto lo dice con esos números, calculados."""
    from demos.inversion_digitos.fallos import _nota_mascara, diagnostico, fila_toda_tapada
    from modelos.entrenamiento.fallos import Fallo

    assert fila_toda_tapada() == {"tapadas": "100 %", "a_mano": "NaN", "modelos": "ceros"}
    nota = _nota_mascara()
    assert "tapa el 100 % de las claves" in nota and "da NaN" in nota and "deja esa fila en ceros" in nota
    historia = [{"paso": 1, "perdida": 2.3, "entropia": None}]
    final = {"digitos": 0.1, "secuencias": 0.0}
    assert nota in diagnostico(historia, Fallo(mascara_invertida=True), final)
    assert nota not in diagnostico(historia, Fallo(), final)


# --- sin atajos residuales (tutorial §7.1: «una condición necesaria para entrenar Transformers profundos») ------


def test_sin_atajos_cada_bloque_pierde_sus_dos_sumas_y_ningun_parametro():
    con = modelo_con_fallo(Fallo(), bloques=4).eval()
    sin = modelo_con_fallo(Fallo(sin_residual=True), bloques=4).eval()
    assert len(sin.bloques) == 4 and not any(b.residual for b in sin.bloques) and all(b.residual for b in con.bloques)
    assert torch.equal(
        torch.cat([p.flatten() for p in con.parameters()]), torch.cat([p.flatten() for p in sin.parameters()])
    )
    x = torch.randint(0, 10, (3, 8), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        z = sin.fichas(x) + sin.posicion(torch.arange(8))  # (3, 8, 32)
        for b in sin.bloques:  # y = MLP(LN(Atención(LN(z)))), sin sumar z en ningún paso
            z = b.mlp(b.norma2(b.atencion(b.norma1(z))[0]))
        assert torch.allclose(sin(x), sin.salida(sin.norma(z)), atol=1e-6)
        assert (sin(x) - con(x)).abs().max() > 0.1  # los mismos pesos: lo único distinto son los atajos


def test_sin_atajos_con_4_bloques_las_posiciones_salen_iguales_y_la_perdida_no_baja():
    """Lo que dice el diagnóstico, en una corrida corta y fija: sin atajos, las 8 posiciones salen del último bloque
    iguales (antes y después de entrenar), predice el mismo dígito en las 8 y la pérdida se queda arriba del umbral;
    el mismo modelo con atajos, en los mismos pasos, baja de él."""
    *pasos, final = entrenar_con_fallo(Fallo(sin_residual=True), pasos=60, bloques=4)
    assert final["bloques"] == 4 and final["diferencia_inicial"] < 1e-5 and final["diferencia_final"] < 1e-3
    assert final["mismo_digito"] > 0.99 and final["digitos"] < 0.4 and final["secuencias"] == 0.0
    assert np.mean([p["perdida"] for p in pasos[-6:]]) > F_.NO_BAJA
    *pasos_con, final_con = entrenar_con_fallo(Fallo(), pasos=60, bloques=4)
    assert final_con["diferencia_final"] > 0.5 and final_con["mismo_digito"] < 0.2
    assert np.mean([p["perdida"] for p in pasos_con[-6:]]) < F_.NO_BAJA and final_con["digitos"] > 0.6


def test_sin_atajos_con_1_bloque_aprende_igual():
    *pasos, final = entrenar_con_fallo(Fallo(sin_residual=True), pasos=60)
    assert final["bloques"] == 1 and final["diferencia_final"] > 0.1 and final["digitos"] > 0.8
    assert np.mean([p["perdida"] for p in pasos[-6:]]) < F_.NO_BAJA


def test_el_diagnostico_sin_atajos_dice_lo_medido_en_la_corrida():
    *_, (figura, texto, _) = F_.laboratorio(sin_residual=True, pasos=30, bloques=4)
    assert figura.titulo.startswith("Con estos fallos (4 bloques), tras 30 pasos")
    assert "**Sin atajos residuales, con 4 bloques:**" in texto and "**iguales** antes de entrenar" in texto
    assert "en 100.0 % de las secuencias" in texto and "**La pérdida no baja:**" in texto
    assert "«la pérdida no baja»: **sí**" in texto and "Sin fallos encendidos" not in texto
    historia = [{"paso": p, "perdida": 0.1, "entropia": 1.5} for p in range(1, 11)]
    final = {"digitos": 0.99, "secuencias": 0.9, "mismo_digito": 0.0, "bloques": 1}
    uno = F_.diagnostico(
        historia, Fallo(sin_residual=True), {**final, "diferencia_inicial": 0.24, "diferencia_final": 0.7}
    )
    assert "**Aprende igual:**" in uno and "diferencia relativa 0.24 antes de entrenar, 0.70 al final" in uno
    assert "elige 4 bloques" in uno and "en 0.0 % de las secuencias" in uno
    alta = [{"paso": p, "perdida": 2.2, "entropia": 1.5} for p in range(1, 11)]  # la pérdida no baja
    distintas = {**final, "bloques": 1, "diferencia_inicial": 0.2, "diferencia_final": 0.3}
    otra = F_.diagnostico(alta, Fallo(sin_residual=True, sin_posicion=True), distintas)
    assert "mira los otros fallos encendidos" in otra and "cada atención mezcla" not in otra  # no se la achaca
    ceros = F_.diagnostico(alta, Fallo(sin_residual=True, mascara_invertida=True), {**distintas, "bloques": 4})
    assert "a ninguna posición le llega su propio vector" in ceros


@pytest.mark.parametrize("bloques", [2, 0, 4.5, "cuatro", True, None])
def test_bloques_que_no_son_1_o_4_dan_valueerror_en_espanol(bloques):
    with pytest.raises(ValueError, match="Los bloques del modelo deben ser 1 o 4"):
        next(F_.laboratorio(sin_residual=True, bloques=bloques))
    with pytest.raises(ValueError, match="«bloques» debe ser 1 o 4"):
        entrenar_con_fallo(Fallo(), bloques=bloques if bloques != 4.5 else 3)


@pytest.mark.navegador
def test_en_el_navegador_sin_atajos_con_4_bloques_dice_lo_medido(pagina, url_app):
    from tests.ayuda_navegador import carpeta_capturas, guardar_captura

    pagina.set_viewport_size({"width": 1280, "height": 800})
    pagina.goto(f"{url_app}demo/inversion-digitos/")
    lab = pagina.locator("#inversion-digitos-fallos")
    lab.get_by_role("checkbox", name="Sin atajos residuales").check()
    lab.get_by_role("radio", name="4").check()
    pasos = lab.locator("input[type=number]").first
    pasos.fill("20")
    pasos.press("Enter")
    lab.get_by_role("button", name="Entrenar con estos fallos").click()
    lab.get_by_text("Sin atajos residuales, con 4 bloques:").first.wait_for(timeout=120_000)
    texto = lab.inner_text()
    assert "iguales antes de entrenar" in texto and "La pérdida no baja:" in texto
    lab.scroll_into_view_if_needed()
    guardar_captura(pagina, carpeta_capturas() / "inversion-digitos-sin-atajos.png")
    assert pagina.errores == []


def test_el_diagnostico_pone_cada_parrafo_fuera_de_la_lista_y_con_la_mascara_sin_atajos_no_culpa_al_atajo():
    """Un párrafo tras un punto de la lista va tras una línea en blanco (si no, Markdown lo mete en el punto); con
    la máscara invertida y sin atajos, la nota de la máscara no dice que el vector llega «por la conexión residual»."""
    from demos.inversion_digitos.fallos import diagnostico

    historia = [{"paso": 1, "perdida": 2.3, "entropia": 2.9}]
    final = {
        "digitos": 0.1,
        "secuencias": 0.0,
        "bloques": 4,
        "diferencia_inicial": 1e-7,
        "diferencia_final": 1e-7,
        "mismo_digito": 1.0,
    }
    for fallo in (Fallo(mascara_invertida=True), Fallo(mascara_invertida=True, sin_residual=True), Fallo()):
        lineas = diagnostico(historia, fallo, final).split("\n")
        for antes, linea in itertools.pairwise(lineas):
            assert not (antes.startswith("- ") and linea and not linea.startswith("- ")), (antes, linea)
    texto = diagnostico(historia, Fallo(mascara_invertida=True, sin_residual=True), final)
    assert "por la conexión residual" not in texto and "ni su propio vector" in texto
    assert "por la conexión residual" in diagnostico(historia, Fallo(mascara_invertida=True), final)
