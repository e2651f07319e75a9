"""Confirm before acting (`call.confirmation`), through real sessions with a scripted model.

A small specialist made for these tests (a pledge of some dollars) uses the primitive
the way a new specialist would, started by the real supervisor; the address change and
the cancellation are checked where they moved onto it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable

import pytest
from livekit.agents import AgentSession, ModelSettings, RunContext, function_tool
from livekit.agents.voice.run_result import mock_tools
from pydantic import BaseModel

from customer_service.addresses import read_back as address_read_back
from customer_service.addresses import validated_address
from customer_service.call.confirmation import ConfirmationWording, ConfirmBeforeActing
from customer_service.call.guard import guarded
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import NOTHING_TO_CONFIRM_YET, STILL_THERE
from customer_service.domain import OrderStatus
from customer_service.settings import Settings
from customer_service.specialists import cancellation
from customer_service.specialists.address_update import WORDING as ADDRESS_WORDING
from customer_service.specialists.address_update import AddressUpdateTask
from customer_service.specialists.cancellation import CancellationTask
from customer_service.specialists.cancellation import wording as cancellation_wording
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    agent_lines,
    ask_then_verify,
    tool_outputs,
    verifying_for,
)
from support.demo_addresses import MARKET_ST_ARGUMENTS
from support.scripted_llm import Call, Parallel, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

HANG_GUARD_S = 10.0  # a generous bound: a hang must fail the test, not stall it

QUESTION = "How many dollars would you like to pledge?"
NOT_A_CLEAR_YES = "I haven't taken a pledge. Is that amount right? Please say yes or no."
KEPT = "All right, no pledge."
UNANSWERED = "Please tell me first whether the amount I read back is right."
CANCELLATION_READ_BACK = (
    "I'll cancel order 1 0 0, 1 0 2, with a Ceramic pour-over coffee set, because you no "
    "longer need it. You get 48 dollars back. It reaches your Visa card ending in 4 2 4 2 in "
    "five to seven business days. Do you want me to cancel this order? Please say yes or no."
)
NO_LONGER_NEEDED = Call("record_cancellation_reason", {"reason": "no longer needed"})
NOT_CANCELLED = cancellation_wording("100102").not_a_clear_yes
REPLACED = "The amount has changed since I read it back. Please confirm the new one."


class Pledge(BaseModel):
    amount: int


PLEDGE_WORDING = ConfirmationWording(
    done="taken",
    thing="a pledge",
    question="Is that amount right?",
    asking="Is that right?",
    re_ask="Is that right?",
    not_a_clear_yes=NOT_A_CLEAR_YES,
    nothing_done=KEPT,
    unanswered=UNANSWERED,
    replaced=REPLACED,
)
"""Every sentence its own, as a specialist may give them."""


def pledge_read_back(amount: int, wording: ConfirmationWording = PLEDGE_WORDING) -> str:
    return wording.read_back(f"A pledge of {amount} dollars.")


class PledgeTask(Specialist[Pledge]):
    """A specialist as a new one would be written: a record tool that proposes."""

    still_there_question = QUESTION
    wording = PLEDGE_WORDING

    def __init__(self) -> None:
        super().__init__(instructions="Take the caller's pledge.")
        self.confirmation = ConfirmBeforeActing(
            self,
            tool_name="confirm_pledge",
            tool_description="Call only after the caller said the amount is right.",
            wording=self.wording,
            max_refusals=2,
        )

    async def opening(self) -> None:
        self.session.say(QUESTION)

    def nudge(self) -> None:
        if not self.confirmation.nudge():
            super().nudge()

    @function_tool()
    @guarded()
    async def record_pledge(self, context: RunContext[CallState], amount: int) -> None:
        """Record the amount the caller pledges.

        Args:
            amount: Whole dollars.
        """
        read_back = pledge_read_back(amount, self.wording)
        await self.confirmation.propose(Pledge(amount=amount), read_back=read_back)


class HeldPledgeTask(PledgeTask):
    """Holds the read-back it is told to hold until the test releases it, so the caller
    can cut it off."""

    hold_next = False
    held = asyncio.Event()
    release = asyncio.Event()

    async def transcription_node(
        self, text: AsyncIterable[str], model_settings: ModelSettings
    ) -> AsyncIterable[str]:
        if self.hold_next:
            self.hold_next = False
            self.held.set()
            await self.release.wait()
        async for chunk in text:
            yield chunk


async def pledged() -> str:
    """The supervisor's tool, mocked: it starts the pledge specialist."""
    result = await PledgeTask()
    return f"Pledged {result.amount} dollars."


