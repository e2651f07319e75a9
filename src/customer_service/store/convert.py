"""Between table rows and the domain records the rest of the agent uses."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from customer_service.domain import Customer, Order, OrderItem, OrderStatus, PostalAddress
from customer_service.normalize import normalize_postal_code
from customer_service.store.events import AuditEvent
from customer_service.store.records import AddressChange, ConsentRecord, EscalationRecord
from customer_service.store.schema import (
    AddressChangeRow,
    AuditEventRow,
    Base,
    ConsentRow,
    CustomerRow,
    EscalationRow,
    OrderRow,
)

__all__ = [
    "address_change_from_row",
    "address_change_to_row",
    "consent_from_row",
    "consent_to_row",
    "customer_from_row",
    "customer_to_row",
    "escalation_from_row",
    "escalation_to_row",
    "event_from_row",
    "event_to_row",
    "order_from_row",
    "order_to_row",
    "set_shipping_address",
]


def customer_to_row(customer: Customer) -> CustomerRow:
    return CustomerRow(
        customer_id=customer.customer_id,
        full_name=customer.full_name,
        phone=customer.phone,
        email=customer.email,
        postal_code=customer.postal_code,
        postal_code_key=normalize_postal_code(customer.postal_code),
        country=customer.country,
    )


def customer_from_row(row: CustomerRow) -> Customer:
    return Customer(
        customer_id=row.customer_id,
        full_name=row.full_name,
        phone=row.phone,
        email=row.email,
        postal_code=row.postal_code,
        country=row.country,
    )


def order_to_row(order: Order) -> OrderRow:
    row = OrderRow(
        order_id=order.order_id,
        customer_id=order.customer_id,
        status=order.status.value,
        items=[{"name": item.name, "quantity": item.quantity} for item in order.items],
        placed_on=order.placed_on,
        carrier=order.carrier,
        tracking_number=order.tracking_number,
        delivered_on=order.delivered_on,
    )
    set_shipping_address(row, order.shipping_address)
    return row


def set_shipping_address(row: OrderRow, address: PostalAddress) -> None:
    row.ship_street = address.street
    row.ship_unit = address.unit
    row.ship_city = address.city
    row.ship_region = address.region
    row.ship_postal_code = address.postal_code
    row.ship_country = address.country


def order_from_row(row: OrderRow) -> Order:
    return Order(
        order_id=row.order_id,
        customer_id=row.customer_id,
        status=OrderStatus(row.status),
        items=tuple(OrderItem.model_validate(item) for item in row.items),
        placed_on=row.placed_on,
        carrier=row.carrier,
        tracking_number=row.tracking_number,
        delivered_on=row.delivered_on,
        shipping_address=PostalAddress(
            street=row.ship_street,
            unit=row.ship_unit,
            city=row.ship_city,
            region=row.ship_region,
            postal_code=row.ship_postal_code,
            country=row.ship_country,
        ),
    )


RecordT = TypeVar("RecordT", bound=BaseModel)
RowT = TypeVar("RowT", bound=Base)


def _to_row(record: BaseModel, row_type: type[RowT]) -> RowT:
    # These rows mirror their record field for field; nested records become JSON dicts.
    return row_type(**record.model_dump())


def _from_row(row: object, record_type: type[RecordT]) -> RecordT:
    return record_type.model_validate(row, from_attributes=True)


def event_to_row(event: AuditEvent) -> AuditEventRow:
    return _to_row(event, AuditEventRow)


def event_from_row(row: AuditEventRow) -> AuditEvent:
    return _from_row(row, AuditEvent)


def address_change_to_row(change: AddressChange) -> AddressChangeRow:
    return _to_row(change, AddressChangeRow)


def address_change_from_row(row: AddressChangeRow) -> AddressChange:
    return _from_row(row, AddressChange)


def consent_to_row(record: ConsentRecord) -> ConsentRow:
    return _to_row(record, ConsentRow)


def consent_from_row(row: ConsentRow) -> ConsentRecord:
    return _from_row(row, ConsentRecord)


def escalation_to_row(record: EscalationRecord) -> EscalationRow:
    return _to_row(record, EscalationRow)


def escalation_from_row(row: EscalationRow) -> EscalationRecord:
    return _from_row(row, EscalationRecord)
