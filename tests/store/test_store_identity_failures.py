"""Failed identity checks across calls: which accounts a failure counts against (those it
came close to), how many count within a window, and releasing a held account."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import event, func, inspect, select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.clock import FixedClock
from customer_service.domain import Customer
from customer_service.store import AuditEvent, Store, StoreUnavailable
from customer_service.store.customers import customer_to_row
from customer_service.store.identity_failures import IdentityFailureRow
from customer_service.store.identity_release import HOLD_RELEASED, IdentityHoldRelease
from customer_service.testing import open_demo_store
from customer_service.testing.database_work import recording
from support.faults import fail_everything, fail_writes
from support.schema_history import made_before_migrations

NOON = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.UTC)
DAY_BEFORE = NOON - dt.timedelta(hours=24)

# Next to the demo customers (Jordan Lee C-1001, Priya Natarajan C-1002, María García
# C-1003), accounts that share exactly one of Jordan's details (name, phone or email).
SAME_NAME = Customer(
    customer_id="C-2001",
    full_name="Jordan Lee",
    phone="+13125550100",
    email="jlee@example.net",
    postal_code="60601",
    country="US",
)
SAME_NAME_ACCENTED = Customer(
    customer_id="C-2002",
    full_name="Jordán LEE",
    phone="+34600111222",
    email="jordan@example.es",
    postal_code="28001",
    country="ES",
)
SAME_PHONE = Customer(
    customer_id="C-2003",
    full_name="Sam Park",
    phone="+14155550134",
    email="sam.park@example.com",
    postal_code="94110",
    country="US",
)
SAME_EMAIL_OTHER_CASE = Customer(
    customer_id="C-2004",
    full_name="Casey Moore",
    phone="+16175550111",
    email="Jordan.Lee@Example.com",
    postal_code="02139",
    country="US",
)
SAME_LAST_DIGITS = Customer(
    customer_id="C-2005",
    full_name="Robin Diaz",
    phone="+12125550134",
    email="robin@example.org",
    postal_code="10002",
    country="US",
)
"""A different number that ends in the same four digits as Jordan's: no match."""
EXTRA_CUSTOMERS = (SAME_NAME, SAME_NAME_ACCENTED, SAME_PHONE, SAME_EMAIL_OTHER_CASE)


async def _add_customers(store: Store, *customers: Customer) -> None:
    async with AsyncSession(store.engine) as session, session.begin():
        session.add_all(customer_to_row(customer) for customer in customers)


async def _rows(store: Store) -> list[tuple[str, dt.datetime, str]]:
    async with AsyncSession(store.engine) as session:
        rows = await session.scalars(select(IdentityFailureRow).order_by(IdentityFailureRow.id))
        return [(row.customer_id, row.failed_at, row.call_id) for row in rows]


NEAR_MISSES = {
    # (name, postal code, phone or email) -> the accounts two of the three match
    "name only": ("Jordan Lee", "73301", "nobody@example.org", []),
    "postal code only": ("Alex Nobody", "94107", "nobody@example.org", []),
    "phone only": ("Alex Nobody", "73301", "(415) 555-0134", []),
    "email only": ("Alex Nobody", "73301", "JORDAN.LEE@example.com", []),
    "name and postal code": ("Jordan Lee", "94107", "nobody@example.org", ["C-1001"]),
    "name and postal code of a namesake": ("Jordan Lee", "60601", "x@example.org", ["C-2001"]),
    "name without accents, and postal code": (
        "Maria Garcia",
        "28013",
        "nobody@example.org",
        ["C-1003"],
    ),
    "name spelled apart, and email": (
        "jordan  lee.",
        "73301",
        "jordan.lee@example.com",
        ["C-1001"],
    ),
    "postal code and phone, written": ("Alex Nobody", "94107", "(415) 555-0134", ["C-1001"]),
    "postal code and phone, spoken": (
        "Alex Nobody",
        "nine four one one zero",
        "four one five five five five zero one three four",
        ["C-2003"],
    ),
    "phone national in Spain, and postal code": (
        "Alex Nobody",
        "28013",
        "911 23 45 67",
        ["C-1003"],
    ),
    "name and email in another case": (
        "Casey Moore",
        "73301",
        "jordan.lee@EXAMPLE.com",
        ["C-2004"],
    ),
    "name and email, spoken": (
        "Jordan Lee",
        "73301",
        "jordan dot lee at example dot com",
        ["C-1001"],
    ),
    "name of one account, postal code and email of another": (
        "Priya Natarajan",
        "94107",
        "jordan.lee@example.com",
        ["C-1001"],
    ),
    "all three: a check that passes names one account": (
        "Jordan Lee",
        "94107",
        "jordan.lee@example.com",
        ["C-1001"],
    ),
    "nothing matches": ("Alex Nobody", "73301", "alex@example.org", []),
    "a partial name and a number's last digits": ("Jordan", "94107", "+1 415 555 0199", []),
}


