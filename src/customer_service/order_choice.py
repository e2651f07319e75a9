"""Which of the caller's listed orders their words point at: by item, date, status or
place in the list ("the headphones", "the delivered one", "the first one"); which of
their orders a request names by what it holds ("return the water bottles"); and the
offer of a caller's only order.

Only the caller's own orders are ever candidates, so a choice can never reach another
customer's order; a choice that fits none of them, or several, picks nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from livekit.agents import ToolError

from customer_service.call.fixed_sentences import fixed
from customer_service.call.speakable import (
    main_item,
    ordinal_word,
    placed_on_phrase,
    spoken_list,
)
from customer_service.call.state import CallState
from customer_service.call.wording import quoted
from customer_service.domain import Order, OrderStatus
from customer_service.order_numbers import order_number_in, spoken_order_id
from customer_service.spoken.item_words import names_item

NO_RECENT_ORDERS = "There are no recent orders on your account."
WHICH_ORDER = "Which one do you mean?"
NOTHING_FITS = (
    "None of your recent orders fits that. You can tell me the order number, or what was "
    "in the order, when you placed it, or its place in the list."
)
NOT_LISTED_YET = "I haven't listed your recent orders yet. Would you like me to?"
SEVERAL_FIT_UNLISTED = fixed(
    "More than one of your recent orders fits that. I can list them for you, or you can "
    "tell me the order number."
)
NO_CURRENT_ORDER = "We haven't talked about an order yet. Which order do you mean?"


def one_order_offer(order: Order) -> str:
    """The offer of the caller's only order, said straight to them (no quote marks)."""
    return (
        f"I see one order on your account, order {spoken_order_id(order.order_id)}, with "
        f"{main_item(order.items)}{placed_on_phrase(order.placed_on)}. Is that the one?"
    )


class NothingFits(Exception):
    """The caller's words fit none of their orders: a miss, like an unknown number."""


async def picked_order_id(
    state: CallState, customer_id: str, choice: str, heard: Sequence[Order]
) -> str:
    """The number of the caller's order their words pick, among the orders they `heard`
    listed (or, with none heard, their recent orders). Raises `NothingFits`, or a
    speakable `ToolError` when the words are unclear or fit several orders. The number
    is only a candidate: it is read again as the caller's own order, like any number."""
    if (number := order_number_in(choice)) is not None:
        return number  # "the first one, 100101"
    if means_current_order(choice):
        # "That one" after hearing one order (the only one offered, or a list of one).
        only_heard = heard[0].order_id if len(heard) == 1 else None
        if (current := only_heard or state.current_order_id) is None:
            raise ToolError(NO_CURRENT_ORDER)
        return current
    described = read_choice(choice)
    if not described.says_anything:
        raise ToolError(NOTHING_FITS)
    if described.position is not None and not heard:
        raise ToolError(NOT_LISTED_YET)  # a place in a list the caller never heard
    listed = heard or await state.store.recent_orders(
        customer_id, state.settings.recent_orders_limit
    )
    fitting = fitting_orders(described, listed)
    if not fitting:
        raise NothingFits
    if len(fitting) > 1:
        # Numbers the caller has not heard in a list are not said: their disclosure is
        # recorded only when a list or an order is read out.
        raise ToolError(several_fit(fitting) if heard else SEVERAL_FIT_UNLISTED)
    return fitting[0].order_id


def orders_named(request: str, orders: Sequence[Order]) -> list[Order]:
    """The orders holding an item the caller's request names ("cancel the order with the
    pillows"): how a request with no number can still name its order. Only items count:
    in a request, a status or a date is talk about the order ("it hasn't arrived"), and
    a place in a list needs a list the caller heard."""
    words = read_choice(request).words
    named = [order for order in orders if words and _names_an_item(order, words)]
    return _without_cancelled(named)


