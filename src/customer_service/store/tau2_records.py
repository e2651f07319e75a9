"""τ²-bench's retail database and the store's records, one into the other.

The benchmark's JSON (its `db.json`: products, users and orders by id) maps field for
field onto the domain's records; what the benchmark lacks (phone numbers, dates,
carriers) stays empty, and what the store keeps that the benchmark does not (dates,
carriers, quantities above one) is left out of, or spread across, the JSON again.
Everything the benchmark's data holds comes back out as it went in.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

from customer_service.domain import (
    CancelReason,
    Customer,
    ExchangeRequest,
    Fulfilment,
    Order,
    OrderItem,
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    PostalAddress,
    Product,
    ReturnedItems,
    Transaction,
    TransactionKind,
    Variant,
)

__all__ = [
    "Tau2Customer",
    "address_from_tau2",
    "customer_from_tau2",
    "customer_to_tau2",
    "order_from_tau2",
    "order_to_tau2",
    "product_from_tau2",
    "product_to_tau2",
    "read_json",
    "write_json",
]

Json = dict[str, Any]

_COUNTRY_CODES = {"USA": "US"}
"""The benchmark's country names, by ISO code; an ISO code is also accepted as it is."""
_COUNTRY_NAMES = {code: name for name, code in _COUNTRY_CODES.items()}


def read_json(path: Path) -> Any:
    """A JSON file as τ²-bench ships it, or gzip-compressed (`.gz`)."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as compressed:
            return json.load(compressed)
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, data: Any) -> None:
    """`data` as JSON at `path`, gzip-compressed when its name ends in `.gz`."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as compressed:
            compressed.write(text)
    else:
        path.write_text(text, encoding="utf-8")


def _money(value: float | int | str) -> Decimal:
    # Through str: a float's shortest repr is the decimal it was written as ("47.84").
    return Decimal(str(value))


def _country(name: str) -> str:
    code = _COUNTRY_CODES.get(name, name)
    if not (len(code) == 2 and code.isalpha() and code.isupper()):
        raise ValueError(f"unknown country {name!r}: expected {sorted(_COUNTRY_CODES)} or ISO")
    return code


def address_from_tau2(address: Mapping[str, str]) -> PostalAddress:
    return PostalAddress(
        street=address["address1"],
        unit=address["address2"] or None,
        city=address["city"],
        region=address["state"],
        postal_code=address["zip"],
        country=_country(address["country"]),
    )


def _address_to_tau2(address: PostalAddress) -> Json:
    return {
        "address1": address.street,
        "address2": address.unit or "",
        "city": address.city,
        "country": _COUNTRY_NAMES.get(address.country, address.country),
        "state": address.region,
        "zip": address.postal_code,
    }


def product_from_tau2(product: Json) -> Product:
    return Product(
        product_id=product["product_id"],
        name=product["name"],
        variants=tuple(
            Variant(
                item_id=variant["item_id"],
                product_id=product["product_id"],
                options=variant["options"],
                available=variant["available"],
                price=_money(variant["price"]),
            )
            for variant in product["variants"].values()
        ),
    )


def product_to_tau2(product: Product) -> Json:
    return {
        "name": product.name,
        "product_id": product.product_id,
        "variants": {
            variant.item_id: {
                "item_id": variant.item_id,
                "options": dict(variant.options),
                "available": variant.available,
                "price": float(variant.price),
            }
            for variant in product.variants
        },
    }


class Tau2Customer(NamedTuple):
    """A benchmark user as the store keeps it: the customer and their payment methods."""

    customer: Customer
    payment_methods: tuple[PaymentMethod, ...]


def customer_from_tau2(user: Json) -> Tau2Customer:
    address = address_from_tau2(user["address"])
    customer = Customer(
        customer_id=user["user_id"],
        full_name=f"{user['name']['first_name']} {user['name']['last_name']}",
        email=user["email"],
        postal_code=address.postal_code,
        country=address.country,
        address=address,
    )
    methods = tuple(
        PaymentMethod(
            method_id=method["id"],
            kind=PaymentKind(method["source"]),
            brand=method.get("brand"),
            last_four=method.get("last_four"),
            balance=None if "balance" not in method else _money(method["balance"]),
        )
        for method in user["payment_methods"].values()
    )
    return Tau2Customer(customer, methods)


