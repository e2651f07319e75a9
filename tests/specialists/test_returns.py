"""Return requests, driven through real sessions with a scripted model."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from livekit.agents import AgentSession, ToolError

from customer_service.call.refunds import refund_question
from customer_service.call.state import CallState
from customer_service.call.wording import NOTHING_TO_CONFIRM_YET, OFFER_HUMAN, spaced_digits
from customer_service.clock import FixedClock
from customer_service.domain import CancelReason
from customer_service.settings import Settings
from customer_service.specialists import returns
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.identity import VERIFICATION_DECLINED
from customer_service.specialists.order_lookup import not_found_message
from customer_service.specialists.returns import WORDING as RETURN_WORDING
from customer_service.specialists.returns import (
    ReturnResult,
    ReturnTask,
)
from customer_service.store import ReturnOutcome, ReturnReason, ReturnRequest, Store
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    PRIYA,
    PRIYA_SAYS,
    agent_lines,
    audit_events,
    order_now,
    tool_outputs,
)
from support.order_request import OrderRequest
from support.scripted_llm import Call, Parallel, Say, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

RETURN_TOOLS = frozenset({"record_return", "give_up"})
PAYPAL = "paypal_9000201"
GIFT_CARD = "gift_card_9000202"
QUESTION = (
    "Order 2 0 0, 2 0 1 contains a Cork yoga mat and two Yoga blocks. Which items would you "
    "like to return, or is it all of them?"
)
TO_PAYPAL = (
    "Once the items are back with us, you get 97 dollars back. It reaches your PayPal account "
    "in five to seven business days."
)
"""The refund of every item of order 200201: the mat (68.00) and two blocks (14.50 each)."""
TO_GIFT_CARD = (
    "Once the items are back with us, you get 68 dollars back. It goes back onto your gift "
    "card straight away."
)
"""The refund of the mat alone."""
READ_BACK_ALL = (
    "You'd like to return a Cork yoga mat and two Yoga blocks from order 2 0 0, 2 0 1, "
    f"because they are no longer needed. {TO_PAYPAL} Shall I request this return? Please "
    "say yes or no."
)
READ_BACK_MAT = (
    "You'd like to return a Cork yoga mat from order 2 0 0, 2 0 1, because it arrived "
    f"damaged. {TO_GIFT_CARD} Shall I request this return? Please say yes or no."
)
RECORD_ALL = Call(
    "record_return",
    {"item_numbers": [1, 2], "reason": "no_longer_needed", "refund_method_id": PAYPAL},
)
RECORD_MAT = Call(
    "record_return", {"item_numbers": [1], "reason": "damaged", "refund_method_id": GIFT_CARD}
)


REQUEST = OrderRequest(
    supervisor_tool="request_return",
    asking="I'd like to return order {order_id}",
    order_id="200201",
    caller=PRIYA,
    says=PRIYA_SAYS,
    task_tools=RETURN_TOOLS,
    confirm_tool="confirm_return",
)
CONFIRM = REQUEST.confirm


def told(request: ReturnRequest, lead: str = "Your return is requested.") -> str:
    number = spaced_digits(request.return_number)
    return f"{lead} Your return number is {number}. Once more, that's {number}."


async def stored(session: AgentSession[CallState]) -> list[ReturnRequest]:
    return await session.userdata.store.return_requests()


async def test_a_clear_yes_after_the_read_back_requests_the_return_once(
    settings: Settings,
) -> None:
    again = Call("request_return", {"order_id": "200201"})
    async with REQUEST.at_question(settings, RECORD_ALL, *CONFIRM, again, relay) as session:
        assert agent_lines(session)[-1] == QUESTION
        assert session.userdata.disclosed_order_ids == ["200201"]

        heard = await session.run(user_input="All of them, I really don't need them any more")
        heard.expect.next_event().is_function_call(name="record_return")
        heard.expect.next_event().is_function_call_output(is_error=False)
        heard.expect.next_event().is_message(role="assistant")
        assert agent_lines(session)[-1] == READ_BACK_ALL
        assert await stored(session) == []

        confirmed = await session.run(user_input="Yes please")
        confirmed.expect.contains_agent_handoff(new_agent_type=CustomerServiceAgent)
        [request] = await stored(session)
        assert (request.order_id, request.customer_id, request.item_indices, request.reason) == (
            "200201",
            "C-1002",
            (0, 1),
            ReturnReason.NO_LONGER_NEEDED,
        )
        assert request.call_id == session.userdata.call_id
        (output,) = tool_outputs(session, "request_return")
        assert (output.output, output.is_error) == (told(request), False)
        assert agent_lines(session)[-1] == told(request)
        [event] = await audit_events(session, kind="return_requested")
        # Counts and the category: the caller's own words are kept nowhere.
        assert event.detail == {
            "items": 2,
            "reason": "no_longer_needed",
            "refund_method_id": "paypal_9000201",
            "refund": "97.00",
        }
        for kept in await audit_events(session):
            assert "need them" not in str(kept.detail)

        # Asked again: the same number, and nothing new stored.
        await session.run(user_input="Can I return order 200201?")
        lead = "A return is already requested for order 2 0 0, 2 0 1."
        assert tool_outputs(session, "request_return")[-1].output == told(request, lead)
        assert await stored(session) == [request]


async def test_items_named_and_a_reason_are_read_back_as_a_category(settings: Settings) -> None:
    async with REQUEST.at_question(settings, RECORD_MAT, *CONFIRM) as session:
        await session.run(user_input="Just the mat, it came with a big tear in it, gift card")
        assert agent_lines(session)[-1] == READ_BACK_MAT
        await session.run(user_input="Yes, that's right")
        [request] = await stored(session)
        assert (request.item_indices, request.reason) == ((0,), ReturnReason.DAMAGED)
        order = await session.userdata.store.get_order("200201")
        assert order is not None
        assert order.returned is not None
        assert order.returned.method_id == GIFT_CARD
        [event] = await audit_events(session, kind="return_requested")
        assert event.detail["refund_method_id"] == GIFT_CARD


@pytest.mark.parametrize(
    ("days_later", "refusal"),
    [
        (
            14,
            "Order 2 0 0, 2 0 1 could be returned until December ninth, thirty days after it "
            f"arrived, so it can't be returned any more. {OFFER_HUMAN}",
        ),
        (13, None),
    ],
    ids=["day-31-refused", "day-30-allowed"],
)
async def test_the_thirty_day_window_counts_from_delivery(
    settings: Settings, clock: FixedClock, days_later: int, refusal: str | None
) -> None:
    # The demo order was delivered 17 days before the store was seeded (November ninth).
    model = ScriptedLLM([*REQUEST.until_question(), relay])
    async with call_session(model, settings=settings, clock=clock) as session:
        clock.advance(dt.timedelta(days=days_later))
        await REQUEST.reach_question(session)
        if refusal is None:
            assert agent_lines(session)[-1] == QUESTION
            assert isinstance(session.current_agent, ReturnTask)
        else:
            (output,) = tool_outputs(session, "request_return")
            assert (output.output, output.is_error) == (refusal, True)
            assert agent_lines(session)[-1] == refusal
        assert await stored(session) == []


async def test_an_order_not_delivered_yet_or_cancelled_is_refused_before_the_specialist(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        await store.cancel_order(
            order_id="100102",
            customer_id="C-1001",
            reason=CancelReason.NO_LONGER_NEEDED,
            call_id="earlier",
        )
    cases = [
        (
            "200202",
            PRIYA,
            PRIYA_SAYS,
            "Order 2 0 0, 2 0 2 hasn't been delivered yet, so it can't be returned. Once it "
            "arrives, you'll have thirty days to return it.",
        ),
        (
            "100102",
            JORDAN,
            JORDAN_SAYS,
            "Order 1 0 0, 1 0 2 is cancelled, so there is nothing to return.",
        ),
    ]
    for order_id, details, says, refusal in cases:
        said = await REQUEST.refused_before_the_task(
            settings, demo_database_url, order_id, details, says
        )
        assert said == refusal
    async with await Store.open(demo_database_url) as store:
        assert await store.return_requests() == []


async def test_another_customers_order_reads_exactly_like_an_unknown_one(
    settings: Settings,
) -> None:
    async def transcript(order_id: str) -> list[str]:
        model = ScriptedLLM([*REQUEST.until_question(order_id, JORDAN), relay])
        async with call_session(model, settings=settings) as session:
            await REQUEST.reach_question(session, order_id, JORDAN_SAYS)
            (output,) = tool_outputs(session, "request_return")
            assert (output.output, output.is_error) == (not_found_message(order_id), True)
            assert await stored(session) == []
            assert not any(turn.offers(RETURN_TOOLS) for turn in model.turns)
            return [
                line.replace(spaced_digits(order_id), "<order>") for line in agent_lines(session)
            ]

    someone_elses = await transcript("200201")
    assert someone_elses == await transcript("999999")
    assert not any("yoga" in line.lower() for line in someone_elses)


async def test_an_unverified_caller_hears_no_item_and_nothing_is_requested(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("request_return", {"order_id": "200201"}), Call("give_up"), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I want to return order 200201")
        assert agent_lines(session)[-1] == IDENTITY_QUESTION
        declined = await session.run(user_input="I'd rather not say")
        declined.expect.contains_function_call_output(output=VERIFICATION_DECLINED, is_error=True)
        assert not any("yoga" in line.lower() for line in agent_lines(session))
        assert session.userdata.disclosed_order_ids == []
        assert await stored(session) == []
    assert not any(turn.offers(RETURN_TOOLS) for turn in model.turns)
    assert not model.overran


async def test_a_no_to_the_read_back_requests_nothing(settings: Settings) -> None:
    async with REQUEST.at_question(settings, RECORD_ALL, Call("give_up"), relay) as session:
        await session.run(user_input="all of them, don't need them")
        await session.run(user_input="No, actually I'll keep them")
        (output,) = tool_outputs(session, "request_return")
        assert (output.output, output.is_error) == (RETURN_WORDING.nothing_done, True)
        assert isinstance(session.current_agent, CustomerServiceAgent)
        assert await stored(session) == []


async def test_unclear_answers_refuse_the_models_confirmations_up_to_the_cap(
    settings: Settings,
) -> None:
    # The model confirms whatever the caller says; the caller's own words decide.
    async with REQUEST.at_question(settings, RECORD_ALL, *CONFIRM, *CONFIRM) as session:
        await session.run(user_input="both, no longer needed")
        first = await session.run(user_input="Hmm, what does it cost to send them back?")
        first.expect.contains_function_call_output(
            output=RETURN_WORDING.not_a_clear_yes, is_error=True
        )
        assert isinstance(session.current_agent, ReturnTask)
        await session.run(user_input="I'm not sure")
        refused = tool_outputs(session, "confirm_return")
        assert len(refused) == returns.MAX_REFUSED_CONFIRMATIONS
        (output,) = tool_outputs(session, "request_return")
        assert (output.output, output.is_error) == (RETURN_WORDING.nothing_done, True)
        assert await stored(session) == []


async def test_a_confirm_before_anything_is_read_back_requests_nothing(
    settings: Settings,
) -> None:
    async with REQUEST.at_question(
        settings, Call("confirm_return"), relay, RECORD_ALL, *CONFIRM
    ) as session:
        await session.run(user_input="Yes, yes, just do it")
        (early,) = tool_outputs(session, "confirm_return")
        assert (early.output, early.is_error) == (NOTHING_TO_CONFIRM_YET, True)
        assert await stored(session) == []
        await session.run(user_input="all of it, not needed")
        await session.run(user_input="yes")
        assert len(await stored(session)) == 1


async def test_a_confirm_sent_with_the_record_waits_for_the_callers_yes(
    settings: Settings,
) -> None:
    both = Parallel((RECORD_ALL, Call("confirm_return")))
    async with REQUEST.at_question(settings, both, Say("Is that right?"), *CONFIRM) as session:
        # The caller says "yes" with the items; the model confirms in the same reply.
        await session.run(user_input="Yes, all of them, I don't need them")
        (early,) = tool_outputs(session, "confirm_return")
        assert early.is_error
        assert READ_BACK_ALL in agent_lines(session)
        assert await stored(session) == []
        await session.run(user_input="Yes")
        assert len(await stored(session)) == 1


@pytest.mark.parametrize("numbers", [[3], [0], [1, 7], []])
async def test_items_not_in_the_order_are_refused_in_words(
    settings: Settings, numbers: list[int]
) -> None:
    invented = Call("record_return", {"item_numbers": numbers, "reason": "other"})
    async with REQUEST.at_question(settings, invented, relay, *CONFIRM) as session:
        await session.run(user_input="the blender, it's broken")
        (output,) = tool_outputs(session, "record_return")
        assert output.is_error
        assert output.output == (
            "Which items would you like to return?"
            if not numbers
            else "Order 2 0 0, 2 0 1 has two items: a Cork yoga mat and two Yoga blocks. "
            "Which would you like to return?"
        )
        # A confirm now has nothing read back to confirm.
        await session.run(user_input="yes")
        (confirmed,) = tool_outputs(session, "confirm_return")
        assert (confirmed.output, confirmed.is_error) == (NOTHING_TO_CONFIRM_YET, True)
        assert await stored(session) == []


@pytest.mark.parametrize("calls", [("confirm_return",) * 2, ("confirm_return", "give_up")])
async def test_parallel_confirmations_request_at_most_once(
    settings: Settings, calls: tuple[str, ...]
) -> None:
    async with REQUEST.at_question(
        settings, RECORD_ALL, Parallel(tuple(map(Call, calls))), relay
    ) as session:
        await session.run(user_input="all of them, not needed")
        await session.run(user_input="Yes")
        (output,) = tool_outputs(session, "request_return")
        requests = await stored(session)
        assert len(requests) <= 1
        # What the caller hears always matches the store.
        if requests:
            assert output.output == told(requests[0])
        else:
            assert (output.output, output.is_error) == (RETURN_WORDING.nothing_done, True)
        if calls[0] == calls[1]:
            assert len(requests) == 1


class TamperedTask(ReturnTask):
    """A specialist whose first confirmed result names another order (a bug, or a
    result built by anything): the supervisor's check must refuse it."""

    tampered = 0

    def finish(self, result: object) -> None:
        if isinstance(result, ReturnResult) and TamperedTask.tampered == 0:
            TamperedTask.tampered += 1
            result = result.model_copy(update={"order_id": "200202"})
        super().finish(result)  # type: ignore[arg-type]


