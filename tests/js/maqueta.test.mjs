// Las reglas de maqueta.mjs, sin navegador: `node --test tests/js/` (make test).
import assert from "node:assert/strict";
import {test} from "node:test";

import {
  cabeAncha, escalaProyector, estirarPaneles, huecosEnPixeles, maquetar, marcasQueCaben, numerosDelTelefono, numerosQueCaben,
  partirTitulo, partirTitulosDeLado, renglones, textosQueSePisan, tituloDelTelefono, tramosEnY,
} from "../../demos/comun/navegador/maqueta.mjs";

import {AJUSTES} from "./ajustes.mjs";

const PAGINA = {angosto: false, oscuro: false, ancho: 800, alto: null, escala: 1, elegido: 0, fondo: null};

test("renglones no corta palabras y deja sola la que no cabe", () => {
  assert.deepEqual(renglones("uno dos tres cuatro", 7), ["uno dos", "tres", "cuatro"]);
  assert.deepEqual(renglones("larguísimapalabra y", 5), ["larguísimapalabra", "y"]);
});

test("la escala del proyector va de 1 a 2 con la ventana", () => {
  assert.equal(escalaProyector(1280, 720), 1);
  assert.equal(escalaProyector(1920, 1080), 1.5);
  assert.equal(escalaProyector(800, 600), 1);
  assert.equal(escalaProyector(5000, 5000), 2);
});

test("tramosEnY: paneles en columna de abajo arriba; encimados, null", () => {
  assert.deepEqual(tramosEnY({yaxis: {domain: [0.6, 1]}, yaxis2: {domain: [0, 0.4]}}), [[0, 0.4], [0.6, 1]]);
  assert.equal(tramosEnY({yaxis: {domain: [0, 0.7]}, yaxis2: {domain: [0.5, 1]}}), null);
});

test("marcasQueCaben deja una de cada tantas cuando no caben de pie", () => {
  const n = 32;
  const layout = {margin: {l: 0, r: 0}, font: {size: 14},
    xaxis: {tickmode: "array", tickvals: [...Array(n).keys()], ticktext: [...Array(n).keys()].map(String)}};
  marcasQueCaben(layout, 300, 0.6); // 0.95·300/32 ≈ 8.9 px por categoría; 1.2·14 = 16.8 -> una de cada 2
  assert.deepEqual(layout.xaxis.tickvals.slice(0, 3), [0, 2, 4]);
  assert.equal(layout.xaxis.ticktext.length, 16);
  const ancho = {margin: {}, xaxis: {tickmode: "array", tickvals: [0, 1, 2], ticktext: ["a", "b", "c"]}};
  marcasQueCaben(ancho, 800, 0.6);
  assert.deepEqual(ancho.xaxis.tickvals, [0, 1, 2]);
  const log = {margin: {}, xaxis: {type: "log", tickmode: "array", tickvals: [1, 2, 3], ticktext: ["1", "2", "3"]}};
  marcasQueCaben(log, 10, 0.6);
  assert.equal(log.xaxis.tickvals.length, 3);
});

test("partirTitulo parte el título del proyector y agranda el margen de arriba", () => {
  const layout = {title: {text: "una figura con un título bastante largo para su ancho", font: {size: 20}}, margin: {t: 50}};
  partirTitulo(layout, 200, AJUSTES.ANCHO_DE_LETRA); // caben (200 − 16) / 12 = 15 letras
  const lineas = layout.title.text.split("<br>");
  assert.ok(lineas.length > 2 && lineas.every((l) => l.length <= 15 || !l.includes(" ")));
  assert.equal(layout.margin.t, 50 + (lineas.length - 1) * 25);
});

