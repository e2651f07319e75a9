"""The offline model's specialists: one module each, found here, listed nowhere else.

A module in this package is one specialist as the offline model plays it. It defines
`SPECIALIST`, an `OfflineSpecialist` holding everything the model needs for it: the
specialist's own rules (`markers`, `respond`, `prompt`) and the supervisor's side of
it (`supervisor_tool`, `menu_phrase`, `route`, `asks_for`). The profiles, the
supervisor's routing and its menu are built from the modules found here
(`registered`), so adding a specialist is adding one module.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from customer_service.offline_llm.conversation import Conversation, Reply

__all__ = ["OfflineSpecialist", "registered"]


@dataclass(frozen=True)
class OfflineSpecialist:
    """One specialist, as the offline model plays it and as the supervisor reaches it.

    `name`: the specialist's name (for logs and tests).
    `markers`: offering any of these tools means this specialist is active; tools the
        real task offers only later (a confirm tool after a record) count too.
    `respond`: the specialist's answer to the caller's latest line.
    `prompt`: what it says when nothing better fits (its question).
    `supervisor_tool`: the supervisor's tool that starts it ("cancel_order").
    `route`: the supervisor's rule: the reply to the caller's latest line when it asks
        for this work (normally a call to `supervisor_tool`), else None. Only consulted
        while `supervisor_tool` is offered.
    `route_rank`: where `route` and `asks_for` are read among the specialists' rules,
        lowest first: a narrower request reads before a wider one that shares its words
        ("stop texting me about my order" is consent, not an order question).
    `menu_phrase`: how the supervisor's menu offers it ("cancel an order"); None when
        the menu does not list it.
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
    supervisor_tool: str
    route: Callable[[Conversation], Reply | None]
    route_rank: int
    menu_phrase: str | None = None
    menu_rank: int = 0
    asks_for: Callable[[str], bool] | None = None
    asks_for_rank: int | None = None

    @property
    def topic_rank(self) -> int:
        return self.route_rank if self.asks_for_rank is None else self.asks_for_rank


@cache
def registered() -> tuple[OfflineSpecialist, ...]:
    """Every specialist module in this package, in `route_rank` order."""
    found = []
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        specialist = getattr(module, "SPECIALIST", None)
        if not isinstance(specialist, OfflineSpecialist):
            raise TypeError(f"{module.__name__} defines no SPECIALIST = OfflineSpecialist(...)")
        found.append(specialist)
    return tuple(sorted(found, key=lambda specialist: specialist.route_rank))
