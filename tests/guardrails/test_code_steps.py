"""The steps an agent's code takes through tools the model is never shown
(`call.code_steps`): a model that calls one by name anyway is refused, and nothing
happens."""

from __future__ import annotations

import pytest

from customer_service.call.code_steps import NOT_A_STEP_FOR_THE_MODEL
from customer_service.settings import Settings
from customer_service.specialists.consent import (
    IS_THAT_A_YES,
    SETTLE,
    ConsentAnswer,
    ConsentTask,
    ConsentTopic,
)
from customer_service.supervisor import ASK_OWED_QUESTION
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, check_identity, tool_outputs
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay


@pytest.mark.parametrize(
    "step", [ConsentAnswer.UNCLEAR.value, ConsentAnswer.SPOKEN_OVER.value, IS_THAT_A_YES]
)
async def test_a_model_calling_the_consent_tasks_own_step_is_refused(
    settings: Settings, step: str
) -> None:
    model = ScriptedLLM(
        [
            Call("request_consent", {"topic": "order_updates_sms"}),
            check_identity(JORDAN),
            Call(SETTLE, {"step": step}),
            Call("record_consent", {"granted": True}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you send me text updates?")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="Yes")
        (refused,) = tool_outputs(session, SETTLE)
        assert (refused.output, refused.is_error) == (NOT_A_STEP_FOR_THE_MODEL, True)
        # The question still stands, and the caller's yes is what is recorded.
        record = await session.userdata.store.latest_consent(
            topic=ConsentTopic.ORDER_UPDATES_SMS, customer_id="C-1001"
        )
        assert record is not None
        assert record.granted
        assert not isinstance(session.current_agent, ConsentTask)
    assert not model.overran


async def test_a_model_calling_the_supervisors_own_step_is_refused(settings: Settings) -> None:
    model = ScriptedLLM([Call(ASK_OWED_QUESTION), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Hello, can you ask me your questions now?")
        (refused,) = tool_outputs(session, ASK_OWED_QUESTION)
        assert (refused.output, refused.is_error) == (NOT_A_STEP_FOR_THE_MODEL, True)
    assert not model.overran
