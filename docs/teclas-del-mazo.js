// Las teclas que una pestaña incrustada devuelve (flechas, Re Pág, Av Pág, Escape) mueven el mazo,
// y el foco vuelve a él. Va en la página del mazo, después de cargar reveal.js (o sin reveal.js:
// entonces la tecla se repite como un keydown del documento). ORIGEN: la dirección de la app.
function devolverTeclasAlMazo(ORIGEN) {
  window.addEventListener("message", (e) => {
    const d = e.data;
    if (e.origin !== ORIGEN || !d || d.tipo !== "atencion:tecla") return;
    if (document.activeElement && document.activeElement.tagName === "IFRAME") document.activeElement.blur();
    window.focus();
    const R = window.Reveal;
    const accion = R && R.isReady && R.isReady() && {
      ArrowRight: R.right, ArrowLeft: R.left, ArrowUp: R.up, ArrowDown: R.down,
      PageDown: R.next, PageUp: R.prev, Escape: R.toggleOverview,
    }[d.key];
    if (accion) accion.call(R);
    else document.dispatchEvent(new KeyboardEvent("keydown", { key: d.key, code: d.code, keyCode: d.keyCode, shiftKey: d.shiftKey, bubbles: true }));
  });
}
