"""La validación común (`demos.comun.validar`): lo que llega por el API, con mensajes en español."""

import pytest

from demos.comun.validar import entero, lista_de_palabras, real, uno_de


@pytest.mark.parametrize("valor", [2.5, float("nan"), float("inf"), "abc", None, 10**400, -1, 11])
def test_entero_rechaza_lo_que_no_es_un_entero_del_rango(valor):
    with pytest.raises(ValueError, match="debe ser un número entero entre 0 y 10"):
        entero(valor, "El valor", 0, 10)


def test_entero_acepta_enteros_escritos_de_varias_formas():
    assert [entero(v, "x", 0, 10) for v in (3, 3.0, "3", True)] == [3, 3, 3, 1]


@pytest.mark.parametrize("valor", [-0.1, 1.5, float("nan"), float("-inf"), "mucha", None, 10**400])
def test_real_rechaza_lo_que_no_es_un_numero_del_rango(valor):
    with pytest.raises(ValueError, match="La opacidad debe ser un número entre 0 y 1"):
        real(valor, "La opacidad", 0, 1)


def test_real_acepta_numeros_y_textos_numericos():
    assert [real(v, "x", 0, 1) for v in (0, 0.25, "0.5", 1)] == [0.0, 0.25, 0.5, 1.0]


def test_uno_de_acepta_solo_los_valores_de_la_lista():
    assert uno_de("2", "Las cabezas", (1, 2, 4)) == 2
    with pytest.raises(ValueError, match="Las cabezas debe ser uno de 1, 2, 4; llegó '3'"):
        uno_de(3, "Las cabezas", (1, 2, 4))


# --- listas de palabras --------------------------------------------------------------------------

LIMITES = {"max_palabras": 4, "max_letras": 7, "max_texto": 40}


@pytest.mark.parametrize(
    "separador, texto, esperadas",
    [
        ("coma", " plata ,sacó,  Ana del ", ["plata", "sacó", "Ana del"]),
        ("espacio", "  Ana   sacó\tplata ", ["Ana", "sacó", "plata"]),
        ("coma o espacio", "Ana, sacó;plata  del", ["Ana", "sacó", "plata", "del"]),
    ],
)
def test_lista_de_palabras_parte_por_su_separador(separador, texto, esperadas):
    assert lista_de_palabras(texto, "las palabras", separador=separador, **LIMITES) == esperadas


@pytest.mark.parametrize(
    "que, separador, texto, mensaje",
    [
        ("las palabras", "coma", None, r"Escribe las palabras \(separadas por comas\): deben ser un texto"),
        ("las palabras", "coma o espacio", 3, "deben ser un texto"),
        ("la frase fuente", "espacio", 42, r"Escribe la frase fuente \(separadas por espacios\): debe ser un texto"),
        ("una frase", "espacio", "   ", r"Escribe una frase \(al menos una palabra, separadas por espacios\)"),
        ("las palabras", "coma", "a, , b", "La palabra 2 está vacía"),
        ("las palabras", "coma", "a, b, c, d, e", "Hay 5 palabras y caben hasta 4: escribe a lo sumo 4"),
        ("una frase", "espacio", "a b c d e", "caben de 1 a 4"),
        (
            "una frase",
            "espacio",
            "Ana sacóplata",
            "palabra 2 .* muy larga: tiene 9 letras y caben hasta 7",
        ),
        ("una frase", "espacio", "x" * 41, "La frase es demasiado larga: a lo sumo 40 caracteres"),
        ("la frase fuente", "espacio", "x" * 41, "La frase fuente es demasiado larga"),
        ("las palabras", "coma", "x" * 41, "El texto de las palabras es demasiado largo"),
    ],
)
def test_lista_de_palabras_dice_que_falla_en_espanol(que, separador, texto, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        lista_de_palabras(texto, que, separador=separador, **LIMITES)


def test_lista_de_palabras_mira_el_largo_antes_de_partir():
    """Un texto enorme de separadores no llega a partirse: lo para el tope de caracteres."""
    with pytest.raises(ValueError, match="demasiado largo"):
        lista_de_palabras("," * 10**6, "las palabras", separador="coma", **LIMITES)


def test_lista_de_numeros_lee_comas_punto_decimal_y_el_menos_tipografico():
    from demos.comun.validar import lista_de_numeros

    leer = lambda t: lista_de_numeros(t, "el puntaje", "puntajes", 4, 100, 200)  # noqa: E731
    assert leer("2, 1, 0.5, −1") == [2.0, 1.0, 0.5, -1.0]
    for texto, motivo in [
        ("", "Escribe los puntajes, separados por comas."),
        (None, "Escribe los puntajes, separados por comas."),
        ("1, 2, 3, 4, 5", "Hay 5 puntajes: se aceptan a lo sumo 4."),
        ("1, dos", "El puntaje 2 («dos») no es un número: sepáralos con comas y usa punto decimal (0.5)."),
        ("1,5; 2", "El puntaje 2 («5; 2») no es un número"),
        ("1, 1e9", "El puntaje 2 debe ser un número finito entre −100 y 100."),
        ("nan", "El puntaje 1 debe ser un número finito"),
        ("1," * 1000, "El texto de los puntajes es demasiado largo: a lo sumo 200 caracteres."),
    ]:
        with pytest.raises(ValueError) as e:
            leer(texto)
        assert str(e.value).startswith(motivo), (texto, str(e.value))