def record(amount: int) -> Call:
    return Call("record_pledge", {"amount": amount})


CONFIRM = Call("confirm_pledge")


def outputs(session: AgentSession[CallState], name: str) -> list[tuple[str, bool]]:
    return [(item.output, item.is_error) for item in tool_outputs(session, name)]


@pytest.mark.parametrize("order", ["record first", "confirm first"])
async def test_a_confirm_in_the_reply_that_proposes_is_answered_and_confirms_nothing(
    settings: Settings, order: str
) -> None:
    calls = (record(50), CONFIRM) if order == "record first" else (CONFIRM, record(50))
    model = ScriptedLLM([Call("lookup_order"), Parallel(calls), relay, CONFIRM, relay])
    with mock_tools(CustomerServiceAgent, {"lookup_order": pledged}):
        async with call_session(model, settings=settings) as session:
            await session.run(user_input="I'd like to pledge")
            assert agent_lines(session)[-1] == QUESTION
            await session.run(user_input="Fifty, yes, yes")
            # Not "Unknown function": a sentence to say, and the read-back said once.
            assert outputs(session, "confirm_pledge") == [(UNANSWERED, True)]
            assert agent_lines(session)[-2:] == [pledge_read_back(50), UNANSWERED]
            assert isinstance(session.current_agent, PledgeTask)

            await session.run(user_input="Yes")
            assert outputs(session, "lookup_order") == [("Pledged 50 dollars.", False)]
    # Offered from the reply after the proposal on, and run before that all the same.
    offered = ["confirm_pledge" in turn.tool_names for turn in model.turns]
    assert (offered[1], offered[3]) == (False, True)
    assert not model.overran


async def test_nothing_proposed_yet_is_answered_in_words(settings: Settings) -> None:
    model = ScriptedLLM([Call("lookup_order"), CONFIRM, relay])
    with mock_tools(CustomerServiceAgent, {"lookup_order": pledged}):
        async with call_session(model, settings=settings) as session:
            await session.run(user_input="I'd like to pledge")
            await session.run(user_input="yes")
            assert outputs(session, "confirm_pledge") == [(NOTHING_TO_CONFIRM_YET, True)]
            assert isinstance(session.current_agent, PledgeTask)
    assert not model.overran


async def test_a_read_back_cut_off_is_read_again_and_only_a_yes_after_it_confirms(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(HeldPledgeTask, "held", asyncio.Event())
    monkeypatch.setattr(HeldPledgeTask, "release", asyncio.Event())
    model = ScriptedLLM([Call("lookup_order"), record(50), CONFIRM, CONFIRM, relay])

    async def held_pledge() -> str:
        result = await HeldPledgeTask()
        return f"Pledged {result.amount} dollars."

    with mock_tools(CustomerServiceAgent, {"lookup_order": held_pledge}):
        async with call_session(model, settings=settings) as session:
            await session.run(user_input="I'd like to pledge")
            task = session.current_agent
            assert isinstance(task, HeldPledgeTask)
            task.hold_next = True
            giving = asyncio.ensure_future(session.run(user_input="Fifty"))
            await asyncio.wait_for(HeldPledgeTask.held.wait(), HANG_GUARD_S)
            await asyncio.wait_for(session.interrupt(), HANG_GUARD_S)
            HeldPledgeTask.release.set()
            await asyncio.wait_for(giving, HANG_GUARD_S)
            assert pledge_read_back(50) not in agent_lines(session)

            # A yes to words the caller never heard in full: they are read again.
            await asyncio.wait_for(session.run(user_input="Yes?"), HANG_GUARD_S)
            assert agent_lines(session)[-1] == pledge_read_back(50)
            assert tool_outputs(session, "lookup_order") == []
            assert isinstance(session.current_agent, HeldPledgeTask)

            await asyncio.wait_for(session.run(user_input="Yes"), HANG_GUARD_S)
            assert outputs(session, "lookup_order") == [("Pledged 50 dollars.", False)]
    assert not model.overran


async def test_a_newer_proposal_replaces_the_older_and_a_yes_to_the_older_confirms_nothing(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order"),
            record(50),
            # The caller said yes to fifty; the model records sixty and confirms at once.
            Parallel((record(60), CONFIRM)),
            relay,
            # Then it confirms again, with no word from the caller since sixty was read.
            CONFIRM,
            relay,
            CONFIRM,
            relay,
        ]
    )
    with mock_tools(CustomerServiceAgent, {"lookup_order": pledged}):
        async with call_session(model, settings=settings) as session:
            await session.run(user_input="I'd like to pledge")
            await session.run(user_input="Fifty")
            await session.run(user_input="Yes, that's right. Make it sixty")
            assert outputs(session, "confirm_pledge") == [(REPLACED, True)]
            assert agent_lines(session)[-2:] == [pledge_read_back(60), REPLACED]

            await asyncio.wait_for(session.generate_reply(), HANG_GUARD_S)
            assert outputs(session, "confirm_pledge")[-1] == (UNANSWERED, True)
            assert isinstance(session.current_agent, PledgeTask)

            await session.run(user_input="Yes")
            assert outputs(session, "lookup_order") == [("Pledged 60 dollars.", False)]
    assert not model.overran


