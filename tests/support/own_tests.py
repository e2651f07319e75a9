"""What each specialist declares in its own test module for the suites every specialist
runs, found from its registration, never listed by hand.

A registered specialist `<name>` (its module's name in `customer_service.specialists`)
has its conversation tests in `tests/specialists/test_<name>.py`. That module declares,
as module-level constants, what the shared suites need of it:

- `CONFIRMING` (`support.confirming.Confirming`), for a specialist whose registration
  `writes`: how a caller reaches its read-back, its confirm, how the store shows the
  change. The misbehaving-model suite and the yes-with-a-new-request suite run it.
- `OFFLINE_CHAT` (`OfflineChat`): the caller's lines of a `make chat` that reach it, so
  the offline model's coverage test sees the real agent offer its every marker tool.

A shared suite parametrizes over `declared(...)`; its companion test asserts `missing`
is empty, so a registered specialist without a declaration fails naming itself and the
constant it lacks.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Generic, TypeVar

from customer_service.call.registration import SpecialistRegistration
from customer_service.specialists import SPECIALISTS

T = TypeVar("T")

SPECIALIST_TESTS = Path(__file__).resolve().parent.parent / "specialists"
"""Where each specialist's own test module is: `test_<name>.py`."""


@dataclass(frozen=True)
class OfflineChat:
    """A `make chat` that reaches a specialist: the caller's lines, in order, through it
    far enough that the real task has offered every marker tool its offline module
    names (a confirm tool after a record)."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Declared(Generic[T]):
    """What the specialists' own test modules declare under one name, by specialist."""

    found: dict[str, T]
    missing: list[str]
    """One sentence per specialist that should declare it and does not."""

    @property
    def names(self) -> list[str]:
        return list(self.found)

    @property
    def cases(self) -> list[T]:
        return list(self.found.values())


def own_test_module(name: str, folder: Path = SPECIALIST_TESTS) -> ModuleType | None:
    """The specialist's own test module, imported as pytest imports it (same module,
    assertions rewritten), or None when there is none."""
    path = folder / f"test_{name}.py"
    if not path.is_file():
        return None
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(path.stem)


def declared(
    constant: str,
    kind: type[T],
    *,
    registrations: Iterable[SpecialistRegistration] = SPECIALISTS,
    folder: Path = SPECIALIST_TESTS,
) -> Declared[T]:
    """`constant` of each of `registrations`' own test modules, which must be a `kind`."""
    found: dict[str, T] = {}
    missing: list[str] = []
    for registration in registrations:
        module = own_test_module(registration.name, folder)
        value = getattr(module, constant, None)
        if isinstance(value, kind):
            found[registration.name] = value
        else:
            where = folder / f"test_{registration.name}.py"
            missing.append(f"{registration.name}: {where.name} declares no {constant}")
    return Declared(found, missing)


def offline_chats(
    registrations: Iterable[SpecialistRegistration] = SPECIALISTS,
    folder: Path = SPECIALIST_TESTS,
) -> Declared[OfflineChat]:
    """The `OFFLINE_CHAT` of every registered specialist, by its name."""
    return declared("OFFLINE_CHAT", OfflineChat, registrations=registrations, folder=folder)
