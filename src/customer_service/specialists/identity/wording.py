"""What the caller hears of the identity check: the opening questions, the refusals, and
one wording for every mismatch."""

from __future__ import annotations

from customer_service.call.fixed_sentences import fixed
from customer_service.call.wording import OFFER_HUMAN

OPENING_QUESTION = fixed(
    "Before I can help with that, I need to verify your identity. Please tell me your "
    "full name, the postal code on your account, and the phone number or email address "
    "on the account."
)
OPENING_QUESTION_ON_A_PHONE = fixed(
    "Before I can help with that, I need to verify your identity. Please tell me your "
    "full name and the postal code on your account."
)
"""The opening on a phone line that presented a number, then `CALLING_NUMBER_QUESTION` on
its own: the number may stand in for the phone factor once the caller confirms it."""

VERIFICATION_LOCKED = (
    "I'm sorry, I can't verify your identity on this call after too many unsuccessful "
    "attempts. If your details are right, you can call again tomorrow or from the phone "
    f"number on your account. {OFFER_HUMAN}"
)
"""Said to every caller whose checks lock the call, so that it can say what a customer
whose account is held can do without telling anyone the account is held
(`customer_service.call.identity_hold`)."""
VERIFICATION_DECLINED = (
    "That's fine. I can't share or change anything on an account without verifying the "
    "caller, but I'm happy to help with anything else."
)
DETAILS_TOO_LONG = (
    "That's more than I can take for one detail. Please tell me just your full name, the "
    "postal code, and the phone number or email address on the account."
)
CHECK_ALREADY_DONE = "Your identity check is already finished."
MISSING_DETAILS = (
    "I need all three details to verify you: your full name, the postal code on the "
    "account, and the phone number or email address on the account."
)


def mismatch_message(attempts_left: int) -> str:
    # One wording for every wrong factor, for unknown accounts and for every check that
    # comes close to a held account, right or wrong, so a caller cannot probe which
    # detail was wrong, whether an account exists, or whether it is held; true in each.
    attempt_word = "attempt" if attempts_left == 1 else "attempts"
    return (
        "I'm sorry, I can't verify you with those details. Please check them and tell me "
        f"again. You have {attempts_left} {attempt_word} left."
    )
