"""Masking of personal data in free text: a model's or a caller's words, where nothing
labels what is personal. Shapes are masked wherever they occur; the names and details a
call is known to have heard (`KnownDetails`), wherever and however they are said."""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from customer_service.normalize import digits_from_speech, normalize_email
from customer_service.order_numbers import (
    DEMO_DIGITS,
    read_out_groups,
    reads_as_benchmark_number,
    said_after_w,
)
from customer_service.privacy.values import (
    SHORT_MASK,
    mask_address,
    mask_generic,
    mask_name,
    mask_phone,
    mask_tracking_number,
    mask_value,
)

# Each rule errs towards masking: a city or a product name masked by mistake
# costs a colleague a question, while a phone number or a name let through is personal
# data in a record.
_CHAR = r"[^\W_]"
_SPOKEN_SEPARATOR = r"(?:\s*,\s*|\s+)"
# Bounded as an address's parts are (64 characters to a local part, 63 to a label), so
# that text which only begins like an address costs little to read.
_SPELLED = rf"{_CHAR}(?:{_SPOKEN_SEPARATOR}{_CHAR}){{1,63}}(?!\w)"
_EMAIL_PIECE = rf"(?:{_SPELLED}|{_CHAR}{{1,64}})"
_LOCAL_JOIN = (
    rf"(?:{_SPOKEN_SEPARATOR}(?:dot|period|underscore|dash|hyphen){_SPOKEN_SEPARATOR}|[._-])"
)
_DOMAIN_JOIN = rf"(?:{_SPOKEN_SEPARATOR}(?:dot|period){_SPOKEN_SEPARATOR}|\.)"
_AT = (
    rf"(?:{_SPOKEN_SEPARATOR}at(?:{_SPOKEN_SEPARATOR}(?:the{_SPOKEN_SEPARATOR})?"
    rf"(?:sign|symbol))?{_SPOKEN_SEPARATOR}|\s*@\s*)"
)
_EMAIL_IN_TEXT = re.compile(
    r"[^\s@,;:<>()\[\]\"']{1,64}@[^\s@,;:<>()\[\]\"']{1,255}\.[^\W\d_]{2,}"
    rf"|(?<![\w'\u2019]){_EMAIL_PIECE}(?:{_LOCAL_JOIN}{_EMAIL_PIECE}){{0,7}}{_AT}"
    rf"{_EMAIL_PIECE}(?:{_DOMAIN_JOIN}{_EMAIL_PIECE}){{1,4}}",
    re.IGNORECASE,
)
"""Written, spoken ("jordan dot lee at example dot com") and spelled ("j o r d a n dot
l e e at example dot com", "J-O-R-D-A-N dot lee") email addresses."""
_NUMBER_WORD = (
    r"zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen"
    r"|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty"
    r"|sixty|seventy|eighty|ninety"
)
_STREET_SUFFIX = (
    r"(?:street|st|avenue|ave|road|rd|boulevard|blvd|drive|dr|lane|ln|way|court|ct|place|pl"
    r"|terrace|ter|parkway|pkwy|highway|hwy|square|sq|circle|cir)"
)
_HOUSE_NUMBER_WORD = rf"(?:{_NUMBER_WORD}|hundred|thousand)"
_HOUSE_NUMBER_IN_WORDS = rf"{_HOUSE_NUMBER_WORD}(?:[\s-]+(?:and\s+)?{_HOUSE_NUMBER_WORD})*"
_UNIT = r"(?:,?\s*(?:apt|apartment|suite|ste|unit|floor|fl|#)\.?\s*#?[\w-]+)?"
_ADDRESS_IN_TEXT = re.compile(
    rf"\b\d{{1,6}}[a-z]?\s+(?:[^\W\d_][\w'.-]*\s+){{0,4}}{_STREET_SUFFIX}\b\.?{_UNIT}"
    rf"|\b{_HOUSE_NUMBER_IN_WORDS}\s+(?:[^\W\d_][\w'.-]*\s+){{1,4}}{_STREET_SUFFIX}\b\.?{_UNIT}"
    r"|\b(?:calle|avenida|avda|plaza|paseo|carrer|rua|rue|via|strasse|straße)\b[^,;\d]{1,60}\d+\w*",
    re.IGNORECASE,
)
"""A street with its number, in digits or in words ("five hundred howard street")."""
_CODE_WRITTEN = re.compile(r"(?<![\w-])(?=[^\W_]*\d)(?=[^\W_]*[^\W\d_])[^\W_]{8,}(?![\w-])")
_CODE_SPOKEN = re.compile(rf"(?<!\w)[A-Z0-9](?:{_SPOKEN_SEPARATOR}[A-Z0-9]){{7,}}(?!\w)")
"""A tracking number or a like code of letters and digits, written or read out one
character at a time ("1 Z 9, 9 9 A, A 1 0")."""
_DIGIT = rf"(?:\d|\b(?:{_NUMBER_WORD}|double|triple)\b)"
_NUMBER_GROUP = re.compile(
    r"(?P<date>(?<![\w-])\d{4}-\d{1,2}-\d{1,2}(?![\w-]))"
    r"|(?P<amount>(?<![\w,.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d|,\d))"
    rf"|(?<![\w+])(?:\+|\bplus\s+)?{_DIGIT}(?:(?:[\s()+-]|\.(?!\s))*{_DIGIT})*(?!\w)",
    re.IGNORECASE,
)
"""Digits said or written together; an ISO date and an amount ("1,299.00") stand apart."""
_INTERNATIONAL = re.compile(r"\+|plus\b", re.IGNORECASE)
_NUMBER_JOIN = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", re.IGNORECASE)
_AND = re.compile(r"\band\b", re.IGNORECASE)
_PHONE_DIGITS_IN_TEXT = 7
"""Digits in a run from which it is masked as a phone or card number."""
_READ_OUT = read_out_groups(DEMO_DIGITS)
"""The groups of a six-digit order number as the agent reads it out: (3, 3)."""
_KNOWN_DIGITS_MIN = 4
"""Fewest digits of a known detail (a postal code) masked wherever they are said."""
_KNOWN_CHARACTERS_MIN = 4
"""Fewest letters and digits of a known detail masked wherever it is said or spelled."""
_KNOWN_NAME_CHARACTERS_MIN = 2
_WORD_BEYOND_NUMBERS = re.compile(
    rf"(?!\b(?:{_NUMBER_WORD}|double|triple|plus)\b)\b[^\W\d_]", re.IGNORECASE
)
"""A word that is no number word: a detail holding one is said as letters too."""
_UPPER = "A-ZÀ-ÖØ-Þ"
_LOWER = "a-zß-öø-ÿ"
_TITLE_WORD = rf"[{_UPPER}](?:[{_LOWER}]|['\u2019-][{_UPPER}{_LOWER}])+"
_PARTICLES = frozenset(
    {"de", "del", "della", "la", "las", "los", "da", "di", "do", "dos", "das", "du"}
    | {"van", "von", "der", "den", "ter", "ten", "y", "e"}
)
"""Words inside a name ("de la Cruz") too common to mask on their own."""
_PARTICLE = "|".join(sorted(_PARTICLES))
_NAME_IN_TEXT = re.compile(
    rf"\b{_TITLE_WORD}(?:\s+(?:(?:{_PARTICLE})\s+)*{_TITLE_WORD})+\b"
    rf"|\b(?:de la|de las|de los|van der|van den|von der)\s+{_TITLE_WORD}\b"
)
"""Two or more capitalised words, which is how a name is written, with any particles."""
_BETWEEN_CHARACTERS = r"(?:[\s,.'\u2019_-]|\b(?:dot|period|underscore|dash|hyphen)\b)*"
"""What may come between the letters of a known detail when it is spelled."""