@pytest.mark.parametrize(
    ("full_name", "postal_code", "phone_or_email", "expected"),
    NEAR_MISSES.values(),
    ids=NEAR_MISSES.keys(),
)
async def test_accounts_two_of_the_three_details_match(
    store: Store, full_name: str, postal_code: str, phone_or_email: str, expected: list[str]
) -> None:
    await _add_customers(store, *EXTRA_CUSTOMERS, SAME_LAST_DIGITS)
    assert await store.near_miss_accounts(full_name, postal_code, phone_or_email) == expected


async def test_each_detail_is_found_by_its_indexed_key_among_many_customers(
    store: Store,
) -> None:
    many = [
        Customer(
            customer_id=f"C-5{index:04d}",
            full_name=f"Person {index}",
            phone=f"+1312555{index:04d}",
            email=f"person{index}@example.org",
            postal_code="60601",
            country="US",
        )
        for index in range(1200)
    ]
    namesake = SAME_NAME.model_copy(update={"customer_id": "C-9999", "full_name": "JORDAN-LEE"})
    await _add_customers(store, *many, namesake)

    assert await store.near_miss_accounts("Jordan Lee", "60601", "x@example.org") == ["C-9999"]
    assert await store.near_miss_accounts("Nobody", "60601", "PERSON1199@example.org.") == [
        "C-51199"
    ]
    assert await store.near_miss_accounts("Nobody", "60601", "(312) 555-1199") == ["C-51199"]

    def plan(connection: Connection, condition: str) -> str:
        explain = "EXPLAIN QUERY PLAN"
        if connection.dialect.name != "sqlite":
            # Whether the index serves this query, not whether a small table is worth it.
            connection.exec_driver_sql("SET enable_seqscan = off")
            explain = "EXPLAIN"
        query = f"{explain} SELECT customer_id FROM customers WHERE {condition}"
        return " ".join(str(row[-1]) for row in connection.exec_driver_sql(query))

    async with store.engine.connect() as connection:
        for column, value in (
            ("name_key", "jordanlee"),
            ("email_key", "person1@example.org"),
            ("phone_tail", "1199"),
        ):
            used = await connection.run_sync(plan, f"{column} = '{value}'")
            assert f"ix_customers_{column}" in used
        # A failed check reads all three in one statement, each through its index.
        either = "name_key = 'jordanlee' OR email_key = 'x@example.org' OR phone_tail = '1199'"
        used = await connection.run_sync(plan, either)
        for column in ("name_key", "email_key", "phone_tail"):
            assert f"ix_customers_{column}" in used


async def test_a_failed_check_is_counted_and_audited_in_one_read_and_one_write(
    store: Store,
) -> None:
    await _add_customers(
        store,
        *EXTRA_CUSTOMERS,
        SAME_PHONE.model_copy(update={"customer_id": "C-2006", "postal_code": "94107"}),
    )
    event = AuditEvent(call_id="call-1", kind="identity_failed", detail={"attempts_left": 2})

    with recording(store.engine) as work:
        named = await store.record_failed_identity_check(
            "Jordan Lee", "94107", "sam.park@example.com", "call-1", [event]
        )

    # Jordan: name and postal code; Sam Park's second account: postal code and email.
    # The namesakes and Sam Park's first account share one detail each.
    assert named == ["C-1001", "C-2006"]
    assert [(customer_id, call_id) for customer_id, _, call_id in await _rows(store)] == [
        (customer_id, "call-1") for customer_id in named
    ]
    [stored] = await store.audit_events(call_id="call-1")
    assert (stored.kind, stored.detail) == ("identity_failed", {"attempts_left": 2})
    [transaction] = work.committed
    reads = [words for words in transaction if words.startswith("SELECT")]
    assert len(reads) == 1


async def test_a_failed_check_that_cannot_be_written_leaves_nothing(store: Store) -> None:
    event = AuditEvent(call_id="call-1", kind="identity_failed")
    undo = fail_writes(store)
    try:
        with pytest.raises(StoreUnavailable):
            await store.record_failed_identity_check(
                "Jordan Lee", "94107", "wrong@example.com", "call-1", [event]
            )
    finally:
        undo()
    assert await _rows(store) == []
    assert await store.audit_events(call_id="call-1") == []


