"""Changing items: a pending order's, to other variants of the same products, paid or
refunded at once; a delivered order's, as an exchange requested, settled when it is
fulfilled. Each is allowed once per order, as in τ²-bench's retail domain.

Items are named by item id, a unit at a time (`order_units`): an order that holds an id
twice can have one unit or both changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from pydantic import JsonValue
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.domain import (
    ExchangeRequest,
    Order,
    OrderStatus,
    Transaction,
    TransactionKind,
    Variant,
)
from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.balance_holds import free_balance, held_by_exchanges
from customer_service.store.catalog import read_variants
from customer_service.store.core import StoreCore
from customer_service.store.money import cents
from customer_service.store.order_changes import Changed, ChangeRefusal, Heard
from customer_service.store.order_units import Unit, as_variant, lines_of, pick_units, units_of
from customer_service.store.orders import (
    lock_owned_order,
    order_from_row,
    set_order_fields,
)
from customer_service.store.payments import (
    PaymentMethodRow,
    lock_payment_methods,
    move_balance,
)

__all__ = ["ItemChangeStore"]


@dataclass(frozen=True)
class _ItemSwap:
    """What a change of items would do, every rule checked: the units it changes (by
    position in `units`), the variant each becomes, and the price difference to pay (or,
    when negative, to refund) with `method`."""

    units: list[Unit]
    picked: list[int]
    new_variants: list[Variant]
    price_difference: Decimal
    method: PaymentMethodRow


async def _plan_swap(
    session: AsyncSession,
    order: Order,
    item_ids: Sequence[str],
    new_item_ids: Sequence[str],
    payment_method_id: str,
    *,
    same_item_allowed: bool,
    heard: Heard | None,
) -> _ItemSwap | ChangeRefusal:
    """Checks the items and the payment method in τ²-bench's order of rules; the order's
    status is the caller's to check. Locks the payment method's row. A gift card must
    cover the difference from its free balance (`free_balance`). Given `heard`, an
    order or a difference (catalog prices) not as the caller heard it is
    CHANGED_SINCE_READ_BACK, before the balance is checked."""
    if not item_ids:
        return ChangeRefusal.NO_ITEMS
    units = units_of(order.items)
    picked = pick_units(units, item_ids)
    if picked is None:
        return ChangeRefusal.ITEMS_NOT_IN_ORDER
    if len(item_ids) != len(new_item_ids):
        return ChangeRefusal.ITEM_COUNT_DIFFERS
    variants = await read_variants(session, new_item_ids)
    new_variants: list[Variant] = []
    price_difference = Decimal(0)
    for position, new_item_id in zip(picked, new_item_ids, strict=True):
        ordered = units[position].item
        if new_item_id == ordered.item_id and not same_item_allowed:
            return ChangeRefusal.SAME_ITEM
        if ordered.product_id is None or ordered.price is None:
            # Only items stored before the catalog lack them, and those have no item id.
            return ChangeRefusal.ITEMS_NOT_IN_ORDER
        new_variant = variants.get(new_item_id)
        if new_variant is None or new_variant.product_id != ordered.product_id:
            return ChangeRefusal.NOT_THE_SAME_PRODUCT
        if not new_variant.available:
            return ChangeRefusal.ITEM_UNAVAILABLE
        new_variants.append(new_variant)
        price_difference += new_variant.price - ordered.price
    if heard is not None and not heard.holds(order, price_difference):
        return ChangeRefusal.CHANGED_SINCE_READ_BACK
    method = (await lock_payment_methods(session, order.customer_id, [payment_method_id])).get(
        payment_method_id
    )
    if method is None:
        return ChangeRefusal.PAYMENT_METHOD_NOT_FOUND
    if method.balance_cents is not None:
        held = await held_by_exchanges(session, order.customer_id)
        balance = free_balance(method, held)
        if balance is not None and balance < price_difference:
            return ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW
    return _ItemSwap(
        units=units,
        picked=picked,
        new_variants=new_variants,
        price_difference=price_difference,
        method=method,
    )


def _pending_refusal(status: OrderStatus) -> ChangeRefusal | None:
    if status is OrderStatus.PENDING:
        return None
    if status is OrderStatus.PENDING_ITEMS_MODIFIED:
        return ChangeRefusal.ITEMS_ALREADY_CHANGED
    return ChangeRefusal.NOT_PENDING


def _swap_detail(
    item_ids: Sequence[str], new_item_ids: Sequence[str], swap: _ItemSwap
) -> dict[str, JsonValue]:
    return {
        "items": len(item_ids),
        "item_ids": list(item_ids),
        "new_item_ids": list(new_item_ids),
        "payment_method_id": swap.method.method_id,
        "price_difference_cents": cents(swap.price_difference),
    }


class ItemChangeStore(StoreCore):
    """The `Store` methods that change an order's items: pending, or delivered (exchange)."""

    async def change_order_items(
        self,
        *,
        order_id: str,
        customer_id: str,
        item_ids: Sequence[str],
        new_item_ids: Sequence[str],
        payment_method_id: str,
        call_id: str,
        heard: Heard | None = None,
        other_events: Sequence[AuditEvent] = (),
    ) -> Changed[Order]:
        """Changes units of `customer_id`'s pending order `order_id`: for each pair in
        turn, the first unit not yet changed with the id `item_ids[i]` becomes the
        variant `new_item_ids[i]` (another available variant of its product), with that
        variant's own options and price.

        The price difference (new prices less those paid) is paid with
        `payment_method_id`, one of the customer's, when positive, and refunded to it
        otherwise, zero included: one transaction either way. A gift card must cover it,
        and its balance moves at once. The order is then "pending (item modified)": its
        items change no more, and it cannot be cancelled.

        Given `heard` (what the caller heard read back: the order's payments and items
        and the difference), a change that differs from it now is
        CHANGED_SINCE_READ_BACK. One transaction, with an `order_items_changed` audit
        event; `other_events` are written whatever the outcome. Raises `StoreUnavailable`
        on a database failure.
        """
        async with self._write_session("change an order's items") as session:
            session.add_all(event_to_row(kept) for kept in other_events)
            row = await lock_owned_order(session, order_id, customer_id)
            if row is None:
                return Changed.refused(ChangeRefusal.ORDER_NOT_FOUND)
            order = order_from_row(row)
            refusal = _pending_refusal(order.status)
            if refusal is not None:
                return Changed.refused(refusal)
            swap = await _plan_swap(
                session,
                order,
                item_ids,
                new_item_ids,
                payment_method_id,
                same_item_allowed=False,
                heard=heard,
            )
            if isinstance(swap, ChangeRefusal):
                return Changed.refused(swap)

            units = list(swap.units)
            for position, variant in zip(swap.picked, swap.new_variants, strict=True):
                units[position] = as_variant(units[position], variant)
            difference = swap.price_difference
            settlement = Transaction(
                kind=TransactionKind.PAYMENT if difference > 0 else TransactionKind.REFUND,
                amount=abs(difference),
                method_id=payment_method_id,
            )
            move_balance(swap.method, -difference)
            changed = order.model_copy(
                update={
                    "items": lines_of(units),
                    "payments": (*order.payments, settlement),
                    "status": OrderStatus.PENDING_ITEMS_MODIFIED,
                }
            )
            set_order_fields(row, changed)
            event = AuditEvent(
                call_id=call_id,
                kind="order_items_changed",
                customer_id=customer_id,
                order_id=order_id,
                detail=_swap_detail(item_ids, new_item_ids, swap),
            )
            session.add(event_to_row(event))
            return Changed(record=changed)

    async def exchange_order_items(
        self,
        *,
        order_id: str,
        customer_id: str,
        item_ids: Sequence[str],
        new_item_ids: Sequence[str],
        payment_method_id: str,
        call_id: str,
        heard: Heard | None = None,
        other_events: Sequence[AuditEvent] = (),
    ) -> Changed[Order]:
        """Requests an exchange of units of `customer_id`'s delivered order `order_id`:
        each unit with the id `item_ids[i]` for the variant `new_item_ids[i]`, an
        available variant of its product (the same one too: a faulty unit replaced).

        The order becomes "exchange requested", with the request (ids sorted, the method,
        the price difference) in `order.exchange`. No money moves yet: the difference is
        paid with `payment_method_id`, or refunded to it, when the exchange is fulfilled;
        a gift card must cover it now from its free balance, and holds it from then on
        (`balance_holds`). Given `heard`, a request that differs from what the caller
        heard read back is CHANGED_SINCE_READ_BACK. A delivered order is exchanged once: after an
        exchange or a return it is no longer delivered.

        One transaction, with an `order_exchange_requested` audit event; `other_events`
        are written whatever the outcome. Raises `StoreUnavailable` on a database failure.
        """
        async with self._write_session("exchange an order's items") as session:
            session.add_all(event_to_row(kept) for kept in other_events)
            row = await lock_owned_order(session, order_id, customer_id)
            if row is None:
                return Changed.refused(ChangeRefusal.ORDER_NOT_FOUND)
            order = order_from_row(row)
            if order.status is not OrderStatus.DELIVERED:
                return Changed.refused(ChangeRefusal.NOT_DELIVERED)
            swap = await _plan_swap(
                session,
                order,
                item_ids,
                new_item_ids,
                payment_method_id,
                same_item_allowed=True,
                heard=heard,
            )
            if isinstance(swap, ChangeRefusal):
                return Changed.refused(swap)

            exchange = ExchangeRequest(
                item_ids=tuple(sorted(item_ids)),
                new_item_ids=tuple(sorted(new_item_ids)),
                method_id=payment_method_id,
                price_difference=swap.price_difference,
            )
            changed = order.model_copy(
                update={"status": OrderStatus.EXCHANGE_REQUESTED, "exchange": exchange}
            )
            set_order_fields(row, changed)
            event = AuditEvent(
                call_id=call_id,
                kind="order_exchange_requested",
                customer_id=customer_id,
                order_id=order_id,
                detail=_swap_detail(item_ids, new_item_ids, swap),
            )
            session.add(event_to_row(event))
            return Changed(record=changed)