test("tituloDelTelefono: el título entero del servidor, en las líneas que caben en el ancho de verdad", () => {
  const texto = "Pesos de atención de la cabeza que mira hacia atrás";
  const normal = {title: {text: texto}};
  const delServidor = () => ({title: {text: texto, font: {size: 17}}, margin: {t: 70}, height: 500});
  const de390 = delServidor();
  tituloDelTelefono(de390, normal, 330, AJUSTES); // 330 / (0.6 · 17) = 32 letras por línea
  assert.deepEqual(de390.title.text.split("<br>"), ["Pesos de atención de la cabeza", "que mira hacia atrás"]);
  assert.equal(de390.margin.t, 70 + 22);
  assert.equal(de390.height, 500 + 22);
  assert.equal(de390.title.yanchor, "top"); // varias líneas, desde arriba: centradas en el margen pisaban el panel
  const de560 = delServidor();
  tituloDelTelefono(de560, normal, 560, AJUSTES);
  assert.deepEqual(de560, delServidor());
  // Sus saltos de línea propios se respetan (el margen del servidor ya cuenta esas líneas).
  const dos = {title: {text: "Arriba<br>abajo", font: {size: 17}}, margin: {t: 92}, height: 500};
  tituloDelTelefono(dos, {title: {text: "Arriba<br>abajo"}}, 330, AJUSTES);
  assert.equal(dos.title.text, "Arriba<br>abajo");
  assert.equal(dos.margin.t, 92);
});

test("marcasQueCaben en un teléfono: solo los ejes que declara el servidor; derechos, por su largo", () => {
  // Los 32 canales de CBAM bajo barras de pie: la figura de un teléfono de 390 (330 px, márgenes 45 y 30), y lo que
  // se lleva el eje y (0.15 del área).
  const canales = () => ({margin: {l: 45, r: 30}, font: {size: 15}, xaxis: {tickmode: "array", tickangle: 0,
    tickvals: [...Array(32).keys()], ticktext: [...Array(32).keys()].map(String)},
  xaxis2: {tickmode: "array", tickvals: [0, 1, 2, 3], ticktext: ["a", "b", "c", "d"]}});
  const de390 = canales();
  marcasQueCaben(de390, 330, 0.6, {xaxis: 38.3}); // 0.95·(255 − 38.3)/32 = 6.4 px; 2·0.6·15 + 8 = 26 -> 1 de cada 5
  assert.deepEqual(de390.xaxis.tickvals, [0, 5, 10, 15, 20, 25, 30]);
  assert.equal(de390.xaxis2.tickvals.length, 4); // no lo declaró: como viene
  const de560 = canales();
  marcasQueCaben(de560, 500, 0.6, {xaxis: 38.3}); // más ancho: 1 de cada 3
  assert.equal(de560.xaxis.tickvals[1], 3);
  // De pie (nombres largos), pide el alto de su renglón: 1.2 · 15.
  const largas = {margin: {l: 45, r: 30}, font: {size: 15}, xaxis: {tickmode: "array", autotickangles: [0, -90],
    tickvals: [...Array(12).keys()], ticktext: [...Array(12).keys()].map((k) => "palabra" + k)}};
  marcasQueCaben(largas, 330, 0.6, {xaxis: 38.3}); // 0.95·216.7/12 = 17.2 px < 18 -> 1 de cada 2
  assert.equal(largas.xaxis.tickvals.length, 6);
});

test("estirarPaneles: un panel cuadrado crece con el ancho y el hueco conserva sus píxeles", () => {
  const layout = {height: 600, margin: {t: 100, b: 100}, xaxis: {domain: [0, 1]},
    yaxis: {domain: [0.55, 1]}, yaxis2: {domain: [0, 0.45]}, annotations: [{yref: "paper", y: 0.5}]};
  estirarPaneles([], layout, {medida: [["yaxis", 180, 1, 1000]]}, 430, 330); // 180 px a 330 -> 280 px a 430
  const area = layout.height - 200;
  assert.equal(layout.height, 600 + 280 - 0.45 * 400);
  assert.ok(Math.abs((layout.yaxis.domain[1] - layout.yaxis.domain[0]) * area - 280) < 1);
  assert.ok(Math.abs((layout.yaxis.domain[0] - layout.yaxis2.domain[1]) * area - 40) < 1); // el hueco: 0.1 · 400
  // La nota entre los dos paneles (en el hueco) queda a los mismos píxeles del borde de abajo del de arriba.
  assert.ok(Math.abs((layout.yaxis.domain[0] - layout.annotations[0].y) * area - 0.05 * 400) < 1);
});

