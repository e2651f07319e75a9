"""The identity limit per account, across calls: near misses spread over many calls add
up and hold the account; to every caller, its owner giving every detail right included,
a held account reads exactly like details that match nothing, and the lock that follows
says what a customer can do; an operator's release lets the owner verify again. (The
two kinds of near miss and the owner's line: `test_identity_hold.py`.)

Several calls share one store by opening their sessions on the same database URL.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from customer_service.call.wording import offers_human
from customer_service.clock import FixedClock
from customer_service.settings import Settings
from customer_service.specialists.identity import (
    OPENING_QUESTION,
    VERIFICATION_LOCKED,
    mismatch_message,
)
from customer_service.store import Store
from customer_service.store_commands import run_store_command
from customer_service.testing import call_session
from support.clock import TEST_NOW
from support.conversation import (
    JORDAN,
    PRIYA,
    agent_lines,
    audit_events,
    audit_kinds,
    check_identity,
)
from support.databases import new_demo_database
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

JORDAN_ID = "C-1001"
PRIYA_ID = "C-1002"
TRACKING_NUMBER = "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4"
NOBODY = {
    "full_name": "Alex Nobody",
    "postal_code": "60601",
    "phone_or_email": "alex@example.org",
}
WRONG_POSTAL_CODES = ("94108", "94109", "94110", "94111")


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    return demo_database_url


def _hours_ago(hours: float) -> dt.datetime:
    """Before the calls' time: the tests' clock stands at `TEST_NOW` (`clock`)."""
    return TEST_NOW - dt.timedelta(hours=hours)


async def _seed_failures(database_url: str, count: int, *, hours_ago: float) -> None:
    """`count` failed checks against Jordan's account, from earlier calls."""
    async with await Store.open(database_url) as store:
        for index in range(count):
            await store.record_identity_failure(
                [JORDAN_ID], f"call-earlier-{index}", at=_hours_ago(hours_ago)
            )


async def _failures(database_url: str, customer_id: str) -> int:
    async with await Store.open(database_url) as store:
        return await store.identity_failures_since(customer_id, _hours_ago(24 * 365))


def _three_tries(*details: dict[str, Any]) -> ScriptedLLM:
    """A caller asking about order 100101, then giving these details three times (one
    set repeated, or three), each answer relayed."""
    tries = details * 3 if len(details) == 1 else details
    steps: list[Any] = [Call("lookup_order", {"order_id": "100101"})]
    for given in tries:
        steps += [check_identity(given), relay]
    return ScriptedLLM(steps)


async def _call(
    model: ScriptedLLM, *, database_url: str, settings: Settings
) -> tuple[list[str], bool, list[str]]:
    """One call of three tries: what the agent said, whether the caller ended up
    verified, and the call's audit kinds."""
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="Where is my order 100101?")
        for _ in range(3):
            await session.run(user_input="Here are my details")
        state = session.userdata
        assert state.identity.failed_checks == settings.identity_max_attempts
        assert state.identity.locked
        lines = agent_lines(session)
        kinds = await audit_kinds(session)
    assert not model.overran
    return lines, state.verified_customer is not None, kinds


LOCKED_CALL_LINES = [
    OPENING_QUESTION,
    mismatch_message(2),
    mismatch_message(1),
    VERIFICATION_LOCKED,
]
"""What a caller hears after the greeting in a call of three failed checks."""


async def _held_call(
    model: ScriptedLLM, *, database_url: str, settings: Settings
) -> tuple[list[str], list[str]]:
    """One call with every one of Jordan's details right: what the agent said after the
    greeting, and the call's audit kinds. The account is held, so nobody is verified."""
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="Where is my order 100101?")
        await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        state = session.userdata
        assert state.verified_customer is None
        # Counted like a wrong guess, against the call as against the account.
        assert state.identity.failed_checks == 1
        assert not state.identity.locked
        lines = agent_lines(session)
        kinds = await audit_kinds(session)
    assert not model.overran
    return lines[1:], kinds


def _right_details_call() -> ScriptedLLM:
    return ScriptedLLM(
        [Call("lookup_order", {"order_id": "100101"}), check_identity(JORDAN), relay]
    )


