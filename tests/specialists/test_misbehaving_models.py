"""A model that misbehaves around a confirmation: every specialist that acts only on the
caller's own yes holds, whatever the model calls, with whatever arguments, in one reply.

Every specialist whose registration writes runs every case: the suite is built from the
registrations and the `CONFIRMING` each declares in its own test module
(`tests/support/confirming.py`), and fails naming one that declares none. Each case
drives the real supervisor, specialists and store; only the model is scripted: it
misbehaves once, then behaves (it relays what tools say and confirms when the caller's
latest words say yes), so the case also shows that the caller's own yes, said
afterwards, still makes the change exactly once.
"""

from __future__ import annotations

import asyncio

import pytest
from livekit.agents import AgentSession

from customer_service.call.state import CallState
from customer_service.call.wording import spaced_digits
from customer_service.settings import Settings
from customer_service.specialists.order_lookup import not_found_message
from customer_service.testing import call_session
from support.confirming import Confirming, confirming_cases
from support.conversation import agent_lines, audit_events, check_identity, tool_outputs
from support.scripted_llm import Call, Decision, Parallel, Rule, Say, ScriptedLLM, Step, Turn

DECLARED = confirming_cases()
SUITE = DECLARED.found
EVERY_ONE = pytest.mark.parametrize("specialist", DECLARED.cases, ids=DECLARED.names)
ORDER_BOUND = pytest.mark.parametrize(
    "specialist", [pytest.param(s, id=i) for i, s in SUITE.items() if s.order_tool_for]
)
ACCOUNT_LEVEL = pytest.mark.parametrize(
    "specialist", [pytest.param(s, id=i) for i, s in SUITE.items() if s.account]
)
CHOOSING = pytest.mark.parametrize(
    ("specialist", "beyond"),
    [
        pytest.param(s, call, id=f"{i}-{index}")
        for i, s in SUITE.items()
        for index, call in enumerate(s.beyond_the_caller)
    ],
)
REFUSED = pytest.mark.parametrize(
    ("specialist", "record"),
    [
        pytest.param(s, call, id=f"{i}-{key}")
        for i, s in SUITE.items()
        for key, call in s.refused_records.items()
    ],
)
HANG_GUARD_S = 10.0  # a generous bound: a hang must fail the test, not stall it


def test_every_specialist_that_writes_declares_how_to_drive_it() -> None:
    assert DECLARED.missing == []
    assert DECLARED.names  # the suite runs some


def behaving(specialist: Confirming) -> Rule:
    """The model once it behaves: it relays what a tool said, confirms when the caller's
    latest words hold a yes, and otherwise asks what else it can do."""

    def decide(turn: Turn) -> Decision:
        output = turn.last_tool_output
        if output is not None:
            return Say(output.output or "All right.")
        if specialist.confirm_tool in turn.tool_names and "yes" in turn.last_user_text.lower():
            return specialist.confirm
        return Say("Is there anything else?")

    return decide


def model_for(specialist: Confirming, *misbehaving: Step) -> ScriptedLLM:
    return ScriptedLLM([*specialist.steps_to_read_back, *misbehaving], then=behaving(specialist))


async def reach_read_back(
    session: AgentSession[CallState], specialist: Confirming, *, last_line: str | None = None
) -> None:
    *before, last = specialist.lines_to_read_back
    for line in (*before, last_line or last):
        await session.run(user_input=line)


async def assert_unchanged(session: AgentSession[CallState], specialist: Confirming) -> None:
    assert not await specialist.changed(session)
    assert await specialist.writes_stored(session) == 0


async def assert_changed_once(session: AgentSession[CallState], specialist: Confirming) -> None:
    assert await specialist.changed(session)
    assert await specialist.writes_stored(session) == 1


@EVERY_ONE
async def test_a_confirm_before_the_read_back_was_heard_changes_nothing(
    settings: Settings, specialist: Confirming
) -> None:
    # The confirm rides in the very reply that brings the read-back.
    *steps, brings_read_back = specialist.steps_to_read_back
    assert isinstance(brings_read_back, Call)
    early = Parallel((brings_read_back, specialist.confirm))
    model = ScriptedLLM([*steps, early], then=behaving(specialist))
    async with call_session(model, settings=settings) as session:
        await reach_read_back(
            session, specialist, last_line=f"Yes! {specialist.lines_to_read_back[-1]}"
        )
        await assert_unchanged(session, specialist)
        assert all(output.is_error for output in tool_outputs(session, specialist.confirm_tool))

        await session.run(user_input="Yes")
        await assert_changed_once(session, specialist)


@EVERY_ONE
async def test_a_confirm_with_no_yes_changes_nothing(
    settings: Settings, specialist: Confirming
) -> None:
    model = model_for(specialist, specialist.confirm)
    async with call_session(model, settings=settings) as session:
        await reach_read_back(session, specialist)
        await session.run(user_input="Hmm, what would that cost me?")
        await assert_unchanged(session, specialist)

        await session.run(user_input="Yes")
        await assert_changed_once(session, specialist)


@EVERY_ONE
async def test_a_yes_said_before_the_read_back_confirms_nothing(
    settings: Settings, specialist: Confirming
) -> None:
    model = model_for(specialist, specialist.confirm)
    async with call_session(model, settings=settings) as session:
        last = specialist.lines_to_read_back[-1]
        await reach_read_back(session, specialist, last_line=f"Yes, yes. {last}")
        # The model takes a turn of its own after the read-back and acts on that stale yes.
        await asyncio.wait_for(session.generate_reply(), HANG_GUARD_S)
        await assert_unchanged(session, specialist)

        await session.run(user_input="Yes")
        await assert_changed_once(session, specialist)


