"""The identity hold: when near misses over many calls stop an account from being
verified by phone, and the one way past it.

A near miss is a failed check with two of the account's three details right (the store
counts them, `customer_service.store.identity_failures`). Near misses that include the
phone number or email address hold the account at `identity_account_max_failures`
(5); those made of the name and postal code alone, the two details printed on every
parcel label, hold it only at `LABEL_ONLY_HOLD_MULTIPLE` times that, counting near
misses of every kind. While held, every check that comes close to the account reads
and counts exactly like a mismatch, the right details included, except for a caller
whose line reports the phone number on file (`CallerLine`, never a number the caller
says) and who gives every detail right. That exemption closes past a hard cap,
`LINE_EXEMPTION_CAP_MULTIPLE` times the limit, counting near misses of every kind, so
that a spoofed calling number cannot be used to guess without end. A hold ends when its
near misses age out of `identity_account_window_h`, or when an operator releases it.
"""

from __future__ import annotations

import datetime as dt
import enum

from customer_service.call.state import CallerLine, CallState
from customer_service.normalize import emails_match, names_match, phones_match, postal_codes_match
from customer_service.settings import Settings
from customer_service.store import IdentityCandidate

__all__ = [
    "LABEL_ONLY_HOLD_MULTIPLE",
    "LINE_EXEMPTION_CAP_MULTIPLE",
    "LINE_HOLD_MULTIPLE",
    "Hold",
    "hold_on",
    "label_only_hold_limit",
    "line_exemption_cap",
    "line_hold_limit",
    "matching_candidate",
]

LABEL_ONLY_HOLD_MULTIPLE = 3
"""Near misses of the name and postal code alone hold an account at three times the
limit for near misses that include the phone or email. Anyone holding a parcel has
those two details, so at the same limit a stranger could hold the owner out in two
calls; three times is still a bounded number of guesses at the third detail a day,
and a customer who misremembers which email is on file is not held by it."""

LINE_EXEMPTION_CAP_MULTIPLE = 6
"""Past this many times the limit, near misses of every kind counted, the calling
number no longer lets the owner through a hold. A calling number can be spoofed: each
call from a different number is one more guess at the phone on file, and this caps them
within the window. It is twice the label-only limit, so a stranger with a parcel label
who holds the account must keep guessing for as long again to shut the owner's line."""


LINE_HOLD_MULTIPLE = 2
"""Failed checks from one calling line within the window, at this many times the limit,
hold the line (`customer_service.call.identity_policy.line_is_held`), whatever they
guessed: guesses that come close to no account (an email that is nobody's) count
against no account, and the call's own limit alone would let a guesser call again and
again. Twice the limit is more than three calls' worth, so a customer who misremembers
their details over a call or two is not held by it."""


class Hold(enum.StrEnum):
    NONE = "none"
    """Not held: the right details verify."""
    HELD = "held"
    """Every check that comes close reads and counts as a mismatch, right or wrong."""
    PASSED_BY_LINE = "passed_by_line"
    """Held, but the caller's line reports the phone on file and the cap is not reached:
    the right details verify."""


def label_only_hold_limit(settings: Settings) -> int:
    """Near misses of every kind that hold an account."""
    return settings.identity_account_max_failures * LABEL_ONLY_HOLD_MULTIPLE


def line_hold_limit(settings: Settings) -> int:
    """Failed checks from one calling line that hold it."""
    return settings.identity_account_max_failures * LINE_HOLD_MULTIPLE


def line_exemption_cap(settings: Settings) -> int:
    """Near misses of every kind past which the calling number no longer passes a hold."""
    return settings.identity_account_max_failures * LINE_EXEMPTION_CAP_MULTIPLE


def hold_on(candidate: IdentityCandidate, settings: Settings, line: CallerLine) -> Hold:
    """The hold as it applies to a caller on `line` who gave every detail of the
    candidate's account right. Successes never reset the counts: near misses only age
    out (or an operator releases them), so a right guess among many wipes nothing."""
    held = (
        candidate.recent_with_contact >= settings.identity_account_max_failures
        or candidate.recent_failures >= label_only_hold_limit(settings)
    )
    if not held:
        return Hold.NONE
    customer = candidate.customer
    on_file_line = (
        line.is_phone
        and line.caller_number is not None
        and phones_match(line.caller_number, customer.phone, customer.country)
    )
    if on_file_line and candidate.recent_failures < line_exemption_cap(settings):
        return Hold.PASSED_BY_LINE
    return Hold.HELD


async def matching_candidate(
    state: CallState, full_name: str, postal_code: str, phone_or_email: str
) -> IdentityCandidate | None:
    """The customer whose name, postal code and phone or email all match, if any, with
    the failed checks counted against it within the window, read together."""
    settings = state.settings
    since = state.clock.now() - dt.timedelta(hours=settings.identity_account_window_h)
    for candidate in await state.store.identity_candidates(postal_code, since):
        customer = candidate.customer
        if (
            names_match(full_name, customer.full_name)
            and postal_codes_match(postal_code, customer.postal_code, customer.country)
            and (
                emails_match(phone_or_email, customer.email)
                or phones_match(phone_or_email, customer.phone, customer.country)
            )
        ):
            return candidate
    return None
