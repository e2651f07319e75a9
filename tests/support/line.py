"""The room at its edge, for phone-line tests: keypad presses as the phone network reports
them, a room whose local participant records the attributes the agent publishes, and
waiting on what the agent says next (on its own, not in reply to a caller turn)."""

from __future__ import annotations

import asyncio

from livekit import rtc
from livekit.agents import AgentSession, ConversationItemAddedEvent, llm

from customer_service.call.state import CallerLine, CallState

JORDAN_PHONE = "+14155550134"
"""Jordan Lee's number on the account, as a SIP trunk presents it."""
JORDAN_PHONE_DIGITS = "4155550134"
PHONE_LINE = CallerLine(is_phone=True, caller_number=JORDAN_PHONE)
"""Jordan calling from the number on the account."""
WORK_PHONE_LINE = CallerLine(is_phone=True, caller_number="+14155559999")
"""A phone line whose number is on no account."""


def press_keys(room: rtc.Room, keys: str) -> None:
    """The caller presses `keys` on the phone keypad, one after another."""
    for key in keys:
        code = int(key) if key.isdigit() else {"*": 10, "#": 11}[key]
        room.emit("sip_dtmf_received", rtc.SipDTMF(code=code, digit=key))


def next_agent_line(session: AgentSession[CallState]) -> asyncio.Future[str]:
    """Resolves with the next thing the agent says; ask for it before causing it."""
    said: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def on_item(event: ConversationItemAddedEvent) -> None:
        item = event.item
        if isinstance(item, llm.ChatMessage) and item.role == "assistant" and not said.done():
            said.set_result(item.text_content or "")
            session.off("conversation_item_added", on_item)

    session.on("conversation_item_added", on_item)
    return said


class RecordingParticipant:
    """The agent's local participant: records every `set_attributes` call."""

    def __init__(self, *, fails: bool = False) -> None:
        self.calls: list[dict[str, str]] = []
        self.attributes: dict[str, str] = {}
        self._fails = fails

    async def set_attributes(self, attributes: dict[str, str]) -> None:
        if self._fails:
            raise ConnectionError("room is gone")
        self.calls.append(dict(attributes))
        self.attributes.update(attributes)


class AttributeRecordingRoom:
    """A room, connected or not, whose local participant records attributes."""

    def __init__(self, *, connected: bool = True, fails: bool = False) -> None:
        self.connected = connected
        self.local_participant = RecordingParticipant(fails=fails)

    def isconnected(self) -> bool:
        return self.connected
