"""Customers: who may be verified, and how a caller's postal code finds them."""

from __future__ import annotations

from sqlalchemy import ColumnElement, String, and_, or_, select
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.domain import Customer
from customer_service.normalize import normalize_postal_code
from customer_service.store.core import StoreCore
from customer_service.store.tables import Base

__all__ = ["CustomerRow", "CustomerStore", "customer_from_row", "customer_to_row"]


class CustomerRow(Base):
    __tablename__ = "customers"

    customer_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    full_name: Mapped[str] = mapped_column(String(200))
    phone: Mapped[str] = mapped_column(String(32))
    email: Mapped[str] = mapped_column(String(320))
    postal_code: Mapped[str] = mapped_column(String(16))
    # normalize_postal_code(postal_code): identity checks look callers up by what they
    # said, so the lookup is an indexed equality instead of a scan with string functions.
    postal_code_key: Mapped[str] = mapped_column(String(16), index=True)
    country: Mapped[str] = mapped_column(String(2))


def customer_to_row(customer: Customer) -> CustomerRow:
    return CustomerRow(
        **customer.model_dump(), postal_code_key=normalize_postal_code(customer.postal_code)
    )


def customer_from_row(row: CustomerRow) -> Customer:
    return Customer.model_validate(row, from_attributes=True)


class CustomerStore(StoreCore):
    """The `Store` methods that read customers."""

    async def customers_with_postal_code(self, postal_code: str) -> list[Customer]:
        """Customers whose postal code is `postal_code` (a `normalize_postal_code` value).

        A nine-digit US ZIP+4 also finds customers filed under its five-digit ZIP.
        """
        code = normalize_postal_code(postal_code)
        if not code:
            return []
        condition: ColumnElement[bool] = CustomerRow.postal_code_key == code
        if len(code) == 9 and code.isdigit():
            condition = or_(
                condition,
                and_(CustomerRow.postal_code_key == code[:5], CustomerRow.country == "US"),
            )
        statement = select(CustomerRow).where(condition).order_by(CustomerRow.customer_id)
        async with self._session("look up customers") as session:
            rows = await session.scalars(statement)
            return [customer_from_row(row) for row in rows]

    async def get_customer(self, customer_id: str) -> Customer | None:
        async with self._session("read a customer") as session:
            row = await session.get(CustomerRow, customer_id)
            return None if row is None else customer_from_row(row)
