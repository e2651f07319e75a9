"""The identity hold as a guesser and as the owner meet it.

A held account answers the right third detail exactly as it answers a wrong one (what
the caller hears, what the model is told, the call's counters and lock, the audit
trail). Near misses of the name and postal code alone, the two details printed on
every parcel label, hold an account only at a higher count; while it is held, the owner
calling from the phone number on file gets through, until a hard cap closes that too.

Several calls share one store by opening their sessions on the same database URL.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from customer_service.call.identity_hold import (
    LABEL_ONLY_HOLD_MULTIPLE,
    LINE_EXEMPTION_CAP_MULTIPLE,
    label_only_hold_limit,
    line_exemption_cap,
)
from customer_service.call.state import CallerLine
from customer_service.settings import PROJECT_ROOT, Settings
from customer_service.specialists.identity import VERIFICATION_LOCKED, mismatch_message
from customer_service.testing import call_session
from support.conversation import JORDAN, agent_lines, audit_events, check_identity, tool_outputs
from support.databases import new_demo_database
from support.identity_failures import near_misses_counted, seed_near_misses
from support.line import PHONE_LINE, WORK_PHONE_LINE
from support.scripted_llm import Call, Parallel, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

JORDAN_ID = "C-1001"
WRONG_EMAILS = [f"jordan.lee{index}@example.com" for index in range(200)]
"""Guesses at Jordan's email with the name and postal code from a parcel label."""
NOT_A_PHONE = CallerLine()
SPOOFED_LINE = CallerLine(is_phone=True, caller_number="+14155550135")
"""A phone line presenting a number one digit from Jordan's: a guess at it."""


def label_guess(index: int) -> dict[str, Any]:
    return dict(JORDAN, phone_or_email=WRONG_EMAILS[index])


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    return demo_database_url


@dataclass(frozen=True)
class Heard:
    """Everything a call of checks left that a guesser, or the model, could tell apart."""

    lines: list[str]
    outputs: list[tuple[str, bool]]
    failed_checks: int
    locked: bool
    verified: str | None
    audit: list[tuple[str, str | None, dict[str, Any]]]
    counted: int
    """Near misses the call added to Jordan's account."""


async def _call(
    checks: Sequence[Any], *, database_url: str, settings: Settings, line: CallerLine
) -> Heard:
    """One call on `line`: the caller asks to be verified, then each step of `checks` (a
    check, or several in one reply) answers one caller turn, the outcome relayed."""
    steps: list[Any] = [Call("verify_identity")]
    for check in checks:
        steps += [check, relay]
    model = ScriptedLLM(steps)
    before = await near_misses_counted(database_url)
    async with call_session(model, database_url=database_url, settings=settings) as session:
        session.userdata.learn_line(line)
        await session.run(user_input="I'd like to check something on my account")
        for _ in checks:
            if session.userdata.identity.locked or session.userdata.verified_customer:
                break
            await session.run(user_input="here are my details")
        state = session.userdata
        customer = state.verified_customer
        heard = Heard(
            lines=agent_lines(session),
            outputs=[(o.output, o.is_error) for o in tool_outputs(session, "check_identity")],
            failed_checks=state.identity.failed_checks,
            locked=state.identity.locked,
            verified=None if customer is None else customer.customer_id,
            # How long a delegation took differs from call to call whatever was said.
            audit=[
                (event.kind, event.customer_id, event.detail | {"duration_ms": None})
                for event in await audit_events(session)
            ],
            counted=0,
        )
    assert not model.overran
    return replace(heard, counted=await near_misses_counted(database_url) - before)


async def _guessing_calls(
    guesses: Sequence[dict[str, Any]],
    *,
    database_url: str,
    settings: Settings,
    line: CallerLine = NOT_A_PHONE,
) -> None:
    """A stranger's calls, as many checks each as a call allows, every one refused."""
    per_call = settings.identity_max_attempts
    for start in range(0, len(guesses), per_call):
        checks = [check_identity(given) for given in guesses[start : start + per_call]]
        heard = await _call(checks, database_url=database_url, settings=settings, line=line)
        assert heard.verified is None
        assert heard.failed_checks == len(checks)


