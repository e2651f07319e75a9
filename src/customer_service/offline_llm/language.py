"""Whether a caller's line is English: the offline model's rules read English only.

Two plain signs, checked in code: most of the line's letters are outside the Latin
script (Chinese, Arabic, Cyrillic, ...), or it has four words or more and none of them
is one of the everyday English words almost every English request holds ("¿Dónde está
mi pedido?" has none). A line it cannot tell about counts as English.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["not_english"]

_WORD = re.compile(r"[^\W\d_]+")

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
    words = [word.lower() for word in _WORD.findall(line)]
    return len(words) >= _FEW_WORDS and not _EVERYDAY_ENGLISH.intersection(words)