async def test_a_result_for_another_order_is_rejected_and_asked_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TamperedTask, "tampered", 0)
    monkeypatch.setattr(returns, "ReturnTask", TamperedTask)
    async with REQUEST.at_question(
        settings, RECORD_ALL, *[CONFIRM[0]], RECORD_ALL, *CONFIRM
    ) as session:
        await session.run(user_input="all of them, not needed")
        await session.run(user_input="yes")
        # Rejected in code: nothing stored, and the specialist starts over.
        assert await stored(session) == []
        assert agent_lines(session)[-1] == QUESTION
        await session.run(user_input="all of them, not needed")
        await session.run(user_input="yes")
        [request] = await stored(session)
        assert request.order_id == "200201"


@pytest.mark.parametrize(
    "result",
    [
        {"order_id": "200202", "item_indices": [0], "reason": "other"},
        {"order_id": "200201", "item_indices": [2], "reason": "other"},
        {"order_id": "200201", "item_indices": [-1], "reason": "other"},
        {"order_id": "200201", "item_indices": [1, 0], "reason": "other"},
        {"order_id": "200201", "item_indices": [], "reason": "other"},
        {"order_id": "200201", "item_indices": [0], "reason": "because I said so"},
        {"order_id": "200201", "item_indices": [0], "reason": "other", "refund_method_id": ""},
        # Another customer's card, or none of the choices.
        {
            "order_id": "200201",
            "item_indices": [0],
            "reason": "other",
            "refund_method_id": "credit_card_9000101",
        },
    ],
)
def test_the_supervisor_refuses_a_result_that_does_not_fit_the_order(
    result: dict[str, Any],
) -> None:
    from customer_service.call.delegation import ResultRejected
    from customer_service.specialists.order_lookup import OrderLookupResult
    from customer_service.store.demo_catalog import DEMO_PAYMENT_METHODS
    from support.clock import DEMO_ORDERS

    order = OrderLookupResult.from_order(
        next(order for order in DEMO_ORDERS if order.order_id == "200201")
    )
    choices = returns.refund_choices(order, DEMO_PAYMENT_METHODS["C-1002"])
    assert [choice.method_id for choice in choices] == [PAYPAL, GIFT_CARD]
    with pytest.raises(ResultRejected):
        returns.validated_return({"refund_method_id": PAYPAL, **result}, order, choices)


