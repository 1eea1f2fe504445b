"""El clasificador con agrupación por atención (lección §6), sus datos, su checkpoint y la lectura de frases.

La agrupación se compara con el cálculo directo: softmax de los puntajes de las palabras reales y
suma ponderada. Las metas del checkpoint se miden en la partición de prueba, que el entrenamiento no vio.
"""

from __future__ import annotations

import pytest
import torch

from modelos import AgrupacionAtencion, ClasificadorAtencion, cargar
from modelos import prediccion as pred
from modelos.entrenamiento.opiniones import codificar, entrenar_clasificador, vocabulario_entrenamiento
from modelos.hub import CARPETA
from modelos.opiniones import CLASES, CLAVES_SENTIMIENTO, POLARIDAD, opiniones, particiones
from modelos.vocabulario import DESCONOCIDA, RELLENO, Vocabulario, tokenizar

NOMBRE = "clasificador-opiniones"


def relleno_de(largos: list[int], L: int) -> torch.Tensor:
    return torch.arange(L)[None, :] >= torch.tensor(largos)[:, None]  # (B, L), True = relleno


# ---------------------------------------------------------------- AgrupacionAtencion


@pytest.mark.parametrize(("largos", "L", "d"), [([1], 1, 4), ([7, 3, 5], 7, 8), ([12, 1], 12, 16), ([4, 4], 9, 2)])
def test_agrupacion_igual_al_calculo_directo(largos, L, d):
    g = torch.Generator().manual_seed(len(largos) * L + d)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(d)
        agrupacion = AgrupacionAtencion(d)
    h = torch.randn(len(largos), L, d, generator=g)
    vector, pesos = agrupacion(h, relleno_de(largos, L))
    w, b = agrupacion.puntaje.weight[0], agrupacion.puntaje.bias[0]
    for i, n in enumerate(largos):
        puntajes = h[i, :n] @ w + b  # (n,): solo las palabras reales
        esperados = puntajes.exp() / puntajes.exp().sum()
        assert torch.allclose(pesos[i, :n], esperados, atol=1e-6)
        assert torch.equal(pesos[i, n:], torch.zeros(L - n))  # el relleno: exactamente 0
        assert torch.allclose(vector[i], (esperados[:, None] * h[i, :n]).sum(dim=0), atol=1e-6)


def test_agrupacion_sin_mascara_es_softmax_de_todas_las_palabras():
    agrupacion = AgrupacionAtencion(6)
    h = torch.randn(2, 5, 6)
    vector, pesos = agrupacion(h)
    assert torch.allclose(pesos, torch.softmax(agrupacion.puntaje(h).squeeze(-1), dim=-1))
    assert torch.allclose(vector, torch.einsum("bl,bld->bd", pesos, h), atol=1e-6)


def test_anadir_relleno_no_cambia_el_vector_ni_los_pesos_de_las_palabras():
    agrupacion = AgrupacionAtencion(8)
    h = torch.randn(1, 5, 8)
    vector, pesos = agrupacion(h)
    basura = 1e3 * torch.randn(1, 4, 8)  # lo que haya en el relleno no debe importar
    vector_r, pesos_r = agrupacion(torch.cat([h, basura], dim=1), relleno_de([5], 9))
    assert torch.allclose(vector_r, vector, atol=1e-6) and torch.allclose(pesos_r[:, :5], pesos)
    assert torch.equal(pesos_r[:, 5:], torch.zeros(1, 4))


def test_fila_toda_de_relleno_da_ceros_sin_nan():
    agrupacion = AgrupacionAtencion(4)
    vector, pesos = agrupacion(torch.randn(2, 3, 4), relleno_de([3, 0], 3))
    assert not vector.isnan().any() and not pesos.isnan().any()
    assert torch.equal(pesos[1], torch.zeros(3)) and torch.equal(vector[1], torch.zeros(4))
    assert torch.allclose(pesos[0].sum(), torch.tensor(1.0))


# ---------------------------------------------------------------- ClasificadorAtencion


