"""Customers: who may be verified and how a caller's postal code finds them. A change to
an account is its specialist's store part (`default_addresses.py`), which keeps the
row's lookup keys right (`lookup_keys`, `set_account_address`)."""

from __future__ import annotations

from sqlalchemy import ColumnElement, String, Text, and_, or_, select
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.domain import Customer, PostalAddress
from customer_service.normalize import (
    digits_from_speech,
    name_key,
    normalize_email,
    normalize_postal_code,
)
from customer_service.store.core import StoreCore
from customer_service.store.tables import Base

__all__ = [
    "CustomerRow",
    "CustomerStore",
    "customer_from_row",
    "customer_to_row",
    "lookup_keys",
    "postal_code_condition",
    "set_account_address",
]


PHONE_TAIL_DIGITS = 4
"""Digits at the end of a phone number that survive every way of saying it (with or
without country code, trunk prefix or carrier code)."""


class CustomerRow(Base):
    __tablename__ = "customers"

    customer_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    full_name: Mapped[str] = mapped_column(String(200))
    phone: Mapped[str | None] = mapped_column(String(32))
    email: Mapped[str] = mapped_column(String(320))
    postal_code: Mapped[str] = mapped_column(String(16))
    # normalize_postal_code(postal_code): identity checks look callers up by what they
    # said, so the lookup is an indexed equality instead of a scan with string functions.
    postal_code_key: Mapped[str] = mapped_column(String(16), index=True)
    country: Mapped[str] = mapped_column(String(2))
    # The default address; its postal code and country are the two columns above. Null
    # for an account stored without one.
    street: Mapped[str | None] = mapped_column(Text)
    unit: Mapped[str | None] = mapped_column(Text)
    city: Mapped[str | None] = mapped_column(Text)
    region: Mapped[str | None] = mapped_column(Text)
    # `lookup_keys`: a failed identity check finds the accounts it names by indexed
    # equalities, not by reading every customer. Text: normalising may lengthen a name.
    name_key: Mapped[str] = mapped_column(Text, index=True)
    email_key: Mapped[str] = mapped_column(Text, index=True)
    phone_tail: Mapped[str] = mapped_column(String(PHONE_TAIL_DIGITS), index=True)


def lookup_keys(full_name: str, email: str, phone: str | None) -> dict[str, str]:
    """The indexed keys of a customer's name, email address and phone number: what
    `names_match`, `emails_match` and `phones_match` compare, or narrow down to."""
    return {
        "name_key": name_key(full_name),
        "email_key": normalize_email(email) or "",
        "phone_tail": digits_from_speech(phone or "")[-PHONE_TAIL_DIGITS:],
    }


def customer_to_row(customer: Customer) -> CustomerRow:
    row = CustomerRow(
        **customer.model_dump(exclude={"address", "postal_code", "country"}),
        **lookup_keys(customer.full_name, customer.email, customer.phone),
    )
    set_account_address(row, customer.postal_code, customer.country, customer.address)
    return row


def set_account_address(
    row: CustomerRow, postal_code: str, country: str, address: PostalAddress | None
) -> None:
    """The account's postal code, country and default address: one place, so the postal
    code an identity check compares is always the default address's."""
    row.postal_code = postal_code
    row.postal_code_key = normalize_postal_code(postal_code)
    row.country = country
    row.street = None if address is None else address.street
    row.unit = None if address is None else address.unit
    row.city = None if address is None else address.city
    row.region = None if address is None else address.region


def customer_from_row(row: CustomerRow) -> Customer:
    address = (
        None
        if row.street is None or row.city is None or row.region is None
        else PostalAddress(
            street=row.street,
            unit=row.unit,
            city=row.city,
            region=row.region,
            postal_code=row.postal_code,
            country=row.country,
        )
    )
    return Customer(
        customer_id=row.customer_id,
        full_name=row.full_name,
        phone=row.phone,
        email=row.email,
        postal_code=row.postal_code,
        country=row.country,
        address=address,
    )


def postal_code_condition(postal_code: str) -> ColumnElement[bool] | None:
    """The customers filed under `postal_code` as said, in SQL; None when it holds no
    code. A nine-digit US ZIP+4 also finds customers filed under its five-digit ZIP."""
    code = normalize_postal_code(postal_code)
    if not code:
        return None
    condition: ColumnElement[bool] = CustomerRow.postal_code_key == code
    if len(code) == 9 and code.isdigit():
        condition = or_(
            condition,
            and_(CustomerRow.postal_code_key == code[:5], CustomerRow.country == "US"),
        )
    return condition


class CustomerStore(StoreCore):
    """The `Store` methods that read customers."""

    async def customers_with_postal_code(self, postal_code: str) -> list[Customer]:
        """Customers whose postal code is `postal_code` (a `normalize_postal_code` value).

        A nine-digit US ZIP+4 also finds customers filed under its five-digit ZIP.
        """
        condition = postal_code_condition(postal_code)
        if condition is None:
            return []
        statement = select(CustomerRow).where(condition).order_by(CustomerRow.customer_id)
        async with self._session("look up customers") as session:
            rows = await session.scalars(statement)
            return [customer_from_row(row) for row in rows]

    async def customers(self, *, limit: int) -> list[Customer]:
        """The first `limit` customers by id: what a caller of this store may be (the
        local recogniser listens for their names and addresses)."""
        statement = select(CustomerRow).order_by(CustomerRow.customer_id).limit(limit)
        async with self._session("list customers") as session:
            return [customer_from_row(row) for row in await session.scalars(statement)]

    async def get_customer(self, customer_id: str) -> Customer | None:
        async with self._session("read a customer") as session:
            row = await session.get(CustomerRow, customer_id)
            return None if row is None else customer_from_row(row)

    async def customer_id_by_email(self, email: str) -> str | None:
        """The id of the one customer whose email address is `email` (as written or said;
        case does not matter), or None: none has it, or several do, and an email several
        accounts share names none of them."""
        key = normalize_email(email)
        if key is None:
            return None
        statement = select(CustomerRow.customer_id).where(CustomerRow.email_key == key)
        async with self._session("look up a customer") as session:
            found = list(await session.scalars(statement.limit(2)))
        return found[0] if len(found) == 1 else None