@dataclass(frozen=True)
class KnownDetails:
    """Names and details known to belong to a call (its caller's, or what a caller claimed
    in an identity check), masked in free text in whatever shape they are said."""

    names: tuple[str, ...] = ()
    details: tuple[str, ...] = ()

    def mask(self, text: str) -> str:
        return mask_free_text(text, names=self.names, details=self.details)


def mask_free_text(text: str, *, names: Iterable[str] = (), details: Iterable[str] = ()) -> str:
    """Masks what looks like personal data in free text (a model's or a caller's words),
    and `names` and `details` (postal codes, phones, emails, streets) known to belong to
    the call, in any case and however they are said or spelled.

    Masked: emails written, spoken or spelled; streets with their number in digits or
    words; tracking numbers and like codes to their last four characters; phone and card
    numbers, written or said, in digits or words, across spaces, commas and "and"; runs
    of capitalised words, as names are written.

    Readable: a run of six digits or fewer, so an order number and a count; a list of
    order numbers, each said whole ("100101 and 100102") or read out as the agent reads
    it, in two groups of three ("1 0 0, 1 0 1"), one read-out parted from the next number
    by "and", since a comma alone joins its halves (without the "and", "1 0 0, 1 0 1, 1 0
    0, 1 0 2" is one twelve-digit number); a benchmark order number, seven digits after
    its W, written, said or read out ("#W2378156", "double-u two three ...", "W 2 3 7, 8 1
    5 6"); ISO dates; amounts with thousands separators. Seven digits with no W are
    masked: they may be a phone number.

    "Jordan Lee, phone 415, 555, 0134" -> "J. L., phone *******0134"."""
    known = _known(tuple(names), tuple(details))
    masked = _EMAIL_IN_TEXT.sub(lambda found: mask_value(found.group()), text)
    for pattern, replacement in known.spelled:
        masked = _replaced(masked, pattern, replacement)
    masked = _ADDRESS_IN_TEXT.sub(lambda found: mask_address(found.group()), masked)
    masked = _CODE_WRITTEN.sub(_masked_code, masked)
    masked = _CODE_SPOKEN.sub(_masked_code, masked)
    masked = _masked_numbers(masked, known.digits)
    return _NAME_IN_TEXT.sub(lambda found: mask_name(found.group()), masked)


