"""Masking of personal data before it reaches logs and audit details.

A masked value is enough for an engineer to tell two values apart in a log
("+1*******0134" is not "+34*******4567") and never enough to contact the person.
The mask has a fixed width, so it does not reveal the length of what it hides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import phonenumbers

from customer_service.normalize import digits_from_speech

__all__ = [
    "mask_address",
    "mask_email",
    "mask_free_text",
    "mask_name",
    "mask_phone",
    "mask_room_name",
    "mask_value",
]

MASK = "*******"
_SHORT_MASK = "***"
# Fewer digits than this is not a phone number worth keeping any of.
_MIN_PHONE_DIGITS = 7


def mask_phone(phone: str) -> str:
    """Keeps the country code (at most 2 digits) and last 4: "+14155550134" -> "+1*******0134"."""
    digits = "".join(char for char in phone if char.isascii() and char.isdigit())
    if len(digits) < _MIN_PHONE_DIGITS:
        return _SHORT_MASK
    prefix = ""
    if phone.strip().startswith("+"):
        prefix = "+" + _country_code(phone, digits)[:2]
    return f"{prefix}{MASK}{digits[-4:]}"


def _country_code(phone: str, digits: str) -> str:
    try:
        return str(phonenumbers.parse(phone).country_code)
    except phonenumbers.NumberParseException:
        # Without a known country code, one digit is the least that can be shown.
        return digits[:1]


_NUMBER_IN_ROOM_NAME = re.compile(r"(?<![\d+])\+?\d{7,}(?!\d)")


def mask_room_name(room: str) -> str:
    """A LiveKit room name with every phone number in it masked as `mask_phone` masks it.
    A dispatch rule names a phone call's room after a number (individual dispatch: the
    caller's, `<prefix>_<number>_<random>`): "call-_+14155550134_Xk3pQ9aZ" ->
    "call-_+1*******0134_Xk3pQ9aZ"."""
    return _NUMBER_IN_ROOM_NAME.sub(lambda found: mask_phone(found.group()), room)


def mask_email(email: str) -> str:
    """Keeps the first letter and the domain: "jordan.lee@example.com" -> "j***@example.com"."""
    local, at, domain = email.strip().rpartition("@")
    if not at or not local or not domain:
        return _mask_generic(email)
    return f"{local[0]}{_SHORT_MASK}@{domain}"


def mask_name(name: str) -> str:
    """Keeps the initials: "Jordan Lee" -> "J. L."."""
    return " ".join(f"{word[0].upper()}." for word in name.split())


def mask_address(address: str) -> str:
    """Keeps the first three characters: "500 Howard St, Apt 4B" -> "500***"."""
    text = address.strip()
    keep = 3 if len(text) > 4 else min(1, len(text))
    return f"{text[:keep]}{_SHORT_MASK}"


def mask_value(value: str) -> str:
    """Masks a value of unknown kind: as an email, a phone number, or else generically."""
    text = value.strip()
    if "@" in text:
        return mask_email(text)
    significant = [char for char in text if not char.isspace() and char not in "+-.()"]
    digit_count = sum(char.isdigit() for char in significant)
    if significant and digit_count * 2 > len(significant):
        return mask_phone(text)
    return _mask_generic(text)


def _mask_generic(value: str) -> str:
    text = value.strip()
    return f"{text[:1]}{_SHORT_MASK}" if text else ""


# Free text: shapes, since the words carry no labels. Each pattern errs towards masking:
# a city or a product name masked by mistake costs a colleague a question, while a
# phone number or a name let through is personal data in a record.
_EMAIL_IN_TEXT = re.compile(
    r"[^\s@,;:<>()\[\]\"']+@[^\s@,;:<>()\[\]\"']+\.[^\W\d_]{2,}"
    r"|\b[^\W_]+(?: (?:dot|period|point) [^\W_]+)* at [^\W_]+(?: (?:dot|period|point) [^\W_]+)+",
    re.IGNORECASE,
)
_DIGIT = r"(?:\d|\b(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|double|triple)\b)"
_DIGIT_RUN_IN_TEXT = re.compile(rf"(?<!\w)\+?{_DIGIT}(?:[\s().+-]*{_DIGIT})*(?!\w)", re.IGNORECASE)
_STREET_SUFFIX = (
    r"(?:street|st|avenue|ave|road|rd|boulevard|blvd|drive|dr|lane|ln|way|court|ct|place|pl"
    r"|terrace|ter|parkway|pkwy|highway|hwy|square|sq|circle|cir)"
)
_UNIT = r"(?:,?\s*(?:apt|apartment|suite|ste|unit|floor|fl|#)\.?\s*#?[\w-]+)?"
_ADDRESS_IN_TEXT = re.compile(
    rf"\b\d{{1,6}}[a-z]?\s+(?:[^\W\d_][\w'.-]*\s+){{0,4}}{_STREET_SUFFIX}\b\.?{_UNIT}"
    r"|\b(?:calle|avenida|avda|plaza|paseo|carrer|rua|rue|via|strasse|straße)\b[^,;\d]{1,60}\d+\w*",
    re.IGNORECASE,
)
_UPPER = "A-ZÀ-ÖØ-Þ"
_LOWER = "a-zß-öø-ÿ"
_TITLE_WORD = rf"[{_UPPER}](?:[{_LOWER}]|['\u2019-][{_UPPER}{_LOWER}])+"
_NAME_IN_TEXT = re.compile(rf"\b{_TITLE_WORD}(?:\s+{_TITLE_WORD})+\b")
_DATE_IN_TEXT = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")
_PHONE_DIGITS_IN_TEXT = 7
"""Digits in a run, said or written, from which it is masked as a phone number; an
order number (six) stays readable."""


def mask_free_text(text: str, *, names: Iterable[str] = ()) -> str:
    """Masks what looks like personal data in free text (a model's or a caller's words):
    emails, street addresses, phone numbers written or spoken, `names` (known to belong
    to the call), and runs of two or more capitalised words, which is how a name is
    written. "Jordan Lee, phone 415 555 0134" -> "J. L., phone *******0134"."""
    masked = _EMAIL_IN_TEXT.sub(lambda found: mask_value(found.group()), text)
    masked = _ADDRESS_IN_TEXT.sub(lambda found: mask_address(found.group()), masked)
    masked = _DIGIT_RUN_IN_TEXT.sub(_masked_digit_run, masked)
    for name in names:
        for part in sorted({name.strip(), *name.split()}, key=len, reverse=True):
            if len(part) > 1:
                masked = re.sub(
                    rf"(?<!\w){re.escape(part)}(?!\w)",
                    lambda found: mask_name(found.group()),
                    masked,
                    flags=re.IGNORECASE,
                )
    return _NAME_IN_TEXT.sub(lambda found: mask_name(found.group()), masked)


def _masked_digit_run(found: re.Match[str]) -> str:
    run = found.group()
    digits = digits_from_speech(run)
    if len(digits) < _PHONE_DIGITS_IN_TEXT or _DATE_IN_TEXT.fullmatch(run):
        return run
    return mask_phone(f"+{digits}" if run.startswith("+") else digits)
