"""The default address specialist: records the account's new address, confirms its read-back."""

from __future__ import annotations

from customer_service.call.answers import Phrases, normalise
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply
from customer_service.offline_llm.routing import names_an_order
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.offline_llm.specialists.address_update import (
    ADDRESS_QUESTION,
    address_reply,
)
from customer_service.specialists.default_address import CONFIRM_TOOL, RECORD_TOOL

__all__ = ["SPECIALIST"]

_ACCOUNT_ADDRESS = Phrases(
    [
        "address on my account",
        "address on the account",
        "address on file",
        "address you have on file",
        "address you have for me",
        "account address",
        "default address",
        "my address in your records",
        "home address",
    ],
    plurals=True,
)
_EMAIL_ADDRESS = Phrases(["email address", "e-mail address"], plurals=True)


def _asks_for_account_address(line: str) -> bool:
    # "Change the address of order 100102" is the order's; "my email address" is no address.
    said = _EMAIL_ADDRESS.removed_from(normalise(line))
    return _ACCOUNT_ADDRESS.found_in(said) and not names_an_order(line)


def route(conversation: Conversation) -> Reply | None:
    if _asks_for_account_address(conversation.last_caller_line or ""):
        return CallTool("change_default_address")
    return None


SPECIALIST = OfflineSpecialist(
    name="default_address",
    # confirm_account_address is offered only once an address is recorded.
    markers=frozenset({RECORD_TOOL, CONFIRM_TOOL}),
    respond=address_reply(own="change_default_address", record=RECORD_TOOL, confirm=CONFIRM_TOOL),
    prompt=lambda _conversation: ADDRESS_QUESTION,
    route=route,
    # Before the order's address change (30), which "address" alone reaches.
    route_rank=28,
    menu_rank=25,
    asks_for=_asks_for_account_address,
)
