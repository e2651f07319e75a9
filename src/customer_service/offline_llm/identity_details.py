"""Gathering the identity details from what the caller said: the three the default
policy checks, or the email alone, or the name and postal code (email-or-name-zip)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from customer_service.call.identity_policy import given_as_new
from customer_service.normalize import holds_contact_detail, normalize_email
from customer_service.offline_llm.conversation import Conversation
from customer_service.offline_llm.fields import (
    NumberRun,
    Span,
    find_alphanumeric_postcodes,
    find_emails,
    find_name,
    find_number_runs,
    join_spelled_letters,
    mask,
    spelled_words,
    split_number_run,
    word_before_spoken_email,
)
from customer_service.offline_llm.speech import CORRECTION

__all__ = [
    "EMAIL_OR_NAME_ZIP_QUESTION",
    "IDENTITY_QUESTION",
    "IdentityDetails",
    "details_to_check",
    "email_or_name_zip_arguments",
    "email_or_name_zip_prompt",
    "gives_identity_details",
    "identity_details",
    "missing_details_prompt",
]

SPELL_EMAIL = "Could you spell the email address?"
IDENTITY_QUESTION = (
    "To verify your identity, please tell me your full name, the postal code, "
    "and the phone number or email on the account."
)
EMAIL_OR_NAME_ZIP_QUESTION = (
    "To verify your identity, please tell me the email address on the account, or your "
    "full name and zip code."
)


@dataclass(frozen=True)
class IdentityDetails:
    """The caller's own words for each detail, or None when not said yet."""

    full_name: str | None = None
    postal_code: str | None = None
    phone_or_email: str | None = None
    name_word: str | None = None
    """One word of the name said again on its own ("it's Jordan with an a"): it
    replaces the word of the name given earlier that it corrects."""
    email_unclear: bool = False
    """An email said with a space in its name part ("jordan lee at example dot com"),
    not taken: it is asked for spelled."""

    def updated_by(self, newer: IdentityDetails) -> IdentityDetails:
        """These details with whatever `newer` says instead (a correction wins)."""
        full_name = newer.full_name or self.full_name
        name_word = newer.name_word
        if name_word and full_name:
            full_name, name_word = _with_word_corrected(full_name, name_word), None
        return replace(
            self,
            full_name=full_name,
            name_word=name_word,
            postal_code=newer.postal_code or self.postal_code,
            phone_or_email=newer.phone_or_email or self.phone_or_email,
            email_unclear=newer.email_unclear or (self.email_unclear and not newer.phone_or_email),
        )

    @property
    def complete(self) -> bool:
        return bool(self.full_name and self.postal_code and self.phone_or_email)

    @property
    def empty(self) -> bool:
        return not (
            self.full_name
            or self.postal_code
            or self.phone_or_email
            or self.name_word
            or self.email_unclear
        )


def _with_word_corrected(full_name: str, word: str) -> str:
    """`full_name` with the word most like `word` replaced by it ("Jordon Lee" and
    "Jordan" give "Jordan Lee"); unchanged when no word is close."""
    words = full_name.split()
    scores = [difflib.SequenceMatcher(None, w.casefold(), word.casefold()).ratio() for w in words]
    best = max(range(len(words)), key=scores.__getitem__)
    same_start = words[best][:1].casefold() == word[:1].casefold()
    if scores[best] < (0.5 if same_start else 0.6):
        return full_name
    words[best] = word
    return " ".join(words)


def _first(spans: Iterable[Span]) -> Span | None:
    return min(spans, key=lambda span: span.start, default=None)


_SPELLING_NOTE = re.compile(
    r"(?P<word>[^\W\d_]+)\s+with\s+(?:an?|two|double)\s+[^\W\d_]\b(?:\s*,?\s*not\s+(?:an?\s+)?[^\W\d_]\b)?",
    re.IGNORECASE,
)


def _with_paused_phone_groups(text: str, runs: list[NumberRun]) -> list[NumberRun]:
    """`runs` with a phone number said in short groups with pauses between them ("four
    one five, five five five, zero one three four") as one run."""
    merged: list[NumberRun] = []
    group: list[NumberRun] = []

    def close_group() -> None:
        total = "".join(run.digits for run in group)
        if len(group) > 1 and 9 <= len(total) <= 12:
            start, end = group[0].span.start, group[-1].span.end
            merged.append(NumberRun(Span(start, end, text[start:end]), total))
        else:
            merged.extend(group)
        group.clear()

    for run in runs:
        short = len(run.digits) <= 4
        paused = group and re.fullmatch(r"\s*,\s*", text[group[-1].span.end : run.span.start])
        if not (short and (paused or not group)):
            close_group()
        if short:
            group.append(run)
        else:
            merged.append(run)
    close_group()
    return merged


def _zips_and_phones(text: str, runs: list[NumberRun]) -> tuple[list[Span], list[Span]]:
    zips: list[Span] = []
    phones: list[Span] = []
    for run in _with_paused_phone_groups(text, runs):
        if len(run.digits) == 5 or run.is_zip_plus_four:
            zips.append(run.span)
        elif len(run.digits) >= 14 and not run.span.text.lstrip().startswith(("+", "plus")):
            # A ZIP code and a phone number said without a pause between them.
            if (parts := split_number_run(text, run, 5)) is not None:
                zips.append(parts[0].span)
                phones.append(parts[1].span)
            elif (parts := split_number_run(text, run, len(run.digits) - 5)) is not None:
                phones.append(parts[0].span)
                zips.append(parts[1].span)
        elif len(run.digits) >= 9:
            phones.append(run.span)
    return zips, phones


