"""Keypad entry: a phone caller types a number instead of saying it.

The framework's `GetDtmfTask` does the listening: it asks, collects the keys the phone
network reports (`sip_dtmf_received` on the room) until the pound key or a pause, and
also accepts the digits spoken. This module runs it for one entry and turns its outcome
into a plain answer: the digits, or why there are none. What the digits are used for
(and how failures count) is the caller's business: see the order-lookup specialist.
"""

from __future__ import annotations

from collections.abc import Collection

from livekit.agents import ToolError, function_tool, get_job_context
from livekit.agents.beta.workflows import GetDtmfResult, GetDtmfTask

from customer_service.call.wording import PERSONA

__all__ = [
    "KeypadEntryFailed",
    "KeypadEntryStopped",
    "KeypadUnavailable",
    "digits_from_keypad",
]

KEYPAD_INSTRUCTIONS = PERSONA + (
    "Ask the caller, in one short sentence, to type the number's digits on their phone's "
    "keypad, no letters, and then press the pound key. Never say any digits yourself. If "
    "the caller says they would rather say the number, do not have it, or want to stop, "
    "call stop_keypad_entry."
)


class KeypadUnavailable(Exception):
    """There is no phone line to listen to (no LiveKit job: a text chat or a test)."""


class KeypadEntryStopped(Exception):
    """The caller chose not to type after all."""


class KeypadEntryFailed(Exception):
    """What the caller entered was not one of the expected numbers of digits."""


class _KeypadEntry(GetDtmfTask):
    """The framework's keypad task, taking an entry of any of several lengths: it waits
    for the longest, and keeps an entry that the pound key or a pause ends at another of
    them."""

    def __init__(self, lengths: Collection[int]) -> None:
        super().__init__(num_digits=max(lengths), extra_instructions=KEYPAD_INSTRUCTIONS)
        self.lengths = frozenset(lengths)
        self.stopped = False
        """The caller chose not to type: the entry ends with no keys."""

    def complete(self, result: GetDtmfResult | Exception) -> None:
        # The framework ends an entry shorter than its one length with an error, before
        # it clears the keys it holds (`_curr_dtmf_inputs`, 1.8.9).
        keys = self._curr_dtmf_inputs
        if isinstance(result, ToolError) and not self.stopped and len(keys) in self.lengths:
            result = GetDtmfResult.from_dtmf_inputs(keys)
        super().complete(result)


async def digits_from_keypad(lengths: Collection[int]) -> str:
    """Waits for the caller to type a number of any of `lengths` digits and returns its
    digits, keys only.

    Must be awaited inside a tool (the framework runs the entry as a task). Raises
    `KeypadUnavailable`, `KeypadEntryStopped` or `KeypadEntryFailed`.
    """
    if get_job_context(required=False) is None:
        raise KeypadUnavailable()
    entry = _KeypadEntry(lengths)

    @function_tool(name="stop_keypad_entry")
    async def stop_keypad_entry() -> None:
        """Call when the caller would rather say the number, does not have it, or wants
        to stop typing."""
        entry.stopped = True
        if not entry.done():
            entry.complete(ToolError("keypad entry stopped"))

    await entry.update_tools([*entry.tools, stop_keypad_entry])
    try:
        result = await entry
    except ToolError:
        # The framework ends an entry of no expected length (at the pound key or after a
        # pause) with an error written for a model, not a caller.
        if entry.stopped:
            raise KeypadEntryStopped() from None
        raise KeypadEntryFailed() from None
    keys = result.user_input.split()
    if len(keys) not in entry.lengths or not all(key.isdigit() for key in keys):
        raise KeypadEntryFailed()
    return "".join(keys)