async def test_twelve_near_misses_over_four_calls_hold_the_account_for_the_fifth(
    settings: Settings, database_url: str
) -> None:
    for postal_code in WRONG_POSTAL_CODES:
        # Jordan's name and email, a wrong postal code: two of three details, a near miss.
        guesses = [dict(JORDAN, postal_code=postal_code)] * 3
        lines, verified, _ = await _call(
            _three_tries(*guesses), database_url=database_url, settings=settings
        )
        assert not verified
        assert lines[1:] == LOCKED_CALL_LINES
    assert await _failures(database_url, JORDAN_ID) == 12

    # The fifth call has every detail right: it hears what a wrong guess hears, is
    # counted like one, and hears nothing about the order.
    lines, kinds = await _held_call(
        _right_details_call(), database_url=database_url, settings=settings
    )
    assert lines == [OPENING_QUESTION, mismatch_message(settings.identity_max_attempts - 1)]
    assert not any(TRACKING_NUMBER in line or "shipped" in line for line in lines)
    assert "identity_verified" not in kinds
    assert "order_disclosed" not in kinds
    assert kinds.count("identity_failed") == 1
    assert await _failures(database_url, JORDAN_ID) == 13


async def test_a_held_customer_hears_what_they_can_do_and_is_put_through(
    settings: Settings, database_url: str
) -> None:
    await _seed_failures(database_url, settings.identity_account_max_failures, hours_ago=1)
    steps: list[Any] = [Call("lookup_order", {"order_id": "100101"})]
    steps += [check_identity(JORDAN), relay] * settings.identity_max_attempts
    model = ScriptedLLM([*steps, Call("transfer_to_human", {"reason": "not verified"}), relay])
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="Where is my order 100101?")
        for _ in range(settings.identity_max_attempts):
            await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        # Every locked caller hears it, so it tells nobody the account is held.
        assert agent_lines(session)[-1] == VERIFICATION_LOCKED
        assert "from the phone number on your account" in VERIFICATION_LOCKED
        assert "tomorrow" in VERIFICATION_LOCKED
        assert offers_human(VERIFICATION_LOCKED)
        await session.run(user_input="Yes please, put me through")
        assert session.userdata.escalated
    assert not model.overran


async def test_a_held_account_reads_exactly_like_an_unknown_one_to_a_near_miss(
    settings: Settings, database_url: str, store_backend: str, tmp_path: Path
) -> None:
    await _seed_failures(database_url, settings.identity_account_max_failures, hours_ago=1)
    near_miss = dict(JORDAN, postal_code=WRONG_POSTAL_CODES[0])
    held_lines, held_verified, held_kinds = await _call(
        _three_tries(near_miss), database_url=database_url, settings=settings
    )
    async with new_demo_database(store_backend, tmp_path / "other") as other_url:
        unknown_lines, unknown_verified, unknown_kinds = await _call(
            _three_tries(NOBODY), database_url=other_url, settings=settings
        )

    assert held_lines == unknown_lines
    assert held_lines[1:] == LOCKED_CALL_LINES
    assert not held_verified
    assert not unknown_verified
    # Not even the audit trail of the call tells the two apart; only the count does.
    assert held_kinds == unknown_kinds
    limit = settings.identity_account_max_failures
    assert await _failures(database_url, JORDAN_ID) == limit + 3


async def test_the_account_is_held_at_its_limit_and_not_before(
    settings: Settings, database_url: str
) -> None:
    limit = settings.identity_account_max_failures
    await _seed_failures(database_url, limit - 1, hours_ago=1)
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), relay])
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="I'd like to check something on my account")
        await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID
    # A success does not reset the count: failures only age out of the window.
    assert await _failures(database_url, JORDAN_ID) == limit - 1

    await _seed_failures(database_url, 1, hours_ago=1)
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), relay])
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="I'd like to check something on my account")
        result = await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        result.expect.contains_function_call(name="check_identity")
        held = mismatch_message(settings.identity_max_attempts - 1)
        result.expect.contains_function_call_output(output=held, is_error=True)
        assert agent_lines(session)[-1] == held
        assert session.userdata.verified_customer is None
        assert session.userdata.identity.failed_checks == 1
        assert await audit_events(session, kind="identity_verified") == []
    assert await _failures(database_url, JORDAN_ID) == limit + 1


async def test_a_released_hold_lets_the_customer_verify_again(
    settings: Settings, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    limit = settings.identity_account_max_failures
    await _seed_failures(database_url, limit, hours_ago=1)
    lines, _ = await _held_call(_right_details_call(), database_url=database_url, settings=settings)
    assert lines[-1] == mismatch_message(settings.identity_max_attempts - 1)

    # A colleague releases the hold from the command line (its own event loop).
    command_settings = settings.model_copy(update={"database_url": database_url})
    release = ["identity-release", JORDAN_ID]
    assert await asyncio.to_thread(run_store_command, release, command_settings) == 0
    assert f"released {JORDAN_ID}: cleared {limit + 1} failed identity checks" in (
        capsys.readouterr().out
    )
    assert await _failures(database_url, JORDAN_ID) == 0

    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), relay])
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="I'd like to check something on my account")
        await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID
    async with await Store.open(database_url) as store:
        [released] = await store.audit_events(kind="identity_hold_released")
    assert released.customer_id == JORDAN_ID
    assert released.detail["failures_cleared"] == limit + 1


