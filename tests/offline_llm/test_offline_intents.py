"""Everyday intents in the offline model's rules: a person, goodbyes and changes of topic
inside a specialist, a no said outright, and a caller checking the line while a tool
runs. Other phrasings than docs/caller-phrasings.md, so the rules are not written
against that table alone."""

from __future__ import annotations

import json

import pytest
from livekit.agents import llm

from customer_service.offline_llm.profiles import STILL_WORKING
from support.offline_chat import (
    ADDRESS,
    ANYTHING_ELSE,
    ASKED_FOR_PERSON,
    CANCELLATION,
    CONSENT,
    FULL_SUPERVISOR,
    IDENTITY,
    ORDER_LOOKUP,
    agent,
    answer,
    called,
    said,
    tool_round,
    user,
)

CANCEL_READ_BACK = (
    "Order 1 0 0, 1 0 2 contains a Ceramic pour-over coffee set. Why would you like to cancel "
    "it: because you no longer need it, or because it was ordered by mistake?"
)
SMS_QUESTION = "Would you like text message updates? Please say yes or no."


@pytest.mark.parametrize(
    "line",
    [
        "could you get me your supervisor",
        "I'd like to speak with someone please",
        "transfer me, this isn't working",
        "just talk to somebody, thanks",
    ],
)
async def test_a_person_in_other_words(line: str) -> None:
    assert called(await answer(FULL_SUPERVISOR, user(line))) == (
        "transfer_to_human",
        ASKED_FOR_PERSON,
    )


@pytest.mark.parametrize(
    ("line", "tool"),
    [
        ("where are the shoes I bought", "lookup_order"),
        ("I no longer want order 100102", "cancel_order"),
        ("please send order 100102 elsewhere", "update_address"),
        ("ok see you", "end_call"),
    ],
)
async def test_everyday_requests_to_the_supervisor(line: str, tool: str) -> None:
    name, _ = called(await answer(FULL_SUPERVISOR, user(line)))
    assert name == tool


@pytest.mark.parametrize(
    ("tools", "opening", "line"),
    [
        (CANCELLATION, CANCEL_READ_BACK, "hold on, what's the status of order 100101?"),
        (CANCELLATION, CANCEL_READ_BACK, "okay see you later"),
        (CONSENT, SMS_QUESTION, "before that, cancel order 100102 please"),
        (CONSENT, SMS_QUESTION, "alright, talk later"),
        (ADDRESS, "What's the new address?", "forget the address, cancel order 100102"),
        (ORDER_LOOKUP, "What's the order number?", "I'd rather move order 100102 to my office"),
        (IDENTITY, "What's your full name?", "goodbye then"),
    ],
)
async def test_a_specialist_is_left_for_another_request(
    tools: list[llm.Tool], opening: str, line: str
) -> None:
    assert called(await answer(tools, agent(opening), user(line))) == (
        "caller_wants_something_else",
        {"request": line},
    )


@pytest.mark.parametrize(
    ("tools", "opening", "line", "tool"),
    [
        # Its own work, or an answer, keeps the specialist going.
        (
            CANCELLATION,
            CANCEL_READ_BACK,
            "cancel order 100102, I ordered it by mistake",
            "record_cancellation_reason",
        ),
        (CONSENT, SMS_QUESTION, "no thanks", "record_consent"),
        (ORDER_LOOKUP, "What's the order number?", "where is order 100101", "lookup"),
    ],
)
async def test_its_own_work_keeps_a_specialist_going(
    tools: list[llm.Tool], opening: str, line: str, tool: str
) -> None:
    name, _ = called(await answer(tools, agent(opening), user(line)))
    assert name == tool


async def test_identity_keeps_an_order_question_for_after_the_check() -> None:
    # Any request needs the caller verified first: only a goodbye leaves identity.
    response = await answer(
        IDENTITY, agent("What's your full name?"), user("where's order 100101 though")
    )
    assert response.tool_calls == []


def stopped_for(tool: str, asked: str, then: str, output: str) -> list[llm.ChatItem]:
    """A supervisor tool whose specialist the caller left by saying `then`."""
    return [
        user(asked),
        llm.FunctionCall(name=tool, arguments="{}", call_id="stopped"),
        user(then),
        llm.FunctionCallOutput(name=tool, output=output, is_error=True, call_id="stopped"),
    ]


def said_then_called(response: llm.CollectedResponse) -> tuple[str, str, dict[str, object]]:
    """A reply that says something and makes one call."""
    (call,) = response.tool_calls
    return response.text, call.name, json.loads(call.arguments)


