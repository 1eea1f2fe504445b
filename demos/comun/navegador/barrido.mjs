// Un movimiento de un control barrido (demos/comun/barrido.py): la vista de esa parada, armada con lo que el
// servidor ya calculó, sin ir a la cola. La página trae esta función una vez, en la puerta de la suite (pagina.mjs:
// `window.__suite.barrido`); el `js=` de cada evento sin función de Python es una línea que la llama con los
// datos de su barrido (`barrido.js_de`). Lo que devuelve va a las salidas como si hubiera llegado del servidor, y
// `undefined` deja una salida como está.
//
// `barrido`: {modo: "control", "entrada", "paquete" o el valor del control en un atajo; salidas: cuántas tiene
// la vista; entrada: la entrada de la vista que fija el control; controles: 1 si el control es la entrada, 2 si
// son el control y la entrada que fija; clave: este barrido (el id de su paquete); figuras: el elem_id de cada
// salida que es una figura (null en las demás)}.
//
// Entradas: el valor que se movió (el control, la entrada que fija o nada, en un atajo), el paquete, el pedido
// y las entradas de la vista. Salidas: las de la vista, el control (y la entrada que fija, si es otra) y dos
// números ocultos: cambiar el pedido manda al servidor el evento que recalcula la vista y los paquetes; el otro,
// el que calcula solo la vista. Solo la vista: si el valor no es una parada (un número escrito a mano: el
// paquete sigue valiendo), si el paquete con estas entradas pasaría de 200 kB (no trae vistas) y si el paquete
// no vale para las demás entradas (otra frase, otra semilla) porque las paradas nuevas vienen en camino: la
// edición ya mandó el evento que las recalcula. Pedirlas otra vez repetiría todas sus paradas detrás de él
// (con la clase, la mitad de las ediciones). Si no llegaron en `esperaMs` (una edición rechazada o perdida), se
// piden. Si la función de Python rechazó esa parada, el motivo va bajo el control.
// Cada figura va con su marca (`paradas`: este barrido y la parada): figuras.mjs dibuja las demás paradas de
// antemano, con los textos que deja aquí en `paradas`.
// Con MODO "paquete" (al abrir la página y cada vez que llega un paquete: una edición) no mueve nada: marca las
// figuras que se ven con sus paradas, y figuras.mjs las dibuja de antemano sin esperar al primer movimiento. El
// paquete se copia recién cuando figuras.mjs pide la primera parada, en un momento libre del navegador.
// Ninguna fórmula de la lección está aquí: cada parada es lo que dio la función de Python.

export const igual = (a, b) =>
  typeof a === "number" || typeof b === "number"
    ? Math.abs(Number(a) - Number(b)) <= 1e-9 * Math.max(1, Math.abs(Number(b)))
    : String(a) === String(b);
// Una columna (barrido.py, `_columna`): un valor por parada; los distintos y a cuál va cada una; plantillas de
// texto y sus números; o grupos de la misma forma, cada uno con su base y sus columnas.
export const columna = (c, k) => {
  if (Array.isArray(c)) return c[k];
  if (c.g) return armar(c.p[c.g[k]][0], c.p[c.g[k]][1], c.j[k]);
  if (!c.t) return c.v[c.i[k]];
  const numeros = c.n[k];
  return c.t[c.ti[k]].map((parte, j) => parte + (j < numeros.length ? numeros[j] : "")).join("");
};
// La vista de la parada k desde (base, cambios): lo mismo que barrido.armar en Python.
export function armar(base, cambios, k) {
  let v = structuredClone(base);
  for (const [ruta, c] of cambios) {
    if (!ruta.length) { v = structuredClone(columna(c, k)); continue; }
    let hoja = v;
    for (let j = 0; j < ruta.length - 1; j++) hoja = hoja[ruta[j]];
    hoja[ruta[ruta.length - 1]] = structuredClone(columna(c, k));
  }
  return v;
}

