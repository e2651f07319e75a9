"""The address update specialist: records a new delivery address and confirms its read-back."""

from __future__ import annotations

import re
from collections.abc import Callable

from customer_service.call.answers import Phrases, normalise, polarity
from customer_service.offline_llm.address_parsing import (
    address_in_request,
    field_in_problem,
    parse_address,
    parse_correction,
)
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.routing import names_an_order, order_arguments
from customer_service.offline_llm.specialist_replies import leave, transfer
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.offline_llm.speech import REFUSALS

__all__ = ["ADDRESS_AGAIN", "ADDRESS_QUESTION", "SPECIALIST", "address_reply"]

ADDRESS_QUESTION = (
    "Please tell me the full new address: the street, city, state or region, and postal code."
)
ADDRESS_AGAIN = "Please tell me the full new address again."

_ADDRESS_CHANGE = Phrases(
    [
        "address",
        "moved",
        "move",
        "ship it to",
        "deliver to",
        "deliver it to",
        "change where",
        "somewhere else",
        "elsewhere",
        "different place",
    ],
    plurals=True,
)
_EMAIL_ADDRESS = Phrases(["email address", "e-mail address"], plurals=True)


def _address_said_before(conversation: Conversation, record: str) -> dict[str, object] | None:
    """Before anything is recorded: the newest address the caller already said, in the
    history this specialist was given (up front, with the request)."""
    if conversation.last_arguments(record) is not None:
        return None
    for line in reversed(conversation.caller_lines()):
        if (address := address_in_request(line)) is not None:
            return address.arguments()
    return None


def address_reply(
    *, own: str, record: str = "record_address", confirm: str = "confirm_address"
) -> Callable[[Conversation], Reply]:
    """The answer to the caller's latest line of a specialist that captures an address
    (`call.address_capture`) with its `record` and `confirm` tools; `own` is its
    supervisor tool."""

    def respond(conversation: Conversation) -> Reply:
        line = conversation.last_caller_line or ""
        address = address_in_request(line) or parse_address(line)
        if address is not None:
            # A whole address is never a request for a person, whatever its street is called.
            return CallTool(record, address.arguments())
        if (handed_over := transfer(conversation)) is not None:
            return handed_over
        if (left := leave(conversation, own=own)) is not None:
            return left
        if REFUSALS.found_in(normalise(line)):
            return CallTool("give_up")
        if (said_before := _address_said_before(conversation, record)) is not None:
            return CallTool(record, said_before)
        answered = conversation.output_answered()
        if answered is None or conversation.tool_name(answered) != record:
            return Say(ADDRESS_QUESTION)
        # The caller is answering a read-back ("I have ... Is that right?") or a problem the
        # tool found with one part ("The ZIP code 9410 doesn't look right: ...").
        asked_for = field_in_problem(answered.output) if answered.is_error else None
        correction = parse_correction(line, asked_for, after_read_back=not answered.is_error)
        recorded = conversation.last_arguments(record)
        if recorded is not None and (replaced := _with_part_replaced(line, recorded)):
            # "It's 1505, not 1550": only the part corrected changes.
            return CallTool(record, replaced)
        if correction is not None and recorded is not None:
            field, value = correction
            return CallTool(record, {**recorded, field: value})
        if not answered.is_error:
            answer = polarity(line)
            if answer is True:
                return CallTool(confirm)
            if answer is False:
                return Say(ADDRESS_AGAIN)
        return Say(ADDRESS_QUESTION)

    return respond


_INSTEAD_OF = (
    re.compile(r"^(?:no,?\s+)?(?:it'?s\s+|it is\s+)?(?P<new>[\w ]+?),?\s+not\s+(?P<old>[\w ]+)$"),
    re.compile(r"^(?:no,?\s+)?not\s+(?P<old>[\w ]+?),?\s+(?:it'?s\s+|it is\s+)?(?P<new>[\w ]+)$"),
)


def _with_part_replaced(line: str, recorded: dict[str, object]) -> dict[str, object] | None:
    """The recorded address with the one part the caller corrects by saying what it is
    instead of what ("it's 1505, not 1550", "not Pine, Spruce"); None when the line is
    no such correction or the part it replaces is in no field."""
    text = line.strip().rstrip(" .!").casefold()
    for pattern in _INSTEAD_OF:
        if (said := pattern.match(text)) is None:
            continue
        old, new = said.group("old").strip(), said.group("new").strip()
        part = re.compile(rf"(?<![\w]){re.escape(old)}(?![\w])", re.IGNORECASE)
        fields = [name for name, value in recorded.items() if isinstance(value, str)]
        holding = [name for name in fields if part.search(str(recorded[name]))]
        if len(holding) == 1:
            (name,) = holding
            return {**recorded, name: part.sub(new, str(recorded[name]), count=1)}
    return None


def _asks_to_move(said: str) -> bool:
    # "Update my email address" is no delivery address.
    return _ADDRESS_CHANGE.found_in(_EMAIL_ADDRESS.removed_from(said))


def route(conversation: Conversation) -> Reply | None:
    if _asks_to_move(normalise(conversation.last_caller_line or "")):
        return CallTool("update_address", order_arguments(conversation))
    return None


def asks_for(line: str) -> bool:
    return _asks_to_move(normalise(line)) and names_an_order(line)


SPECIALIST = OfflineSpecialist(
    name="address_update",
    # confirm_address is offered only once an address is recorded.
    markers=frozenset({"record_address", "confirm_address"}),
    respond=address_reply(own="update_address"),
    prompt=lambda _conversation: ADDRESS_QUESTION,
    route=route,
    route_rank=30,
    menu_rank=20,
    asks_for=asks_for,
)
