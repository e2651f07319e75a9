"""What a scenario says about the store: the state it starts from, the state it must
leave, and the comparison of the two with what a call really left.

The same comparison grades a simulation on LiveKit Cloud (`grading.on_simulation_end`)
and an offline replay (`replay`), so a scenario that passes offline is judged by the same
rule online. Everything is read through the `Store`'s own methods. Besides the fields
every call shares (orders and escalations), each specialist adds its own through its
registration (`expects`, a `simulation.expectations.ScenarioExpectation`: the consents
stored, failed identity checks, return requests, ...), read and compared here by its key.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from customer_service.domain import (
    CancelReason,
    ExchangeRequest,
    Order,
    OrderStatus,
    PostalAddress,
    TransactionKind,
)
from customer_service.simulation.expectations import ScenarioExpectation
from customer_service.store import Store
from customer_service.store.seed import DEMO_CUSTOMERS

if TYPE_CHECKING:
    from customer_service.call.registration import SpecialistRegistration

__all__ = [
    "ExpectedOrder",
    "ExpectedState",
    "OrderState",
    "StartState",
    "StoreState",
    "differences",
    "prepare_start",
    "read_state",
]

_SCENARIO_CALL_ID = "scenario-start"
"""The call id of what a scenario's starting state adds before its call begins."""

_EVERY_ORDER = 1000
"""More orders than any demo customer has: `recent_orders` needs a limit."""


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StartState(_Spec):
    """The store a scenario's call begins with: the demo data, plus these changes."""

    cancelled_orders: tuple[str, ...] = ()
    """Demo orders already cancelled before the call."""
    identity_failures: dict[str, int] = Field(default_factory=dict)
    """Failed identity checks already counted against these customer ids (near misses
    from earlier calls)."""
    store_outage: bool = False
    """Every statement of the store fails for the whole call, reads included. Honoured
    only by the scenario's own scratch store (replay and simulation), never elsewhere."""


class ExpectedOrder(_Spec):
    """What must hold of one order at the end; a field left out must be as it started."""

    status: OrderStatus | None = None
    shipping_address: PostalAddress | None = None
    item_ids: tuple[str, ...] | None = None
    """The variant of every unit, sorted: what an item change leaves."""
    exchange: ExchangeRequest | None = None
    """The exchange requested for it (item ids sorted, method, price difference)."""
    paid_with: str | None = None
    """The payment method id of its latest payment."""
    cancel_reason: CancelReason | None = None
    refund_method: str | None = None
    """The payment method id a return's refund goes to."""


_MONEY_FIELDS = ("paid_with", "cancel_reason", "refund_method")
"""`ExpectedOrder` fields compared as they are: a field left out must be as it started."""


def expectations_of(
    registrations: Iterable[SpecialistRegistration],
) -> dict[str, ScenarioExpectation]:
    """The expectation each of `registrations` names (`expects`), by its key."""
    found = [entry.expects for entry in registrations if entry.expects is not None]
    return {expectation.key: expectation for expectation in found}


@functools.cache
def specialist_expectations() -> dict[str, ScenarioExpectation]:
    """The registered specialists' expectations (`expectations_of`)."""
    from customer_service.specialists import SPECIALISTS

    return expectations_of(SPECIALISTS)


class ExpectedState(_Spec):
    """The state a scenario's call must leave, as changes from where it started.

    An order not listed must end exactly as it started, and an escalation only when
    `escalated`. A field a specialist registers (`specialist_expectations`: the consents
    stored, failed identity checks, return requests, an account's address) is read by
    its own expectation, and what it does not name must not change either."""

    model_config = ConfigDict(frozen=True, extra="allow")

    orders: dict[str, ExpectedOrder] = Field(default_factory=dict)
    escalated: bool = False
    """Whether the call left an escalation (a transfer to a colleague or a callback)."""

    @model_validator(mode="after")
    def _specialists_fields(self) -> ExpectedState:
        extra = self.__pydantic_extra__ or {}
        expectations = specialist_expectations()
        for key, raw in extra.items():
            if key not in expectations:
                known = ", ".join(sorted(expectations))
                raise ValueError(
                    f"expect.{key} is no field, nor one a specialist registers ({known})"
                )
            extra[key] = expectations[key].parse(raw)
        return self

    def of_specialist(self, key: str) -> object | None:
        """What the scenario expects of a specialist's field, if it names it."""
        return (self.__pydantic_extra__ or {}).get(key)


class OrderState(_Spec):
    status: OrderStatus
    shipping_address: PostalAddress
    item_ids: tuple[str, ...] = ()
    exchange: ExchangeRequest | None = None
    paid_with: str | None = None
    cancel_reason: CancelReason | None = None
    refund_method: str | None = None


