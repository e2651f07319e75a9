"""Between table rows and the domain records the rest of the agent uses."""

from __future__ import annotations

from customer_service.domain import Customer, Order, OrderItem, OrderStatus, PostalAddress
from customer_service.normalize import normalize_postal_code
from customer_service.store.events import AuditEvent
from customer_service.store.schema import AuditEventRow, CustomerRow, OrderRow

__all__ = [
    "customer_from_row",
    "customer_to_row",
    "event_from_row",
    "event_to_row",
    "order_from_row",
    "order_to_row",
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
    address = order.shipping_address
    return OrderRow(
        order_id=order.order_id,
        customer_id=order.customer_id,
        status=order.status.value,
        items=[{"name": item.name, "quantity": item.quantity} for item in order.items],
        placed_on=order.placed_on,
        carrier=order.carrier,
        tracking_number=order.tracking_number,
        delivered_on=order.delivered_on,
        ship_street=address.street,
        ship_unit=address.unit,
        ship_city=address.city,
        ship_region=address.region,
        ship_postal_code=address.postal_code,
        ship_country=address.country,
    )


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