async def test_refusals_end_the_task_at_the_cap_and_start_over_with_a_new_proposal(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [Call("lookup_order"), record(50), CONFIRM, relay, record(60), *[CONFIRM, relay] * 2]
    )
    with mock_tools(CustomerServiceAgent, {"lookup_order": pledged}):
        async with call_session(model, settings=settings) as session:
            await session.run(user_input="I'd like to pledge")
            await session.run(user_input="Fifty")
            await session.run(user_input="Hmm, no")
            await session.run(user_input="Sixty then")
            # One refusal of fifty and one of sixty: the count started over.
            await session.run(user_input="I'm not sure")
            assert outputs(session, "confirm_pledge") == [(NOT_A_CLEAR_YES, True)] * 2
            assert isinstance(session.current_agent, PledgeTask)

            await session.run(user_input="Maybe")
            assert outputs(session, "lookup_order") == [(KEPT, True)]
            assert isinstance(session.current_agent, CustomerServiceAgent)
    assert not model.overran


async def until_said(session: AgentSession[CallState], line: str) -> None:
    """Waits for the agent to have said `line` in full."""
    said = asyncio.Event()

    def check(_: object) -> None:
        if line in agent_lines(session):
            said.set()

    session.on("conversation_item_added", check)
    try:
        check(None)
        await asyncio.wait_for(said.wait(), HANG_GUARD_S)
    finally:
        session.off("conversation_item_added", check)


async def test_a_quiet_caller_is_asked_briefly_and_a_yes_to_the_read_back_still_counts(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("lookup_order"), record(50), CONFIRM, relay])
    with mock_tools(CustomerServiceAgent, {"lookup_order": pledged}):
        async with call_session(model, settings=settings) as session:
            await session.run(user_input="I'd like to pledge")
            task = session.current_agent
            assert isinstance(task, PledgeTask)
            task.nudge()
            await until_said(session, f"{STILL_THERE} {QUESTION}")

            await session.run(user_input="Fifty")
            task.nudge()
            await until_said(session, f"{STILL_THERE} Is that right?")
            await session.run(user_input="Yes")
            assert outputs(session, "lookup_order") == [("Pledged 50 dollars.", False)]
    assert not model.overran


class SharedWordsPledgeTask(PledgeTask):
    """The pledge as a specialist that gives only what is its own to say."""

    wording = ConfirmationWording(
        done="taken", thing="your pledge", question="Shall I take this pledge?"
    )


async def pledged_in_shared_words() -> str:
    result = await SharedWordsPledgeTask()
    return f"Pledged {result.amount} dollars."


async def test_a_specialist_that_gives_only_its_own_words_says_the_shared_ones(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("lookup_order"), record(50), CONFIRM, relay, CONFIRM, relay])
    with mock_tools(CustomerServiceAgent, {"lookup_order": pledged_in_shared_words}):
        async with call_session(model, settings=settings) as session:
            await session.run(user_input="I'd like to pledge")
            await session.run(user_input="Fifty")
            assert agent_lines(session)[-1] == (
                "A pledge of 50 dollars. Shall I take this pledge? Please say yes or no."
            )
            task = session.current_agent
            assert isinstance(task, SharedWordsPledgeTask)
            task.nudge()
            asked_again = "Shall I take this pledge? Please say yes, or tell me what to correct."
            await until_said(session, f"{STILL_THERE} {asked_again}")

            await session.run(user_input="Hmm, maybe")
            not_a_yes = f"I haven't taken anything. {asked_again}"
            assert outputs(session, "confirm_pledge") == [(not_a_yes, True)]
            await session.run(user_input="No")
            refused = "All right, I haven't taken your pledge."
            assert outputs(session, "lookup_order") == [(refused, True)]
            assert agent_lines(session)[-1] == refused
    assert not model.overran


