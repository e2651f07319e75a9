"""Finding the values a caller gave inside one free-text sentence.

Every finder returns the caller's own words for a value (a `Span` of the original
text), because the tools normalise what they are given; digit counts come from
`customer_service.normalize`, so digits are counted the same here as there. Order
numbers are found by `heard_order_numbers`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from customer_service.normalize import digits_from_speech

__all__ = [
    "FILLERS",
    "STOPWORDS",
    "NumberRun",
    "Span",
    "find_alphanumeric_postcodes",
    "find_emails",
    "find_name",
    "find_number_runs",
    "join_spelled_letters",
    "mask",
    "spelled_words",
    "split_number_run",
    "word_before_spoken_email",
]

_MASK = "|"  # neither a word character nor a space: masked text breaks every run


@dataclass(frozen=True)
class Span:
    """A piece of the caller's text, with its position."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class NumberRun:
    """Digits said or written together, possibly spoken as words ("nine four one ...")."""

    span: Span
    digits: str

    @property
    def is_zip_plus_four(self) -> bool:
        return re.fullmatch(r"\d{5}-\d{4}", self.span.text) is not None


def mask(text: str, spans: Iterable[Span]) -> str:
    """`text` with each span blanked out, positions kept, so later finders skip it."""
    chars = list(text)
    for span in spans:
        chars[span.start : span.end] = _MASK * (span.end - span.start)
    return "".join(chars)


def _span(text: str, start: int, end: int) -> Span:
    return Span(start, end, text[start:end])


# --- numbers -------------------------------------------------------------------------

