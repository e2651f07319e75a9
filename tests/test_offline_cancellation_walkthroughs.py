"""Cancelling an order in `make chat`, end to end: the real supervisor, specialists and
store, driven by the offline model through `converse` (as `make chat` runs it)."""

from __future__ import annotations

import pytest

from customer_service.call.refunds import refunds_said
from customer_service.call.wording import GREETING, HANDOFF
from customer_service.domain import CancelReason, OrderStatus
from customer_service.offline_llm.routing import (
    ANYTHING_ELSE,
    ASKED_FOR_PERSON,
    DECLINED_OFFER,
    WHAT_ELSE,
)
from customer_service.specialists.cancellation import (
    CLOSER_REASON_QUESTION,
    kept_message,
    no_fitting_reason_message,
    not_cancellable_message,
    opening_question,
    read_back,
)
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.order_lookup import OPENING_QUESTION as ORDER_QUESTION
from customer_service.specialists.order_lookup import OrderLookupResult
from customer_service.store import Store
from customer_service.store.demo_catalog import DEMO_PAYMENT_METHODS
from customer_service.store.orders import outstanding_refunds
from support.offline_chat import GOODBYE, JORDAN, chat, demo_order, stored_order

ORDER = OrderLookupResult.from_order(demo_order("100102"))
QUESTION = opening_question(ORDER)
REFUND = refunds_said(outstanding_refunds(ORDER.payments), DEMO_PAYMENT_METHODS["C-1001"])
READ_BACK = read_back(ORDER, CancelReason.NO_LONGER_NEEDED, REFUND)
CANCELLED = f"Done. Order 1 0 0, 1 0 2 is cancelled. {REFUND}"


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


async def statuses(database_url: str) -> tuple[OrderStatus, OrderStatus]:
    """Jordan's two orders as the chat left them: 100101 (shipped) and 100102."""
    return (
        (await stored_order(database_url, "100101")).status,
        (await stored_order(database_url, "100102")).status,
    )


async def cancellations(database_url: str) -> list[str | None]:
    async with await Store.open(database_url) as store:
        events = await store.audit_events(kind="order_cancelled")
    return [event.order_id for event in events]


async def test_cancel_then_ask_where_the_order_is(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to cancel order 100102",
            JORDAN,
            "I don't need it any more",
            "yes",
            "where is order 100102",
            "no",
        )
    ).agent
    assert QUESTION.startswith("Order 1 0 0, 1 0 2 contains a Ceramic pour-over coffee set.")
    assert REFUND == (
        "You get 48 dollars back. It reaches your Visa card ending in 4 2 4 2 in five to "
        "seven business days."
    )
    assert said[:5] == [
        GREETING,
        IDENTITY_QUESTION,
        QUESTION,
        READ_BACK,
        f"{CANCELLED} {ANYTHING_ELSE}",
    ]
    # Later in the same call the order is looked up from the store: cancelled.
    assert said[5].startswith("Order 1 0 0, 1 0 2")
    assert "is cancelled" in said[5]
    assert said[6:] == [ANYTHING_ELSE, GOODBYE]
    assert await statuses(database_url) == (OrderStatus.PROCESSED, OrderStatus.CANCELLED)
    assert await cancellations(database_url) == ["100102"]
    cancelled = await stored_order(database_url, "100102")
    assert cancelled.cancel_reason is CancelReason.NO_LONGER_NEEDED


async def test_ordered_by_mistake_is_the_reason_stored(database_url: str) -> None:
    said = (
        await chat(database_url, "cancel order 100102", JORDAN, "I ordered it by mistake", "yes")
    ).agent
    assert said[3] == read_back(ORDER, CancelReason.ORDERED_BY_MISTAKE, REFUND)
    cancelled = await stored_order(database_url, "100102")
    assert cancelled.cancel_reason is CancelReason.ORDERED_BY_MISTAKE


async def test_another_reason_is_asked_which_is_closer_then_a_colleague_offered(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url, "cancel order 100102", JORDAN, "it's too expensive", "neither", "no"
        )
    ).agent
    assert said[2:] == [
        QUESTION,
        CLOSER_REASON_QUESTION,
        no_fitting_reason_message("100102"),
        DECLINED_OFFER,
    ]
    assert await cancellations(database_url) == []


