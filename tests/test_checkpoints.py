"""Los checkpoints incluidos, sus instantáneas y el entrenamiento determinista.

Las metas se miden en datos que el entrenamiento no vio: secuencias nuevas al azar y la
partición de prueba de los dígitos de sklearn (las del clasificador de opiniones, en
tests/test_clasificador.py).
"""

from __future__ import annotations

import json
import math
import re

import pytest
import torch

from modelos import ClasificadorAtencion, DecodificadorJuguete, RedCBAM, TransformerJuguete, ViTDiminuto, cargar
from modelos.datos import digitos_sklearn, secuencias_digitos
from modelos.entrenamiento.inversion import entrenar_inversion, exactitud, instantaneas, validacion_inversion
from modelos.entrenamiento.recetas import RECETAS, construir, entrenar
from modelos.hub import CARPETA

CLASES = {
    "inversion-digitos": TransformerJuguete,
    "inversion-digitos-sin-posicion": TransformerJuguete,
    "vit-digitos": ViTDiminuto,
    "cbam-digitos": RedCBAM,
    "clasificador-opiniones": ClasificadorAtencion,
    "decodificador-inversion": DecodificadorJuguete,
}


def secuencias_nuevas() -> tuple[torch.Tensor, torch.Tensor]:
    """2,000 secuencias de una semilla que no usa ni el entrenamiento (0) ni la validación."""
    return secuencias_digitos(2_000, semilla=2024)