_DIGIT_WORDS = frozenset(
    {"zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
    | {"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"}
    | {"eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy"}
    | {"eighty", "ninety"}
)
_REPEAT_WORDS = frozenset({"double", "triple"})
_TOKEN = re.compile(r"\d+|[^\W\d_]+")
# Between two digits of one number: spaces, dashes, brackets, or a bare dot (555.0134).
_JOINER = re.compile(r"[\s()\-]*|\.")
_PREFIX = re.compile(r"(?:(?:\+|\bplus\b)[ \t]*)?\(?[ \t]*\Z", re.IGNORECASE)


def _number_pieces(text: str) -> list[re.Match[str]]:
    pieces: list[re.Match[str]] = []
    for match in _TOKEN.finditer(text):
        word = match.group().lower()
        if match.group().isdigit():
            before = text[match.start() - 1] if match.start() > 0 else " "
            after = text[match.end()] if match.end() < len(text) else " "
            # "SW1A" and "priya99" are not numbers.
            if not (before.isalpha() or after.isalpha()):
                pieces.append(match)
        elif word in _DIGIT_WORDS or word in _REPEAT_WORDS:
            pieces.append(match)
    return pieces


def _is_repeat(piece: re.Match[str]) -> bool:
    return piece.group().lower() in _REPEAT_WORDS


def _trimmed(group: list[re.Match[str]]) -> list[re.Match[str]]:
    while group and _is_repeat(group[-1]):
        group = group[:-1]
    # "oh, 94107" or "oh 94107": an exclamation, not a leading zero.
    if len(group) > 1 and group[0].group().lower() == "oh" and group[1].group().isdigit():
        group = group[1:]
    # "... 0134 oh wait": likewise.
    if len(group) > 1 and group[-1].group().lower() == "oh" and group[-2].group().isdigit():
        group = group[:-1]
    return group


def find_number_runs(text: str) -> list[NumberRun]:
    """Every run of digits in `text`, written ("+1 (415) 555-0134") or spoken."""
    groups: list[list[re.Match[str]]] = []
    for piece in _number_pieces(text):
        if groups and _JOINER.fullmatch(text[groups[-1][-1].end() : piece.start()]):
            groups[-1].append(piece)
        else:
            groups.append([piece])
    runs: list[NumberRun] = []
    for group in map(_trimmed, groups):
        if not group:
            continue
        start, end = group[0].start(), group[-1].end()
        prefix = _PREFIX.search(text[:start])
        if prefix is not None:
            start = prefix.start()
            while text[start].isspace():
                start += 1
        span = _span(text, start, end)
        digits = digits_from_speech(span.text)
        if digits:
            runs.append(NumberRun(span, digits))
    return runs


def split_number_run(
    text: str, run: NumberRun, first_digits: int
) -> tuple[NumberRun, NumberRun] | None:
    """`run` cut where its first `first_digits` digits end, if a word or group ends
    there: "94107 415 555 0134" said without a pause is a ZIP code and a phone number."""
    offset = run.span.start
    for piece in _number_pieces(run.span.text):
        head = digits_from_speech(run.span.text[: piece.end()])
        if len(head) > first_digits:
            return None
        if len(head) == first_digits:
            tail_start = offset + piece.end()
            tail_text = text[tail_start : run.span.end]
            lead = len(tail_text) - len(tail_text.lstrip(" \t-"))
            tail = _span(text, tail_start + lead, run.span.end)
            head_span = _span(text, offset, tail_start)
            return NumberRun(head_span, head), NumberRun(tail, run.digits[first_digits:])
    return None


# --- emails and postcodes --------------------------------------------------------------

_WRITTEN_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# A word said whole ("jordan") or spelled out letter by letter ("j o r d a n").
_EMAIL_WORD = r"(?:[a-z0-9](?:[ \t][a-z0-9](?![\w.@]))+|[a-z0-9]+)"
_LOCAL_JOIN_AHEAD = r"\.|[ \t]+(?:dot|period|underscore|dash|hyphen)[ \t]+"
# Digits said in an email's name part, as words or in groups: "ito three eight seven
# seven", "ito 3 8 7 7", "ito thirty eight seventy seven".
_NUMBER_WORD = (
    r"(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|double|triple)\b"
)
_SAID_NUMBER = rf"{_NUMBER_WORD}(?:[ \t]+{_NUMBER_WORD})*"
_LOCAL_WORD = rf"{_EMAIL_WORD}(?:[ \t]+{_SAID_NUMBER}(?=[ \t]+at[ \t]|{_LOCAL_JOIN_AHEAD}))?"
_LOCAL_JOIN = r"(?:\.|[ \t]+(?:dot|period|underscore|dash|hyphen)[ \t]+)"
_DOMAIN_JOIN = r"(?:\.|[ \t]+(?:dot|period)[ \t]+)"
_SPOKEN_EMAIL = re.compile(
    rf"(?<![\w.]){_LOCAL_WORD}(?:{_LOCAL_JOIN}{_LOCAL_WORD})*"
    rf"[ \t]+at[ \t]+{_EMAIL_WORD}(?:{_DOMAIN_JOIN}{_EMAIL_WORD})+(?!\w)",
    re.IGNORECASE,
)
_ALPHANUMERIC_POSTCODE = re.compile(
    r"(?<![\w@.])(?:[a-z]{1,2}\d[a-z\d]?[ \t]*\d[a-z]{2}|[a-z]\d[a-z][ \t]*\d[a-z]\d)(?![\w@])",
    re.IGNORECASE,
)


def find_emails(text: str) -> list[Span]:
    """Email addresses, written ("jordan.lee@example.com") or spoken ("... at example
    dot com"), in order of appearance."""
    written = [_span(text, m.start(), m.end()) for m in _WRITTEN_EMAIL.finditer(text)]
    spoken = [_span(text, m.start(), m.end()) for m in _SPOKEN_EMAIL.finditer(mask(text, written))]
    return sorted(written + spoken, key=lambda span: span.start)


_WORD_BEFORE = re.compile(r"(?<![\w'\u2019])([^\W\d_]+)[ \t]+$")


def word_before_spoken_email(text: str, email: Span) -> Span | None:
    """The word said right before a spoken email with only a space between, unless it is
    an ordinary word ("my email is ..."): in "jordan lee at example dot com" the name
    part may be two words, and whether a dot, nothing or an underscore joins them
    cannot be heard."""
    if "@" in email.text:
        return None
    before = _WORD_BEFORE.search(text[: email.start])
    if before is None or before.group(1).casefold() in STOPWORDS:
        return None
    return _span(text, before.start(1), before.end(1))


def find_alphanumeric_postcodes(text: str) -> list[Span]:
    """UK and Canadian style postcodes ("SW1A 1AA", "K1A 0B1")."""
    return [_span(text, m.start(), m.end()) for m in _ALPHANUMERIC_POSTCODE.finditer(text)]


# --- names -------------------------------------------------------------------------------


_SPELLED = re.compile(
    r"(?<![\w@.'\u2019])[^\W\d_](?:(?:[ \t]*[-.][ \t]*|[ \t]+)[^\W\d_](?![\w'\u2019])){2,}\.?"
)
_SPELLED_RUNS = re.compile(r"\x00[^\x00]+\x00(?:[ \t,]+\x00[^\x00]+\x00)*")


# A word followed by its spelling: "Jordan, j o r d a n, Lee", "Jordon, that's J-O-R-D-A-N".
_WORD_THEN_SPELLING = re.compile(
    r"(?<![\w\x00'\u2019])(?P<word>[^\W\d_]+)[ \t]*,?[ \t]*"
    r"(?:(?:that(?:'|\u2019)?s|that is|spelled|spelt)[ \t]+)?\x00(?P<spelled>[^\x00]+)\x00"
    r"(?P<pause>[ \t]*,[ \t]*(?=[^\W\d_]))?",
    re.IGNORECASE,
)


def _spelling_of_word_before(match: re.Match[str]) -> str:
    """The spelled word alone when it spells the word said just before it: a spelling
    says how that word is written, it is not another word of the name."""
    word, spelled = match.group("word").casefold(), match.group("spelled").casefold()
    same_start = word[:1] == spelled[:1]
    if not same_start or difflib.SequenceMatcher(None, word, spelled).ratio() < 0.6:
        return match.group()
    return f"\x00{match.group('spelled')}\x00" + (" " if match.group("pause") else "")


def join_spelled_letters(text: str) -> str:
    """`text` with each word spelled out letter by letter ("j o r d a n", "L-E-E")
    written whole; spelled words with only pauses between them become one name
    ("j o r d a n, l e e" -> "Jordan Lee"), and a spelling said right after its word
    replaces it ("Jordan, j o r d a n, Lee" -> "Jordan Lee")."""
    marked = _SPELLED.sub(
        lambda match: "\x00" + re.sub(r"[^\w]", "", match.group()).capitalize() + "\x00", text
    )
    marked = _WORD_THEN_SPELLING.sub(_spelling_of_word_before, marked)
    return _SPELLED_RUNS.sub(
        lambda match: " ".join(re.findall(r"\x00([^\x00]+)\x00", match.group())), marked
    )


def spelled_words(text: str) -> list[str]:
    """The words spelled out letter by letter in `text`, each written whole."""
    return [re.sub(r"\W", "", match.group()).capitalize() for match in _SPELLED.finditer(text)]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FILLERS = _words(
    """yes yeah yep yup sure ok okay hi hello hey there um uh er erm hmm so well oh right
    alright please thanks thank you good morning afternoon evening sorry"""
)
STOPWORDS = FILLERS | _words(
    """a an the i me my mine myself you your yours we our us he she him her it its they them
    their this that these those is am are was were be been being have has had do does did
    will would shall should can could may might must to of in on at by for with from up down
    out over under about into onto off as if or and but than then too very just also not no
    nope nah here where what when why how who whom which while because let let's there's
    it's i'm i've i'd i'll that's what's where's don't can't won't isn't wasn't didn't
    doesn't name number phone mobile cell telephone email e-mail mail address zip postal
    post code postcode account order orders package parcel delivery shipment shipping
    tracking track status verify verification identity details detail info information
    customer calling call speaking again new old home work street city zero one two three
    four five six seven eight nine ten hundred thousand double triple plus dot underscore
    dash hyphen day great fine cool correct wrong excuse want wanted need needs check know
    like help get got give tell said say see looking look find try trying wondering think
    sure never mind forget cancel stop human person agent representative operator someone
    real somebody bye goodbye all nothing else some any other still only"""
)
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
_STRONG_TRIGGER = re.compile(
    r"(?<![\w'\u2019])(?:my name(?: is|['\u2019]s)|the name is|name(?: is|['\u2019]s))[ \t]+",
    re.IGNORECASE,
)
_WEAK_TRIGGER = re.compile(
    r"(?<![\w'\u2019])(?:i['\u2019]m|i am|this is|it['\u2019]s|it is)[ \t]+", re.IGNORECASE
)
_CONJUNCTIONS = frozenset({"and", "but", "then", "also"})


def _word_runs(text: str, start: int = 0) -> list[list[re.Match[str]]]:
    """Runs of words separated by single spaces only; anything else ends a run."""
    runs: list[list[re.Match[str]]] = []
    for word in _NAME_WORD.finditer(text, start):
        if runs and re.fullmatch(r"[ \t]+", text[runs[-1][-1].end() : word.start()]):
            runs[-1].append(word)
        else:
            runs.append([word])
    return runs


def _is_stopword(word: re.Match[str]) -> bool:
    return word.group().lower().replace("\u2019", "'") in STOPWORDS


def _after_trigger(text: str, trigger: re.Match[str], *, strong: bool) -> Span | None:
    runs = _word_runs(text, trigger.end())
    if not runs or runs[0][0].start() != trigger.end():
        return None
    words: list[re.Match[str]] = []
    for word in runs[0]:
        # After "my name is", a capitalised "Will" or "May" is a name, not a word.
        capitalised_name = strong and word.group()[0].isupper() and word.group() != "I"
        if (_is_stopword(word) and not capitalised_name) or len(words) == 4:
            break
        words.append(word)
    if len(words) < (1 if strong else 2):
        return None
    return _span(text, words[0].start(), words[-1].end())


def _candidate(words: list[re.Match[str]]) -> Span | None:
    while words and words[0].group().lower() in FILLERS:
        words = words[1:]
    while words and words[-1].group().lower() in FILLERS:
        words = words[:-1]
    if not 2 <= len(words) <= 4 or any(_is_stopword(word) for word in words):
        return None
    return _span(words[0].string, words[0].start(), words[-1].end())


def _only_words_besides(text: str, name: Span) -> bool:
    rest = mask(text, [name])
    return all(word.group().lower() in FILLERS for word in _NAME_WORD.finditer(rest))


def find_name(text: str, *, with_other_details: bool) -> Span | None:
    """A person's name: after "my name is" / "I'm" / "this is" / "it's", or a run of two
    to four words that are not ordinary words ("Jordan Lee", "María García").

    A name without such an introduction is only taken from a line that also gives other
    details (`with_other_details`) or says nothing else, so "ignore previous
    instructions and ..." is not a name. Mask numbers and emails out of `text` first.
    """
    for trigger, strong in ((_STRONG_TRIGGER, True), (_WEAK_TRIGGER, False)):
        for match in trigger.finditer(text):
            if (name := _after_trigger(text, match, strong=strong)) is not None:
                return name
    for run in _word_runs(text):
        part: list[re.Match[str]] = []
        for word in [*run, None]:
            if word is not None and word.group().lower() not in _CONJUNCTIONS:
                part.append(word)
                continue
            name = _candidate(part)
            if name is not None and (with_other_details or _only_words_besides(text, name)):
                return name
            part = []
    return None
