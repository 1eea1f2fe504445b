"""El léxico y las cláusulas de la gramática de opiniones (ver `modelos.opiniones`).

Cada cláusula de sentimiento lleva exactamente una palabra de sentimiento y sabe dónde
está; su polaridad es la de esa palabra, al revés si va negada. Los adjetivos
concuerdan en género y número con su sustantivo.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# ---------------------------------------------------------------- léxico

# Cada dominio: el objeto de la reseña, otros sustantivos y frases neutras de contexto. Un sustantivo se
# escribe «palabra:género número:tipo»; el tipo decide qué adjetivos le van.
_LEXICO = {
    "película": (
        "película:fs:obra",
        "historia:fs:obra final:ms:obra guion:ms:obra actuación:fs:obra actores:mp:persona música:fs:obra "
        "fotografía:fs:obra reparto:ms:otro escenas:fp:obra directora:fs:persona",
        "la vi el sábado; la vimos en el cine; fui con mi hermana; la vi ayer con unos amigos; la vi en casa; "
        "dura casi tres horas; es del mismo director; la estrenaron este año",
    ),
    "serie": (
        "serie:fs:obra",
        "temporada:fs:obra capítulo:ms:obra episodios:mp:obra protagonista:fs:persona personajes:mp:persona "
        "trama:fs:obra final:ms:obra actores:mp:persona",
        "la vi en una semana; vi las dos temporadas; la empecé el domingo; la vimos en familia; "
        "tiene diez capítulos; la vi por recomendación de una amiga",
    ),
    "restaurante": (
        "restaurante:ms:lugar",
        "comida:fs:comida servicio:ms:servicio camareros:mp:persona postre:ms:comida cena:fs:comida "
        "local:ms:lugar platos:mp:comida menú:ms:comida vino:ms:comida terraza:fs:lugar atención:fs:servicio",
        "fuimos a cenar el viernes; comimos allí el domingo; fuimos con mis padres; reservamos para cuatro personas; "
        "está en el centro; pedimos el menú del día; celebramos un cumpleaños",
    ),
    "libro": (
        "libro:ms:obra",
        "novela:fs:obra autora:fs:persona personajes:mp:persona trama:fs:obra estilo:ms:obra diálogos:mp:obra "
        "capítulos:mp:obra final:ms:obra historia:fs:obra",
        "lo leí en vacaciones; lo terminé ayer; me lo regaló mi hermana; lo leí en dos días; "
        "es de una autora joven; tiene casi quinientas páginas; lo leí en el tren",
    ),
    "hotel": (
        "hotel:ms:lugar",
        "habitación:fs:lugar desayuno:ms:comida piscina:fs:lugar personal:ms:persona cama:fs:lugar "
        "recepción:fs:servicio baño:ms:lugar ubicación:fs:otro habitaciones:fp:lugar",
        "nos alojamos tres noches; estuvimos en agosto; fuimos con los niños; reservamos por internet; "
        "está cerca de la playa; llegamos muy tarde; era un viaje de trabajo",
    ),
}


def _sustantivo(texto: str) -> tuple[str, str, str, str]:
    palabra, genero_numero, tipo = texto.split(":")
    return palabra, genero_numero[0], genero_numero[1], tipo


_DOMINIOS: dict[str, dict] = {
    dominio: {
        "objeto": _sustantivo(objeto),
        "sustantivos": [_sustantivo(t) for t in otros.split()],
        "contextos": [c.strip() for c in contextos.split(";")],
    }
    for dominio, (objeto, otros, contextos) in _LEXICO.items()
}


def _palabras(texto: str) -> list[str]:
    return texto.split()


# Adjetivos (masculino singular) por polaridad y tipo de sustantivo; «todos» le va a cualquiera.
_ADJETIVOS: dict[int, dict[str, list[str]]] = {
    1: {
        "todos": _palabras(
            "bueno excelente genial estupendo fantástico maravilloso perfecto increíble espectacular magnífico"
        ),
        "obra": _palabras("divertido emocionante interesante entretenido original brillante precioso conmovedor"),
        "persona": ["amable", "simpático", "atento", "encantador", "brillante"],
        "comida": ["delicioso", "sabroso", "rico", "exquisito"],
        "lugar": ["limpio", "cómodo", "tranquilo", "precioso", "agradable", "acogedor"],
        "servicio": ["rápido", "atento", "impecable", "eficaz"],
        "otro": [],
    },
    -1: {
        "todos": ["malo", "horrible", "terrible", "pésimo", "mediocre", "decepcionante", "lamentable", "desastroso"],
        "obra": ["aburrido", "predecible", "lento", "insoportable", "confuso", "flojo", "soso"],
        "persona": ["antipático", "grosero", "maleducado", "insoportable"],
        "comida": ["soso", "frío", "insípido", "grasiento", "salado"],
        "lugar": ["sucio", "incómodo", "ruidoso", "feo", "viejo"],
        "servicio": ["lento", "caótico", "desastroso"],
        "otro": [],
    },
}
# Los que van bien delante del sustantivo («un buen restaurante», «pésima atención»).
_PRENOMINALES = {
    1: ["bueno", "excelente", "estupendo", "magnífico", "maravilloso", "fantástico"],
    -1: ["malo", "pésimo", "horrible", "terrible", "lamentable"],
}

# Verbos de sentimiento con «me»: (singular, plural, tipos a los que les va; None = todos).
_VERBOS = {
    1: [("encantó", "encantaron", None), ("gustó", "gustaron", None), ("emocionó", "emocionaron", {"obra"})],
    -1: [("decepcionó", "decepcionaron", None), ("aburrió", "aburrieron", {"obra"})],
}
# Sustantivos de sentimiento: «fue una maravilla», «es un desastre».
_NOMINALES = {
    1: [("maravilla", "f"), ("joya", "f"), ("acierto", "m"), ("placer", "m")],
    -1: [("desastre", "m"), ("decepción", "f"), ("horror", "m"), ("pérdida", "f")],
}
_INTENSIFICADORES = ["muy", "bastante", "realmente", "súper", "increíblemente", "verdaderamente"]
# Atenuantes: con las dos polaridades («algo lenta», «algo divertida»), para que no delaten la etiqueta.
_ATENUANTES = ["demasiado", "algo", "un poco"]
# Los que ya son extremos solo admiten «realmente» o «verdaderamente» («muy pésimo» suena mal).
_EXTREMOS = {
    "excelente",
    "genial",
    "fantástico",
    "maravilloso",
    "perfecto",
    "increíble",
    "espectacular",
    "magnífico",
    "exquisito",
    "impecable",
    "horrible",
    "terrible",
    "pésimo",
    "lamentable",
    "desastroso",
    "insoportable",
    "estupendo",
}
_COPULAS = {  # (singular, plural) por tipo
    "obra": [("es", "son"), ("fue", "fueron"), ("era", "eran"), ("resultó", "resultaron")],
    "persona": [("es", "son"), ("fue", "fueron"), ("era", "eran"), ("estuvo", "estuvieron")],
    "comida": [("estaba", "estaban"), ("estuvo", "estuvieron"), ("está", "están"), ("era", "eran")],
    "lugar": [("es", "son"), ("era", "eran"), ("estaba", "estaban"), ("está", "están")],
    "servicio": [("fue", "fueron"), ("era", "eran"), ("es", "son")],
    "otro": [("es", "son"), ("era", "eran")],
}
_ARTICULOS = {("m", "s"): "el", ("f", "s"): "la", ("m", "p"): "los", ("f", "p"): "las"}
_DEMOSTRATIVOS = {("m", "s"): "este", ("f", "s"): "esta", ("m", "p"): "estos", ("f", "p"): "estas"}
_INDEFINIDOS = {("m", "s"): "un", ("f", "s"): "una", ("m", "p"): "unos", ("f", "p"): "unas"}


def forma(adjetivo: str, genero: str, numero: str) -> str:
    """El adjetivo concordado: «divertido» → «divertidas»; «genial» → «geniales»; «amable» → «amables»."""
    if adjetivo.endswith("o"):
        singular = adjetivo if genero == "m" else adjetivo[:-1] + "a"
        return singular + "s" if numero == "p" else singular
    if adjetivo.endswith("or"):  # encantador, conmovedor, acogedor
        singular = adjetivo if genero == "m" else adjetivo + "a"
        return singular + ("es" if genero == "m" else "s") if numero == "p" else singular
    if numero == "s":
        return adjetivo
    if adjetivo.endswith("e"):
        return adjetivo + "s"
    if adjetivo.endswith("z"):
        return adjetivo[:-1] + "ces"  # eficaz → eficaces
    return adjetivo + "es"  # genial → geniales


def _prenominal(adjetivo: str, genero: str, numero: str) -> str:
    if genero == "m" and numero == "s" and adjetivo in ("bueno", "malo"):
        return adjetivo[:-1]  # un buen restaurante, un mal servicio
    return forma(adjetivo, genero, numero)


def dominios() -> list[str]:
    return list(_DOMINIOS)


def sustantivos(dominio: str) -> list[tuple[str, str, str, str]]:
    d = _DOMINIOS[dominio]
    return [d["objeto"], d["objeto"], *d["sustantivos"]]  # el objeto de la reseña, el doble de veces


def _polaridades() -> dict[str, int]:
    """Cada palabra de sentimiento con su polaridad: +1 positiva, −1 negativa."""
    pares = [
        (f, p)
        for p in (1, -1)
        for lista in _ADJETIVOS[p].values()
        for a in lista
        for f in [forma(a, g, n) for g in "mf" for n in "sp"] + [_prenominal(a, "m", "s")]
    ]
    pares += [(v, p) for p in (1, -1) for s, pl, _ in _VERBOS[p] for v in (s, pl)]
    pares += [(n, p) for p in (1, -1) for n, _ in _NOMINALES[p]]
    pares += [(v, 1) for v in ("recomiendo", "disfruté", "adoré", "volveremos", "volvería")] + [("odié", -1)]
    polaridad: dict[str, int] = {}
    for palabra, p in pares:
        if polaridad.setdefault(palabra, p) != p:
            raise ValueError(f"«{palabra}» sale con las dos polaridades en la gramática.")
    return polaridad


POLARIDAD = _polaridades()
CLAVES_SENTIMIENTO = frozenset(POLARIDAD)

# ---------------------------------------------------------------- cláusulas


@dataclass
class Clausula:
    fichas: list[str]
    sentimiento: list[int]  # posiciones de las palabras de sentimiento dentro de la cláusula
    negada: bool = False


def clausulas_contexto(r: random.Random, dominio: str, k: int) -> list[Clausula]:
    """k frases neutras distintas: cuándo, con quién, dónde."""
    return [Clausula(c.split(), []) for c in r.sample(_DOMINIOS[dominio]["contextos"], k)]


def _sujeto(r: random.Random, dominio: str) -> tuple[list[str], tuple[str, str, str, str]]:
    s = r.choice(sustantivos(dominio))
    det = r.choice((_ARTICULOS, _ARTICULOS, _ARTICULOS, _DEMOSTRATIVOS))[s[1], s[2]]
    return [det, s[0]], s


def _adjetivo(r: random.Random, polo: int, tipo: str) -> str:
    return r.choice(_ADJETIVOS[polo]["todos"] + _ADJETIVOS[polo][tipo] * 2)


def _intensificador(r: random.Random, adjetivo: str, negada: bool) -> list[str]:
    if adjetivo in _EXTREMOS:
        return r.choice(([], [], [], ["realmente"], ["verdaderamente"]))
    if negada:
        return r.choice(([], [], ["muy"], ["nada"], ["tan"]))
    return r.choice([[]] * 5 + [[i] for i in _INTENSIFICADORES] + [i.split() for i in _ATENUANTES])


def _copulativa(r: random.Random, dominio: str, polo: int, negada: bool) -> Clausula:
    """«la comida estaba muy rica», «el final no fue nada predecible», «me pareció aburrida»."""
    sujeto, (_, g, n, tipo) = _sujeto(r, dominio)
    palabra = -polo if negada else polo
    if r.random() < 0.25:  # «me pareció …», con o sin sujeto delante
        verbo = ["me", "pareció" if n == "s" else "parecieron"]
        if r.random() < 0.4:
            sujeto, (_, g, n, tipo) = [], _DOMINIOS[dominio]["objeto"]
            verbo = ["me", "pareció"]
    else:
        verbo = [r.choice(_COPULAS[tipo])[0 if n == "s" else 1]]
    adjetivo = _adjetivo(r, palabra, tipo)
    inicio = sujeto + (["no"] if negada else []) + verbo + _intensificador(r, adjetivo, negada)
    return Clausula([*inicio, forma(adjetivo, g, n)], [len(inicio)], negada)


def _verbal(r: random.Random, dominio: str, polo: int, negada: bool) -> Clausula:
    """«me encantó la comida», «los personajes no me gustaron», «nunca me aburrió»."""
    sujeto, (_, _, n, tipo) = _sujeto(r, dominio)
    palabra = -polo if negada else polo
    verbos = [v for v in _VERBOS[palabra] if v[2] is None or tipo in v[2]]
    verbo = r.choice(verbos)[0 if n == "s" else 1]
    negacion = [r.choice(("no", "no", "nunca"))] if negada else []
    if r.random() < 0.5:
        fichas = [*negacion, "me", verbo, *sujeto]
        return Clausula(fichas, [len(negacion) + 1], negada)
    fichas = [*sujeto, *negacion, "me", verbo]
    return Clausula(fichas, [len(fichas) - 1], negada)


def _nominal(r: random.Random, dominio: str, polo: int, negada: bool) -> Clausula:
    """«fue una maravilla», «el servicio es un desastre», «no es una joya»."""
    palabra = -polo if negada else polo
    opciones = [x for x in _NOMINALES[palabra] if x[0] != "pérdida" or dominio in ("película", "serie", "libro")]
    nombre, genero = r.choice(opciones)
    sujeto, (_, _, n, _) = _sujeto(r, dominio)
    if n == "p" or r.random() < 0.5:  # «los personajes son un desastre» suena raro: sin sujeto
        sujeto = []
    verbo = r.choice(("es", "fue", "era"))
    inicio = [*sujeto, *(["no"] if negada else []), verbo, _INDEFINIDOS[genero, "s"]]
    cola = ["de", "tiempo"] if nombre == "pérdida" else []
    return Clausula([*inicio, nombre, *cola], [len(inicio)], negada)


def _fragmento(r: random.Random, dominio: str, polo: int) -> Clausula:
    """Sin verbo: «excelente comida», «un buen restaurante», «una película muy divertida», «¡qué desastre!»."""
    nombre, g, n, tipo = r.choice(sustantivos(dominio))
    eleccion = r.random()
    if eleccion < 0.35:
        articulo = [_INDEFINIDOS[g, n]] if r.random() < 0.5 else []
        return Clausula([*articulo, _prenominal(r.choice(_PRENOMINALES[polo]), g, n), nombre], [len(articulo)])
    if eleccion < 0.65:
        adjetivo = _adjetivo(r, polo, tipo)
        inicio = [_INDEFINIDOS[g, n], nombre, *_intensificador(r, adjetivo, False)]
        return Clausula([*inicio, forma(adjetivo, g, n)], [len(inicio)])
    if eleccion < 0.85:
        return Clausula(["¡", "qué", nombre, "tan", forma(_adjetivo(r, polo, tipo), g, n), "!"], [4])
    return Clausula(["¡", "qué", r.choice(_NOMINALES[polo])[0], "!"], [2])


def _recomendacion(r: random.Random, dominio: str, polo: int, negada: bool) -> Clausula:
    """«la recomiendo», «no lo recomiendo», «volveremos», «nunca volveremos», «lo odié»."""
    objeto = _DOMINIOS[dominio]["objeto"]
    pronombre = "la" if objeto[1] == "f" else "lo"
    if objeto[3] == "lugar" and r.random() < 0.5:  # restaurante, hotel
        verbo = r.choice(("volveremos", "volvería"))
        negacion = [r.choice(("no", "nunca"))] if polo < 0 else []
        return Clausula([*negacion, verbo], [len(negacion)], polo < 0)
    if not negada:
        verbo = r.choice(("recomiendo", "disfruté", "adoré") if polo > 0 else ("odié",))
        return Clausula([pronombre, verbo], [1])
    # Negada solo con polo < 0 (clausula_sentimiento desvía lo otro): «no la recomiendo».
    verbo = "disfruté" if objeto[3] == "obra" and r.random() < 0.3 else "recomiendo"
    return Clausula(["no", pronombre, verbo], [2], True)


def clausula_sentimiento(r: random.Random, dominio: str, polo: int) -> Clausula:
    """Una cláusula de polaridad `polo` (+1 positiva, −1 negativa) con una sola palabra de sentimiento."""
    negada = r.random() < 0.3
    tipo = r.choices(("copulativa", "verbal", "nominal", "fragmento", "recomendacion"), (0.4, 0.22, 0.1, 0.16, 0.12))[0]
    if tipo == "copulativa":
        return _copulativa(r, dominio, polo, negada)
    if tipo == "verbal":
        return _verbal(r, dominio, polo, negada)
    if tipo == "nominal":
        return _nominal(r, dominio, polo, negada)
    if tipo == "fragmento" or (tipo == "recomendacion" and negada and polo > 0):
        return _fragmento(r, dominio, polo)  # «no la recomiendo» solo dice algo negativo
    return _recomendacion(r, dominio, polo, negada)
