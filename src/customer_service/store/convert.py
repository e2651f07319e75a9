"""Between table rows and the domain records the rest of the agent uses."""

from __future__ import annotations

from customer_service.domain import Customer, Order, OrderItem, OrderStatus, PostalAddress
from customer_service.normalize import normalize_postal_code
from customer_service.store.events import AuditEvent
from customer_service.store.records import AddressChange, ConsentRecord, EscalationRecord
from customer_service.store.schema import (
    AddressChangeRow,
    AuditEventRow,
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


def event_to_row(event: AuditEvent) -> AuditEventRow:
    return AuditEventRow(
        call_id=event.call_id,
        kind=event.kind,
        customer_id=event.customer_id,
        order_id=event.order_id,
        detail=event.detail,
        created_at=event.created_at,
    )


def event_from_row(row: AuditEventRow) -> AuditEvent:
    return AuditEvent(
        call_id=row.call_id,
        kind=row.kind,
        customer_id=row.customer_id,
        order_id=row.order_id,
        detail=row.detail,
        created_at=row.created_at,
    )


def address_change_to_row(change: AddressChange) -> AddressChangeRow:
    return AddressChangeRow(
        change_key=change.change_key,
        order_id=change.order_id,
        customer_id=change.customer_id,
        call_id=change.call_id,
        old_address=change.old_address.model_dump(mode="json"),
        new_address=change.new_address.model_dump(mode="json"),
        changed_at=change.changed_at,
    )


def address_change_from_row(row: AddressChangeRow) -> AddressChange:
    return AddressChange(
        change_key=row.change_key,
        order_id=row.order_id,
        customer_id=row.customer_id,
        call_id=row.call_id,
        old_address=PostalAddress.model_validate(row.old_address),
        new_address=PostalAddress.model_validate(row.new_address),
        changed_at=row.changed_at,
    )


def consent_to_row(record: ConsentRecord) -> ConsentRow:
    return ConsentRow(
        topic=record.topic,
        granted=record.granted,
        wording_version=record.wording_version,
        asked_at=record.asked_at,
        call_id=record.call_id,
        customer_id=record.customer_id,
    )


def consent_from_row(row: ConsentRow) -> ConsentRecord:
    return ConsentRecord(
        topic=row.topic,
        granted=row.granted,
        wording_version=row.wording_version,
        asked_at=row.asked_at,
        call_id=row.call_id,
        customer_id=row.customer_id,
    )


def escalation_to_row(record: EscalationRecord) -> EscalationRow:
    return EscalationRow(
        escalation_id=record.escalation_id,
        call_id=record.call_id,
        reason=record.reason,
        verified=record.verified,
        customer_id=record.customer_id,
        collected=record.collected,
        failed_specialist=record.failed_specialist,
        failure=record.failure,
        summary=record.summary,
        created_at=record.created_at,
    )


def escalation_from_row(row: EscalationRow) -> EscalationRecord:
    return EscalationRecord(
        escalation_id=row.escalation_id,
        call_id=row.call_id,
        reason=row.reason,
        verified=row.verified,
        customer_id=row.customer_id,
        collected=row.collected,
        failed_specialist=row.failed_specialist,
        failure=row.failure,
        summary=row.summary,
        created_at=row.created_at,
    )
