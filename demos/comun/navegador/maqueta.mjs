// Maquetar una figura de la suite para la página: funciones puras sobre el {data, layout} de Plotly (sin DOM), que
// `maquetar` encadena según lo que mide la página (`pagina`: modo, ancho, alto de proyector…). Las prueba
// tests/js/maqueta.test.mjs con `node --test`; figuras.mjs las llama con las medidas de verdad.

export const LETRA_MINIMA_PROYECTOR = 14;
const LLAVES_DE_LETRA = new Set(["font", "textfont", "tickfont", "insidetextfont", "outsidetextfont"]);
const LLAVES_DE_COLOR = new Set(["color", "gridcolor", "linecolor", "zerolinecolor", "tickcolor", "bordercolor"]);

// La escala de la letra en el proyector: crece con la ventana (≥ 14 px a 1280 × 720), a lo sumo el doble.
export const escalaProyector = (ancho, alto) => Math.min(2, Math.max(1, Math.min(ancho / 1280, alto / 720)));

// Recorre un objeto de Plotly: cambia las tintas (oscuro) y escala las letras (proyector).
export const recorrer = (o, tintas, escala) => {
  if (Array.isArray(o)) { o.forEach((v) => recorrer(v, tintas, escala)); return; }
  if (!o || typeof o !== "object") return;
  for (const [k, v] of Object.entries(o)) {
    if (tintas && LLAVES_DE_COLOR.has(k) && typeof v === "string" && tintas[v.toLowerCase()]) {
      o[k] = tintas[v.toLowerCase()];
    } else if (escala && LLAVES_DE_LETRA.has(k) && v && typeof v === "object" && typeof v.size === "number") {
      v.size = Math.round(Math.max(v.size, LETRA_MINIMA_PROYECTOR) * escala * 10) / 10;
      recorrer(v, tintas, escala);
    } else if (v && typeof v === "object") recorrer(v, tintas, escala);
  }
};

export const aplicarCambios = (data, layout, cambios) => {
  for (const [k, v] of Object.entries(cambios.layout || {})) v === null ? delete layout[k] : (layout[k] = v);
  for (const [i, c] of Object.entries(cambios.datos || {})) {
    const t = data[Number(i)];
    if (t) for (const [k, v] of Object.entries(c)) v === null ? delete t[k] : (t[k] = v);
  }
};

// «annotations[3].visible» -> layout.annotations[3].visible = v (las rutas de una opción de un desplegable).
export const poner = (o, ruta, v) => {
  const partes = ruta.replace(/\[(\d+)\]/g, ".$1").split(".");
  const ultima = partes.pop();
  for (const p of partes) if (!(o = o[p])) return;
  o[ultima] = v;
};

// Paneles de a uno (pantalla_angosta.selector): la opción k del desplegable, como si se la hubiera elegido.
export const elegir = (data, layout, k) => {
  const menu = (layout.updatemenus || [])[0];
  const opcion = menu && menu.buttons && menu.buttons[k];
  if (!opcion || opcion.method !== "update") return;
  const [trazos, cambios] = opcion.args;
  (trazos.visible || []).forEach((v, i) => { if (data[i]) data[i].visible = v; });
  for (const [ruta, v] of Object.entries(cambios || {})) poner(layout, ruta, v);
  menu.active = k;
};

// Una línea en renglones de a lo sumo `cabe` letras, sin cortar palabras (una más larga va sola en el suyo).
export const renglones = (linea, cabe) => {
  const lineas = [""];
  for (const palabra of linea.split(" ")) {
    const ultima = lineas[lineas.length - 1];
    if (ultima && (ultima + " " + palabra).length > cabe) lineas.push(palabra);
    else lineas[lineas.length - 1] = ultima ? ultima + " " + palabra : palabra;
  }
  return lineas;
};

// Proyector: el título de la figura, con la letra agrandada, en líneas que caben en su ancho (una letra mide
// `anchoDeLetra` de su tamaño: ANCHO_DE_LETRA, el de Python); el margen de arriba crece una línea por cada línea de
// más. Una figura angosta (una columna junto a una tabla) se salía por los dos lados.
export const partirTitulo = (layout, ancho, anchoDeLetra) => {
  const t = layout.title;
  if (!t || typeof t.text !== "string" || !t.font || !t.font.size || t.text.includes("<br>")) return;
  const cabe = Math.max(12, Math.floor((ancho - 16) / (anchoDeLetra * t.font.size)));
  if (t.text.length <= cabe) return;
  const lineas = renglones(t.text, cabe);
  t.text = lineas.join("<br>");
  layout.margin = {...(layout.margin || {})};
  layout.margin.t = (layout.margin.t || 0) + (lineas.length - 1) * t.font.size * 1.25;
};

