// La puerta de la suite en la página: arranca las figuras y los barridos una vez y los deja en
// `window.__suite`, lo único que ven los guiones de Gradio (el `js_on_load` de cada Figura y el `js=` de cada
// evento de barrido no pueden importar módulos). Entre los módulos, todo va por `import`.
//
// Corre en el <head> del HTML (servidor/laterales.py), antes que Plotly.js y que las figuras, y otra vez en el
// `head` de la configuración (para quien arma la página desde /config): la segunda no hace nada. Una figura
// montada antes espera en `window.__suite.enEspera` (componente.AL_CARGAR); una que llega antes que Plotly.js,
// hasta que llegue.

import {crearBarrido} from "./barrido.mjs";
import {crearFiguras} from "./figuras.mjs";

// `ajustes`: las constantes de Python (demos.comun.navegador.ajustes), definidas una vez allí.
export const iniciar = (ajustes) => {
  const suite = (window.__suite ??= {});
  if (suite.recibir) return suite;
  const paradas = new Map(); // clave de barrido:salida -> {paquete, n, texto(j)}
  const figuras = crearFiguras(ajustes, paradas);
  const esperas = new Map(); // barrido + entradas -> desde cuándo se esperan sus paradas
  const barrido = crearBarrido({paradas, figuras, esperaMs: ajustes.ESPERA_PAQUETE_MS, esperas});
  const enEspera = suite.enEspera;
  Object.assign(suite, {...figuras, barrido, paradas, esperas});
  delete suite.enEspera;
  // Las figuras que se montaron antes que este guion.
  if (enEspera) for (const [g, valor] of enEspera) figuras.recibir(g, valor());
  return suite;
};
