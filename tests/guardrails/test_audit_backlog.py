"""Audit events that report what already happened ride on the call's next write, or are
written in the background once the turn's reply starts playing, or when the call ends:
the caller never waits for a write of their own, a crash loses at most the turn in
progress (`test_audit_after_a_crash`), and no event is lost or stored twice."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from customer_service.call import audit
from customer_service.call.audit import AUDIT_WRITE_ATTEMPTS
from customer_service.call.state import CallState
from customer_service.call.wording import STORE_APOLOGY
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.store import AuditEvent, Store, StoreUnavailable
from customer_service.testing import call_session, open_demo_store, sqlite_url
from customer_service.testing.database_work import recording
from support.conversation import JORDAN, JORDAN_SAYS, check_identity, tool_outputs
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

NOON_LONG_AGO = dt.datetime(2000, 1, 1, 12, 0, tzinfo=dt.UTC)


def audit_writes(store: Store, *, failures: int = 0) -> list[list[str]]:
    """Records the kinds in each audit write of `store`, in order; the first `failures`
    writes fail as an outage would (and are recorded too)."""
    add = store.add_audit_events
    writes: list[list[str]] = []

    async def counted(events: Sequence[AuditEvent]) -> None:
        writes.append([event.kind for event in events])
        if len(writes) <= failures:
            raise StoreUnavailable("The store could not record an audit event.")
        await add(events)

    store.add_audit_events = counted  # type: ignore[method-assign]
    return writes


async def stored_kinds(store: Store, call_id: str) -> list[str]:
    return [event.kind for event in await store.audit_events(call_id=call_id)]


@pytest.fixture
async def store(tmp_path: Path) -> Any:
    """A store that outlives the call, to read what the call's end wrote."""
    opened = await open_demo_store(sqlite_url(tmp_path / "store.sqlite3"))
    yield opened
    await opened.close()


async def test_a_specialists_run_is_stored_with_the_next_write(
    settings: Settings, store: Store
) -> None:
    model = ScriptedLLM([Call("lookup_order", {"order_id": "100101"}), check_identity(JORDAN)])
    with recording(store.engine) as seen:
        async with call_session(model, settings=settings, store=store.for_call()) as session:
            await session.run(user_input=f"{JORDAN_SAYS}. Where is my order 100101?")
            call_id = session.userdata.call_id

    # Two writes for verify-then-look-up: the verification before it takes effect, then
    # the order read in the transaction that records its disclosure, with the identity
    # specialist's run kept from before it.
    assert seen.writes_committed == [
        ["INSERT INTO audit_events"],
        [
            "BEGIN IMMEDIATE",
            "SELECT orders.order_id, orders.customer_id,",
            *["INSERT INTO audit_events"] * 2,
        ],
    ]
    assert await stored_kinds(store, call_id) == [
        "identity_verified",
        "delegation",
        "order_disclosed",
    ]


async def test_a_turns_kept_events_are_written_once_its_reply_starts(
    settings: Settings, store: Store
) -> None:
    # The caller will not verify: the specialist's failed run is the turn's one event.
    model = ScriptedLLM([Call("lookup_order", {"order_id": "100101"}), Call("give_up"), relay])
    handle = store.for_call()
    writes = audit_writes(handle)
    async with call_session(model, settings=settings, store=handle) as session:
        state = session.userdata
        await session.run(user_input="Where is my order 100101?")
        await session.run(user_input="I'd rather not say.")
        # No write of the call's own, and the call goes on: written in the background.
        await audit.background_write_done(state)
        assert writes == [["delegation"]]
        assert state.audit_backlog.events == []
        [run] = await store.audit_events(call_id=state.call_id)
        assert run.detail["outcome"] == "failed"

    assert writes == [["delegation"]]  # nothing left for the end
    # After the end, a late event is written at once rather than kept for nobody.
    await audit.record_later(state, "delegation_refused", specialist="x", bound="y")
    assert writes[-1] == ["delegation_refused"]


def held_audit_writes(store: Store) -> tuple[list[list[str]], asyncio.Event]:
    """Records the kinds in each audit write of `store`, each held until the returned
    event is set, as a slow database would hold it."""
    add = store.add_audit_events
    writes: list[list[str]] = []
    release = asyncio.Event()

    async def held(events: Sequence[AuditEvent]) -> None:
        writes.append([event.kind for event in events])
        await release.wait()
        await add(events)

    store.add_audit_events = held  # type: ignore[method-assign]
    return writes, release


