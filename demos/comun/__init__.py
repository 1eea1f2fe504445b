"""El kit que importan las pestañas, un módulo por tarea; se importa cada uno por su nombre.

- `vista`: `Vista` (lo que devuelve `construir()`), `envolver`, `grafico`, `explicacion`,
  `llenar_al_abrir`, `exclusivo`;
- `controles`: controles que dejan validar a la función de cálculo (`Deslizador`, `Numero`…);
- `validar`: enteros, reales y listas de palabras que llegan por el API, con mensajes en español;
- `seguridad`: escapar lo que escribe un visitante (`escapar_md`, `escapar_html`);
- `figuras`: el vocabulario de figuras (`Mapa`, `Barras`, `Curvas`…), los colores y `numero()`;
  `pantalla` las dibuja con Plotly (lo usa `envolver`; las pestañas no lo llaman);
- `imagenes` y `digitos`: subidas, dibujos y la sección «elige o dibuja un dígito»;
- `zerogpu`: el decorador `@gpu` de las funciones que merecen una GPU en ZeroGPU.

`from demos.comun.figuras import Mapa` no importa gradio: `demos.memoria.medida`, que solo usa las
figuras y `@gpu`, se importa sin él (la máquina de `scripts/gpu_smoke.py` no lo tiene).
Lo que arma la página y no llaman las pestañas está en `demos.servir`.
"""
