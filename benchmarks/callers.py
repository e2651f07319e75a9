"""Callers, what they want, and the store state that proves they got it.

A simulated caller says their request, then answers whatever the agent asks (identity
details, an order number, an address, yes to a read-back, no to text updates) and stops
when the agent asks nothing more. The same caller talks to every agent, so caller turns
are counted, not scripted: an agent that asks again for something already said costs a
turn. A flow counts only when `check_outcome` finds in the store what it must leave.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import insert

from customer_service.addresses import validated_address
from customer_service.domain import (
    CancelReason,
    Customer,
    Order,
    OrderItem,
    OrderStatus,
    PostalAddress,
)
from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from customer_service.store import Store
from customer_service.store.customers import CustomerRow, customer_to_row
from customer_service.store.orders import OrderRow, order_to_row

SMS = ConsentTopic.ORDER_UPDATES_SMS
CONSENT_QUESTION = CONSENT_WORDING[SMS].question


class Intent(enum.StrEnum):
    LOOKUP = "verify, then look up an order"
    ADDRESS = "verify, then change an address (+ text-update offer)"
    CANCEL = "verify, then cancel an order"
    CONSENT = "verify, then give consent (text updates)"


class Variant(enum.StrEnum):
    UP_FRONT = "up front"
    """The caller's first words carry every detail they can give before being asked."""
    ASKED = "when asked"
    """The caller states the request only, and gives each detail when asked for it."""


NEW_ADDRESS: dict[str, Any] = {
    "street": "1 Market Street",
    "unit": "Suite 5",
    "city": "San Francisco",
    "region": "California",
    "postal_code": "94105",
    "country": "USA",
}
NEW_ADDRESS_WORDS = "1 Market Street, Suite 5, San Francisco, California 94105"


@dataclass(frozen=True)
class Caller:
    customer_id: str
    full_name: str
    postal_code: str
    email: str
    order_id: str
    """The order this caller's request is about (a shipped one for a lookup is fine)."""
    wrong_postal_code: bool = False
    """Gives a postal code that is not on the account: the flow must be reported failed."""

    @property
    def identity_args(self) -> dict[str, Any]:
        postal = "00000" if self.wrong_postal_code else self.postal_code
        return {"full_name": self.full_name, "postal_code": postal, "phone_or_email": self.email}

    @property
    def identity_words(self) -> str:
        """The three identity details, as this caller says them in one breath."""
        args = self.identity_args
        return f"{args['full_name']}, {args['postal_code']}, {args['phone_or_email']}"

    def with_wrong_postal_code(self) -> Caller:
        return replace(self, wrong_postal_code=True)

    def opening(self, intent: Intent, variant: Variant) -> str:
        if variant is Variant.ASKED:
            return {
                Intent.LOOKUP: "I'd like to check on an order.",
                Intent.ADDRESS: "I need to change the delivery address of an order.",
                Intent.CANCEL: "I'd like to cancel an order.",
                Intent.CONSENT: "I'd like to change my text update settings.",
            }[intent]
        me = f"Hi, this is {self.identity_words}."
        return {
            Intent.LOOKUP: f"{me} Where is my order {self.order_id}?",
            Intent.ADDRESS: (
                f"{me} Please change the delivery address of order {self.order_id} to "
                f"{NEW_ADDRESS_WORDS}."
            ),
            Intent.CANCEL: f"{me} Please cancel order {self.order_id}.",
            Intent.CONSENT: f"{me} I'd like to change my text update settings.",
        }[intent]

    def reply(self, agent_said: str) -> str | None:
        """The answer to the agent's latest words; None when nothing is asked."""
        said = agent_said.lower()
        # The single agent's mismatch wording, then this agent's.
        refused = ("don't match our records", "can't verify you with those details")
        if "full name" in said or any(words in said for words in refused):
            return self.identity_words
        if "text message updates" in said and "yes or no" in said:
            return "No thanks."
        if "why would you like to cancel" in said:
            return "I don't need it any more."
        if "cancel this order" in said and "yes or no" in said:
            return "Yes, please."
        if "is that right" in said:
            return "Yes, that's right."
        if "is that the one" in said:
            return "Yes, that's the one."
        if "new delivery address" in said:
            return NEW_ADDRESS_WORDS
        if "order number" in said:
            return f"It's {self.order_id}."
        return None


JORDAN = Caller(
    customer_id="C-1001",
    full_name="Jordan Lee",
    postal_code="94107",
    email="jordan.lee@example.com",
    order_id="100102",
)
"""The demo caller: 100102 is processing (changeable, cancellable); 100101 has shipped."""


def demo_caller(intent: Intent) -> Caller:
    if intent is Intent.LOOKUP:
        return replace(JORDAN, order_id="100101")
    return JORDAN


# --- the store state a completed intent leaves -----------------------------------------


def expected_address() -> PostalAddress:
    return validated_address(**NEW_ADDRESS)


async def check_outcome(store: Store, call_id: str, caller: Caller, intent: Intent) -> str | None:
    """None when the store holds what the completed intent must leave; else what is missing."""
    kinds = [event.kind for event in await store.audit_events(call_id=call_id)]
    if "identity_verified" not in kinds:
        return "caller not verified (no identity_verified audit event)"
    if intent is Intent.LOOKUP:
        disclosed = await store.audit_events(call_id=call_id, kind="order_disclosed")
        if not any(event.order_id == caller.order_id for event in disclosed):
            return f"order {caller.order_id} not disclosed (no order_disclosed audit event)"
        return None
    if intent is Intent.ADDRESS:
        order = await store.get_order(caller.order_id)
        if order is None or order.shipping_address != expected_address():
            return "order address unchanged"
        changes = await store.address_changes(order_id=caller.order_id, call_id=call_id)
        if len(changes) != 1:
            return f"{len(changes)} address changes recorded, expected 1"
        if "address_changed" not in kinds:
            return "no address_changed audit event"
        return await _consent_stored(store, call_id, caller, granted=False)
    if intent is Intent.CANCEL:
        order = await store.get_order(caller.order_id)
        if order is None or order.status is not OrderStatus.CANCELLED:
            return "order not cancelled"
        if order.cancel_reason is not CancelReason.NO_LONGER_NEEDED:
            return "the caller's reason for cancelling not stored"
        if "order_cancelled" not in kinds:
            return "no order_cancelled audit event"
        return None
    return await _consent_stored(store, call_id, caller, granted=False)


