"""Handlers for the session's and the models' events, registered so the emitter finds
their signature at once.

The framework's emitter reads every handler's signature on every emit, to know how many
of the event's arguments to pass. Built from a bound method or a closure, that is a
walk over its code each time, for a handler that often does nothing with the event. A
handler registered with `listen` is reached through a function whose signature is
stored: one argument, the event.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from livekit.rtc import EventEmitter

__all__ = ["Listener", "listen"]

Listener = Callable[[Any], None]

_ONE_EVENT = inspect.Signature(
    [inspect.Parameter("event", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
)


def listen(
    emitter: EventEmitter[Any], event: str, handler: Listener, *, once: bool = False
) -> Listener:
    """Registers `handler` for `event` (for its next emit only, when `once`); returns
    what was registered, which is what `emitter.off` takes to remove it."""

    def listener(payload: Any) -> None:
        handler(payload)

    listener.__signature__ = _ONE_EVENT  # type: ignore[attr-defined]
    if once:
        emitter.once(event, listener)
    else:
        emitter.on(event, listener)
    return listener
