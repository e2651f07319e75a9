"""A model reply with no words and no tool call is never silence: the supervisor and
every specialist say `SAY_AGAIN` in its place, and the caller's next words go on."""

from __future__ import annotations

from customer_service.call.wording import SAY_AGAIN
from customer_service.settings import Settings
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, check_identity
from support.scripted_llm import Call, Say, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

EMPTY = Say("")
BLANK = Say("  \n")
WHAT_ELSE = "Of course. What else can I do for you?"


async def test_an_empty_supervisor_reply_with_nothing_owed_says_something(
    settings: Settings,
) -> None:
    model = ScriptedLLM([EMPTY, BLANK, Say(WHAT_ELSE)])
    async with call_session(model, settings=settings) as session:
        thanks = await session.run(user_input="Great, thank you.")
        thanks.expect.next_event().is_message(role="assistant")
        thanks.expect.no_more_events()
        assert agent_lines(session)[-1] == SAY_AGAIN
        # Blank text is no reply either.
        await session.run(user_input="I said thank you.")
        assert agent_lines(session)[-1].strip() == SAY_AGAIN
        await session.run(user_input="That's kind of you.")
        assert agent_lines(session)[-1] == WHAT_ELSE
    assert not model.overran


async def test_an_empty_specialist_reply_says_something_and_the_specialist_goes_on(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order", {"order_id": "100101"}),
            EMPTY,  # the identity specialist's reply to the caller's details
            check_identity(JORDAN),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where is my order 100101?")
        assert agent_lines(session)[-1] == IDENTITY_QUESTION
        # A name alone is the model's to read (all three in one line, code would check).
        await session.run(user_input="I'm Jordan Lee")
        assert agent_lines(session)[-1] == SAY_AGAIN
        assert session.userdata.verified_customer is None
        await session.run(user_input="94107, jordan.lee@example.com")
        # The status, said by code, then the closing question.
        assert agent_lines(session)[-2].startswith("Order 1 0 0, 1 0 1")
    assert not model.overran


async def test_an_empty_reply_to_a_tool_result_asks_the_model_once_more(
    settings: Settings,
) -> None:
    # The caller was clear and the check ran: the result is said, not "say that again".
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), EMPTY, relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you verify me?")
        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session)[-1].endswith("you are verified.")
        assert SAY_AGAIN not in agent_lines(session)
    assert not model.overran


async def test_a_second_empty_reply_to_a_tool_result_is_not_silence(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), EMPTY, BLANK])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you verify me?")
        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session)[-1].strip() == SAY_AGAIN
    assert not model.overran
