"""Lo que sirve la app y la protege: montajes, cola repartida, límites de los cuerpos, disco.

Las pestañas (`demos/`) no importan nada de aquí: este paquete solo lo usa `app.py`.

  disco.py        todo lo que la app escribe, bajo una carpeta propia que se limpia al arrancar
  entradas.py     montaje con la comprobación de archivos de Gradio activa; revisión previa de cada evento
  cola.py         la cola de Gradio con tamaños explícitos y un reparto justo del trabajo pesado
  protecciones.py ASGI delante de todo: cuerpos acotados, `nosniff`, `Host` que no se refleja
"""