def several_fit(orders: Sequence[Order]) -> str:
    numbers = spoken_list([f"order {spoken_order_id(order.order_id)}" for order in orders])
    return f"More than one of your recent orders fits that: {numbers}. {WHICH_ORDER}"


def recent_orders_list(orders: Sequence[Order]) -> str:
    """One short line per order, by which the caller can pick it: its place in the list,
    number, main item (quoted, as data), date and status."""
    if not orders:
        return NO_RECENT_ORDERS
    lines = " ".join(
        f"{ordinal_word(place).capitalize()}, order {spoken_order_id(order.order_id)}: "
        f"{main_item(order.items, quoted)}{placed_on_phrase(order.placed_on)}, "
        f"{order.status.spoken}."
        for place, order in enumerate(orders, start=1)
    )
    return f"Here are your recent orders. {lines} {WHICH_ORDER}"


_WORD = re.compile(r"[a-z0-9]+")
_MONTHS = {dt.date(2000, month, 1).strftime("%B").lower(): month for month in range(1, 13)} | {
    dt.date(2000, month, 1).strftime("%b").lower(): month for month in range(1, 13)
}
_ORDINALS = {ordinal_word(number): number for number in range(1, 32)} | {
    f"{number}{suffix}": number for number in range(1, 32) for suffix in ("st", "nd", "rd", "th")
}
_LAST = frozenset({"last", "latest", "newest"})
_STATUSES = {
    "delivered": OrderStatus.DELIVERED,
    "arrived": OrderStatus.DELIVERED,
    "shipped": OrderStatus.PROCESSED,
    "processing": OrderStatus.PENDING,
    "pending": OrderStatus.PENDING,
    "cancelled": OrderStatus.CANCELLED,
    "canceled": OrderStatus.CANCELLED,
}
# Words that describe no order: what is left of "I'd like the one with the yoga mat".
# fmt: off
_FILLER = frozenset((
    "a", "an", "the", "one", "ones", "order", "orders", "that", "this", "it", "its", "with",
    "from", "of", "on", "in", "for", "and", "or", "my", "me", "i", "want", "wanted", "would",
    "like", "please", "yes", "yeah", "um", "uh", "hmm", "erm", "so", "then", "about", "hear",
    "is", "was", "which", "item", "items", "thing", "stuff", "placed", "made", "to", "let",
    "s", "number", "just", "think", "guess", "mean", "meant", "you", "said", "can", "have",
    "get", "may", "could", "should", "what", "are", "there", "did", "ordered", "bought",
    "sent",
))
# fmt: on
_CURRENT = (
    re.compile(r"\b(that|this|same)( one| order)?\b"),
    re.compile(r"\bthe one (you|we) (just )?(said|read|mentioned|talked about|looked up)\b"),
)


@dataclass(frozen=True)
class Choice:
    """What the caller's words say about the order they mean; None where they say nothing."""

    position: int | None = None
    """1 for the first listed order, -1 for the last."""
    day: tuple[int, int | None] | None = None
    """(month, day of month or None)."""
    status: OrderStatus | None = None
    words: tuple[str, ...] = ()
    """Other words, matched against the items' names."""

    @property
    def says_anything(self) -> bool:
        return bool(self.position or self.day or self.status or self.words)


_THAT_ORDER = re.compile(r"\b(that|this|the same) (order|one)\b")


def mentions_current_order(said: str) -> bool:
    """Whether a request names the order just discussed: "change the address for that
    order"."""
    return _THAT_ORDER.search(said.lower()) is not None


def means_current_order(said: str) -> bool:
    """Whether the words point at the order just discussed ("that one", "that order"),
    with nothing else that describes an order."""
    text = said.lower()
    return (
        any(pattern.search(text) for pattern in _CURRENT)
        and not read_choice(_CURRENT[1].sub(" ", _CURRENT[0].sub(" ", text))).says_anything
    )


