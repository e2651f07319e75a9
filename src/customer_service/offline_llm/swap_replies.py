"""An exchange or an item change as the offline model plays it: which items become which
versions (`item_choice`), through which of the caller's methods, recorded with the
specialist's record tool; then the caller's answer to the read-back.

The caller's words are read from their latest line back: the fewest latest lines that
name an item and a version for it decide ("the mat", then "the 6 mm one"). A method not
named is proposed only when it cannot matter or is the only one (the read-back still
names it); otherwise it is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from customer_service.call.answers import Phrases, normalise, polarity
from customer_service.call.item_swaps import described_options, unavailable_question
from customer_service.call.speakable import spoken_list
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.item_choice import (
    ListedItem,
    ListedVariant,
    Several,
    Unavailable,
    item_segments,
    listed_items,
    paid_with,
    variant_described,
)
from customer_service.offline_llm.payment_words import listed_methods, method_named, methods_as_said
from customer_service.offline_llm.routing import order_arguments, order_in_discussion
from customer_service.offline_llm.specialist_replies import first_question, leave, transfer
from customer_service.offline_llm.speech import REFUSALS

__all__ = ["METHOD_QUESTION", "SwapTools", "method_question", "respond_for", "route_for"]

METHOD_QUESTION = "Which of your payment methods should the price difference go through?"
"""Asked when the instructions list no method to name (the task then names them)."""


def method_question(conversation: Conversation) -> str:
    """Which method the price difference goes through, naming each one listed: "Should
    the price difference go through your PayPal account, or your gift card, ...?"."""
    methods = methods_as_said(conversation.instructions)
    if not methods:
        return METHOD_QUESTION
    *first, last = methods
    choices = f"{', '.join(first)}, or {last}" if first else last
    return f"Should the price difference go through {choices}?"


_ONE_UNIT = Phrases(["one of the", "one of them", "just one", "only one", "a single"])

Chosen = dict[str, tuple[ListedItem, ListedVariant]]


@dataclass(frozen=True)
class SwapTools:
    """One kind of swap's tools: the supervisor's, the task's record and confirm."""

    supervisor: str
    record: str
    confirm: str

    @property
    def markers(self) -> frozenset[str]:
        return frozenset({self.record, self.confirm})


def _versions_question(item: ListedItem) -> str:
    versions = [described_options(v.options) for v in item.variants if v.available]
    return f"Which version would you like instead? It comes with {spoken_list(versions)}."


def _which_of(several: Several) -> str:
    versions = [described_options(variant.options) for variant in several.variants]
    return f"Which would you like: {spoken_list(versions)}?"


def _described_only(items: list[ListedItem], said: str) -> dict[str, str]:
    """The one item whose versions the words describe without naming it ("the 6 mm one"
    can only be the mat)."""
    fitting = [item for item in items if variant_described(item, said) is not None]
    return {fitting[0].item_id: said} if len(fitting) == 1 else {}


def _chosen(items: list[ListedItem], lines: list[str]) -> Chosen | Say | None:
    """Each item the caller's latest words name with its new version; a question when
    those words name a version that cannot be had or fits several, or no version."""
    unversioned: ListedItem | None = None
    for start in range(len(lines) - 1, -1, -1):
        said = normalise(" ".join(lines[start:]))
        segments = item_segments(items, said) or _described_only(items, said)
        chosen: Chosen = {}
        for item in items:
            if item.item_id not in segments:
                continue
            described = variant_described(item, segments[item.item_id])
            if isinstance(described, Unavailable):
                return Say(unavailable_question(item.name, described.variant.options))
            if isinstance(described, Several):
                return Say(_which_of(described))
            if described is None:
                unversioned = unversioned or item
                break
            chosen[item.item_id] = (item, described)
        else:
            if chosen:
                return chosen
    return Say(_versions_question(unversioned)) if unversioned else None


def _units(chosen: Chosen, lines: list[str]) -> tuple[list[str], list[str]]:
    one = _ONE_UNIT.found_in(normalise(" ".join(lines)))
    item_ids: list[str] = []
    new_item_ids: list[str] = []
    for item, variant in chosen.values():
        count = 1 if one else item.quantity
        item_ids += [item.item_id] * count
        new_item_ids += [variant.item_id] * count
    return item_ids, new_item_ids


def _method(conversation: Conversation, difference: Decimal) -> str | None:
    instructions = conversation.instructions
    for line in reversed(conversation.caller_lines()):
        if (named := method_named(instructions, line)) is not None:
            return named
    listed = listed_methods(instructions)
    if difference == 0 and paid_with(instructions) in listed:
        return paid_with(instructions)
    return next(iter(listed)) if len(listed) == 1 else None


def respond_for(conversation: Conversation, tools: SwapTools) -> Reply:
    if (handed_over := transfer(conversation)) is not None:
        return handed_over
    if (left := leave(conversation, own=tools.supervisor)) is not None:
        return left
    line = conversation.last_caller_line or ""
    items = listed_items(conversation.instructions)
    answered = conversation.output_answered()
    read_back = answered is not None and not answered.is_error
    answer = polarity(line)
    if read_back and answered and conversation.tool_name(answered) == tools.record and answer:
        # A yes to the read-back: the task's own code checks it again.
        return CallTool(tools.confirm)
    # The words that asked for it (no question asked yet) refuse nothing.
    refused = REFUSALS.found_in(normalise(line)) or (
        answer is False and not isinstance(_chosen(items, [line]), dict)
    )
    if refused and conversation.agent_lines():
        return CallTool("give_up")
    lines = conversation.caller_lines()
    chosen = _chosen(items, lines)
    if chosen is None:
        return Say(first_question(conversation))
    if isinstance(chosen, Say):
        return chosen
    item_ids, new_item_ids = _units(chosen, lines)
    paid = {item.item_id: item.price for item, _ in chosen.values()}
    prices = {variant.item_id: variant.price for _, variant in chosen.values()}
    difference = sum(
        (prices[new] - paid[old] for old, new in zip(item_ids, new_item_ids, strict=True)),
        Decimal(0),
    )
    method = _method(conversation, difference)
    if method is None:
        return Say(method_question(conversation))
    arguments = {"item_ids": item_ids, "new_item_ids": new_item_ids, "payment_method_id": method}
    return CallTool(tools.record, arguments)


def route_for(
    conversation: Conversation, asked: Phrases, tools: SwapTools, *, asked_for: bool = False
) -> Reply | None:
    """The call to `tools.supervisor` when the caller's latest line asks for it (in
    `asked`'s words, or as the caller already found, `asked_for`): for the order they
    name, or, answering what a tool said about an order, that one ("change the items
    then", after hearing they can be changed instead of exchanged)."""
    if not (asked_for or asked.found_in(normalise(conversation.last_caller_line or ""))):
        return None
    arguments = order_arguments(conversation)
    if not arguments and conversation.output_answered() is not None:
        discussed = order_in_discussion(conversation)
        arguments = {"order_id": discussed} if discussed else {}
    return CallTool(tools.supervisor, arguments)
