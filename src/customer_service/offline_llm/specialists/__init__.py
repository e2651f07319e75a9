"""The offline model's specialists: one module each, found here, listed nowhere else.

A module in this package is one specialist as the offline model plays it, named like
the specialist's module in `customer_service.specialists`. It defines `SPECIALIST`, an
`OfflineSpecialist` holding the model's rules for it: the specialist's own (`markers`,
`respond`, `prompt`) and the supervisor's side of it (`route`, `asks_for`). Its
supervisor tool and menu phrase are the specialist's registration's
(`customer_service.call.registration`), never written again here. The profiles, the
supervisor's routing and its menu are built from the modules found here
(`registered`), so adding a specialist is adding one module.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING

from customer_service.offline_llm.conversation import Conversation, Reply

if TYPE_CHECKING:
    from customer_service.call.registration import SpecialistRegistration

__all__ = ["OfflineSpecialist", "registered", "specialists_in"]


@dataclass(frozen=True)
class OfflineSpecialist:
    """One specialist, as the offline model plays it and as the supervisor reaches it.

    `name`: the specialist's name (for logs and tests).
    `markers`: offering any of these tools means this specialist is active; tools the
        real task offers only later (a confirm tool after a record) count too.
    `respond`: the specialist's answer to the caller's latest line.
    `prompt`: what it says when nothing better fits (its question).
    `supervisor_tool`: the supervisor's tool that starts it ("cancel_order"); taken
        from the registration of the specialist of the same name.
    `route`: the supervisor's rule: the reply to the caller's latest line when it asks
        for this work (normally a call to `supervisor_tool`), else None. Only consulted
        while `supervisor_tool` is offered.
    `route_rank`: where `route` and `asks_for` are read among the specialists' rules,
        lowest first: a narrower request reads before a wider one that shares its words
        ("stop texting me about my order" is consent, not an order question).
    `menu_phrase`: how the supervisor's menu offers it ("cancel an order"); None when
        the menu does not list it. Taken from the registration, like `supervisor_tool`.
    `menu_rank`: its place in the menu, lowest first.
    `asks_for`: whether a caller's line plainly asks for this work, so that another
        specialist hears it as a change of topic (None: never heard as one).
    `asks_for_rank`: where `asks_for` is read, when not at `route_rank` (inside a
        cancellation, "cancel order 100102 and no more texts" is still the cancellation).
    """

    name: str
    markers: frozenset[str]
    respond: Callable[[Conversation], Reply]
    prompt: Callable[[Conversation], str]
    route: Callable[[Conversation], Reply | None]
    route_rank: int
    supervisor_tool: str = ""
    menu_phrase: str | None = None
    menu_rank: int = 0
    asks_for: Callable[[str], bool] | None = None
    asks_for_rank: int | None = None

    @property
    def topic_rank(self) -> int:
        return self.route_rank if self.asks_for_rank is None else self.asks_for_rank


@cache
def registered() -> tuple[OfflineSpecialist, ...]:
    """Every specialist module in this package, in `route_rank` order, each with its
    specialist's supervisor tool and menu phrase."""
    from customer_service.specialists import SPECIALISTS

    return specialists_in(__name__, __path__, SPECIALISTS)


def specialists_in(
    package: str, paths: Iterable[str], registrations: Iterable[SpecialistRegistration]
) -> tuple[OfflineSpecialist, ...]:
    """The `SPECIALIST` of every module in `package`, in `route_rank` order, each given
    the supervisor tool and menu phrase of the registration of the same name."""
    by_name = {entry.name: entry for entry in registrations}
    found = []
    for module_info in pkgutil.iter_modules(list(paths)):
        module = importlib.import_module(f"{package}.{module_info.name}")
        specialist = getattr(module, "SPECIALIST", None)
        if not isinstance(specialist, OfflineSpecialist):
            raise TypeError(f"{module.__name__} defines no SPECIALIST = OfflineSpecialist(...)")
        if (registration := by_name.get(module_info.name)) is not None:
            specialist = replace(
                specialist,
                supervisor_tool=registration.tool_name,
                menu_phrase=registration.menu_phrase,
            )
        if not specialist.supervisor_tool:
            raise LookupError(f"{module.__name__} plays no registered specialist")
        found.append(specialist)
    return tuple(sorted(found, key=lambda specialist: specialist.route_rank))