// Los tramos de los dominios en y (sin repetir), de abajo arriba; null si se enciman (no es una columna de paneles).
export const tramosEnY = (layout) => {
  const tramos = [];
  for (const [k, e] of Object.entries(layout)) {
    if (!k.startsWith("yaxis") || !e || !Array.isArray(e.domain)) continue;
    if (!tramos.some(([a, b]) => a === e.domain[0] && b === e.domain[1])) tramos.push([e.domain[0], e.domain[1]]);
  }
  tramos.sort((x, y) => x[0] - y[0]);
  return tramos.some(([, b], i) => i && tramos[i - 1][1] > tramos[i][0] + 1e-9) ? null : tramos;
};

// Proyector: la figura se achica a lo que cabe bajo lo de arriba, pero su letra no (crece con la ventana). Los
// huecos entre filas de paneles, que son fracciones del área, se achicaban con ella: en variantes, las marcas del
// eje x de la fila de arriba pisaban el título de la de abajo. Aquí los huecos conservan sus píxeles (los de la
// figura sin achicar, `natural`) y lo que falta sale de los paneles (como estirarPaneles en un teléfono, al revés).
// Se mueve con ellos lo que va en fracciones del área: los dominios en y, las notas y formas del papel y las barras
// de color de pie.
export const huecosEnPixeles = (data, layout, natural) => {
  const m = layout.margin || {};
  const area = layout.height - (m.t || 0) - (m.b || 0);
  const areaNatural = natural - (m.t || 0) - (m.b || 0);
  if (!(area > 0) || area >= areaNatural) return;
  const tramos = tramosEnY(layout);
  if (!tramos || tramos.length < 2) return;
  // Los bordes, de abajo arriba: 0, a1, b1, a2, b2…, 1; entre b_i y a_i+1, un hueco.
  const viejos = [0, ...tramos.flat(), 1];
  const huecos = [];
  let paneles = 0;
  for (let i = 1; i < viejos.length; i++) {
    const f = viejos[i] - viejos[i - 1];
    if (i % 2) huecos.push((f * areaNatural) / area); // el hueco, con sus píxeles de antes
    else paneles += f;
  }
  const libre = 1 - huecos.reduce((x, y) => x + y, 0);
  if (libre < 0.25 * paneles) return; // no caben: mejor como viene
  const k = libre / paneles;
  const nuevos = [0];
  for (let i = 1; i < viejos.length; i++) {
    nuevos.push(nuevos[i - 1] + (i % 2 ? huecos[(i - 1) / 2] : (viejos[i] - viejos[i - 1]) * k));
  }
  const mover = (y) => {
    let i = 1;
    while (i < viejos.length - 1 && y > viejos[i] + 1e-9) i++;
    const [v0, v1, n0, n1] = [viejos[i - 1], viejos[i], nuevos[i - 1], nuevos[i]];
    return Math.round((n0 + (v1 > v0 ? ((y - v0) * (n1 - n0)) / (v1 - v0) : 0)) * 1e4) / 1e4;
  };
  moverEnY(data, layout, mover);
};

// Lo que va en fracciones del área a lo alto, movido por `mover` (una fracción vieja -> la nueva): los dominios en
// y, las notas y formas del papel y las barras de color de pie (las acostadas van al pie, fuera del área).
export const moverEnY = (data, layout, mover) => {
  for (const [clave, e] of Object.entries(layout)) {
    if (clave.startsWith("yaxis") && e && Array.isArray(e.domain)) e.domain = e.domain.map(mover);
  }
  for (const n of layout.annotations || []) if (n.yref === "paper" && typeof n.y === "number") n.y = mover(n.y);
  for (const f of layout.shapes || []) {
    if (f.yref === "paper") for (const c of ["y0", "y1"]) if (typeof f[c] === "number") f[c] = mover(f[c]);
  }
  for (const t of data) {
    const c = t.colorbar;
    if (!c || c.orientation === "h" || c.yref === "container" || typeof c.y !== "number" || typeof c.len !== "number") continue;
    const abajo = mover(c.y - c.len / 2);
    const arriba = mover(c.y + c.len / 2);
    c.y = (abajo + arriba) / 2;
    c.len = arriba - abajo;
  }
};

