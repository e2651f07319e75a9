"""An order's items one unit at a time, as τ²-bench's item ids count them.

The store keeps lines with a quantity (three water bottles are one line); τ²-bench keeps
one entry per unit, and names the units a change is about by item id, a line of quantity
q counting q times. A change of items works on units and writes lines back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from customer_service.domain import OrderItem, Variant

__all__ = ["Unit", "as_variant", "lines_of", "pick_units", "units_of"]


@dataclass(frozen=True)
class Unit:
    """One unit of an order's items (`item` has quantity 1), and the line it came from."""

    line: int
    item: OrderItem


def units_of(items: Iterable[OrderItem]) -> list[Unit]:
    """The items' units, in order: a line of quantity q gives q of them."""
    one = {"quantity": 1}
    return [
        Unit(line=line, item=item.model_copy(update=one))
        for line, item in enumerate(items)
        for _ in range(item.quantity)
    ]


def pick_units(units: Sequence[Unit], item_ids: Sequence[str]) -> list[int] | None:
    """For each id of `item_ids` in turn, the position of the first unit with that item id
    not picked before it (as τ²-bench changes the first entry with the id); None when the
    units hold an id fewer times than `item_ids` lists it."""
    picked: list[int] = []
    for item_id in item_ids:
        position = next(
            (
                position
                for position, unit in enumerate(units)
                if unit.item.item_id == item_id and position not in picked
            ),
            None,
        )
        if position is None:
            return None
        picked.append(position)
    return picked


def as_variant(unit: Unit, variant: Variant) -> Unit:
    """The unit changed to `variant`, with the variant's own options and price; its name
    (the product's, as ordered) stays."""
    item = unit.item.model_copy(
        update={
            "product_id": variant.product_id,
            "item_id": variant.item_id,
            "options": dict(variant.options),
            "price": variant.price,
        }
    )
    return Unit(line=unit.line, item=item)


def lines_of(units: Iterable[Unit]) -> tuple[OrderItem, ...]:
    """The units as lines again: neighbours that came from one line and are still alike
    join, so unchanged lines read as they did and an order of single units (τ²-bench's)
    stays one entry per unit."""
    lines: list[tuple[int, OrderItem]] = []
    for unit in units:
        if lines:
            line, item = lines[-1]
            if line == unit.line and item.model_copy(update={"quantity": 1}) == unit.item:
                lines[-1] = (line, item.model_copy(update={"quantity": item.quantity + 1}))
                continue
        lines.append((unit.line, unit.item))
    return tuple(item for _, item in lines)
