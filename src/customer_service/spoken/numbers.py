"""Numbers said in words: the digit, teen and tens words callers use, and the ways
they group them ("ninety four one oh seven", "seven hundred fifty", "size ten")."""

from __future__ import annotations

import re

__all__ = [
    "DIGIT_WORDS",
    "EXCLAMATIONS",
    "NUMBER_WORDS",
    "REPEAT_WORDS",
    "numerals",
    "with_two_digit_words",
]

DIGIT_WORDS = {
    "zero": "0",
    "oh": "0",
    "o": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}
# "o" and "oh" are also letters, so codes that mix letters and digits (UK postcodes)
# only get the unambiguous number words converted.
NUMBER_WORDS = {word: digit for word, digit in DIGIT_WORDS.items() if word not in ("o", "oh")}
# "ninety four one oh seven" is 94107 and "four fifteen" 415: callers group digits in
# twos as often as they say them one by one.
_TEEN_WORDS = {
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "thirteen": "13",
    "fourteen": "14",
    "fifteen": "15",
    "sixteen": "16",
    "seventeen": "17",
    "eighteen": "18",
    "nineteen": "19",
}
_TENS_WORDS = {
    "twenty": "2",
    "thirty": "3",
    "forty": "4",
    "fifty": "5",
    "sixty": "6",
    "seventy": "7",
    "eighty": "8",
    "ninety": "9",
}
WORDS_UNDER_TWENTY = {**NUMBER_WORDS, **_TEEN_WORDS}
"""Each number below twenty as a word ("ten" -> "10"), as sizes are said."""
_UNIT_WORDS = {word: digit for word, digit in NUMBER_WORDS.items() if digit != "0"}
REPEAT_WORDS = {"double": 2, "triple": 3}
# Digit words that, said on their own, are an exclamation: "oh yes".
EXCLAMATIONS = frozenset({"o", "oh"})


def with_two_digit_words(words: list[str]) -> list[str]:
    """`words` (lower case) with "ninety four" as "94", "fifteen" as "15" and "twenty"
    as "20"."""
    tokens: list[str] = []
    for token in words:
        if token in _UNIT_WORDS and tokens and tokens[-1] in _TENS:
            tokens[-1] = tokens[-1][0] + _UNIT_WORDS[token]
        elif token in _TENS_WORDS:
            tokens.append(_TENS_WORDS[token] + "0")
        else:
            tokens.append(_TEEN_WORDS.get(token, token))
    return tokens


_TENS = frozenset(f"{digit}0" for digit in _TENS_WORDS.values())


_HUNDRED = "hundred"
_NUMBER_TOKEN = re.compile(r"[a-z]+|\d+|[^a-z\d]+")


def numerals(text: str) -> str:
    """`text` (lower case) with numbers said in words written in digits, the way sizes
    and capacities are stored: "size ten" -> "size 10", "the fifty foot one" -> "the 50
    foot one", "seven hundred fifty" -> "750". Other words stay as they are."""
    said: list[str] = []
    number: int | None = None
    pending: list[str] = []  # spacing since the number's last word

    def end_number() -> None:
        nonlocal number
        if number is not None:
            said.append(str(number))
            number = None
        said.extend(pending)
        pending.clear()

    for token in _NUMBER_TOKEN.findall(text):
        value = _word_value(token)
        if value is not None and (number is None or _adds_to(number, value)):
            number = value if number is None else number + value
            pending.clear()
        elif token == _HUNDRED and number is not None and number < 10:
            number *= 100
            pending.clear()
        elif number is not None and not token.strip():
            pending.append(token)
        else:
            end_number()
            if value is not None:
                number = value
            else:
                said.append(token)
    end_number()
    return "".join(said)


def _word_value(token: str) -> int | None:
    # "One" is "the 750 one" far more often than a number.
    if token in NUMBER_WORDS and token != "one":
        return int(NUMBER_WORDS[token])
    if token in _TEEN_WORDS:
        return int(_TEEN_WORDS[token])
    if token in _TENS_WORDS:
        return int(_TENS_WORDS[token]) * 10
    return None


def _adds_to(number: int, value: int) -> bool:
    """Whether `value` said after `number` continues it: "twenty" "five", "seven
    hundred" "fifty"."""
    if number % 100 == 0 and number >= 100:
        return value < 100
    return number % 10 == 0 and number >= 20 and value < 10
