"""What verifies a caller under each `IDENTITY_POLICY`: which details a check needs,
which account they find, and whom a failed check counts against.

`name-zip-and-contact` (the default): the full name, the postal code, and the phone
number or email address on the account, all three right
(`customer_service.call.identity_hold.matching_candidate`); a failed check counts
against every account two of the three match.

`email-or-name-zip` (τ²-bench's rule): the email address on the account alone, or the
full name and postal code together. Every detail the caller gives must be that one
account's: an email address with a name that is not its owner's verifies nobody, and
so does a name and postal code that two accounts share (the email tells them apart).
The guarantee is weaker: one detail that others may know (an email address on a
receipt; a name and postal code on a parcel label) verifies the caller.

A near miss under `email-or-name-zip` (counted by the store,
`record_failed_email_or_name_zip_check`): a failed check that gave an account's email
address counts against it as one with the contact (`identity_account_max_failures`
hold it); one that gave an account's name with that account's postal code counts
against it as one of the name and postal code alone (three times that hold it). An
email address that is nobody's, a postal code, or a name (alone, or with a postal code
not its account's) counts against no account: a name is public, and would otherwise
let a stranger hold every namesake. The hold, its one way past for the owner's own
line, and the one answer to every miss are the same under both policies
(`customer_service.call.identity_hold`).

Under both, every failed check from a phone line that presented a number also counts
against that line across calls (`line_is_held`): a guesser whose guesses come close to
no account, calling again and again, is held after `line_hold_limit` of them, and hears
what any mismatch hears, while the owner, calling from elsewhere, is not held by them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from textwrap import dedent
from typing import Any

from livekit.agents import RunContext, function_tool
from livekit.agents.llm import ChatContext, FunctionTool

from customer_service.call.fixed_sentences import fixed
from customer_service.call.heard import caller_messages
from customer_service.call.identity_hold import line_hold_limit, matching_candidate
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN, PERSONA
from customer_service.domain import Customer
from customer_service.normalize import (
    contact_details,
    digits_from_speech,
    emails_match,
    names_match,
    postal_codes_match,
)
from customer_service.order_numbers import order_number_in
from customer_service.settings import IdentityPolicy
from customer_service.store import AuditEvent, IdentityCandidate
from customer_service.store.line_failures import line_key

__all__ = [
    "DETAILS_TOO_LONG_EMAIL_OR_NAME_ZIP",
    "EMAIL_OR_NAME_ZIP_INSTRUCTIONS",
    "MISSING_EMAIL_OR_NAME_ZIP",
    "NO_DETAILS_WAY_OUT",
    "OPENING_QUESTION_EMAIL_OR_NAME_ZIP",
    "GivenDetails",
    "contacts_given",
    "count_failed_check",
    "given_as_new",
    "line_is_held",
    "matching_account",
    "offers_contact_detail",
    "offers_details_for",
    "verified_by",
    "without_new_values",
]

NO_DETAILS_WAY_OUT = fixed(
    "I can't go on with your account without verifying you. We can end the call here, or "
    f"{OFFER_HUMAN}"
)
"""Said under either policy instead of a third demand for the details to a caller who
gives none: the way out, a colleague or the end of the call (it ends with `OFFER_HUMAN`)."""

# What the identity specialist (`customer_service.specialists.identity`) says and is told
# under email-or-name-zip; its own constants are the default policy's.
OPENING_QUESTION_EMAIL_OR_NAME_ZIP = fixed(
    "Before I can help with that, I need to verify your identity. Please tell me the "
    "email address on your account, or your full name and zip code."
)
"""The opening under `IDENTITY_POLICY=email-or-name-zip`, on every line."""
EMAIL_OR_NAME_ZIP_INSTRUCTIONS = PERSONA + dedent(
    f"""
    Your only job now is to verify the caller's identity. You need either the email
    address on the account, or their full name and the zip or postal code on the account.
    Use what the caller has already said in this conversation and ask only for what is
    still missing. As soon as you have the email, or the name and zip code, call
    check_identity with what they gave, exactly as they said it, without asking again.
    If the check fails, say what the tool says; when the caller corrects a detail or
    offers the other way, check again. If the caller cannot or will not give them, call
    give_up; if they neither give them nor say so after you asked twice, do not ask a
    third time: say "{NO_DETAILS_WAY_OUT}" Never guess a value, never say which detail
    was wrong, and never talk about orders here.
    """
)
MISSING_EMAIL_OR_NAME_ZIP = fixed(
    "To verify you I need the email address on your account, or your full name and zip "
    "code together."
)
DETAILS_TOO_LONG_EMAIL_OR_NAME_ZIP = (
    "That's more than I can take for one detail. Please tell me just the email address "
    "on your account, or your full name and zip code."
)


@dataclass(frozen=True)
class GivenDetails:
    """One check's details, as the caller said them; empty when not given."""

    full_name: str = ""
    postal_code: str = ""
    contact: str = ""
    """The phone number or email address (`name-zip-and-contact`); the email address
    (`email-or-name-zip`)."""

    def values(self) -> tuple[str, str, str]:
        return (self.full_name, self.postal_code, self.contact)

    def enough_for(self, policy: IdentityPolicy) -> bool:
        """Whether they are what the policy checks: a check of less is not counted."""
        name, postal_code, contact = (bool(detail.strip()) for detail in self.values())
        if policy is IdentityPolicy.EMAIL_OR_NAME_ZIP:
            return contact or (name and postal_code)
        return name and postal_code and contact


