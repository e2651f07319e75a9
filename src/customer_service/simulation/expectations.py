"""What a specialist adds to a scenario's expectation: the part of the store it changes,
read before and after the call and compared with what the scenario expects.

A specialist's registration names its expectation (`expects=` of `supervisor_tool`),
so a scenario can say what the store must show after it without a central table: its
`key` is a field of the scenario's `expect`, validated as `ScenarioExpectation.parse`
reads it, and `simulation.state` reads and compares every registered one. A change on
the caller's account is one field of each account (`AccountExpectation`); a specialist
whose change the shared fields already show (an order's status, address, items,
payments) needs none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import TypeAdapter

from customer_service.domain import Customer
from customer_service.store import Store
from customer_service.store.seed import DEMO_CUSTOMERS

__all__ = ["AccountExpectation", "ScenarioExpectation"]

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