test("estirarPaneles: los mínimos del servidor solo agrandan, con cualquier ancho", () => {
  const base = () => ({height: 500, margin: {t: 50, b: 50}, yaxis: {domain: [0.6, 1]}, yaxis2: {domain: [0, 0.4]},
    shapes: [{yref: "paper", y0: 0, y1: 0.4}], annotations: []});
  const layout = base();
  estirarPaneles([], layout, {minimos: {yaxis: 100, yaxis2: 300}}, 300, 330); // 160 px y 160 px -> 160 y 300
  const area = layout.height - 100;
  assert.equal(layout.height, 500 + 140);
  assert.ok(Math.abs((layout.yaxis2.domain[1] - layout.yaxis2.domain[0]) * area - 300) < 1);
  assert.ok(Math.abs((layout.yaxis.domain[1] - layout.yaxis.domain[0]) * area - 160) < 1); // no se achica
  assert.ok(Math.abs((layout.yaxis.domain[0] - layout.yaxis2.domain[1]) * area - 80) < 1); // el hueco, en px
  assert.deepEqual([layout.shapes[0].y0, layout.shapes[0].y1], layout.yaxis2.domain); // lo del papel, con su panel
  const igual = base();
  estirarPaneles([], igual, {minimos: {yaxis: 100, yaxis2: 100}}, 330, 330);
  assert.deepEqual(igual, base());
  const encimados = {...base(), yaxis2: {domain: [0.5, 1]}}; // no es una columna: como viene
  estirarPaneles([], encimados, {minimos: {yaxis2: 900}}, 330, 330);
  assert.equal(encimados.height, 500);
});

test("huecosEnPixeles conserva los huecos al achicar la figura en el proyector", () => {
  const layout = {height: 400, margin: {t: 50, b: 50}, yaxis: {domain: [0.55, 1]}, yaxis2: {domain: [0, 0.45]}};
  huecosEnPixeles([], layout, 700); // área natural 600 (hueco 60 px); ahora 300
  const hueco = (layout.yaxis.domain[0] - layout.yaxis2.domain[1]) * 300;
  assert.ok(Math.abs(hueco - 60) < 1, String(hueco));
});

test("partirTitulosDeLado parte el título de un eje y que no cabe en su panel", () => {
  const layout = {height: 300, margin: {t: 50, b: 50}, font: {size: 14},
    yaxis: {domain: [0.5, 1], title: {text: "Ficha que mira (consulta)"}}};
  const cabe = Math.floor((AJUSTES.HOLGURA_DE_LADO * 100) / (AJUSTES.ANCHO_DE_LETRA * 16.8)); // 8 letras
  partirTitulosDeLado(layout, 300, AJUSTES);
  const lineas = layout.yaxis.title.text.split("<br>");
  // Cada línea cabe, o es una sola palabra más larga (no se corta): «Ficha<br>que mira<br>(consulta)».
  assert.ok(lineas.length > 1 && lineas.every((l) => l.length <= cabe || !l.includes(" ")), layout.yaxis.title.text);
  assert.equal(layout.yaxis.automargin, true);
  // Lo que se lleva el eje x de abajo no es alto del panel: de 250 px de área, 150 son del eje x.
  const justo = {height: 350, margin: {t: 50, b: 50}, font: {size: 14}, yaxis: {title: {text: "Pérdida media"}}};
  const entero = structuredClone(justo);
  partirTitulosDeLado(entero, 350, AJUSTES);
  assert.equal(entero.yaxis.title.text, "Pérdida media");
  partirTitulosDeLado(justo, 350, AJUSTES, 150);
  assert.equal(justo.yaxis.title.text, "Pérdida<br>media");
  // Un título que ya trae sus líneas (el de un mapa de teléfono, que parte el servidor) queda como viene.
  const partido = {height: 300, margin: {t: 50, b: 50}, yaxis: {domain: [0.9, 1], title: {text: "Ficha<br>que mira"}}};
  partirTitulosDeLado(partido, 300, AJUSTES);
  assert.equal(partido.yaxis.title.text, "Ficha<br>que mira");
});

