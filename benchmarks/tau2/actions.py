"""τ²-bench's retail tools, each performed by the store operation that does its work.

The agent's specialists call the same operations for a caller; here they are called
with the benchmark's arguments, as the order's or user's owner (the replay has no
caller to verify). A refusal, or a record the benchmark's tool would not find, is a
`ToolRefused` with the reason, and changes nothing, where the benchmark's tool raises.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from customer_service.domain import CancelReason, Order, PostalAddress
from customer_service.store import (
    AddressChangeOutcome,
    CancellationOutcome,
    ReturnOutcome,
    ReturnReason,
    Store,
)
from customer_service.store.order_changes import Changed
from customer_service.store.tau2_records import address_from_tau2

__all__ = ["READS", "TOOLS", "WRITES", "ToolCall", "ToolRefused", "Write", "perform"]


class ToolRefused(Exception):
    """The benchmark's tool would raise: the store refused, or found no such record."""


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    call_id: str
    """Names the call in the store's audit log, and keys the change it makes."""


Operation = Callable[[Store, ToolCall], Awaitable[None]]


async def _owned_order(store: Store, order_id: str) -> Order:
    order = await store.get_order(order_id)
    if order is None:
        raise ToolRefused("order not found")
    return order


def _done(change: Changed[Any]) -> None:
    if change.refusal is not None:
        raise ToolRefused(change.refusal.value)


def _address(arguments: dict[str, Any]) -> PostalAddress:
    try:
        return address_from_tau2(
            {
                name: arguments[name]
                for name in ("address1", "address2", "city", "state", "country", "zip")
            }
        )
    except ValueError as error:
        raise ToolRefused(f"address not accepted: {error}") from error


# Reads: a record the benchmark's tool finds, the store finds.


async def find_user_id_by_email(store: Store, call: ToolCall) -> None:
    if await store.customer_id_by_email(call.arguments["email"]) is None:
        raise ToolRefused("user not found")


async def find_user_id_by_name_zip(store: Store, call: ToolCall) -> None:
    arguments = call.arguments
    name = f"{arguments['first_name']} {arguments['last_name']}".casefold()
    customers = await store.customers_with_postal_code(arguments["zip"])
    if not any(
        customer.full_name.casefold() == name and customer.postal_code == arguments["zip"]
        for customer in customers
    ):
        raise ToolRefused("user not found")


async def get_user_details(store: Store, call: ToolCall) -> None:
    if await store.get_customer(call.arguments["user_id"]) is None:
        raise ToolRefused("user not found")


async def get_order_details(store: Store, call: ToolCall) -> None:
    await _owned_order(store, call.arguments["order_id"])


async def get_product_details(store: Store, call: ToolCall) -> None:
    if await store.get_product(call.arguments["product_id"]) is None:
        raise ToolRefused("product not found")


async def get_item_details(store: Store, call: ToolCall) -> None:
    if await store.get_variant(call.arguments["item_id"]) is None:
        raise ToolRefused("item not found")


async def list_all_product_types(store: Store, call: ToolCall) -> None:
    await store.products()


# Writes.


async def cancel_pending_order(store: Store, call: ToolCall) -> None:
    order = await _owned_order(store, call.arguments["order_id"])
    try:
        reason = CancelReason(call.arguments["reason"])
    except ValueError as error:
        raise ToolRefused("not a reason an order is cancelled for") from error
    outcome, _ = await store.cancel_order(
        order_id=order.order_id,
        customer_id=order.customer_id,
        reason=reason,
        call_id=call.call_id,
    )
    if outcome is not CancellationOutcome.CANCELLED:
        raise ToolRefused(outcome.value)


async def modify_pending_order_address(store: Store, call: ToolCall) -> None:
    order = await _owned_order(store, call.arguments["order_id"])
    outcome, _ = await store.change_shipping_address(
        order_id=order.order_id,
        customer_id=order.customer_id,
        new_address=_address(call.arguments),
        call_id=call.call_id,
        change_key=call.call_id,
    )
    if outcome not in (AddressChangeOutcome.CHANGED, AddressChangeOutcome.ALREADY_APPLIED):
        raise ToolRefused(outcome.value)


async def modify_pending_order_items(store: Store, call: ToolCall) -> None:
    await _swap_items(store.change_order_items, store, call)


