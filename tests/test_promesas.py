"""Promesas que ninguna otra prueba vigilaba (#39): cada una falla si se quita el código que la cumple.

- SECURITY.md §2: el motivo de una entrada rechazada se escapa antes de mostrarse como HTML (puede repetir
  lo que escribió el visitante).
- DESIGN, «House rules»: el evento de cada pestaña que recalcula con la página es `always_last`: flechas rápidas
  no se pisan con respuestas viejas (y una clase no encola un cálculo por pulsación).
- La carga de la página no cambia de pestaña si la URL no pide una: un «Siguiente» apretado antes de que llegue
  su respuesta no se deshace.
"""

from __future__ import annotations

import gradio as gr

from demos.comun.seguridad import rechazo


def test_el_motivo_de_un_rechazo_se_escapa():
    e = rechazo("La palabra «<img src=x onerror=alert(1)>» es muy larga & rara.", "prueba")
    assert "<img" not in e.message and "&lt;img src=x onerror=alert(1)&gt;" in e.message
    assert "&amp; rara" in e.message


def test_el_evento_de_cada_pestana_en_la_pagina_es_always_last():
    import app

    for id_, vista in app.vistas(app.demo).items():
        salidas = {c._id for c in vista.salidas}
        eventos = [
            f
            for f in app.demo.fns.values()
            if f.fn is not None
            and f.targets
            and salidas <= {c._id for c in f.outputs}
            and f.api_visibility == "private"
        ]
        eventos += [f for f in app.demo.fns.values() if f.api_name == id_.replace("-", "_") and f.targets]
        # Los que dispara un control (no la apertura, ni la cadena de un ejemplo o de un entrenamiento).
        principales = [f for f in eventos if not any(t[1] in ("load", "select", "then", "success") for t in f.targets)]
        assert principales, f"{id_}: no hay evento que recalcule su vista desde la página"
        for f in principales:
            assert f.trigger_mode == "always_last", (id_, f.name, f.targets)


class _Pedido:
    def __init__(self, **parametros):
        self.query_params = parametros


def test_la_pestana_de_la_url_la_elige_el_navegador_y_no_la_respuesta_de_la_carga():
    """La carga del servidor no elige pestaña (su respuesta deshacía un clic hecho antes de que llegara); la elige
    un `load` sin función, en el navegador (tests/test_navegador.py lo prueba en Chromium con la cola retenida)."""
    import app

    cargas = [f for f in app.demo.fns.values() if any(t[1] == "load" for t in f.targets)]
    con_fn = [f for f in cargas if f.fn is not None]
    assert con_fn
    for f in con_fn:
        assert not any(isinstance(c, gr.Tabs) for c in f.outputs), f.name
        valores = [c.value for c in f.inputs]
        for pedido in (_Pedido(), _Pedido(tab="temperatura")):
            assert len(f.fn(pedido, *valores)) == len(f.outputs)
    elige = [f for f in cargas if f.fn is None and any(isinstance(c, gr.Tabs) for c in f.outputs)]
    assert len(elige) == 1 and "location.search" in elige[0].js