# A held account is no oracle for the third detail

HOLDS = {
    "near misses with the email": (lambda s: s.identity_account_max_failures, False),
    "name and postal code only": (label_only_hold_limit, True),
}
LINES = {"browser": NOT_A_PHONE, "another phone": WORK_PHONE_LINE}


@pytest.mark.parametrize("line", LINES.values(), ids=LINES.keys())
@pytest.mark.parametrize(("hold", "label_only"), HOLDS.values(), ids=HOLDS.keys())
@pytest.mark.parametrize("right_at", [0, 1, 2], ids=["first", "second", "third"])
async def test_on_a_held_account_the_right_third_detail_reads_exactly_like_a_wrong_one(
    settings: Settings,
    store_backend: str,
    tmp_path: Path,
    line: CallerLine,
    hold: Any,
    label_only: bool,
    right_at: int,
) -> None:
    wrong = [check_identity(label_guess(index)) for index in range(3)]
    with_right = [
        check_identity(JORDAN) if index == right_at else wrong[index] for index in (0, 1, 2)
    ]
    heard: list[Heard] = []
    for name, checks in (("wrong", wrong), ("right", with_right)):
        async with new_demo_database(store_backend, tmp_path / name) as url:
            await seed_near_misses(url, hold(settings), label_only=label_only)
            heard.append(await _call(checks, database_url=url, settings=settings, line=line))
    only_wrong, right_among_them = heard

    assert right_among_them == only_wrong
    assert only_wrong.verified is None
    assert only_wrong.locked
    assert (
        only_wrong.outputs
        # The check that locks the call returns nothing; the supervisor says the lock.
        == [(mismatch_message(2), True), (mismatch_message(1), True), ("", False)]
    )
    assert only_wrong.lines[-1] == VERIFICATION_LOCKED
    assert only_wrong.counted == 3


@pytest.mark.parametrize("right_first", [True, False], ids=["right first", "right second"])
async def test_a_right_guess_in_one_reply_with_a_wrong_one_reads_like_two_wrong_ones(
    settings: Settings, store_backend: str, tmp_path: Path, right_first: bool
) -> None:
    pair = [check_identity(JORDAN), check_identity(label_guess(1))]
    guessed = Parallel(tuple(pair if right_first else reversed(pair)))
    both_wrong = Parallel((check_identity(label_guess(0)), check_identity(label_guess(1))))
    heard: list[Heard] = []
    for name, checks in (("wrong", [both_wrong]), ("right", [guessed])):
        async with new_demo_database(store_backend, tmp_path / name) as url:
            await seed_near_misses(url, label_only_hold_limit(settings), label_only=True)
            heard.append(await _call(checks, database_url=url, settings=settings, line=NOT_A_PHONE))

    assert heard[1] == heard[0]
    assert heard[0].outputs == [(mismatch_message(2), True), (mismatch_message(1), True)]
    assert heard[0].counted == 2


# A parcel label cannot hold the owner out; guessing stays bounded


async def test_five_label_near_misses_over_two_calls_leave_the_owner_free_to_verify(
    settings: Settings, database_url: str
) -> None:
    # The case: name and postal code right, the email guessed, five times.
    await _guessing_calls(
        [label_guess(index) for index in range(5)], database_url=database_url, settings=settings
    )
    assert await near_misses_counted(database_url) == 5

    owner = await _call(
        [check_identity(JORDAN)], database_url=database_url, settings=settings, line=NOT_A_PHONE
    )
    assert owner.verified == JORDAN_ID


