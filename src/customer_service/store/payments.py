"""Customers' payment methods (cards, PayPal, gift cards with their balance), and the
one way a payment or refund moves a gift card's balance. What of a balance is free to
spend, and the `Store` read of the methods, are in `balance_holds`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from sqlalchemy import BigInteger, ForeignKey, Integer, String, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.domain import PaymentKind, PaymentMethod
from customer_service.store.money import amount_from_cents, cents
from customer_service.store.tables import Base

__all__ = [
    "PaymentMethodRow",
    "lock_payment_methods",
    "method_from_row",
    "method_rows",
    "move_balance",
]


class PaymentMethodRow(Base):
    __tablename__ = "payment_methods"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.customer_id"), primary_key=True)
    method_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    brand: Mapped[str | None] = mapped_column(String(32))
    last_four: Mapped[str | None] = mapped_column(String(4))
    # Gift cards only. Changed only under the row's lock (`lock_payment_methods`), in the
    # transaction of the order change that spends or refunds it.
    balance_cents: Mapped[int | None] = mapped_column(BigInteger)
    position: Mapped[int] = mapped_column(Integer)


def method_rows(
    customer_id: str, methods: Iterable[PaymentMethod], start: int = 0
) -> list[PaymentMethodRow]:
    """Rows for the customer's `methods`, in their order from position `start`."""
    return [
        PaymentMethodRow(
            customer_id=customer_id,
            method_id=method.method_id,
            kind=method.kind.value,
            brand=method.brand,
            last_four=method.last_four,
            balance_cents=None if method.balance is None else cents(method.balance),
            position=position,
        )
        for position, method in enumerate(methods, start)
    ]


def method_from_row(row: PaymentMethodRow) -> PaymentMethod:
    return PaymentMethod(
        method_id=row.method_id,
        kind=PaymentKind(row.kind),
        brand=row.brand,
        last_four=row.last_four,
        balance=None if row.balance_cents is None else amount_from_cents(row.balance_cents),
    )


async def lock_payment_methods(
    session: AsyncSession, customer_id: str, method_ids: Sequence[str]
) -> dict[str, PaymentMethodRow]:
    """The customer's methods among `method_ids`, locked for this transaction (on
    PostgreSQL; SQLite's write transaction holds the whole database), so that two
    changes spending one gift card never both read its old balance. Locked in id order,
    so two transactions never wait for each other's second lock."""
    statement = (
        select(PaymentMethodRow)
        .where(
            PaymentMethodRow.customer_id == customer_id,
            PaymentMethodRow.method_id.in_(set(method_ids)),
        )
        .order_by(PaymentMethodRow.method_id)
        .with_for_update()
    )
    return {row.method_id: row for row in await session.scalars(statement)}


def move_balance(row: PaymentMethodRow, change: Decimal) -> None:
    """Adds `change` (negative to spend) to a gift card's balance; other methods have none."""
    if row.balance_cents is not None:
        row.balance_cents += cents(change)