// Teléfono: el título de la figura en líneas que caben en el ancho de la página (una letra mide ANCHO_DE_LETRA de su
// tamaño). Es la única regla: el servidor lo manda entero, con sus saltos de línea propios (pantalla_angosta.apilar),
// y un margen de arriba para esas líneas (pantalla._arriba); cada línea de más suma RENGLON px al margen, y a la
// figura. Se parte el de la figura de siempre (`normal`). A 560 px, el de la tubería de CBAM iba en seis líneas
// donde caben cuatro.
export const tituloDelTelefono = (layout, normal, ancho, ajustes) => {
  const t = layout.title;
  const original = normal.title && normal.title.text;
  if (!t || typeof t.text !== "string" || typeof original !== "string" || !(ancho > 0)) return;
  const cabe = Math.max(12, Math.floor(ancho / (ajustes.ANCHO_DE_LETRA * ((t.font && t.font.size) || ajustes.LETRA_TITULO))));
  const texto = original.split("<br>").flatMap((linea) => renglones(linea, cabe)).join("<br>");
  const mas = texto.split("<br>").length - t.text.split("<br>").length;
  layout.title = {...t, text: texto};
  // Varias líneas, desde arriba: centradas en el margen, pisaban el panel.
  if (texto.includes("<br>")) layout.title = {...layout.title, y: 1, yref: "container", yanchor: "top", pad: {t: 24}};
  if (!mas || !layout.margin) return;
  layout.margin = {...layout.margin, t: layout.margin.t + ajustes.RENGLON * mas};
  layout.height += ajustes.RENGLON * mas;
};

// Teléfono: los paneles apilados, a los altos que piden en píxeles; los huecos entre ellos conservan sus píxeles y
// la figura crece o se achica lo mismo (una nota bajo el área queda a la misma distancia de su borde). Es la única
// regla de los altos del teléfono: el servidor manda lo que cada panel pide (`angosto`, pantalla_angosta.terminar y
// .medida) y aquí se estira con el ancho de verdad. Lo que pide un panel:
// - `minimos` ({eje y: px}): uno de curvas, barras o histograma no mide menos que ALTO_PANEL más su parte del eje x
//   de abajo, y un mapa, lo que pide el título de su eje y (de lado);
// - `medida` ([eje y, ancho en px a ANCHO_FIGURA, alto / ancho, tope]): uno de proporción fija (una imagen de
//   píxeles cuadrados, un mapa de casillas cuadradas) mide lo que pide a lo ancho, a lo sumo su tope. El servidor lo
//   mide para ANCHO_FIGURA: a 430 px, las fotos de CBAM medían lo mismo que a 390 y dejaban 50 px en blanco a los
//   lados (a 560, 240).
export const estirarPaneles = (data, layout, {minimos = {}, medida = []}, ancho, anchoFigura) => {
  const m = layout.margin || {};
  const area = layout.height - (m.t || 0) - (m.b || 0);
  if (!(area > 0)) return;
  const tramos = tramosEnY(layout);
  if (!tramos) return; // encimados (no es una columna de paneles): como vienen
  const altos = tramos.map(([a, b]) => (b - a) * area);
  const tramo = (eje) => {
    const e = layout[eje];
    return e && Array.isArray(e.domain) ? tramos.findIndex(([a, b]) => a === e.domain[0] && b === e.domain[1]) : -1;
  };
  for (const [eje, px] of Object.entries(minimos)) {
    const i = tramo(eje);
    if (i >= 0) altos[i] = Math.max(altos[i], px);
  }
  const delta = ancho > 0 ? ancho - anchoFigura : 0;
  for (const [eje, px, proporcion, tope] of medida) {
    const i = tramo(eje);
    if (i < 0 || Math.abs(delta) < 2) continue;
    const [x0, x1] = (layout["xaxis" + eje.slice(5)] || {}).domain || [0, 1];
    altos[i] = Math.max(20, Math.min(tope, (px + delta * (x1 - x0)) * proporcion));
  }
  // Los bordes en píxeles desde abajo, antes y después: 0, a1, b1, a2, b2…, el alto del área.
  const viejos = [0, ...tramos.flat().map((y) => y * area), area];
  const nuevos = [0];
  for (let i = 1; i < viejos.length; i++) {
    nuevos.push(nuevos[i - 1] + (i % 2 ? viejos[i] - viejos[i - 1] : altos[(i - 2) / 2]));
  }
  const nueva = nuevos[nuevos.length - 1];
  if (Math.abs(nueva - area) < 1) return;
  const mover = (y) => {
    const px = y * area;
    let i = 1;
    while (i < viejos.length - 1 && px > viejos[i] + 1e-6) i++;
    const [v0, v1, n0, n1] = [viejos[i - 1], viejos[i], nuevos[i - 1], nuevos[i]];
    const enPx = n0 + (px - v0) * (v1 > v0 ? (n1 - n0) / (v1 - v0) : 1);
    return Math.round((enPx / nueva) * 1e4) / 1e4;
  };
  moverEnY(data, layout, mover);
  for (const [k, e] of Object.entries(layout)) {
    if (k.startsWith("yaxis") && e && Array.isArray(e.domain)) e.domain = e.domain.map((y) => Math.min(1, Math.max(0, y)));
  }
  layout.height = Math.round(layout.height + nueva - area);
};

