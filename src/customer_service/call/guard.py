"""The wrapper every tool runs inside: what a caller may hear when something goes wrong.

Domain failures are already `ToolError`s with speakable text. Everything else is turned
into one here, so no exception text ever reaches the model or the caller: a store
outage becomes an apology with an offer of a colleague, and an unexpected error a
generic apology. It is also where the same tool called again and again with the same
arguments is stopped, and where a tool that may start a specialist, sent twice in one
reply, runs once.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import json
import logging
import traceback
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from livekit.agents import RunContext, StopResponse, ToolError

from customer_service.call.duplicates import request_key
from customer_service.call.late_results import say_if_cut_off
from customer_service.call.state import CallState
from customer_service.call.wording import REPEATED_CALL, STORE_APOLOGY, UNEXPECTED_APOLOGY
from customer_service.store import StoreUnavailable

logger = logging.getLogger(__name__)


P = ParamSpec("P")
R = TypeVar("R")
SelfT = TypeVar("SelfT")

ToolMethod = Callable[Concatenate[SelfT, RunContext[CallState], P], Awaitable[R]]


_OWNER_NUMBERS: weakref.WeakKeyDictionary[object, int] = weakref.WeakKeyDictionary()
_next_owner_number = itertools.count(1)


def call_key(owner: object, name: str, arguments: dict[str, Any]) -> str:
    """A repeat is the same call to the same agent or specialist run: the same address
    given for a second order, in that order's own specialist, is no loop. Owners are
    numbered, not told apart by `id`, which a finished run's successor may reuse."""
    number = _OWNER_NUMBERS.get(owner)
    if number is None:
        number = _OWNER_NUMBERS[owner] = next(_next_owner_number)
    return f"{number}:{name}:{json.dumps(arguments, sort_keys=True, default=str)}"


def guarded(
    *, count_repeats: bool = True, one_at_a_time: bool = False, notice_if_slow: bool = True
) -> Callable[[ToolMethod[SelfT, P, R]], ToolMethod[SelfT, P, R]]:
    """Wraps a tool method. `count_repeats=False` exempts tools that must always work
    (handing over to a person, ending the call, giving up). `one_at_a_time=True` is for
    tools that may start a specialist: two of them sent in one reply run in turn, so the
    caller is never asked two things at once and the second sees what the first did.
    The same one sent twice in one reply with the same arguments runs once, both getting
    its outcome (`call.duplicates`). `notice_if_slow=False` is for tools that speak their
    own lines while they wait (a transfer, the hang-up): "one moment" would talk over
    what they are doing."""

    def decorate(method: ToolMethod[SelfT, P, R]) -> ToolMethod[SelfT, P, R]:
        signature = inspect.signature(method)

        def arguments(*args: Any, **kwargs: Any) -> dict[str, Any]:
            # The framework passes tool arguments positionally: bind them to their names.
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return dict(list(bound.arguments.items())[2:])  # without self and context

        name = method.__name__

        @functools.wraps(method)
        async def run(
            self: SelfT, context: RunContext[CallState], *args: P.args, **kwargs: P.kwargs
        ) -> R:
            given = arguments(self, context, *args, **kwargs)
            key = call_key(self, name, given)
            if not one_at_a_time:
                return await checked(key, self, context, *args, **kwargs)
            # The same request twice in one reply is one request, however its order
            # number was written: the second waits for the first's outcome instead of
            # starting its specialist again.
            speech = context.speech_handle
            result = await context.userdata.duplicate_calls.once(
                (speech.id, speech.num_steps),
                request_key(name, given),
                lambda: checked(key, self, context, *args, **kwargs),
            )
            if result is not None:
                # Work a caller asked for: its result is said even if they spoke meanwhile.
                say_if_cut_off(context)
            return result

        async def checked(
            key: str,
            self: SelfT,
            context: RunContext[CallState],
            *args: P.args,
            **kwargs: P.kwargs,
        ) -> R:
            state = context.userdata
            if count_repeats:
                repeats = state.guardrails.note_tool_call(key)
                if repeats >= state.settings.repeated_tool_call_limit:
                    logger.warning(
                        "repeated tool call stopped",
                        extra={"call_id": state.call_id, "tool": name, "repeats": repeats},
                    )
                    raise ToolError(REPEATED_CALL)
            try:
                with state.slow_steps.working(context.session, enabled=notice_if_slow):
                    if not one_at_a_time:
                        return await method(self, context, *args, **kwargs)
                    async with state.one_request_at_a_time:
                        return await method(self, context, *args, **kwargs)
            except (ToolError, StopResponse):
                raise
            except StoreUnavailable:
                logger.warning("store unavailable", extra={"call_id": state.call_id, "tool": name})
                raise ToolError(STORE_APOLOGY) from None
            except Exception as error:
                # The type and the place only: exception messages can carry caller data.
                where = traceback.extract_tb(error.__traceback__)[-1]
                logger.error(
                    "tool failed",
                    extra={
                        "call_id": state.call_id,
                        "tool": name,
                        "error": type(error).__name__,
                        "where": f"{where.filename}:{where.lineno}",
                    },
                )
                raise ToolError(UNEXPECTED_APOLOGY) from None

        # functools.wraps keeps the signature and docstring the tool schema is built from.
        # The framework asks for that signature whenever the tool is read from an agent
        # (every agent and task discovers its tools as it is built): stored on `method`,
        # the answer is found there instead of rebuilt from its code each time. Not on
        # `run`, whose attributes a tool made from a bound `run` copies as its own.
        method.__signature__ = signature  # type: ignore[attr-defined]
        return cast("ToolMethod[SelfT, P, R]", run)

    return decorate
