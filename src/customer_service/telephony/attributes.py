"""The call's progress, published as the agent participant's own attributes.

Agent Playground and custom frontends read participant attributes; these say which
specialist is working, whether the caller is verified (never who they are) and which
order the caller heard about last. The keys below are the whole contract:

| key             | values                                                          |
|-----------------|-----------------------------------------------------------------|
| `cs.specialist` | `supervisor`, or the specialist at work: `verify_identity`,      |
|                 | `order_lookup`, `address_update`, `cancellation`, `consent`      |
| `cs.verified`   | `true` once the caller passed identity verification, else `false` |
| `cs.order_id`   | the order last disclosed (canonical); absent until there is one  |

Publishing never holds up the call: changes are collected and sent by one background
task, several changes in one step going out together, and a room that is gone (or a
token without permission to update its own attributes) costs a log line, nothing more.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from customer_service.call.state import CallState

__all__ = [
    "ORDER_ID",
    "SPECIALIST",
    "SUPERVISOR",
    "VERIFIED",
    "AttributeRoom",
    "ProgressAttributes",
    "progress_attributes",
]

logger = logging.getLogger(__name__)

SPECIALIST = "cs.specialist"
VERIFIED = "cs.verified"
ORDER_ID = "cs.order_id"
SUPERVISOR = "supervisor"
"""`cs.specialist` while no specialist is at work."""


class AttributeParticipant(Protocol):
    async def set_attributes(self, attributes: dict[str, str]) -> None: ...


class AttributeRoom(Protocol):
    """What is needed of the room: `livekit.rtc.Room` is one."""

    def isconnected(self) -> bool: ...

    @property
    def local_participant(self) -> AttributeParticipant: ...


def progress_attributes(state: CallState) -> dict[str, str]:
    """The attributes that describe the call now."""
    active = state.guardrails.active_specialist
    attributes = {
        SPECIALIST: active.removesuffix("_task") if active else SUPERVISOR,
        VERIFIED: "true" if state.verified_customer is not None else "false",
    }
    if state.current_order_id is not None:
        attributes[ORDER_ID] = state.current_order_id
    return attributes


class ProgressAttributes:
    """Keeps the agent participant's attributes in step with one call's state."""

    def __init__(self, room: AttributeRoom, *, call_id: str) -> None:
        self._room = room
        self._call_id = call_id
        self._wanted: dict[str, str] = {}
        self._published: dict[str, str] = {}
        self._sender: asyncio.Task[None] | None = None
        self._warned = False
        self._closed = False

    def follow(self, state: CallState) -> None:
        """Publishes the call's progress now and after every change."""
        state.on_change(self.update)
        self.update(state)

    def update(self, state: CallState) -> None:
        """Notes the state to publish; returns at once (a `CallState` observer)."""
        if self._closed:
            return
        self._wanted = progress_attributes(state)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send())

    async def settled(self) -> None:
        """Returns once everything noted so far has been sent (or given up on)."""
        while self._sender is not None and not self._sender.done():
            await asyncio.shield(self._sender)

    async def aclose(self) -> None:
        self._closed = True
        await self.settled()

    async def _send(self) -> None:
        # One turn of the event loop first: the changes of one step go out together.
        await asyncio.sleep(0)
        while changed := {
            key: value for key, value in self._wanted.items() if self._published.get(key) != value
        }:
            try:
                if not self._room.isconnected():
                    return  # sent with the next change, if the room comes back
                await self._room.local_participant.set_attributes(changed)
            except Exception as error:
                self._warn(error)
                return
            self._published.update(changed)

    def _warn(self, error: Exception) -> None:
        if self._warned:
            return
        self._warned = True
        logger.warning(
            "progress attributes not published",
            extra={"call_id": self._call_id, "error": type(error).__name__},
        )
