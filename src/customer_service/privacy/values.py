"""Masks for values of a known kind (a phone number, an email address, a name), and what
kind of value a named field holds.

A masked value is enough for an engineer to tell two values apart in a log
("+1*******0134" is not "+34*******4567") and never enough to contact the person.
The mask has a fixed width, so it does not reveal the length of what it hides.
"""

from __future__ import annotations

import enum
import re

import phonenumbers

MASK = "*******"
SHORT_MASK = "***"

# Fewer digits than this is not a phone number worth keeping any of.
_MIN_PHONE_DIGITS = 7


def mask_phone(phone: str) -> str:
    """Keeps the country code (at most 2 digits) and last 4: "+14155550134" -> "+1*******0134"."""
    digits = "".join(char for char in phone if char.isascii() and char.isdigit())
    if len(digits) < _MIN_PHONE_DIGITS:
        return SHORT_MASK
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
        return mask_generic(email)
    return f"{local[0]}{SHORT_MASK}@{domain}"


def mask_name(name: str) -> str:
    """Keeps the initials: "Jordan Lee" -> "J. L."."""
    return " ".join(f"{word[0].upper()}." for word in name.split())


def mask_address(address: str) -> str:
    """Keeps the first three characters: "500 Howard St, Apt 4B" -> "500***"."""
    text = address.strip()
    keep = 3 if len(text) > 4 else min(1, len(text))
    return f"{text[:keep]}{SHORT_MASK}"


def mask_value(value: str) -> str:
    """Masks a value of unknown kind: as an email, a phone number, or else generically."""
    text = value.strip()
    if "@" in text:
        return mask_email(text)
    significant = [char for char in text if not char.isspace() and char not in "+-.()"]
    digit_count = sum(char.isdigit() for char in significant)
    if significant and digit_count * 2 > len(significant):
        return mask_phone(text)
    return mask_generic(text)


def mask_tracking_number(number: str) -> str:
    """Keeps the last four characters: "1Z999AA10123456784" -> "*******6784"."""
    characters = "".join(char for char in number if char.isalnum())
    return f"{MASK}{characters[-4:]}" if len(characters) > 4 else SHORT_MASK


def mask_generic(value: str) -> str:
    text = value.strip()
    return f"{text[:1]}{SHORT_MASK}" if text else ""


class PersonalField(enum.Enum):
    """What a named field (of tool arguments or a typed result) holds of a person."""

    NAME = "name"
    CONTACT = "contact"
    """A phone number or an email address, whichever the caller gave."""
    PHONE = "phone"
    EMAIL = "email"
    ADDRESS = "address"
    POSTAL_CODE = "postal_code"
    TRACKING_NUMBER = "tracking_number"
    """Not the caller's, but enough to follow their parcel to their door."""


_FIELDS = {
    **dict.fromkeys(("full_name", "name", "first_name", "last_name"), PersonalField.NAME),
    "name_given": PersonalField.NAME,
    **dict.fromkeys(("phone_or_email", "caller_number", "contact"), PersonalField.CONTACT),
    **dict.fromkeys(("street", "unit", "address", "line1", "line2"), PersonalField.ADDRESS),
    "postal_code": PersonalField.POSTAL_CODE,
    "tracking_number": PersonalField.TRACKING_NUMBER,
}


def personal_field(key: str) -> PersonalField | None:
    """What a field holds of a person, by its name; None for a field that names nothing
    personal (its text is still free text)."""
    if key in _FIELDS:
        return _FIELDS[key]
    if "phone" in key:
        return PersonalField.PHONE
    if "email" in key:
        return PersonalField.EMAIL
    return None


_FIELD_MASKS = {
    PersonalField.NAME: mask_name,
    PersonalField.CONTACT: mask_value,
    PersonalField.PHONE: mask_phone,
    PersonalField.EMAIL: mask_email,
    PersonalField.ADDRESS: mask_address,
    PersonalField.POSTAL_CODE: mask_address,
    PersonalField.TRACKING_NUMBER: mask_tracking_number,
}


def mask_field(field: PersonalField, value: str) -> str:
    return _FIELD_MASKS[field](value)