@dataclass(frozen=True)
class _KnownPatterns:
    spelled: tuple[tuple[re.Pattern[str], str], ...]
    """Each known name, name part, email's local part and other detail with letters, as
    said or spelled, with its mask; longest first."""
    digits: frozenset[str]
    """The digits of each known detail that is a number (postal code, phone)."""


@functools.lru_cache(maxsize=64)
def _known(names: tuple[str, ...], details: tuple[str, ...]) -> _KnownPatterns:
    # Each name and name part with its initials, each other detail with its mask.
    masks: dict[str, str] = {}
    digits: set[str] = set()
    for name in names:
        masks.setdefault(name, mask_name(name))
        for part in re.split(r"[\s-]+", name):
            if part and part.casefold() not in _PARTICLES:
                masks.setdefault(part, mask_name(part))
    shortest = {value: _KNOWN_NAME_CHARACTERS_MIN for value in masks}
    for detail in details:
        email = normalize_email(detail)
        if email is not None:
            local = email.partition("@")[0]
            masks.setdefault(local, mask_generic(local))
            shortest.setdefault(local, _KNOWN_CHARACTERS_MIN)
            continue
        number = digits_from_speech(detail)
        if len(number) >= _KNOWN_DIGITS_MIN:
            digits.add(number)
        if _WORD_BEYOND_NUMBERS.search(detail):
            masks.setdefault(detail, SHORT_MASK)
            shortest.setdefault(detail, _KNOWN_CHARACTERS_MIN)
    patterns = []
    for value, mask in sorted(masks.items(), key=lambda item: -len(item[0])):
        characters = [char for char in _folded(value) if char.isalnum()]
        if len(characters) >= shortest[value]:
            between = _BETWEEN_CHARACTERS.join(re.escape(char) for char in characters)
            patterns.append((re.compile(rf"(?<![^\W_]){between}(?![^\W_])"), mask))
    return _KnownPatterns(tuple(patterns), frozenset(digits))


