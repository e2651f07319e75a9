"""A model leaves any specialist when the caller asks for something else: the tool and
its instructions are offered to every specialist, nothing is saved (a specialist that
confirms before acting says so in its own words), and the supervisor gets the caller's
request to act on."""

from __future__ import annotations

from customer_service.call.wording import SPECIALIST_WAY_OUT
from customer_service.domain import OrderStatus
from customer_service.settings import Settings
from customer_service.specialists.cancellation import kept_message
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, verifying_for
from support.scripted_llm import Call, Decision, ScriptedLLM, Turn
from support.scripted_llm import relay_tool_output as relay

SWITCH = "Actually, where is order 100101?"


def leave_the_cancellation(turn: Turn) -> Decision:
    assert "caller_wants_something_else" in turn.tool_names
    assert "record_cancellation_reason" in turn.tool_names
    assert SPECIALIST_WAY_OUT.strip() in turn.instructions
    return Call("caller_wants_something_else", {"request": "where is order 100101"})


def take_the_new_request(turn: Turn) -> Decision:
    output = turn.last_tool_output
    assert output is not None
    assert (output.name, output.is_error, output.output) == (
        "cancel_order",
        True,
        kept_message("100102"),
    )
    assert turn.last_user_text == SWITCH
    return Call("lookup_order", {"order_id": "100101"})


async def test_a_model_leaves_a_specialist_for_the_callers_new_request(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("cancel_order", "100102", JORDAN),
            leave_the_cancellation,
            take_the_new_request,
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Cancel order 100102, please")
        await session.run(user_input=JORDAN_SAYS)
        result = await session.run(user_input=SWITCH)
        result.expect.contains_function_call(name="lookup_order", arguments={"order_id": "100101"})
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.status is OrderStatus.PENDING
        [run] = [
            event
            for event in await session.userdata.store.audit_events(kind="delegation")
            if event.detail["specialist"] == "cancellation_task"
        ]
        assert run.detail["outcome"] == "left"
    assert not model.overran