async def test_with_a_choice_no_refund_method_is_asked_where_and_another_customers_refused(
    settings: Settings,
) -> None:
    unsaid = Call("record_return", {"item_numbers": [1, 2], "reason": "no_longer_needed"})
    jordans = Call(
        "record_return",
        {"item_numbers": [1, 2], "reason": "damaged", "refund_method_id": "credit_card_9000101"},
    )
    async with REQUEST.at_question(
        settings, unsaid, relay, jordans, relay, RECORD_ALL, *CONFIRM
    ) as session:
        await session.run(user_input="all of them, not needed")
        where = refund_question(await session.userdata.store.payment_methods("C-1002"))
        assert where == (
            "Should the refund go to your PayPal account, or to your gift card, which has 40 "
            "dollars on it?"
        )
        assert [(o.output, o.is_error) for o in tool_outputs(session, "record_return")] == [
            (where, True)
        ]
        await session.run(user_input="to the card ending 4242")
        assert tool_outputs(session, "record_return")[-1].output == where
        assert await stored(session) == []
        await session.run(user_input="PayPal then")
        assert agent_lines(session)[-1] == READ_BACK_ALL
        await session.run(user_input="yes")
        order = await session.userdata.store.get_order("200201")
        assert order is not None
        assert order.returned is not None
        assert order.returned.method_id == PAYPAL


