"""El barrido (#36): cada parada precalculada es la vista que da la función de Python en esa parada.

En Python: la compresión (lo común una vez, columnas, plantillas de texto, grupos de la misma forma) se
deshace sin perder nada; cada parada de cada control barrido de cada pestaña es, salida por salida, lo que
Gradio mandaría al navegador si la función se llamara con ese valor; una parada rechazada lleva el mismo motivo
en español que daría el servidor; y los paquetes de una pestaña pesan ≤ `MAX_BYTES`. En Chromium
(tests/test_barrido_navegador.py): barrer no manda nada a la cola, y `barrido.js` arma lo mismo que Python.
"""

from __future__ import annotations

import gradio as gr
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from demos.comun import barrido
from demos.comun.barrido import MAX_BYTES, al_navegador, armar, comprimir, paquete, paquetes_de, paradas_de, tamano


@pytest.fixture(autouse=True)
def sin_guardados():
    """Cada prueba calcula sus paquetes (los guardados de otra no cuentan)."""
    barrido.GUARDADOS.vaciar()
    yield
    barrido.GUARDADOS.vaciar()


def vistas():
    import app

    return app.vistas(app.demo)


def con_barridos() -> list[str]:
    return [id_ for id_, v in vistas().items() if v.barridos]


def casos() -> list[tuple[str, int]]:
    return [(id_, k) for id_ in con_barridos() for k in range(len(vistas()[id_].barridos))]


def test_las_pestanas_de_la_leccion_barren_sus_controles():
    """Los controles del issue, o la razón por la que no (en la nota del issue y en cada pestaña)."""
    esperados = {
        "escalado",
        "temperatura",
        "multicabeza",
        "mascara-causal",
        "posicion",
        "bloque",
        "memoria",
        "atencion-cruzada",
        "variantes",
        "parches-vit",
    }
    assert esperados <= set(con_barridos())


# --- compresión ------------------------------------------------------------------------------------

