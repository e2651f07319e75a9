"""The LiveKit server at its edge, for tests of what the agent asks of it.

`phone_line` installs the framework's own `fake_job_context` (a real `JobContext`,
found by `get_job_context()` through its context variable) for the sessions started in
the block: its room holds the participants a test puts there, and its requests to the
server API (`delete_room`, `transfer_sip_participant`) are recorded and answered by a
`LiveKitServer` instead of being sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from livekit import rtc
from livekit.agents import (
    AgentSession,
    CloseEvent,
    ConversationItemAddedEvent,
    SpeechCreatedEvent,
)
from livekit.agents.llm import ChatMessage
from livekit.agents.testing import fake_job_context

from customer_service.call.state import CallState

ROOM = "call-room"
T = TypeVar("T")
GIVE_UP_AFTER_S = 10.0
"""Real seconds before a test stops waiting for what the session does next: a guard
against a hang, never a measurement."""


@dataclass
class Participant:
    """A remote participant as the job's room lists it."""

    identity: str
    kind: int
    attributes: dict[str, str] = field(default_factory=dict)


PHONE_CALLER = Participant(
    "sip_+14155550134",
    rtc.ParticipantKind.PARTICIPANT_KIND_SIP,
    {"sip.callStatus": "active", "sip.phoneNumber": "+14155550134"},
)
BROWSER_CALLER = Participant("playground-user", rtc.ParticipantKind.PARTICIPANT_KIND_STANDARD)


class CallRoom(rtc.Room):
    """The caller's room, with the participants already in it."""

    def __init__(self, *participants: Participant) -> None:
        super().__init__()
        self._in_room = {participant.identity: participant for participant in participants}

    @property
    def name(self) -> str:
        return ROOM

    @property
    def remote_participants(self) -> Any:
        return self._in_room


class LiveKitServer:
    """What the job asked of the LiveKit server API, and how it answered."""

    def __init__(self, room: CallRoom, transfer_error: Exception | None) -> None:
        self._room = room
        self._transfer_error = transfer_error
        self.deleted_rooms: list[str] = []
        self.transfers: list[tuple[str, str]] = []
        self.look: Callable[[], object] = lambda: None
        """Called at each request: what the test wants to know of the call just then."""
        self.seen_at_request: list[object] = []

    def delete_room(self, room_name: str | None = None) -> asyncio.Future[None]:
        self.deleted_rooms.append(room_name or self._room.name)
        return self._answer(None)

    def transfer_sip_participant(
        self, participant: Participant | str, transfer_to: str, play_dialtone: bool = False
    ) -> asyncio.Future[None]:
        identity = participant if isinstance(participant, str) else participant.identity
        self.transfers.append((identity, transfer_to))
        return self._answer(self._transfer_error)

    def _answer(self, error: Exception | None) -> asyncio.Future[None]:
        self.seen_at_request.append(self.look())
        answer = asyncio.get_running_loop().create_future()
        if error is None:
            answer.set_result(None)
        else:
            answer.set_exception(error)
        return answer


@contextmanager
def phone_line(
    monkeypatch: pytest.MonkeyPatch,
    *participants: Participant,
    transfer_error: Exception | None = None,
) -> Iterator[LiveKitServer]:
    """A job context for the sessions started inside the block, its room holding
    `participants`, its server API answered by a `LiveKitServer`."""
    room = CallRoom(*participants)
    with fake_job_context(room=room) as job:
        server = LiveKitServer(room, transfer_error)
        monkeypatch.setattr(job, "delete_room", server.delete_room)
        monkeypatch.setattr(job, "transfer_sip_participant", server.transfer_sip_participant)
        yield server


# Waiting on the session


def closing(session: AgentSession[CallState]) -> asyncio.Future[CloseEvent]:
    closed = asyncio.get_running_loop().create_future()
    session.on("close", lambda event: closed.done() or closed.set_result(event))
    return closed


def until_said(session: AgentSession[CallState], line: str) -> asyncio.Future[None]:
    said = asyncio.get_running_loop().create_future()

    def on_item(event: ConversationItemAddedEvent) -> None:
        item = event.item
        if isinstance(item, ChatMessage) and item.text_content == line and not said.done():
            said.set_result(None)

    session.on("conversation_item_added", on_item)
    return said


async def within_guard(event: asyncio.Future[T]) -> T:
    async with asyncio.timeout(GIVE_UP_AFTER_S):
        return await event


def says(session: AgentSession[CallState]) -> list[SpeechCreatedEvent]:
    """Every fixed line the session speaks from now on, as it is created."""
    created: list[SpeechCreatedEvent] = []
    session.on("speech_created", created.append)
    return created
