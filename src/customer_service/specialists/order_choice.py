"""Which of the caller's listed orders their words point at: by item, date, status or
place in the list ("the headphones", "the delivered one", "the first one").

Only the caller's own orders are ever candidates, so a choice can never reach another
customer's order; a choice that fits none of them, or several, picks nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from customer_service.call.speakable import (
    main_item,
    ordinal_word,
    spaced_digits,
    spoken_date,
    spoken_list,
)
from customer_service.call.wording import quoted
from customer_service.domain import Order, OrderStatus
from customer_service.normalize import normalize_order_id

NO_RECENT_ORDERS = "There are no recent orders on your account."
WHICH_ORDER = "Which one do you mean?"
NOTHING_FITS = (
    "None of your recent orders fits that. You can tell me the order number, or what was "
    "in the order, when you placed it, or its place in the list."
)
NO_CURRENT_ORDER = "We haven't talked about an order yet. Which order do you mean?"


def several_fit(orders: Sequence[Order]) -> str:
    numbers = spoken_list([f"order {spaced_digits(order.order_id)}" for order in orders])
    return f"More than one of your recent orders fits that: {numbers}. {WHICH_ORDER}"


def recent_orders_list(orders: Sequence[Order]) -> str:
    """One short line per order, by which the caller can pick it: its place in the list,
    number, main item (quoted, as data), date and status."""
    if not orders:
        return NO_RECENT_ORDERS
    lines = " ".join(
        f"{ordinal_word(place).capitalize()}, order {spaced_digits(order.order_id)}: "
        f"{main_item(order.items, quoted)}, placed on {spoken_date(order.placed_on)}, "
        f"{order.status.value}."
        for place, order in enumerate(orders, start=1)
    )
    return f"Here are your recent orders. {lines} {WHICH_ORDER}"


_WORD = re.compile(r"[a-z0-9]+")
_DIGITS = re.compile(r"\b\d(?:[ -]?\d){5}\b")
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
    "shipped": OrderStatus.SHIPPED,
    "processing": OrderStatus.PROCESSING,
    "cancelled": OrderStatus.CANCELLED,
    "canceled": OrderStatus.CANCELLED,
}
_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "one",
        "ones",
        "order",
        "orders",
        "that",
        "this",
        "it",
        "its",
        "with",
        "from",
        "of",
        "on",
        "in",
        "for",
        "and",
        "or",
        "my",
        "me",
        "i",
        "want",
        "wanted",
        "would",
        "like",
        "please",
        "yes",
        "yeah",
        "um",
        "uh",
        "so",
        "then",
        "about",
        "hear",
        "is",
        "was",
        "which",
        "item",
        "items",
        "thing",
        "stuff",
        "placed",
        "made",
        "to",
        "let",
        "s",
        "one's",
        "number",
        "just",
        "think",
        "guess",
        "mean",
        "meant",
    ]
)
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


def order_number_in(said: str) -> str | None:
    """An order number among the words of a choice ("that one, 100101"), if one is there."""
    if (whole := normalize_order_id(said)) is not None:
        return whole
    written = _DIGITS.search(said)
    return written.group() if written else None


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
        and not read_choice(_CURRENT[0].sub(" ", text)).says_anything
    )


def read_choice(said: str) -> Choice:
    words = _WORD.findall(said.lower())
    month = next((_MONTHS[word] for word in words if word in _MONTHS), None)
    day: tuple[int, int | None] | None = None
    position: int | None = None
    if month is not None:
        # With a month named, a number or ordinal is the day: "November first".
        number = next((_day_number(word) for word in words if _day_number(word) is not None), None)
        day = (month, number)
    else:
        position = next((_ORDINALS[word] for word in words if word in _ORDINALS), None)
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
            if order.placed_on.month == month and day in (None, order.placed_on.day)
        ]
    if choice.status is not None:
        candidates = [order for order in candidates if order.status is choice.status]
    if choice.words:
        named = [order for order in candidates if _names_an_item(order, choice.words)]
        # Words that name no item of any listed order are talk ("the one I wanted"),
        # unless they are all the caller said.
        if named or not (choice.position or choice.day or choice.status):
            candidates = named
    return candidates


def _names_an_item(order: Order, words: Sequence[str]) -> bool:
    item_words = {
        _singular(word) for item in order.items for word in _WORD.findall(item.name.lower())
    }
    return any(_singular(word) in item_words for word in words)


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2].endswith(("ss", "x", "ch", "sh")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word
