"""Two requests in one line (issue 25): the offline supervisor takes the first said, then,
once its tool has answered, the one the line still holds, before anything else."""

from __future__ import annotations

import json

import pytest
from livekit.agents import llm

from customer_service.call.wording import OFFER_HUMAN
from customer_service.offline_llm.routing import ANYTHING_ELSE
from support.offline_chat import FULL_SUPERVISOR, answer, called, said, tool_round, user

STATUS_200202 = "Order 2 0 0, 2 0 2, placed on November sixteenth, is processing."
CANCELLED_100102 = "Done. Order 1 0 0, 1 0 2 is cancelled."
TEXTS_OFF = {"topic": "order_updates_sms", "caller_said_no": True}


def said_then_called(response: llm.CollectedResponse) -> tuple[str, str, dict[str, object]]:
    """A reply that says something and makes one call."""
    (call,) = response.tool_calls
    return response.text, call.name, json.loads(call.arguments)


def confirmed_inside(tool: str, asked: str, output: str, **arguments: str) -> list[llm.ChatItem]:
    """A supervisor tool whose specialist the caller answered with a plain yes."""
    return [
        user(asked),
        llm.FunctionCall(name=tool, arguments=json.dumps(arguments), call_id="first"),
        user("yes"),
        llm.FunctionCallOutput(name=tool, output=output, is_error=False, call_id="first"),
    ]


@pytest.mark.parametrize(
    ("line", "first"),
    [
        ("check order 200202 and change its address too", ("lookup_order", "200202")),
        ("cancel 100102 and stop texting me", ("cancel_order", "100102")),
        ("where is order 100101 and then cancel order 100102", ("lookup_order", "100101")),
    ],
)
async def test_the_first_request_said_is_taken_first(line: str, first: tuple[str, str]) -> None:
    tool, order_id = first
    assert called(await answer(FULL_SUPERVISOR, user(line))) == (tool, {"order_id": order_id})


async def test_after_the_first_the_second_is_taken_about_the_same_order() -> None:
    items = [
        user("check order 200202 and change its address too"),
        tool_round("lookup_order", STATUS_200202, order_id="200202"),
    ]
    assert said_then_called(await answer(FULL_SUPERVISOR, *items)) == (
        STATUS_200202,
        "update_address",
        {"order_id": "200202"},
    )


async def test_after_a_specialist_the_callers_line_before_it_is_still_served() -> None:
    items = confirmed_inside(
        "cancel_order", "cancel 100102 and stop texting me", CANCELLED_100102, order_id="100102"
    )
    assert said_then_called(await answer(FULL_SUPERVISOR, items)) == (
        CANCELLED_100102,
        "request_consent",
        TEXTS_OFF,
    )


async def test_once_every_request_is_served_the_result_is_relayed() -> None:
    items = [
        *confirmed_inside(
            "cancel_order", "cancel 100102 and stop texting me", CANCELLED_100102, order_id="100102"
        ),
        *tool_round("request_consent", "You won't get text updates.", **TEXTS_OFF),
    ]
    assert said(await answer(FULL_SUPERVISOR, items)) == (
        f"You won't get text updates. {ANYTHING_ELSE}"
    )


async def test_a_failed_request_is_not_followed_by_one_about_the_same_order() -> None:
    missing = "I couldn't find an order with the number 9 9 9, 9 9 9 on your account."
    items = [
        user("check order 999999 and change its address too"),
        tool_round("lookup_order", missing, is_error=True, order_id="999999"),
    ]
    assert said(await answer(FULL_SUPERVISOR, *items)) == missing


async def test_a_failed_request_is_followed_by_one_about_something_else() -> None:
    refused = "Order 1 0 0, 1 0 1 has already shipped, so I can't cancel it any more."
    items = [
        user("cancel order 100101 and stop texting me"),
        tool_round("cancel_order", refused, is_error=True, order_id="100101"),
    ]
    assert said_then_called(await answer(FULL_SUPERVISOR, *items)) == (
        refused,
        "request_consent",
        TEXTS_OFF,
    )


async def test_an_offer_of_a_colleague_is_the_callers_to_answer_first() -> None:
    refused = f"Order 1 0 0, 1 0 1 has already shipped. {OFFER_HUMAN}"
    items = [
        user("cancel order 100101 and stop texting me"),
        tool_round("cancel_order", refused, is_error=True, order_id="100101"),
    ]
    assert said(await answer(FULL_SUPERVISOR, *items)) == refused


@pytest.mark.parametrize(
    "line",
    [
        # One request in many words: a refund is how a cancellation ends, not a return.
        "cancel order 100102 and get a refund",
        "stop texting me about my order",
    ],
)
async def test_a_line_with_one_request_is_one_request(line: str) -> None:
    first = await answer(FULL_SUPERVISOR, user(line))
    (call,) = first.tool_calls
    items = [user(line), tool_round(call.name, "Done.", **json.loads(call.arguments))]
    assert said(await answer(FULL_SUPERVISOR, *items)) == f"Done. {ANYTHING_ELSE}"


async def test_the_same_work_asked_twice_is_one_request_about_the_order_named() -> None:
    line = "I moved. Please change the address of order 100102"
    first = await answer(FULL_SUPERVISOR, user(line))
    assert called(first) == ("update_address", {"order_id": "100102"})
    items = [user(line), tool_round("update_address", "Done.", order_id="100102")]
    assert said(await answer(FULL_SUPERVISOR, *items)) == f"Done. {ANYTHING_ELSE}"


async def test_two_choices_in_one_line_are_two_requests() -> None:
    line = "stop texting me and stop recording this call"
    first = await answer(FULL_SUPERVISOR, user(line))
    assert called(first)[1]["topic"] == "order_updates_sms"
    items = [user(line), tool_round("request_consent", "Done.", **called(first)[1])]
    then = said_then_called(await answer(FULL_SUPERVISOR, *items))
    assert then[:2] == ("Done.", "request_consent")
    assert then[2]["topic"] == "call_recording"
