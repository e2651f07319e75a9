"""Order numbers: how one is written, heard, checked, said and kept readable in masked
text, defined once for the store, the specialists, the offline model and the masks.

Two forms exist. The demo store's are six digits ("200202"). τ²-bench's retail orders
are "#W" and seven digits ("#W2378156"): a caller says the W ("W two three seven ...",
"double-u 237 8156") or leaves it out, and on a keypad keys the seven digits only.
Seven digits are always the benchmark's form, W said or not: no six-digit number has
seven digits, so "2378156" is "#W2378156". Six digits after a W are no order number.
"""

from __future__ import annotations

import re

from customer_service.normalize import digits_from_speech

__all__ = [
    "BENCHMARK_DIGITS",
    "BENCHMARK_PREFIX",
    "DEMO_DIGITS",
    "FORMS",
    "KEYED_DIGITS",
    "ORDER_ID_PATTERN",
    "W_SAID",
    "is_order_id",
    "normalize_order_id",
    "order_id_from_digits",
    "order_number_in",
    "read_out_groups",
    "reads_as_benchmark_number",
    "said_after_w",
    "spoken_order_id",
    "w_said_before",
    "written_order_ids",
]

DEMO_DIGITS = 6
BENCHMARK_DIGITS = 7
BENCHMARK_PREFIX = "#W"

ORDER_ID_PATTERN = r"^(?:\d{6}|#W\d{7})$"
"""An order number in its canonical form: "200202" or "#W2378156"."""

FORMS = "six digits, or a W and seven digits"
"""The forms of an order number, in words, for a sentence that says what one looks like."""

KEYED_DIGITS = (DEMO_DIGITS, BENCHMARK_DIGITS)
"""How many keys a caller types for an order number: a keypad has no W."""

_CANONICAL = re.compile(ORDER_ID_PATTERN)

_LETTER = r"[^\W\d_]"
W_SAID = re.compile(
    rf"(?:#\s*)?(?<!{_LETTER})(?:w|double[\s-]*(?:u|you))(?!{_LETTER})", re.IGNORECASE
)
"""The W of a benchmark order number, written ("#W", "W", "w") or said ("double-u",
"double you"); a letter next to it makes it part of a word, a digit does not
("W2378156")."""

_W_JUST_BEFORE = re.compile(rf"{W_SAID.pattern}[\s,.:-]*\Z", re.IGNORECASE)
_W_REACH = 24
"""Characters before a number in which its W is looked for: "#W", "double-u" and any
separators fit in it."""

_READ_OUT_GROUPS = {DEMO_DIGITS: (3, 3), BENCHMARK_DIGITS: (3, 4)}
"""How the digits of each form are grouped when read out, a pause between groups."""

_WRITTEN_IN_DIGITS = re.compile(
    rf"(?:{W_SAID.pattern})\s*\d(?:[ -]?\d){{{BENCHMARK_DIGITS - 1}}}(?![ -]?\d|\w)"
    rf"|(?<![\w-])(?<!\d )\d(?:[ -]?\d){{{DEMO_DIGITS - 1}}}(?![ -]?\d|\w)",
    re.IGNORECASE,
)
"""An order number written in digits among other words: "100101", "100 101", "#W2378156",
"W 237 8156"; not six digits of a longer number ("415 555 0134")."""
_WRITTEN_BENCHMARK_NUMBER = re.compile(rf"W\d{{{BENCHMARK_DIGITS}}}", re.IGNORECASE)


def order_id_from_digits(digits: str, *, w_said: bool = False) -> str | None:
    """The order number with these digits: six as they are, seven after "#W"; None for
    any other count, and for six digits after a W (`w_said`)."""
    if not digits.isascii() or not digits.isdigit():
        return None
    if len(digits) == BENCHMARK_DIGITS:
        return BENCHMARK_PREFIX + digits
    if len(digits) == DEMO_DIGITS and not w_said:
        return digits
    return None


def normalize_order_id(text: str) -> str | None:
    """The order number `text` says, in its canonical form, or None if it says none.

    `text` is a caller's words or a model's argument: "200 202", "two zero zero two zero
    two" and "order number 200202" give "200202"; "#W2378156", "w 237 8156", "double-u
    two three seven eight one five six" and "2378156" give "#W2378156". Digit words are
    read as `normalize.digits_from_speech` reads them.
    """
    w_said = W_SAID.search(text) is not None
    return order_id_from_digits(digits_from_speech(W_SAID.sub(" ", text)), w_said=w_said)


def written_order_ids(text: str) -> list[str]:
    """The order numbers written in digits among other words, in order: "orders 100101
    and #W2378156" gives ["100101", "#W2378156"]."""
    found = (normalize_order_id(written.group()) for written in _WRITTEN_IN_DIGITS.finditer(text))
    return [order_id for order_id in found if order_id is not None]


def order_number_in(sentence: str) -> str | None:
    """The order number among other words ("that one, 200201", "the one from May, W 237
    8156"), if one is there: all the digits said when they make one, else the first
    written in digits. Seven digits with no W make none here: in a sentence "one" may be
    a word, not a digit, and seven digits a phone number's last seven."""
    whole = normalize_order_id(sentence)
    if whole is not None and (len(whole) == DEMO_DIGITS or W_SAID.search(sentence)):
        return whole
    return next(iter(written_order_ids(sentence)), None)


def is_order_id(value: str) -> bool:
    """Whether `value` is an order number in its canonical form."""
    return _CANONICAL.fullmatch(value) is not None


def read_out_groups(digits: int) -> tuple[int, ...]:
    """The groups in which an order number of `digits` digits is read out: (3, 3) for
    six, (3, 4) for seven; one group for any other count."""
    return _READ_OUT_GROUPS.get(digits, (digits,))


def spoken_order_id(order_id: str) -> str:
    """An order number as the agent reads it out, one character at a time with a pause
    between groups, so a listener can write it down: "1 0 0, 1 0 1" for 100101 and
    "W 2 3 7, 8 1 5 6" for #W2378156."""
    digits = order_id.removeprefix(BENCHMARK_PREFIX)
    groups: list[str] = []
    start = 0
    for size in read_out_groups(len(digits)):
        groups.append(" ".join(digits[start : start + size]))
        start += size
    said = ", ".join(groups)
    return f"W {said}" if order_id.startswith(BENCHMARK_PREFIX) else said


def w_said_before(text: str, start: int) -> int | None:
    """Where the W said right before position `start` of `text` begins ("#W", "w ",
    "double-u, "), or None when no W comes just before."""
    # Searched in place: what comes before the reach still tells a W from a word's end.
    found = _W_JUST_BEFORE.search(text, max(0, start - _W_REACH), start)
    return found.start() if found is not None else None


def said_after_w(text: str, start: int, digits: str) -> bool:
    """Whether `digits`, said in `text` from `start` on, are a benchmark order number:
    seven of them right after its W ("W 2 3 7, 8 1 5 6", "double-u two three ...").
    Masking keeps these readable; seven digits with no W may be a phone number."""
    return len(digits) == BENCHMARK_DIGITS and w_said_before(text, start) is not None


def reads_as_benchmark_number(code: str) -> bool:
    """Whether a code of letters and digits ("W2378156", "W 2 3 7, 8 1 5 6"), its
    separators left out, is a benchmark order number rather than a tracking number."""
    characters = "".join(char for char in code if char.isalnum())
    return _WRITTEN_BENCHMARK_NUMBER.fullmatch(characters) is not None