async def test_a_stranger_with_a_parcel_label_holds_the_account_but_not_the_owners_phone(
    settings: Settings, database_url: str
) -> None:
    limit = label_only_hold_limit(settings)
    assert limit > settings.identity_account_max_failures
    await _guessing_calls(
        [label_guess(index) for index in range(limit)],
        database_url=database_url,
        settings=settings,
    )
    # The stranger's next guess would gain nothing: the right email reads like a wrong one.
    guesser = await _call(
        [check_identity(JORDAN)], database_url=database_url, settings=settings, line=NOT_A_PHONE
    )
    assert guesser.verified is None
    assert guesser.outputs == [(mismatch_message(2), True)]

    # The owner, from the phone number on the account, with every detail right.
    owner = await _call(
        [check_identity(JORDAN)], database_url=database_url, settings=settings, line=PHONE_LINE
    )
    assert owner.verified == JORDAN_ID
    assert owner.counted == 0
    [verified] = [event for event in owner.audit if event[0] == "identity_verified"]
    assert verified[2]["passed_hold"] == "line_is_phone_on_file"


async def test_the_phone_on_file_needs_every_other_detail_right(
    settings: Settings, database_url: str
) -> None:
    await seed_near_misses(database_url, label_only_hold_limit(settings), label_only=True)
    heard = await _call(
        [check_identity(label_guess(0))],
        database_url=database_url,
        settings=settings,
        line=PHONE_LINE,
    )
    assert heard.verified is None
    assert heard.outputs == [(mismatch_message(2), True)]
    assert heard.counted == 1


async def test_guesses_from_spoofed_numbers_count_and_close_the_owners_line_at_the_cap(
    settings: Settings, database_url: str
) -> None:
    cap = line_exemption_cap(settings)
    per_call = settings.identity_max_attempts
    await seed_near_misses(database_url, cap - per_call, label_only=True)
    # A stranger presenting a guessed number, and saying it as the phone on the account.
    spoofed_number = SPOOFED_LINE.caller_number
    assert spoofed_number is not None
    spoofed = dict(JORDAN, phone_or_email=spoofed_number)
    await _guessing_calls(
        [spoofed] * per_call, database_url=database_url, settings=settings, line=SPOOFED_LINE
    )
    assert await near_misses_counted(database_url) == cap

    # Past the cap even the right number with every detail right reads like a miss.
    right = await _call(
        [check_identity(JORDAN)], database_url=database_url, settings=settings, line=PHONE_LINE
    )
    assert right.verified is None
    assert right.outputs == [(mismatch_message(2), True)]


@pytest.mark.parametrize(("below_cap", "verified"), [(1, True), (0, False)], ids=["under", "at"])
async def test_the_owners_line_passes_a_hold_only_under_the_cap(
    settings: Settings, database_url: str, below_cap: int, verified: bool
) -> None:
    await seed_near_misses(database_url, line_exemption_cap(settings) - below_cap, label_only=False)
    heard = await _call(
        [check_identity(JORDAN)], database_url=database_url, settings=settings, line=PHONE_LINE
    )
    assert (heard.verified == JORDAN_ID) is verified


async def test_the_owners_line_does_not_pass_the_calls_own_lock(
    settings: Settings, database_url: str
) -> None:
    await seed_near_misses(database_url, label_only_hold_limit(settings), label_only=True)
    guesses = Parallel(
        tuple(
            check_identity(JORDAN) if index == 5 else check_identity(label_guess(index))
            for index in range(8)
        )
    )
    heard = await _call([guesses], database_url=database_url, settings=settings, line=PHONE_LINE)
    assert heard.locked
    assert heard.verified is None
    assert heard.failed_checks == settings.identity_max_attempts


# What the documents say


def test_the_architecture_says_what_holds_an_account_and_what_a_held_customer_can_do() -> None:
    readme = (PROJECT_ROOT / "docs" / "architecture.md").read_text()
    [policy] = [part for part in readme.split("\n\n") if part.startswith("Policy in code:")]
    policy = re.sub(r"\s+", " ", policy)
    limit = Settings.model_fields["identity_account_max_failures"].default
    for words in (
        f"`IDENTITY_ACCOUNT_MAX_FAILURES` ({limit})",
        f"({limit * LABEL_ONLY_HOLD_MULTIPLE})",
        f"({limit * LINE_EXEMPTION_CAP_MULTIPLE})",
        "call from the phone number on the account",
        "ask for a colleague",
        "wait a day",
        "identity-release",
    ):
        assert words in policy, words
