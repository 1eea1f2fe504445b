// Modo presentación (?presentacion=1): se marca el documento; el CSS hace el resto, salvo abrir
// y cerrar la explicación con un clic y poner la figura principal bajo sus controles.
() => {
  const p = new URLSearchParams(window.location.search).get("presentacion");
  if (p !== "1" && p !== "true") return;
  document.documentElement.classList.add("presentacion");
  document.body.classList.add("presentacion");
  document.addEventListener("click", (e) => {
    const ex = e.target.closest && e.target.closest(".block.explicacion");
    if (ex && !e.target.closest("a")) ex.classList.toggle("abierta");
  });
  // La figura primero: en cada columna que la contiene, arriba la explicación plegada, luego la fila
  // de controles principal (de las de antes, la primera con un deslizador o si no la primera) y la figura.
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
  // Si la figura principal no cabe bajo lo que tiene arriba, se achica (zoom) hasta caber, no menos de 0.5.
  const ajustar = () => {
    for (const f of document.querySelectorAll('[id$="-figura1"]')) {
      if (!f.offsetParent) continue;
      ordenar(f);
      f.style.zoom = "";
      const caja = f.getBoundingClientRect();
      const arriba = caja.top + window.scrollY;
      const cabe = window.innerHeight - arriba - 4;
      if (caja.height > cabe && cabe > 0) f.style.zoom = String(Math.max(0.5, cabe / caja.height));
    }
  };
  let pendiente = false;
  const pedir = () => {
    if (pendiente) return;
    pendiente = true;
    requestAnimationFrame(() => { pendiente = false; ajustar(); });
  };
  new MutationObserver(pedir).observe(document.body, {childList: true, subtree: true});
  window.addEventListener("resize", pedir);
  document.addEventListener("click", () => setTimeout(pedir, 50));
}
