"""Gathering the three identity details from what the caller said."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from customer_service.offline_llm.fields import (
    Span,
    find_alphanumeric_postcodes,
    find_emails,
    find_name,
    find_number_runs,
    mask,
)

__all__ = ["IDENTITY_QUESTION", "IdentityDetails", "identity_details", "missing_details_prompt"]

IDENTITY_QUESTION = (
    "To verify your identity, please tell me your full name, the postal code, "
    "and the phone number or email on the account."
)


@dataclass(frozen=True)
class IdentityDetails:
    """The caller's own words for each detail, or None when not said yet."""

    full_name: str | None = None
    postal_code: str | None = None
    phone_or_email: str | None = None

    def updated_by(self, newer: IdentityDetails) -> IdentityDetails:
        """These details with whatever `newer` says instead (a correction wins)."""
        return replace(
            self,
            full_name=newer.full_name or self.full_name,
            postal_code=newer.postal_code or self.postal_code,
            phone_or_email=newer.phone_or_email or self.phone_or_email,
        )

    @property
    def complete(self) -> bool:
        return bool(self.full_name and self.postal_code and self.phone_or_email)

    @property
    def empty(self) -> bool:
        return not (self.full_name or self.postal_code or self.phone_or_email)


def _first(spans: Iterable[Span]) -> Span | None:
    return min(spans, key=lambda span: span.start, default=None)


def details_in(line: str) -> IdentityDetails:
    """The details said in one line of the caller's speech."""
    emails = find_emails(line)
    without_emails = mask(line, emails)
    postcodes = find_alphanumeric_postcodes(without_emails)
    without_codes = mask(without_emails, postcodes)
    runs = find_number_runs(without_codes)
    phones = [run.span for run in runs if len(run.digits) >= 9 and not run.is_zip_plus_four]
    zips = [run.span for run in runs if len(run.digits) == 5 or run.is_zip_plus_four]
    contact = _first([*emails, *phones])
    postal = _first([*postcodes, *zips])
    name = find_name(
        mask(without_codes, [run.span for run in runs]),
        with_other_details=contact is not None or postal is not None,
    )
    return IdentityDetails(
        full_name=name.text if name else None,
        postal_code=postal.text if postal else None,
        phone_or_email=contact.text if contact else None,
    )


def identity_details(lines: Iterable[str]) -> IdentityDetails:
    """The details across several lines, later lines correcting earlier ones."""
    details = IdentityDetails()
    for line in lines:
        details = details.updated_by(details_in(line))
    return details


def missing_details_prompt(details: IdentityDetails) -> str:
    """Asks for exactly what is still missing."""
    if details.empty:
        return IDENTITY_QUESTION
    missing = []
    if not details.full_name:
        missing.append("your full name")
    if not details.postal_code:
        missing.append("the postal code")
    if not details.phone_or_email:
        missing.append("the phone number or email")
    wanted = " and ".join(missing)
    on_account = "" if details.postal_code and details.phone_or_email else " on the account"
    return f"Thanks. I still need {wanted}{on_account}."
