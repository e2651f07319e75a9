"""Masking of personal data before it reaches logs and audit details.

A masked value is enough for an engineer to tell two values apart in a log
("+1*******0134" is not "+34*******4567") and never enough to contact the person.
The mask has a fixed width, so it does not reveal the length of what it hides.
"""

from __future__ import annotations

import phonenumbers

__all__ = ["mask_address", "mask_email", "mask_name", "mask_phone", "mask_value"]

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