async def test_an_order_paid_by_gift_card_has_one_refund_destination_said_not_asked(
    settings: Settings, demo_database_url: str
) -> None:
    from customer_service.domain import OrderStatus
    from support.store_records import save_orders, stored_order

    async with await Store.open(demo_database_url) as store:
        order = await stored_order(store, "200202")
        delivered = order.model_copy(
            update={"status": OrderStatus.DELIVERED, "delivered_on": dt.date.today()}
        )
        await save_orders(store, delivered)
    record = Call("record_return", {"item_numbers": [1], "reason": "damaged"})
    async with REQUEST.at_question_on(
        demo_database_url, settings, record, *CONFIRM, order_id="200202"
    ) as session:
        assert agent_lines(session)[-1].endswith(
            "Which items would you like to return, or is it all of them?"
        )
        await session.run(user_input="they leak")
        assert agent_lines(session)[-1] == (
            "You'd like to return three Stainless steel water bottles from order 2 0 0, 2 0 2, "
            "because they arrived damaged. Once the items are back with us, you get 72 dollars "
            "back. It goes back onto your gift card straight away. Shall I request this return? "
            "Please say yes or no."
        )
        await session.run(user_input="yes")
        returned = await session.userdata.store.get_order("200202")
        assert returned is not None
        assert returned.returned is not None
        assert returned.returned.method_id == GIFT_CARD