async def test_a_slow_background_write_does_not_hold_the_reply(
    settings: Settings, store: Store
) -> None:
    model = ScriptedLLM(
        [Call("lookup_order", {"order_id": "100101"}), Call("give_up"), relay, relay]
    )
    handle = store.for_call()
    writes, release = held_audit_writes(handle)
    async with call_session(model, settings=settings, store=handle) as session:
        state = session.userdata
        try:
            await session.run(user_input="Where is my order 100101?")
            result = await session.run(user_input="I'd rather not say.")
            # The reply was given while its turn's event was still being written.
            result.expect.contains_message(role="assistant")
            assert writes == [["delegation"]]
            writing = state.audit_backlog.writing
            assert writing is not None
            assert not writing.done()
        finally:
            release.set()  # else the call's end would wait for it forever
        await audit.background_write_done(state)
        assert await stored_kinds(store, state.call_id) == ["delegation"]


async def test_one_background_write_at_a_time_takes_what_is_kept_meanwhile(
    settings: Settings, store: Store
) -> None:
    state = CallState(store=store.for_call(), settings=settings)
    writes, release = held_audit_writes(state.store)
    await audit.record_later(state, "delegation", specialist="verify_identity_task")
    audit.write_kept_soon(state)
    first = state.audit_backlog.writing
    await asyncio.sleep(0)  # the write has begun and is held
    await audit.record_later(state, "order_not_found", customer_id="C-1001", order_id="200201")
    audit.write_kept_soon(state)
    audit.write_kept_soon(state)

    assert state.audit_backlog.writing is first
    assert writes == [["delegation"]]
    release.set()
    await audit.background_write_done(state)
    # The running write took the later event after its own: never two at once.
    assert writes == [["delegation"], ["order_not_found"]]
    assert await stored_kinds(store, state.call_id) == ["delegation", "order_not_found"]
    assert state.audit_backlog.events == []


async def test_a_background_write_that_fails_keeps_the_events_for_the_next_write(
    settings: Settings, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    state = CallState(store=store.for_call(), settings=settings)
    await audit.record_later(state, "order_not_found", customer_id="C-1001", order_id="200201")
    writes = audit_writes(state.store, failures=AUDIT_WRITE_ATTEMPTS)

    with caplog.at_level(logging.WARNING, logger="customer_service.call.audit"):
        audit.write_kept_soon(state)
        await audit.background_write_done(state)

    assert writes == [["order_not_found"]] * AUDIT_WRITE_ATTEMPTS
    assert [event.kind for event in state.audit_backlog.events] == ["order_not_found"]
    [left] = [r for r in caplog.records if r.getMessage().startswith("kept audit events left")]
    assert (left.__dict__["call_id"], left.__dict__["kept"]) == (state.call_id, 1)
    assert not [r for r in caplog.records if "200201" in str(vars(r).values())]
    await audit.record(state, "identity_verified", customer_id="C-1001")
    assert writes[-1] == ["order_not_found", "identity_verified"]
    assert await stored_kinds(store, state.call_id) == ["order_not_found", "identity_verified"]


async def test_the_calls_end_waits_for_the_background_write(
    settings: Settings, store: Store
) -> None:
    state = CallState(store=store.for_call(), settings=settings)
    writes, release = held_audit_writes(state.store)
    await audit.record_later(state, "delegation", specialist="verify_identity_task")
    audit.write_kept_soon(state)
    await asyncio.sleep(0)  # the write has begun and is held: nothing is kept now
    ending = asyncio.create_task(audit.end_of_call(state))
    for _ in range(3):
        await asyncio.sleep(0)

    assert not ending.done()
    release.set()
    await ending
    writing = state.audit_backlog.writing
    assert writing is not None
    assert writing.done()
    assert await stored_kinds(store, state.call_id) == ["delegation"]
    assert writes == [["delegation"]]


async def test_kept_events_survive_a_write_that_fails_and_are_stored_once(
    settings: Settings, store: Store
) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order", {"order_id": "100101"}),
            check_identity(JORDAN),
            relay,
            Call("lookup_order", {"order_id": "100102"}),
            relay,
        ]
    )
    handle = store.for_call()
    read = handle.read_order_for_disclosure
    attempts: list[list[str]] = []

    async def outage_for_the_first_order(
        order_id: str, customer_id: str, disclosure: AuditEvent, others: Sequence[AuditEvent]
    ) -> Any:
        if order_id == "100101":
            attempts.append([event.kind for event in [*others, disclosure]])
            raise StoreUnavailable("The store could not read an order.")
        return await read(order_id, customer_id, disclosure, others)

    handle.read_order_for_disclosure = outage_for_the_first_order  # type: ignore[method-assign]
    async with call_session(model, settings=settings, store=handle) as session:
        await session.run(user_input="Where is my order 100101?")
        await session.run(user_input=JORDAN_SAYS)
        first = tool_outputs(session, "lookup_order")[-1]
        assert (first.is_error, first.output) == (True, STORE_APOLOGY)
        # Tried again, then given up: the specialist's run rode on every attempt.
        assert attempts == [["delegation", "order_disclosed"]] * AUDIT_WRITE_ATTEMPTS
        await session.run(user_input="And order 100102?")
        call_id = session.userdata.call_id

    kinds = await stored_kinds(store, call_id)
    assert kinds == ["identity_verified", "delegation", "order_disclosed"]
    [disclosed] = await store.audit_events(call_id=call_id, kind="order_disclosed")
    assert disclosed.order_id == "100102"
    assert session.userdata.disclosed_order_ids == ["100102"]


