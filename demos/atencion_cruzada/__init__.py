"""La pestaña «Atención cruzada».

- `pestana.py`: las palabras de una frase objetivo miran las de una frase fuente, y `construir()`;
- `frases.py`: leer las frases, el vector de cada palabra y la capa sin entrenar;
- `cuello.py`: el cuello de botella de un Seq2Seq (tutorial §1.1): un contexto fijo contra uno por paso.
"""