// Proyector: el título de un panel va sobre su borde de arriba, y la primera marca del eje y (el «0» de una fila
// de casillas) asoma sobre ese borde la mitad de su letra menos media casilla. Con la letra agrandada y el panel
// achicado, asomaba ≈ 5 px y tocaba el título (variantes: casillas de 8 px, marcas de 14). El título sube 0.4 de
// la letra del proyector, como en un teléfono (pantalla.py: «yshift» 4).
export const titulosSobreLasMarcas = (layout, escala) => {
  const bordes = new Set();
  for (const [k, e] of Object.entries(layout)) {
    if (k.startsWith("yaxis") && e && Array.isArray(e.domain)) bordes.add(Math.round(e.domain[1] * 1e3));
  }
  const sube = Math.ceil(0.4 * LETRA_MINIMA_PROYECTOR * escala);
  let arriba = false;
  for (const n of layout.annotations || []) {
    if (n.yref === "paper" && n.yanchor === "bottom" && bordes.has(Math.round(n.y * 1e3))) {
      arriba ||= n.y >= Math.max(...[...bordes]) / 1e3 - 1e-3;
      n.yshift = Math.max(n.yshift || 0, sube);
    }
  }
  // Los de la fila de arriba suben hacia el título de la figura (CBAM los tocaba): el área baja lo mismo, y el
  // título de la figura va desde arriba (centrado en el margen, bajaba la mitad de lo que este crece).
  if (!arriba) return;
  layout.margin = {...(layout.margin || {}), t: ((layout.margin || {}).t || 0) + sube};
  if (layout.title && layout.title.text) {
    // Con «top», Plotly sube 12 px un título de varias líneas (como en tituloDelTelefono).
    const pad = layout.title.text.includes("<br>") ? 24 : 8;
    layout.title = {...layout.title, y: 1, yref: "container", yanchor: "top", pad: {t: Math.round(pad * escala)}};
  }
};

// El título de un eje y va de lado, y puede medir más que su panel: en el proyector, con la letra agrandada y el
// panel achicado (variantes: «Ficha que mira (consulta)», ≈ 190 px junto a paneles de 130, bajaba hasta el de la fila
// de abajo); a 1280 px, en atención cruzada («Objetivo: palabra que mira (consulta, Q)», 41 letras en 260 px, perdía
// «Ob»); en un teléfono, junto a un panel de curvas de 190 px («Memoria de los pesos (MB, escala log)» mide 346). Se
// parte en líneas que caben en el alto del panel: una letra mide ANCHO_DE_LETRA de su tamaño (Plotly hace el título de
// un eje 1.2 veces la letra de la figura), y se deja la holgura HOLGURA_DE_LADO. `abajo`: los píxeles del área que se
// lleva el eje x de abajo (en un teléfono, `angosto.abajo`: pantalla_angosta._empuje_abajo). Es la única regla de los
// títulos de lado, salvo los de un mapa de teléfono: esos los parte el servidor, porque el ancho de sus casillas
// depende de sus líneas (pantalla_mapas.ocupado_a_la_izquierda), y llegan con sus líneas (se dejan como vienen).
export const partirTitulosDeLado = (layout, alto, {ANCHO_DE_LETRA, HOLGURA_DE_LADO}, abajo = 0) => {
  const m = layout.margin || {};
  const area = alto - (m.t || 0) - (m.b || 0) - abajo;
  const letraFigura = (layout.font && layout.font.size) || 14;
  for (const [k, e] of Object.entries(layout)) {
    const t = k.startsWith("yaxis") && e && e.title;
    if (!t || typeof t.text !== "string" || !t.text || t.text.includes("<br>")) continue;
    const d = Array.isArray(e.domain) ? e.domain : [0, 1];
    const letra = (t.font && t.font.size) || 1.2 * letraFigura;
    const cabe = Math.max(8, Math.floor((HOLGURA_DE_LADO * area * (d[1] - d[0])) / (ANCHO_DE_LETRA * letra)));
    if (t.text.length <= cabe) continue;
    e.title = {...t, text: renglones(t.text, cabe).join("<br>")};
    // Sin automargin, Plotly pone el título a una distancia fija del eje, y sus líneas de más caían sobre las
    // marcas (memoria: «log)» sobre el «100»); con él, el margen crece hasta que caben.
    e.automargin = true;
  }
};