CheckTool = FunctionTool[..., Coroutine[Any, Any, None]]


def check_tool(
    policy: IdentityPolicy,
    check: Callable[[RunContext[CallState], GivenDetails], Awaitable[None]],
) -> CheckTool:
    """`check_identity`, offered with the details the policy checks and handing them to
    the identity specialist's `check` as one `GivenDetails`."""
    if policy is IdentityPolicy.EMAIL_OR_NAME_ZIP:

        @function_tool(name="check_identity")
        async def check_email_or_name_zip(
            context: RunContext[CallState],
            email: str = "",
            full_name: str = "",
            postal_code: str = "",
        ) -> None:
            """Check the caller against the account. Call once you have the email
            address, or the full name and postal code.

            Args:
                email: The email address on the account, as they said it; empty if
                    they gave their name and postal code instead.
                full_name: The caller's first and last name, as they said it.
                postal_code: The postal or ZIP code on the account, as they said it.
            """
            await check(context, GivenDetails(full_name, postal_code, email))

        return check_email_or_name_zip

    @function_tool(name="check_identity")
    async def check_identity(
        context: RunContext[CallState], full_name: str, postal_code: str, phone_or_email: str
    ) -> None:
        """Check the caller's details against the account. Call once you have all three.

        Args:
            full_name: The caller's first and last name, as they said it.
            postal_code: The postal or ZIP code on the account, as they said it.
            phone_or_email: The phone number or email address on the account, as they
                said it.
        """
        await check(context, GivenDetails(full_name, postal_code, phone_or_email))

    return check_identity


async def matching_account(state: CallState, given: GivenDetails) -> IdentityCandidate | None:
    """The account the details verify under the call's policy, if any, with the near
    misses counted against it within the window. An email is looked up in one read,
    the same whether it is someone's or not: the time a check takes tells nothing."""
    if state.settings.identity_policy is IdentityPolicy.NAME_ZIP_AND_CONTACT:
        return await matching_candidate(state, *given.values())
    name, postal_code, email = (detail.strip() for detail in given.values())
    since = _window_start(state)
    if email:
        found = await state.store.identity_candidates_by_email(email, since)
    else:
        found = await state.store.identity_candidates(postal_code, since)
    # Every detail given must be the one account's: a postal code said with the email
    # too, and a name with either.
    matches = [
        candidate
        for candidate in found
        if (not email or emails_match(email, candidate.customer.email))
        and (
            not postal_code
            or postal_codes_match(
                postal_code, candidate.customer.postal_code, candidate.customer.country
            )
        )
        and (not name or names_match(name, candidate.customer.full_name))
    ]
    return matches[0] if len(matches) == 1 else None


def _window_start(state: CallState) -> dt.datetime:
    return state.clock.now() - dt.timedelta(hours=state.settings.identity_account_window_h)


def _line(state: CallState) -> str | None:
    """The key the caller's line's failed checks count under: a phone line that presented
    a number, only (a browser or a chat has no line to bound)."""
    line = state.line
    if not line.is_phone or line.caller_number is None:
        return None
    return line_key(line.caller_number, state.settings.caller_line_secret.get_secret_value())


async def line_is_held(state: CallState) -> bool:
    """Whether the caller's line has failed `line_hold_limit` checks within the window:
    then no check from it verifies, and each reads and counts as any mismatch."""
    line = _line(state)
    if line is None:
        return False
    failed = await state.store.line_failures_since(line, _window_start(state))
    return failed >= line_hold_limit(state.settings)