test("numerosQueCaben achica o quita los números de las casillas en el proyector", () => {
  const mapa = (largo) => [{type: "heatmap", text: [["0.18".repeat(largo), "1"], ["2", "3"]], texttemplate: "%{text}",
    textfont: {size: 20}}];
  const layout = {margin: {l: 0, r: 0, t: 0, b: 0}};
  const chico = mapa(1);
  numerosQueCaben(chico, layout, 60, 60, 0.6); // casillas de 30 px: 0.95 · min(30 / 2.4, 24) = 11.9 < 14
  assert.equal(chico[0].texttemplate, "");
  const medio = mapa(1);
  numerosQueCaben(medio, layout, 80, 80, 0.6); // 0.95 · 40 / 2.4 = 15.8
  assert.equal(medio[0].textfont.size, 15.8);
});

test("numerosDelTelefono: la letra que cabe en la casilla con el ancho de verdad; sin lugar, sin números", () => {
  const t = () => [{type: "heatmap", texttemplate: "%{text}", textfont: {size: 12}, text: [["0.86", "0.07"]]}];
  const a = t();
  numerosDelTelefono(a, {}, {0: [40, 2]}, 310, AJUSTES); // 40 − 20/2 = 30 px: 30 / (0.7 · 4) = 10
  assert.equal(a[0].textfont.size, 10);
  const b = t();
  numerosDelTelefono(b, {}, {0: [20, 2]}, 300, AJUSTES); // 5 px
  assert.equal(b[0].texttemplate, "");
  const c = t();
  numerosDelTelefono(c, {}, {0: [40, 2]}, 330, AJUSTES); // a 390 px (la figura, 330): 40 / 2.8 = 14 ≥ 12
  assert.deepEqual(c, t());
  const oculta = t();
  numerosDelTelefono(oculta, {}, {0: [5, 2]}, 0, AJUSTES); // sin ancho: todavía no se mide
  assert.deepEqual(oculta, t());
});

// Los casos de tests/test_figuras.py (el servidor manda la letra de siempre y el ancho de las casillas a 390 px).
const mapaDe = (columnas, texto, size = 16) =>
  [{type: "heatmap", texttemplate: "%{text}", textfont: {size}, text: Array(columnas).fill(Array(columnas).fill(texto))}];

test("numerosDelTelefono: 12 columnas de «−0.97» no caben a 8 px; 5, sí, en letra más chica", () => {
  const area = 330 - 45 - 30; // el área de dibujo de un teléfono de 390 px (la barra de color, al pie)
  const doce = mapaDe(12, "−0.97", 13);
  numerosDelTelefono(doce, {}, {0: [area / 12, 12]}, 330, AJUSTES);
  assert.equal(doce[0].texttemplate, "");
  const cinco = mapaDe(5, "−0.97");
  numerosDelTelefono(cinco, {}, {0: [area / 5, 5]}, 330, AJUSTES);
  const tam = cinco[0].textfont.size;
  assert.equal(cinco[0].texttemplate, "%{text}");
  assert.ok(tam >= 8 && tam < 16 && tam * 0.7 * "−0.97".length <= area / 5, tam);
  assert.equal(tam, Math.floor(area / 5 / (0.7 * 5)));
  // A 360 px (la figura, 300) menos, a 430 (370) más, y nunca más que la de siempre.
  const angosto = mapaDe(5, "−0.97");
  numerosDelTelefono(angosto, {}, {0: [area / 5, 5]}, 300, AJUSTES);
  assert.ok(angosto[0].textfont.size < tam);
  const ancho = mapaDe(5, "−0.97");
  numerosDelTelefono(ancho, {}, {0: [area / 5, 5]}, 370, AJUSTES);
  assert.ok(ancho[0].textfont.size > tam && ancho[0].textfont.size <= 16);
});

