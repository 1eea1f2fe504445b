// Para las pruebas de Python (tests/test_figuras.py): la figura como la maqueta el navegador, sin navegador.
// Lee de stdin {figura, pagina, ajustes} (ajustes: demos.comun.navegador.ajustes()) y escribe [data, layout].
import {maquetar} from "../../demos/comun/navegador/maqueta.mjs";

let entrada = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (trozo) => { entrada += trozo; });
process.stdin.on("end", () => {
  const {figura, pagina, ajustes} = JSON.parse(entrada);
  process.stdout.write(JSON.stringify(maquetar(figura, pagina, ajustes)));
});
