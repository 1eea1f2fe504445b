// Los textos de Gradio que su i18n no traduce (vienen escritos en inglés en sus componentes: la
// etiqueta del botón de reinicio del deslizador, las herramientas del lienzo, el título de los
// avisos…) se cambian en la página, en cuanto aparecen. Lo que Gradio sí traduce lo elige su i18n
// (idioma.html le fija el español).
() => {
  const ATRIBUTOS = {
    "Reset to default value": "Volver al valor inicial",
    "Copy table data": "Copiar la tabla",
    "Copied to clipboard": "Copiada al portapapeles",
    "Fullscreen": "Pantalla completa",
    "Exit fullscreen": "Salir de pantalla completa",
    "Exit fullscreen mode": "Salir de pantalla completa",
    "Table actions": "Acciones de la tabla",
    "Open cell menu": "Menú de la celda",
    "File upload": "Subir un archivo",
    "Upload file": "Subir un archivo",
    "Click to upload or drop files": "Haz clic o suelta aquí archivos para subirlos",
    "Drop an image file here to upload": "Suelta aquí una imagen para subirla",
    "Capture from camera": "Tomar con la cámara",
    "Paste from clipboard": "Pegar del portapapeles",
    "Brush": "Pincel",
    "Erase": "Borrador",
    "Clear canvas": "Vaciar el lienzo",
    "Clear": "Borrar",
    "Undo": "Deshacer",
    "undo": "deshacer",
    "Redo": "Rehacer",
    "Pan": "Mover",
    "Zoom in": "Acercar",
    "Zoom out": "Alejar",
    "copy": "copiar",
    "Close": "Cerrar",
    "Download": "Descargar",
    "Remove": "Quitar",
    "Expand": "Ampliar",
    "Collapse": "Plegar",
  };
  const PREFIJOS = [["number input for ", "número: "], ["range slider for ", "deslizador: "]];
  const TEXTOS = {
    "Warning": "Aviso",
    "Info": "Información",
    "Success": "Hecho",
    "Drop CSV or TSV files here to import data into dataframe": "Suelta aquí archivos CSV o TSV para cargarlos en la tabla",
  };
  const NOMBRES = ["aria-label", "title", "placeholder"];
  const traducir = (v) => {
    if (v in ATRIBUTOS) return ATRIBUTOS[v];
    for (const [en, es] of PREFIJOS) if (v.startsWith(en)) return es + v.slice(en.length);
    return null;
  };
  const atributos = (e) => {
    for (const n of NOMBRES) {
      const v = e.getAttribute(n);
      const t = v && traducir(v);
      if (t && t !== v) e.setAttribute(n, t);
    }
    // La zona para soltar una imagen: su nombre accesible es lo que dice («Suelta aquí una imagen…»).
    if (e.matches("[aria-dropeffect][aria-label]")) {
      const dice = e.innerText.replace(/\s+/g, " ").trim();
      if (dice && e.getAttribute("aria-label") !== dice) e.setAttribute("aria-label", dice);
    }
  };
  const texto = (n) => {
    const v = n.nodeValue.trim();
    // Solo si cambia: escribir nodeValue (aunque sea el mismo texto) avisa otra vez al observador, en rueda.
    const nuevo = v in TEXTOS ? n.nodeValue.replace(v, TEXTOS[v]) : n.nodeValue;
    if (nuevo !== n.nodeValue) n.nodeValue = nuevo;
  };
  const recorrer = (raiz) => {
    if (raiz.nodeType === Node.TEXT_NODE) return texto(raiz);
    if (raiz.nodeType !== Node.ELEMENT_NODE || raiz.closest(".js-plotly-plot, .katex")) return;
    atributos(raiz);
    for (const e of raiz.querySelectorAll("[aria-label], [title], [placeholder]")) atributos(e);
    const w = document.createTreeWalker(raiz, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => (n.parentElement.closest("svg, .prose, .katex") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    for (let n = w.nextNode(); n; n = w.nextNode()) texto(n);
  };
  recorrer(document.body);
  new MutationObserver((cambios) => {
    for (const c of cambios) {
      if (c.type === "attributes") atributos(c.target);
      else if (c.type === "characterData") texto(c.target);
      else {
        for (const n of c.addedNodes) recorrer(n);
        const zona = c.target.closest && c.target.closest("[aria-dropeffect][aria-label]");
        if (zona) atributos(zona);
      }
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: NOMBRES });
}
