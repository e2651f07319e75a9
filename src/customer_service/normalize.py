"""Turn a caller's words into canonical values.

Callers speak ("four one five, double five, ...") or type ("415.555.0134") the same
facts; speech-to-text writes them either way. Everything that compares what a caller
said with what is on file goes through these functions, so the comparison is done on
canonical values and never on raw transcripts. All functions are pure.
"""

from __future__ import annotations

import re
import unicodedata

import phonenumbers

from customer_service.spoken.numbers import (
    DIGIT_WORDS,
    EXCLAMATIONS,
    NUMBER_WORDS,
    REPEAT_WORDS,
    with_two_digit_words,
)

__all__ = [
    "contact_details",
    "digits_from_speech",
    "emails_match",
    "name_key",
    "names_match",
    "normalize_email",
    "normalize_name",
    "normalize_phone",
    "normalize_postal_code",
    "numbers_from_speech",
    "phones_match",
    "postal_codes_match",
]


# One ASCII digit or one run of letters; everything else (separators, punctuation) splits.
_SPEECH_TOKEN = re.compile(r"[0-9]|[^\W\d_]+")
_INTERNATIONAL_PREFIX = re.compile(r"\s*(?:\+|plus\b)", re.IGNORECASE)

_EMAIL_WORDS = {
    "at": "@",
    "dot": ".",
    "period": ".",
    "point": ".",
    "underscore": "_",
    "dash": "-",
    "hyphen": "-",
    "plus": "+",
}
_EMAIL_LEAD_IN = re.compile(
    r"^(?:(?:my|the|our)\s+)?e-?mail(?:\s+address)?(?:\s+is|['\u2019]s|:)\s+|^it['\u2019]s\s+"
)
_EMAIL_AT_SIGN = re.compile(r"\s+at(?:\s+the)?\s+(?:sign|symbol)\s+(?!dot\b|period\b)")
_SPELLED_WITH_DASHES = re.compile(r"(?<![\w-])[a-z0-9](?:-[a-z0-9])+(?![\w-])")
_EMAIL_LOCAL = r"[^@\s,;:<>()\[\]\"]+"
_EMAIL_LABEL = r"[^@\s,;:<>()\[\]\".]+"
_EMAIL_SHAPE = re.compile(rf"{_EMAIL_LOCAL}@{_EMAIL_LABEL}(?:\.{_EMAIL_LABEL})+")

_POSTAL_LEAD_IN = re.compile(
    r"^(?:(?:my|the|our)\s+)?(?:zip code|zip|postal code|post code|postcode)"
    r"(?:\s+is|['\u2019]s|:)?\s+|^it['\u2019]s\s+"
)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2013": "-"})
_NAME_PUNCTUATION = re.compile(r"[^\w\s'-]|_")
_NAME_SEPARATORS = re.compile(r"[\s'-]+")


def _speech_tokens(text: str) -> list[str]:
    """The words and single digits of `text`, with two-digit number words as digits."""
    return with_two_digit_words(_SPEECH_TOKEN.findall(text.casefold()))


def digits_from_speech(text: str) -> str:
    """All digits in `text`, in order, counting spoken digit words.

    "one zero zero one zero one", "100-101" and "1 0 0 1 0 1" all give "100101";
    "double five" gives "55", "ninety four one oh seven" "94107". Words that are not
    digit words are dropped.
    """
    digits: list[str] = []
    repeat = 1
    for token in _speech_tokens(text):
        digit = token if token.isdigit() else DIGIT_WORDS.get(token)
        if digit is not None:
            digits.append(digit * repeat)
            repeat = 1
        elif token in REPEAT_WORDS:
            repeat = REPEAT_WORDS[token]
        else:
            # "double" only applies to the digit right after it.
            repeat = 1
    return "".join(digits)