def _order_state(order: Order) -> OrderState:
    payments = [paid for paid in order.payments if paid.kind is TransactionKind.PAYMENT]
    return OrderState(
        status=order.status,
        shipping_address=order.shipping_address,
        item_ids=tuple(sorted(order.unit_item_ids())),
        exchange=order.exchange,
        paid_with=payments[-1].method_id if payments else None,
        cancel_reason=order.cancel_reason,
        refund_method=order.returned.method_id if order.returned else None,
    )


class StoreState(_Spec):
    """What the store holds that a scenario can speak about."""

    orders: dict[str, OrderState]
    escalations: int
    specialists: dict[str, Any] = Field(default_factory=dict)
    """What each specialist's expectation read, by its key."""


async def prepare_start(store: Store, start: StartState) -> None:
    """Applies a scenario's starting changes to a freshly seeded demo store."""
    for order_id in start.cancelled_orders:
        order = await store.get_order(order_id)
        if order is None:
            raise ValueError(f"the scenario cancels order {order_id}, which is not in the store")
        await store.cancel_order(
            order_id=order_id,
            customer_id=order.customer_id,
            reason=CancelReason.NO_LONGER_NEEDED,
            call_id=_SCENARIO_CALL_ID,
        )
    earlier = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    for customer_id, count in start.identity_failures.items():
        for _ in range(count):
            await store.record_identity_failure([customer_id], _SCENARIO_CALL_ID, at=earlier)


async def read_state(store: Store, order_ids: tuple[str, ...] = ()) -> StoreState:
    """The demo customers' orders (and `order_ids`), the number of escalations, and what
    each specialist's expectation reads."""
    found = [
        order
        for customer in DEMO_CUSTOMERS
        for order in await store.recent_orders(customer.customer_id, _EVERY_ORDER)
    ]
    for order_id in order_ids:
        order = await store.get_order(order_id)
        if order is not None:
            found.append(order)
    orders = {order.order_id: _order_state(order) for order in found}
    return StoreState(
        orders=orders,
        escalations=len(await store.escalations()),
        specialists={
            key: await expectation.read(store)
            for key, expectation in specialist_expectations().items()
        },
    )


def differences(expected: ExpectedState, start: StoreState, end: StoreState) -> list[str]:
    """Every way the call's end state differs from what the scenario expects, one
    sentence each; empty when it matches."""
    problems: list[str] = []
    for order_id in sorted(set(start.orders) | set(expected.orders)):
        problems += _order_differences(order_id, expected, start, end)
    for key, expectation in specialist_expectations().items():
        problems += expectation.differences(
            expected.of_specialist(key), start.specialists.get(key), end.specialists.get(key)
        )
    escalated = end.escalations > start.escalations
    if escalated != expected.escalated:
        problems.append(
            "the call was escalated, expected no escalation"
            if escalated
            else "the call was not escalated, expected an escalation"
        )
    return problems


def _order_differences(
    order_id: str, expected: ExpectedState, start: StoreState, end: StoreState
) -> list[str]:
    before, after = start.orders.get(order_id), end.orders.get(order_id)
    if after is None or before is None:
        return [f"order {order_id} is not in the store"]
    wanted = expected.orders.get(order_id, ExpectedOrder())
    status = wanted.status or before.status
    address = wanted.shipping_address or before.shipping_address
    problems: list[str] = []
    if after.status != status:
        problems.append(f"order {order_id}: status is {after.status}, expected {status}")
    if after.shipping_address != address:
        problems.append(
            f"order {order_id}: ships to {after.shipping_address.one_line()}, "
            f"expected {address.one_line()}"
        )
    items = wanted.item_ids if wanted.item_ids is not None else before.item_ids
    if after.item_ids != items:
        problems.append(
            f"order {order_id}: items are {list(after.item_ids)}, expected {list(items)}"
        )
    exchange = wanted.exchange or before.exchange
    if after.exchange != exchange:
        problems.append(
            f"order {order_id}: exchange requested is {_describe_exchange(after.exchange)}, "
            f"expected {_describe_exchange(exchange)}"
        )
    for field in _MONEY_FIELDS:
        want, got = getattr(wanted, field) or getattr(before, field), getattr(after, field)
        if got != want:
            problems.append(f"order {order_id}: {field} is {got}, expected {want}")
    return problems


def _describe_exchange(exchange: ExchangeRequest | None) -> str:
    if exchange is None:
        return "none"
    return (
        f"{list(exchange.item_ids)} for {list(exchange.new_item_ids)}, difference "
        f"{exchange.price_difference} through {exchange.method_id}"
    )
