"""Work on the caller's account, not on an order: `Desk.verified_caller` starts an
account-level specialist only for the verified caller, on their own account, and every
refusal is a sentence the caller can hear.

The specialist here exists only in these tests (a nickname on the account), started by
the real supervisor as any registered specialist is; identity, store and session are
the real ones, and only the model is scripted.
"""

from __future__ import annotations

import pytest
from livekit.agents import RunContext, function_tool
from pydantic import BaseModel, ConfigDict

from customer_service import supervisor
from customer_service.call.delegation import delegate
from customer_service.call.registration import Desk, supervisor_tool
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.settings import Settings
from customer_service.specialists import SPECIALISTS
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.identity import VERIFICATION_DECLINED, VERIFICATION_LOCKED
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, check_identity, tool_outputs
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

NICKNAME_QUESTION = "What nickname would you like on your account?"
NICKNAME_TOOLS = frozenset({"record_nickname"})
JORDANS_ACCOUNT = "C-1001"


class NicknameResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    customer_id: str
    nickname: str


class NicknameTask(Specialist[NicknameResult]):
    """An account-level specialist: one question about the verified caller's account."""

    def __init__(self, customer_id: str) -> None:
        super().__init__(instructions="Ask which nickname the caller wants on their account.")
        self._customer_id = customer_id

    async def opening(self) -> None:
        self.session.say(NICKNAME_QUESTION)

    @function_tool()
    async def record_nickname(self, context: RunContext[CallState], nickname: str) -> None:
        """Record the nickname.

        Args:
            nickname: The nickname, as the caller said it.
        """
        self.finish(NicknameResult(customer_id=self._customer_id, nickname=nickname))


@supervisor_tool(
    NicknameTask, NicknameResult, when_to_use="the caller wants a nickname on their account."
)
async def set_nickname(desk: Desk, context: RunContext[CallState]) -> str:
    """Set a nickname on the caller's account."""
    state = context.userdata
    customer = await desk.verified_caller(state)
    result = await delegate(state, NicknameTask(customer.customer_id))
    return f"Noted {result.nickname} on account {result.customer_id}."


@pytest.fixture(autouse=True)
def nickname_specialist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(supervisor, "SPECIALISTS", (*SPECIALISTS, set_nickname))


async def test_an_unverified_caller_is_verified_first_then_works_on_their_own_account(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("set_nickname"),
            check_identity(JORDAN),
            Call("record_nickname", {"nickname": "JJ"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you put a nickname on my account?")
        assert agent_lines(session)[-1] == IDENTITY_QUESTION
        assert not any(turn.offers(NICKNAME_TOOLS) for turn in model.turns)

        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session)[-1] == NICKNAME_QUESTION
        await session.run(user_input="JJ")
        (output,) = tool_outputs(session, "set_nickname")
        assert (output.output, output.is_error) == (
            f"Noted JJ on account {JORDANS_ACCOUNT}.",
            False,
        )
    assert not model.overran


async def test_a_verified_caller_is_not_asked_again(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            *(Call("verify_identity"), check_identity(JORDAN), relay),
            *(Call("set_nickname"), Call("record_nickname", {"nickname": "JJ"}), relay),
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Please verify me")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="Now a nickname on my account, please")
        assert agent_lines(session)[-1] == NICKNAME_QUESTION
        assert agent_lines(session).count(IDENTITY_QUESTION) == 1
        await session.run(user_input="JJ")
        (output,) = tool_outputs(session, "set_nickname")
        assert output.output == f"Noted JJ on account {JORDANS_ACCOUNT}."
    assert not model.overran


async def test_a_caller_who_will_not_verify_hears_why_and_no_specialist_starts(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("set_nickname"), Call("give_up"), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Put a nickname on my account")
        await session.run(user_input="I'd rather not say who I am")
        (output,) = tool_outputs(session, "set_nickname")
        assert (output.output, output.is_error) == (VERIFICATION_DECLINED, True)
        assert agent_lines(session)[-1] == VERIFICATION_DECLINED
        assert session.userdata.verified_customer is None
    assert not any(turn.offers(NICKNAME_TOOLS) for turn in model.turns)
    assert not model.overran


async def test_a_locked_verification_refuses_account_work_in_words(settings: Settings) -> None:
    wrong = [check_identity(JORDAN, postal_code=code) for code in ("11111", "22222", "33333")]
    answered = [step for check in wrong for step in (check, relay)]
    model = ScriptedLLM([Call("set_nickname"), *answered, Call("set_nickname"), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Put a nickname on my account")
        for _ in wrong:
            await session.run(user_input="Jordan Lee, wrong postal code, jordan.lee@example.com")
        assert tool_outputs(session, "set_nickname")[-1].output == VERIFICATION_LOCKED
        # Asked again: refused at once, with no identity check and no specialist.
        await session.run(user_input="Just put the nickname on, please")
        outputs = tool_outputs(session, "set_nickname")
        assert [(item.output, item.is_error) for item in outputs] == [
            (VERIFICATION_LOCKED, True)
        ] * 2
        assert agent_lines(session)[-1] == VERIFICATION_LOCKED
    assert not any(turn.offers(NICKNAME_TOOLS) for turn in model.turns)
    assert not model.overran
