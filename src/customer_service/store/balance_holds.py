"""What of a gift card's balance is free to spend: its balance less what pending
exchanges hold of it.

An exchange's price difference is paid when the exchange settles, not when it is
requested; until then the gift card that is to pay it holds that amount, so no other
change (a second exchange, an item change, a payment change) can promise it again. The
hold is read from the orders themselves (an order whose exchange is requested, with a
positive difference to that card), so it ends as the exchange settles or is cancelled,
with nothing else to keep in step. Read after the card's row is locked
(`lock_payment_methods`), in the transaction that would spend it: a change that waits
for the lock then reads the hold the other one wrote.
"""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.domain import OrderStatus, PaymentMethod
from customer_service.store.core import StoreCore
from customer_service.store.money import amount_from_cents
from customer_service.store.orders import OrderRow, order_from_row
from customer_service.store.payments import PaymentMethodRow, method_from_row

__all__ = ["PaymentMethodStore", "free_balance", "held_by_exchanges"]


async def held_by_exchanges(session: AsyncSession, customer_id: str) -> dict[str, Decimal]:
    """What the customer's requested exchanges hold of each of their methods: the
    positive price differences still to be paid, by the method that pays them."""
    statement = select(OrderRow).where(
        OrderRow.customer_id == customer_id,
        OrderRow.status == OrderStatus.EXCHANGE_REQUESTED.value,
    )
    held: dict[str, Decimal] = {}
    for row in await session.scalars(statement):
        exchange = order_from_row(row).exchange
        if exchange is not None and exchange.price_difference > 0:
            method_id = exchange.method_id
            held[method_id] = held.get(method_id, Decimal(0)) + exchange.price_difference
    return held


def free_balance(row: PaymentMethodRow, held: dict[str, Decimal]) -> Decimal | None:
    """A gift card's balance less what exchanges hold of it (None for other methods)."""
    if row.balance_cents is None:
        return None
    return amount_from_cents(row.balance_cents) - held.get(row.method_id, Decimal(0))


class PaymentMethodStore(StoreCore):
    """The `Store` methods that read customers' payment methods."""

    async def payment_methods(self, customer_id: str) -> list[PaymentMethod]:
        """The customer's payment methods, in the order they were added; a gift card
        with the balance free to spend (`free_balance`), which is what a caller hears
        and what a change may take."""
        statement = (
            select(PaymentMethodRow)
            .where(PaymentMethodRow.customer_id == customer_id)
            .order_by(PaymentMethodRow.position, PaymentMethodRow.method_id)
        )
        async with self._session("read payment methods") as session:
            rows = list(await session.scalars(statement))
            held = await held_by_exchanges(session, customer_id) if rows else {}
            return [
                method_from_row(row).model_copy(update={"balance": free_balance(row, held)})
                for row in rows
            ]