def numbers_from_speech(text: str) -> list[str]:
    """The numbers said in `text`, in order: each an unbroken run of digits, spoken or
    written, that only a word which is no digit word ends.

    "yes, 100-102" and "one double zero, one oh two" give ["100102"]; "500 Howard St,
    94107" gives ["500", "94107"]. An "oh" on its own is an exclamation, not a zero:
    "oh yes" gives [].
    """
    numbers: list[str] = []
    digits: list[str] = []
    words: list[str] = []
    repeat = 1

    def end_number() -> None:
        if not all(word in EXCLAMATIONS for word in words):
            numbers.append("".join(digits))
        digits.clear()
        words.clear()

    for token in _speech_tokens(text):
        digit = token if token.isdigit() else DIGIT_WORDS.get(token)
        if digit is not None:
            digits.append(digit * repeat)
            words.append(token)
            repeat = 1
        elif token in REPEAT_WORDS:
            repeat = REPEAT_WORDS[token]
        else:
            if words:
                end_number()
            repeat = 1
    if words:
        end_number()
    return numbers


def normalize_phone(text: str, region: str) -> str | None:
    """`text` as an E.164 number, or None if it cannot be a complete phone number.

    `region` (ISO 3166-1 alpha-2) applies to numbers said without a country code.
    A leading "+" or the word "plus" marks an international number.
    """
    international = _INTERNATIONAL_PREFIX.match(text) is not None
    digits = digits_from_speech(text)
    if not digits or len(digits) > 17:
        return None
    candidate = f"+{digits}" if international else digits
    try:
        number = phonenumbers.parse(candidate, region.upper())
    except phonenumbers.NumberParseException:
        return None
    # Plain is_possible_number also accepts local-only numbers (no area code), which
    # cannot be turned into a correct E.164 string.
    reason = phonenumbers.is_possible_number_with_reason(number)
    if reason != phonenumbers.ValidationResult.IS_POSSIBLE:
        return None
    e164: str = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    return e164


def normalize_email(text: str) -> str | None:
    """`text` as a lower-case email address, or None if it is not a plausible one.

    Accepts written ("Jordan.Lee@Example.com") and spoken ("my email is jordan dot lee
    at sign example dot com") forms; spelled-out letters ("j o r d a n", "j-o-r-d-a-n")
    are joined.
    """
    # A sentence-final period from speech-to-text is not part of the address.
    lowered = _EMAIL_LEAD_IN.sub("", text.strip().casefold(), count=1).rstrip(".")
    lowered = _EMAIL_AT_SIGN.sub(" at ", lowered)
    # Spelled with dashes ("j-o-r-d-a-n"), the letters are one word.
    lowered = _SPELLED_WITH_DASHES.sub(lambda match: match.group().replace("-", ""), lowered)
    tokens = re.sub(r"[,;]", " ", lowered).split()
    if "@" not in lowered or any(token in _EMAIL_WORDS for token in tokens):
        lowered = "".join(_EMAIL_WORDS.get(token, token) for token in _email_digits(tokens))
    if not _EMAIL_SHAPE.fullmatch(lowered):
        return None
    return lowered


def _email_digits(tokens: list[str]) -> list[str]:
    """Spoken email `tokens` with number words as digits: "ito three eight seven seven"
    and "ito thirty eight seventy seven" both end in "3877", "double five" is "55".
    "o" and "oh" stay letters, and so does a number word inside a word ("someone")."""
    said: list[str] = []
    repeat = 1
    for token in with_two_digit_words(tokens):
        if token in REPEAT_WORDS:
            repeat = REPEAT_WORDS[token]
            continue
        said.append(NUMBER_WORDS.get(token, token) * repeat)
        repeat = 1
    return said


def normalize_name(text: str) -> str:
    """`text` without accents, case or punctuation (apostrophes and hyphens stay)."""
    decomposed = unicodedata.normalize("NFKD", text)
    unaccented = "".join(char for char in decomposed if not unicodedata.combining(char))
    folded = unaccented.translate(_APOSTROPHES).translate(_HYPHENS).casefold()
    return " ".join(_NAME_PUNCTUATION.sub(" ", folded).split())


def normalize_postal_code(text: str) -> str:
    """`text` as a compact upper-case code: "9 4 1 0 7" -> "94107", "sw1a 1aa" -> "SW1A1AA",
    "my zip is ninety four one oh seven" -> "94107"."""
    said = _POSTAL_LEAD_IN.sub("", text.strip().casefold(), count=1)
    tokens = with_two_digit_words(re.split(r"[\s\-.,]+", said))
    code = _join_code_tokens(tokens, DIGIT_WORDS)
    if not code.isdigit():
        code = _join_code_tokens(tokens, NUMBER_WORDS)
    return re.sub(r"[\W_]", "", code).upper()