// Los nombres de un eje x (las marcas que fija el servidor, una por categoría o una cada tantas, a lo sumo
// maqueta.MAX_MARCAS) que caben con el ancho de verdad del panel: va uno de cada tantos. Es la única regla que
// ralea por el ancho: en CBAM, los 32 canales se pisaban en la figura de los pesos, a 1280 px y en el proyector. De
// pie (o inclinados) cada nombre pide 1.2 veces su letra (el alto de su renglón: con 1.25, a 360 px las 7 palabras
// del clasificador, 19 px cada una en letra de 15, iban de a una sí y una no); en un teléfono, uno que va derecho
// (tickangle 0: nombres cortos bajo barras de pie) pide su largo (`anchoDeLetra` de la letra por letra, y 8 px entre
// dos). La caja se estima con los márgenes pedidos: el automargin de Plotly solo puede achicarla, y se deja un 5 % de
// holgura. `telefono` (meta.angosto.marcas, de pantalla_graficas y pantalla_mapas): en un teléfono, los ejes que se
// ralean aquí y lo que se lleva de su ancho el eje y, en px (null: pantalla ancha, todos los ejes).
export const marcasQueCaben = (layout, ancho, anchoDeLetra, telefono = null) => {
  const m = layout.margin || {};
  const letraFigura = (layout.font && layout.font.size) || 14;
  for (const [k, e] of Object.entries(layout)) {
    if (!k.startsWith("xaxis") || !e || e.tickmode !== "array" || !Array.isArray(e.tickvals)) continue;
    if (telefono && !(k in telefono)) continue;
    // Solo las de categorías (barras, casillas de un mapa): posiciones enteras a paso fijo, o los nombres de un eje
    // de categorías (las palabras de una frase en un mapa: una por casilla, o una cada tantas a paso fijo, y se
    // cuentan de a una). Las de un eje log (memoria: 10, 100, 1 000…) o las redondas de una curva quedan como vienen.
    const nombres = e.type === "category" && e.tickvals.every((x) => typeof x === "string");
    const v = nombres ? e.tickvals.map((_, i) => i) : e.tickvals;
    const paso = v.length > 1 ? v[1] - v[0] : 0;
    if (!(paso > 0) || !Array.isArray(e.ticktext) || e.ticktext.length !== v.length) continue;
    if (e.type === "log" || !v.every((x, i) => Number.isInteger(x) && x === v[0] + i * paso)) continue;
    const d = Array.isArray(e.domain) ? e.domain : [0, 1];
    const area = 0.95 * ((ancho - (m.l || 0) - (m.r || 0)) * (d[1] - d[0]) - (telefono ? telefono[k] : 0));
    const categoria = area / (v[v.length - 1] - v[0] + paso); // px por unidad del eje
    const letra = (e.tickfont && e.tickfont.size) || letraFigura;
    const largo = Math.max(...e.ticktext.map((t) => String(t).length));
    const pide = telefono && e.tickangle === 0 ? largo * anchoDeLetra * letra + 8 : 1.2 * letra;
    const cada = Math.ceil(pide / (categoria * paso));
    if (cada < 2) continue;
    e.tickvals = e.tickvals.filter((_, i) => i % cada === 0);
    e.ticktext = e.ticktext.filter((_, i) => i % cada === 0);
  }
};