@pytest.mark.parametrize("posicion_aprendida", [True, False])
def test_clasificador_con_relleno_da_lo_mismo_en_las_palabras_reales(posicion_aprendida):
    config = {"vocabulario": 30, "d_modelo": 16, "cabezas": 4, "largo": 12}
    modelo = ClasificadorAtencion(**config, posicion_aprendida=posicion_aprendida).eval()
    x = torch.tensor([[5, 9, 2, 17, 3]])
    con_relleno = torch.cat([x, torch.zeros(1, 4, dtype=torch.long)], dim=1)  # índice 0 = <relleno>
    with torch.inference_mode():
        logits, pesos, atenciones = modelo(x)
        logits_r, pesos_r, atenciones_r = modelo(con_relleno)
    assert torch.allclose(logits_r, logits, atol=1e-5) and torch.allclose(pesos_r[:, :5], pesos, atol=1e-6)
    assert torch.equal(pesos_r[:, 5:], torch.zeros(1, 4))
    for a, a_r in zip(atenciones, atenciones_r, strict=True):
        assert a.shape == (1, 4, 5, 5)
        assert torch.allclose(a_r[:, :, :5, :5], a, atol=1e-6)  # las palabras no miran al relleno
        assert torch.equal(a_r[:, :, :, 5:], torch.zeros(1, 4, 9, 4))


def test_clasificador_con_una_frase_toda_de_relleno_no_da_nan():
    modelo = ClasificadorAtencion(vocabulario=10, d_modelo=8, cabezas=2, largo=6).eval()
    with torch.inference_mode():
        logits, pesos, atenciones = modelo(torch.tensor([[3, 4, 0], [0, 0, 0]]))
    assert not logits.isnan().any() and not pesos.isnan().any() and torch.equal(pesos[1], torch.zeros(3))
    assert all(not a.isnan().any() for a in atenciones)


def test_clasificador_no_guarda_pesos_en_el_modulo_y_rechaza_frases_largas():
    modelo = ClasificadorAtencion(vocabulario=10, d_modelo=8, cabezas=2, largo=6, posicion_aprendida=False)
    antes = set(vars(modelo)) | set(modelo.state_dict())
    modelo(torch.tensor([[1, 2, 3]]))
    assert set(vars(modelo)) | set(modelo.state_dict()) == antes
    assert not any("senos" in k for k in modelo.state_dict())  # la posición sinusoidal no va al checkpoint
    with pytest.raises(ValueError, match="a lo sumo 6"):
        modelo(torch.ones(1, 7, dtype=torch.long))


# ---------------------------------------------------------------- los datos de la gramática


def test_gramatica_es_determinista_por_semilla():
    assert opiniones(300, 5) == opiniones(300, 5)
    assert opiniones(300, 5) != opiniones(300, 6)
    estado = torch.get_rng_state()
    opiniones(50, 7)
    assert torch.equal(torch.get_rng_state(), estado)


def test_particiones_sin_frases_repetidas_entre_ellas():
    p = particiones()
    assert {k: len(v) for k, v in p.items()} == {"entrenamiento": 24_000, "validacion": 2_000, "prueba": 2_000}
    palabras = {k: {" ".join(f for f in o.fichas if f[0].isalnum()) for o in v} for k, v in p.items()}
    assert all(len(palabras[k]) == len(p[k]) for k in p)
    assert not palabras["entrenamiento"] & palabras["prueba"] and not palabras["validacion"] & palabras["prueba"]
    prueba = p["prueba"]
    assert 0.45 < sum(o.etiqueta for o in prueba) / len(prueba) < 0.55
    assert sum(o.negada for o in prueba) > 500 and sum(o.clave is not None for o in prueba) > 500


def test_las_fichas_son_las_del_tokenizador_y_marcan_las_palabras_de_sentimiento():
    for o in particiones()["prueba"]:
        assert tuple(tokenizar(o.texto)) == o.fichas
        assert o.sentimiento and all(o.fichas[i] in CLAVES_SENTIMIENTO for i in o.sentimiento)
        assert sum(f in CLAVES_SENTIMIENTO for f in o.fichas) == len(o.sentimiento)


