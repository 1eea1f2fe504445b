// La figura primero, en cualquier pantalla: cada explicación se pliega a su comienzo (un botón
// «leer más» la abre) y, en la columna de cada figura principal, arriba va la explicación, luego la
// fila de controles principal y la figura; el resto (tablas, más controles, textos) debajo.
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
  const controles = "input, textarea, select";
  const ordenar = (f) => {
    for (let e = f; e.parentElement && !e.parentElement.matches(".tabitem, .gradio-container"); e = e.parentElement) {
      const padre = e.parentElement;
      if (getComputedStyle(padre).flexDirection !== "column") continue;
      const hermanos = [...padre.children].filter((h) => h !== e);
      const antes = hermanos.filter((h) => h.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING);
      const filas = antes.filter((h) => h.querySelector(controles) && !h.querySelector(".figura, table"));
      const fila = filas.find((h) => h.querySelector("input[type=range]")) || filas[0];
      for (const h of hermanos) h.style.order = h.matches(".explicacion") ? "-3" : h === fila ? "-2" : "";
      e.style.order = "-1";
    }
  };
  // Lo menos que se achica una figura: ni la mitad, ni tanto que su letra más chica quede bajo 14 px a 1280 × 720
  // (en una ventana más chica, como la diapositiva de 960 × 700 de reveal.js que el mazo agranda al proyectar,
  // los 14 px en proporción).
  const pisoZoom = (f) => {
    const minima = 14 * Math.min(1, window.innerWidth / 1280, window.innerHeight / 720);
    const letras = [...f.querySelectorAll("svg text")].map((t) => parseFloat(getComputedStyle(t).fontSize)).filter((x) => x > 0);
    return letras.length ? Math.min(1, Math.max(0.5, minima / Math.min(...letras))) : 0.5;
  };
  // De qué depende el orden: los padres de la figura, cuántos hijos y cuántos controles tiene cada uno. Si no
  // cambió, no se ordena otra vez (ordenar lee el estilo calculado: forzaba el de toda la página tras cada
  // cambio del DOM, también los de Gradio en cada valor).
  const cadena = (f) => {
    const c = [];
    for (let e = f; e.parentElement && !e.parentElement.matches(".tabitem, .gradio-container"); e = e.parentElement) {
      c.push(e.parentElement, e.parentElement.childElementCount, e.parentElement.querySelectorAll(controles).length);
    }
    return c;
  };
  const igual = (a, b) => a && a.length === b.length && a.every((x, i) => x === b[i]);
  const ajustar = () => {
    for (const ex of document.querySelectorAll(".block.explicacion")) boton(ex);
    for (const f of document.querySelectorAll('[id$="-figura1"]')) {
      const c = cadena(f);
      if (!presentacion && igual(f.__cadena, c)) continue;
      if (!f.offsetParent) continue;
      ordenar(f);
      f.__cadena = c;
      if (!presentacion) continue;
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