// La función de los barridos de la página. `paradas`: donde deja las paradas de cada figura para que figuras.mjs
// las dibuje de antemano; `figuras`: las de la página ({marcar}); `esperaMs`: lo que se esperan las paradas de una
// edición antes de pedirlas (navegador.ESPERA_PAQUETE_MS); `esperas`: desde cuándo se esperan las de unas entradas.
export const crearBarrido = ({paradas, figuras, esperaMs, esperas = new Map()}) => {
// Gradio entrega el paquete como un proxy de Svelte (no se puede clonar, y leerlo es lento): se copia a un objeto
// simple una vez por paquete.
const copias = new WeakMap();
return (barrido, fuente, paquete, pedido, ...entradas) => {
  const {modo: MODO, salidas: N, entrada: I, controles: CONTROLES, clave: CLAVE, figuras: FIGURAS} = barrido;
  const hay = !!paquete && typeof paquete === "object";
  const copia = () => {
    if (!copias.has(paquete)) copias.set(paquete, JSON.parse(JSON.stringify(paquete)));
    return copias.get(paquete);
  };
  // Las paradas de la figura de la salida i, para que figuras.mjs dibuje de antemano las que no se ven todavía: la
  // figura de la parada j, el mismo texto que mandaría un movimiento a j (null si la función de Python la rechazó).
  // Devuelve el nombre con que quedan en `paradas`.
  const registrar = (i) => {
    const id = CLAVE + ":" + i;
    if (!paradas.has(id) || paradas.get(id).paquete !== paquete) {
      const textos = []; // armados una vez: figuras.mjs los vuelve a pedir al buscar los que le faltan
      let ultima = null; // {j, figura}: la última parada armada, para quien la dibuje enseguida sin releer su texto
      const texto = (j) => {
        const q = copia();
        if (q.errores[String(j)] !== undefined) return null;
        if (textos[j] === undefined) {
          const figura = armar(q.salidas[i].base, q.salidas[i].cambios, j).plot;
          textos[j] = JSON.stringify(figura);
          ultima = {j, figura};
        }
        return textos[j];
      };
      // La figura de la parada j como objeto: la recién armada (una vez: no se guarda), o la de su texto.
      const figura = (j) => {
        if (ultima && ultima.j === j) {
          const f = ultima.figura;
          ultima = null;
          return f;
        }
        const t = texto(j);
        return t === null ? null : JSON.parse(t);
      };
      paradas.set(id, {paquete, n: paquete.paradas.length, texto, figura});
    }
    return id;
  };
  if (MODO === "paquete") {
    if (!hay || !paquete.paradas || paquete.servidor || !figuras) return;
    const otros = entradas.filter((_, j) => j !== I);
    if (JSON.stringify(otros) !== JSON.stringify(paquete.otros)) return; // de otras entradas: ya llega el suyo
    const k = paquete.paradas.findIndex((x) => igual(x, fuente));
    if (k < 0) return;
    // Después del cuadro que sigue: la vista de la misma edición (que llegó antes) ya está en la figura, y no le
    // quita la marca a estas paradas.
    const marcas = [];
    paquete.salidas.forEach((s, i) => {
      const g = s.plot && s.cambios.length && FIGURAS[i] && document.querySelector(`#${CSS.escape(FIGURAS[i])} .figura-propia`);
      if (g) marcas.push([g, {fuente: registrar(i), k}]);
    });
    if (marcas.length) requestAnimationFrame(() => setTimeout(() => marcas.forEach(([g, m]) => figuras.marcar(g, m)), 0));
    return;
  }
  const p = hay && copia().paradas ? copia() : null;
  // pedir: false, "paquete" (la vista y los paquetes: otras entradas) o "vista" (solo la vista: paquete muy grande).
  const respuesta = (vista, control, entrada, pedir) => {
    const r = vista || new Array(N).fill(undefined);
    r.push(control);
    if (CONTROLES === 2) r.push(entrada);
    r.push(pedir === "paquete" ? (Number(pedido) || 0) + 1 : undefined);
    r.push(pedir === "vista" ? Date.now() : undefined);
    return r;
  };
  if (!p) return respuesta(null, undefined, undefined, "paquete");
  const lista = MODO === "entrada" ? p.entradas : p.paradas;
  const valor = MODO === "control" || MODO === "entrada" ? fuente : MODO;
  const k = lista.findIndex((x) => igual(x, valor));
  // El control y la entrada se siguen aunque el paquete no valga: la cuadrícula de paradas no depende de él.
  const control = k < 0 ? undefined : p.paradas[k];
  const entrada = k < 0 ? undefined : p.entradas[k];
  const otros = entradas.filter((_, j) => j !== I);
  const vale = JSON.stringify(otros) === JSON.stringify(p.otros);
  if (!vale) {
    // Desde cuándo esta página espera las paradas de estas entradas (la primera vez que un movimiento las vio).
    const clave = CLAVE + JSON.stringify(otros);
    const ahora = Date.now();
    if (!esperas.has(clave)) esperas.set(clave, ahora);
    if (ahora - esperas.get(clave) < esperaMs) return respuesta(null, control, entrada, "vista");
    esperas.set(clave, ahora);
    return respuesta(null, control, entrada, "paquete");
  }
  if (k < 0 || p.servidor) return respuesta(null, control, entrada, "vista"); // no es una parada, o no caben
  // Una parada que la función de Python rechaza (p. ej. 5 cabezas con d_modelo = 16): la figura se queda como
  // está y el motivo, en español, va bajo el control (su `info`), sin ir al servidor.
  const error = p.errores[String(k)];
  const conInfo = (info) => ({__type__: "update", value: p.paradas[k], info: info});
  if (error !== undefined) return respuesta(null, conInfo("⚠ " + error), entrada, false);
  const vista = p.salidas.map((s, i) => {
    if (!s.cambios.length) return undefined; // igual en todas las paradas: ya está en la página
    if (!s.plot) return armar(s.base, s.cambios, k);
    // Una figura: el texto de su parada, armado una vez (el mismo que figuras.mjs dibuja de antemano); la figura
    // recién armada queda para quien la dibuje ahora, sin volver a leer ese texto (`figura`).
    const id = registrar(i);
    return {type: "plotly", plot: paradas.get(id).texto(k), paradas: {fuente: id, k}};
  });
  return respuesta(vista, p.hay_errores ? conInfo(p.info) : control, entrada, false);
}
};