// Proyector: los números de las casillas de un mapa crecen con la letra, pero la figura se achica a lo que cabe en
// la pantalla: en multicabeza, «0.18» a 14 px no cabía en las casillas de ≈ 22 px del promedio de las cabezas, y
// los números se encimaban. Cada mapa lleva los suyos a lo que cabe en su casilla (una cifra mide ANCHO_DE_LETRA de la
// letra; con 0.7, el de pantalla_lienzo.ANCHO_LETRA, los parámetros de CBAM, «12.1» en casillas de 40 px, ya no
// iban); si no llegan a LETRA_MINIMA_PROYECTOR, no van (quedan al pasar el puntero). La casilla se estima con los
// márgenes pedidos: el automargin de Plotly solo puede achicarla, y por eso se deja un 5 % de holgura.
export const numerosQueCaben = (data, layout, ancho, alto, anchoDeLetra) => {
  const m = layout.margin || {};
  const areaX = ancho - (m.l || 0) - (m.r || 0);
  const areaY = alto - (m.t || 0) - (m.b || 0);
  const dominio = (eje) => (layout[eje] && layout[eje].domain) || [0, 1];
  for (const t of data) {
    if (t.type !== "heatmap" || !Array.isArray(t.text) || !t.texttemplate || !t.textfont || !t.textfont.size) continue;
    const filas = t.text.length;
    const columnas = Array.isArray(t.text[0]) ? t.text[0].length : 0;
    if (!filas || !columnas) continue;
    const ejeY = "yaxis" + (t.yaxis || "y").slice(1);
    const dx = dominio("xaxis" + (t.xaxis || "x").slice(1));
    const dy = dominio(ejeY);
    let largo = 1;
    for (const fila of t.text) for (const x of fila) largo = Math.max(largo, String(x ?? "").length);
    const alto1 = (areaY * (dy[1] - dy[0])) / filas;
    let ancho1 = (areaX * (dx[1] - dx[0])) / columnas;
    if (layout[ejeY] && layout[ejeY].scaleanchor) ancho1 = Math.min(ancho1, alto1); // casillas cuadradas
    const cabe = 0.95 * Math.min(ancho1 / (anchoDeLetra * largo), 0.8 * alto1);
    if (cabe >= t.textfont.size) continue;
    if (cabe < LETRA_MINIMA_PROYECTOR) t.texttemplate = "";
    else t.textfont.size = Math.floor(cabe * 10) / 10;
  }
};

// Teléfono: los números de las casillas de un mapa (o de la capa de una imagen) van a lo que cabe con el ancho de
// verdad, o no van (quedan al tocar). Es la única regla: el servidor manda la letra de siempre y, en `casillas`
// (pantalla_lienzo.Lienzo.casillas), por trazo [el ancho de su casilla a ANCHO_FIGURA px, cuántas columnas reparten
// el ancho]. En una página más angosta (un Android de 360 px: la figura mide ≈ 300) el área de dibujo pierde lo que
// falta y los márgenes no: las casillas de un mapa de 5 columnas, ≈ 6 px menos cada una, y en atención cruzada
// «0.86» y «0.07» se encimaban. Una cifra (o el signo menos) mide ANCHO_LETRA de la letra.
export const numerosDelTelefono = (data, layout, casillas, ancho, {ANCHO_FIGURA, ANCHO_LETRA, LETRA_MINIMA}) => {
  if (!(ancho > 0)) return; // sin ancho (todavía oculta), nada que medir
  const falta = ANCHO_FIGURA - ancho;
  for (const [i, [casilla, columnas]] of Object.entries(casillas)) {
    const t = data[Number(i)];
    if (!t || !t.textfont || !Array.isArray(t.text) || !(columnas > 0) || t.type !== "heatmap") continue;
    const eje = layout["xaxis" + (t.xaxis || "x").slice(1)] || {};
    const [x0, x1] = eje.domain || [0, 1];
    const ahora = casilla - (falta * (x1 - x0)) / columnas;
    let largo = 1;
    for (const x of t.text.flat()) largo = Math.max(largo, String(x ?? "").length);
    const cabe = Math.floor(ahora / (ANCHO_LETRA * largo));
    if (cabe >= t.textfont.size) continue;
    t.textfont = {...t.textfont, size: cabe};
    if (cabe < LETRA_MINIMA) t.texttemplate = "";
  }
};

