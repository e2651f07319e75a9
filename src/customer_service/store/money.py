"""Money in the database: whole cents in integer columns and JSON, `Decimal` above."""

from __future__ import annotations

from decimal import Decimal

from customer_service.domain import CENT

__all__ = ["amount_from_cents", "cents"]


def cents(amount: Decimal) -> int:
    return int((amount / CENT).to_integral_value())


def amount_from_cents(value: int) -> Decimal:
    return (Decimal(value) * CENT).quantize(CENT)