escalares = st.one_of(st.integers(-5, 5), st.floats(-2, 2, allow_nan=False, width=32), st.sampled_from(["a", "b"]))
textos = st.builds(lambda a, b: f"T = {a} ({b:.2f} bits)", st.integers(0, 20), st.floats(0, 3, allow_nan=False))
json_ = st.recursive(
    st.one_of(escalares, textos, st.none()),
    lambda hijos: st.one_of(
        st.lists(hijos, max_size=4), st.dictionaries(st.sampled_from(["x", "y", "z", "texto"]), hijos, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(json_, min_size=1, max_size=8))
def test_comprimir_y_armar_devuelven_cada_valor(valores):
    base, cambios = comprimir(valores)
    for k, v in enumerate(valores):
        assert armar(base, cambios, k) == v


def test_lo_comun_va_una_vez_y_los_textos_como_plantilla():
    valores = [
        {"y": [0.1 * k, 1.0], "titulo": f"T = {k} (entropía {k / 7:.2f} bits)", "fijo": "igual"} for k in range(50)
    ]
    base, cambios = comprimir(valores)
    assert base["fijo"] == "igual" and {tuple(r) for r, _ in cambios} == {("y",), ("titulo",)}
    titulo = next(c for r, c in cambios if r == ["titulo"])
    assert titulo["t"] == [["T = ", " (entropía ", " bits)"]]  # una plantilla, los números aparte
    assert [armar(base, cambios, k) for k in range(50)] == valores


def test_listas_de_otro_largo_van_en_grupos_de_la_misma_forma():
    valores = [[{"a": k}] * (1 if k < 3 else 2) for k in range(40)]
    base, cambios = comprimir(valores)
    [(ruta, columna)] = cambios
    assert ruta == [] and len(columna["p"]) == 2
    assert [armar(base, cambios, k) for k in range(40)] == valores


# --- cada parada es la función de Python ---------------------------------------------------------------


@pytest.mark.parametrize(("id_", "k"), casos())
def test_cada_parada_es_lo_que_da_la_funcion_en_esa_parada(id_, k):
    vista = vistas()[id_]
    b = vista.barridos[k]
    p = paquete(vista, b, [c.value for c in vista.entradas])
    if "servidor" in p:
        pytest.fail(barrido.demasiado_grande(vista, b, p))
    fijos = {id(c): v for c, v in b.con}  # p. ej. w de la máscara: sus paradas son con la máscara de ventana
    valores = [fijos.get(id(c), c.value) for c in vista.entradas]
    i = barrido._indice(vista.entradas, b)
    assert p["otros"] == [v for j, v in enumerate(valores) if j != i]
    assert p["paradas"] == paradas_de(b)
    for n, valor in enumerate(p["entradas"]):
        args = [*valores[:i], valor, *valores[i + 1 :]]
        if str(n) in p["errores"]:
            with pytest.raises(ValueError) as e:
                vista.fn(*args)
            assert str(e.value) == p["errores"][str(n)]
            continue
        esperado = al_navegador(vista.salidas, vista.fn(*args))
        for j, s in enumerate(p["salidas"]):
            if s["cambios"]:
                assert armar(s["base"], s["cambios"], n) == esperado[j], f"{id_}: parada {valor}, salida {j}"
            else:  # igual en todas las paradas: la de la página (la de los valores iniciales)
                assert esperado[j] == al_navegador(vista.salidas, vista.fn(*valores))[j]


@pytest.mark.parametrize("id_", con_barridos())
def test_la_figura_de_una_parada_se_escribe_como_la_de_su_figura(id_):
    """Cada figura de una parada se arma como dict y no pasa por JSON hasta el paquete entero (#54, punto 6): escrita,
    es byte a byte el texto que su `Figura` manda a la página (lo que barrido.mjs vuelve a armar y compara)."""
    import orjson

    from demos.comun.vista import salidas_para_gradio

    vista = vistas()[id_]
    resultado = vista.fn(*[c.value for c in vista.entradas])
    figuras = 0
    for v, c, r in zip(
        al_navegador(vista.salidas, resultado), vista.salidas, salidas_para_gradio(resultado), strict=True
    ):
        if isinstance(c, barrido.Figura) and r is not None:
            figuras += 1
            assert orjson.dumps(v["plot"], option=orjson.OPT_SERIALIZE_NUMPY).decode() == c.postprocess(r)["plot"]
    assert figuras


@pytest.mark.parametrize("id_", con_barridos())
def test_los_paquetes_de_una_pestana_pesan_a_lo_sumo_200_kb(id_):
    """Con sus valores iniciales, cada barrido de la pestaña cabe (si no, el mensaje dice cuál, cuánto y qué hacer)."""
    vista = vistas()[id_]
    paquetes = paquetes_de(vista, [c.value for c in vista.entradas])
    grandes = [
        barrido.demasiado_grande(vista, b, p) for b, p in zip(vista.barridos, paquetes, strict=True) if "servidor" in p
    ]
    assert not grandes, "\n".join(grandes)
    assert tamano(paquetes) <= MAX_BYTES


def test_el_paquete_que_no_cabe_dice_pestana_control_peso_tope_y_que_hacer(monkeypatch):
    """Variantes con L = 64: el paquete va al servidor y el mensaje para quien escribe la pestaña lo explica."""
    vista = vistas()["variantes"]
    valores = [c.value for c in vista.entradas]
    valores[0] = 64  # L
    p = paquete(vista, vista.barridos[0], valores)
    mensaje = barrido.demasiado_grande(vista, vista.barridos[0], p)
    assert p["peso"] > p["tope"] == MAX_BYTES
    assert mensaje.startswith(f"variantes, «{vista.barridos[0].control.label}»: las {len(p['paradas'])} paradas")
    for dice in ("kB (estimado tras", "le quedaban 200 kB", "barrido.MAX_BYTES = 200 kB", "menos paradas", "decimales"):
        assert dice in mensaje, dice


def test_los_pasos_del_deslizador_son_los_del_navegador():
    """0.02 × 31 es 0.62 (no 0.6200000000000001), y un paso entero es un entero: así los compara barrido.js."""
    from demos.temperatura import LOG_T_MAX, LOG_T_MIN, PASO_LOG_T

    c = gr.Slider(LOG_T_MIN, LOG_T_MAX, step=PASO_LOG_T)
    paradas = paradas_de(barrido.Barrido(c))
    assert paradas[0] == -1.3 and paradas[-1] == 1 and len(paradas) == 116 and -0.6 in paradas
    assert all(isinstance(x, int) for x in paradas_de(barrido.Barrido(gr.Slider(1, 16, step=1))))


def test_un_control_con_demasiadas_paradas_no_se_barre():
    with pytest.raises(ValueError, match="256"):
        paradas_de(barrido.Barrido(gr.Slider(1, 512, step=1)))


def test_el_evento_publico_sigue_dando_una_vista_y_la_pagina_no_lo_dispara():
    """La API no cambia: `api_name` = el id, con las entradas y salidas de la vista, sin disparadores en la página."""
    import app

    for id_ in con_barridos():
        api = id_.replace("-", "_")
        vista = vistas()[id_]
        [fn] = [f for f in app.demo.fns.values() if f.api_name == api]
        assert fn.api_visibility == "public" and not fn.targets
        assert [c._id for c in fn.inputs] == [c._id for c in vista.entradas]
        assert [c._id for c in fn.outputs] == [c._id for c in vista.salidas]


def test_un_paquete_que_pasaria_de_200_kb_va_al_servidor_sin_calcular_todas_sus_paradas(monkeypatch):
    """Variantes con L = 64: sus máscaras de 64 × 64 pesarían 2.9 MB. El paquete dice «servidor» (el navegador pide
    cada vista, de a una) y se abandona tras estimar su peso con las primeras paradas, sin calcular las 33."""
    vista = vistas()["variantes"]
    valores = [c.value for c in vista.entradas]
    valores[0] = 64  # L
    llamadas = []
    fn = vista.fn
    monkeypatch.setattr(vista, "fn", lambda *a: llamadas.append(a) or fn(*a))
    paquetes = paquetes_de(vista, valores)
    assert all("servidor" in p and "salidas" not in p for p in paquetes)
    assert paquetes[0]["paradas"] == paradas_de(vista.barridos[0])  # el control sigue a su entrada igual
    w, g = (len(paradas_de(b)) for b in vista.barridos)
    assert tamano(paquetes) < 2000 and len(llamadas) <= 2 * barrido.CADA + g < w + g


def test_editar_con_entradas_que_no_caben_da_la_vista_y_el_aviso_de_servidor():
    """El evento que recalcula (una edición: variantes con L = 64) entrega la vista y después los paquetes «servidor»,
    sin error: un paquete que no cabe no trae `hay_errores` (en la mezcla de clase de `make bench`, esas ediciones
    terminaban en «Algo falló al calcular esta vista»)."""
    import app

    vista = vistas()["variantes"]
    [fn] = [
        f
        for f in app.demo.fns.values()
        if f.name == "recalcular" and [c._id for c in f.inputs] == [c._id for c in vista.entradas]
    ]
    valores = [c.value for c in vista.entradas]
    valores[0] = 64  # L
    vista_, paquetes = list(fn.fn(*valores))
    assert not any(isinstance(x, dict) and x.get("__type__") == "update" and "Algo" in str(x) for x in vista_)
    n = len(vista.salidas)
    assert all("servidor" in p for p in paquetes[n : n + len(vista.barridos)])


def test_el_taller_calcula_las_paradas_en_un_hilo_y_con_la_fila_llena_avisa(monkeypatch):
    """Las paradas de las ediciones se calculan de a una, en el hilo del taller; las que llegan con la fila llena no
    se calculan: su paquete es el aviso «servidor» (con las paradas y las demás entradas, para que el navegador siga
    el control y pida cada vista), y la vista de la edición no espera nada."""
    import threading
    import time

    vista = vistas()["multicabeza"]
    valores = [c.value for c in vista.entradas]
    taller = barrido.Taller(max_en_fila=2)
    hilos, a_la_vez, ahora, cerrojo = set(), [], [0], threading.Lock()
    original = barrido.paquetes_de

    def lento(*a, **k):
        with cerrojo:
            hilos.add(threading.current_thread().name)
            ahora[0] += 1
            a_la_vez.append(ahora[0])
        time.sleep(0.3)
        try:
            return original(*a, **k)
        finally:
            with cerrojo:
                ahora[0] -= 1

    monkeypatch.setattr(barrido, "paquetes_de", lento)
    resultados = [None] * 6

    def editar(j):
        resultados[j] = taller.paquetes(vista, valores)

    edits = [threading.Thread(target=editar, args=(j,)) for j in range(6)]
    for h in edits:
        h.start()
    for h in edits:
        h.join()
    calculados = [r for r in resultados if "salidas" in r[0]]
    avisos = [r for r in resultados if "servidor" in r[0]]
    assert len(calculados) == 2 and len(avisos) == 4  # la fila admite 2; las otras 4, el aviso al instante
    assert max(a_la_vez) == 1 and all(n.startswith("paquetes") for n in hilos)  # de a uno, en el hilo del taller
    aviso = avisos[0][0]
    assert aviso["servidor"] == barrido.OCUPADO
    assert aviso["paradas"] == paradas_de(vista.barridos[0]) and aviso["otros"] == calculados[0][0]["otros"]
    assert taller.paquetes(vista, valores)[0]["salidas"]  # la fila se vació: calcula otra vez


def test_entre_parada_y_parada_el_taller_cede_el_turno_a_las_vistas():
    """Con una vista calculándose (`EN_CURSO`), cada parada espera a que termine (a lo sumo `CEDER_MAX_S`); sin
    vistas, no espera. Una vista de la página cuenta mientras corre; una función exclusiva (un entrenamiento), no."""
    import time

    from demos.comun.vista import EN_CURSO, envolver

    t = time.monotonic()
    barrido.ceder()
    assert time.monotonic() - t < barrido.CEDER_MAX_S / 2
    with EN_CURSO.vista():
        t = time.monotonic()
        barrido.ceder()
        assert time.monotonic() - t >= barrido.CEDER_MAX_S
    vistas_vistas = []
    envolver(lambda: vistas_vistas.append(EN_CURSO.n) or ())()
    envolver(lambda: vistas_vistas.append(EN_CURSO.n) or (), exclusivo_de="prueba")()
    assert vistas_vistas == [1, 0] and EN_CURSO.n == 0


def test_los_paquetes_ya_calculados_salen_de_los_guardados_sin_fila_ni_calculo(monkeypatch):
    """La misma edición dos veces (otra T, las mismas demás entradas): la segunda no calcula ni pasa por el taller,
    y da lo mismo. Otra semilla sí calcula. Lo guardado no pasa de su tope: sale primero lo que hace más que no se
    pide."""
    vista = vistas()["temperatura"]
    valores = [c.value for c in vista.entradas]
    primera = barrido.TALLER.paquetes(vista, valores)
    llamadas = []
    fn = vista.fn
    monkeypatch.setattr(vista, "fn", lambda *a: llamadas.append(a) or fn(*a))
    otra_t = list(valores)
    i_t = next(j for j, c in enumerate(vista.entradas) if c is (vista.barridos[0].entrada or vista.barridos[0].control))
    otra_t[i_t] = 2.0
    lleno = barrido.Taller(max_en_fila=0)  # sin lugar en la fila: solo lo guardado da paradas
    assert lleno.paquetes(vista, otra_t) == primera and not llamadas
    i_semilla = next(j for j, c in enumerate(vista.entradas) if "emilla" in (c.label or ""))
    otra_semilla = list(valores)
    otra_semilla[i_semilla] += 1
    assert "servidor" in lleno.paquetes(vista, otra_semilla)[0]  # no guardado, y la fila llena: el aviso
    chico = barrido.Guardados(max_bytes=3 * barrido.tamano(primera[:1]))
    for s in range(5):
        chico.guardar(bytes([s]), primera[0])
    assert chico.buscar(bytes([0])) is None and chico.buscar(bytes([4])) == primera[0]