// Pantalla ancha, sin proyector: ¿cabe la figura de siempre en los `ancho` px que tiene? No si su título, el de un
// panel o el de un eje x mide más que su lugar (el de un eje x puede tomar el hueco entre dos paneles), una nota del
// papel más que la figura, o un número más que su casilla. La figura de
// siempre se arma para una página de 1280 px; en una ventana partida a la mitad, una tableta de pie o una
// diapositiva de 900 px, la de multicabeza (5 paneles en 704 px) encimaba los títulos de sus ejes x y los números
// del promedio, y el título de la de temperatura (344 px, junto a sus controles) se salía por los dos lados. Si no
// cabe, va la de teléfono (`meta.angosto`), que se estira al ancho de verdad como en una página angosta. `medir`
// (texto, letra en px) -> px: en el navegador, lo que mide de verdad (figuras.mjs, con un lienzo); sin él, cada
// letra mide ANCHO_DE_LETRA de su tamaño (una cota: con ella, 9 figuras que caben a 1280 px no cabían).
export const HUECO_ENTRE_PANELES = 0.1;
export const ASOMA = 1.25;
export const cabeAncha = ({data, layout}, ancho, {ANCHO_DE_LETRA, LETRA_TITULO}, medir = null) => {
  if (!(ancho > 0)) return true; // sin ancho (todavía oculta): la de siempre, hasta que se vea
  const m = layout.margin || {};
  const area = ancho - (m.l || 0) - (m.r || 0);
  const letraFigura = (layout.font && layout.font.size) || 14;
  const mide = (texto, letra) => Math.max(...String(texto).split("<br>").map((l) => {
    const plano = l.replace(/<[^>]*>/g, "");
    return medir ? medir(plano, letra) : plano.length * ANCHO_DE_LETRA * letra;
  }));
  const t = layout.title;
  if (t && t.text && mide(t.text, (t.font && t.font.size) || LETRA_TITULO) > ancho) return false;
  const dominios = [];
  for (const [k, e] of Object.entries(layout)) {
    if (!k.startsWith("xaxis") || !e || e.visible === false) continue;
    const d = Array.isArray(e.domain) ? e.domain : [0, 1];
    dominios.push(d);
    const titulo = e.title && e.title.text;
    const letra = (e.title && e.title.font && e.title.font.size) || 1.2 * letraFigura;
    if (titulo && mide(titulo, letra) > area * (d[1] - d[0] + HUECO_ENTRE_PANELES)) return false;
  }
  for (const n of layout.annotations || []) {
    if (n.xref !== "paper" || !n.text || n.visible === false) continue;
    const px = mide(n.text, (n.font && n.font.size) || letraFigura);
    if (px > ancho) return false; // una nota del papel (el mensaje de un Aviso: «Pulsa «Entrenar»: aquí…»)
    if (n.yref !== "paper" || n.yanchor !== "bottom" || n.xanchor !== "center") continue;
    const d = dominios.find(([a, b]) => Math.abs((a + b) / 2 - n.x) < 1e-3); // el título de un panel: sobre su centro
    if (d && px > area * (d[1] - d[0] + HUECO_ENTRE_PANELES)) return false;
  }
  // Los números de las casillas de un mapa, en su casilla (con casillas cuadradas, el lado más corto). En un mapa
  // con la mayoría de las casillas sin número (un umbral), uno puede asomar un poco sobre la de al lado (`ASOMA`):
  // dropout a 1280 px, «1.04» de 29 px en casillas de 24. En CBAM a 368 px, 351 pares de números se pisaban.
  const alto = (layout.height || 450) - (m.t || 0) - (m.b || 0);
  for (const t of data) {
    if (t.type !== "heatmap" || !t.texttemplate || !Array.isArray(t.text) || !Array.isArray(t.text[0])) continue;
    if (t.visible === false || !t.textfont || !t.textfont.size) continue;
    const ex = layout["xaxis" + (t.xaxis || "x").slice(1)] || {};
    const ey = layout["yaxis" + (t.yaxis || "y").slice(1)] || {};
    const [dx, dy] = [ex, ey].map((e) => (Array.isArray(e.domain) ? e.domain : [0, 1]));
    let casilla = (area * (dx[1] - dx[0])) / t.text[0].length;
    if (ey.scaleanchor) casilla = Math.min(casilla, (alto * (dy[1] - dy[0])) / t.text.length);
    let largo = "";
    let vacias = 0;
    let todas = 0;
    for (const fila of t.text) {
      for (const x of fila) {
        todas++;
        const texto = String(x ?? "");
        if (!texto) vacias++;
        else if (texto.length > largo.length) largo = texto;
      }
    }
    if (mide(largo, t.textfont.size) > (vacias > todas / 2 ? ASOMA : 1) * casilla) return false;
  }
  return true;
};

// Lo que cabeAncha no estima, ya dibujado: ¿algún texto pisa a otro o se sale de su figura? `cajas`: las de los
// textos derechos de la figura (getBoundingClientRect: {left, right, top, bottom}); `marco`: la de la figura. Se
// pisan si se cruzan más de 1 px a lo ancho y a lo alto (la misma medida que las pruebas de pantalla), salvo las
// `girada` (nombres a −45°), que solo cuentan si se salen. A 900 px,
// lo que el servidor no sabe de antemano: el automargin que los nombres de un eje y la barra de color se llevan
// (máscara causal: casillas de 32 px estimadas en 42, «−0.97−0.57»), los rótulos de un diagrama en coordenadas de
// datos (bloque: «Atención multicabeza» más ancha que su caja, sobre su nota), el número de la barra más larga que
// se sale por la derecha, el título y de un panel en el hueco entre dos (CBAM: «fila» sobre «5.0»).
export const textosQueSePisan = (cajas, marco) => {
  for (const c of cajas) if (c.left < marco.left - 1 || c.right > marco.right + 1) return true;
  const derechas = cajas.filter((c) => !c.girada); // a −45°, las cajas se cruzan sin que las letras se toquen
  for (let i = 0; i < derechas.length; i++) {
    const a = derechas[i];
    for (let j = i + 1; j < derechas.length; j++) {
      const b = derechas[j];
      if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
        && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1) return true;
    }
  }
  return false;
};

