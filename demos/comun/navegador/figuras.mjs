// Las figuras de la suite en el navegador: se adaptan a la página antes de dibujarse y se redibujan poco.
//
// Cada Figura (componente.py, un gr.HTML) entrega aquí cada valor que recibe (`recibir`), con su <div>, el
// mismo de un valor al siguiente: Plotly.react cambia solo lo que cambió. Antes de dibujar, la figura se adapta
// (maqueta.mjs, con las medidas de la página):
// - modo oscuro (body.dark de Gradio): papel y área del color de la página, textos y rejilla claros
//   (cada tinta de TINTAS por su par; las cajas claras de un diagrama conservan su texto oscuro);
// - teléfono (página de menos de ANCHO_MAXIMO px): lo que trae layout.meta.angosto (paneles apilados,
//   títulos partidos, números de casilla que caben o ninguno); si los paneles van de a uno, con un
//   desplegable, el que eligió el estudiante sigue elegido cuando llega otro valor;
// - proyector (html.presentacion): la letra crece con la ventana (≥ 14 px a 1280 × 720) y la figura cabe
//   bajo lo que tiene arriba;
// - una figura oculta (una pestaña cerrada, un iframe de una diapositiva que no se ve) no se dibuja a
//   0 × 0: se dibuja cuando se hace visible (ResizeObserver), como si hubiera cargado visible.
// - una figura ya dibujada que está fuera de la pantalla (más abajo en la página) recibe su valor nuevo
//   después de que se pinta la que se ve: cuando el navegador queda libre (requestIdleCallback, a lo sumo
//   ESPERA_DIFERIDA_MS) o antes, si se acerca a la vista (IntersectionObserver). Así un movimiento pinta
//   primero lo que el estudiante mira, sin esperar a las figuras de abajo.
// - si un movimiento cambia varias figuras que se ven (Gradio las entrega en el mismo turno), la primera se
//   dibuja ya y las demás de a una, en orden de la página, cada una después del cuadro que pintó la anterior:
//   la primera se ve sin esperar a que Plotly rehaga las otras.
// - un valor que ya se dibujó (una parada del barrido que el estudiante ya visitó) no pasa otra vez por Plotly:
//   cada dibujo deja una instantánea (instantaneas.mjs: una copia del <div> que Plotly armó, sin sus manejadores)
//   y volver a ese valor la pone en lugar de la figura viva, en el mismo cuadro. La figura viva (la que muestra
//   valores al pasar el puntero y tiene su barra de herramientas) vuelve cuando el control se queda quieto
//   CALMA_VIVA_MS, o antes, si el puntero entra en la figura; así un arrastre no espera a Plotly en cada parada.
//   Las paradas que mandó el servidor (barrido.mjs, en `paradas`) se dibujan de antemano, en los momentos libres
//   del navegador, en un <div> aparte del mismo tamaño (`precalentar`): el primer arrastre ya las encuentra. Nada
//   de esto calcula la lección: cada instantánea es un dibujo de Plotly de un valor que dio Python.
// Las descargas (matplotlib) no pasan por aquí: conservan el estilo claro de la lección.
//
// Lo que sabe de cada figura está en un solo lugar: `estado(g)` (un WeakMap de su <div>).

import {crearInstantaneas} from "./instantaneas.mjs";
import {escalaProyector as escalaDe, maquetar, textosQueSePisan} from "./maqueta.mjs";
import {antesEnLaPagina, masCercanas} from "./turnos.mjs";

const ESPERA_DIFERIDA_MS = 300; // lo más que espera una figura fuera de la pantalla a que el navegador quede libre
const MARGEN_VISTA = "0px"; // con que asome un píxel, la figura es de las que se ven
const CALMA_MS = 150; // tras el último valor, lo que se espera para dibujar paradas de antemano
// Tras la última instantánea puesta, lo que se espera para volver a la figura viva. Volver cuesta un Plotly.react
// que nadie pidió (variantes: 55–140 ms), y una tecla que llega mientras tanto espera a que termine: con 150 ms,
// tocar una flecha 4–5 veces por segundo caía ahí (variantes: 110–160 ms de la tecla a la figura, en vez de
// 30–45). Un estudiante que toca y mira vuelve a tocar antes de 500 ms; con el puntero sobre la figura, la viva
// vuelve enseguida. Las paradas de antemano no esperan tanto: cada una que falta es un Plotly.react en el arrastre.
const CALMA_VIVA_MS = 500;
const MAX_NODOS = 120000; // lo que guardan las instantáneas de toda la página (elementos del DOM: ≈ 20–40 MB)
const MAX_PRECALENTAR = 64; // paradas que se dibujan de antemano por figura (las más cercanas a la que se ve)