@pytest.mark.parametrize(
    ("hours_ago", "window_h", "verified"),
    [
        (25, 24.0, True),
        (23, 24.0, False),
        (2, 1.0, True),
        (0.5, 1.0, False),
    ],
    ids=["a day ago", "within the day", "past a short window", "within a short window"],
)
async def test_failures_older_than_the_window_no_longer_count(
    settings: Settings, database_url: str, hours_ago: float, window_h: float, verified: bool
) -> None:
    settings = settings.model_copy(update={"identity_account_window_h": window_h})
    await _seed_failures(database_url, 12, hours_ago=hours_ago)
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), relay])
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="I'd like to check something on my account")
        await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        assert (session.userdata.verified_customer is not None) is verified


async def test_a_lower_limit_from_settings_applies(settings: Settings, database_url: str) -> None:
    settings = settings.model_copy(update={"identity_account_max_failures": 1})
    await _seed_failures(database_url, 1, hours_ago=1)
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), relay])
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="I'd like to check something on my account")
        await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        assert session.userdata.verified_customer is None


async def test_a_hold_ends_when_the_calls_clock_passes_the_window(
    settings: Settings, database_url: str, clock: FixedClock
) -> None:
    # Failures written by the calls themselves, at the calls' clock's time.
    limit = settings.identity_account_max_failures
    wrong = dict(JORDAN, postal_code="94108")
    for _ in range(-(-limit // settings.identity_max_attempts)):
        await _call(_three_tries(wrong), database_url=database_url, settings=settings)
    lines, _ = await _held_call(_right_details_call(), database_url=database_url, settings=settings)
    assert lines[-1] == mismatch_message(settings.identity_max_attempts - 1)

    clock.advance(dt.timedelta(hours=settings.identity_account_window_h, seconds=-1))
    lines, _ = await _held_call(_right_details_call(), database_url=database_url, settings=settings)
    assert lines[-1] == mismatch_message(settings.identity_max_attempts - 1)

    clock.advance(dt.timedelta(seconds=2))
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), relay])
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="I'd like to check something on my account")
        await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID


NEAR_MISSES = {
    "name only": (dict(NOBODY, full_name="Jordan Lee"), {JORDAN_ID: 0, PRIYA_ID: 0}),
    "postal code only": (dict(NOBODY, postal_code="94107"), {JORDAN_ID: 0, PRIYA_ID: 0}),
    "phone only": (dict(NOBODY, phone_or_email="(415) 555-0134"), {JORDAN_ID: 0, PRIYA_ID: 0}),
    "email only": (
        dict(NOBODY, phone_or_email="Jordan.Lee@example.com"),
        {JORDAN_ID: 0, PRIYA_ID: 0},
    ),
    "name and postal code": (
        dict(JORDAN, phone_or_email="nobody@example.org"),
        {JORDAN_ID: 1, PRIYA_ID: 0},
    ),
    "name and email": (dict(JORDAN, postal_code="60601"), {JORDAN_ID: 1, PRIYA_ID: 0}),
    "postal code and phone": (
        dict(JORDAN, full_name="Alex Nobody", phone_or_email="415 555 0134"),
        {JORDAN_ID: 1, PRIYA_ID: 0},
    ),
    "one account's name and postal code, another's email": (
        dict(JORDAN, phone_or_email=PRIYA["phone_or_email"]),
        {JORDAN_ID: 1, PRIYA_ID: 0},
    ),
    "nobody's details": (NOBODY, {JORDAN_ID: 0, PRIYA_ID: 0}),
}


@pytest.mark.parametrize(("given", "expected"), NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
async def test_a_failed_check_counts_only_against_an_account_two_details_match(
    settings: Settings, database_url: str, given: dict[str, Any], expected: dict[str, int]
) -> None:
    model = ScriptedLLM([Call("verify_identity"), check_identity(given), relay])
    async with call_session(model, database_url=database_url, settings=settings) as session:
        await session.run(user_input="verify me")
        result = await session.run(user_input="here are my details")
        result.expect.contains_function_call_output(
            output=mismatch_message(settings.identity_max_attempts - 1), is_error=True
        )
        # Whoever it counts against, it counts against the call.
        assert session.userdata.identity.failed_checks == 1
    assert {
        customer_id: await _failures(database_url, customer_id) for customer_id in expected
    } == expected
