"""A yes to a read-back said with a new request: the confirmed change is made before the
call moves on, or the caller is told plainly that nothing was changed.

Every specialist that confirms before acting and settles its change before moving on (its
`CONFIRMING`, declared in its own test module, says how its done sentence begins) is
driven the same way through the real supervisor, specialists and store: the caller
hears the read-back in full, then answers it and asks for something else in one breath,
and the model sends the confirm tool and `caller_wants_something_else` in one reply, in
either order.
"""

from __future__ import annotations

import pytest
from livekit.agents import AgentSession

from customer_service.call.state import CallState
from customer_service.call.wording import LEFT_FOR_SOMETHING_ELSE
from customer_service.settings import Settings
from customer_service.testing import call_session
from support.confirming import Confirming, confirming_cases
from support.conversation import agent_lines, tool_outputs
from support.scripted_llm import Call, Parallel, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

LEAVE = Call("caller_wants_something_else", {"request": "another request"})
SETTLING = {name: case for name, case in confirming_cases().found.items() if case.said_when_done}
SPECIALISTS = pytest.mark.parametrize("specialist", SETTLING.values(), ids=SETTLING.keys())
ORDERS = pytest.mark.parametrize(
    "confirm_first", [True, False], ids=["confirm_first", "leave_first"]
)


def confirm_and_leave(specialist: Confirming, *, confirm_first: bool) -> Parallel:
    both = (specialist.confirm, LEAVE)
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
        assert specialist.said_when_done is not None
        assert output.output.startswith(specialist.said_when_done)
        heard = agent_lines(session)
        assert any(line.startswith(specialist.said_when_done) for line in heard)
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