async def modify_pending_order_payment(store: Store, call: ToolCall) -> None:
    order = await _owned_order(store, call.arguments["order_id"])
    _done(
        await store.change_order_payment(
            order_id=order.order_id,
            customer_id=order.customer_id,
            payment_method_id=call.arguments["payment_method_id"],
            call_id=call.call_id,
        )
    )


async def exchange_delivered_order_items(store: Store, call: ToolCall) -> None:
    await _swap_items(store.exchange_order_items, store, call)


async def _swap_items(
    operation: Callable[..., Awaitable[Changed[Order]]], store: Store, call: ToolCall
) -> None:
    """An item change or an exchange: the same arguments, other rules."""
    order = await _owned_order(store, call.arguments["order_id"])
    _done(
        await operation(
            order_id=order.order_id,
            customer_id=order.customer_id,
            item_ids=call.arguments["item_ids"],
            new_item_ids=call.arguments["new_item_ids"],
            payment_method_id=call.arguments["payment_method_id"],
            call_id=call.call_id,
        )
    )


async def return_delivered_order_items(store: Store, call: ToolCall) -> None:
    order = await _owned_order(store, call.arguments["order_id"])
    outcome, _ = await store.request_return(
        order_id=order.order_id,
        customer_id=order.customer_id,
        item_indices=_line_positions(order, call.arguments["item_ids"]),
        # The benchmark records no reason; the store keeps a category, never words.
        reason=ReturnReason.OTHER,
        refund_method_id=call.arguments["payment_method_id"],
        call_id=call.call_id,
    )
    if outcome is not ReturnOutcome.REQUESTED:
        raise ToolRefused(outcome.value)


def _line_positions(order: Order, item_ids: Sequence[str]) -> list[int]:
    """The order's lines that `item_ids` name, one line per id (the benchmark's orders
    hold one unit per line); a refusal when the order does not hold them all."""
    free = [index for index, _ in enumerate(order.items)]
    positions = []
    for item_id in item_ids:
        index = next((i for i in free if order.items[i].item_id == item_id), None)
        if index is None:
            raise ToolRefused(ReturnOutcome.ITEMS_NOT_IN_ORDER.value)
        free.remove(index)
        positions.append(index)
    if not positions:
        raise ToolRefused(ReturnOutcome.ITEMS_NOT_IN_ORDER.value)
    return positions


async def modify_user_address(store: Store, call: ToolCall) -> None:
    _done(
        await store.change_default_address(
            customer_id=call.arguments["user_id"],
            address=_address(call.arguments),
            call_id=call.call_id,
        )
    )


READS: dict[str, Operation] = {
    "find_user_id_by_email": find_user_id_by_email,
    "find_user_id_by_name_zip": find_user_id_by_name_zip,
    "get_user_details": get_user_details,
    "get_order_details": get_order_details,
    "get_product_details": get_product_details,
    "get_item_details": get_item_details,
    "list_all_product_types": list_all_product_types,
}


@dataclass(frozen=True)
class Write:
    store_method: str
    """The `Store` method that does the work."""
    perform: Operation


WRITES: dict[str, Write] = {
    "cancel_pending_order": Write("cancel_order", cancel_pending_order),
    "modify_pending_order_address": Write("change_shipping_address", modify_pending_order_address),
    "modify_pending_order_items": Write("change_order_items", modify_pending_order_items),
    "modify_pending_order_payment": Write("change_order_payment", modify_pending_order_payment),
    "exchange_delivered_order_items": Write("exchange_order_items", exchange_delivered_order_items),
    "return_delivered_order_items": Write("request_return", return_delivered_order_items),
    "modify_user_address": Write("change_default_address", modify_user_address),
}
TOOLS: dict[str, Operation] = READS | {name: write.perform for name, write in WRITES.items()}
NOT_THE_STORES = frozenset({"calculate", "transfer_to_human_agents", "think"})
"""The benchmark's tools that neither read nor change its database: nothing to replay."""


async def perform(store: Store, call: ToolCall) -> None:
    """Performs `call` through the store; raises `ToolRefused` where the benchmark's
    tool raises, and KeyError for a tool it does not have."""
    if call.name in NOT_THE_STORES:
        return
    await TOOLS[call.name](store, call)