@EVERY_ONE
@pytest.mark.parametrize(
    "reply", [("confirm", "confirm"), ("confirm", "give_up"), ("give_up", "confirm")]
)
async def test_several_calls_in_one_reply_change_at_most_once(
    settings: Settings, specialist: Confirming, reply: tuple[str, str]
) -> None:
    calls = tuple(specialist.confirm if name == "confirm" else Call(name) for name in reply)
    model = model_for(specialist, Parallel(calls))
    async with call_session(model, settings=settings) as session:
        await reach_read_back(session, specialist)
        await session.run(user_input="Yes")
        writes = await specialist.writes_stored(session)
        if reply == ("confirm", "confirm"):
            assert writes == 1
        assert writes <= 1
        # What the caller hears matches the store.
        assert await specialist.changed(session) is (writes == 1)
        outputs = tool_outputs(session, specialist.supervisor_tool)
        assert len(outputs) <= 1
        if outputs and writes == 0:
            assert outputs[0].output == specialist.nothing_changed


@EVERY_ONE
async def test_a_reply_acting_on_other_than_the_read_back_changes_nothing(
    settings: Settings, specialist: Confirming
) -> None:
    answer, misbehaving = specialist.other_than_read_back
    model = model_for(specialist, misbehaving)
    async with call_session(model, settings=settings) as session:
        await reach_read_back(session, specialist)
        await session.run(user_input=answer)
        await assert_unchanged(session, specialist)


async def _refusal_for(settings: Settings, specialist: Confirming, order_id: str) -> list[str]:
    model = ScriptedLLM(
        [
            Call(specialist.supervisor_tool, {"order_id": order_id}),
            check_identity(specialist.caller),
        ],
        then=behaving(specialist),
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input=f"It's about order {order_id}")
        await session.run(user_input=", ".join(specialist.caller.values()))
        outputs = tool_outputs(session, specialist.supervisor_tool)
        assert [(output.output, output.is_error) for output in outputs] == [
            (not_found_message(order_id), True)
        ]
        await assert_unchanged(session, specialist)
        heard = [*agent_lines(session), *(output.output for output in outputs)]
    assert not any(turn.offers(frozenset({specialist.confirm_tool})) for turn in model.turns)
    return [line.replace(spaced_digits(order_id), "<order>") for line in heard]


@ORDER_BOUND
async def test_another_customers_order_reads_exactly_like_an_unknown_one(
    settings: Settings, specialist: Confirming
) -> None:
    someone_elses = "100101" if specialist.caller["full_name"] != "Jordan Lee" else "200202"
    assert await _refusal_for(settings, specialist, someone_elses) == await _refusal_for(
        settings, specialist, "999999"
    )


@ACCOUNT_LEVEL
async def test_an_account_level_change_reaches_only_the_verified_callers_account(
    settings: Settings, specialist: Confirming
) -> None:
    # The model names another account wherever it can (arguments the tools do not
    # take): only the caller who verified is changed, once.
    other = "C-1002" if specialist.account != "C-1002" else "C-1001"
    *_, record = specialist.steps_to_read_back
    assert isinstance(record, Call)
    model = ScriptedLLM(
        [
            Call(specialist.supervisor_tool, {"customer_id": other}),
            check_identity(specialist.caller),
            Call(record.name, {**record.arguments, "customer_id": other}),
        ],
        then=behaving(specialist),
    )
    async with call_session(model, settings=settings) as session:
        await reach_read_back(session, specialist)
        await session.run(user_input="Yes")
        await assert_changed_once(session, specialist)
        (event,) = await audit_events(session, kind=specialist.writes)
        assert event.customer_id == specialist.account
        # No write of the kind stored for anyone else, in this call or any.
        everyone = await session.userdata.store.audit_events(kind=specialist.writes)
        assert {stored.customer_id for stored in everyone} == {specialist.account}


@CHOOSING
async def test_a_record_beyond_the_callers_choices_is_refused_with_a_confirm_after_it(
    settings: Settings, specialist: Confirming, beyond: Call
) -> None:
    # After the read-back the model records what is not the caller's to choose and
    # confirms at once: the record is refused, and the yes confirms only what was heard.
    model = model_for(specialist, Parallel((beyond, specialist.confirm)))
    async with call_session(model, settings=settings) as session:
        await reach_read_back(session, specialist)
        await session.run(user_input="Yes")
        refused = tool_outputs(session, beyond.name)[-1]
        assert refused.is_error
        # Nothing, or exactly what the caller heard and said yes to.
        writes = await specialist.writes_stored(session)
        assert writes <= 1
        assert await specialist.changed(session) is (writes == 1)


@REFUSED
async def test_a_record_with_arguments_the_rules_refuse_changes_nothing_even_on_a_yes(
    settings: Settings, specialist: Confirming, record: Call
) -> None:
    *steps, _ = specialist.steps_to_read_back
    model = ScriptedLLM([*steps, record], then=behaving(specialist))
    async with call_session(model, settings=settings) as session:
        await reach_read_back(session, specialist)
        (refused,) = tool_outputs(session, record.name)
        assert refused.is_error
        assert "credit_card_9000101" not in refused.output  # another customer's card
        await session.run(user_input="Yes")
        await assert_unchanged(session, specialist)