async def test_a_failed_check_keeps_for_each_account_whether_only_its_label_details_matched(
    store: Store,
) -> None:
    sam_in_jordans_zip = SAME_PHONE.model_copy(
        update={"customer_id": "C-2006", "postal_code": "94107"}
    )
    await _add_customers(store, sam_in_jordans_zip)
    for full_name, postal_code, contact in (
        # Jordan: name and postal code, the two details on a parcel label; Sam Park's
        # account in the same ZIP: postal code and email.
        ("Jordan Lee", "94107", "sam.park@example.com"),
        # Jordan: name and email; then every detail (a check refused on a held account).
        ("Jordan Lee", "60601", "jordan.lee@example.com"),
        ("Jordan Lee", "94107", "jordan.lee@example.com"),
    ):
        await store.record_failed_identity_check(full_name, postal_code, contact, "call-1")
    await store.record_identity_failure(["C-1001"], "call-2", label_only=True)

    since = store.clock.now() - dt.timedelta(hours=1)
    candidates = await store.identity_candidates("94107", since)

    assert [
        (c.customer.customer_id, c.recent_failures, c.recent_label_only, c.recent_with_contact)
        for c in candidates
    ] == [("C-1001", 4, 2, 2), ("C-2006", 1, 0, 1)]


async def test_identity_candidates_carry_their_failures_within_the_window(store: Store) -> None:
    await _add_customers(store, SAME_PHONE.model_copy(update={"postal_code": "94107"}))
    await store.record_identity_failure(["C-1001"], "call-old", at=DAY_BEFORE - dt.timedelta(1))
    for call in ("call-1", "call-2"):
        await store.record_identity_failure(["C-1001"], call, at=NOON)

    candidates = await store.identity_candidates("9 4 1 0 7", DAY_BEFORE)

    assert [(c.customer.customer_id, c.recent_failures) for c in candidates] == [
        ("C-1001", 2),
        ("C-2003", 0),
    ]
    # A ZIP+4 finds the five-digit ZIP's customers too; nothing finds nothing.
    assert len(await store.identity_candidates("94107-1234", DAY_BEFORE)) == 2
    assert await store.identity_candidates("", DAY_BEFORE) == []


async def test_a_failure_is_one_row_per_account_in_one_write(store: Store) -> None:
    await store.record_identity_failure(["C-1001", "C-2001", "C-1001"], "call-1", at=NOON)

    assert await _rows(store) == [("C-1001", NOON, "call-1"), ("C-2001", NOON, "call-1")]
    assert await store.identity_failures_since("C-1001", DAY_BEFORE) == 1
    assert await store.identity_failures_since("C-2001", DAY_BEFORE) == 1
    assert await store.identity_failures_since("C-1002", DAY_BEFORE) == 0


async def test_a_failure_naming_no_account_writes_nothing(store: Store) -> None:
    undo = fail_everything(store)
    try:
        # Not even a transaction is opened, so an outage cannot fail it either.
        await store.record_identity_failure([], "call-1", at=NOON)
    finally:
        undo()
    assert await _rows(store) == []


async def test_failures_count_only_within_the_window_and_for_that_account(store: Store) -> None:
    for hours_ago in (30, 24, 23, 1, 0):
        at = NOON - dt.timedelta(hours=hours_ago)
        await store.record_identity_failure(["C-1001"], f"call-{hours_ago}", at=at)
    await store.record_identity_failure(["C-1002"], "call-other", at=NOON)

    # At or after the start of the window counts; before it does not.
    assert await store.identity_failures_since("C-1001", DAY_BEFORE) == 4
    assert await store.identity_failures_since("C-1001", NOON - dt.timedelta(hours=2)) == 2
    assert await store.identity_failures_since("C-1001", NOON + dt.timedelta(seconds=1)) == 0
    assert await store.identity_failures_since("C-1002", DAY_BEFORE) == 1


async def test_timestamps_in_any_timezone_count_by_their_instant(store: Store) -> None:
    tokyo = dt.timezone(dt.timedelta(hours=9))
    await store.record_identity_failure(["C-1001"], "call-1", at=NOON.astimezone(tokyo))

    [(_, failed_at, _)] = await _rows(store)
    assert failed_at == NOON
    assert failed_at.utcoffset() == dt.timedelta(0)
    assert await store.identity_failures_since("C-1001", NOON) == 1
    assert await store.identity_failures_since("C-1001", NOON + dt.timedelta(microseconds=1)) == 0