// La figura que se dibuja, según la página: una copia de `figura` ({data, layout}) con sus adaptaciones.
// `pagina`: {angosto, oscuro, ancho (de la figura, px), alto (del proyector, px, o null), escala (de la letra en el
// proyector), elegido (el panel de un desplegable), fondo (el color detrás de la figura en el modo oscuro), medir
// (opcional: lo que mide un texto, cabeAncha), noCabe (la de siempre ya se dibujó en este ancho y sus textos se
// pisaban: textosQueSePisan)};
// `ajustes`: las constantes de Python (demos.comun.navegador.ajustes: TINTAS, TRANSPARENTE, ANCHO_FIGURA,
// ANCHO_LETRA, LETRA_MINIMA, LETRA_TITULO, ANCHO_DE_LETRA, RENGLON).
export const maquetar = (figura, pagina, ajustes) => {
  const {data: d0, layout: l0} = figura;
  const data = structuredClone(d0);
  const layout = structuredClone(l0);
  const {ancho, alto, escala} = pagina;
  const angosto = l0.meta && l0.meta.angosto;
  // La de teléfono: en una página angosta, o donde la de siempre no cabe (fuera del proyector, que tiene sus reglas).
  const angosta = !!angosto
    && (pagina.angosto || (!alto && (pagina.noCabe || !cabeAncha(figura, ancho, ajustes, pagina.medir))));
  if (angosta) {
    aplicarCambios(data, layout, angosto);
    tituloDelTelefono(layout, l0, ancho, ajustes);
    estirarPaneles(data, layout, angosto, ancho, ajustes.ANCHO_FIGURA);
    if (angosto.casillas) numerosDelTelefono(data, layout, angosto.casillas, ancho, ajustes);
  }
  if (pagina.elegido) elegir(data, layout, pagina.elegido);
  // meta es de «editType: plot» y sus listas llegan nuevas con cada valor: Plotly.react lo tomaría por un
  // cambio que pide rehacer la figura entera.
  layout.meta = angosta ? {figura: 1, angosta: true} : {figura: 1};
  if (alto) {
    // Los cuadritos de color de unos rótulos (pantalla_mapas._cuadritos: un tamaño por texto) crecen con su letra.
    const cuadritos = data.map((t) => t.mode === "markers+text" && t.marker && Array.isArray(t.marker.size) && t.textfont && t.textfont.size);
    recorrer([data, layout], null, escala);
    data.forEach((t, i) => {
      if (cuadritos[i]) t.marker.size = t.marker.size.map((s) => Math.round(s * t.textfont.size / cuadritos[i]));
    });
    layout.height = alto;
    if (layout.margin) for (const k of ["l", "r", "t", "b"]) if (layout.margin[k]) layout.margin[k] *= escala;
    huecosEnPixeles(data, layout, (l0.height || 450) * escala);
    titulosSobreLasMarcas(layout, escala);
    partirTitulosDeLado(layout, alto, ajustes);
    partirTitulo(layout, ancho, ajustes.ANCHO_DE_LETRA);
    numerosQueCaben(data, layout, ancho, alto, ajustes.ANCHO_DE_LETRA);
  } else {
    // Sin proyector, la figura va con su alto.
    partirTitulosDeLado(layout, layout.height || 450, ajustes, (angosta && angosto.abajo) || 0);
  }
  if (!angosta) marcasQueCaben(layout, ancho, ajustes.ANCHO_DE_LETRA);
  else if (angosto.marcas) marcasQueCaben(layout, ancho, ajustes.ANCHO_DE_LETRA, angosto.marcas);
  if (pagina.oscuro) {
    recorrer([data, layout], ajustes.TINTAS, 0);
    layout.paper_bgcolor = pagina.fondo;
    if (layout.plot_bgcolor !== ajustes.TRANSPARENTE) layout.plot_bgcolor = layout.paper_bgcolor;
  }
  return [data, layout];
};
