"""Whether a caller's line is English: the offline model's rules read English only.

Two plain signs, checked in code: most of the line's letters are outside the Latin
script (Chinese, Arabic, Cyrillic, ...), or it has four words or more, none of them one
of the everyday English words almost every English request holds, and one at least an
everyday word of another language written in Latin letters ("¿Dónde está mi pedido?"
has "dónde", "está" and "mi"). A line it cannot tell about counts as English: "tell me a
joke" has no everyday English word, and none of another language either.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["not_english"]

_WORD = re.compile(r"[^\W\d_]+")
_EMAIL = re.compile(r"\S+@\S+")

_EVERYDAY_ENGLISH_WORDS = """
    about am an and any are at be but by can could did didn do does doesn don for from get
    got has hasn have haven help her him his how i if in is isn it its just know like my
    need not now of on one or order our please she some still that the their them there
    they this to up want was wasn we what when where which who why will with won would
    yes you your d ll m re s t ve
"""
_EVERYDAY_ENGLISH = frozenset(_EVERYDAY_ENGLISH_WORDS.split())
"""Words almost every English request of a few words holds: pronouns, the verbs be,
have, do, can, want and need, prepositions, question words, "please", "order", and the
ends of contractions ("hasn't", "I'd"). Words that are also everyday Spanish ("a", "me",
"no", "he") are left out."""

_EVERYDAY_OTHER_WORDS = """
    al algo aqui aquí como cómo con cuando cuándo del donde dónde el ella es esta está
    estoy favor gracias hola la las los mi mis muy nada para pero por porque puedo qué
    quiero quisiera su sus tengo una usted
    au avec bonjour ce cette dans des du est je les mais merci mes mon moi nous où oui
    pas pour pourquoi quand que qui sont suis une vous votre
    bitte danke das der ein eine habe ich ist mein meine mit nicht nein und wann
    warum was wie wir wo
    ciao dove grazie il lei mio perché sono voglio
    então não obrigada obrigado olá onde quando você meu minha
"""
_EVERYDAY_OTHER = frozenset(_EVERYDAY_OTHER_WORDS.split()) - _EVERYDAY_ENGLISH
"""Everyday words of the languages of Europe written in Latin letters (Spanish, French,
German, Italian, Portuguese): articles, pronouns, question words, greetings and thanks.
Words that are also English ("a", "me", "no", "come", "die") are left out, so a line of
English words this model does not know is never taken for another language."""

_FEW_WORDS = 4
"""From this many words on, a line without an everyday English word is not English;
shorter lines ("Hola", "No sé", "track package fast") are too short to tell."""


def not_english(line: str) -> bool:
    """Whether `line` is plainly not English (see the module's note)."""
    letters = [char for char in line if char.isalpha()]
    if not letters:
        return False
    latin = sum(1 for char in letters if unicodedata.name(char, "").startswith("LATIN"))
    if latin * 2 < len(letters):
        return True
    # An email's words ("example.es") are no language's.
    words = [word.lower() for word in _WORD.findall(_EMAIL.sub(" ", line))]
    return (
        len(words) >= _FEW_WORDS
        and not _EVERYDAY_ENGLISH.intersection(words)
        and bool(_EVERYDAY_OTHER.intersection(words))
    )