async def test_default_time_is_the_stores_clocks_now(store: Store, clock: FixedClock) -> None:
    clock.advance(dt.timedelta(hours=5))
    await store.record_identity_failure(["C-1001"], "call-1")
    [(_, failed_at, _)] = await _rows(store)
    assert failed_at == clock.now()


async def test_write_failure_is_unavailable_and_records_nothing(store: Store) -> None:
    undo = fail_writes(store)
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await store.record_identity_failure(["C-1001", "C-1002"], "call-1", at=NOON)
    finally:
        undo()

    assert str(raised.value) == "The store could not record a failed identity check."
    assert raised.value.__cause__ is not None
    assert await _rows(store) == []


async def test_read_failures_are_unavailable(store: Store) -> None:
    undo = fail_everything(store)
    try:
        with pytest.raises(StoreUnavailable) as counting:
            await store.identity_failures_since("C-1001", DAY_BEFORE)
        with pytest.raises(StoreUnavailable) as matching:
            await store.near_miss_accounts("Jordan Lee", "94107", "jordan.lee@example.com")
        with pytest.raises(StoreUnavailable):
            await store.near_miss_accounts("Jordan Lee", "94107", "no digits, no address")
    finally:
        undo()

    assert str(counting.value) == "The store could not count failed identity checks."
    assert str(matching.value) == "The store could not look up customers by their details."


