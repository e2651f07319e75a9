"""The specialists that change something only on the caller's own yes, for the suites
every one of them runs (`tests/specialists/test_misbehaving_models.py`,
`test_yes_with_a_new_request.py`): how a caller reaches the read-back (or question),
the model's confirm, and how to tell from the store that the change was made.

Each such specialist (its registration `writes`) declares its `Confirming` as
`CONFIRMING` in its own test module, `tests/specialists/test_<name>.py`; the suites
find it from the registration (`confirming_cases`), and fail naming a specialist that
writes without one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession

from customer_service.call.registration import SpecialistRegistration
from customer_service.call.state import CallState
from customer_service.specialists import SPECIALISTS

from .conversation import JORDAN, JORDAN_SAYS, audit_events, check_identity
from .own_tests import SPECIALIST_TESTS, Declared, declared
from .scripted_llm import Call, Decision, Step
from .scripted_llm import relay_tool_output as relay


@dataclass(frozen=True)
class Confirming:
    """One specialist that acts only on the caller's clear yes, and how to drive it."""

    supervisor_tool: str
    confirm: Call
    """The model's confirmation: the confirm tool, or a yes recorded."""
    caller: dict[str, Any]
    """The caller's identity details (`check_identity`)."""
    lines_to_read_back: tuple[str, ...]
    steps_to_read_back: tuple[Step, ...]
    """The model's steps for those lines; the last one's reply brings the read-back."""
    changed: Callable[[AgentSession[CallState]], Awaitable[bool]]
    """Whether the store holds the change as it was read back."""
    nothing_changed: str
    """What the caller hears when the change is not made."""
    other_than_read_back: tuple[str, Decision]
    """A caller's answer and the model's reply to it that would act on something other
    than what the caller heard read back and said yes to."""
    said_when_done: str | None = "Done."
    """How the sentence telling the caller the change is made begins. None when the
    caller's answer is itself the change (consent), so a yes said with a new request
    leaves nothing to settle and the yes-with-a-new-request suite passes it by."""
    after_the_change: tuple[Step, ...] = (relay,)
    """The supervisor's steps once the change is made (none when code speaks for it)."""
    order_tool_for: str | None = None
    """The caller's order this works on, when it works on one."""
    account: str | None = None
    """The verified caller's customer id, for a change on their account whose last step
    to the read-back is a record: the suite names another account to every tool."""
    beyond_the_caller: tuple[Call, ...] = ()
    """Records naming what is not the caller's to choose (another customer's payment
    method, another product's variant): each refused in code, whatever follows it."""
    refused_records: dict[str, Call] = field(default_factory=dict)
    """Records with arguments its rules refuse (a reason the store does not take, the
    method that pays already), by a short id: refused, nothing changes even on a yes."""

    @property
    def confirm_tool(self) -> str:
        return self.confirm.name

    @property
    def writes(self) -> str:
        """The kind of audit event its write stores (its registration's)."""
        (registration,) = [r for r in SPECIALISTS if r.tool_name == self.supervisor_tool]
        assert registration.writes is not None
        return registration.writes

    async def writes_stored(self, session: AgentSession[CallState]) -> int:
        return len(await audit_events(session, kind=self.writes))


def confirming_cases(
    registrations: Iterable[SpecialistRegistration] = SPECIALISTS,
    folder: Path = SPECIALIST_TESTS,
) -> Declared[Confirming]:
    """The `CONFIRMING` of every registered specialist that writes, by its name."""
    writers = [registration for registration in registrations if registration.writes]
    return declared("CONFIRMING", Confirming, registrations=writers, folder=folder)


def verified_then(line: str, step: Step) -> dict[str, Any]:
    """A caller who verifies first, then asks: the request's reply brings the read-back."""
    return {
        "caller": JORDAN,
        "lines_to_read_back": ("Please verify me", JORDAN_SAYS, line),
        "steps_to_read_back": (Call("verify_identity"), check_identity(JORDAN), relay, step),
    }
