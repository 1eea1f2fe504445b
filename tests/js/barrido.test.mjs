import assert from "node:assert/strict";
import {test} from "node:test";

import {armar, columna, crearBarrido, igual} from "../../demos/comun/navegador/barrido.mjs";

test("igual compara números con tolerancia y lo demás como texto", () => {
  assert.ok(igual(0.1 + 0.2, 0.3));
  assert.ok(igual("2", 2));
  assert.ok(!igual(1, 1.001));
  assert.ok(igual("a", "a") && !igual("a", "b"));
});

test("columna: lista, valores distintos, plantillas y grupos", () => {
  assert.equal(columna([5, 6, 7], 1), 6);
  assert.equal(columna({v: ["x", "y"], i: [1, 0, 1]}, 2), "y");
  assert.equal(columna({t: [["T = ", " y ", ""]], ti: [0, 0], n: [[1, 2], [3, 4]]}, 1), "T = 3 y 4");
  const grupos = {g: [0, 0], p: [[{a: 0}, [[["a"], [10, 20]]]]], j: [0, 1]};
  assert.deepEqual(columna(grupos, 1), {a: 20});
});

test("armar pone cada columna en su ruta sin tocar la base", () => {
  const base = {plot: {layout: {title: "t"}, data: [{z: [0]}]}, n: 1};
  const cambios = [[["plot", "data", 0, "z"], [[1], [2]]], [["n"], [10, 20]]];
  assert.deepEqual(armar(base, cambios, 1), {plot: {layout: {title: "t"}, data: [{z: [2]}]}, n: 20});
  assert.deepEqual(base.plot.data[0].z, [0]);
  assert.equal(armar(base, [[[], ["a", "b"]]], 0), "a");
});

const PAQUETE = {
  paradas: [1, 2, 3], entradas: [1, 2, 3], otros: ["hola"], errores: {2: "no se puede"}, hay_errores: false,
  salidas: [{plot: true, base: {plot: {data: [{z: 0}]}}, cambios: [[["plot", "data", 0, "z"], [10, 20, 30]]]},
    {plot: false, base: "igual", cambios: []}],
};
const DATOS = {modo: "control", salidas: 2, entrada: 0, controles: 1, clave: "b0", figuras: ["f", null]};

test("un movimiento a una parada arma su vista sin el servidor y deja las paradas para dibujarlas antes", () => {
  const paradas = new Map();
  const barrido = crearBarrido({paradas, figuras: null, esperaMs: 1000});
  const r = barrido(DATOS, 2, PAQUETE, 0, 2, "hola");
  assert.equal(r.length, 2 + 1 + 2);
  assert.deepEqual(JSON.parse(r[0].plot), {data: [{z: 20}]});
  assert.deepEqual(r[0].paradas, {fuente: "b0:0", k: 1});
  assert.equal(r[1], undefined);
  assert.equal(r[2], 2);
  assert.deepEqual(r.slice(3), [undefined, undefined]); // nada al servidor
  const f = paradas.get("b0:0");
  assert.equal(f.n, 3);
  assert.equal(f.texto(2), null); // la rechazada
  assert.equal(f.texto(1), r[0].plot); // el mismo texto, armado una vez
  assert.equal(f.texto(0), JSON.stringify({data: [{z: 10}]}));
});

test("la figura de la parada que se movió es la que se armó para su texto: no se vuelve a leer", () => {
  const paradas = new Map();
  const r = crearBarrido({paradas, figuras: null, esperaMs: 1000})(DATOS, 2, PAQUETE, 0, 2, "hola");
  const f = paradas.get("b0:0");
  const armada = f.figura(1); // lo que figuras.mjs toma al dibujar el valor r[0] (en lugar de JSON.parse)
  assert.deepEqual(armada, JSON.parse(r[0].plot));
  assert.notEqual(f.figura(1), armada); // tomada una vez: después, la de su texto
  assert.equal(r[0].type, "plotly");
});

test("la figura de una parada recién armada no se vuelve a leer de su texto, y no se guarda", () => {
  const paradas = new Map();
  crearBarrido({paradas, figuras: null, esperaMs: 1000})(DATOS, 2, PAQUETE, 0, 2, "hola");
  const f = paradas.get("b0:0");
  const texto = f.texto(1); // la parada 1 ya la armó el movimiento: aquí se arma su texto
  const armada = f.figura(1);
  assert.deepEqual(armada, JSON.parse(texto));
  const otra = f.figura(1); // ya tomada: la de su texto, otro objeto igual
  assert.notEqual(otra, armada);
  assert.deepEqual(otra, armada);
  assert.equal(f.figura(2), null); // la rechazada
});

test("una parada rechazada deja el motivo bajo el control; otro valor o sin paquete, al servidor", () => {
  const barrido = crearBarrido({paradas: new Map(), figuras: null, esperaMs: 1000});
  const r = barrido(DATOS, 3, PAQUETE, 0, 3, "hola");
  assert.equal(r[0], undefined);
  assert.equal(r[2].info, "⚠ no se puede");
  const fuera = barrido(DATOS, 2.5, PAQUETE, 0, 2.5, "hola");
  assert.ok(typeof fuera[4] === "number"); // solo la vista
  const sin = barrido(DATOS, 2, null, 4, 2, "hola");
  assert.equal(sin[3], 5); // la vista y los paquetes
});

test("con otras entradas espera las paradas nuevas y, pasada la espera, las pide", () => {
  const barrido = crearBarrido({paradas: new Map(), figuras: null, esperaMs: 0});
  const r = barrido(DATOS, 2, PAQUETE, 0, 2, "chau");
  assert.equal(r[3], 1); // esperaMs = 0: ya las pide
});
