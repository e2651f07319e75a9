"""A house number said with "hundred" or "thousand" ("five hundred Howard Street",
"two thousand five ..."), written in digits. Only these clear forms: digits said one by
one are read by `fields.find_number_runs`, and a form that could be read two ways
("five hundred one oh one") is left as said."""

from __future__ import annotations

import re

__all__ = ["house_number_in_digits"]

_UNITS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
}
_TEENS = {
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_NUMBER_WORDS = frozenset({*_UNITS, *_TEENS, *_TENS, "zero", "oh", "o", "hundred", "thousand"})
# The words at the start of a line, each with nothing but spaces or a hyphen before it.
_LEADING_WORDS = re.compile(r"\s*([^\W\d_]+)")

Parsed = tuple[int, int]
"""A value and the index of the first word after it."""


def _below_hundred(words: list[str], at: int) -> Parsed | None:
    word = words[at] if at < len(words) else ""
    if word in _UNITS:
        return _UNITS[word], at + 1
    if word in _TEENS:
        return _TEENS[word], at + 1
    if word in _TENS:
        unit = words[at + 1] if at + 1 < len(words) else ""
        return (_TENS[word] + _UNITS[unit], at + 2) if unit in _UNITS else (_TENS[word], at + 1)
    return None


def _with_rest(value: int, at: int, rest: Parsed | None) -> Parsed:
    return (value + rest[0], rest[1]) if rest is not None else (value, at)


def _after_and(words: list[str], at: int) -> int:
    return at + 1 if at < len(words) and words[at] == "and" else at


def _hundreds(words: list[str], at: int) -> Parsed | None:
    head = _below_hundred(words, at)
    if head is None or head[1] >= len(words) or words[head[1]] != "hundred":
        return None
    after = head[1] + 1
    return _with_rest(head[0] * 100, after, _below_hundred(words, _after_and(words, after)))


def _thousands(words: list[str], at: int) -> Parsed | None:
    head = _below_hundred(words, at)
    if head is None or head[0] > 99 or head[1] >= len(words) or words[head[1]] != "thousand":
        return None
    after = head[1] + 1
    rest_at = _after_and(words, after)
    rest = _hundreds(words, rest_at) or _below_hundred(words, rest_at)
    return _with_rest(head[0] * 1000, after, rest)


def house_number_in_digits(text: str) -> str:
    """`text` with the house number it starts with written in digits when said with
    "hundred" or "thousand"; unchanged otherwise, or when more number words follow."""
    matches: list[re.Match[str]] = []
    position = 0
    # "twenty-five hundred": a hyphen joins number words as a space does.
    spaced = text.replace("-", " ")
    while (match := _LEADING_WORDS.match(spaced, position)) is not None:
        matches.append(match)
        position = match.end()
    words = [match.group(1).casefold() for match in matches]
    parsed = _thousands(words, 0) or _hundreds(words, 0)
    if parsed is None or parsed[1] >= len(words) or words[parsed[1]] in _NUMBER_WORDS:
        return text
    value, after = parsed
    return f"{value}{text[matches[after - 1].end() :]}"
