// El archivo exportado (demos/servir/exportar): lo que en la app hacen Gradio y el `js=` de cada evento de barrido.
// Las figuras las recibe y dibuja la suite (`window.__suite.recibir`: figuras.mjs, con su modo oscuro, teléfono y
// proyector); cada parada la arma `window.__suite.barrido` (barrido.mjs) con el paquete que calculó Python. Aquí
// solo se leen los controles, se llama a esas dos puertas y se ponen los textos de cada parada (HTML hecho en
// Python). Ninguna fórmula ni regla de maqueta: lo mismo que la app, sin servidor.
(() => {
  "use strict";
  const datos = JSON.parse(document.getElementById("datos-exportados").textContent);
  const suite = window.__suite;
  const raiz = document.documentElement;
  const consulta = new URLSearchParams(location.search);

  // Modo oscuro: el del sistema (prefers-color-scheme), o el que fija el botón (o ?modo=oscuro|claro).
  const sistema = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  let fijado = {oscuro: true, claro: false}[consulta.get("modo")] ?? null;
  const botonModo = document.getElementById("boton-modo");
  const aplicarModo = () => {
    const oscuro = fijado ?? (sistema ? sistema.matches : false);
    document.body.classList.toggle("dark", oscuro);
    botonModo.setAttribute("aria-pressed", String(oscuro));
    botonModo.textContent = oscuro ? "Modo claro" : "Modo oscuro";
  };
  if (sistema) sistema.addEventListener("change", aplicarModo);
  botonModo.addEventListener("click", () => {
    fijado = !document.body.classList.contains("dark");
    aplicarModo();
  });
  aplicarModo();

  // Proyector: la clase que la app pone con ?presentacion=1 (figuras.mjs agranda la letra y ajusta la figura).
  const botonProyector = document.getElementById("boton-proyector");
  const proyector = (si) => {
    raiz.classList.toggle("presentacion", si);
    botonProyector.setAttribute("aria-pressed", String(si));
  };
  proyector(datos.presentacion || consulta.get("presentacion") === "1");
  botonProyector.addEventListener("click", () => proyector(!raiz.classList.contains("presentacion")));

  // Las figuras de la vista, por salida.
  const idFigura = [];
  let n = 0;
  datos.salidas.forEach((s, j) => { if (s.tipo === "figura") idFigura[j] = `${datos.id}-figura${++n}`; });
  const lienzo = (j) => document.querySelector(`#${CSS.escape(idFigura[j])} .figura-propia`);
  datos.salidas.forEach((s, j) => {
    if (s.tipo === "figura" && s.valor) suite.recibir(lienzo(j), {type: "plotly", plot: s.valor});
  });

  // Lo que muestra cada entrada de la vista (un control barrido, la entrada que fija, uno desactivado).
  const mostrar = (i, v) => {
    for (const el of document.querySelectorAll(`[data-entrada="${i}"]`)) {
      if (el.matches("output")) el.textContent = v;
      else if (el.matches("input[type=range], input[type=number]")) el.value = v;
      else if (el.matches("input[type=checkbox]")) el.checked = !!v;
      else if (el.matches("textarea")) el.value = v;
      else if (el.matches("[role=radiogroup]")) {
        const b = datos.barridos[Number(el.querySelector("input").dataset.barrido)];
        const k = b.paquete.paradas.findIndex((x) => String(x) === String(v));
        el.querySelectorAll("input").forEach((r, j) => { r.checked = j === k; });
      }
    }
  };

  // La parada k del barrido b: la arma barrido.mjs (la misma función que el `js=` de la app) con las demás entradas
  // del paquete; sus figuras van a la suite y sus textos, del HTML que Python hizo para esa parada.
  const poner = (nb, k, modo) => {
    const b = datos.barridos[nb];
    const p = b.paquete;
    const I = b.datos.entrada;
    const entradas = [...p.otros.slice(0, I), p.entradas[k], ...p.otros.slice(I)];
    const r = suite.barrido({...b.datos, modo}, modo === "control" ? p.paradas[k] : modo, p, 0, ...entradas);
    if (!r) return;
    const error = p.errores[String(k)];
    const info = document.querySelector(`[data-info="${nb}"]`);
    if (info) info.textContent = error !== undefined ? "⚠ " + error : (b.control.info || "");
    const valor = document.querySelector(`[data-valor-de="${nb}"]`);
    if (valor) valor.textContent = p.paradas[k];
    const rango = document.querySelector(`input[type=range][data-barrido="${nb}"]`);
    if (rango && modo !== "control") rango.value = p.paradas[k];
    if (error !== undefined) return;
    for (let j = 0; j < b.datos.salidas; j++) {
      const g = b.globales[j]; // la salida j del barrido es la g de la página (una sección va al final)
      if (r[j] !== undefined && datos.salidas[g].tipo === "figura") suite.recibir(lienzo(g), r[j]);
    }
    for (const [j, t] of Object.entries(b.textos)) {
      const el = document.querySelector(`[data-salida="${j}"]`);
      el.innerHTML = t.v[t.i[k]];
      el.hidden = !t.v[t.i[k]];
    }
    // Las demás entradas, las del paquete: otro control barrido vuelve a su valor (o al que fija `con`). Las de una
    // sección son suyas: no se muestran aparte.
    if (!b.seccion) entradas.forEach((v, i) => mostrar(i, v));
  };

  const cerca = (a, b) => Math.abs(Number(a) - Number(b)) <= 1e-9 * Math.max(1, Math.abs(Number(b)));
  datos.barridos.forEach((b, nb) => {
    const p = b.paquete;
    if (p.servidor) return;
    for (const el of document.querySelectorAll(`[data-barrido="${nb}"]`)) {
      el.addEventListener("input", () => {
        const k = el.type === "range"
          ? p.paradas.findIndex((x) => cerca(x, el.value))
          : Number(el.value);
        if (k >= 0) poner(nb, k, "control");
      });
    }
    for (const boton of document.querySelectorAll(`[data-atajo="${nb}"]`)) {
      boton.addEventListener("click", () => {
        const k = p.paradas.findIndex((x) => cerca(x, boton.dataset.valor));
        if (k >= 0) poner(nb, k, p.paradas[k]);
      });
    }
    // Como al abrir la página en la app: las figuras que se ven, marcadas con sus paradas, para que figuras.mjs
    // dibuje las demás de antemano en los momentos libres.
    if (b.vale && b.k !== null) {
      const I = b.datos.entrada;
      const entradas = [...p.otros.slice(0, I), p.entradas[b.k], ...p.otros.slice(I)];
      suite.barrido({...b.datos, modo: "paquete"}, p.paradas[b.k], p, 0, ...entradas);
    }
  });
})();
