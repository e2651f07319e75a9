"""Orders by what they are, and the caller with one order (issue 25): a request that
names an item only one of the caller's orders holds finds that order in code, with no
question and no list; several holding it are asked about; a caller with one order is
offered it, its disclosure recorded before it is said. Real sessions, scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from livekit.agents import AgentSession

from customer_service.call.state import CallState
from customer_service.order_choice import SEVERAL_FIT_UNLISTED, one_order_offer
from customer_service.order_numbers import spoken_order_id
from customer_service.settings import Settings
from customer_service.specialists.cancellation import CancellationTask
from customer_service.specialists.order_lookup import OPENING_QUESTION, OrderLookupTask
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    PRIYA,
    PRIYA_SAYS,
    agent_lines,
    audit_events,
    check_identity,
    tool_outputs,
    verifying_for,
)
from support.offline_chat import demo_order
from support.scripted_llm import ORDER_LOOKUP_TOOLS, Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

MARIA: dict[str, Any] = {
    "full_name": "María García",
    "postal_code": "28013",
    "phone_or_email": "maria.garcia@example.es",
}
MARIA_SAYS = "María García, 28013, maria.garcia@example.es"


def order_lookups(session: AgentSession[CallState]) -> list[str]:
    return [output.output for output in tool_outputs(session, "lookup_order")]


async def disclosed_in_audit(session: AgentSession[CallState]) -> list[str | None]:
    return [event.order_id for event in await audit_events(session, "order_disclosed")]


@pytest.mark.parametrize(
    ("request_line", "details", "says", "order_id"),
    [
        ("Where are my water bottles?", PRIYA, PRIYA_SAYS, "200202"),
        ("Where is my yoga mat?", PRIYA, PRIYA_SAYS, "200201"),
        ("Has the order with the headphones shipped?", JORDAN, JORDAN_SAYS, "100101"),
    ],
)
async def test_an_item_only_one_order_holds_names_that_order(
    settings: Settings,
    request_line: str,
    details: dict[str, Any],
    says: str,
    order_id: str,
) -> None:
    model = ScriptedLLM([Call("lookup_order"), check_identity(details), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input=request_line)
        await session.run(user_input=says)
        (found,) = order_lookups(session)
        assert found.startswith(f"Order {spoken_order_id(order_id)}, placed on")
        assert session.userdata.disclosed_order_ids == [order_id]
        assert await disclosed_in_audit(session) == [order_id]
        assert OPENING_QUESTION not in agent_lines(session)
    # Routing, the identity check and the reply: the order specialist never started.
    assert not any(turn.offers(ORDER_LOOKUP_TOOLS) for turn in model.turns)
    assert not model.overran


async def test_a_request_already_verified_names_its_order_for_any_specialist(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("lookup_order", "100101", JORDAN),
            relay,
            Call("cancel_order"),
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where is order 100101?")
        await session.run(user_input=JORDAN_SAYS)
        result = await session.run(user_input="Then cancel the order with the coffee set")
        result.expect.contains_agent_handoff(new_agent_type=CancellationTask)
        # The read-back of 100102, the one order with a coffee set: no number asked for.
        assert agent_lines(session)[-1].startswith("Order 1 0 0, 1 0 2 contains a Ceramic")
        assert session.userdata.order_lookup_failures == 0


async def test_an_item_several_orders_hold_asks_which_without_naming_them(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("lookup_order"), check_identity(JORDAN)])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where is my order with the cable or the coffee set?")
        result = await session.run(user_input=JORDAN_SAYS)
        result.expect.contains_agent_handoff(new_agent_type=OrderLookupTask)
        assert agent_lines(session)[-1] == SEVERAL_FIT_UNLISTED
        # Neither number was said: nothing is recorded as disclosed, and it is no miss.
        assert session.userdata.disclosed_order_ids == []
        assert await disclosed_in_audit(session) == []
        assert session.userdata.order_lookup_failures == 0


async def test_an_item_none_of_the_callers_orders_holds_is_asked_about_as_usual(
    settings: Settings,
) -> None:
    # The yoga mat is Priya's: Jordan's request names none of his orders.
    model = ScriptedLLM([Call("lookup_order"), check_identity(JORDAN)])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where is my yoga mat?")
        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session)[-1] == OPENING_QUESTION
        assert await disclosed_in_audit(session) == []
        assert session.userdata.order_lookup_failures == 0


async def test_a_caller_with_one_order_is_offered_it_and_a_yes_picks_it(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order"),
            check_identity(MARIA),
            Call("lookup", {"order_id": "300301"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I'd like to check on my order")
        await session.run(user_input=MARIA_SAYS)
        # The offer names the order: its disclosure is on record before it is said.
        assert agent_lines(session)[-1] == one_order_offer(demo_order("300301"))
        assert await disclosed_in_audit(session) == ["300301"]
        assert OPENING_QUESTION not in agent_lines(session)

        await session.run(user_input="yes")
        (found,) = order_lookups(session)
        assert found.startswith("Order 3 0 0, 3 0 1, placed on")
        assert session.userdata.disclosed_order_ids == ["300301"]
    assert not model.overran


async def test_that_one_after_the_offer_picks_the_order_offered(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order"),
            check_identity(MARIA),
            Call("choose_order", {"choice": "yes, that one"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I'd like to check on my order")
        await session.run(user_input=MARIA_SAYS)
        await session.run(user_input="yes, that one")
        (found,) = order_lookups(session)
        assert found.startswith("Order 3 0 0, 3 0 1, placed on")
        assert session.userdata.order_lookup_failures == 0


async def test_a_caller_with_several_orders_is_asked_for_the_number(settings: Settings) -> None:
    model = ScriptedLLM([Call("lookup_order"), check_identity(PRIYA)])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I'd like to check on my order")
        await session.run(user_input=PRIYA_SAYS)
        assert agent_lines(session)[-1] == OPENING_QUESTION
        assert await disclosed_in_audit(session) == []
