"""An audit row is never lost in silence: a failed write is tried again, and one that
cannot be made is heard as the store apology."""

from __future__ import annotations

from typing import Any

from customer_service.call.audit import AUDIT_WRITE_ATTEMPTS
from customer_service.call.wording import STORE_APOLOGY
from customer_service.settings import Settings
from customer_service.specialists.cancellation import opening_question
from customer_service.specialists.order_lookup import OrderLookupResult
from customer_service.store import StoreUnavailable
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, check_identity, tool_outputs
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay


def failing_audit_writes(session: Any, failures: int) -> list[str]:
    """Makes the next `failures` audit writes fail as an outage would, whether the events
    go alone or with orders read for disclosure; returns the kind of the event each
    failed write was made for (events kept for the call's next write come first)."""
    store = session.userdata.store
    add = store.add_audit_events
    read = store.read_order_for_disclosure
    list_recent = store.read_recent_orders_for_disclosure
    failed: list[str] = []

    def fails(kind: str) -> bool:
        if len(failed) < failures:
            failed.append(kind)
            return True
        return False

    async def flaky_add(events: Any) -> None:
        if fails(events[-1].kind):
            raise StoreUnavailable("The store could not record an audit event.")
        await add(events)

    async def flaky_read(order_id: str, customer_id: str, disclosure: Any, others: Any) -> Any:
        if fails(disclosure.kind):
            raise StoreUnavailable("The store could not read an order.")
        return await read(order_id, customer_id, disclosure, others)

    async def flaky_list(customer_id: str, limit: int, disclosure: Any, others: Any) -> Any:
        if fails(disclosure.kind):
            raise StoreUnavailable("The store could not read recent orders.")
        return await list_recent(customer_id, limit, disclosure, others)

    store.add_audit_events = flaky_add
    store.read_order_for_disclosure = flaky_read
    store.read_recent_orders_for_disclosure = flaky_list
    return failed


def lookup_script() -> list[Any]:
    return [Call("lookup_order", {"order_id": "100101"}), check_identity(JORDAN), relay]


async def test_a_write_that_fails_once_is_stored_on_the_next_try(settings: Settings) -> None:
    model = ScriptedLLM(lookup_script())
    async with call_session(model, settings=settings) as session:
        state = session.userdata
        await session.run(user_input="Where is my order 100101?")
        failed = failing_audit_writes(session, failures=1)
        await session.run(user_input=JORDAN_SAYS)
        assert failed == ["identity_verified"]
        kinds = [e.kind for e in await state.store.audit_events(call_id=state.call_id)]
        assert kinds.count("identity_verified") == 1
        assert "order_disclosed" in kinds
        (output,) = tool_outputs(session, "lookup_order")
        assert not output.is_error
    assert not model.overran


async def test_a_write_that_keeps_failing_is_heard_as_the_store_apology(
    settings: Settings,
) -> None:
    model = ScriptedLLM([*lookup_script(), Call("lookup_order", {"order_id": "100102"}), relay])
    async with call_session(model, settings=settings) as session:
        state = session.userdata
        await session.run(user_input="Where is my order 100101?")
        await session.run(user_input=JORDAN_SAYS)
        failed = failing_audit_writes(session, failures=AUDIT_WRITE_ATTEMPTS)
        await session.run(user_input="And order 100102?")
        assert failed == ["order_disclosed"] * AUDIT_WRITE_ATTEMPTS
        first, second = tool_outputs(session, "lookup_order")
        assert not first.is_error
        assert (second.is_error, second.output) == (True, STORE_APOLOGY)
        # The order's details were not given without their record.
        assert state.disclosed_order_ids == ["100101"]
        assert "1 0 0, 1 0 2, placed" not in " ".join(agent_lines(session))
    assert not model.overran


def verify_then(*steps: Any) -> list[Any]:
    return [Call("verify_identity"), check_identity(JORDAN), relay, *steps]


async def disclosed_orders(session: Any) -> list[tuple[str | None, str | None]]:
    """The call's disclosures in the store itself: written, not only kept for later."""
    state = session.userdata
    events = await state.store.audit_events(call_id=state.call_id, kind="order_disclosed")
    return [(event.customer_id, event.order_id) for event in events]


async def cancellation_question(session: Any) -> str:
    """The cancellation's first words, which name the order's items."""
    order = await session.userdata.store.get_order("100102")
    return opening_question(OrderLookupResult.from_order(order))


async def test_the_cancellation_question_is_recorded_before_it_is_spoken(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("cancel_order", {"order_id": "100102"}), check_identity(JORDAN)])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I'd like to cancel order 100102")
        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session)[-1] == await cancellation_question(session)
        assert await disclosed_orders(session) == [("C-1001", "100102")]
        assert session.userdata.disclosed_order_ids == ["100102"]
    assert not model.overran


async def test_a_question_whose_disclosure_cannot_be_recorded_is_not_spoken(
    settings: Settings,
) -> None:
    model = ScriptedLLM(verify_then(Call("cancel_order", {"order_id": "100102"}), relay))
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Please verify me")
        await session.run(user_input=JORDAN_SAYS)
        failed = failing_audit_writes(session, failures=AUDIT_WRITE_ATTEMPTS)
        await session.run(user_input="Cancel order 100102")
        assert failed == ["order_disclosed"] * AUDIT_WRITE_ATTEMPTS
        (output,) = tool_outputs(session, "cancel_order")
        assert (output.is_error, output.output) == (True, STORE_APOLOGY)
        assert await cancellation_question(session) not in agent_lines(session)
        assert session.userdata.disclosed_order_ids == []
    assert not model.overran


async def test_recent_orders_are_recorded_as_disclosed_before_they_are_listed(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [Call("lookup_order"), check_identity(JORDAN), Call("list_recent_orders"), relay]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you check my order?")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="I don't know the number")
        (listing,) = tool_outputs(session, "list_recent_orders")
        assert "order 1 0 0, 1 0 2" in listing.output
        assert "order 1 0 0, 1 0 1" in listing.output
        assert await disclosed_orders(session) == [("C-1001", "100102"), ("C-1001", "100101")]
    assert not model.overran


async def test_a_list_whose_disclosure_cannot_be_recorded_is_not_given(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [Call("lookup_order"), check_identity(JORDAN), Call("list_recent_orders"), relay]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you check my order?")
        await session.run(user_input=JORDAN_SAYS)
        failed = failing_audit_writes(session, failures=AUDIT_WRITE_ATTEMPTS)
        await session.run(user_input="I don't know the number")
        assert failed == ["order_disclosed"] * AUDIT_WRITE_ATTEMPTS
        (listing,) = tool_outputs(session, "list_recent_orders")
        assert (listing.is_error, listing.output) == (True, STORE_APOLOGY)
        assert not any("100101" in line or "1 0 0, 1 0 1" in line for line in agent_lines(session))
        assert await disclosed_orders(session) == []
    assert not model.overran
