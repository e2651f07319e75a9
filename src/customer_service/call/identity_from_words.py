"""A caller verified from their own words, when they give their details with their request.

"This is Jordan Lee, 94107, jordan.lee@example.com. Where is order 100101?" holds
everything the default policy checks. Code reads it there and then, as the order lookup
reads an order number the caller said, so neither the identity specialist's turn nor a
model request stands between the caller's words and the answer.

Code only finds which of the caller's words are the details: the email address they
said, and the name and postal code on that email's account, each said as whole words.
The check is the identity specialist's own (`matching_account`, then `hold_on`), under
the same lock. Anything short of a clean pass leaves the caller to the identity
specialist, which checks and counts as it always does: a detail missing or said in a
shape read here only by the model (spelled out, digit by digit, a phone number), an
account on hold, a check that failed earlier in the call, or another `IDENTITY_POLICY`.
This path never counts, records or says a failure, so it tells a guesser nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from livekit.agents.llm import ChatContext

from customer_service.call.heard import caller_messages
from customer_service.call.identity_hold import Hold, hold_on
from customer_service.call.identity_policy import (
    GivenDetails,
    matching_account,
    record_verification,
    verified_by,
)
from customer_service.call.state import CallState
from customer_service.domain import Customer
from customer_service.normalize import emails_in, name_key, normalize_postal_code
from customer_service.settings import IdentityPolicy

EMAILS_TRIED = 2
"""Email addresses looked up from one request: a caller gives one; a sentence of them
costs no more than two reads."""
POSTAL_CODE_WORDS = 2
"""Most words a postal code is said in ("SW1A 1AA"); one said digit by digit is left to
the model, so the digits of a phone number never pass for one."""
_NOT_CODE = re.compile(r"[\W_]")


async def verified_from_words(state: CallState, history: ChatContext) -> Customer | None:
    """The caller, verified and recorded, when their words in `history` hold the name,
    postal code and email address of one account and it passes the identity check;
    otherwise None, with nothing counted, recorded or said."""
    policy = state.settings.identity_policy
    if policy is not IdentityPolicy.NAME_ZIP_AND_CONTACT:
        return None
    words = " ".join(message.text_content or "" for message in caller_messages(history))
    async with state.identity.checking:
        # Decided under the lock, as every check is: the outcome of earlier ones is known.
        if state.identity.locked or state.identity.failed_checks:
            return None  # the details in the history may be the ones refused
        if state.verified_customer is not None:
            return state.verified_customer
        given = await _details_said(state, words)
        candidate = None if given is None else await matching_account(state, given)
        if given is None or candidate is None:
            return None
        hold = hold_on(candidate, state.settings, state.line)
        if hold is Hold.HELD:
            return None  # the specialist's check counts and answers it like any miss
        customer = candidate.customer
        await record_verification(
            state,
            customer,
            by=verified_by(given, customer, policy),
            passed_hold=hold is Hold.PASSED_BY_LINE,
        )
        return customer


async def _details_said(state: CallState, words: str) -> GivenDetails | None:
    """The name, postal code and email address of the account whose email the caller
    said, each as the caller said it, when their words hold all three."""
    tokens = words.split()
    for email in list(dict.fromkeys(emails_in(words)))[:EMAILS_TRIED]:
        customer_id = await state.store.customer_id_by_email(email)
        customer = None if customer_id is None else await state.store.get_customer(customer_id)
        if customer is None:
            continue
        name = _said_as(tokens, name_key, name_key(customer.full_name), len(tokens))
        code = _said_as(tokens, _code, normalize_postal_code(customer.postal_code))
        if name and code:
            return GivenDetails(full_name=name, postal_code=_code(code), contact=email)
    return None


def _said_as(
    tokens: list[str], key: Callable[[str], str], wanted: str, most: int = POSTAL_CODE_WORDS
) -> str | None:
    """The run of up to `most` whole words whose keys, joined, are `wanted`; for a code,
    only a run with no digits in the words either side of it."""
    if not wanted:
        return None
    keys = [key(token) for token in tokens]
    for start in range(len(tokens)):
        joined = ""
        for end in range(start, min(len(tokens), start + most)):
            joined += keys[end]
            if len(joined) > len(wanted) or not wanted.startswith(joined):
                break
            if joined == wanted and (key is not _code or _stands_alone(tokens, start, end)):
                return " ".join(tokens[start : end + 1])
    return None


def _code(token: str) -> str:
    return _NOT_CODE.sub("", token).upper()


def _stands_alone(tokens: list[str], start: int, end: int) -> bool:
    neighbours = tokens[max(0, start - 1) : start] + tokens[end + 1 : end + 2]
    return not any(char.isdigit() for token in neighbours for char in token)