def read_choice(said: str) -> Choice:
    words = _WORD.findall(said.lower())
    dated = _date_in(words)
    day = dated[:2] if dated is not None else None
    day_index = dated[2] if dated is not None else None
    # An ordinal that is not the date's day is a place in the list: "the first one from
    # November".
    position = next(
        (
            _ORDINALS[word]
            for index, word in enumerate(words)
            if word in _ORDINALS and index != day_index
        ),
        None,
    )
    if position is None and any(word in _LAST for word in words):
        position = -1
    status = next((_STATUSES[word] for word in words if word in _STATUSES), None)
    described = [
        word
        for word in words
        if word not in _FILLER
        and word not in _MONTHS
        and word not in _ORDINALS
        and word not in _LAST
        and word not in _STATUSES
        and not word.isdigit()
        and len(word) > 2
    ]
    return Choice(position=position, day=day, status=status, words=tuple(described))


def _date_in(words: Sequence[str]) -> tuple[int, int | None, int | None] | None:
    """(month, day, where the day was said) when the words name a month, with the day
    said beside it if any: "November first", "the 2nd of November". "May" alone is a
    verb more often than a month, so it counts only with a day beside it."""
    for index, word in enumerate(words):
        if word not in _MONTHS:
            continue
        for near in _beside(words, index):
            if (number := _day_number(words[near])) is not None:
                return _MONTHS[word], number, near
        if word != "may":
            return _MONTHS[word], None, None
    return None


def _beside(words: Sequence[str], index: int) -> list[int]:
    # After the month, or before it with "of" between: "the second of November".
    before = index - 2 if index >= 2 and words[index - 1] == "of" else index - 1
    return [near for near in (index + 1, before) if 0 <= near < len(words)]


def _day_number(word: str) -> int | None:
    if word in _ORDINALS:
        return _ORDINALS[word]
    if word.isdigit() and 1 <= int(word) <= 31:
        return int(word)
    return None


def fitting_orders(choice: Choice, listed: Sequence[Order]) -> list[Order]:
    """The listed orders that fit everything the choice says."""
    candidates = list(listed)
    if choice.position is not None:
        index = choice.position - 1 if choice.position > 0 else len(listed) - 1
        candidates = [listed[index]] if 0 <= index < len(listed) else []
    if choice.day is not None:
        month, day = choice.day
        candidates = [
            order
            for order in candidates
            if order.placed_on is not None
            and order.placed_on.month == month
            and day in (None, order.placed_on.day)
        ]
    if choice.status is not None:
        candidates = [order for order in candidates if order.status is choice.status]
    if choice.words:
        named = _named_most(candidates, choice.words)
        if choice.status is None:
            named = _without_cancelled(named)
        # Words that name no item of any listed order are talk ("the one I wanted"),
        # unless they are all the caller said.
        if named or not (choice.position or choice.day or choice.status):
            candidates = named
    return candidates


def _named_most(orders: Sequence[Order], words: Sequence[str]) -> list[Order]:
    """The orders the most of the words name, item or option ("the black helmet" is the
    black one of two helmets); none when no word names any."""
    counts = [
        (sum(_names_an_item(order, [word], with_options=True) for word in words), order)
        for order in orders
    ]
    most = max((count for count, _ in counts), default=0)
    return [order for count, order in counts if most and count == most]


def _without_cancelled(orders: list[Order]) -> list[Order]:
    """A cancelled order named by its items is not the one meant when another order holds
    them too: "where's my speaker" is about the speaker still coming."""
    live = [order for order in orders if order.status is not OrderStatus.CANCELLED]
    return live or orders


def _names_an_item(order: Order, words: Sequence[str], *, with_options: bool = False) -> bool:
    """Whether the words name an item of the order (`spoken.item_words`): with `with_options`,
    an option word ("the blue one") counts too, when the caller picks between orders."""
    return any(
        names_item(word, item.name, item.options if with_options else None)
        for item in order.items
        for word in words
    )
