// La figura primero, en cualquier pantalla: cada explicación se pliega a su comienzo (un botón
// «leer más» la abre). El orden de la página es el de `construir()` de cada pestaña (la explicación, la fila de
// controles principal, la figura y debajo el resto; tests/test_contrato.py lo mira): aquí no se mueve nada.
// Modo presentación (?presentacion=1): se marca el documento (presentacion.css), la explicación
// plegada es una sola línea y la figura se achica (zoom) hasta caber en la pantalla, no menos de 0.5 ni
// con letra de menos de 14 px.
() => {
  const p = new URLSearchParams(window.location.search).get("presentacion");
  const presentacion = p === "1" || p === "true";
  const raiz = document.documentElement;
  raiz.classList.add("plegable");
  if (presentacion) {
    raiz.classList.add("presentacion");
    document.body.classList.add("presentacion");
  }
  const alternar = (ex) => {
    const abierta = ex.classList.toggle("abierta");
    const b = ex.querySelector(":scope > .leer-mas");
    if (b) {
      b.setAttribute("aria-expanded", String(abierta));
      b.textContent = abierta ? "▾ cerrar" : "▸ leer más";
    }
  };
  document.addEventListener("click", (e) => {
    const ex = e.target.closest && e.target.closest(".block.explicacion");
    if (ex && !e.target.closest("a") && !window.getSelection().toString()) alternar(ex);
  });
  const boton = (ex) => {
    if (ex.querySelector(":scope > .leer-mas")) return;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "leer-mas";
    b.setAttribute("aria-expanded", "false");
    b.textContent = "▸ leer más";
    ex.appendChild(b);  // el clic lo atiende el de la explicación
  };
  // Lo menos que se achica una figura: ni la mitad, ni tanto que su letra más chica quede bajo 14 px a 1280 × 720
  // (en una ventana más chica, como la diapositiva de 960 × 700 de reveal.js que el mazo agranda al proyectar,
  // los 14 px en proporción).
  // En una página angosta (media diapositiva junto a un texto: la pestaña de teléfono, menos de 600 px como
  // pantalla_angosta.ANCHO_MAXIMO), la letra no baja de 10 px: el mazo agranda el iframe con la diapositiva entera
  // (× 2 a 1920 × 1080), no con su ancho. Con 14 px × 470 / 1280, la figura de multicabeza se achicaba a la mitad y
  // sus números quedaban en 6 px (12 en la pantalla del proyector); ahora la figura se llega a ver bajando.
  const pisoZoom = (f) => {
    const minima = window.innerWidth < 600 ? 10 : 14 * Math.min(1, window.innerWidth / 1280, window.innerHeight / 720);
    const letras = [...f.querySelectorAll("svg text")].map((t) => parseFloat(getComputedStyle(t).fontSize)).filter((x) => x > 0);
    return letras.length ? Math.min(1, Math.max(0.5, minima / Math.min(...letras))) : 0.5;
  };
  const ajustar = () => {
    for (const ex of document.querySelectorAll(".block.explicacion")) boton(ex);
    if (!presentacion) return;
    for (const f of document.querySelectorAll('[id$="-figura1"]')) {
      if (!f.offsetParent) continue;
      f.style.zoom = "";
      const caja = f.getBoundingClientRect();
      const arriba = caja.top + window.scrollY;
      const cabe = window.innerHeight - arriba - 4;
      if (caja.height > cabe && cabe > 0) f.style.zoom = String(Math.max(pisoZoom(f), cabe / caja.height));
    }
  };
  let pendiente = false;
  const pedir = () => {
    if (pendiente) return;
    pendiente = true;
    requestAnimationFrame(() => { pendiente = false; ajustar(); });
  };
  // Lo que cambia dentro del bloque de una figura en cada valor (lo que Plotly rehace, el reloj de Gradio que
  // reescribe su «0.1s» en cada cuadro mientras espera, el <div> de cada valor) y lo que Plotly mide en su
  // <svg id="js-plotly-tester"> no mueve nada de la página, salvo en el proyector, donde el alto de la figura decide
  // su zoom; tampoco un nodo que ya no está en la página (Plotly quitó a su padre). Antes, cada cuadro de
  // espera y cada dibujo volvían a recorrer la página aquí: ≈ 10 ms por movimiento en parches.
  const deFigura = (r) =>
    !r.target.isConnected || (r.target.closest && r.target.closest(".figura, .js-plotly-plot, .figura-propia, #js-plotly-tester"));
  new MutationObserver((registros) => {
    if (presentacion || !registros.every(deFigura)) pedir();
  }).observe(document.body, {childList: true, subtree: true});
  window.addEventListener("resize", pedir);
  document.addEventListener("click", () => setTimeout(pedir, 50));
}