async def _consent_stored(
    store: Store, call_id: str, caller: Caller, *, granted: bool
) -> str | None:
    record = await store.latest_consent(topic=SMS, customer_id=caller.customer_id)
    if record is None or record.call_id != call_id:
        return "text-update answer not stored"
    if record.granted is not granted or record.wording_version != CONSENT_WORDING[SMS].version:
        return "text-update answer stored wrong"
    return None


# --- callers of their own, for many calls on one store ---------------------------------

FIRST_NAMES = ("Alex", "Casey", "Jamie", "Morgan", "Riley", "Taylor", "Avery", "Quinn")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _letters(number: int) -> str:
    """A number in letters only ("b", "ba", ...), so no caller detail looks like an order."""
    word = ""
    while True:
        number, digit = divmod(number, len(_LETTERS))
        word = _LETTERS[digit] + word
        if number == 0:
            return word


@dataclass(frozen=True)
class BenchPopulation:
    """Generated customers, each with `orders_each` orders, numbered from `first_order`."""

    customers: int
    orders_each: int = 1
    first_order: int = 400000
    zip_codes: int = 30000
    skip_orders: frozenset[int] = field(default_factory=frozenset)
    namesakes: int = 1
    """How many customers share each full name: customers `k * namesakes` up to
    `(k + 1) * namesakes - 1` do, each under a different postal code (consecutive
    indexes, so at most `zip_codes` of them) and with an email address of its own."""

    def __post_init__(self) -> None:
        if not 1 <= self.namesakes <= self.zip_codes:
            raise ValueError(f"namesakes must be 1 to {self.zip_codes}: {self.namesakes}")

    def customer(self, index: int) -> Customer:
        group = index // self.namesakes
        surname = _letters(group + 26 * 26).capitalize()
        first = FIRST_NAMES[group % len(FIRST_NAMES)]
        local_part = f"{first.lower()}.{surname.lower()}"
        if self.namesakes > 1:
            # In letters, as the names are; only when names repeat, so that a population
            # of unique names stays as it always was.
            local_part += f".{_letters(index)}"
        return Customer(
            customer_id=f"C-B{index:07d}",
            full_name=f"{first} {surname}",
            phone=f"+1212555{index % 10000:04d}",
            email=f"{local_part}@example.com",
            postal_code=f"{10000 + index % self.zip_codes:05d}",
            country="US",
        )

    def order_ids(self, index: int) -> list[str]:
        start = self.first_order + index * self.orders_each
        return [f"{number:06d}" for number in range(start, start + self.orders_each)]

    def caller(self, index: int, order: int = 0) -> Caller:
        customer = self.customer(index)
        return Caller(
            customer_id=customer.customer_id,
            full_name=customer.full_name,
            postal_code=customer.postal_code,
            email=customer.email,
            order_id=self.order_ids(index)[order],
        )

    def orders(self, index: int) -> list[Order]:
        customer = self.customer(index)
        address = PostalAddress(
            street=f"{index % 900 + 1} Main St",
            city="Springfield",
            region="NY",
            postal_code=customer.postal_code,
            country="US",
        )
        placed = dt.date(2026, 1, 1)
        orders = []
        for number, order_id in enumerate(self.order_ids(index)):
            # The first order of every customer is still processing: changeable, cancellable.
            status = (OrderStatus.PENDING, OrderStatus.PROCESSED, OrderStatus.DELIVERED)[
                0 if number == 0 else number % 3
            ]
            orders.append(
                Order(
                    order_id=order_id,
                    customer_id=customer.customer_id,
                    status=status,
                    items=(OrderItem(name="Desk lamp", quantity=1 + number % 2),),
                    placed_on=placed + dt.timedelta(days=(index + number) % 300),
                    carrier=None if status is OrderStatus.PENDING else "UPS",
                    tracking_number=None if status is OrderStatus.PENDING else f"1Z{order_id}",
                    delivered_on=placed + dt.timedelta(days=320)
                    if status is OrderStatus.DELIVERED
                    else None,
                    shipping_address=address,
                )
            )
        return orders


def _columns(row: Any, table: Any) -> dict[str, Any]:
    return {column.key: getattr(row, column.key) for column in table.columns}


async def add_population(store: Store, population: BenchPopulation, *, batch: int = 5000) -> None:
    """Writes the population's customers and orders (rows built by the store's own
    converters, inserted in large batches: set-up, not a measured path)."""
    chosen = list(range(population.customers))
    customer_table = CustomerRow.__table__
    order_table = OrderRow.__table__
    for start in range(0, len(chosen), batch):
        part = chosen[start : start + batch]
        customers = [
            _columns(customer_to_row(population.customer(index)), customer_table) for index in part
        ]
        orders = [
            _columns(order_to_row(order), order_table)
            for index in part
            for order in population.orders(index)
            if int(order.order_id) not in population.skip_orders
        ]
        async with store.engine.begin() as connection:
            await connection.execute(insert(CustomerRow), customers)
            if orders:
                await connection.execute(insert(OrderRow), orders)
