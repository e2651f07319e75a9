"""One identity check, whoever read the details: the identity specialist's model (its
`check_identity` tool) or code, from the caller's own words (`call.identity_from_words`).

The same limits, the same counting per call and per account, and the same words for
every miss: a wrong detail, an account nobody has, and the right details on a held
account all read, count and are recorded alike, so nothing tells a guesser which of
their guesses was right.
"""

from __future__ import annotations

import enum

from customer_service.call import audit
from customer_service.call.identity_hold import Hold, hold_on
from customer_service.call.identity_policy import (
    GivenDetails,
    count_failed_check,
    matching_account,
    verified_by,
)
from customer_service.call.state import CallState
from customer_service.domain import Customer
from customer_service.privacy import mask_name
from customer_service.store import AuditEvent

MAX_DETAIL_LENGTH = 200
"""Longest name, postal code, phone or email accepted; longer is refused before it
reaches the store, the audit log or a log line."""


class Refused(enum.Enum):
    MISMATCH = "mismatch"
    """Counted; the caller may try again (`mismatch_message`)."""
    LOCKED = "locked"
    """Too many failed checks: verification is closed for the rest of the call."""


def mismatch_message(attempts_left: int) -> str:
    # One wording for every wrong factor, for unknown accounts and for every check that
    # comes close to a held account, right or wrong, so a caller cannot probe which
    # detail was wrong, whether an account exists, or whether it is held; true in each.
    attempt_word = "attempt" if attempts_left == 1 else "attempts"
    return (
        "I'm sorry, I can't verify you with those details. Please check them and tell me "
        f"again. You have {attempts_left} {attempt_word} left."
    )


async def check_under_lock(
    state: CallState, given: GivenDetails, *, calling_number: bool = False
) -> Customer | Refused:
    """Checks `given` against the store under the call's policy: the caller verified and
    recorded, or the refusal, counted. Call it holding `state.identity.checking`, having
    decided there that a check is still wanted: the outcome of every earlier check is
    known then, however many arrive at once."""
    assert state.identity.checking.locked(), "an identity check runs under the call's lock"
    if state.identity.locked:
        return Refused.LOCKED
    candidate = await matching_account(state, given)
    hold = None if candidate is None else hold_on(candidate, state.settings, state.line)
    if candidate is None or hold is Hold.HELD:
        return await _failed(state, given)
    customer = candidate.customer
    policy = state.settings.identity_policy
    by = "calling_number" if calling_number else verified_by(given, customer, policy)
    # Recorded first: a verification that cannot be recorded does not happen. A hold
    # passed is named, for the operator who later reads why it let them in.
    passed = {"passed_hold": "line_is_phone_on_file"} if hold is Hold.PASSED_BY_LINE else {}
    await audit.record(
        state, "identity_verified", customer_id=customer.customer_id, by=by, **passed
    )
    state.mark_verified(customer)
    return customer


async def _failed(state: CallState, given: GivenDetails) -> Refused:
    state.record_failed_identity_check()
    failed = audit.note(
        state,
        "identity_failed",
        attempts_left=state.identity_attempts_left,
        name_given=mask_name(given.full_name),
    )

    async def count_against_near_misses(events: list[AuditEvent]) -> list[str]:
        # Against the accounts the policy says it came close to: guesses at one account
        # add up across calls whichever detail is wrong, while one known detail counts
        # against nobody. The right details on a held account count too
        # (`customer_service.call.identity_policy`).
        return await count_failed_check(state, given, events)

    await audit.store_with(state, [failed], count_against_near_misses)
    return Refused.LOCKED if state.identity.locked else Refused.MISMATCH