async def count_failed_check(
    state: CallState, given: GivenDetails, events: Sequence[AuditEvent]
) -> list[str]:
    """Stores `events` with the failed check counted against every account it came
    close to under the call's policy and against the caller's line, in one
    transaction; the ids counted against."""
    line = _line(state)
    if state.settings.identity_policy is IdentityPolicy.NAME_ZIP_AND_CONTACT:
        return await state.store.record_failed_identity_check(
            *given.values(), state.call_id, events, line=line
        )
    return await state.store.record_failed_email_or_name_zip_check(
        given.contact, given.full_name, given.postal_code, state.call_id, events, line=line
    )


def verified_by(given: GivenDetails, customer: Customer, policy: IdentityPolicy) -> str:
    """What verified the caller, for the audit trail and a colleague's brief: "email" or
    "phone" with the name and postal code; "email_alone" or "name_and_postal_code"."""
    if policy is IdentityPolicy.EMAIL_OR_NAME_ZIP:
        return "email_alone" if given.contact.strip() else "name_and_postal_code"
    return "email" if emails_match(given.contact, customer.email) else "phone"


def offers_contact_detail(history: ChatContext, *, latest: bool = False) -> bool:
    """Whether the caller's words in `history` (`latest`: their last message only) hold
    something shaped like an email or a phone number, not said as a new value: they are
    giving their details. (A name alone cannot be told apart from other words here.)"""
    messages = caller_messages(history)
    said = messages[-1:] if latest else messages
    return any(
        not said_as_new
        for message in said
        for _, said_as_new in _contact_details(message.text_content or "")
    )


_NAME_AND_POSTAL_CODE = re.compile(r"(?:[^\W\d_]+[\s,.-]+){2,5}\d{4,6}[.!]?")
"""A line of a few words then a number of a postal code's length and nothing else: "Sofia
Ito, 19169", "Ivan Rossi zip 10056"."""


def offers_details_for(policy: IdentityPolicy, history: ChatContext) -> bool:
    """Whether the caller's words in `history` hold details the policy checks: an email
    address or phone number (`offers_contact_detail`), or, under `email-or-name-zip`, a
    line that is a name and a postal code alone (no order number)."""
    if offers_contact_detail(history):
        return True
    return policy is IdentityPolicy.EMAIL_OR_NAME_ZIP and any(
        _NAME_AND_POSTAL_CODE.fullmatch(said) is not None and order_number_in(said) is None
        for said in ((m.text_content or "").strip() for m in caller_messages(history))
    )


_NEW_VALUE_CUE = re.compile(
    r"(?:\bnew\b(?:\s+[\w-]+){0,3}"
    r"|\b(?:change|changed|changing|update|updated|updating|switch|replace)\b"
    r"[^.!?]{0,60}?\b(?:to|with|into|for))\s*(?:is|:|,)?\s*$",
    re.IGNORECASE,
)
"""The words before a value the caller gives as the new one: "change my email to ...",
"my new number is ..."."""


def _contact_details(text: str) -> list[tuple[str, bool]]:
    """Each email address or phone number in `text`, and whether it was said as a new
    value."""
    return [(detail, given_as_new(text[:start])) for start, detail in contact_details(text)]


def contacts_given(text: str) -> list[tuple[int, str]]:
    """Each email address and phone number in `text` given as the caller's own, not as
    the new value of a request, with where it starts."""
    return [
        (start, detail) for start, detail in contact_details(text) if not given_as_new(text[:start])
    ]


def given_as_new(before: str) -> bool:
    """Whether a value said after `before` (the caller's words before it) is given as
    the new value of a request: "please change my email to", "my new number is"."""
    clause = re.split(r"[.!?;]\s", before)[-1]
    return _NEW_VALUE_CUE.search(clause) is not None


def _said_as_new(history: ChatContext) -> list[str]:
    """The email addresses and phone numbers the caller said as a new value."""
    return [
        detail
        for message in caller_messages(history)
        for detail, said_as_new in _contact_details(message.text_content or "")
        if said_as_new
    ]


def _same_contact(given: str, said: str) -> bool:
    if emails_match(given, said):
        return True
    digits, said_digits = digits_from_speech(given), digits_from_speech(said)
    return len(digits) >= 7 and digits[-7:] == said_digits[-7:]


def without_new_values(given: GivenDetails, history: ChatContext) -> GivenDetails:
    """`given` without its phone number or email address when the caller said it as the
    new value of a request ("please change my email to ..."): what is to become theirs
    is no detail of the account as it is, and checked it would fail, counted against the
    account whose name and postal code came with it."""
    contact = given.contact.strip()
    if contact and any(_same_contact(contact, said) for said in _said_as_new(history)):
        return replace(given, contact="")
    return given