test("maquetar: la figura del valor no cambia y lleva meta vacía", () => {
  const figura = {data: [{type: "bar", marker: {color: "#222222"}}], layout: {meta: {figura: 1, angosto: {}}, height: 300,
    font: {color: "#222222"}}};
  const copia = structuredClone(figura);
  const [data, layout] = maquetar(figura, {...PAGINA, oscuro: true, fondo: "rgb(11, 15, 25)"}, AJUSTES);
  assert.deepEqual(figura, copia);
  assert.deepEqual(layout.meta, {figura: 1});
  assert.equal(layout.font.color, "#e6e6e6");
  assert.equal(data[0].marker.color, "#e6e6e6");
  assert.equal(layout.paper_bgcolor, "rgb(11, 15, 25)");
  assert.equal(layout.plot_bgcolor, "rgb(11, 15, 25)");
});

test("maquetar: en un teléfono aplica los cambios de meta.angosto y elige el panel", () => {
  const figura = {
    data: [{visible: true}, {visible: true}],
    layout: {height: 300, meta: {angosto: {layout: {height: 700}, datos: {1: {visible: false}}}},
      updatemenus: [{buttons: [{method: "update", args: [{visible: [true, false]}, {}]},
        {method: "update", args: [{visible: [false, true]}, {"annotations[0].text": "B"}]}]}],
      annotations: [{text: "A"}]},
  };
  const [data, layout] = maquetar(figura, {...PAGINA, angosto: true, ancho: 330, elegido: 1}, AJUSTES);
  assert.equal(layout.height, 700);
  assert.deepEqual(data.map((t) => t.visible), [false, true]);
  assert.equal(layout.annotations[0].text, "B");
  assert.equal(layout.updatemenus[0].active, 1);
});

test("maquetar: sin proyector, un título de eje y más largo que su panel se parte en renglones", () => {
  // Atención cruzada a 1280 px: 41 letras de 16.8 px en un panel de 400 − 80 − 60 = 260 px no caben (se salía «Ob»).
  const titulo = "Objetivo: palabra que mira (consulta, Q)";
  const figura = {data: [], layout: {height: 400, margin: {t: 80, b: 60}, yaxis: {title: {text: titulo}}}};
  const [, layout] = maquetar(figura, {...PAGINA, ancho: 1280}, AJUSTES);
  assert.ok(layout.yaxis.title.text.includes("<br>"));
  assert.equal(layout.yaxis.title.text.replaceAll("<br>", " "), titulo);
  const corto = {data: [], layout: {height: 400, margin: {t: 80, b: 60}, yaxis: {title: {text: "Peso"}}}};
  assert.equal(maquetar(corto, {...PAGINA, ancho: 1280}, AJUSTES)[1].yaxis.title.text, "Peso");
});

test("cabeAncha: la figura de siempre no cabe si un título, una nota o un número no caben en su lugar", () => {
  const medir = (texto, letra) => texto.length * 0.5 * letra; // una letra: media de su tamaño
  const figura = (ancho, extra = {}) => ({
    data: [{type: "heatmap", xaxis: "x", yaxis: "y", texttemplate: "%{text}", textfont: {size: 10},
      text: [["0.25", "0.75"], ["0.50", "0.50"]]}],
    layout: {margin: {l: 50, r: 50}, font: {size: 10}, title: {text: "Un título de figura", font: {size: 20}},
      xaxis: {domain: [0, 0.45], title: {text: "Columna"}}, xaxis2: {domain: [0.55, 1], title: {text: "Otra"}},
      annotations: [{xref: "paper", yref: "paper", x: 0.225, y: 1, xanchor: "center", yanchor: "bottom",
        text: "Panel de la izquierda"}], ...extra},
    ancho,
  });
  const cabe = ({data, layout, ancho}) => cabeAncha({data, layout}, ancho, AJUSTES, medir);
  assert.equal(cabe(figura(1000)), true);
  assert.equal(cabe(figura(150)), false); // el título de la figura (190 px) no cabe en 150
  // El título de un panel: «Panel de la izquierda» mide 105 px; su panel y el hueco, (300 − 100) · 0.55 = 110.
  assert.equal(cabe(figura(300, {title: {text: "T"}})), true);
  assert.equal(cabe(figura(280, {title: {text: "T"}})), false);
  // Un número más ancho que su casilla: «0.25» mide 20 px en letra de 10.
  const numeros = figura(1000, {title: {text: "T"}});
  numeros.data[0].textfont.size = 120; // 240 px en casillas de 900 · 0.45 / 2 ≈ 202
  assert.equal(cabe(numeros), false);
  // Sin ancho (todavía oculta), la de siempre; sin `medir` (Node), la cota de ANCHO_DE_LETRA.
  assert.equal(cabe(figura(0)), true);
  assert.equal(cabeAncha(figura(1000), 1000, AJUSTES), true);
});

