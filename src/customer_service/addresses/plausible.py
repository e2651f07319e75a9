"""Whether the words of a street or city could name a real place.

Words can pass every character check and still name nothing: a placeholder from a test
form ("123 Fake Street", "1 Test St"), a reference to an address instead of one ("same
as before"), a keyboard mashed ("asdf", "qwerty", "aaaa"). They are read here, word by
word in lookup form, so "Fakenham Road" and "Testwood Lane" are names and "Avenue A"
still has one.
"""

from __future__ import annotations

import re

from customer_service.addresses.country_rules import lookup_key

__all__ = ["has_a_name", "mashed", "refers_elsewhere", "stands_in"]

_STAND_IN_WORDS = frozenset(
    {"fake", "test", "testing", "example", "dummy", "placeholder", "lorem", "ipsum", "foobar"}
)
"""Words that mark a made-up address wherever they stand in a street or city."""
_REFERENCE_WORDS = frozenset(
    {
        "same", "as", "before", "above", "previous", "previously", "usual", "current",
        "old", "last", "time", "my", "the", "address", "one", "it", "that", "again",
        "on", "file", "account", "other", "order", "like",
    }
)  # fmt: skip
"""Words of a phrase that points at an address instead of giving one."""
_POINTING_WORDS = frozenset({"same", "before", "above", "previous", "previously", "usual"})
"""At least one of these makes such a phrase a reference ("same as before")."""
_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm", "qwertzuiop", "azertyuiop", "qsdfghjklm")
_KEYBOARD_RUN = 4
"""Letters in a row of a keyboard that make a mash ("asdf"); three ("tyu") are too few
to tell from a name."""
_ROMAN = frozenset({"iii", "xxx", "ccc", "mmm"})
_LETTER_RUNS = re.compile(r"[^\W\d_]+")


def _words(text: str) -> list[str]:
    return lookup_key(text).split()


def _letter_runs(text: str) -> list[str]:
    return _LETTER_RUNS.findall(lookup_key(text))


def _is_mash(run: str) -> bool:
    if len(run) >= 3 and len(set(run)) == 1 and run not in _ROMAN:
        return True  # one letter held down: "aaaa", "zzz"
    return len(run) >= _KEYBOARD_RUN and any(
        run in row or run in row[::-1] for row in _KEYBOARD_ROWS
    )


def stands_in(text: str) -> bool:
    """Whether a word of `text` marks a made-up address ("123 Fake Street", "1 Test St")."""
    return any(word in _STAND_IN_WORDS for word in _words(text))


def refers_elsewhere(text: str) -> bool:
    """Whether `text` points at an address instead of giving one ("same as before",
    "the usual one")."""
    words = [word for word in _words(text) if not word.isdigit()]
    return bool(words) and set(words) <= _REFERENCE_WORDS and bool(set(words) & _POINTING_WORDS)


def mashed(text: str) -> bool:
    """Whether a word of `text` is a keyboard mash: one letter repeated ("aaaa") or a
    run of a keyboard row ("asdf", "qwerty")."""
    return any(_is_mash(run) for run in _letter_runs(text))


def has_a_name(text: str) -> bool:
    """Whether `text` has a word that could be a name: two letters or more, not mashed
    ("1 A" and "12 B" have none)."""
    return any(len(run) >= 2 and not _is_mash(run) for run in _letter_runs(text))
