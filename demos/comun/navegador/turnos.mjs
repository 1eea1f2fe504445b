// Turnos: en qué orden se dibujan las figuras y las paradas (sin DOM salvo `antesEnLaPagina`; las prueba
// tests/js/turnos.test.mjs con `node --test`).

// Las paradas 0…n-1 de la más cercana a k a la más lejana (a igual distancia, la de la izquierda), a lo sumo `max`:
// las que se dibujan de antemano primero son las que un arrastre encuentra antes.
export const masCercanas = (n, k, max) =>
  [...Array(n).keys()].sort((a, b) => Math.abs(a - k) - Math.abs(b - k)).slice(0, max);

// De dos elementos, el que va antes en la página (para `reduce`: el primero de una lista).
export const antesEnLaPagina = (a, b) => (a.compareDocumentPosition(b) & 2 /* PRECEDING */ ? b : a);