# --- the specialists moved onto it -------------------------------------------------------


async def test_an_address_confirmed_in_the_reply_that_records_it_is_asked_about_in_words(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            Parallel((Call("record_address", MARKET_ST_ARGUMENTS), Call("confirm_address"))),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="change the address on 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market St, San Francisco, CA 94105, yes that's right")
        assert outputs(session, "confirm_address") == [(ADDRESS_WORDING.unanswered, True)]
        address = validated_address(**MARKET_ST_ARGUMENTS)
        read_back = f"I have {address_read_back(address)}. Is that right?"
        assert agent_lines(session)[-2:] == [read_back, ADDRESS_WORDING.unanswered]
        assert await session.userdata.store.address_changes(order_id="100102") == []
        assert isinstance(session.current_agent, AddressUpdateTask)
    assert not model.overran


async def test_a_yes_to_one_address_never_confirms_the_next_one_read_back(
    settings: Settings,
) -> None:
    suite_7 = {**MARKET_ST_ARGUMENTS, "unit": "Suite 7"}
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            Call("record_address", MARKET_ST_ARGUMENTS),
            # The caller says yes to the first address; the model records another one
            # and, in its next turn, confirms it with no word from the caller since.
            Call("record_address", suite_7),
            Call("confirm_address"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="change the address on 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market St, San Francisco, CA 94105")
        await session.run(user_input="Yes, that's right.")
        await asyncio.wait_for(session.generate_reply(), HANG_GUARD_S)
        assert outputs(session, "confirm_address") == [(ADDRESS_WORDING.unanswered, True)]
        assert await session.userdata.store.address_changes(order_id="100102") == []
        assert isinstance(session.current_agent, AddressUpdateTask)
    assert not model.overran


async def reach_cancellation_read_back(session: AgentSession[CallState]) -> None:
    await ask_then_verify(session, "I'd like to cancel order 100102", JORDAN_SAYS)
    await session.run(user_input="I don't need it any more")


async def test_a_model_confirming_a_cancellation_unanswered_does_not_use_up_the_callers_refusals(
    settings: Settings,
) -> None:
    confirm = [Call("confirm_cancellation"), relay]
    model = ScriptedLLM(
        [*verifying_for("cancel_order", "100102", JORDAN), NO_LONGER_NEEDED, *confirm * 3]
    )
    async with call_session(model, settings=settings) as session:
        await reach_cancellation_read_back(session)
        for _ in range(2):
            await asyncio.wait_for(session.generate_reply(), HANG_GUARD_S)
        assert outputs(session, "confirm_cancellation") == [(NOT_CANCELLED, True)] * 2
        assert isinstance(session.current_agent, CancellationTask)

        await session.run(user_input="Yes")
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.status is OrderStatus.CANCELLED
    assert not model.overran


class HeldCancellation(CancellationTask):
    held = asyncio.Event()
    release = asyncio.Event()

    async def transcription_node(
        self, text: AsyncIterable[str], model_settings: ModelSettings
    ) -> AsyncIterable[str]:
        # The read-back, once a reason is recorded: the question before it plays freely.
        if self.collected()["reason"] is not None and not self.held.is_set():
            self.held.set()
            await self.release.wait()
        async for chunk in text:
            yield chunk


async def test_a_quiet_caller_who_cut_off_the_cancellation_read_back_hears_all_of_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(HeldCancellation, "held", asyncio.Event())
    monkeypatch.setattr(HeldCancellation, "release", asyncio.Event())
    monkeypatch.setattr(cancellation, "CancellationTask", HeldCancellation)
    model = ScriptedLLM(
        [
            *verifying_for("cancel_order", "100102", JORDAN),
            NO_LONGER_NEEDED,
            Call("confirm_cancellation"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await ask_then_verify(session, "I'd like to cancel order 100102", JORDAN_SAYS)
        giving = asyncio.ensure_future(session.run(user_input="I don't need it any more"))
        await asyncio.wait_for(HeldCancellation.held.wait(), HANG_GUARD_S)
        await asyncio.wait_for(session.interrupt(), HANG_GUARD_S)
        HeldCancellation.release.set()
        await asyncio.wait_for(giving, HANG_GUARD_S)
        task = session.current_agent
        assert isinstance(task, HeldCancellation)

        # The items were never heard: a yes to the short question alone must not do.
        task.nudge()
        await until_said(session, f"{STILL_THERE} {CANCELLATION_READ_BACK}")
        await session.run(user_input="Yes")
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.status is OrderStatus.CANCELLED
    assert not model.overran