def pesos_iguales(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


# ---------------------------------------------------------------- los checkpoints incluidos


@pytest.mark.parametrize("nombre", list(CLASES))
def test_checkpoint_solo_safetensors_pequenos_y_con_tarjeta(nombre):
    carpeta = CARPETA / nombre
    archivos = {p.name: p.stat().st_size for p in carpeta.iterdir()}
    assert {"config.json", "model.safetensors", "README.md"} <= archivos.keys()
    assert not [a for a in archivos if a.endswith((".bin", ".pt", ".pth", ".pkl", ".ckpt"))]
    assert max(archivos.values()) < 2_000_000
    tarjeta = (carpeta / "README.md").read_text(encoding="utf-8")
    front_matter = tarjeta.split("---")[1]
    assert "license: mit" in front_matter and "library_name: pytorch" in front_matter and "tags:" in front_matter
    assert f"python -m modelos.entrenamiento {nombre}" in tarjeta
    # «Véase también» nombra a todos los demás (la tarjeta se escribe al entrenar: uno nuevo deja viejas las otras).
    vease = tarjeta.split("## Véase también")[1]
    assert {m for m in RECETAS if m != nombre} == set(re.findall(r"`([a-z-]+)`", vease))


@pytest.mark.parametrize("nombre", list(CLASES))
def test_cargar_da_el_modelo_en_eval(nombre):
    modelo = cargar(nombre)
    assert isinstance(modelo, CLASES[nombre]) and not modelo.training
    assert pesos_iguales(modelo, CLASES[nombre].from_pretrained(CARPETA / nombre))


def test_inversion_acierta_mas_de_995_de_secuencias_nuevas():
    modelo = TransformerJuguete.from_pretrained(CARPETA / "inversion-digitos").eval()
    assert sum(p.numel() for p in modelo.parameters()) == 13_674  # el de la lección
    for X, Y in (secuencias_nuevas(), validacion_inversion()):
        digitos, secuencias = exactitud(modelo, X, Y)
        assert secuencias >= 0.995 and digitos >= 0.999


def test_receta_de_inversion_es_la_de_la_leccion():
    """20,000 secuencias (las `X_ent` de la lección), lotes de 64, Adam 1e-3 y 2 épocas; la pérdida final ≈ 0.006."""
    g = torch.Generator().manual_seed(0)
    assert torch.equal(secuencias_digitos(20_000, 0)[0], torch.randint(0, 10, (20_000, 8), generator=g))
    for nombre in ("inversion-digitos", "inversion-digitos-sin-posicion"):
        receta = RECETAS[nombre]
        assert (receta.secuencias_por_epoca, receta.epocas, receta.tasa) == (20_000, 2, 1e-3)
        tarjeta = (CARPETA / nombre / "README.md").read_text(encoding="utf-8")
        assert "2 épocas de las mismas 20,000 secuencias" in tarjeta and "626 pasos" in tarjeta
    tarjeta = (CARPETA / "inversion-digitos" / "README.md").read_text(encoding="utf-8")
    assert " y 0.006 | | 0.599 y 0.006 |" in tarjeta  # la pérdida de entrenamiento de cada época, como la lección
    assert instantaneas()[-1][0]["paso"] == 626 and instantaneas()[-1][0]["secuencias_vistas"] == 40_000


def test_inversion_la_tarjeta_dice_la_exactitud_en_secuencias_no_vistas():
    modelo = TransformerJuguete.from_pretrained(CARPETA / "inversion-digitos").eval()
    _, secuencias = exactitud(modelo, *validacion_inversion())
    tarjeta = (CARPETA / "inversion-digitos" / "README.md").read_text(encoding="utf-8")
    assert f"| secuencias enteras acertadas | {secuencias:.2%} | ≥ 99.5% |" in tarjeta


def test_sin_posicion_acierta_cerca_del_32_por_ciento_de_digitos():
    # La lección, con la misma receta: «dígitos 32.1%» tras la primera época y «31.7%» tras la segunda.
    modelo = TransformerJuguete.from_pretrained(CARPETA / "inversion-digitos-sin-posicion").eval()
    assert modelo.posicion is None
    digitos, secuencias = exactitud(modelo, *secuencias_nuevas())
    assert digitos < 0.5 and abs(digitos - 0.32) < 0.04 and secuencias < 0.01


@pytest.mark.parametrize(("nombre", "meta"), [("vit-digitos", 0.96), ("cbam-digitos", 0.97)])
def test_imagenes_alcanzan_su_meta_en_la_particion_de_prueba(nombre, meta):
    _, X_prueba, _, y_prueba = digitos_sklearn()
    modelo = CLASES[nombre].from_pretrained(CARPETA / nombre).eval()
    prueba, _ = exactitud(modelo, X_prueba, y_prueba)
    assert len(y_prueba) == 450 and prueba >= meta
    assert f"{prueba:.2%}" in (CARPETA / nombre / "README.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- instantáneas


def test_instantaneas_van_de_no_saber_a_invertir():
    tomas = instantaneas()
    assert len(tomas) >= 6
    pasos = [m["paso"] for m, _ in tomas]
    assert pasos[0] == 0 and pasos == sorted(set(pasos))
    assert [m["indice"] for m, _ in tomas] == list(range(len(tomas)))
    primera, ultima = tomas[0][0], tomas[-1][0]
    assert primera["secuencias"] < 0.01 and primera["digitos"] < 0.2  # al azar: 10 %
    assert ultima["secuencias"] >= 0.995
    # Hay pasos intermedios: la transición se ve, no es un salto de 0 a 100.
    assert any(0.3 < m["digitos"] < 0.95 for m, _ in tomas)


def test_instantaneas_cargan_en_eval_compartidas_y_reproducen_sus_metricas():
    tomas = instantaneas()
    assert tomas[-1][1] is instantaneas()[-1][1]  # cargadas una vez por proceso
    X, Y = validacion_inversion()
    for metricas, modelo in tomas:
        assert isinstance(modelo, TransformerJuguete) and not modelo.training
        assert exactitud(modelo, X, Y) == pytest.approx((metricas["digitos"], metricas["secuencias"]), abs=1e-6)
    final = TransformerJuguete.from_pretrained(CARPETA / "inversion-digitos")
    assert pesos_iguales(tomas[-1][1], final)
    en_disco = json.loads((CARPETA / "inversion-digitos" / "instantaneas.json").read_text(encoding="utf-8"))
    assert [m for m, _ in tomas] == en_disco


# ---------------------------------------------------------------- entrenar_inversion (la pestaña «entrénalo tú»)


def test_entrenar_inversion_informa_cada_pocos_pasos_y_al_final_de_epoca():
    modelo = construir("inversion-digitos")
    informes = list(entrenar_inversion(modelo, epocas=2, secuencias_por_epoca=640, cada=4))
    # 10 pasos por época: informes en 4, 8, 10 (fin), 12, 16, 20 (fin)
    assert [i["paso"] for i in informes] == [4, 8, 10, 12, 16, 20]
    assert [i["epoca"] for i in informes] == [1, 1, 1, 2, 2, 2]
    for i in informes:
        assert i.keys() == {"paso", "pasos_totales", "epoca", "perdida", "digitos", "secuencias"}
        assert i["pasos_totales"] == 20 and math.isfinite(i["perdida"]) and 0 <= i["secuencias"] <= i["digitos"] <= 1
    assert not modelo.training


def test_entrenar_inversion_dos_epocas_pasa_del_99_por_ciento():
    modelo = construir("inversion-digitos")
    *_, ultimo = entrenar_inversion(modelo, epocas=2)
    assert ultimo["paso"] == ultimo["pasos_totales"] == 2 * 157
    assert ultimo["secuencias"] > 0.99
    assert exactitud(modelo, *validacion_inversion())[1] == ultimo["secuencias"]  # en las 2,000 al final


def test_detener_para_antes_del_paso_siguiente_con_un_ultimo_informe():
    llamadas = []

    def detener() -> bool:
        llamadas.append(1)
        return len(llamadas) > 7  # deja dar 7 pasos

    informes = list(entrenar_inversion(construir("inversion-digitos"), epocas=3, cada=5, detener=detener))
    assert [i["paso"] for i in informes] == [5, 7]


def test_entrenar_inversion_no_toca_el_azar_global_ni_otros_modelos():
    estado = torch.get_rng_state()
    modelo, intacto = construir("inversion-digitos"), construir("inversion-digitos")
    list(entrenar_inversion(modelo, epocas=1, secuencias_por_epoca=128))
    assert torch.equal(torch.get_rng_state(), estado)
    assert pesos_iguales(intacto, construir("inversion-digitos")) and not pesos_iguales(modelo, intacto)


@pytest.mark.parametrize(
    ("cambio", "mensaje"),
    [
        ({"epocas": 0}, "epocas"),
        ({"epocas": 1.5}, "epocas"),
        ({"epocas": True}, "epocas"),
        ({"epocas": "2"}, "epocas"),
        ({"epocas": float("nan")}, "epocas"),
        ({"secuencias_por_epoca": 0}, "secuencias_por_epoca"),
        ({"secuencias_por_epoca": 10**9}, "secuencias_por_epoca"),
        ({"lote": 0}, "lote"),
        ({"tasa": 0}, "tasa"),
        ({"tasa": float("nan")}, "tasa"),
        ({"tasa": float("inf")}, "tasa"),
        ({"tasa": "x" * 100_000}, "tasa"),
        ({"semilla": -1}, "semilla"),
        ({"semilla": 2**32 - 1}, "semilla"),
        ({"cada": 0}, "cada"),
        ({"detener": 3}, "detener"),
        ({"epocas": 50, "secuencias_por_epoca": 50_000, "lote": 1}, "pasos"),
    ],
)
def test_entrenar_inversion_rechaza_argumentos_malos_al_llamar(cambio, mensaje):
    argumentos = {"epocas": 1, **cambio}
    with pytest.raises(ValueError, match=mensaje) as info:
        entrenar_inversion(construir("inversion-digitos"), **argumentos)  # sin iterar: valida al llamar
    assert len(str(info.value)) < 300


def test_entrenar_inversion_rechaza_un_modelo_que_no_es_el_transformer():
    with pytest.raises(ValueError, match="TransformerJuguete"):
        entrenar_inversion(construir("vit-digitos"), epocas=1)


def test_entrenar_inversion_rechaza_una_instantanea_compartida():
    _, compartido = instantaneas()[0]
    with pytest.raises(ValueError, match="solo lectura"):
        entrenar_inversion(compartido, epocas=1)


def test_exactitud_rechaza_largos_distintos():
    X, _ = secuencias_digitos(5)
    _, Y = secuencias_digitos(4)
    with pytest.raises(ValueError, match="mismo número"):
        exactitud(construir("inversion-digitos"), X, Y)


# ---------------------------------------------------------------- determinismo


def test_entrenar_inversion_es_determinista():
    a, b = construir("inversion-digitos"), construir("inversion-digitos")
    informes_a = list(entrenar_inversion(a, epocas=1, secuencias_por_epoca=1_280, semilla=3))
    informes_b = list(entrenar_inversion(b, epocas=1, secuencias_por_epoca=1_280, semilla=3))
    assert pesos_iguales(a, b) and informes_a == informes_b


@pytest.mark.parametrize("nombre", ["cbam-digitos", "vit-digitos"])
def test_recetas_de_imagenes_son_deterministas(nombre):
    a, b = entrenar(nombre, epocas=1), entrenar(nombre, epocas=1)
    assert pesos_iguales(a.modelo, b.modelo) and a.metricas == b.metricas


def test_receta_de_inversion_es_determinista_con_sus_instantaneas():
    a, b = entrenar("inversion-digitos"), entrenar("inversion-digitos")
    assert pesos_iguales(a.modelo, b.modelo)
    assert [m for m, _ in a.instantaneas] == [m for m, _ in b.instantaneas]
    assert len(a.instantaneas) == len(RECETAS["inversion-digitos"].instantaneas) >= 6


def test_entrenar_inversion_no_cambia_los_hilos_de_quien_llama():
    antes = torch.get_num_threads()
    for _ in entrenar_inversion(construir("inversion-digitos"), epocas=1, secuencias_por_epoca=256, cada=1):
        assert torch.get_num_threads() == antes  # entre informes, el hilo vuelve a estar como estaba
    assert torch.get_num_threads() == antes


def test_compuertas_de_cbam_son_selectivas():
    """El mapa espacial marca el trazo y los pesos de canal se reparten (receta con presupuesto de atención)."""
    _, X, _, y = digitos_sklearn()  # la partición de prueba: 450 imágenes que el entrenamiento no vio
    modelo = cargar("cbam-digitos")
    with torch.inference_mode():
        logits, w, m = modelo(X.to(next(modelo.parameters()).device), con_pesos=True)
    logits, w, m = logits.cpu(), w.cpu()[:, :, 0, 0], m.cpu()  # (450, 10), (450, 32), (450, 1, 8, 8)
    assert (logits.argmax(-1) == y).float().mean() >= 0.97
    trazo = X > 0.3
    dentro = (m * trazo).sum(dim=(1, 2, 3)) / trazo.sum(dim=(1, 2, 3))  # (450,)
    fuera = (m * ~trazo).sum(dim=(1, 2, 3)) / (~trazo).sum(dim=(1, 2, 3))
    assert (dentro - fuera).mean() >= 0.3
    assert (dentro > fuera).float().mean() >= 0.95  # no solo en promedio: en casi todas las imágenes
    minimo, maximo = m.amin(dim=(1, 2, 3)), m.amax(dim=(1, 2, 3))
    assert ((minimo < 0.3) & (maximo > 0.8)).float().mean() >= 0.95  # rango amplio en cada imagen
    bajos, altos = (w < 0.5).sum(dim=1).float(), (w > 0.5).sum(dim=1).float()  # canales por imagen
    assert bajos.mean() >= 4 and altos.mean() >= 4  # repartidos, no todos ≈ 1