async def test_the_supervisor_takes_the_request_a_specialist_was_left_for() -> None:
    # What the stopped specialist said (nothing was changed), then the new request.
    items = stopped_for(
        "cancel_order", "cancel my order", "hmm, first where's order 100101", "All right."
    )
    assert said_then_called(await answer(FULL_SUPERVISOR, items)) == (
        "All right.",
        "lookup_order",
        {"order_id": "100101"},
    )


async def test_a_goodbye_inside_a_specialist_ends_the_call() -> None:
    items = stopped_for("update_address", "new address please", "cya, bye", "All right.")
    assert said_then_called(await answer(FULL_SUPERVISOR, items)) == (
        "All right.",
        "end_call",
        {},
    )


async def test_a_change_made_on_a_yes_said_with_a_new_request_is_said_then_the_request_taken() -> (
    None
):
    done = "Done. Order 1 0 0, 1 0 2 is cancelled."
    items = [
        user("cancel order 100102"),
        llm.FunctionCall(name="cancel_order", arguments="{}", call_id="confirmed"),
        user("Yes. And I want to return an order too."),
        llm.FunctionCallOutput(
            name="cancel_order", output=done, is_error=False, call_id="confirmed"
        ),
    ]
    assert said_then_called(await answer(FULL_SUPERVISOR, items)) == (done, "request_return", {})


async def test_a_change_made_on_a_plain_yes_is_relayed() -> None:
    done = "Done. Order 1 0 0, 1 0 2 is cancelled."
    items = [
        user("cancel order 100102"),
        llm.FunctionCall(name="cancel_order", arguments="{}", call_id="confirmed"),
        user("Yes please"),
        llm.FunctionCallOutput(
            name="cancel_order", output=done, is_error=False, call_id="confirmed"
        ),
    ]
    assert said(await answer(FULL_SUPERVISOR, items)) == f"{done} {ANYTHING_ELSE}"


async def test_a_specialist_the_caller_stopped_is_relayed() -> None:
    # "No" to the read-back is an answer, not a new request: the tool's words are said.
    items = stopped_for(
        "cancel_order", "cancel order 100102", "no", "All right, I haven't cancelled it."
    )
    assert said(await answer(FULL_SUPERVISOR, items)) == "All right, I haven't cancelled it."


@pytest.mark.parametrize("check", ["Hello? Are you still there?", "hello??", "you there?"])
async def test_a_result_that_arrived_while_the_caller_checked_the_line_is_relayed(
    check: str,
) -> None:
    result = "Order 1 0 0, 1 0 1 has shipped."
    items = [
        user("where is order 100101"),
        tool_round("lookup_order", result, order_id="100101"),
        user(check),
    ]
    assert said(await answer(FULL_SUPERVISOR, *items)) == f"{result} {ANYTHING_ELSE}"


async def test_a_request_after_an_unheard_result_is_answered_as_a_request() -> None:
    items = [
        user("where is order 100101"),
        tool_round("lookup_order", "Order 1 0 0, 1 0 1 has shipped.", order_id="100101"),
        user("put me through to a colleague"),
    ]
    assert called(await answer(FULL_SUPERVISOR, *items))[0] == "transfer_to_human"


async def test_a_check_on_the_line_while_a_tool_runs_is_answered_without_its_stand_in() -> None:
    # The framework shows a tool still running as a call with a stand-in output: words
    # for the model, never for the caller.
    running = llm.FunctionCall(
        name="lookup_order",
        arguments='{"order_id": "100101"}',
        call_id="running",
        extra={"__lk_running_placeholder__": True},
    )
    stand_in = llm.FunctionCallOutput(
        name="lookup_order",
        output="The tool call is still in progress.",
        is_error=False,
        call_id="running",
    )
    response = await answer(
        FULL_SUPERVISOR,
        user("where is order 100101"),
        running,
        stand_in,
        user("hello, anyone there?"),
    )
    assert said(response) == STILL_WORKING


async def test_a_request_while_a_tool_runs_is_no_check_on_the_line() -> None:
    running = llm.FunctionCall(
        name="lookup_order",
        arguments='{"order_id": "100101"}',
        call_id="running",
        extra={"__lk_running_placeholder__": True},
    )
    response = await answer(
        FULL_SUPERVISOR, user("where is order 100101"), running, user("hi, get me a person")
    )
    assert called(response)[0] == "transfer_to_human"