def _folded(text: str) -> str:
    """`text` in lower case without accents, one character for one, so that what is found
    in it is found at the same place in `text`."""
    return "".join(_folded_character(char) for char in text)


@functools.lru_cache(maxsize=1024)
def _folded_character(char: str) -> str:
    base = unicodedata.normalize("NFKD", char)[:1] or char
    lowered = base.lower()
    return lowered if len(lowered) == 1 else char


def _replaced(text: str, pattern: re.Pattern[str], replacement: str) -> str:
    spans = [found.span() for found in pattern.finditer(_folded(text))]
    for start, end in reversed(spans):
        text = f"{text[:start]}{replacement}{text[end:]}"
    return text


def _masked_code(found: re.Match[str]) -> str:
    characters = "".join(char for char in found.group() if char.isalnum())
    if not any(char.isdigit() for char in characters) or characters.isdigit():
        return found.group()
    if reads_as_benchmark_number(characters):
        return found.group()
    return mask_tracking_number(characters)


def _masked_numbers(text: str, known: frozenset[str]) -> str:
    """`text` with each run of digits that is a phone or card number, or holds a known
    detail, masked; the groups of a run are joined by a comma or "and"."""
    runs: list[list[re.Match[str]]] = []
    for found in _NUMBER_GROUP.finditer(text):
        if found.lastgroup is not None:  # a date or an amount: readable, and joins nothing
            runs.append([])
            continue
        last = runs[-1][-1] if runs and runs[-1] else None
        if last is not None and _NUMBER_JOIN.fullmatch(text, last.end(), found.start()):
            runs[-1].append(found)
        else:
            runs.append([found])
    for run in reversed(runs):
        while run and run[0].group().casefold() == "oh":
            run = run[1:]  # an exclamation: "Oh, 100101"
        while run and run[-1].group().casefold() == "oh":
            run = run[:-1]
        if run and (replacement := _masked_run(text, run, known)) is not None:
            text = f"{text[: run[0].start()]}{replacement}{text[run[-1].end() :]}"
    return text


def _masked_run(text: str, run: list[re.Match[str]], known: frozenset[str]) -> str | None:
    groups = [digits_from_speech(found.group()) for found in run]
    joins = [text[before.end() : after.start()] for before, after in itertools.pairwise(run)]
    number = "".join(groups)
    said = _known_said(groups, known)
    if said is not None:
        # A phone number keeps its last four, as everywhere; anything shorter keeps
        # nothing, even inside a longer run.
        return mask_phone(number) if len(said) >= _PHONE_DIGITS_IN_TEXT else SHORT_MASK
    if len(number) < _PHONE_DIGITS_IN_TEXT or _reads_as_order_numbers(groups, joins):
        return None
    if said_after_w(text, run[0].start(), number):
        return None
    international = _INTERNATIONAL.match(run[0].group()) is not None
    return mask_phone(f"+{number}" if international else number)


def _known_said(groups: list[str], known: frozenset[str]) -> str | None:
    """The known detail's digits that the groups, or some of them in a row, are."""
    for first in range(len(groups)):
        said = ""
        for group in groups[first:]:
            said += group
            if said in known:
                return said
    return None


def _reads_as_order_numbers(groups: list[str], joins: list[str]) -> bool:
    """Whether a run is a list of six-digit order numbers, each said whole or read out in
    two groups of three; a read-out is parted from its neighbours by "and"."""
    index = 0
    previous_read_out = False
    while index < len(groups):
        pair = tuple(len(group) for group in groups[index : index + 2])
        if len(groups[index]) == DEMO_DIGITS:
            read_out, width = False, 1
        elif pair == _READ_OUT and not _AND.search(joins[index]):
            read_out, width = True, 2
        else:
            return False
        if index and (read_out or previous_read_out) and not _AND.search(joins[index - 1]):
            return False
        previous_read_out = read_out
        index += width
    return True
