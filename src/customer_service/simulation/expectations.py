"""What a specialist adds to a scenario's expectation: the part of the store it changes,
read before and after the call and compared with what the scenario expects.

A specialist's registration names its expectation (`expects=` of `supervisor_tool`),
so a scenario can say what the store must show after it without a central table: its
`key` is a field of the scenario's `expect`, validated as `ScenarioExpectation.parse`
reads it, and `simulation.state` reads and compares every registered one. A change on
the caller's account is one field of each account (`AccountExpectation`), a count the
call adds to each account is an `AccountTally`, records stored against an order are
`OrderRecords`; a specialist whose change the shared fields already show (an order's
status, address, items, payments) needs none.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model

from customer_service.domain import Customer
from customer_service.store import Store
from customer_service.store.seed import DEMO_CUSTOMERS

__all__ = [
    "EVER",
    "AccountExpectation",
    "AccountTally",
    "OnAnOrder",
    "OrderRecords",
    "ScenarioExpectation",
]

EVER = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
"""Before any demo store's first record: what a count of all of an account's is since."""

V = TypeVar("V")


class ScenarioExpectation(Protocol):
    """One part of the store a scenario can speak about."""

    @property
    def key(self) -> str:
        """Its field under a scenario's `expect` ("default_addresses")."""
        ...

    def parse(self, raw: object) -> object:
        """The scenario's value for `key`, validated; raises `ValueError` when invalid."""
        ...

    async def read(self, store: Store) -> object:
        """What the store holds of it now (before the call and after)."""
        ...

    def differences(self, expected: object | None, start: object, end: object) -> list[str]:
        """Every way `end` differs from what is expected (`start` where the scenario
        expects nothing), one sentence each."""
        ...


def _as_words(value: object) -> str:
    return str(value)


@dataclass(frozen=True)
class AccountExpectation(Generic[V]):
    """One field of each demo account, by customer id: a scenario names the accounts
    it expects changed and their value at the end; every other account must keep its
    own. `AccountExpectation("default_addresses", PostalAddress, lambda c: c.address,
    "default address", PostalAddress.one_line)` grades the account's address."""

    key: str
    value: type[V]
    of: Callable[[Customer], V | None]
    what: str
    """How a difference names it: "customer C-1001: {what} is ..."."""
    describe: Callable[[V], str] = _as_words
    _adapter: TypeAdapter[dict[str, V]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_adapter", TypeAdapter(dict[str, self.value]))  # type: ignore[name-defined]

    def parse(self, raw: object) -> dict[str, V]:
        return self._adapter.validate_python(raw)

    async def read(self, store: Store) -> dict[str, V | None]:
        accounts = [await store.get_customer(customer.customer_id) for customer in DEMO_CUSTOMERS]
        return {account.customer_id: self.of(account) for account in accounts if account}

    def differences(self, expected: object | None, start: object, end: object) -> list[str]:
        wanted_values = _mapping(expected)
        before, after = _mapping(start), _mapping(end)
        problems: list[str] = []
        for customer_id in sorted(set(before) | set(wanted_values)):
            wanted = wanted_values.get(customer_id) or before.get(customer_id)
            got = after.get(customer_id)
            if got != wanted:
                problems.append(
                    f"customer {customer_id}: {self.what} is {self._words(got)}, "
                    f"expected {self._words(wanted)}"
                )
        return problems

    def _words(self, value: Any) -> str:
        return "none" if value is None else self.describe(value)


def _mapping(value: object | None) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class AccountTally:
    """A count of each demo account's records (`count(store, customer_id)`): a scenario
    names the accounts whose count the call raises and by how much; every other
    account's must stay as it was. "customer C-1001: 0 {what}, expected 1"."""

    key: str
    count: Callable[[Store, str], Awaitable[int]]
    what: str
    _adapter: TypeAdapter[dict[str, int]] = field(
        init=False, repr=False, compare=False, default=TypeAdapter(dict[str, int])
    )

    def parse(self, raw: object) -> dict[str, int]:
        return self._adapter.validate_python(raw)

    async def read(self, store: Store) -> dict[str, int]:
        return {
            customer.customer_id: await self.count(store, customer.customer_id)
            for customer in DEMO_CUSTOMERS
        }

    def differences(self, expected: object | None, start: object, end: object) -> list[str]:
        wanted_counts, before, after = _mapping(expected), _mapping(start), _mapping(end)
        problems: list[str] = []
        for customer_id in sorted(set(after) | set(wanted_counts)):
            added = after.get(customer_id, 0) - before.get(customer_id, 0)
            wanted = wanted_counts.get(customer_id, 0)
            if added != wanted:
                problems.append(f"customer {customer_id}: {added} {self.what}, expected {wanted}")
        return problems


class OnAnOrder(Protocol):
    """A record stored against an order."""

    @property
    def order_id(self) -> str: ...


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True)
class OrderRecords:
    """Records a specialist stores against an order, by order id: `read_records` is
    the `Store` method that reads them all (`Store.return_requests`), and `fields` the
    fields of its record a scenario names and that are compared. A scenario names the
    orders that must gain one and what it holds; no other may be stored during the call:
    "order 200201: return request (item_indices [1], reason damaged), expected none"."""

    key: str
    read_records: Callable[[Store], Awaitable[Sequence[OnAnOrder]]]
    fields: tuple[str, ...]
    _shape: type[BaseModel] = field(init=False, repr=False, compare=False)
    _what: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The record type is the reading method's own ("list[ReturnRequest]"), so the
        # scenario's value is typed as the store keeps it: only the fields compared.
        record = typing.get_args(typing.get_type_hints(self.read_records)["return"])[0]
        named = {name: (record.model_fields[name].annotation, ...) for name in self.fields}
        shape = create_model(f"Expected{record.__name__}", __base__=_Frozen, **named)  # type: ignore[call-overload]
        object.__setattr__(self, "_shape", shape)
        object.__setattr__(self, "_what", re.sub(r"(?<!^)(?=[A-Z])", " ", record.__name__))

    def parse(self, raw: object) -> dict[str, BaseModel]:
        return TypeAdapter(dict[str, self._shape]).validate_python(raw)  # type: ignore[name-defined]

    async def read(self, store: Store) -> dict[str, BaseModel]:
        return {
            found.order_id: self._shape.model_validate(
                {name: getattr(found, name) for name in self.fields}
            )
            for found in await self.read_records(store)
        }

    def differences(self, expected: object | None, start: object, end: object) -> list[str]:
        wanted_records, before, after = _mapping(expected), _mapping(start), _mapping(end)
        problems: list[str] = []
        for order_id in sorted(set(after) - set(before) | set(wanted_records)):
            stored, wanted = after.get(order_id), wanted_records.get(order_id)
            if stored != wanted:
                problems.append(
                    f"order {order_id}: {self._what.lower()} {_described(stored)}, "
                    f"expected {_described(wanted)}"
                )
        return problems


def _described(record: BaseModel | None) -> str:
    if record is None:
        return "none"
    said = [f"{name} {_said(value)}" for name, value in record]
    return f"({', '.join(said)})"


def _said(value: object) -> str:
    if isinstance(value, enum.Enum):
        return str(value.value)
    return str(list(value)) if isinstance(value, tuple) else str(value)