def test_a_refund_method_the_store_no_longer_allows_is_a_sentence() -> None:
    from customer_service.specialists.order_lookup import OrderLookupResult
    from support.clock import DEMO_ORDERS

    order = OrderLookupResult.from_order(
        next(order for order in DEMO_ORDERS if order.order_id == "200201")
    )
    with pytest.raises(ToolError) as refused:
        returns.return_said(order, (ReturnOutcome.REFUND_METHOD_NOT_ALLOWED, None))
    assert str(refused.value) == (
        "That payment method can't take the refund for order 2 0 0, 2 0 1 any more, so "
        f"nothing was requested. {OFFER_HUMAN}"
    )


# --- what the suites every confirming specialist runs drive (support/confirming.py) ----


async def return_requested(session: AgentSession[CallState]) -> bool:
    requests = await session.userdata.store.return_requests()
    order = await order_now(session, "200201")
    refunded_to = order.returned.method_id if order.returned else None
    return [r.item_indices for r in requests] == [(0, 1)] and refunded_to == PAYPAL


CONFIRMING = REQUEST.confirming(
    "All of them, I really don't need them any more",
    RECORD_ALL,
    changed=return_requested,
    nothing_changed=RETURN_WORDING.nothing_done,
    other_than_read_back=(
        "Yes",
        Parallel(
            (
                Call(
                    "record_return",
                    {"item_numbers": [1], "reason": "damaged", "refund_method_id": GIFT_CARD},
                ),
                Call("confirm_return"),
            )
        ),
    ),
    said_when_done="Your return is requested.",
    # A refund to another customer's card.
    refused_records={
        "another-customers-method": Call(
            "record_return",
            {
                "item_numbers": [1, 2],
                "reason": "no_longer_needed",
                "refund_method_id": "credit_card_9000101",
            },
        )
    },
)


OFFLINE_CHAT = REQUEST.offline_chat(
    "all of them, I don't need them any more", "onto my gift card", "yes", "bye"
)
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""