def _method_to_tau2(method: PaymentMethod) -> Json:
    fields: Json = {"source": method.kind.value, "id": method.method_id}
    if method.kind is PaymentKind.CREDIT_CARD:
        fields |= {"brand": method.brand, "last_four": method.last_four}
    if method.balance is not None:
        fields["balance"] = float(method.balance)
    return fields


def customer_to_tau2(
    customer: Customer, methods: Iterable[PaymentMethod], order_ids: Iterable[str]
) -> Json:
    first, _, last = customer.full_name.partition(" ")
    address = customer.address or PostalAddress(
        street="", city="", region="", postal_code=customer.postal_code, country=customer.country
    )
    return {
        "user_id": customer.customer_id,
        "name": {"first_name": first, "last_name": last},
        "address": _address_to_tau2(address),
        "email": customer.email,
        "payment_methods": {method.method_id: _method_to_tau2(method) for method in methods},
        "orders": list(order_ids),
    }


def order_from_tau2(order: Json) -> Order:
    return Order(
        order_id=order["order_id"],
        customer_id=order["user_id"],
        status=OrderStatus(order["status"]),
        items=tuple(
            OrderItem(
                name=item["name"],
                product_id=item["product_id"],
                item_id=item["item_id"],
                options=item["options"],
                price=_money(item["price"]),
            )
            for item in order["items"]
        ),
        shipping_address=address_from_tau2(order["address"]),
        fulfilments=tuple(
            Fulfilment(tracking_ids=tuple(f["tracking_id"]), item_ids=tuple(f["item_ids"]))
            for f in order["fulfillments"]
        ),
        payments=tuple(
            Transaction(
                kind=TransactionKind(payment["transaction_type"]),
                amount=_money(payment["amount"]),
                method_id=payment["payment_method_id"],
            )
            for payment in order["payment_history"]
        ),
        cancel_reason=None
        if order.get("cancel_reason") is None
        else CancelReason(order["cancel_reason"]),
        exchange=(
            None
            if order.get("exchange_items") is None
            else ExchangeRequest(
                item_ids=tuple(order["exchange_items"]),
                new_item_ids=tuple(order["exchange_new_items"]),
                method_id=order["exchange_payment_method_id"],
                price_difference=_money(order["exchange_price_difference"]),
            )
        ),
        returned=(
            None
            if order.get("return_items") is None
            else ReturnedItems(
                item_ids=tuple(order["return_items"]),
                method_id=order["return_payment_method_id"],
            )
        ),
    )


_UNSET_WHEN_NONE = frozenset(
    {
        "cancel_reason",
        "exchange_items",
        "exchange_new_items",
        "exchange_payment_method_id",
        "exchange_price_difference",
        "return_items",
        "return_payment_method_id",
    }
)
"""Fields the benchmark's data leaves out of an order while they are empty."""


def order_to_tau2(order: Order) -> Json:
    fields = _order_fields(order)
    return {
        name: value
        for name, value in fields.items()
        if not (value is None and name in _UNSET_WHEN_NONE)
    }


def _order_fields(order: Order) -> Json:
    exchange, returned = order.exchange, order.returned
    return {
        "order_id": order.order_id,
        "user_id": order.customer_id,
        "address": _address_to_tau2(order.shipping_address),
        "items": [
            {
                "name": item.name,
                "product_id": item.product_id,
                "item_id": item.item_id,
                "price": None if item.price is None else float(item.price),
                "options": dict(item.options),
            }
            for item in order.items
            for _ in range(item.quantity)
        ],
        "status": order.status.value,
        "fulfillments": [
            {"tracking_id": list(f.tracking_ids), "item_ids": list(f.item_ids)}
            for f in order.fulfilments
        ],
        "payment_history": [
            {
                "transaction_type": payment.kind.value,
                "amount": float(payment.amount),
                "payment_method_id": payment.method_id,
            }
            for payment in order.payments
        ],
        "cancel_reason": None if order.cancel_reason is None else order.cancel_reason.value,
        "exchange_items": None if exchange is None else list(exchange.item_ids),
        "exchange_new_items": None if exchange is None else list(exchange.new_item_ids),
        "exchange_payment_method_id": None if exchange is None else exchange.method_id,
        "exchange_price_difference": None if exchange is None else float(exchange.price_difference),
        "return_items": None if returned is None else list(returned.item_ids),
        "return_payment_method_id": None if returned is None else returned.method_id,
    }
