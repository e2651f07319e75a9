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
hold it); one that gave an account's name with a postal code, wrong or right, counts
against it as one of the name and postal code alone (three times that hold it). An
email address that is nobody's, or a name without a postal code, counts against no
account: only against the call's own attempts (`identity_max_attempts`). The hold, its
one way past for the owner's own line, and the one answer to every miss are the same
under both policies (`customer_service.call.identity_hold`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from textwrap import dedent

from livekit.agents.llm import ChatContext

from customer_service.call.fixed_sentences import fixed
from customer_service.call.heard import caller_messages
from customer_service.call.identity_hold import matching_candidate
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN, PERSONA
from customer_service.domain import Customer
from customer_service.normalize import emails_match, holds_contact_detail, names_match
from customer_service.settings import IdentityPolicy
from customer_service.store import AuditEvent, IdentityCandidate

__all__ = [
    "DETAILS_TOO_LONG_EMAIL_OR_NAME_ZIP",
    "EMAIL_OR_NAME_ZIP_INSTRUCTIONS",
    "MISSING_EMAIL_OR_NAME_ZIP",
    "NO_DETAILS_WAY_OUT",
    "OPENING_QUESTION_EMAIL_OR_NAME_ZIP",
    "GivenDetails",
    "count_failed_check",
    "matching_account",
    "offers_contact_detail",
    "verified_by",
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


async def matching_account(state: CallState, given: GivenDetails) -> IdentityCandidate | None:
    """The account the details verify under the call's policy, if any, with the near
    misses counted against it within the window."""
    if state.settings.identity_policy is IdentityPolicy.NAME_ZIP_AND_CONTACT:
        return await matching_candidate(state, *given.values())
    postal_code = given.postal_code.strip()
    if given.contact.strip():
        customer_id = await state.store.customer_id_by_email(given.contact)
        customer = None if customer_id is None else await state.store.get_customer(customer_id)
        if customer is None:
            return None
        postal_code = postal_code or customer.postal_code
    since = state.clock.now() - dt.timedelta(hours=state.settings.identity_account_window_h)
    # Filed under the postal code said, or the email's owner's: a postal code given with
    # the email must be that account's too.
    matches = [
        candidate
        for candidate in await state.store.identity_candidates(postal_code, since)
        if (not given.contact.strip() or emails_match(given.contact, candidate.customer.email))
        and (
            not given.full_name.strip()
            or names_match(given.full_name, candidate.customer.full_name)
        )
    ]
    return matches[0] if len(matches) == 1 else None


async def count_failed_check(
    state: CallState, given: GivenDetails, events: Sequence[AuditEvent]
) -> list[str]:
    """Stores `events` with the failed check counted against every account it came
    close to under the call's policy, in one transaction; the ids counted against."""
    if state.settings.identity_policy is IdentityPolicy.NAME_ZIP_AND_CONTACT:
        return await state.store.record_failed_identity_check(
            *given.values(), state.call_id, events
        )
    return await state.store.record_failed_email_or_name_zip_check(
        given.contact, given.full_name, given.postal_code, state.call_id, events
    )


def verified_by(given: GivenDetails, customer: Customer, policy: IdentityPolicy) -> str:
    """What verified the caller, for the audit trail and a colleague's brief: "email" or
    "phone" with the name and postal code; "email_alone" or "name_and_postal_code"."""
    if policy is IdentityPolicy.EMAIL_OR_NAME_ZIP:
        return "email_alone" if given.contact.strip() else "name_and_postal_code"
    return "email" if emails_match(given.contact, customer.email) else "phone"


def offers_contact_detail(history: ChatContext, *, latest: bool = False) -> bool:
    """Whether the caller's words in `history` (`latest`: their last message only) hold
    something shaped like an email or a phone number: they are giving their details.
    (A name alone cannot be told apart from other words here.)"""
    messages = caller_messages(history)
    said = messages[-1:] if latest else messages
    return any(holds_contact_detail(message.text_content or "") for message in said)
