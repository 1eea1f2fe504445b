"""De x a Q, K y V: la antidiagonal sale de las proyecciones entrenadas; con K = Q, la diagonal; qkv = w_q, w_k, w_v."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from demos.proyecciones import APRENDER, LECCION, calcular, con_t, correr, leer_digitos
from modelos import AtencionMulticabeza, TransformerJuguete, cargar
from modelos import proyecciones as pr
from modelos.entrenamiento.inversion import entrenar_inversion, validacion_inversion
from modelos.formato import miles

L = 8
ESPEJO = tuple((i, L - 1 - i) for i in range(L))
DIAGONAL = tuple((i, i) for i in range(L))
OTRAS = ("0 1 2 3 4 5 6 7", "1 1 1 1 1 1 1 1", "5 0 5 0 9 9 2 7")


def _leccion() -> tuple[int, ...]:
    return tuple(leer_digitos(LECCION))


@pytest.mark.parametrize("cabeza", ["1", "2"])
@pytest.mark.parametrize("digitos", [LECCION, *OTRAS])
def test_la_k_entrenada_dibuja_la_antidiagonal_y_k_igual_a_q_la_diagonal(digitos, cabeza):
    figura, texto, *_ = calcular(digitos, cabeza, 0)
    assert figura.paneles[1].marcas == ESPEJO  # el peso mayor de cada fila, recuadrado: su espejo
    assert "**8 de 8** filas miran sobre todo a su espejo" in texto and "q_i·k_j ≠ q_j·k_i" in texto
    figura, texto, *_ = calcular(digitos, cabeza, 1)
    puntajes, pesos = (p.matriz for p in figura.paneles)
    assert figura.paneles[1].marcas == DIAGONAL and "**8 de 8** filas miran sobre todo a sí mismas" in texto
    assert np.array_equal(puntajes, puntajes.T)  # K = Q: q_i·q_j = q_j·q_i
    assert "a lo sumo **4 de 8** filas podrían preferir su espejo" in texto and "aquí lo prefieren 0." in texto


def test_los_pesos_son_los_que_calcula_el_modelo_entero():
    """Los pesos armados desde x, LayerNorm y qkv son los que devuelve `TransformerJuguete(con_pesos=True)`."""
    modelo = cargar("inversion-digitos")
    r = correr(_leccion())
    with torch.inference_mode():
        _, pesos = modelo(torch.tensor([_leccion()]), con_pesos=True)  # [(1, cabezas, L, L)]
    assert np.allclose(r["pesos"], pesos[0][0].numpy(), atol=1e-6)
    x = modelo.fichas(torch.tensor(_leccion())) + modelo.posicion.weight  # (L, d)
    assert np.allclose(r["x"], x.detach().numpy()) and np.allclose(sum(r["sumandos"]), r["x"])
    embedding, *_ = calcular()[2].paneles  # la figura de x: embedding, + posición, = x, Q, K
    assert np.allclose(embedding.matriz, np.round(modelo.fichas.weight[list(_leccion())].detach().numpy(), 1))


def test_cada_parada_de_t_y_su_texto_dicen_lo_mismo_que_la_figura():
    r = correr(_leccion())
    for k in range(21):
        t = round(k * 0.05, 2)
        figura, texto, *_ = calcular(LECCION, "1", t)
        S, pesos = con_t(r, 0, t)
        assert np.allclose(figura.paneles[0].matriz, np.round(S, 1)) and np.allclose(
            figura.paneles[1].matriz, pesos, atol=1e-3
        )
        espejo, propia = pr.cuantas_miran(pesos)
        assert re.findall(r"\*\*(\d+) de 8\*\* filas miran? sobre todo", texto) == [str(espejo), str(propia)]
        if t < 1:  # la casilla que el texto cita, y su traspuesta
            i, j, a, b = re.search(
                r"fila (\d) con la columna (\d) es (\S+) y el de la fila \d con la columna \d, (\S+) \(", texto
            ).groups()
            assert (numero_de(a), numero_de(b)) == pytest.approx((S[int(i), int(j)], S[int(j), int(i)]), abs=0.006)


def numero_de(texto: str) -> float:
    return float(texto.replace("−", "-"))


def test_mezclar_las_claves_es_mezclar_las_proyecciones():
    """(1 − t)·K + t·Q = LN(x)·W(t)ᵀ + b(t) con W(t) = (1 − t)·W_k + t·W_q: t mueve la proyección, no los datos."""
    modelo = cargar("inversion-digitos")
    qkv = modelo.bloques[0].atencion.qkv
    _, normada = pr.entrada_de_la_atencion(modelo, torch.tensor(_leccion()))
    q, k, _ = pr.proyectar(qkv, normada)
    (W_q, W_k, _), (b_q, b_k, _) = qkv.weight.split(32), qkv.bias.split(32)
    for t in (0.0, 0.35, 1.0):
        with torch.no_grad():
            con_w = F.linear(normada, (1 - t) * W_k + t * W_q, (1 - t) * b_k + t * b_q)
        assert torch.allclose(pr.mezclar(q, k, t), con_w, atol=1e-5)


# --- qkv, w_q/w_k/w_v y PyTorch ------------------------------------------------------------------------------


class AtencionDelTutorial(nn.Module):
    """La multicabeza del tutorial (§2.2), sin dropout: tres capas w_q, w_k, w_v y w_o."""

    def __init__(self, d: int, cabezas: int):
        super().__init__()
        self.h, self.d_k = cabezas, d // cabezas
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x):
        B = x.shape[0]
        Q, K, V = (w(x).view(B, -1, self.h, self.d_k).transpose(1, 2) for w in (self.w_q, self.w_k, self.w_v))
        pesos = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.d_k), dim=-1)  # (B, h, L, L)
        o = (pesos @ V).transpose(1, 2).reshape(B, -1, self.h * self.d_k)
        return self.w_o(o), pesos


@pytest.mark.parametrize(("d", "cabezas"), [(32, 2), (16, 4), (8, 1)])
def test_qkv_de_la_leccion_es_w_q_w_k_w_v_del_tutorial_apiladas(d, cabezas):
    torch.manual_seed(d + cabezas)
    leccion = AtencionMulticabeza(d, cabezas)
    tutorial = AtencionDelTutorial(d, cabezas)
    w_q, w_k, w_v = pr.separar_qkv(leccion.qkv)
    tutorial.w_q, tutorial.w_k, tutorial.w_v = w_q, w_k, w_v
    tutorial.w_o.load_state_dict(leccion.salida.state_dict())
    x = torch.randn(3, 5, d)
    with torch.no_grad():
        y, pesos = leccion(x)
        y_tut, pesos_tut = tutorial(x)
        juntada = pr.juntar_qkv(w_q, w_k, w_v)
    assert torch.allclose(y, y_tut, atol=1e-6) and torch.allclose(pesos, pesos_tut, atol=1e-6)
    assert torch.equal(juntada.weight, leccion.qkv.weight) and torch.equal(juntada.bias, leccion.qkv.bias)
    assert sum(p.numel() for p in leccion.qkv.parameters()) == sum(
        p.numel() for w in (w_q, w_k, w_v) for p in w.parameters()
    )


def test_la_capa_entrenada_da_lo_mismo_que_multiheadattention_y_sdpa():
    modelo = cargar("inversion-digitos")
    atencion = modelo.bloques[0].atencion
    _, normada = pr.entrada_de_la_atencion(modelo, torch.tensor(_leccion()))  # (L, d)
    oficial = nn.MultiheadAttention(32, 2, batch_first=True).eval()
    with torch.no_grad():
        oficial.in_proj_weight.copy_(atencion.qkv.weight)  # la misma matriz (96, 32)
        oficial.in_proj_bias.copy_(atencion.qkv.bias)
        oficial.out_proj.load_state_dict(atencion.salida.state_dict())
        suya, pesos_suyos = oficial(normada[None], normada[None], normada[None], average_attn_weights=False)
        nuestra, pesos = atencion(normada[None])
        q, k, v = (pr.de_la_cabeza(t, 0, 2) for t in pr.proyectar(atencion.qkv, normada))  # la cabeza 1, (L, 16)
        sdpa = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
    assert torch.allclose(nuestra, suya, atol=1e-5) and torch.allclose(pesos, pesos_suyos, atol=1e-6)
    _, pesos_1 = pr.puntajes_y_pesos(q, k)
    assert np.allclose(pesos_1, pesos[0, 0].numpy(), atol=1e-6) and torch.allclose(
        sdpa, torch.from_numpy(pesos_1) @ v, atol=1e-5
    )
    r = correr(_leccion())
    assert r["tutorial"] == 0 and r["pytorch"] < 1e-6 and r["parametros"] == 96 * 32 + 96


def test_el_texto_de_qkv_dice_las_filas_y_las_diferencias_medidas():
    _, _, _, texto, *_ = calcular()
    assert "`qkv.weight` mide 96 × 32, y sus filas 0–31 son W_q, 32–63 son W_k, 64–95 son W_v" in texto
    assert (
        f"dan los mismos Q, K y V (idénticos, bit a bit), con los mismos {miles(3 * 32 * 32 + 3 * 32)} parámetros"
        in texto
    )
    assert re.search(
        r"los pesos de sus 2 cabezas son los de aquí \((idénticos, bit a bit|difieren en \d\.\de−0[6-9])\)\.", texto
    )


# --- K = Q: por qué no alcanza una sola proyección -------------------------------------------------------


def test_con_k_igual_a_q_ninguna_w_hace_que_mas_de_la_mitad_prefiera_su_espejo():
    """Cauchy–Schwarz: q_i·q_j ≤ max(|q_i|², |q_j|²). Ni al azar ni optimizando Q pasa de una fila por par."""
    torch.manual_seed(0)
    for _ in range(200):
        assert pr.preferirian_el_espejo(torch.randn(L, 16)) <= pr.cota_con_k_igual_a_q(L)
    Q = torch.randn(L, 16, requires_grad=True)
    opt = torch.optim.Adam([Q], lr=0.05)
    i = torch.arange(L)
    for _ in range(300):  # subir el puntaje del espejo por encima del propio en todas las filas
        S = Q @ Q.T
        perdida = F.softplus(S[i, i] - S[i, L - 1 - i] + 1).sum()
        opt.zero_grad()
        perdida.backward()
        opt.step()
    assert pr.preferirian_el_espejo(Q.detach()) <= 4


def test_la_cota_de_la_mitad_se_alcanza():
    """En cada par de espejos, una q corta en la dirección de una larga: la corta prefiere a su espejo."""
    Q = torch.zeros(L, L)
    for i in range(L // 2):
        Q[i, i], Q[L - 1 - i, i] = 1.0, 2.0  # q_i · q_{7−i} = 2 > |q_i|² = 1
    assert pr.preferirian_el_espejo(Q) == pr.cota_con_k_igual_a_q(L) == 4


def test_entrenado_con_k_igual_a_q_aprende_a_invertir_con_un_mapa_en_x():
    """Lo que dice la explicación: K = Q limita el mapa (a lo sumo 4 de 8 filas por cabeza miran sobre todo a su
    espejo, y se alcanza), no la tarea. Con la receta de la lección (2 épocas, semilla 0; ≈ 6 s), acierta todo y
    cada fila reparte su peso entre sí misma y su espejo."""
    torch.manual_seed(0)
    modelo = pr.con_k_igual_a_q(TransformerJuguete())
    *_, final = entrenar_inversion(modelo, epocas=2, secuencias_por_epoca=20_000, cada=1_000)
    assert final["secuencias"] >= 0.99
    X, _ = validacion_inversion()
    with torch.inference_mode():
        _, (pesos,) = modelo(X[:500], con_pesos=True)  # (500, 2, L, L)
    i = torch.arange(L)
    al_espejo = (pesos.argmax(dim=-1) == L - 1 - i).sum(dim=-1)  # (500, 2)
    assert al_espejo.max() == pr.cota_con_k_igual_a_q(L)
    espejo, propia = pesos[..., i, L - 1 - i].mean().item(), pesos[..., i, i].mean().item()
    assert espejo > 0.3 and propia > 0.3 and espejo + propia > 0.85  # la X: la diagonal y la antidiagonal


def test_antes_de_entrenar_y_sin_proyeccion_no_hay_antidiagonal():
    *_, figura, texto = calcular()
    entrenada, antes, sin = (p.matriz for p in figura.paneles)
    assert pr.cuantas_miran(entrenada)[0] == 8
    assert antes.max() < 0.4 and pr.cuantas_miran(antes)[0] < 4
    assert pr.cuantas_miran(sin) == (0, 8)  # Q = K = LN(x): también una proyección compartida
    assert (
        f"ningún peso pasa de {antes.max():.2f}" in texto and "**8 de 8** filas miran sobre todo a sí mismas" in texto
    )


# --- entrada, y lo que se aprende --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argumentos", "motivo"),
    [
        ({"digitos": "8 3 3 9"}, "Hay 4 dígitos"),
        ({"digitos": "8 3 3 9 6 9 4 a"}, "«a» no es un dígito"),
        ({"digitos": "³" * 8}, "no es un dígito"),
        ({"digitos": "1" * 10_000}, "texto corto"),
        ({"digitos": None}, "texto corto"),
        ({"cabeza": "3"}, "La cabeza debe ser uno de 1, 2"),
        ({"cabeza": "promedio"}, "La cabeza"),
        ({"t": 1.5}, "t debe ser un número entre 0 y 1"),
        ({"t": float("nan")}, "t debe ser"),
        ({"t": "mucho"}, "t debe ser"),
    ],
)
def test_entrada_mala_da_un_motivo_en_espanol(argumentos, motivo):
    with pytest.raises(ValueError, match=motivo):
        calcular(**argumentos)


def test_las_respuestas_salen_de_lo_que_muestra_la_pestana():
    assert APRENDER.prediccion.cifras() == {"respuesta": "si-misma", "propia": 8, "espejo": 0}
    w_k, cota, iguales = (p.cifras() for p in APRENDER.preguntas)
    assert iguales == {"respuesta": 8}  # con los dígitos iguales, la posición sola da la antidiagonal
    assert w_k == {"respuesta": "32-63", "desde": "32", "hasta": "63"}
    assert cota == {"respuesta": 4, "aqui": 0}
