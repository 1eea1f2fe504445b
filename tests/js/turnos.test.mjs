import assert from "node:assert/strict";
import {test} from "node:test";

import {masCercanas} from "../../demos/comun/navegador/turnos.mjs";

test("las paradas de antemano, de la más cercana a la más lejana, con tope", () => {
  assert.deepEqual(masCercanas(7, 3, 10), [3, 2, 4, 1, 5, 0, 6]);
  assert.deepEqual(masCercanas(5, 0, 3), [0, 1, 2]);
  assert.deepEqual(masCercanas(0, 0, 3), []);
});