def test_una_sola_palabra_de_sentimiento_decide_y_la_negacion_la_invierte():
    # «no es buena» es negativa; «nunca me aburrió», positiva.
    vistas = {False: 0, True: 0}
    for o in particiones()["prueba"]:
        if len(o.sentimiento) == 1 and not o.contraste:
            positiva = POLARIDAD[o.fichas[o.sentimiento[0]]] > 0
            assert o.etiqueta == int(positiva != o.negada), o.texto
            vistas[o.negada] += 1
    assert min(vistas.values()) > 200


def test_vocabulario_ida_y_vuelta_y_palabras_desconocidas():
    voc = vocabulario_entrenamiento()
    assert voc.fichas[:2] == (RELLENO, DESCONOCIDA) and 300 < len(voc) < 600
    assert Vocabulario.desde_json(voc.a_json()) == voc
    leidas, recortado = voc.fichas_de("¡Qué PELICULA tan genial! 👍🏽 zzz")
    assert [f.forma for f in leidas] == ["¡", "qué", "película", "tan", "genial", "!", DESCONOCIDA, DESCONOCIDA]
    assert leidas[2].corregida and leidas[6].escrita == "👍🏽" and not recortado


# ---------------------------------------------------------------- el checkpoint


def test_checkpoint_llega_a_sus_metas_en_la_prueba():
    modelo, voc = cargar(NOMBRE), pred.vocabulario()
    prueba = particiones()["prueba"]
    X, y, _ = codificar(prueba, voc)
    assert (X == voc.indices[DESCONOCIDA]).sum() == 0  # el vocabulario del checkpoint cubre la prueba
    with torch.inference_mode():
        logits, pesos, _ = modelo(X.to(next(modelo.parameters()).device))
    acierto = logits.argmax(dim=-1).cpu() == y
    con_clave = [i for i, o in enumerate(prueba) if o.clave is not None]
    en_la_clave = sum(int(pesos[i].argmax()) == prueba[i].clave for i in con_clave) / len(con_clave)
    exactitud = acierto.float().mean().item()
    assert exactitud >= 0.95 and en_la_clave >= 0.90
    negadas = torch.tensor([o.negada for o in prueba])
    tarjeta = (CARPETA / NOMBRE / "README.md").read_text(encoding="utf-8")
    for valor in (exactitud, en_la_clave, acierto[negadas].float().mean().item()):
        assert f"{valor:.2%}" in tarjeta  # la tarjeta dice lo que mide esta prueba


def test_vocabulario_del_checkpoint_es_el_de_la_particion_de_entrenamiento():
    assert pred.vocabulario() == vocabulario_entrenamiento()
    assert cargar(NOMBRE).fichas.num_embeddings == len(pred.vocabulario())


def test_tarjeta_dice_que_los_datos_son_sinteticos_y_de_donde_salen():
    tarjeta = (CARPETA / NOMBRE / "README.md").read_text(encoding="utf-8")
    front_matter = tarjeta.split("---")[1]
    assert "- es" in front_matter and "pipeline_tag: text-classification" in front_matter
    assert "opiniones sintéticas en español" in front_matter
    assert "Datos sintéticos, no un corpus real" in tarjeta and "modelos/opiniones.py" in tarjeta
    assert "exactitud en frases con negación" in tarjeta


def test_entrenar_clasificador_es_determinista():
    datos = particiones()["entrenamiento"][:640]
    X, y, sentimiento = codificar(datos, vocabulario_entrenamiento())

    def uno() -> ClasificadorAtencion:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            modelo = ClasificadorAtencion(vocabulario=len(vocabulario_entrenamiento()), d_modelo=16, cabezas=2)
        entrenar_clasificador(modelo, X, y, sentimiento, epocas=1, tasa=3e-3, decaimiento=0.01)
        return modelo

    a, b = uno().state_dict(), uno().state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


# ---------------------------------------------------------------- leer frases (lo que usa la pestaña)