// Arranca las figuras de la página. `ajustes`: las constantes de Python (pantalla.ajustes_del_navegador);
// `paradas`: las paradas de los barridos (barrido.mjs las registra). Devuelve {recibir, marcar, estado, figura}.
export const crearFiguras = (ajustes, paradas) => {
const {ANCHO_MAXIMO} = ajustes;
const estados = new WeakMap(); // <div> de una figura -> lo que se sabe de ella
const e = (g) => {
  let s = estados.get(g);
  if (!s) estados.set(g, (s = {}));
  return s;
};
const figuras = new Set(); // los <div> de Gradio que dibujan una figura de la suite
// El ancho de una figura en el camino de un movimiento (recibir un valor, buscar su instantánea): el que anotó
// el ResizeObserver o el último dibujo, sin maquetar. Leer clientWidth justo después de poner una instantánea
// obligaba al navegador a maquetar la página en ese momento: con tres figuras, tres maquetaciones por
// movimiento (≈ 15 ms de cada tecla en temperatura). Lo demás (dibujar, que maqueta de todos modos) lee el de
// verdad: en un iframe que no se pinta, el ResizeObserver no avisa y lo anotado puede ser viejo.
const ancho = (g) => e(g).ancho ?? g.clientWidth;

const oscuro = () => !!document.body && document.body.classList.contains("dark");
const presentacion = () => document.documentElement.classList.contains("presentacion");
const angosto = () => window.innerWidth < ANCHO_MAXIMO;
// Lo que decide cómo se dibuja: si cambia, se redibuja (con el proyector, también el tamaño de la ventana).
const clave = () => [oscuro(), angosto(), presentacion() && `${window.innerWidth}x${window.innerHeight}`].join();

// Proyector: la altura de la figura, la que cabe bajo lo que tiene arriba (null fuera del proyector). Depende
// de dónde quedó la figura: disposicion.js pliega la explicación de arriba en un requestAnimationFrame, que en un
// iframe de otro origen oculto (la diapositiva que todavía no se ve) no corre hasta que se muestra.
const altoProyector = (g, figura = figuraDe(g)) => {
  if (!presentacion() || angosto()) return null;
  const arriba = g.getBoundingClientRect().top + window.scrollY;
  const escala = escalaProyector();
  const natural = (figura.layout.height || 450) * escala;
  const cabe = window.innerHeight - arriba - 8;
  // Una figura a la que no le cabe ni la mitad de su alto en la primera pantalla (una de más abajo, a la que se
  // llega bajando) va con su alto: achicada a lo que queda, la letra del proyector no dejaba área de dibujo. Una
  // que no es la principal (la de la diapositiva, que disposicion.js achica hasta que quepa), tampoco si no le
  // cabe la mitad de su área de dibujo (sin los márgenes, que crecen con la letra): a 1920 × 1080, a las barras
  // de CBAM les quedaban 64 px.
  const m = figura.layout.margin || {};
  const bordes = g.closest('[id$="-figura1"]') ? 0 : ((m.t || 0) + (m.b || 0)) * escala;
  if (cabe - bordes < 0.5 * (natural - bordes)) return Math.round(natural);
  return Math.round(Math.min(Math.max(260, cabe), natural));
};

// El color que se ve detrás de un elemento: el primer fondo no transparente hacia arriba.
const fondo = (el) => {
  for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
    const c = getComputedStyle(n).backgroundColor;
    if (c && c !== "transparent" && !/rgba\(.*,\s*0\)$/.test(c)) return c;
  }
  return "rgb(255, 255, 255)";
};
const escalaProyector = () => escalaDe(window.innerWidth, window.innerHeight);

// Lo que mide un texto en la letra de las figuras (maqueta.mjs, cabeAncha: ¿cabe la figura de siempre?), con un
// lienzo que no se pinta; la familia, la de la plantilla de Plotly de la suite.
let lienzo = null;
const medir = (familia) => (texto, letra) => {
  lienzo ||= document.createElement("canvas").getContext("2d");
  lienzo.font = `${letra}px ${familia}`;
  return lienzo.measureText(texto).width;
};
const familiaDe = (figura) => {
  const l = figura.layout || {};
  return (l.font && l.font.family) || (l.template && l.template.layout && l.template.layout.font
    && l.template.layout.font.family) || "sans-serif";
};

