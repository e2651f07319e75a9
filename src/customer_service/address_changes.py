"""Writing a confirmed address change: once, atomically, only on an order not yet shipped."""

from __future__ import annotations

import hashlib

from livekit.agents import ToolError

from customer_service.addresses import read_back
from customer_service.call_state import CallState
from customer_service.domain import OrderStatus, PostalAddress
from customer_service.store import AddressChangeOutcome
from customer_service.tasks.order_lookup import OrderLookupResult, not_found_message


def not_changeable_message(order: OrderLookupResult) -> str:
    done = "been delivered" if order.status is OrderStatus.DELIVERED else "already shipped"
    return (
        f"Order {' '.join(order.order_id)} has {done}, so I can't change its delivery "
        "address any more. I can transfer you to a colleague who can help with the parcel."
    )


def ensure_changeable(order: OrderLookupResult) -> None:
    if order.status.has_shipped or order.status is OrderStatus.CANCELLED:
        raise ToolError(not_changeable_message(order))


def change_key(state: CallState, order_id: str, address: PostalAddress) -> str:
    """The same confirmed change in the same call always gets the same key."""
    digest = hashlib.sha256(address.model_dump_json().encode()).hexdigest()[:24]
    return f"{state.call_id}:{order_id}:{digest}"[:128]


async def apply_address_change(
    state: CallState, order: OrderLookupResult, address: PostalAddress
) -> str:
    """Writes the change and returns the sentence that confirms it to the caller."""
    outcome, _ = await state.store.change_shipping_address(
        order_id=order.order_id,
        customer_id=order.customer_id,
        new_address=address,
        call_id=state.call_id,
        change_key=change_key(state, order.order_id, address),
    )
    spaced = " ".join(order.order_id)
    if outcome is AddressChangeOutcome.CHANGED:
        return f"Done. Order {spaced} will now be delivered to {read_back(address)}."
    if outcome is AddressChangeOutcome.ALREADY_APPLIED:
        return f"Order {spaced} is already set to be delivered to {read_back(address)}."
    if outcome is AddressChangeOutcome.ORDER_SHIPPED:
        raise ToolError(not_changeable_message(order))
    raise ToolError(not_found_message(order.order_id))
