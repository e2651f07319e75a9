"""Order numbers in a line of the call: the caller's words that say one, and the
number they name, as `customer_service.order_numbers` defines it."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from customer_service.offline_llm.fields import NumberRun, Span, find_number_runs, mask
from customer_service.order_numbers import (
    DEMO_DIGITS,
    W_SAID,
    order_id_from_digits,
    read_out_groups,
    w_said_before,
)

__all__ = [
    "OrderNumberSaid",
    "find_order_number",
    "find_order_number_read_out",
    "order_numbers_read_out",
]


@dataclass(frozen=True)
class OrderNumberSaid:
    """An order number inside a line: the words that say it, and the number they name."""

    span: Span
    order_id: str


def find_order_number(text: str) -> OrderNumberSaid | None:
    """The first order number in `text`: six digits ("100101", "100-101", "one zero zero
    ...") or a W and seven ("#W2378156", "w 237 8156", "double-u two three ..."); else
    one said in two groups with a pause between them ("one double oh, one oh one", "W
    two three seven, eight one five six"). Seven digits with no W are not taken for one
    here: in a sentence they may be a phone number's last seven."""
    # A written W is glued to its digits ("W2378156"): blanked, they read as a number.
    w_marks = [Span(found.start(), found.end(), found.group()) for found in W_SAID.finditer(text)]
    runs = find_number_runs(mask(text, w_marks))
    for run in runs:
        if (said := _order_number_in_runs(text, [run])) is not None:
            return said
    for first, second in itertools.pairwise(runs):
        if re.fullmatch(r"\s*,\s*", text[first.span.end : second.span.start]) and (
            said := _order_number_in_runs(text, [first, second])
        ):
            return said
    return None


def _order_number_in_runs(text: str, runs: list[NumberRun]) -> OrderNumberSaid | None:
    start, end = runs[0].span.start, runs[-1].span.end
    digits = "".join(run.digits for run in runs)
    w_start = w_said_before(text, start)
    if w_start is not None:
        order_id = order_id_from_digits(digits, w_said=True)
        said = Span(w_start, end, text[w_start:end])
        return OrderNumberSaid(said, order_id) if order_id else None
    pieces = tuple(len(run.digits) for run in runs)
    if pieces in ((DEMO_DIGITS,), read_out_groups(DEMO_DIGITS)):
        return OrderNumberSaid(Span(start, end, text[start:end]), digits)
    return None


_GROUP_PAUSE = re.compile(r"(?<=\d), (?=\d)")


def find_order_number_read_out(agent_line: str) -> OrderNumberSaid | None:
    """The first order number the agent read out, in its pause-separated groups ("1 0 0,
    1 0 2", "W 2 3 7, 8 1 5 6"); a caller's commas separate different numbers, so only
    the agent's own lines are read this way."""
    return find_order_number(_GROUP_PAUSE.sub(" ", agent_line))


def order_numbers_read_out(agent_line: str) -> list[str]:
    """Every order number the agent read out in a line, in order."""
    text = _GROUP_PAUSE.sub(" ", agent_line)
    numbers = []
    while (said := find_order_number(text)) is not None:
        numbers.append(said.order_id)
        text = " " * said.span.end + text[said.span.end :]
    return numbers
