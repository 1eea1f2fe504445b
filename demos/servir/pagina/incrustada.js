// En una diapositiva (la pestaña en un iframe, con ?presentacion=1): las flechas, Re Pág/Av Pág y
// Escape son del mazo, no de la pestaña. Tras un clic dentro, el foco queda aquí; estas teclas no
// mueven el deslizador ni la página: se devuelven al padre con postMessage ({tipo: "atencion:tecla"})
// y el script del mazo (README, «En diapositivas») avanza y recupera el foco. En un campo de texto
// las flechas siguen moviendo el cursor; Escape siempre sale.
() => {
  const p = new URLSearchParams(window.location.search).get("presentacion");
  if (window.parent === window || (p !== "1" && p !== "true")) return;
  const TECLAS = new Set(["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "PageUp", "PageDown", "Escape"]);
  const TEXTO = "textarea, [contenteditable=''], [contenteditable='true'], " +
    "input:not([type=range]):not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit])";
  document.addEventListener("keydown", (e) => {
    if (!TECLAS.has(e.key) || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key !== "Escape" && e.target.closest && e.target.closest(TEXTO)) return;
    e.preventDefault();
    e.stopPropagation();
    if (document.activeElement && document.activeElement.blur) document.activeElement.blur();
    const tecla = { key: e.key, code: e.code, keyCode: e.keyCode, shiftKey: e.shiftKey };
    window.parent.postMessage({ tipo: "atencion:tecla", ...tecla }, "*");
  }, true);
}