// La figura de siempre, ya dibujada: ¿algún texto pisa a otro o se sale de ella? (maqueta.mjs, textosQueSePisan:
// lo que cabeAncha no estima antes de dibujar). Si es así, `dibujar` pone la de teléfono en este ancho en cuanto
// Plotly termina, y la deja para los valores que siguen: un arrastre no va y vuelve de una a otra.
const medido = (nombre, g, f) => {
  const t0 = performance.now();
  const r = f(g);
  performance.measure(nombre, {start: t0, end: performance.now(), detail: bloque(g)});
  return r;
};
const GIRO = /rotate\((-?[\d.]+)/;
const sePisan = (g) => {
  const ver = {visibilityProperty: true, opacityProperty: true};
  const cajas = [];
  for (const t of g.querySelectorAll(".main-svg text")) {
    // La etiqueta del puntero (una edición con el puntero sobre la figura) no es de la figura.
    if (!t.textContent.trim() || t.closest(".hoverlayer") || (t.checkVisibility && !t.checkVisibility(ver))) continue;
    const {left, right, top, bottom, width, height} = t.getBoundingClientRect();
    const giro = (t.getAttribute("transform") || "").match(GIRO);
    if (width > 0 && height > 0) {
      cajas.push({left, right, top, bottom, girada: !!giro && Math.abs(parseFloat(giro[1])) % 90 !== 0});
    }
  }
  return textosQueSePisan(cajas, g.getBoundingClientRect());
};

// La figura que se dibuja, según la página: una copia del valor de Gradio con sus adaptaciones. `figura`: la de g
// (su valor) o la de una parada que se dibuja de antemano con el aspecto que tendría en g.
const adaptar = (g, figura = figuraDe(g)) => {
  const alto = altoProyector(g, figura);
  const pagina = {
    angosto: angosto(), oscuro: oscuro(), ancho: g.clientWidth, alto, escala: escalaProyector(),
    elegido: e(g).elegido, fondo: oscuro() ? fondo(g.parentElement) : null, medir: medir(familiaDe(figura)),
    noCabe: e(g).noCabe === `${clave()}|${g.clientWidth}`,
  };
  const [data, layout] = maquetar(figura, pagina, ajustes);
  if (figura !== figuraDe(g)) return [data, layout];
  e(g).alto = alto;
  e(g).clave = clave();
  // Los márgenes no se achican de un valor al siguiente (con la misma clave): si los nombres de un eje cambian
  // de largo, el automargin de Plotly los movería y rehacería la figura entera una segunda vez en el mismo
  // movimiento (un texto más corto: ≈ el doble de Plotly). Así el área de dibujo tampoco salta. En el proyector,
  // con la misma altura: con otra, los títulos de los ejes y se parten de otro modo (partirTitulosDeLado), y los
  // márgenes de un dibujo de paso (la figura todavía baja en la página, 260 px: «Posición que escribe» en tres
  // líneas) quedaban para siempre.
  // Y con la misma figura (la de siempre o la de teléfono, que maquetar elige por el ancho: cabeAncha).
  e(g).claveMargenes = `${e(g).clave}|${alto ?? ""}|${layout.meta.angosta ? "angosta" : ""}`;
  const m = e(g).margenes;
  if (m && m.clave === e(g).claveMargenes) {
    layout.margin = {...(layout.margin || {})};
    for (const k of ["l", "r", "t", "b"]) layout.margin[k] = Math.max(layout.margin[k] ?? 0, m[k]);
  }
  return [data, layout];
};

// Las instantáneas de toda la página (instantaneas.mjs), con la clave de la vista de cada figura.
const instantaneas = crearInstantaneas(MAX_NODOS);
let numeroDeFiguras = 0;
const bloque = (g) => g.closest(".block[id]") && g.closest(".block[id]").id;
const claveDeVista = (g) => `${(e(g).numero ??= ++numeroDeFiguras)}|${clave()}|${ancho(g)}|${e(g).elegido || 0}|`;
const contenedor = (g) => g.querySelector(":scope > .plot-container");
const olvidar = (g) => instantaneas.olvidar(g);
const buscar = (g, texto) => instantaneas.buscar(claveDeVista(g) + texto);
// La copia de lo que Plotly dibujó, sin lo que no se ve ni sirve quieto: los rectángulos que reciben el arrastre
// (draglayer) y la barra de herramientas (aparece al pasar el puntero, y entonces vuelve la figura viva). Cada
// elemento de una instantánea se estiliza y se maqueta al ponerla: en temperatura son ≈ 1 de cada 5.
const copiar = (c) => {
  const copia = c.cloneNode(true);
  for (const x of copia.querySelectorAll(".draglayer, .modebar-container")) x.remove();
  return copia;
};
const tiene = (g, texto) => instantaneas.tiene(claveDeVista(g) + texto);
const hayLugar = (n) => instantaneas.hayLugar(n);
const guardar = (g, texto, nodo) =>
  instantaneas.guardar(claveDeVista(g) + texto, g, nodo, nodo.getElementsByTagName("*").length + 1);

// Pone en g la instantánea de un valor, en lugar de lo que se ve (la figura viva queda guardada en e(g).viva).
const ponerInstantanea = (g, nodo, texto) => {
  const actual = e(g).puesta || contenedor(g);
  if (!actual) return false;
  const t0 = performance.now();
  if (!e(g).puesta) e(g).viva = actual;
  if (actual !== nodo) actual.replaceWith(nodo);
  e(g).puesta = nodo;
  e(g).enPantalla = texto;
  performance.measure("instantánea", {start: t0, end: performance.now(), detail: bloque(g)});
  porVolver.delete(g);
  clearTimeout(e(g).calma);
  e(g).calma = setTimeout(() => volverEnOrden(g), CALMA_VIVA_MS);
  return true;
};
// Si el valor `texto` ya se dibujó en g con el aspecto de ahora, pone su instantánea (sin Plotly) y g deja de
// esperar su dibujo; si no, no hace nada y devuelve false.
const conInstantanea = (g, texto) => {
  const nodo = g._fullLayout && e(g).clave === clave() && buscar(g, texto);
  if (!nodo || !ponerInstantanea(g, nodo, texto)) return false;
  e(g).diferida = e(g).siguiente = false;
  delete g.dataset.diferida;
  return true;
};
// La figura viva, otra vez en g (sin dibujarla: quien llama la dibuja en la misma tarea, sin pintar entre medio).
const reponerViva = (g) => {
  clearTimeout(e(g).calma);
  porVolver.delete(g);
  if (!e(g).puesta) return;
  e(g).puesta.replaceWith(e(g).viva);
  e(g).puesta = null;
};
// Las figuras cuya calma vence a la vez (un movimiento cambió varias): vuelven de a una, en orden de la página,
// cada una después del cuadro que pintó la anterior, como las que cambian en el mismo turno. Seguidas, dos
// Plotly.react sin pintar entre medio eran una sola tarea larga (multicabeza: 200 ms en un CI cargado).
const porVolver = new Set();
let volviendo = false;
const volverUna = () => {
  const esperan = [...porVolver].filter((f) => f.isConnected);
  porVolver.clear();
  if (!esperan.length) { volviendo = false; return; }
  const g = esperan.reduce(antesEnLaPagina);
  for (const f of esperan) if (f !== g) porVolver.add(f);
  volverViva(g);
  if (porVolver.size) requestAnimationFrame(() => setTimeout(volverUna, 0));
  else volviendo = false;
};
const volverEnOrden = (g) => {
  porVolver.add(g);
  if (!volviendo) { volviendo = true; volverUna(); }
};
// Tras la calma, o con el puntero sobre la figura: la figura viva, con el valor que se ve.
const volverViva = (g) => {
  if (!e(g).puesta || !g.isConnected) return;
  if (e(g).lejos) return; // fuera de la pantalla: al acercarse a la vista (el IntersectionObserver)
  if (ancho(g) === 0) { e(g).pendiente = true; return; }
  // La viva ya muestra ese valor con ese aspecto (el estudiante volvió a la parada de la que salió): vuelve sin
  // Plotly.
  if (e(g).textoVivo === e(g).texto && e(g).clave === clave() && e(g).dibujada_en[0] === ancho(g) && !e(g).pendiente) {
    reponerViva(g);
    e(g).enPantalla = e(g).texto;
    return;
  }
  dibujar(g);
};

// La figura que llegó del servidor muestra la parada k de su paquete (barrido.mjs la marcó: `marcar`), con el
// mismo valor pero otro texto (orjson escribe «1.0»; JSON.stringify, «1»): desde ahora lleva el de la parada. Así
// no se vuelve a dibujar de antemano, y volver a ella encuentra su dibujo (la viva o su instantánea).
const adoptar = (g, texto) => {
  const viejo = e(g).texto;
  instantaneas.renombrar(claveDeVista(g) + viejo, claveDeVista(g) + texto);
  if (e(g).textoVivo === viejo) e(g).textoVivo = texto;
  if (e(g).enPantalla === viejo) e(g).enPantalla = texto;
  e(g).texto = texto;
};
// Las paradas de un barrido (barrido.mjs las deja en `paradas`, con el paquete del servidor): las
// que no tienen instantánea se dibujan de antemano en un <div> aparte, fuera de la vista y del mismo tamaño que g,
// de a una por momento libre del navegador, de la más cercana a la que se ve a la más lejana. Se detiene si
// llega otro paquete, si no queda lugar o si la figura deja de verse.
let taller = null;
const tallerPara = (g) => {
  if (!taller || !taller.isConnected) {
    taller = document.createElement("div");
    taller.setAttribute("aria-hidden", "true");
    taller.style.cssText = "position:fixed;left:-100000px;top:0;visibility:hidden;pointer-events:none;contain:strict";
    document.body.appendChild(taller);
  }
  taller.style.width = g.clientWidth + "px";
  taller.style.height = g.clientHeight + "px";
  return taller;
};
const porPrecalentar = new Set();
let precalentando = 0;
let ultimoValor = 0; // cuándo llegó el último valor a una figura
const precalentar = (g) => {
  const marca = e(g).marcaDeParadas;
  const fuente = marca && paradas.get(marca.fuente);
  if (!fuente || fuente.paquete !== marca.paquete) return;
  e(g).porHacer = masCercanas(fuente.n, marca.k, MAX_PRECALENTAR);
  porPrecalentar.add(g);
  if (!precalentando) precalentando = pedirLibre(precalentarUna);
};
// Un momento libre del navegador, o a lo sumo 1 s (sin requestIdleCallback: Safari, 100 ms).
const pedirLibre = window.requestIdleCallback
  ? (f) => window.requestIdleCallback(f, {timeout: 1000})
  : (f) => setTimeout(f, 100);
// Una parada por momento libre (Plotly tarda 30–120 ms en una figura de varios paneles): mientras el estudiante
// mueve un control (un valor hace menos de CALMA_MS), espera.
const precalentarUna = () => {
  precalentando = 0;
  if (performance.now() - ultimoValor < CALMA_MS) {
    precalentando = setTimeout(() => { precalentando = pedirLibre(precalentarUna); }, CALMA_MS);
    return;
  }
  for (const g of porPrecalentar) {
    const marca = e(g).marcaDeParadas;
    const fuente = marca && paradas.get(marca.fuente);
    const vigente = fuente && fuente.paquete === marca.paquete && g.isConnected && ancho(g) > 0 && !e(g).lejos;
    let texto = null;
    let j = -1;
    while (vigente && e(g).porHacer.length && !texto) {
      j = e(g).porHacer.shift();
      texto = fuente.texto(j);
      if (texto && j === marca.k && texto !== e(g).texto && !e(g).puesta) adoptar(g, texto);
      if (texto && ((e(g).texto === texto && !e(g).puesta) || tiene(g, texto))) texto = null; // ya está
    }
    if (!texto || !window.Plotly) { porPrecalentar.delete(g); continue; }
    const figura = fuente.figura(j); // la que barrido.mjs acaba de armar para `texto`: sin volver a leerlo
    const [data, layout] = adaptar(g, figura);
    layout.autosize = true;
    const t = tallerPara(g);
    const t0 = performance.now();
    desdeCero(t, `${e(g).numero ??= ++numeroDeFiguras}|${!!layout.meta.angosta}`);
    window.Plotly.react(t, data, layout, {...(figura.config || {}), responsive: false});
    performance.measure("precalentar", {start: t0, end: performance.now(), detail: bloque(g)});
    const copia = contenedor(t) && copiar(contenedor(t));
    if (copia && hayLugar(copia.getElementsByTagName("*").length + 1)) guardar(g, texto, copia);
    else porPrecalentar.delete(g); // sin lugar: las más cercanas ya están
    break;
  }
  if (porPrecalentar.size) precalentando = pedirLibre(precalentarUna);
};

// De la figura de siempre a la de teléfono, o al revés (otro `dibujo`): el <div> se vacía (Plotly.purge) y la
// figura se dibuja desde cero. Con Plotly.react, lo que el automargin de los ejes de la otra había empujado quedaba:
// máscara causal, de 1280 a 390 px, con su primer mapa cortado y un área de dibujo de −175 px de alto (Plotly
// 3.7). El taller de las paradas de antemano, igual cuando pasa de una figura a otra.
const dibujoDe = new WeakMap();
const desdeCero = (g, dibujo) => {
  if (g._fullLayout && dibujoDe.get(g) !== dibujo) {
    window.Plotly.purge(g);
    e(g).escucha = false; // purge quita también los manejadores
  }
  dibujoDe.set(g, dibujo);
};

// Cada dibujo deja en la línea de tiempo de la página las medidas «adaptar» y «figura» (adaptar y lo síncrono
// de Plotly.react: las lee scripts/perfil_redibujo.py) y, la figura de siempre, «revisar» (sePisan); cada
// instantánea puesta, la medida «instantánea».
const dibujar = (g) => {
  if (!window.Plotly) {
    e(g).pendiente = true;
    return Promise.resolve(g);
  }
  reponerViva(g);
  e(g).pendiente = e(g).diferida = e(g).siguiente = false;
  delete g.dataset.diferida;
  // Otro modo, otro ancho: las instantáneas de g ya no son su aspecto.
  if (e(g).dibujada_en && (e(g).clave !== clave() || e(g).dibujada_en[0] !== g.clientWidth)) olvidar(g);
  e(g).ancho = g.clientWidth;
  e(g).dibujada_en = [e(g).ancho, g.clientHeight];
  const t0 = performance.now();
  const [data, layout] = adaptar(g);
  const t1 = performance.now();
  desdeCero(g, `${!!layout.meta.angosta}`);
  const listo = window.Plotly.react(g, data, layout, figuraDe(g).config);
  performance.measure("adaptar", {start: t0, end: t1});
  performance.measure("figura", {start: t0, end: performance.now(), detail: bloque(g)}); // lo síncrono
  e(g).enPantalla = e(g).textoVivo = e(g).texto;
  const usada = e(g).clave;
  const margenesDe = e(g).claveMargenes;
  const texto = e(g).texto;
  Promise.resolve(listo).then(() => {
    if (!layout.meta.angosta && !e(g).alto && e(g).texto === texto && e(g).clave === usada && !e(g).puesta
      && (figuraDe(g).layout.meta || {}).angosto && g.isConnected && medido("revisar", g, sePisan)) {
      e(g).noCabe = `${usada}|${e(g).ancho}`; // la de teléfono en este ancho, también para los valores que siguen
      olvidar(g);
      dibujar(g);
      return;
    }
    const s = g._fullLayout && g._fullLayout._size;
    if (s && e(g).claveMargenes === margenesDe) e(g).margenes = {clave: margenesDe, l: s.l, r: s.r, t: s.t, b: s.b};
    if (e(g).texto === texto && e(g).clave === usada && !e(g).puesta && contenedor(g)) {
      guardar(g, texto, copiar(contenedor(g)));
      precalentar(g);
    }
    if (!e(g).escucha && g.on) { // el panel elegido en un desplegable de la figura (paneles de a uno)
      e(g).escucha = true;
      g.on("plotly_buttonclicked", (ev) => { e(g).elegido = ev.active; });
    }
  }, () => {});
  if (e(g).alto) requestAnimationFrame(() => requestAnimationFrame(() => reubicada(g)));
  return listo;
};

// Proyector: si la figura se movió después de dibujarse (la disposición de la página llegó en un cuadro
// posterior) y ahora le cabe otra altura, se redibuja; como mucho tres veces por valor, por si la altura y
// el zoom de disposicion.js se persiguieran.
const reubicada = (g) => {
  if (!g.isConnected || !e(g).texto || g.clientWidth === 0 || e(g).reubicaciones >= 3) return;
  const alto = altoProyector(g);
  if (alto && e(g).alto && Math.abs(alto - e(g).alto) > 2) {
    e(g).reubicaciones = (e(g).reubicaciones || 0) + 1;
    dibujar(g);
  }
};

const observador = new ResizeObserver((entradas) => {
  for (const {target: g} of entradas) {
    e(g).ancho = g.clientWidth; // la maquetación ya está hecha: leerlo aquí no cuesta
    if (!g.isConnected || !e(g).texto || g.clientWidth === 0) continue;
    // Se hizo visible (o se dibujó oculta): de nuevo, como si hubiera cargado así.
    if (e(g).pendiente || !e(g).dibujada_en || e(g).dibujada_en[0] === 0 || e(g).clave !== clave()) dibujar(g);
    // Otro ancho que el de su dibujo (una columna que se maquetó después, un iframe oculto que se muestra con
    // otro tamaño): los textos se acomodaron a ese ancho, de nuevo; a lo sumo tres veces por valor.
    else if (Math.abs(g.clientWidth - e(g).dibujada_en[0]) > 1 && (e(g).reanchos || 0) < 3) {
      e(g).reanchos = (e(g).reanchos || 0) + 1;
      dibujar(g);
    }
  }
});

// Fuera de la pantalla: `lejos` lo mantiene el IntersectionObserver (indefinido hasta su primer aviso: se dibuja).
// Una figura diferida se dibuja al acercarse a la vista, o en un momento libre del navegador, de a una por vez
// (nueve mapas del clasificador son ≈ 100 ms: otro movimiento no espera a todas juntas).
let libre = 0;
const pedirLibreDiferida = window.requestIdleCallback
  ? (f) => window.requestIdleCallback(f, {timeout: ESPERA_DIFERIDA_MS})
  : (f) => setTimeout(f, 50);
const dibujarDiferida = (g) => {
  if (g.isConnected && e(g).texto && g.clientWidth > 0) {
    if (!e(g).pendiente && conInstantanea(g, e(g).texto)) return Promise.resolve(g); // ya dibujado: sin Plotly
    return dibujar(g);
  }
  e(g).diferida = false; // oculta o quitada: la dibuja el ResizeObserver si vuelve
  delete g.dataset.diferida;
  e(g).pendiente = true;
};
const programarDiferidas = () => {
  if (libre) return;
  libre = pedirLibreDiferida(() => {
    libre = 0;
    const g = [...figuras].find((f) => e(f).diferida);
    if (!g) return;
    dibujarDiferida(g);
    if ([...figuras].some((f) => e(f).diferida)) programarDiferidas();
  });
};
const vista = new IntersectionObserver((entradas) => {
  for (const {target: g, isIntersecting} of entradas) {
    e(g).lejos = !isIntersecting;
    if (isIntersecting && e(g).diferida) dibujarDiferida(g);
    else if (isIntersecting && e(g).puesta) { // una instantánea que llegó fuera de la vista: la viva, tras la calma
      clearTimeout(e(g).calma);
      e(g).calma = setTimeout(() => volverEnOrden(g), CALMA_VIVA_MS);
    }
  }
}, {rootMargin: MARGEN_VISTA});

// Las figuras que se ven y cambiaron en el mismo turno que otra: de a una, en orden de la página, cada una en
// una tarea después del cuadro que pintó la anterior (requestAnimationFrame corre antes de pintar; el
// setTimeout, después).
let enEsteTurno = false;
let trasElCuadro = 0;
const programarSiguiente = () => {
  if (trasElCuadro) return;
  trasElCuadro = requestAnimationFrame(() => setTimeout(() => {
    trasElCuadro = 0;
    const esperan = [...figuras].filter((f) => e(f).siguiente);
    if (!esperan.length) return;
    const g = esperan.reduce(antesEnLaPagina);
    e(g).siguiente = false;
    dibujarDiferida(g);
    if (esperan.length > 1) programarSiguiente();
  }, 0));
};

const redibujarTodas = () => {
  for (const g of figuras) {
    if (!g.isConnected) { figuras.delete(g); continue; }
    if (g.clientWidth === 0) { e(g).pendiente = true; continue; }
    if (e(g).clave !== clave()) dibujar(g);
  }
};

// La figura de un valor: la que barrido.mjs acaba de armar para su texto, si es una parada (sin volver a leerlo),
// o la de su texto.
const armada = (g) => {
  const marca = e(g).marcaDeParadas;
  const fuente = marca && paradas.get(marca.fuente);
  if (!fuente || fuente.paquete !== marca.paquete || fuente.texto(marca.k) !== e(g).texto) return null;
  return fuente.figura(marca.k);
};
const leida = (g) => {
  if (!e(g).texto) return undefined;
  if (e(g).leidaDe !== e(g).texto) {
    const figura = armada(g) || (typeof e(g).texto === "string" ? JSON.parse(e(g).texto) : e(g).texto);
    // Lo que Gradio le ponía a cada figura de un gr.Plot: ocupa el ancho de su caja y sigue sus cambios.
    figura.config = {...(figura.config || {}), responsive: true};
    figura.layout.autosize = true;
    e(g).leida = figura;
    e(g).leidaDe = e(g).texto;
  }
  return e(g).leida;
};
const figuraDe = (g) => leida(g);

// Un valor de una Figura (componente.py): {"type": "plotly", "plot": el JSON de la figura}. `g` es el <div> de
// la figura (el mismo de un valor al siguiente: Plotly.react cambia solo lo que cambió).
const recibir = (g, valor) => {
  const texto = valor && valor.plot;
  if (!texto) return;
  ultimoValor = performance.now();
  if (!figuras.has(g)) {
    figuras.add(g);
    observador.observe(g);
    vista.observe(g);
    // Para mirar los valores con el puntero, la figura viva (una instantánea no los muestra).
    g.addEventListener("pointerenter", () => volverViva(g));
  }
  // El mismo valor, ya dibujado con la misma clave, no se vuelve a dibujar.
  if (texto === e(g).texto && e(g).clave === clave() && !e(g).pendiente) return;
  e(g).texto = texto; // figuraDe(g) lo lee cuando hace falta: una instantánea no lo necesita
  e(g).reubicaciones = e(g).reanchos = 0;
  // Una parada de un barrido: el paquete del que viene, para dibujar las demás de antemano. Un valor del servidor
  // (sin marca: una edición) la quita: las paradas de la edición llegan después y la vuelven a poner (`marcar`).
  const marca = valor.paradas;
  const fuente = marca && paradas.get(marca.fuente);
  e(g).marcaDeParadas = fuente ? {fuente: marca.fuente, k: marca.k, paquete: fuente.paquete} : null;
  // Ya dibujado antes con este aspecto: su instantánea, en este mismo cuadro. Fuera de la pantalla, después de
  // la que se ve (poner una instantánea no cuesta JavaScript, pero sus elementos se estilizan y se maquetan en el
  // cuadro del movimiento, se vean o no).
  if (window.Plotly && !e(g).pendiente && !e(g).lejos && ancho(g) > 0 && conInstantanea(g, texto)) {
    if (e(g).marcaDeParadas) precalentar(g);
    return;
  }
  // Ya dibujada y fuera de la pantalla: después de la que se ve (sin leer su ancho: dibujarDiferida lo mira).
  if (e(g).lejos && g._fullLayout && !e(g).pendiente) {
    e(g).diferida = true;
    g.dataset.diferida = ""; // en la página, para quien mide: tiene un valor que todavía no dibujó
    programarDiferidas();
    return;
  }
  if (!window.Plotly || g.clientWidth === 0) { // sin Plotly.js todavía, u oculta: se dibuja al llegar o al verse
    e(g).pendiente = true;
    return;
  }
  if (enEsteTurno && g._fullLayout) { // otra figura ya se dibujó en este turno: esta, después de que se pinte
    e(g).siguiente = e(g).diferida = true;
    g.dataset.diferida = "";
    programarSiguiente();
    return;
  }
  enEsteTurno = true;
  setTimeout(() => { enEsteTurno = false; }, 0);
  dibujar(g);
};

// Plotly.js (el <script> de componente.py) llega después que este guion: las figuras que esperaban, al llegar.
const conPlotly = () => {
  for (const g of figuras) if (e(g).pendiente && g.isConnected && g.clientWidth > 0) dibujar(g);
};
if (!window.Plotly) {
  let valor;
  Object.defineProperty(window, "Plotly", {
    configurable: true,
    get: () => valor,
    set: (v) => { valor = v; setTimeout(conPlotly, 0); },
  });
}
// Una figura que ya muestra una parada de un barrido (barrido.mjs, al abrir la página o al llegar un paquete):
// sus demás paradas se dibujan de antemano, sin esperar al primer movimiento.
const marcar = (g, marca) => {
  const fuente = paradas.get(marca.fuente);
  if (!fuente || !figuras.has(g)) return;
  e(g).marcaDeParadas = {fuente: marca.fuente, k: marca.k, paquete: fuente.paquete};
  if (g._fullLayout && !e(g).pendiente) precalentar(g); // si no, al dibujarse
};
new MutationObserver(redibujarTodas).observe(document.documentElement, {attributes: true, attributeFilter: ["class"]});
const conCuerpo = () => {
  new MutationObserver(redibujarTodas).observe(document.body, {attributes: true, attributeFilter: ["class"]});
  // Proyector: lo de arriba de una figura cambió de alto (una explicación que se pliega después de dibujarla).
  new ResizeObserver(() => { if (presentacion()) for (const g of figuras) reubicada(g); }).observe(document.body);
};
if (document.body) conCuerpo();
else document.addEventListener("DOMContentLoaded", conCuerpo, {once: true});
let pendiente = 0;
window.addEventListener("resize", () => {
  cancelAnimationFrame(pendiente);
  pendiente = requestAnimationFrame(redibujarTodas);
});
return {recibir, marcar, estado: e, figura: figuraDe};
};
