"""Lo que sirve la app y la protege: montajes, admisión a la cola, límites de los cuerpos, disco.

Las pestañas (`demos/`) no importan nada de aquí, y aquí no se importa `app`: `app.py` arma las
páginas y se las pasa a `asgi.crear_app`.

  asgi.py         crear_app: la raíz en «/» y cada pestaña en /demo/<id>/, montada al pedirla
  proceso.py      lo primero del proceso (carpeta, arenas de malloc, hilos de torch) y la precarga
  disco.py        todo lo que la app escribe, bajo una carpeta propia que se limpia al arrancar
  entradas.py     montaje con la comprobación de archivos de Gradio activa; revisión previa de cada evento
  admision.py     quién entra a la cola y cuánto: el token de la página, la dirección y el costo, los topes
  protecciones.py ASGI delante de todo: cuerpos acotados, `nosniff`, `Host` que no se refleja
"""
