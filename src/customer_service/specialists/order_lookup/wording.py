"""What the caller hears while their order is looked for: the opening questions, the
refusals, and one sentence for an order not found, whether it does not exist or is
someone else's."""

from __future__ import annotations

from customer_service.call.fixed_sentences import fixed
from customer_service.call.wording import OFFER_HUMAN
from customer_service.order_numbers import FORMS, spoken_order_id

OPENING_QUESTION = fixed(
    "What's the order number? If you don't have it, I can list your recent orders."
)
OPENING_QUESTION_ON_A_PHONE = fixed(
    "What's the order number? You can say it, or say keypad to type it in. If you don't "
    "have it, I can list your recent orders."
)
"""The question on a phone line (SIP), where the caller has a keypad."""


INVALID_ORDER_NUMBER = f"Order numbers have {FORMS}. Could you tell me the number again?"
NOT_VERIFIED = "I need to verify your identity before I can look up an order."
LOOKUP_ABANDONED = "No problem, I've stopped looking for that order."
TOO_MANY_MISSES = f"I'm sorry, I still can't find that order. {OFFER_HUMAN}"
KEYPAD_ENTRY_NOT_AN_ORDER_NUMBER = (
    "That wasn't an order number. You can type its digits again, ending with the pound "
    "key, or just say it."
)
KEYPAD_ENTRY_STOPPED = "No problem. You can say the order number, or I can list your recent orders."
KEYPAD_NOT_AVAILABLE = "I can't take keypad entry right now. Please say the order number."


def not_found_message(order_id: str) -> str:
    # The same words whether the order does not exist or belongs to someone else.
    return (
        f"I couldn't find an order with the number {spoken_order_id(order_id)} on your "
        "account. Please check the number and tell me again."
    )
