"""A yes to a read-back said with a new request: the confirmed change is made before the
call moves on, or the caller is told plainly that nothing was changed.

Every specialist that confirms before acting (address change, cancellation, returns) is
driven the same way through the real supervisor, specialists and store: the caller
hears the read-back in full, then answers it and asks for something else in one breath,
and the model sends the confirm tool and `caller_wants_something_else` in one reply, in
either order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from livekit.agents import AgentSession

from customer_service.call.state import CallState
from customer_service.call.wording import LEFT_FOR_SOMETHING_ELSE
from customer_service.domain import OrderStatus
from customer_service.settings import Settings
from customer_service.specialists.address_update import ADDRESS_UPDATE_ABANDONED
from customer_service.specialists.cancellation import kept_message
from customer_service.specialists.returns import RETURN_ABANDONED
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    PRIYA,
    agent_lines,
    tool_outputs,
    verifying_for,
)
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.scripted_llm import Call, Parallel, ScriptedLLM, Step
from support.scripted_llm import relay_tool_output as relay

PRIYA_SAYS = "Priya Natarajan, 10001, priya.n@example.com"
LEAVE = Call("caller_wants_something_else", {"request": "another request"})


@dataclass(frozen=True)
class Confirming:
    """One specialist that confirms before acting, and how a caller reaches its read-back."""

    supervisor_tool: str
    confirm_tool: str
    lines_to_read_back: tuple[str, ...]
    steps_to_read_back: tuple[Step, ...]
    changed: Callable[[AgentSession[CallState]], Awaitable[bool]]
    nothing_changed: str
    """What the caller hears when the change is not made."""
    after_the_change: tuple[Step, ...] = (relay,)
    """The supervisor's steps once the change is made (none when code speaks for it)."""


async def _order_cancelled(session: AgentSession[CallState]) -> bool:
    order = await session.userdata.store.get_order("100102")
    assert order is not None
    return order.status is OrderStatus.CANCELLED


async def _address_changed(session: AgentSession[CallState]) -> bool:
    order = await session.userdata.store.get_order("100102")
    assert order is not None
    return order.shipping_address == MARKET_STREET_SUITE_5


async def _return_requested(session: AgentSession[CallState]) -> bool:
    return len(await session.userdata.store.return_requests()) == 1


CANCELLATION = Confirming(
    supervisor_tool="cancel_order",
    confirm_tool="confirm_cancellation",
    lines_to_read_back=("I'd like to cancel order 100102", JORDAN_SAYS),
    steps_to_read_back=tuple(verifying_for("cancel_order", "100102", JORDAN)),
    changed=_order_cancelled,
    nothing_changed=kept_message("100102"),
)
ADDRESS_CHANGE = Confirming(
    supervisor_tool="update_address",
    confirm_tool="confirm_address",
    lines_to_read_back=(
        "I need to change the delivery address for order 100102",
        JORDAN_SAYS,
        "1 Market Street, Suite 5, San Francisco, California 94105",
    ),
    steps_to_read_back=(
        *verifying_for("update_address", "100102", JORDAN),
        Call("record_address", MARKET_STREET_SUITE_5.model_dump()),
    ),
    changed=_address_changed,
    nothing_changed=ADDRESS_UPDATE_ABANDONED,
    # The change is said by code, with the text-update question after it.
    after_the_change=(),
)
RETURNS = Confirming(
    supervisor_tool="request_return",
    confirm_tool="confirm_return",
    lines_to_read_back=(
        "I'd like to return order 200201",
        PRIYA_SAYS,
        "All of them, I really don't need them any more",
    ),
    steps_to_read_back=(
        *verifying_for("request_return", "200201", PRIYA),
        Call("record_return", {"item_numbers": [1, 2], "reason": "no_longer_needed"}),
    ),
    changed=_return_requested,
    nothing_changed=RETURN_ABANDONED,
)
SPECIALISTS = pytest.mark.parametrize(
    "specialist",
    [CANCELLATION, ADDRESS_CHANGE, RETURNS],
    ids=["cancellation", "address_change", "returns"],
)
ORDERS = pytest.mark.parametrize(
    "confirm_first", [True, False], ids=["confirm_first", "leave_first"]
)


def confirm_and_leave(specialist: Confirming, *, confirm_first: bool) -> Parallel:
    both = (Call(specialist.confirm_tool), LEAVE)
    return Parallel(both if confirm_first else both[::-1])


async def reach_read_back(session: AgentSession[CallState], specialist: Confirming) -> None:
    for line in specialist.lines_to_read_back:
        await session.run(user_input=line)


@SPECIALISTS
@ORDERS
@pytest.mark.parametrize(
    "answer",
    [
        "yes please, and then I also need my delivery address updated",
        "Yes. And I want to return an order too.",
    ],
)
async def test_a_yes_with_a_new_request_makes_the_change_before_leaving(
    settings: Settings, specialist: Confirming, confirm_first: bool, answer: str
) -> None:
    model = ScriptedLLM(
        [
            *specialist.steps_to_read_back,
            confirm_and_leave(specialist, confirm_first=confirm_first),
            *specialist.after_the_change,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await reach_read_back(session, specialist)
        assert not await specialist.changed(session)
        await session.run(user_input=answer)
        assert await specialist.changed(session)
        (output,) = tool_outputs(session, specialist.supervisor_tool)
        assert not output.is_error
        assert output.output.startswith(("Done.", "Your return is requested."))
        heard = agent_lines(session)
        assert any(line.startswith(("Done.", "Your return is requested.")) for line in heard)
        assert LEFT_FOR_SOMETHING_ELSE not in heard
        assert specialist.nothing_changed not in heard
    assert not model.overran


@SPECIALISTS
@ORDERS
async def test_a_new_request_without_a_clear_yes_is_told_nothing_changed(
    settings: Settings, specialist: Confirming, confirm_first: bool
) -> None:
    model = ScriptedLLM(
        [
            *specialist.steps_to_read_back,
            confirm_and_leave(specialist, confirm_first=confirm_first),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await reach_read_back(session, specialist)
        await session.run(user_input="Okay thanks. And where is my other order?")
        assert not await specialist.changed(session)
        (output,) = tool_outputs(session, specialist.supervisor_tool)
        assert (output.output, output.is_error) == (specialist.nothing_changed, True)
        assert agent_lines(session)[-1] == specialist.nothing_changed
    assert not model.overran
