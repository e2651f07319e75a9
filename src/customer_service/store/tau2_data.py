"""Loading τ²-bench's retail database into the store, and writing the store back out in
its shape (`python src/agent.py import-tau2 DB.json` / `export-tau2 OUT.json`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

from pydantic import ValidationError
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.store.catalog import ProductRow, VariantRow, add_products, read_products
from customer_service.store.core import StoreCore
from customer_service.store.customers import CustomerRow, customer_from_row, customer_to_row
from customer_service.store.errors import Tau2ImportRefused
from customer_service.store.orders import OrderRow, order_from_row, order_to_row
from customer_service.store.payments import PaymentMethodRow, method_from_row, method_rows
from customer_service.store.tau2_records import (
    customer_from_tau2,
    customer_to_tau2,
    order_from_tau2,
    order_to_tau2,
    product_from_tau2,
    product_to_tau2,
)

__all__ = ["Tau2DataStore", "Tau2Imported", "Tau2ShapeError"]

RecordT = TypeVar("RecordT")


class Tau2Imported(NamedTuple):
    products: int
    customers: int
    orders: int


class Tau2DataStore(StoreCore):
    """The `Store` methods that load τ²-bench's retail database and write it back."""

    async def import_tau2(self, data: Mapping[str, Any], *, force: bool = False) -> Tau2Imported:
        """Loads τ²-bench's retail database (`db.json`, parsed) in one transaction: all
        of it or nothing.

        Raises `Tau2ImportRefused` when the store holds customers the data does not, or
        any of the data's own (it was imported before), unless `force`: then records
        with the data's ids are replaced by the data's and the others stay. Raises
        `Tau2ShapeError` (before anything is written) for data not in the benchmark's
        shape.
        """
        products = _read(data, "products", product_from_tau2)
        customers = _read(data, "users", customer_from_tau2)
        orders = _read(data, "orders", order_from_tau2)
        async with self._write_session("import the benchmark's data") as session:
            present = await _customer_count(session)
            if present and not force:
                raise Tau2ImportRefused(present)
            if present:
                await _remove(session, data)
            await add_products(session, enumerate(products))
            session.add_all(customer_to_row(user.customer) for user in customers)
            await session.flush()
            for user in customers:
                session.add_all(method_rows(user.customer.customer_id, user.payment_methods))
            session.add_all(
                order_to_row(order, position=position) for position, order in enumerate(orders)
            )
        return Tau2Imported(len(products), len(customers), len(orders))

    async def export_tau2(self) -> dict[str, Any]:
        """The whole store in τ²-bench's `db.json` shape: products, users (each with their
        payment methods and order ids, in the order they were loaded) and orders."""
        async with self._session("export the store") as session:
            products = await read_products(session, None)
            customers = [
                customer_from_row(row)
                for row in await session.scalars(
                    select(CustomerRow).order_by(CustomerRow.customer_id)
                )
            ]
            methods: dict[str, list[Any]] = {}
            for row in await session.scalars(
                select(PaymentMethodRow).order_by(
                    PaymentMethodRow.customer_id, PaymentMethodRow.position
                )
            ):
                methods.setdefault(row.customer_id, []).append(method_from_row(row))
            orders = [
                order_from_row(row)
                for row in await session.scalars(
                    select(OrderRow).order_by(OrderRow.position.nulls_last(), OrderRow.order_id)
                )
            ]
        order_ids: dict[str, list[str]] = {}
        for order in orders:
            order_ids.setdefault(order.customer_id, []).append(order.order_id)
        return {
            "products": {product.product_id: product_to_tau2(product) for product in products},
            "users": {
                customer.customer_id: customer_to_tau2(
                    customer,
                    methods.get(customer.customer_id, []),
                    order_ids.get(customer.customer_id, []),
                )
                for customer in customers
            },
            "orders": {order.order_id: order_to_tau2(order) for order in orders},
        }


class Tau2ShapeError(ValueError):
    """Data that is not τ²-bench's retail database. The message says where (the kind of
    record, its place in the file, the field) and never a value: the file holds
    customers' names, emails and addresses."""


def _read(data: Mapping[str, Any], kind: str, convert: Callable[[Any], RecordT]) -> list[RecordT]:
    try:
        records = data[kind]
        values = list(records.values())
    except (KeyError, TypeError, AttributeError):
        raise Tau2ShapeError(f"no {kind} by id") from None
    converted = []
    for place, record in enumerate(values, start=1):
        try:
            converted.append(convert(record))
        except (KeyError, TypeError, ValueError) as error:
            raise Tau2ShapeError(
                f"{kind} record {place} of {len(values)}: {_what_is_wrong(error)}"
            ) from None
    return converted


def _what_is_wrong(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        return f"{first['type']} at {'.'.join(str(part) for part in first['loc'])}"
    if isinstance(error, KeyError) and error.args:
        return f"no field {str(error.args[0])[:40]!r}"
    # An enum's message names the value it refused; only its kind is said.
    refused = re.search(r"is not a valid (\w+)", str(error))
    return f"not a valid {refused.group(1)}" if refused else type(error).__name__


async def _customer_count(session: AsyncSession) -> int:
    return int(await session.scalar(select(func.count()).select_from(CustomerRow)) or 0)


async def _remove(session: AsyncSession, data: Mapping[str, Any]) -> None:
    """Deletes the records the data replaces: its orders, payment methods, customers and
    catalog (rows that refer to them, such as return requests, would stop the deletion
    with an integrity error, and the import with it)."""
    for row_type, column, ids in (
        (OrderRow, OrderRow.order_id, data["orders"]),
        (PaymentMethodRow, PaymentMethodRow.customer_id, data["users"]),
        (CustomerRow, CustomerRow.customer_id, data["users"]),
        (VariantRow, VariantRow.product_id, data["products"]),
        (ProductRow, ProductRow.product_id, data["products"]),
    ):
        for row in await session.scalars(select(row_type).where(column.in_(list(ids)))):
            await session.delete(row)
        await session.flush()
