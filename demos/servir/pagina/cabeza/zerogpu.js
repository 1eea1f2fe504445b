// En el HTML servido, antes que el cliente de Gradio (pagina.opciones, «cabeza_html»): en Chromium los
// oyentes de window corren en el orden en que se registraron, sea captura o no.
// El cliente de Gradio (6.31) cree a cualquier ventana padre que le manda «supports-zerogpu-headers»:
// desde entonces, cada evento espera las cabeceras de ZeroGPU del padre, y en un mazo ajeno esa respuesta
// no llega nunca (la pestaña deja de calcular sin decir nada). Solo el padre de verdad de un Space
// (huggingface.co, el único al que el cliente le pregunta) puede decirlo. Este oyente, en la fase de
// captura y registrado antes, corre antes que el de Gradio y corta el mensaje de cualquier otro origen.
// tests/test_seguridad_marco.py fija el oyente de Gradio a su versión; test_seguridad_navegador.py, el efecto.
(() => {
  const host = location.hostname;
  const padre = host.includes(".dev.")
    ? `https://moon-${host.split(".")[1]}.dev.spaces.huggingface.tech`
    : host.endsWith(".hf.space") ? "https://huggingface.co" : null;
  window.addEventListener("message", (e) => {
    if (e.data === "supports-zerogpu-headers" && e.origin !== padre) e.stopImmediatePropagation();
  }, true);
})();