test("maquetar: donde la de siempre no cabe va la de teléfono, también en una página ancha", () => {
  const figura = {data: [{type: "bar"}], layout: {height: 300, margin: {l: 40, r: 40, t: 40, b: 40}, font: {size: 14},
    title: {text: "Un título bastante largo para una figura angosta"},
    meta: {angosto: {layout: {height: 500}}}}};
  const medir = (texto, letra) => texto.length * 0.5 * letra;
  const [, ancha] = maquetar(figura, {...PAGINA, ancho: 1200, medir}, AJUSTES);
  assert.equal(ancha.height, 300);
  assert.deepEqual(ancha.meta, {figura: 1});
  const [, angosta] = maquetar(figura, {...PAGINA, ancho: 300, medir}, AJUSTES);
  assert.equal(angosta.height > 300, true);
  assert.deepEqual(angosta.meta, {figura: 1, angosta: true});
  // En el proyector, la figura de siempre (tiene sus reglas: la letra, los títulos partidos).
  const [, proyector] = maquetar(figura, {...PAGINA, ancho: 300, alto: 400, medir}, AJUSTES);
  assert.deepEqual(proyector.meta, {figura: 1});
  // Ya dibujada en este ancho con textos que se pisan (noCabe), la de teléfono aunque cabeAncha diga que cabe; en el
  // proyector, no.
  const [, pisada] = maquetar(figura, {...PAGINA, ancho: 1200, medir, noCabe: true}, AJUSTES);
  assert.deepEqual(pisada.meta, {figura: 1, angosta: true});
  const [, pisadaProyector] = maquetar(figura, {...PAGINA, ancho: 1200, alto: 400, medir, noCabe: true}, AJUSTES);
  assert.deepEqual(pisadaProyector.meta, {figura: 1});
});

test("textosQueSePisan: dos textos que se cruzan más de 1 px, o uno que se sale de la figura", () => {
  const caja = (left, top, ancho = 40, alto = 12, girada = false) =>
    ({left, right: left + ancho, top, bottom: top + alto, girada});
  const marco = {left: 0, right: 300, top: 0, bottom: 200};
  assert.equal(textosQueSePisan([], marco), false);
  assert.equal(textosQueSePisan([caja(10, 10), caja(50, 10), caja(10, 22)], marco), false); // se tocan, no se pisan
  assert.equal(textosQueSePisan([caja(10, 10), caja(49, 10)], marco), false); // 1 px: no cuenta
  assert.equal(textosQueSePisan([caja(10, 10), caja(47, 10)], marco), true); // «−0.97−0.57»
  assert.equal(textosQueSePisan([caja(10, 10), caja(40, 15)], marco), true);
  // Nombres a −45°: sus cajas se cruzan sin que las letras se toquen; solo cuentan si se salen.
  assert.equal(textosQueSePisan([caja(10, 10, 40, 40, true), caja(30, 10, 40, 40, true)], marco), false);
  assert.equal(textosQueSePisan([caja(-5, 10, 40, 40, true)], marco), true);
  // Fuera de la figura: el número de la barra más larga, por la derecha.
  assert.equal(textosQueSePisan([caja(262, 10)], marco), true);
  assert.equal(textosQueSePisan([caja(261, 10)], marco), false);
});
