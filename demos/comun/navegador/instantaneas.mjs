// Instantáneas: lo que Plotly ya dibujó, para volver a ponerlo sin Plotly.
//
// Una instantánea es una copia (cloneNode) del contenedor que Plotly armó dentro de una figura para un valor, con
// el aspecto de la página (modo, ancho, panel elegido). Se guardan en una sola lista para toda la página, de la
// usada hace más a la usada hace menos, hasta `maxNodos` elementos entre todas; la que se ve no se descarta. La
// clave de cada una la arma quien llama (la vista de la figura + el texto de su valor). Sin DOM: la prueban
// tests/js/instantaneas.test.mjs con `node --test` (un nodo es lo que tenga `isConnected`).

export const crearInstantaneas = (maxNodos) => {
  const lista = new Map(); // clave -> {g, nodo, nodos}
  let guardados = 0;
  const quitar = (k) => {
    const i = lista.get(k);
    if (!i) return;
    guardados -= i.nodos;
    lista.delete(k);
  };
  return {
    get nodos() { return guardados; },
    tiene: (k) => lista.has(k), // sin moverla en la lista
    hayLugar: (n) => guardados + n <= maxNodos,
    // El nodo guardado con la clave k (o null); pasa a ser el usado hace menos.
    buscar(k) {
      const i = lista.get(k);
      if (!i) return null;
      lista.delete(k);
      lista.set(k, i);
      return i.nodo;
    },
    // Guarda `nodo` (de `n` elementos) de la figura g. Una figura enorme no se guarda: se dibuja cada vez. Si se
    // pasa del tope, se descartan las más viejas que ya no están en la página.
    guardar(k, g, nodo, n) {
      if (n > maxNodos / 8) return;
      quitar(k);
      lista.set(k, {g, nodo, nodos: n});
      guardados += n;
      for (const [k2, i] of lista) {
        if (guardados <= maxNodos) break;
        if (!i.nodo.isConnected || !i.g.isConnected) quitar(k2);
      }
    },
    // Las de la figura g, todas (otro modo, otro ancho: ya no son su aspecto).
    olvidar(g) { for (const [k, i] of lista) if (i.g === g) quitar(k); },
    // La de la clave vieja, ahora con la nueva (el mismo dibujo con otro texto del mismo valor).
    renombrar(vieja, nueva) {
      const i = lista.get(vieja);
      if (!i) return;
      lista.delete(vieja);
      lista.set(nueva, i);
    },
  };
};
