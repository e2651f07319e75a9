"""Keypad entry: a phone caller types a number instead of saying it.

The framework's `GetDtmfTask` does the listening: it asks, collects the keys the phone
network reports (`sip_dtmf_received` on the room) until the pound key or a pause, and
also accepts the digits spoken. This module runs it for one entry and turns its outcome
into a plain answer: the digits, or why there are none. What the digits are used for
(and how failures count) is the caller's business: see the order-lookup specialist.
"""

from __future__ import annotations

from livekit.agents import ToolError, function_tool, get_job_context
from livekit.agents.beta.workflows import GetDtmfTask

from customer_service.call.wording import PERSONA

__all__ = [
    "KeypadEntryFailed",
    "KeypadEntryStopped",
    "KeypadUnavailable",
    "digits_from_keypad",
]

KEYPAD_INSTRUCTIONS = PERSONA + (
    "Ask the caller, in one short sentence, to type the number on their phone's keypad "
    "and then press the pound key. Never say any digits yourself. If the caller says "
    "they would rather say the number, do not have it, or want to stop, call "
    "stop_keypad_entry."
)


class KeypadUnavailable(Exception):
    """There is no phone line to listen to (no LiveKit job: a text chat or a test)."""


class KeypadEntryStopped(Exception):
    """The caller chose not to type after all."""


class KeypadEntryFailed(Exception):
    """What the caller entered was not the expected number of digits."""


async def digits_from_keypad(num_digits: int) -> str:
    """Waits for the caller to type `num_digits` digits and returns them, keys only.

    Must be awaited inside a tool (the framework runs the entry as a task). Raises
    `KeypadUnavailable`, `KeypadEntryStopped` or `KeypadEntryFailed`.
    """
    if get_job_context(required=False) is None:
        raise KeypadUnavailable()
    entry = GetDtmfTask(num_digits=num_digits, extra_instructions=KEYPAD_INSTRUCTIONS)
    stopped = False

    @function_tool(name="stop_keypad_entry")
    async def stop_keypad_entry() -> None:
        """Call when the caller would rather say the number, does not have it, or wants
        to stop typing."""
        nonlocal stopped
        stopped = True
        if not entry.done():
            entry.complete(ToolError("keypad entry stopped"))

    await entry.update_tools([*entry.tools, stop_keypad_entry])
    try:
        result = await entry
    except ToolError:
        # The framework ends an entry of the wrong length (at the pound key or after a
        # pause) with an error written for a model, not a caller.
        if stopped:
            raise KeypadEntryStopped() from None
        raise KeypadEntryFailed() from None
    keys = result.user_input.split()
    if len(keys) != num_digits or not all(key.isdigit() for key in keys):
        raise KeypadEntryFailed()
    return "".join(keys)
