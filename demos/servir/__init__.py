"""Lo que `app.py` conecta y las pestañas nunca importan.

- `conectar.py`: el evento público de cada pestaña (`api_name` = su id), la vista inicial
  (calculada una vez por proceso), los ajustes de la URL y el botón de descargas;
- `descarga.py`: las descargas, con matplotlib: PNG a 220 ppp y SVG, en archivos.
"""
