"""The sentences the agent says word for word: the registry the phrase cache keeps audio for.

A module marks a sentence it speaks with `fixed` where it writes it, as a constant:
`STILL_THERE = fixed("Are you still there?")`. Only text written in the code is ever
marked, never text made with a caller's data (an order number, a name, an amount), so
the registry, and every cache keyed by it, holds no personal data. A sentence is found
by the text the code composed for `session.say` (`sentences`), never in the model's
words. Marking costs nothing but a set entry; a sentence left unmarked is only
synthesised each time it is said, as any other.
"""

from __future__ import annotations

import re

__all__ = ["fixed", "is_fixed", "registered", "sentences"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
"""A sentence ends at its stop, question or exclamation mark and the space after it."""

_REGISTERED: set[str] = set()


def sentences(text: str) -> list[str]:
    """`text`'s sentences in order, without the spaces between them."""
    return [sentence for sentence in _SENTENCE_END.split(text.strip()) if sentence]


def fixed(text: str) -> str:
    """Marks every sentence of `text`, a constant the agent says word for word, and
    returns `text` unchanged."""
    _REGISTERED.update(sentences(text))
    return text


def is_fixed(sentence: str) -> bool:
    """Whether `sentence` (one of `sentences`) was marked with `fixed`."""
    return sentence in _REGISTERED


def registered() -> frozenset[str]:
    """Every sentence marked so far."""
    return frozenset(_REGISTERED)
