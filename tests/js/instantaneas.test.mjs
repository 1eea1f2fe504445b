import assert from "node:assert/strict";
import {test} from "node:test";

import {crearInstantaneas} from "../../demos/comun/navegador/instantaneas.mjs";

const nodo = (conectado = true) => ({isConnected: conectado});

test("buscar devuelve la guardada y la pasa a la usada hace menos", () => {
  const c = crearInstantaneas(100);
  const g = nodo();
  const a = nodo();
  c.guardar("a", g, a, 10);
  assert.equal(c.buscar("a"), a);
  assert.equal(c.buscar("b"), null);
  assert.equal(c.nodos, 10);
});

test("pasado el tope se descartan las viejas que ya no están en la página, no la que se ve", () => {
  const c = crearInstantaneas(100);
  const g = nodo();
  c.guardar("vieja", g, nodo(false), 12);
  c.guardar("vista", g, nodo(true), 12);
  for (let i = 0; i < 7; i++) c.guardar(`x${i}`, g, nodo(false), 12); // 108 > 100
  assert.equal(c.tiene("vieja"), false);
  assert.equal(c.tiene("vista"), true);
  assert.ok(c.nodos <= 100);
});

test("una figura enorme no se guarda; olvidar quita las de una figura; renombrar conserva el dibujo", () => {
  const c = crearInstantaneas(80);
  const g = nodo();
  const h = nodo();
  c.guardar("enorme", g, nodo(), 11);
  assert.equal(c.tiene("enorme"), false);
  const d = nodo();
  c.guardar("g1", g, d, 5);
  c.guardar("h1", h, nodo(), 5);
  c.renombrar("g1", "g1bis");
  assert.equal(c.buscar("g1bis"), d);
  c.olvidar(g);
  assert.equal(c.tiene("g1bis"), false);
  assert.equal(c.tiene("h1"), true);
  assert.equal(c.nodos, 5);
  assert.equal(c.hayLugar(75), true);
  assert.equal(c.hayLugar(76), false);
});
