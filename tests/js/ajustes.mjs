// Las constantes que Python manda al navegador (demos.comun.navegador.ajustes), leídas de Python: las pruebas de
// Node usan las mismas que la página, no una copia a mano. `make test` pasa su Python en PYTHON.
import {execFileSync} from "node:child_process";
import {fileURLToPath} from "node:url";

const RAIZ = fileURLToPath(new URL("../..", import.meta.url));
const PYTHON = process.env.PYTHON || `${RAIZ}.venv/bin/python`;
const CODIGO = "import json; from demos.comun.navegador import ajustes; print(json.dumps(ajustes()))";

export const AJUSTES = JSON.parse(execFileSync(PYTHON, ["-c", CODIGO], {cwd: RAIZ, encoding: "utf8"}));
