"""The same tool call twice in one model reply: the second shares the first one's outcome.

A model that calls `lookup_order` twice in one reply would otherwise run the order
lookup twice, one after the other, and ask the caller for the number again after they
had answered; a duplicate `update_address` would ask for the address after the change
was saved. The duplicate waits for the first instead, and returns its result (or raises
its error) without running again. Calls are the same when their arguments are, read as
the tool reads them: "100102" and "100 102" name one order, as "#W2378156" and "w 237 8156"
do (`request_key`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, cast

from customer_service.order_numbers import normalize_order_id

__all__ = ["DuplicateCalls", "request_key"]

R = TypeVar("R")

Reply = tuple[str, int]
"""One model reply: its speech handle's id and the step of that speech it belongs to."""


def request_key(name: str, arguments: Mapping[str, Any]) -> str:
    """What a call to tool `name` asks for: its arguments as the tool reads them, an
    order number in any written or spoken form as its canonical form."""
    read = {
        argument: _order_number(value) if argument == "order_id" else value
        for argument, value in arguments.items()
    }
    return f"{name}:{json.dumps(read, sort_keys=True, default=str)}"


def _order_number(value: object) -> object:
    if not isinstance(value, str):
        return value
    return normalize_order_id(value) or value


class DuplicateCalls:
    """Per call: the outcome of each call in the model's latest reply, by tool and
    arguments. Only that reply's are kept; a later reply runs its calls afresh."""

    def __init__(self) -> None:
        self._reply: Reply | None = None
        self._outcomes: dict[str, asyncio.Future[Any]] = {}

    async def once(self, reply: Reply, call: str, run: Callable[[], Awaitable[R]]) -> R:
        """`run()`, unless `call` already ran in `reply`: then the first one's outcome."""
        if reply != self._reply:
            self._reply, self._outcomes = reply, {}
        first = self._outcomes.get(call)
        if first is not None:
            # Shielded: a duplicate cut off does not cut off the call it waits for.
            return cast(R, await asyncio.shield(first))
        outcome: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        # Read by any duplicate; without one, marked read so no "never retrieved" warning.
        outcome.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._outcomes[call] = outcome
        try:
            result = await run()
        except Exception as error:
            outcome.set_exception(error)
            raise
        except BaseException:
            outcome.cancel()
            raise
        outcome.set_result(result)
        return result
