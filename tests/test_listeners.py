"""Event handlers registered with `listen`: each event reaches them as the framework's
emitter would pass it, and the emitter finds their signature without rebuilding it."""

from __future__ import annotations

import inspect
from typing import Any

from livekit.rtc import EventEmitter

from customer_service.call.listeners import listen


class _Follower:
    def __init__(self) -> None:
        self.heard: list[Any] = []

    def on_state(self, event: Any) -> None:
        self.heard.append(event)


def test_a_bound_method_hears_each_event_until_it_is_removed() -> None:
    emitter: EventEmitter[str] = EventEmitter()
    follower = _Follower()

    listener = listen(emitter, "state", follower.on_state)
    emitter.emit("state", "speaking")
    emitter.emit("state", "listening")
    emitter.off("state", listener)
    emitter.emit("state", "thinking")

    assert follower.heard == ["speaking", "listening"]


def test_once_hears_only_the_next_event() -> None:
    emitter: EventEmitter[str] = EventEmitter()
    heard: list[Any] = []

    listen(emitter, "close", heard.append, once=True)
    emitter.emit("close", "first")
    emitter.emit("close", "second")

    assert heard == ["first"]


def test_the_emitter_finds_the_stored_signature() -> None:
    emitter: EventEmitter[str] = EventEmitter()
    follower = _Follower()

    listener = listen(emitter, "state", follower.on_state)

    # The emitter calls `inspect.signature` on every emit: the stored object is returned.
    assert inspect.signature(listener) is inspect.signature(listener)
    assert list(inspect.signature(listener).parameters) == ["event"]