async def test_no_keeps_the_order(database_url: str) -> None:
    said = (
        await chat(database_url, "I'd like to cancel order 100102", JORDAN, "not needed", "no")
    ).agent
    assert said[2:] == [QUESTION, READ_BACK, kept_message("100102")]
    assert kept_message("100102") == "All right, I haven't cancelled order 1 0 0, 1 0 2."
    assert await statuses(database_url) == (OrderStatus.PROCESSED, OrderStatus.PENDING)
    assert await cancellations(database_url) == []


async def test_an_unclear_answer_hears_the_read_back_again_then_yes(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "please cancel my order",
            JORDAN,
            "100102",
            "I don't need it",
            "hmm what?",
            "yes",
        )
    ).agent
    assert said[1:] == [
        IDENTITY_QUESTION,
        ORDER_QUESTION,
        QUESTION,
        READ_BACK,
        READ_BACK,
        f"{CANCELLED} {ANYTHING_ELSE}",
    ]
    assert await statuses(database_url) == (OrderStatus.PROCESSED, OrderStatus.CANCELLED)


async def test_a_shipped_order_is_not_cancelled(database_url: str) -> None:
    said = (await chat(database_url, "cancel order 100101", JORDAN, "no")).agent
    refusal = not_cancellable_message("100101", OrderStatus.PROCESSED)
    assert refusal.startswith("Order 1 0 0, 1 0 1 has already shipped, so I can't cancel it")
    assert said[2:] == [refusal, DECLINED_OFFER]
    assert await statuses(database_url) == (OrderStatus.PROCESSED, OrderStatus.PENDING)
    assert await cancellations(database_url) == []


async def test_a_person_instead_of_answering_the_read_back(database_url: str) -> None:
    said = (
        await chat(
            database_url, "cancel order 100102", JORDAN, "not needed", "a person please", "bye"
        )
    ).agent
    assert said[2:] == [QUESTION, READ_BACK, HANDOFF, GOODBYE]
    async with await Store.open(database_url) as store:
        [escalation] = await store.escalations()
    assert (escalation.reason, escalation.verified) == (ASKED_FOR_PERSON, True)
    assert escalation.collected["active_specialist"] == "cancellation_task"
    assert escalation.collected["order_id"] == "100102"
    assert await statuses(database_url) == (OrderStatus.PROCESSED, OrderStatus.PENDING)


async def test_cancel_that_order_after_hearing_it(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            f"{JORDAN}, where is order 100102?",
            "Cancel that order",
            "I don't need it",
            "yes",
        )
    ).agent
    assert said[1].startswith("Order 1 0 0, 1 0 2, placed on")
    assert said[2:5] == [ANYTHING_ELSE, QUESTION, READ_BACK]
    assert ORDER_QUESTION not in said
    assert (await stored_order(database_url, "100102")).status is OrderStatus.CANCELLED


async def test_that_one_answers_the_order_question_with_the_order_just_heard(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            f"{JORDAN}, where is order 100102?",
            "I want to cancel an order",
            "that one",
            "I don't need it",
            "yes",
        )
    ).agent
    assert said[2:6] == [ANYTHING_ELSE, ORDER_QUESTION, QUESTION, READ_BACK]
    assert (await stored_order(database_url, "100102")).status is OrderStatus.CANCELLED


@pytest.mark.parametrize(("answer", "then"), [("no", ANYTHING_ELSE), ("yes", WHAT_ELSE)])
async def test_a_yes_or_no_after_hearing_the_order_is_already_cancelled(
    database_url: str, answer: str, then: str
) -> None:
    async with await Store.open(database_url) as store:
        await store.cancel_order(
            order_id="100102",
            customer_id="C-1001",
            reason=CancelReason.NO_LONGER_NEEDED,
            call_id="earlier",
        )
    said = (await chat(database_url, "I want to cancel order 100102", JORDAN, answer, "bye")).agent
    assert said[2] == "Order 1 0 0, 1 0 2 is already cancelled."
    assert said[3].endswith(then)
    assert said[4:] == [GOODBYE]


async def test_a_yes_with_a_return_request_cancels_then_takes_the_return(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to cancel order 100102",
            JORDAN,
            "I don't need it",
            "Yes. And I want to return an order too.",
        )
    ).agent
    # Cancelled first, said so, and then the return is taken up: which order?
    assert said[2:] == [QUESTION, READ_BACK, CANCELLED, ORDER_QUESTION]
    assert await statuses(database_url) == (OrderStatus.PROCESSED, OrderStatus.CANCELLED)
    assert await cancellations(database_url) == ["100102"]