def _join_code_tokens(tokens: list[str], digit_words: dict[str, str]) -> str:
    parts: list[str] = []
    repeat = 1
    for token in tokens:
        if token in REPEAT_WORDS:
            repeat = REPEAT_WORDS[token]
            continue
        parts.append(digit_words.get(token, token) * repeat)
        repeat = 1
    return "".join(parts)


def postal_codes_match(given: str, on_file: str, country: str) -> bool:
    """Whether the caller's postal code is the one on file.

    US codes compare on the five-digit ZIP, so a ZIP+4 answer matches; elsewhere the
    normalised codes must be equal.
    """
    given_code = normalize_postal_code(given)
    on_file_code = normalize_postal_code(on_file)
    if not given_code or not on_file_code:
        return False
    if country.strip().upper() == "US":
        # US codes are all digits, so words around them ("my zip is ...") can go.
        given_digits = digits_from_speech(given)
        if len(given_digits) not in (5, 9) or not on_file_code.isdigit():
            return False
        return given_digits[:5] == on_file_code[:5]
    return given_code == on_file_code


_COMPARED_TAIL_DIGITS = 4


def phones_match(given: str, on_file_e164: str | None, region: str) -> bool:
    """Whether the caller's phone number is the one on file.

    A number said without a country code is read in `region` and, failing that, in
    the country of the number on file (a caller abroad says their home number).
    """
    # Parsing is most of an identity check's cost when it compares a caller's words with
    # many namesakes' numbers: numbers whose last digits differ cannot be the same, and
    # parsing only ever strips leading digits (prefixes, country codes).
    if on_file_e164 is None:
        return False
    tail = digits_from_speech(given)[-_COMPARED_TAIL_DIGITS:]
    if not tail or tail != digits_from_speech(on_file_e164)[-_COMPARED_TAIL_DIGITS:]:
        return False
    on_file = normalize_phone(on_file_e164, region)
    if on_file is None:
        return False
    regions = [region]
    on_file_region = phonenumbers.region_code_for_number(phonenumbers.parse(on_file))
    if on_file_region and on_file_region not in ("ZZ", region.upper()):
        regions.append(on_file_region)
    return any(normalize_phone(given, candidate) == on_file for candidate in regions)


def emails_match(given: str, on_file: str) -> bool:
    """Whether the caller's email address is the one on file."""
    given_email = normalize_email(given)
    return given_email is not None and given_email == normalize_email(on_file)


def names_match(given: str, on_file: str) -> bool:
    """Whether the caller's full name is the one on file.

    Compares the letters only, so "O'Brien", "OBrien" and "o brien" match, as do
    "García" and "Garcia"; a partial name does not.
    """
    given_key = name_key(given)
    return bool(given_key) and given_key == name_key(on_file)


def name_key(text: str) -> str:
    """The letters of a name that `names_match` compares: "María O'Brien-Lee" ->
    "mariaobrienlee". Stored with each customer, so a name is found by equality."""
    return _NAME_SEPARATORS.sub("", normalize_name(text))


# Shapes, never values: the model reads the details, and the identity check decides.
_EMAIL_LIKE = re.compile(
    r"[^\s@,;]+@[^\s@,;]+|\b[^\W_]+ at [^\W_]+(?: (?:dot|period|point) [^\W_]+)+", re.I
)
_DIGIT_RUN = re.compile(
    r"(?:(?:\d|\b(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|double|triple)\b)"
    r"[\s().+-]*)+",
    re.I,
)
_PHONE_DIGITS = 9  # the fewest in a number said without its country code (Spain)


def contact_details(text: str) -> list[tuple[int, str]]:
    """Each thing in `text` shaped like an email address or a phone number, with where
    it starts, in order."""
    emails = [
        (found.start(), found.group())
        for found in _EMAIL_LIKE.finditer(text)
        if normalize_email(found.group())
    ]
    phones = [
        (found.start(), found.group())
        for found in _DIGIT_RUN.finditer(text)
        if len(digits_from_speech(found.group())) >= _PHONE_DIGITS
    ]
    return sorted(emails + phones)


def holds_contact_detail(text: str) -> bool:
    """Whether `text` holds something shaped like an email address or a phone number."""
    return bool(contact_details(text))