async def test_parallel_writes_store_a_kept_event_once(settings: Settings, store: Store) -> None:
    state = CallState(store=store.for_call(), settings=settings)
    await audit.record_later(state, "delegation", specialist="verify_identity_task")

    await asyncio.gather(
        audit.record(state, "identity_verified", customer_id="C-1001"),
        audit.record(state, "order_disclosed", customer_id="C-1001", order_id="100101"),
    )

    kinds = await stored_kinds(store, state.call_id)
    assert sorted(kinds) == ["delegation", "identity_verified", "order_disclosed"]
    assert state.audit_backlog.events == []


async def test_events_that_cannot_be_written_at_the_end_are_logged_without_personal_data(
    settings: Settings, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    state = CallState(store=store.for_call(), settings=settings)
    await audit.record_later(state, "order_not_found", customer_id="C-1001", order_id="999999")
    writes = audit_writes(state.store, failures=AUDIT_WRITE_ATTEMPTS)

    with caplog.at_level(logging.ERROR, logger="customer_service.call.audit"):
        await audit.end_of_call(state)

    assert writes == [["order_not_found"]] * AUDIT_WRITE_ATTEMPTS
    [lost] = [record for record in caplog.records if record.getMessage() == "audit event lost"]
    assert (lost.__dict__["kind"], lost.__dict__["order_id"]) == ("order_not_found", "999999")
    assert state.audit_backlog.events == []
    assert await stored_kinds(store, state.call_id) == []


async def test_a_failed_identity_check_is_one_write(settings: Settings, store: Store) -> None:
    wrong = check_identity(JORDAN, postal_code="94110")
    model = ScriptedLLM([Call("verify_identity"), wrong, relay])
    with recording(store.engine) as seen:
        async with call_session(model, settings=settings, store=store.for_call()) as session:
            await session.run(user_input="Please verify me.")
            await session.run(user_input="Jordan Lee, 94110, jordan.lee@example.com")
            call_id = session.userdata.call_id
            during_the_call = list(seen.writes_committed)

    # The failure counted against the accounts it names and its audit event: one write.
    [check] = during_the_call
    assert sorted(words for words in check if words.startswith("INSERT")) == [
        "INSERT INTO audit_events",
        "INSERT INTO identity_failures",
    ]
    assert await stored_kinds(store, call_id) == ["identity_failed"]
    assert await store.identity_failures_since("C-1001", NOON_LONG_AGO) == 1


async def test_an_address_change_carries_the_kept_events_and_leaves_none_for_the_end(
    settings: Settings, store: Store
) -> None:
    with recording(store.engine) as seen:
        async with call_session(OfflineLLM(), settings=settings, store=store.for_call()) as session:
            await session.run(
                user_input=f"{JORDAN_SAYS}. Please change the delivery address of order 100102 "
                "to 1 Market Street, Suite 5, San Francisco, CA 94105"
            )
            await session.run(user_input="yes")
            await session.run(user_input="no thanks")
            state = session.userdata
            await audit.background_write_done(state)
            assert state.audit_backlog.events == []
            during_the_call = len(seen.writes_committed)

    # Verification; the identity specialist's run, written as the read-back starts
    # playing; the change (with the address specialist's run) and the text-update answer
    # (with the consent specialist's run); nothing at the end.
    assert during_the_call == len(seen.writes_committed) == 4
    kinds = await stored_kinds(store, state.call_id)
    assert kinds.count("delegation") == 3
    assert {"identity_verified", "address_changed", "consent_recorded"} <= set(kinds)
