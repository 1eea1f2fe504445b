// Las figuras de la suite en el navegador: se adaptan a la página antes de dibujarse y se redibujan poco.
//
// Cada Figura (componente.py, un gr.HTML) entrega aquí cada valor que recibe (`recibir`), con su <div>, el
// mismo de un valor al siguiente: Plotly.react cambia solo lo que cambió. Antes de dibujar, la figura se adapta:
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
//   cada dibujo deja una instantánea (una copia del <div> que Plotly armó, sin sus manejadores) y volver a ese
//   valor la pone en lugar de la figura viva, en el mismo cuadro. La figura viva (la que muestra valores al pasar
//   el puntero y tiene su barra de herramientas) vuelve cuando el control se queda quieto CALMA_VIVA_MS, o antes,
//   si el puntero entra en la figura; así un arrastre no espera a Plotly en cada parada. Las paradas que el servidor
//   mandó (barrido.js) se dibujan de antemano, en los momentos libres del navegador, en un <div> aparte del mismo
//   tamaño (`precalentar`): el primer arrastre ya las encuentra. Nada de esto calcula la lección: cada
//   instantánea es un dibujo de Plotly de un valor que dio Python.
// Las descargas (matplotlib) no pasan por aquí: conservan el estilo claro de la lección.
//
// Corre dos veces: en el <head> del HTML (servidor/laterales.py), antes que Plotly.js y que las figuras, y en el
// `js=` de la página (para quien la arma desde /config). La segunda no hace nada. Una figura montada antes que
// este guion espera en `window.__figurasEnEspera`; una que llega antes que Plotly.js, hasta que llegue. En el
// <head> todavía no hay <body>: lo que lo mira espera.
() => {
  if (window.__figurasDeLaSuite) return;
  const TINTAS = __TINTAS__;
  const ANCHO_MAXIMO = __ANCHO_MAXIMO__;
  const TRANSPARENTE = __TRANSPARENTE__; // el fondo de un área que deja ver el papel (paneles de a uno)
  const ANCHO_FIGURA = __ANCHO_FIGURA__; // el ancho para el que se arma la figura de teléfono (la de 390 px)
  const ANCHO_LETRA = __ANCHO_LETRA__; // el ancho de una cifra, en veces la letra (pantalla_lienzo.letra_que_cabe)
  const LETRA_MINIMA = __LETRA_MINIMA__; // un número de casilla más chico no se escribe
  const LETRA_MINIMA_PROYECTOR = 14;
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
  const LLAVES_DE_LETRA = new Set(["font", "textfont", "tickfont", "insidetextfont", "outsidetextfont"]);
  const LLAVES_DE_COLOR = new Set(["color", "gridcolor", "linecolor", "zerolinecolor", "tickcolor", "bordercolor"]);
  const figuras = new Set(); // los <div> de Gradio que dibujan una figura de la suite
  // El ancho de una figura en el camino de un movimiento (recibir un valor, buscar su instantánea): el que anotó
  // el ResizeObserver o el último dibujo, sin maquetar. Leer clientWidth justo después de poner una instantánea
  // obligaba al navegador a maquetar la página en ese momento: con tres figuras, tres maquetaciones por
  // movimiento (≈ 15 ms de cada tecla en temperatura). Lo demás (dibujar, que maqueta de todos modos) lee el de
  // verdad: en un iframe que no se pinta, el ResizeObserver no avisa y lo anotado puede ser viejo.
  const ancho = (g) => g.__ancho ?? g.clientWidth;

  const oscuro = () => !!document.body && document.body.classList.contains("dark");
  const presentacion = () => document.documentElement.classList.contains("presentacion");
  const angosto = () => window.innerWidth < ANCHO_MAXIMO;
  // Lo que decide cómo se dibuja: si cambia, se redibuja (con el proyector, también el tamaño de la ventana).
  const clave = () => [oscuro(), angosto(), presentacion() && `${window.innerWidth}x${window.innerHeight}`].join();

  const escalaProyector = () => Math.min(2, Math.max(1, Math.min(window.innerWidth / 1280, window.innerHeight / 720)));
  // Proyector: la altura de la figura, la que cabe bajo lo que tiene arriba (null fuera del proyector). Depende
  // de dónde quedó la figura: disposicion.js pliega la explicación de arriba en un requestAnimationFrame, que en un
  // iframe de otro origen oculto (la diapositiva que todavía no se ve) no corre hasta que se muestra.
  const altoProyector = (g, figura = g.__figura) => {
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
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (c && c !== "transparent" && !/rgba\(.*,\s*0\)$/.test(c)) return c;
    }
    return "rgb(255, 255, 255)";
  };

  // Recorre un objeto de Plotly: cambia las tintas (oscuro) y escala las letras (proyector).
  const recorrer = (o, tintas, escala) => {
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

  const aplicarCambios = (data, layout, cambios) => {
    for (const [k, v] of Object.entries(cambios.layout || {})) v === null ? delete layout[k] : (layout[k] = v);
    for (const [i, c] of Object.entries(cambios.datos || {})) {
      const t = data[Number(i)];
      if (t) for (const [k, v] of Object.entries(c)) v === null ? delete t[k] : (t[k] = v);
    }
  };

  // «annotations[3].visible» -> layout.annotations[3].visible = v (las rutas de una opción de un desplegable).
  const poner = (o, ruta, v) => {
    const partes = ruta.replace(/\[(\d+)\]/g, ".$1").split(".");
    const ultima = partes.pop();
    for (const p of partes) if (!(o = o[p])) return;
    o[ultima] = v;
  };

  // Paneles de a uno (pantalla_angosta.selector): la opción k del desplegable, como si se la hubiera elegido.
  const elegir = (data, layout, k) => {
    const menu = (layout.updatemenus || [])[0];
    const opcion = menu && menu.buttons && menu.buttons[k];
    if (!opcion || opcion.method !== "update") return;
    const [trazos, cambios] = opcion.args;
    (trazos.visible || []).forEach((v, i) => { if (data[i]) data[i].visible = v; });
    for (const [ruta, v] of Object.entries(cambios || {})) poner(layout, ruta, v);
    menu.active = k;
  };

  // Una línea en renglones de a lo sumo `cabe` letras, sin cortar palabras (una más larga va sola en el suyo).
  const renglones = (linea, cabe) => {
    const lineas = [""];
    for (const palabra of linea.split(" ")) {
      const ultima = lineas[lineas.length - 1];
      if (ultima && (ultima + " " + palabra).length > cabe) lineas.push(palabra);
      else lineas[lineas.length - 1] = ultima ? ultima + " " + palabra : palabra;
    }
    return lineas;
  };

  // Proyector: el título de la figura, con la letra agrandada, en líneas que caben en su ancho (una letra mide
  // ≈ 0.55 de su tamaño); el margen de arriba crece una línea por cada línea de más. Una figura angosta (una
  // columna junto a una tabla) se salía por los dos lados.
  const partirTitulo = (layout, ancho) => {
    const t = layout.title;
    if (!t || typeof t.text !== "string" || !t.font || !t.font.size || t.text.includes("<br>")) return;
    const cabe = Math.max(12, Math.floor((ancho - 16) / (0.55 * t.font.size)));
    if (t.text.length <= cabe) return;
    const lineas = renglones(t.text, cabe);
    t.text = lineas.join("<br>");
    layout.margin = {...(layout.margin || {})};
    layout.margin.t = (layout.margin.t || 0) + (lineas.length - 1) * t.font.size * 1.25;
  };

  // Los tramos de los dominios en y (sin repetir), de abajo arriba; null si se enciman (no es una columna de paneles).
  const tramosEnY = (layout) => {
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
  // figura sin achicar, `natural`) y lo que falta sale de los paneles (como pantalla_angosta._estirar, al revés).
  // Se mueve con ellos lo que va en fracciones del área: los dominios en y, las notas y formas del papel y las barras
  // de color de pie.
  const huecosEnPixeles = (data, layout, natural) => {
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
  const moverEnY = (data, layout, mover) => {
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

  // Teléfono: el título de la figura, que el servidor parte para ANCHO_FIGURA (pantalla_angosta.partir: una letra
  // mide 0.6 de su tamaño), partido otra vez para el ancho de la página, desde el de la figura de siempre (`normal`:
  // sus saltos de línea propios se respetan). A 560 px, el de la tubería de CBAM iba en seis líneas donde caben
  // cuatro. El margen de arriba, y con él la figura, crece o se achica 22 px por línea (pantalla._arriba).
  const tituloDelTelefono = (layout, normal, ancho) => {
    const t = layout.title;
    const original = normal.title && normal.title.text;
    if (!t || typeof t.text !== "string" || typeof original !== "string" || !(ancho > 0)) return;
    if (Math.abs(ancho - ANCHO_FIGURA) < 8) return; // el de un teléfono de 390 px (su página mide 326): el del servidor
    const cabe = Math.max(12, Math.floor(ancho / (0.6 * ((t.font && t.font.size) || 17))));
    const texto = original.split("<br>").flatMap((linea) => renglones(linea, cabe)).join("<br>");
    const mas = texto.split("<br>").length - t.text.split("<br>").length;
    layout.title = {...t, text: texto};
    // Varias líneas, desde arriba (como pantalla_angosta.terminar): centradas en el margen, pisaban el panel.
    if (texto.includes("<br>")) layout.title = {...layout.title, y: 1, yref: "container", yanchor: "top", pad: {t: 24}};
    if (!mas || !layout.margin) return;
    layout.margin = {...layout.margin, t: layout.margin.t + 22 * mas};
    layout.height += 22 * mas;
  };

  // Teléfono: un panel de proporción fija (una imagen de píxeles cuadrados, un mapa de casillas cuadradas) mide lo
  // que pide a lo ancho (pantalla_angosta.filas_a_su_medida), pero el servidor lo mide para ANCHO_FIGURA: a 430 px,
  // las fotos de CBAM medían lo mismo que a 390 y dejaban 50 px en blanco a los lados (a 560, 240). `medida`
  // (pantalla_angosta.medida): por panel, [su eje y, su ancho en px a ANCHO_FIGURA, alto / ancho, su tope]. Con el
  // ancho de verdad, cada uno toma el alto que pide (a lo sumo su tope), los huecos entre paneles conservan sus
  // píxeles y la figura crece o se achica lo mismo (como pantalla_angosta._estirar, en píxeles: una nota bajo el
  // área queda a la misma distancia de su borde).
  const aSuMedida = (data, layout, medida, ancho) => {
    const delta = ancho - ANCHO_FIGURA;
    const m = layout.margin || {};
    const area = layout.height - (m.t || 0) - (m.b || 0);
    if (!(ancho > 0) || Math.abs(delta) < 2 || !(area > 0)) return;
    const tramos = tramosEnY(layout);
    if (!tramos) return; // encimados: como vienen
    const altos = tramos.map(([a, b]) => (b - a) * area);
    for (const [eje, px, proporcion, tope] of medida) {
      const e = layout[eje];
      const i = e && Array.isArray(e.domain) ? tramos.findIndex(([a, b]) => a === e.domain[0] && b === e.domain[1]) : -1;
      if (i < 0) continue;
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
  const titulosSobreLasMarcas = (layout) => {
    const bordes = new Set();
    for (const [k, e] of Object.entries(layout)) {
      if (k.startsWith("yaxis") && e && Array.isArray(e.domain)) bordes.add(Math.round(e.domain[1] * 1e3));
    }
    const sube = Math.ceil(0.4 * LETRA_MINIMA_PROYECTOR * escalaProyector());
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
      // Con «top», Plotly sube 12 px un título de varias líneas (como en pantalla_angosta.terminar).
      const pad = layout.title.text.includes("<br>") ? 24 : 8;
      layout.title = {...layout.title, y: 1, yref: "container", yanchor: "top", pad: {t: Math.round(pad * escalaProyector())}};
    }
  };

  // Proyector: el título de un eje y va de lado, y con la letra agrandada puede medir más que su panel achicado: en
  // variantes, el de la fila de arriba («Ficha que mira (consulta)», ≈ 190 px junto a paneles de 130) bajaba hasta el
  // de la de abajo. Se parte en líneas que caben en el alto del panel (una letra mide ≈ 0.6 de su tamaño; Plotly hace
  // el título de un eje 1.2 veces la letra de la figura), como pantalla_angosta.partir_de_lado en un teléfono.
  const partirTitulosDeLado = (layout, alto) => {
    const m = layout.margin || {};
    const area = alto - (m.t || 0) - (m.b || 0);
    const letraFigura = (layout.font && layout.font.size) || 14;
    for (const [k, e] of Object.entries(layout)) {
      const t = k.startsWith("yaxis") && e && e.title;
      if (!t || typeof t.text !== "string" || !t.text || t.text.includes("<br>")) continue;
      const d = Array.isArray(e.domain) ? e.domain : [0, 1];
      const letra = (t.font && t.font.size) || 1.2 * letraFigura;
      const cabe = Math.max(8, Math.floor((0.9 * area * (d[1] - d[0])) / (0.6 * letra)));
      if (t.text.length <= cabe) continue;
      e.title = {...t, text: renglones(t.text, cabe).join("<br>")};
      // Sin automargin, Plotly pone el título a una distancia fija del eje, y sus líneas de más caían sobre las
      // marcas (memoria: «log)» sobre el «100»); con él, el margen crece hasta que caben.
      e.automargin = true;
    }
  };

  // Pantalla ancha y proyector: los nombres de un eje x (las marcas que fija el servidor, una por categoría o una
  // cada tantas) no caben ni de pie si cada uno tiene menos de 1.25 veces su letra (el alto de su renglón): en CBAM,
  // los 32 canales se pisaban en la figura de los pesos, a 1280 px y en el proyector. Va uno de cada tantos, los que
  // caben con el ancho de verdad del panel (en un teléfono lo decide el servidor, pantalla_graficas). La caja se
  // estima con los márgenes pedidos: el automargin de Plotly solo puede achicarla, y se deja un 5 % de holgura.
  const marcasQueCaben = (layout, ancho) => {
    const m = layout.margin || {};
    const area = 0.95 * (ancho - (m.l || 0) - (m.r || 0));
    const letraFigura = (layout.font && layout.font.size) || 14;
    for (const [k, e] of Object.entries(layout)) {
      if (!k.startsWith("xaxis") || !e || e.tickmode !== "array" || !Array.isArray(e.tickvals)) continue;
      const v = e.tickvals;
      const paso = v.length > 1 ? v[1] - v[0] : 0;
      if (!(paso > 0) || !Array.isArray(e.ticktext) || e.ticktext.length !== v.length) continue;
      // Solo las de categorías (barras, casillas de un mapa): posiciones enteras a paso fijo. Las de un eje log
      // (memoria: 10, 100, 1 000…) o las redondas de una curva quedan como vienen.
      if (e.type === "log" || !v.every((x, i) => Number.isInteger(x) && x === v[0] + i * paso)) continue;
      const d = Array.isArray(e.domain) ? e.domain : [0, 1];
      const categoria = (area * (d[1] - d[0])) / (v[v.length - 1] - v[0] + paso); // px por unidad del eje
      const letra = (e.tickfont && e.tickfont.size) || letraFigura;
      const cada = Math.ceil((1.25 * letra) / (categoria * paso));
      if (cada < 2) continue;
      e.tickvals = v.filter((_, i) => i % cada === 0);
      e.ticktext = e.ticktext.filter((_, i) => i % cada === 0);
    }
  };

  // Proyector: los números de las casillas de un mapa crecen con la letra, pero la figura se achica a lo que cabe en
  // la pantalla: en multicabeza, «0.18» a 14 px no cabía en las casillas de ≈ 22 px del promedio de las cabezas, y
  // los números se encimaban. Cada mapa lleva los suyos a lo que cabe en su casilla (una cifra mide ≈ 0.6 de la
  // letra; con 0.7, el de pantalla_lienzo.ANCHO_LETRA, los parámetros de CBAM, «12.1» en casillas de 40 px, ya no
  // iban); si no llegan a LETRA_MINIMA_PROYECTOR, no van (quedan al pasar el puntero). La casilla se estima con los
  // márgenes pedidos: el automargin de Plotly solo puede achicarla, y por eso se deja un 5 % de holgura.
  const numerosQueCaben = (data, layout, ancho, alto) => {
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
      const cabe = 0.95 * Math.min(ancho1 / (0.6 * largo), 0.8 * alto1);
      if (cabe >= t.textfont.size) continue;
      if (cabe < LETRA_MINIMA_PROYECTOR) t.texttemplate = "";
      else t.textfont.size = Math.floor(cabe * 10) / 10;
    }
  };

  // Teléfono: la figura angosta se arma para ANCHO_FIGURA px (un teléfono de 390). En una página más angosta (un
  // Android de 360 px: la figura mide ≈ 300) el área de dibujo pierde lo que falta y los márgenes no: las casillas
  // de un mapa de 5 columnas, ≈ 6 px cada una, y en atención cruzada «0.86» y «0.07» se encimaban. `casillas`
  // (pantalla.figura_plotly): el ancho de las casillas de cada trazo con números, medido a ANCHO_FIGURA; cada uno
  // lleva su letra a lo que cabe en la casilla de ahora, o no lleva números (quedan al tocar).
  const numerosDelTelefono = (data, layout, casillas, ancho) => {
    const falta = ANCHO_FIGURA - ancho;
    if (!(ancho > 0) || !(falta > 0)) return; // sin ancho (todavía oculta), nada que medir
    for (const [i, casilla] of Object.entries(casillas)) {
      const t = data[Number(i)];
      if (!t || !t.texttemplate || !t.textfont || !Array.isArray(t.text) || !Array.isArray(t.text[0])) continue;
      const eje = layout["xaxis" + (t.xaxis || "x").slice(1)] || {};
      const [x0, x1] = eje.domain || [0, 1];
      const ahora = casilla - (falta * (x1 - x0)) / t.text[0].length;
      let largo = 1;
      for (const fila of t.text) for (const x of fila) largo = Math.max(largo, String(x ?? "").length);
      const cabe = Math.floor(ahora / (ANCHO_LETRA * largo));
      if (cabe >= t.textfont.size) continue;
      t.textfont = {...t.textfont, size: cabe};
      if (cabe < LETRA_MINIMA) t.texttemplate = "";
    }
  };

  // La figura que se dibuja, según la página: una copia del valor de Gradio con sus adaptaciones. `figura`: la de g
  // (su valor) o la de una parada que se dibuja de antemano con el aspecto que tendría en g.
  const adaptar = (g, figura = g.__figura) => {
    const {data: d0, layout: l0} = figura;
    const data = structuredClone(d0);
    const layout = structuredClone(l0);
    if (angosto() && layout.meta && layout.meta.angosto) {
      aplicarCambios(data, layout, layout.meta.angosto);
      tituloDelTelefono(layout, l0, g.clientWidth);
      if (layout.meta.angosto.medida) aSuMedida(data, layout, layout.meta.angosto.medida, g.clientWidth);
      if (layout.meta.angosto.casillas) numerosDelTelefono(data, layout, layout.meta.angosto.casillas, g.clientWidth);
    }
    if (g.__elegido) elegir(data, layout, g.__elegido);
    // meta es de «editType: plot» y sus listas llegan nuevas con cada valor: Plotly.react lo tomaría por un
    // cambio que pide rehacer la figura entera.
    layout.meta = {figura: 1};
    const alto = altoProyector(g, figura);
    if (figura === g.__figura) g.__alto = alto;
    if (alto) {
      // Los cuadritos de color de unos rótulos (pantalla_mapas._cuadritos: un tamaño por texto) crecen con su letra.
      const cuadritos = data.map((t) => t.mode === "markers+text" && t.marker && Array.isArray(t.marker.size) && t.textfont && t.textfont.size);
      recorrer([data, layout], null, escalaProyector());
      data.forEach((t, i) => {
        if (cuadritos[i]) t.marker.size = t.marker.size.map((s) => Math.round(s * t.textfont.size / cuadritos[i]));
      });
      layout.height = alto;
      if (layout.margin) for (const k of ["l", "r", "t", "b"]) if (layout.margin[k]) layout.margin[k] *= escalaProyector();
      huecosEnPixeles(data, layout, (figura.layout.height || 450) * escalaProyector());
      titulosSobreLasMarcas(layout);
      partirTitulosDeLado(layout, alto);
      partirTitulo(layout, g.clientWidth);
      numerosQueCaben(data, layout, g.clientWidth, alto);
    }
    if (!angosto()) marcasQueCaben(layout, g.clientWidth);
    if (oscuro()) {
      recorrer([data, layout], TINTAS, 0);
      layout.paper_bgcolor = fondo(g.parentElement);
      if (layout.plot_bgcolor !== TRANSPARENTE) layout.plot_bgcolor = layout.paper_bgcolor;
    }
    if (figura !== g.__figura) return [data, layout];
    g.__clave = clave();
    // Los márgenes no se achican de un valor al siguiente (con la misma clave): si los nombres de un eje cambian
    // de largo, el automargin de Plotly los movería y rehacería la figura entera una segunda vez en el mismo
    // movimiento (un texto más corto: ≈ el doble de Plotly). Así el área de dibujo tampoco salta. En el proyector,
    // con la misma altura: con otra, los títulos de los ejes y se parten de otro modo (partirTitulosDeLado), y los
    // márgenes de un dibujo de paso (la figura todavía baja en la página, 260 px: «Posición que escribe» en tres
    // líneas) quedaban para siempre.
    g.__claveMargenes = `${g.__clave}|${alto ?? ""}`;
    const m = g.__margenes;
    if (m && m.clave === g.__claveMargenes) {
      layout.margin = {...(layout.margin || {})};
      for (const k of ["l", "r", "t", "b"]) layout.margin[k] = Math.max(layout.margin[k] ?? 0, m[k]);
    }
    return [data, layout];
  };

  // --- Instantáneas: lo que Plotly ya dibujó, para volver a ponerlo sin Plotly ---------------------------------
  // Una instantánea es una copia (cloneNode) del contenedor que Plotly armó dentro de g para un valor, con el
  // aspecto de la página (modo, ancho, panel elegido). Se guardan en una sola lista para toda la página, de la
  // usada hace más a la usada hace menos, hasta MAX_NODOS elementos entre todas; la que se ve no se descarta.
  const instantaneas = new Map(); // clave de vista + texto del valor -> {g, nodo, nodos}
  let nodosGuardados = 0;
  let numeroDeFiguras = 0;
  const bloque = (g) => g.closest(".block[id]") && g.closest(".block[id]").id;
  const claveDeVista = (g) => `${(g.__numero ??= ++numeroDeFiguras)}|${clave()}|${ancho(g)}|${g.__elegido || 0}|`;
  const contenedor = (g) => g.querySelector(":scope > .plot-container");
  const quitar = (k) => {
    const i = instantaneas.get(k);
    if (!i) return;
    nodosGuardados -= i.nodos;
    instantaneas.delete(k);
  };
  const olvidar = (g) => { for (const [k, i] of instantaneas) if (i.g === g) quitar(k); };
  const buscar = (g, texto) => {
    const k = claveDeVista(g) + texto;
    const i = instantaneas.get(k);
    if (!i) return null;
    instantaneas.delete(k); // la usada hace menos, al final
    instantaneas.set(k, i);
    return i.nodo;
  };
  // La copia de lo que Plotly dibujó, sin lo que no se ve ni sirve quieto: los rectángulos que reciben el arrastre
  // (draglayer) y la barra de herramientas (aparece al pasar el puntero, y entonces vuelve la figura viva). Cada
  // elemento de una instantánea se estiliza y se maqueta al ponerla: en temperatura son ≈ 1 de cada 5.
  const copiar = (c) => {
    const copia = c.cloneNode(true);
    for (const e of copia.querySelectorAll(".draglayer, .modebar-container")) e.remove();
    return copia;
  };
  const tiene = (g, texto) => instantaneas.has(claveDeVista(g) + texto); // sin moverla en la lista
  const hayLugar = (n) => nodosGuardados + n <= MAX_NODOS;
  const guardar = (g, texto, nodo) => {
    const k = claveDeVista(g) + texto;
    const n = nodo.getElementsByTagName("*").length + 1;
    if (n > MAX_NODOS / 8) return; // una figura enorme no se guarda: se dibuja cada vez
    quitar(k);
    instantaneas.set(k, {g, nodo, nodos: n});
    nodosGuardados += n;
    for (const [k2, i] of instantaneas) {
      if (nodosGuardados <= MAX_NODOS) break;
      if (!i.nodo.isConnected || !i.g.isConnected) quitar(k2);
    }
  };

  // Pone en g la instantánea de un valor, en lugar de lo que se ve (la figura viva queda guardada en g.__viva).
  const ponerInstantanea = (g, nodo, texto) => {
    const actual = g.__puesta || contenedor(g);
    if (!actual) return false;
    const t0 = performance.now();
    if (!g.__puesta) g.__viva = actual;
    if (actual !== nodo) actual.replaceWith(nodo);
    g.__puesta = nodo;
    g.__enPantalla = texto;
    performance.measure("instantánea", {start: t0, end: performance.now(), detail: bloque(g)});
    porVolver.delete(g);
    clearTimeout(g.__calma);
    g.__calma = setTimeout(() => volverEnOrden(g), CALMA_VIVA_MS);
    return true;
  };
  // Si el valor `texto` ya se dibujó en g con el aspecto de ahora, pone su instantánea (sin Plotly) y g deja de
  // esperar su dibujo; si no, no hace nada y devuelve false.
  const conInstantanea = (g, texto) => {
    const nodo = g._fullLayout && g.__clave === clave() && buscar(g, texto);
    if (!nodo || !ponerInstantanea(g, nodo, texto)) return false;
    g.__diferida = g.__siguiente = false;
    delete g.dataset.diferida;
    return true;
  };
  // La figura viva, otra vez en g (sin dibujarla: quien llama la dibuja en la misma tarea, sin pintar entre medio).
  const reponerViva = (g) => {
    clearTimeout(g.__calma);
    porVolver.delete(g);
    if (!g.__puesta) return;
    g.__puesta.replaceWith(g.__viva);
    g.__puesta = null;
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
    if (!g.__puesta || !g.isConnected) return;
    if (g.__lejos) return; // fuera de la pantalla: al acercarse a la vista (el IntersectionObserver)
    if (ancho(g) === 0) { g.__pendiente = true; return; }
    // La viva ya muestra ese valor con ese aspecto (el estudiante volvió a la parada de la que salió): vuelve sin
    // Plotly.
    if (g.__textoVivo === g.__texto && g.__clave === clave() && g.__dibujada_en[0] === ancho(g) && !g.__pendiente) {
      reponerViva(g);
      g.__enPantalla = g.__texto;
      return;
    }
    dibujar(g);
  };

  // La figura que llegó del servidor muestra la parada k de su paquete (barrido.js la marcó: `marcar`), con el
  // mismo valor pero otro texto (orjson escribe «1.0»; JSON.stringify, «1»): desde ahora lleva el de la parada. Así
  // no se vuelve a dibujar de antemano, y volver a ella encuentra su dibujo (la viva o su instantánea).
  const adoptar = (g, texto) => {
    const viejo = g.__texto;
    const i = instantaneas.get(claveDeVista(g) + viejo);
    if (i) {
      instantaneas.delete(claveDeVista(g) + viejo);
      instantaneas.set(claveDeVista(g) + texto, i);
    }
    if (g.__textoVivo === viejo) g.__textoVivo = texto;
    if (g.__enPantalla === viejo) g.__enPantalla = texto;
    g.__texto = texto;
  };
  // Las paradas de un barrido (barrido.js las deja en window.__paradasDeBarrido, con el paquete del servidor): las
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
    const marca = g.__marcaDeParadas;
    const fuente = marca && window.__paradasDeBarrido && window.__paradasDeBarrido.get(marca.fuente);
    if (!fuente || fuente.paquete !== marca.paquete) return;
    g.__porHacer = [...Array(fuente.n).keys()]
      .sort((a, b) => Math.abs(a - marca.k) - Math.abs(b - marca.k))
      .slice(0, MAX_PRECALENTAR);
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
      const marca = g.__marcaDeParadas;
      const fuente = marca && window.__paradasDeBarrido && window.__paradasDeBarrido.get(marca.fuente);
      const vigente = fuente && fuente.paquete === marca.paquete && g.isConnected && ancho(g) > 0 && !g.__lejos;
      let texto = null;
      while (vigente && g.__porHacer.length && !texto) {
        const j = g.__porHacer.shift();
        texto = fuente.texto(j);
        if (texto && j === marca.k && texto !== g.__texto && !g.__puesta) adoptar(g, texto);
        if (texto && ((g.__texto === texto && !g.__puesta) || tiene(g, texto))) texto = null; // ya está
      }
      if (!texto || !window.Plotly) { porPrecalentar.delete(g); continue; }
      const figura = JSON.parse(texto);
      const [data, layout] = adaptar(g, figura);
      layout.autosize = true;
      const t = tallerPara(g);
      const t0 = performance.now();
      window.Plotly.react(t, data, layout, {...(figura.config || {}), responsive: false});
      performance.measure("precalentar", {start: t0, end: performance.now(), detail: bloque(g)});
      const copia = contenedor(t) && copiar(contenedor(t));
      if (copia && hayLugar(copia.getElementsByTagName("*").length + 1)) guardar(g, texto, copia);
      else porPrecalentar.delete(g); // sin lugar: las más cercanas ya están
      break;
    }
    if (porPrecalentar.size) precalentando = pedirLibre(precalentarUna);
  };

  // Cada dibujo deja en la línea de tiempo de la página las medidas «adaptar» y «figura» (adaptar y lo síncrono
  // de Plotly.react: las lee scripts/perfil_redibujo.py); cada instantánea puesta, la medida «instantánea».
  const dibujar = (g) => {
    if (!window.Plotly) {
      g.__pendiente = true;
      return Promise.resolve(g);
    }
    reponerViva(g);
    g.__pendiente = g.__diferida = g.__siguiente = false;
    delete g.dataset.diferida;
    // Otro modo, otro ancho: las instantáneas de g ya no son su aspecto.
    if (g.__dibujada_en && (g.__clave !== clave() || g.__dibujada_en[0] !== g.clientWidth)) olvidar(g);
    g.__ancho = g.clientWidth;
    g.__dibujada_en = [g.__ancho, g.clientHeight];
    const t0 = performance.now();
    const [data, layout] = adaptar(g);
    const t1 = performance.now();
    const listo = window.Plotly.react(g, data, layout, g.__figura.config);
    performance.measure("adaptar", {start: t0, end: t1});
    performance.measure("figura", {start: t0, end: performance.now(), detail: bloque(g)}); // lo síncrono
    g.__enPantalla = g.__textoVivo = g.__texto;
    const usada = g.__clave;
    const margenesDe = g.__claveMargenes;
    const texto = g.__texto;
    Promise.resolve(listo).then(() => {
      const s = g._fullLayout && g._fullLayout._size;
      if (s && g.__claveMargenes === margenesDe) g.__margenes = {clave: margenesDe, l: s.l, r: s.r, t: s.t, b: s.b};
      if (g.__texto === texto && g.__clave === usada && !g.__puesta && contenedor(g)) {
        guardar(g, texto, copiar(contenedor(g)));
        precalentar(g);
      }
      if (!g.__escucha && g.on) { // el panel elegido en un desplegable de la figura (paneles de a uno)
        g.__escucha = true;
        g.on("plotly_buttonclicked", (e) => { g.__elegido = e.active; });
      }
    }, () => {});
    if (g.__alto) requestAnimationFrame(() => requestAnimationFrame(() => reubicada(g)));
    return listo;
  };

  // Proyector: si la figura se movió después de dibujarse (la disposición de la página llegó en un cuadro
  // posterior) y ahora le cabe otra altura, se redibuja; como mucho tres veces por valor, por si la altura y
  // el zoom de disposicion.js se persiguieran.
  const reubicada = (g) => {
    if (!g.isConnected || !g.__texto || g.clientWidth === 0 || g.__reubicaciones >= 3) return;
    const alto = altoProyector(g);
    if (alto && g.__alto && Math.abs(alto - g.__alto) > 2) {
      g.__reubicaciones = (g.__reubicaciones || 0) + 1;
      dibujar(g);
    }
  };

  const observador = new ResizeObserver((entradas) => {
    for (const {target: g} of entradas) {
      g.__ancho = g.clientWidth; // la maquetación ya está hecha: leerlo aquí no cuesta
      if (!g.isConnected || !g.__texto || g.clientWidth === 0) continue;
      // Se hizo visible (o se dibujó oculta): de nuevo, como si hubiera cargado así.
      if (g.__pendiente || !g.__dibujada_en || g.__dibujada_en[0] === 0 || g.__clave !== clave()) dibujar(g);
      // Otro ancho que el de su dibujo (una columna que se maquetó después, un iframe oculto que se muestra con
      // otro tamaño): los textos se acomodaron a ese ancho, de nuevo; a lo sumo tres veces por valor.
      else if (Math.abs(g.clientWidth - g.__dibujada_en[0]) > 1 && (g.__reanchos || 0) < 3) {
        g.__reanchos = (g.__reanchos || 0) + 1;
        dibujar(g);
      }
    }
  });

  // Fuera de la pantalla: `__lejos` lo mantiene el IntersectionObserver (indefinido hasta su primer aviso: se dibuja).
  // Una figura diferida se dibuja al acercarse a la vista, o en un momento libre del navegador, de a una por vez
  // (nueve mapas del clasificador son ≈ 100 ms: otro movimiento no espera a todas juntas).
  let libre = 0;
  const pedirLibreDiferida = window.requestIdleCallback
    ? (f) => window.requestIdleCallback(f, {timeout: ESPERA_DIFERIDA_MS})
    : (f) => setTimeout(f, 50);
  const dibujarDiferida = (g) => {
    if (g.isConnected && g.__texto && g.clientWidth > 0) {
      if (!g.__pendiente && conInstantanea(g, g.__texto)) return Promise.resolve(g); // ya dibujado: sin Plotly
      return dibujar(g);
    }
    g.__diferida = false; // oculta o quitada: la dibuja el ResizeObserver si vuelve
    delete g.dataset.diferida;
    g.__pendiente = true;
  };
  const programarDiferidas = () => {
    if (libre) return;
    libre = pedirLibreDiferida(() => {
      libre = 0;
      const g = [...figuras].find((f) => f.__diferida);
      if (!g) return;
      dibujarDiferida(g);
      if ([...figuras].some((f) => f.__diferida)) programarDiferidas();
    });
  };
  const vista = new IntersectionObserver((entradas) => {
    for (const {target: g, isIntersecting} of entradas) {
      g.__lejos = !isIntersecting;
      if (isIntersecting && g.__diferida) dibujarDiferida(g);
      else if (isIntersecting && g.__puesta) { // una instantánea que llegó fuera de la vista: la viva, tras la calma
        clearTimeout(g.__calma);
        g.__calma = setTimeout(() => volverEnOrden(g), CALMA_VIVA_MS);
      }
    }
  }, {rootMargin: MARGEN_VISTA});

  // Las figuras que se ven y cambiaron en el mismo turno que otra: de a una, en orden de la página, cada una en
  // una tarea después del cuadro que pintó la anterior (requestAnimationFrame corre antes de pintar; el
  // setTimeout, después).
  let enEsteTurno = false;
  let trasElCuadro = 0;
  const antesEnLaPagina = (a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_PRECEDING ? b : a);
  const programarSiguiente = () => {
    if (trasElCuadro) return;
    trasElCuadro = requestAnimationFrame(() => setTimeout(() => {
      trasElCuadro = 0;
      const esperan = [...figuras].filter((f) => f.__siguiente);
      if (!esperan.length) return;
      const g = esperan.reduce(antesEnLaPagina);
      g.__siguiente = false;
      dibujarDiferida(g);
      if (esperan.length > 1) programarSiguiente();
    }, 0));
  };

  const redibujarTodas = () => {
    for (const g of figuras) {
      if (!g.isConnected) { figuras.delete(g); continue; }
      if (g.clientWidth === 0) { g.__pendiente = true; continue; }
      if (g.__clave !== clave()) dibujar(g);
    }
  };

  const leida = (g) => {
    if (!g.__texto) return undefined;
    if (g.__leidaDe !== g.__texto) {
      const figura = typeof g.__texto === "string" ? JSON.parse(g.__texto) : g.__texto;
      // Lo que Gradio le ponía a cada figura de un gr.Plot: ocupa el ancho de su caja y sigue sus cambios.
      figura.config = {...(figura.config || {}), responsive: true};
      figura.layout.autosize = true;
      g.__leida = figura;
      g.__leidaDe = g.__texto;
    }
    return g.__leida;
  };

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
      // La figura de g.__texto, leída la primera vez que se pide (un JSON de 20–100 kB: JSON.parse cuesta).
      Object.defineProperty(g, "__figura", {configurable: true, get: () => leida(g)});
    }
    // El mismo valor, ya dibujado con la misma clave, no se vuelve a dibujar.
    if (texto === g.__texto && g.__clave === clave() && !g.__pendiente) return;
    g.__texto = texto; // g.__figura lo lee cuando hace falta: una instantánea no lo necesita
    g.__reubicaciones = g.__reanchos = 0;
    // Una parada de un barrido: el paquete del que viene, para dibujar las demás de antemano. Un valor del servidor
    // (sin marca: una edición) la quita: las paradas de la edición llegan después y la vuelven a poner (`marcar`).
    const marca = valor.paradas;
    const fuente = marca && window.__paradasDeBarrido && window.__paradasDeBarrido.get(marca.fuente);
    g.__marcaDeParadas = fuente ? {fuente: marca.fuente, k: marca.k, paquete: fuente.paquete} : null;
    // Ya dibujado antes con este aspecto: su instantánea, en este mismo cuadro. Fuera de la pantalla, después de
    // la que se ve (poner una instantánea no cuesta JavaScript, pero sus elementos se estilizan y se maquetan en el
    // cuadro del movimiento, se vean o no).
    if (window.Plotly && !g.__pendiente && !g.__lejos && ancho(g) > 0 && conInstantanea(g, texto)) {
      if (g.__marcaDeParadas) precalentar(g);
      return;
    }
    // Ya dibujada y fuera de la pantalla: después de la que se ve (sin leer su ancho: dibujarDiferida lo mira).
    if (g.__lejos && g._fullLayout && !g.__pendiente) {
      g.__diferida = true;
      g.dataset.diferida = ""; // en la página, para quien mide: tiene un valor que todavía no dibujó
      programarDiferidas();
      return;
    }
    if (!window.Plotly || g.clientWidth === 0) { // sin Plotly.js todavía, u oculta: se dibuja al llegar o al verse
      g.__pendiente = true;
      return;
    }
    if (enEsteTurno && g._fullLayout) { // otra figura ya se dibujó en este turno: esta, después de que se pinte
      g.__siguiente = g.__diferida = true;
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
    for (const g of figuras) if (g.__pendiente && g.isConnected && g.clientWidth > 0) dibujar(g);
  };
  if (!window.Plotly) {
    let valor;
    Object.defineProperty(window, "Plotly", {
      configurable: true,
      get: () => valor,
      set: (v) => { valor = v; setTimeout(conPlotly, 0); },
    });
  }
  // Una figura que ya muestra una parada de un barrido (barrido.js, al abrir la página o al llegar un paquete):
  // sus demás paradas se dibujan de antemano, sin esperar al primer movimiento.
  const marcar = (g, marca) => {
    const fuente = window.__paradasDeBarrido && window.__paradasDeBarrido.get(marca.fuente);
    if (!fuente || !figuras.has(g)) return;
    g.__marcaDeParadas = {fuente: marca.fuente, k: marca.k, paquete: fuente.paquete};
    if (g._fullLayout && !g.__pendiente) precalentar(g); // si no, al dibujarse
  };
  window.__figurasDeLaSuite = {recibir, marcar};
  // Las figuras que se montaron antes que este guion (componente.AL_CARGAR las deja en espera).
  const enEspera = window.__figurasEnEspera;
  if (enEspera) {
    delete window.__figurasEnEspera;
    for (const [g, valor] of enEspera) recibir(g, valor());
  }
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
}