def _table_names(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def test_opening_a_database_from_before_the_table_adds_it(database_url: str) -> None:
    # A database made before migrations, by a version without this table (and with the
    # first revision's columns, which lack the customers' lookup keys).
    async with await open_demo_store(database_url) as old, old.engine.begin() as connection:
        await made_before_migrations(connection, lacking={"identity_failures"})
        assert "identity_failures" not in await connection.run_sync(_table_names)

    async with await open_demo_store(database_url) as store:
        async with store.engine.connect() as connection:
            assert "identity_failures" in await connection.run_sync(_table_names)
        await store.record_identity_failure(["C-1001"], "call-1", at=NOON)
        assert await store.identity_failures_since("C-1001", DAY_BEFORE) == 1
        async with AsyncSession(store.engine) as session:
            assert await session.scalar(select(func.count()).select_from(IdentityFailureRow)) == 1


# Releasing a held account


async def test_a_release_clears_the_account_and_its_audit_event_keeps_what_it_cleared(
    store: Store,
) -> None:
    for hours_ago, call in ((30, "call-old"), (2, "call-1"), (1, "call-2"), (1, "call-2")):
        await store.record_identity_failure(
            ["C-1001"], call, at=NOON - dt.timedelta(hours=hours_ago)
        )
    await store.record_identity_failure(["C-1002"], "call-other", at=NOON)

    with recording(store.engine) as work:
        release = await store.release_identity_hold(
            "C-1001", call_id="identity-release-1", released_by="ops"
        )

    assert release == IdentityHoldRelease(
        customer_id="C-1001",
        failures=4,
        first_failed_at=NOON - dt.timedelta(hours=30),
        last_failed_at=NOON - dt.timedelta(hours=1),
        call_ids=("call-old", "call-1", "call-2"),
    )
    assert await store.identity_failures_since("C-1001", DAY_BEFORE - dt.timedelta(days=1)) == 0
    # Another account's failures stay.
    assert await store.identity_failures_since("C-1002", DAY_BEFORE) == 1
    [event] = await store.audit_events(kind=HOLD_RELEASED)
    assert (event.call_id, event.customer_id) == ("identity-release-1", "C-1001")
    assert event.detail == {
        "released_by": "ops",
        "failures_cleared": 4,
        "first_failed_at": (NOON - dt.timedelta(hours=30)).isoformat(),
        "last_failed_at": (NOON - dt.timedelta(hours=1)).isoformat(),
        "failed_call_ids": ["call-old", "call-1", "call-2"],
    }
    # The release and its audit event: one transaction.
    [transaction] = work.writes_committed
    assert "DELETE FROM identity_failures" in transaction
    assert "INSERT INTO audit_events" in transaction


async def test_releasing_an_account_with_no_failures_is_recorded_all_the_same(
    store: Store,
) -> None:
    release = await store.release_identity_hold("C-1002", call_id="release-2", released_by="ops")

    assert release == IdentityHoldRelease("C-1002", 0, None, None, ())
    [event] = await store.audit_events(kind=HOLD_RELEASED)
    assert event.detail["failures_cleared"] == 0


async def test_releasing_an_unknown_account_writes_nothing(store: Store) -> None:
    await store.record_identity_failure(["C-9999"], "call-1", at=NOON)

    assert await store.release_identity_hold("C-9999", call_id="r", released_by="ops") is None

    # Failures counted against an id with no customer behind it are no account to release.
    assert await store.identity_failures_since("C-9999", DAY_BEFORE) == 1
    assert await store.audit_events(kind=HOLD_RELEASED) == []


async def test_a_release_that_cannot_record_its_audit_event_clears_nothing(store: Store) -> None:
    await store.record_identity_failure(["C-1001"], "call-1", at=NOON)
    attempted: list[str] = []

    def fail_the_audit_row(connection: Connection, cursor: Any, statement: str, *_: Any) -> None:
        attempted.append(" ".join(statement.split()[:3]).upper())
        if statement.upper().startswith("INSERT INTO AUDIT_EVENTS"):
            raise connection.dialect.loaded_dbapi.OperationalError("disk I/O error")

    engine = store.engine.sync_engine
    event.listen(engine, "before_cursor_execute", fail_the_audit_row)
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await store.release_identity_hold("C-1001", call_id="r", released_by="ops")
    finally:
        event.remove(engine, "before_cursor_execute", fail_the_audit_row)

    assert str(raised.value) == "The store could not release an identity hold."
    # The failures were deleted before the audit row failed, and came back with it.
    assert "DELETE FROM IDENTITY_FAILURES" in attempted
    assert await store.identity_failures_since("C-1001", DAY_BEFORE) == 1
    assert await store.audit_events(kind=HOLD_RELEASED) == []


# IDENTITY_POLICY=email-or-name-zip: the email alone, or the name and postal code, verify

EMAIL_OR_NAME_ZIP_NEAR_MISSES: dict[str, tuple[str, str, str, dict[str, bool]]] = {
    "an email that is nobody's": ("nobody@example.org", "", "", {}),
    "an email, in any case": (
        "JORDAN.LEE@example.com",
        "",
        "",
        {"C-1001": False, "C-2004": False},
    ),
    # A name is public: only with its account's postal code (a parcel label) does it
    # count, against that account alone, never against every namesake.
    "a name with a postal code no account of that name has": ("", "jordan lee", "11111", {}),
    "a name with one namesake's postal code": ("", "jordan lee", "60601", {"C-2001": True}),
    "a name alone": ("", "Jordan Lee", "", {}),
    "a postal code alone": ("", "", "94107", {}),
    "a name with an email and no postal code": ("x@example.org", "Jordan Lee", "", {}),
    "one account's email, another's name and postal code": (
        "sam.park@example.com",
        "Priya Natarajan",
        "10001",
        {"C-1002": True, "C-2003": False},
    ),
}


@pytest.mark.parametrize(
    ("email", "full_name", "postal_code", "expected"),
    EMAIL_OR_NAME_ZIP_NEAR_MISSES.values(),
    ids=EMAIL_OR_NAME_ZIP_NEAR_MISSES.keys(),
)
async def test_under_email_or_name_zip_a_failed_check_counts_against_the_accounts_it_aimed_at(
    store: Store, email: str, full_name: str, postal_code: str, expected: dict[str, bool]
) -> None:
    await _add_customers(store, *EXTRA_CUSTOMERS)
    event = AuditEvent(call_id="call-1", kind="identity_failed", detail={"attempts_left": 2})

    with recording(store.engine) as work:
        named = await store.record_failed_email_or_name_zip_check(
            email, full_name, postal_code, "call-1", [event]
        )

    assert named == sorted(expected)
    async with AsyncSession(store.engine) as session:
        rows = await session.scalars(select(IdentityFailureRow))
        assert {row.customer_id: row.label_only for row in rows} == expected
    [stored] = await store.audit_events(call_id="call-1")
    assert stored.kind == "identity_failed"
    # One transaction: the count and the event, or neither.
    assert len(work.committed) == 1


async def test_an_email_two_accounts_share_names_neither(store: Store) -> None:
    # τ²-bench's rule verifies by the email alone: an email that is not one account's
    # must find no account, never whichever a read happens to return first.
    assert await store.customer_id_by_email("JORDAN.LEE@example.com") == "C-1001"
    await _add_customers(store, SAME_EMAIL_OTHER_CASE)
    assert await store.customer_id_by_email("jordan.lee@example.com") is None
    assert await store.customer_id_by_email("Jordan.Lee@Example.com") is None