@pytest.mark.parametrize(
    ("frase", "clase"),
    [
        ("La comida estaba deliciosa.", "positiva"),
        ("El servicio fue horrible.", "negativa"),
        ("La película no es buena.", "negativa"),
        ("La serie no fue nada aburrida.", "positiva"),
        ("Nunca me aburrió este libro.", "positiva"),
        ("El desayuno estaba frío, pero la habitación era muy cómoda.", "positiva"),
    ],
)
def test_predecir_frases_de_ejemplo(frase, clase):
    lectura = pred.predecir(frase)
    assert lectura.clase == clase and lectura.probabilidad > 0.8
    assert sum(lectura.probabilidades) == pytest.approx(1.0) and set(CLASES) == {"negativa", "positiva"}


def test_predecir_da_pesos_de_agrupacion_y_atencion_por_bloque_y_cabeza():
    lectura = pred.predecir("Me encantó la novela, la leí en dos días.")
    L = len(lectura.fichas)
    assert [lectura.texto[f.inicio : f.fin] for f in lectura.fichas][:4] == ["Me", "encantó", "la", "novela"]
    assert L == 11 and not lectura.avisos and not lectura.recortada
    assert lectura.pesos.shape == (L,) and torch.allclose(lectura.pesos.sum(), torch.tensor(1.0))
    assert lectura.fichas[int(lectura.pesos.argmax())].forma == "encantó"
    assert lectura.atencion.shape == (2, 8, L, L)
    assert torch.allclose(lectura.atencion.sum(dim=-1), torch.ones(2, 8, L), atol=1e-5)


@pytest.mark.parametrize("texto", ["", "   \n\t", None, 3])
def test_predecir_sin_frase_da_un_mensaje_en_espanol(texto):
    with pytest.raises(ValueError, match=r"Escribe una frase|debe ser texto"):
        pred.predecir(texto)


def test_predecir_marca_las_desconocidas_y_los_emoji():
    lectura = pred.predecir("La película fue buenísima 👍🏽👍🏽")
    desconocidas = [f.escrita for f in lectura.fichas if not f.conocida]
    assert desconocidas == ["buenísima", "👍🏽👍🏽"]
    assert any("«buenísima», «👍🏽👍🏽»: no las conoce; las trata como <desconocida>" in a for a in lectura.avisos)
    assert not lectura.pesos.isnan().any() and lectura.clase in CLASES


def test_predecir_solo_palabras_desconocidas_da_un_resultado_y_lo_dice():
    lectura = pred.predecir("xyzzy qwerty 🙂")
    assert all(not f.conocida for f in lectura.fichas)
    assert any("no conoce ninguna palabra" in a for a in lectura.avisos)
    assert not lectura.pesos.isnan().any() and sum(lectura.probabilidades) == pytest.approx(1.0)


def test_predecir_10000_caracteres_lee_las_primeras_64_fichas():
    lectura = pred.predecir("muy buena " * 1_000)
    assert len(lectura.fichas) == 64 and lectura.recortada
    assert any("solo se leen los primeros 5\u202f000 caracteres" in a for a in lectura.avisos)
    assert any("lee solo los primeros 64" in a for a in lectura.avisos)


def test_predecir_sin_tildes_lee_la_palabra_con_tilde():
    lectura = pred.predecir("La pelicula me parecio aburrida")
    assert [f.forma for f in lectura.fichas if f.corregida] == ["película", "pareció"]
    assert lectura.clase == "negativa" and any("«pelicula» como «película»" in a for a in lectura.avisos)


def test_sin_ficha_quita_una_palabra_o_un_signo():
    assert pred.sin_ficha("La comida estaba muy rica.", 3) == "La comida estaba rica."
    assert pred.sin_ficha("No me gustó, la verdad.", 0) == "me gustó, la verdad."
    assert pred.sin_ficha("¡Qué maravilla!", 2) == "¡Qué!"
    with pytest.raises(ValueError, match="la frase tiene 3"):
        pred.sin_ficha("Muy buena película", 3)
