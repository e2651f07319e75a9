"""An audit row is never lost in silence: a failed write is tried again, and one that
cannot be made is heard as the store apology."""

from __future__ import annotations

from typing import Any

from customer_service.call.audit import AUDIT_WRITE_ATTEMPTS
from customer_service.call.wording import STORE_APOLOGY
from customer_service.settings import Settings
from customer_service.store import StoreUnavailable
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, check_identity, tool_outputs
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay


def failing_audit_writes(session: Any, failures: int) -> list[str]:
    """Makes the next `failures` audit writes fail as an outage would, whether the events
    go alone or with an order read for disclosure; returns the kind of the event each
    failed write was made for (events kept for the call's next write come first)."""
    store = session.userdata.store
    add = store.add_audit_events
    read = store.read_order_for_disclosure
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

    store.add_audit_events = flaky_add
    store.read_order_for_disclosure = flaky_read
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
