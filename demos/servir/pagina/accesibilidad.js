// Lo que Gradio deja sin nombre o con un atributo que no va (axe-core, #37), arreglado en la página:
// - una pestaña suelta (/demo/<id>/) lleva su título en un «##» (app.py) y ningún <h1> (page-has-heading-one): se
//   antepone un <h1> con el nombre de la suite que solo leen los lectores de pantalla (el «##» sigue en el nivel 2,
//   y los «###» de la pestaña, en el 3: heading-order);
// - la caja de una figura todavía vacía tiene aria-label («Empty value», en inglés) sin rol, que no lo permite
//   (aria-prohibited-attr): pasa a ser una imagen con su nombre en español;
// - la esquina de una tabla con los números de fila es una celda de encabezado vacía (empty-table-header): dice «n.º».
() => {
  const arreglar = () => {
    const h2 = document.querySelector("#cabecera h2");
    if (h2 && !document.querySelector("h1, [role=heading][aria-level='1']")) {
      const h1 = document.createElement("h1");
      h1.className = "solo-lector";
      h1.textContent = "Atención y transformers";
      h2.before(h1);
    }
    for (const c of document.querySelectorAll(".unpadded_box[aria-label]:not([role])")) {
      c.setAttribute("role", "img");
      c.setAttribute("aria-label", "Figura todavía vacía");
    }
    for (const th of document.querySelectorAll("th.row-number-header")) {
      if (th.textContent.trim()) continue;
      const s = document.createElement("span");
      s.className = "esquina-de-tabla";
      s.textContent = "n.º";
      th.appendChild(s);
    }
  };
  let pendiente = false;
  const pedir = () => {
    if (pendiente) return;
    pendiente = true;
    requestAnimationFrame(() => { pendiente = false; arreglar(); });
  };
  const empezar = () => {
    arreglar();
    new MutationObserver(pedir).observe(document.body, {childList: true, subtree: true});
  };
  if (document.body) empezar();
  else document.addEventListener("DOMContentLoaded", empezar, {once: true});
}