def _details_in_part(part: str) -> IdentityDetails:
    emails: list[Span] = []
    unclear: list[Span] = []
    new_values: list[Span] = []
    for email in find_emails(part):
        if given_as_new(part[: email.start]):
            # "Change my email to ...": what is to become theirs, not the account's.
            new_values.append(email)
        elif (word := word_before_spoken_email(part, email)) is None:
            emails.append(email)
        else:
            unclear.append(Span(word.start, email.end, part[word.start : email.end]))
    without_emails = mask(part, [*emails, *unclear, *new_values])
    postcodes = find_alphanumeric_postcodes(without_emails)
    without_codes = mask(without_emails, postcodes)
    runs = find_number_runs(without_codes)
    zips, phones = _zips_and_phones(without_codes, runs)
    phones = [phone for phone in phones if not given_as_new(part[: phone.start])]
    contact = _first([*emails, *phones])
    postal = _first([*postcodes, *zips])
    masked = mask(without_codes, [run.span for run in runs])
    words = join_spelled_letters(masked)
    note = _SPELLING_NOTE.search(words)
    name = find_name(
        mask(words, [Span(note.start(), note.end(), note.group())]) if note else words,
        with_other_details=contact is not None or postal is not None,
    )
    full_name = name.text if name else None
    name_word = note.group("word") if note else None
    if full_name is None and name_word is None and len(spelled := spelled_words(masked)) == 1:
        # Spelled without a pause ("j o r d a n l e e, 94107, ...") a whole name is one
        # word; a word spelled on its own ("it's j o r d a n") corrects the name given.
        if contact is not None or postal is not None:
            full_name = spelled[0]
        else:
            name_word = spelled[0]
    return IdentityDetails(
        full_name=full_name,
        postal_code=postal.text if postal else None,
        phone_or_email=contact.text if contact else None,
        name_word=name_word,
        email_unclear=bool(unclear) and contact is None,
    )


def details_in(line: str) -> IdentityDetails:
    """The details said in one line of the caller's speech; after "no wait, I mean" or
    "sorry" inside the line, what follows replaces what came before."""
    details = IdentityDetails()
    for part in CORRECTION.split(line):
        details = details.updated_by(_details_in_part(part))
    return details


def gives_identity_details(line: str) -> bool:
    """Whether the line gives identity details: an email address or phone number, or a
    full name with a postal code ("Sofia Ito, 19169"), what either policy starts from."""
    if holds_contact_detail(line):
        return True
    details = details_in(line)
    return bool(details.full_name and details.postal_code)


def identity_details(lines: Iterable[str]) -> IdentityDetails:
    """The details across several lines, later lines correcting earlier ones."""
    details = IdentityDetails()
    for line in lines:
        details = details.updated_by(details_in(line))
    return details


def details_to_check(conversation: Conversation) -> tuple[IdentityDetails, bool]:
    """The details for the next check, and whether the caller said any since the last
    one. After a failed check, what the caller says next corrects the details checked,
    so "sorry, the zip is 94107" alone is checked with the name and phone given before."""
    since_check = identity_details(conversation.caller_lines(after_call_to="check_identity"))
    checked = conversation.last_arguments("check_identity")
    if checked is None:
        return since_check, not since_check.empty
    before = IdentityDetails(
        full_name=_text(checked.get("full_name")),
        postal_code=_text(checked.get("postal_code")),
        phone_or_email=_text(checked.get("phone_or_email")) or _text(checked.get("email")),
    )
    corrected = before.updated_by(since_check)
    # A part said again unchanged ("it's Lee" after "Jordan Lee") would only fail the
    # same way: no new check. Said again whole, the caller asked for one.
    changed = since_check.complete or corrected != before
    return corrected, not since_check.empty and changed


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def missing_details_prompt(details: IdentityDetails) -> str:
    """Asks for exactly what is still missing."""
    if details.empty:
        return IDENTITY_QUESTION
    spell_email = details.email_unclear and not details.phone_or_email
    missing = []
    if not details.full_name:
        missing.append("your full name")
    if not details.postal_code:
        missing.append("the postal code")
    if not details.phone_or_email and not spell_email:
        missing.append("the phone number or email")
    if not missing:
        return f"Thanks. {SPELL_EMAIL}"
    wanted = " and ".join(missing)
    on_account = "" if details.postal_code and details.phone_or_email else " on the account"
    if spell_email:
        return f"Thanks. I still need {wanted}{on_account}. Could you also spell the email address?"
    return f"Thanks. I still need {wanted}{on_account}."


def _email(details: IdentityDetails) -> str | None:
    contact = details.phone_or_email
    return contact if contact is not None and normalize_email(contact) is not None else None


def email_or_name_zip_arguments(details: IdentityDetails) -> dict[str, str] | None:
    """`check_identity`'s arguments under email-or-name-zip once the caller gave the
    email or the name and postal code (with whatever else of the two they said), or
    None while neither is complete. A phone number is not one of them."""
    email = _email(details)
    if email is None and not (details.full_name and details.postal_code):
        return None
    given = {"email": email, "full_name": details.full_name, "postal_code": details.postal_code}
    return {name: value for name, value in given.items() if value}


def email_or_name_zip_prompt(details: IdentityDetails) -> str:
    """Asks, under email-or-name-zip, for what would complete one of the two ways."""
    if details.email_unclear and _email(details) is None:
        return f"Thanks. {SPELL_EMAIL}"
    if details.full_name and not details.postal_code:
        return "Thanks. I still need the zip code on the account, or the email address."
    if details.postal_code and not details.full_name:
        return "Thanks. I still need your full name, or the email address on the account."
    return EMAIL_OR_NAME_ZIP_QUESTION
