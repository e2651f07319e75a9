"""IDENTITY_POLICY=email-or-name-zip (τ²-bench's rule), driven through real sessions with a
scripted model: the identity specialist asks for the email address, or the full name and
zip code, and `check_identity` verifies by either; every detail given must be the one
account's. The call's attempt limit, the near misses counted against an account and the
hold that follows apply as under the default rule (`customer_service.call.identity_policy`).

Several calls share one store by opening their sessions on the same database URL.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.call.identity_hold import label_only_hold_limit, line_hold_limit
from customer_service.call.identity_policy import (
    MISSING_EMAIL_OR_NAME_ZIP,
    OPENING_QUESTION_EMAIL_OR_NAME_ZIP,
)
from customer_service.call.state import CallerLine
from customer_service.settings import IdentityPolicy, Settings
from customer_service.specialists.identity import (
    VERIFICATION_LOCKED,
    VerifyIdentityTask,
    mismatch_message,
)
from customer_service.store import Store
from customer_service.store.customers import customer_to_row
from customer_service.testing import call_session
from customer_service.testing.database_work import recording
from support.conversation import agent_lines, audit_events
from support.identity_failures import near_misses_counted, seed_near_misses
from support.line import PHONE_LINE, WORK_PHONE_LINE
from support.scripted_llm import IDENTITY_TOOLS, Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

JORDAN_ID = "C-1001"
PRIYA_ID = "C-1002"
BY_EMAIL = {"email": "jordan.lee@example.com"}
BY_NAME_AND_ZIP = {"full_name": "Jordan Lee", "postal_code": "94107"}
NOT_A_PHONE = CallerLine()


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"identity_policy": IdentityPolicy.EMAIL_OR_NAME_ZIP})


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    return demo_database_url


def check(**given: str) -> Call:
    return Call("check_identity", given)


async def _checks(
    checks: list[Call], *, settings: Settings, database_url: str, line: CallerLine = NOT_A_PHONE
) -> tuple[str | None, list[str], list[str]]:
    """One call: the caller asks to be verified, then gives details once per check (each
    outcome relayed). Who was verified, what the agent said, the call's audit kinds."""
    model = ScriptedLLM([Call("verify_identity"), *[step for c in checks for step in (c, relay)]])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        session.userdata.learn_line(line)
        await session.run(user_input="I'd like to check something on my account")
        for _ in checks:
            if session.userdata.identity.locked or session.userdata.verified_customer:
                break
            await session.run(user_input="here are my details")
        customer = session.userdata.verified_customer
        lines = agent_lines(session)
        kinds = [event.kind for event in await audit_events(session)]
    assert not model.overran
    return (None if customer is None else customer.customer_id), lines, kinds


@pytest.mark.parametrize(
    ("given", "by"),
    [
        (BY_EMAIL, "email_alone"),
        ({"email": "  Jordan.Lee@Example.com "}, "email_alone"),
        (BY_NAME_AND_ZIP, "name_and_postal_code"),
        ({"full_name": "jordan LEE", "postal_code": "94107-1234"}, "name_and_postal_code"),
        (dict(BY_EMAIL, **BY_NAME_AND_ZIP), "email_alone"),
    ],
    ids=["email", "email as typed", "name and zip", "name and zip+4", "all three"],
)
async def test_the_email_alone_or_the_name_and_zip_verify(
    settings: Settings, given: dict[str, str], by: str
) -> None:
    model = ScriptedLLM([Call("verify_identity"), check(**given), relay])
    async with call_session(model, settings=settings) as session:
        asked = await session.run(user_input="I'd like to check something on my account")
        asked.expect.next_event().is_function_call(name="verify_identity")
        asked.expect.next_event().is_agent_handoff(new_agent_type=VerifyIdentityTask)
        question = asked.expect.next_event().is_message(role="assistant").event().item
        assert question.text_content == OPENING_QUESTION_EMAIL_OR_NAME_ZIP
        # The model is offered a check that takes what the policy accepts.
        [tool] = [tool for tool in session.current_agent.tools if tool.id == "check_identity"]
        assert {"email", "full_name", "postal_code"} <= set(inspect.signature(tool).parameters)
        assert "phone_or_email" not in inspect.signature(tool).parameters

        answered = await session.run(user_input="here are my details")
        answered.expect.next_event().is_function_call(name="check_identity")
        answered.expect.next_event().is_function_call_output(is_error=False)
        answered.expect.skip_next_event_if(type="agent_handoff")
        answered.expect.next_event().is_function_call_output(
            output='Thank you, "Jordan Lee", you are verified.', is_error=False
        )
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID
        [verified] = await audit_events(session, kind="identity_verified")
        assert verified.detail["by"] == by
    assert model.turns[1].offers(IDENTITY_TOOLS)
    assert not model.overran


MISMATCHES = {
    "an email that is nobody's": ({"email": "jordan@example.com"}, {JORDAN_ID: 0, PRIYA_ID: 0}),
    "another customer's email with Jordan's name": (
        {"email": "priya.n@example.com", "full_name": "Jordan Lee"},
        {JORDAN_ID: 0, PRIYA_ID: 1},
    ),
    # A name is public: with a zip that is not its account's, it counts against nobody.
    "Jordan's name, a wrong zip": (
        {"full_name": "Jordan Lee", "postal_code": "94108"},
        {JORDAN_ID: 0, PRIYA_ID: 0},
    ),
    "Jordan's zip, a wrong name": (
        {"full_name": "Alex Nobody", "postal_code": "94107"},
        {JORDAN_ID: 0, PRIYA_ID: 0},
    ),
    "Jordan's email, a zip not his": (
        {"email": "jordan.lee@example.com", "postal_code": "10001"},
        {JORDAN_ID: 1, PRIYA_ID: 0},
    ),
    "Jordan's name and zip, another's email": (
        {"email": "priya.n@example.com", **BY_NAME_AND_ZIP},
        {JORDAN_ID: 1, PRIYA_ID: 1},
    ),
}


@pytest.mark.parametrize(("given", "counted"), MISMATCHES.values(), ids=MISMATCHES.keys())
async def test_every_miss_reads_the_same_and_counts_only_against_an_account_it_aimed_at(
    settings: Settings, database_url: str, given: dict[str, str], counted: dict[str, int]
) -> None:
    model = ScriptedLLM([Call("verify_identity"), check(**given), relay])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        await session.run(user_input="verify me")
        result = await session.run(user_input="here are my details")
        result.expect.next_event().is_function_call(name="check_identity")
        result.expect.next_event().is_function_call_output(
            output=mismatch_message(settings.identity_max_attempts - 1), is_error=True
        )
        assert session.userdata.verified_customer is None
        # Whoever it counts against, it counts against the call.
        assert session.userdata.identity.failed_checks == 1
    assert {
        customer_id: await near_misses_counted(database_url, customer_id) for customer_id in counted
    } == (counted)


@pytest.mark.parametrize(
    "given",
    [{"full_name": "Jordan Lee"}, {"postal_code": "94107"}, {}],
    ids=["a name alone", "a zip alone", "nothing"],
)
async def test_less_than_the_email_or_the_name_and_zip_is_asked_for_and_not_counted(
    settings: Settings, database_url: str, given: dict[str, str]
) -> None:
    model = ScriptedLLM([Call("verify_identity"), check(**given), relay])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        await session.run(user_input="verify me")
        result = await session.run(user_input="Jordan Lee")
        result.expect.next_event().is_function_call(name="check_identity")
        result.expect.next_event().is_function_call_output(
            output=MISSING_EMAIL_OR_NAME_ZIP, is_error=True
        )
        assert session.userdata.identity.failed_checks == 0
    assert await near_misses_counted(database_url, JORDAN_ID) == 0


async def test_two_accounts_with_one_name_and_zip_verify_neither_by_them(
    settings: Settings, database_url: str
) -> None:
    async with await Store.open(database_url) as store:
        jordan = await store.get_customer(JORDAN_ID)
        assert jordan is not None
        namesake = jordan.model_copy(update={"customer_id": "C-7001", "email": "jl@example.org"})
        async with AsyncSession(store.engine) as session, session.begin():
            session.add(customer_to_row(namesake))
    verified, lines, _ = await _checks(
        [check(**BY_NAME_AND_ZIP), check(email="jl@example.org")],
        settings=settings,
        database_url=database_url,
    )
    assert lines[2] == mismatch_message(settings.identity_max_attempts - 1)
    # The email tells the namesakes apart.
    assert verified == "C-7001"


async def test_three_misses_lock_the_call(settings: Settings, database_url: str) -> None:
    wrong = [check(email=f"jordan{index}@example.com") for index in range(3)]
    verified, lines, kinds = await _checks(wrong, settings=settings, database_url=database_url)
    assert verified is None
    assert lines[1:] == [
        OPENING_QUESTION_EMAIL_OR_NAME_ZIP,
        mismatch_message(2),
        mismatch_message(1),
        VERIFICATION_LOCKED,
    ]
    assert kinds.count("identity_failed") == 3
    # Emails that are nobody's count against no account.
    assert await near_misses_counted(database_url, JORDAN_ID) == 0


HOLDS = {
    "near misses with the email": (lambda s: s.identity_account_max_failures, False),
    "name and zip only": (label_only_hold_limit, True),
}


@pytest.mark.parametrize("right", [BY_EMAIL, BY_NAME_AND_ZIP], ids=["email", "name and zip"])
@pytest.mark.parametrize(("hold", "label_only"), HOLDS.values(), ids=HOLDS.keys())
async def test_on_a_held_account_the_right_details_read_like_a_miss_and_count(
    settings: Settings, database_url: str, right: dict[str, str], hold: Any, label_only: bool
) -> None:
    await seed_near_misses(database_url, hold(settings) - 1, label_only=label_only)
    verified, _, _ = await _checks([check(**right)], settings=settings, database_url=database_url)
    assert verified == JORDAN_ID

    # One near miss more: held.
    await seed_near_misses(database_url, 1, label_only=label_only)
    before = await near_misses_counted(database_url, JORDAN_ID)
    verified, held_lines, held_kinds = await _checks(
        [check(**right)], settings=settings, database_url=database_url
    )
    _, wrong_lines, wrong_kinds = await _checks(
        [check(email="nobody@example.org")], settings=settings, database_url=database_url
    )
    assert verified is None
    assert held_lines == wrong_lines
    assert held_lines[-1] == mismatch_message(settings.identity_max_attempts - 1)
    assert held_kinds == wrong_kinds
    assert "identity_verified" not in held_kinds
    assert await near_misses_counted(database_url, JORDAN_ID) == before + 1


async def test_name_and_zip_near_misses_hold_only_at_the_label_only_limit(
    settings: Settings, database_url: str
) -> None:
    # Jordan's name and zip, the two details on a parcel label, with emails that are not
    # his: near misses of the label kind.
    guesses = [
        check(email=f"jordan{index}@example.org", **BY_NAME_AND_ZIP)
        for index in range(settings.identity_account_max_failures)
    ]
    for start in range(0, len(guesses), settings.identity_max_attempts):
        batch = guesses[start : start + settings.identity_max_attempts]
        verified, _, _ = await _checks(batch, settings=settings, database_url=database_url)
        assert verified is None
    assert (
        await near_misses_counted(database_url, JORDAN_ID) == settings.identity_account_max_failures
    )
    # A stranger who knows the label has not held the owner out, who gives the email.
    verified, _, _ = await _checks(
        [check(**BY_EMAIL)], settings=settings, database_url=database_url
    )
    assert verified == JORDAN_ID


async def test_a_name_guesser_over_five_calls_holds_nobody_and_the_owner_verifies_after(
    settings: Settings, database_url: str
) -> None:
    # Jordan's name with made-up zips, three a call, five calls: as many guesses as hold
    # an account by its label, and not one of them came close to any account.
    calls = 5
    zips = iter(range(94110, 94110 + calls * settings.identity_max_attempts))
    for _ in range(calls):
        guesses = [
            check(full_name="Jordan Lee", postal_code=str(next(zips)))
            for _ in range(settings.identity_max_attempts)
        ]
        verified, lines, _ = await _checks(guesses, settings=settings, database_url=database_url)
        assert verified is None
        assert lines[-1] == VERIFICATION_LOCKED
    assert calls * settings.identity_max_attempts >= label_only_hold_limit(settings)
    assert await near_misses_counted(database_url, JORDAN_ID) == 0
    # The owner, by the name and zip a parcel label carries, and by the email.
    for right in (BY_NAME_AND_ZIP, BY_EMAIL):
        verified, _, _ = await _checks(
            [check(**right)], settings=settings, database_url=database_url
        )
        assert verified == JORDAN_ID


async def test_an_email_guesser_calling_from_one_line_is_held_there_after_the_bound(
    settings: Settings, database_url: str
) -> None:
    # Emails that are nobody's count against no account: only the line bounds them.
    calls, line = 11, WORK_PHONE_LINE
    limit = line_hold_limit(settings)
    per_call = settings.identity_max_attempts
    guesses = iter(f"guess{index}@example.org" for index in range(calls * per_call))

    async def guessing_call() -> list[str]:
        wrong = [check(email=next(guesses)) for _ in range(per_call)]
        verified, lines, _ = await _checks(
            wrong, settings=settings, database_url=database_url, line=line
        )
        assert verified is None
        return lines

    before_the_bound = limit // per_call
    heard = [await guessing_call() for _ in range(before_the_bound)]
    # Below the bound, the right email from the line verifies.
    verified, _, _ = await _checks(
        [check(**BY_EMAIL)], settings=settings, database_url=database_url, line=line
    )
    assert verified == JORDAN_ID
    heard += [await guessing_call() for _ in range(calls - before_the_bound)]
    # Every guessing call heard the same words, past the bound as before it.
    assert all(lines == heard[0] for lines in heard)
    assert heard[0][-1] == VERIFICATION_LOCKED

    # Past it, the right email from that line reads exactly as a wrong one does.
    verified, held, held_kinds = await _checks(
        [check(**BY_EMAIL)], settings=settings, database_url=database_url, line=line
    )
    _, wrong, wrong_kinds = await _checks(
        [check(email="nobody@example.org")],
        settings=settings,
        database_url=database_url,
        line=line,
    )
    assert verified is None
    assert held == wrong
    assert held[-1] == mismatch_message(settings.identity_max_attempts - 1)
    assert held_kinds == wrong_kinds
    # The owner is not held by it: from another line, or none, the email verifies.
    for elsewhere in (PHONE_LINE, NOT_A_PHONE):
        verified, _, _ = await _checks(
            [check(**BY_EMAIL)], settings=settings, database_url=database_url, line=elsewhere
        )
        assert verified == JORDAN_ID


async def test_the_owners_line_passes_a_hold_and_asks_for_no_calling_number(
    settings: Settings, database_url: str
) -> None:
    await seed_near_misses(database_url, label_only_hold_limit(settings), label_only=True)
    model = ScriptedLLM([Call("verify_identity"), check(**BY_NAME_AND_ZIP), relay])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        session.userdata.learn_line(PHONE_LINE)
        await session.run(user_input="I'd like to check something on my account")
        # The calling number stands in for a phone number, which this rule never asks.
        assert agent_lines(session)[-1] == OPENING_QUESTION_EMAIL_OR_NAME_ZIP
        assert "use_calling_number" not in model.turns[-1].tool_names
        await session.run(user_input="Jordan Lee, 94107")
        customer = session.userdata.verified_customer
        assert customer is not None
        [verified] = await audit_events(session, kind="identity_verified")
        assert verified.detail["passed_hold"] == "line_is_phone_on_file"
    assert not model.overran


@pytest.mark.parametrize(
    ("given", "said"),
    [(BY_EMAIL, "email address alone"), (BY_NAME_AND_ZIP, "name and postal code alone")],
    ids=["email", "name and zip"],
)
async def test_a_colleagues_brief_says_what_verified_the_caller(
    settings: Settings, given: dict[str, str], said: str
) -> None:
    model = ScriptedLLM(
        [
            Call("verify_identity"),
            check(**given),
            relay,
            Call("transfer_to_human", {"reason": "billing question"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I need help with my account")
        await session.run(user_input="here are my details")
        await session.run(user_input="Can I talk to someone about a bill?")
        state = session.userdata
        [record] = await state.store.escalations(call_id=state.call_id)
        assert record.summary == f"Verified as customer {JORDAN_ID} by {said}."
    assert not model.overran


async def _work_of_a_check(
    given: dict[str, str], *, settings: Settings, database_url: str
) -> tuple[list[str], list[list[str]]]:
    """What the agent said to one check of `given`, and the database work of that turn:
    each transaction's statements."""
    model = ScriptedLLM([Call("verify_identity"), check(**given), relay])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        session.userdata.learn_line(WORK_PHONE_LINE)
        await session.run(user_input="verify me")
        with recording(session.userdata.store.engine) as work:
            await session.run(user_input="here are my details")
        said = agent_lines(session)
    assert not model.overran
    return said, [transaction.statements for transaction in work.transactions_ended]


async def test_a_check_does_the_same_database_work_for_an_email_on_file_as_for_one_not(
    settings: Settings, database_url: str
) -> None:
    # Jordan's email with a zip not his, and an email that is nobody's: the same words,
    # and nothing in the work (and so its time) tells them apart.
    on_file, on_file_work = await _work_of_a_check(
        {**BY_EMAIL, "postal_code": "10001"}, settings=settings, database_url=database_url
    )
    nobodys, nobodys_work = await _work_of_a_check(
        {"email": "nobody@example.org", "postal_code": "10001"},
        settings=settings,
        database_url=database_url,
    )
    assert on_file == nobodys
    assert on_file[-1] == mismatch_message(settings.identity_max_attempts - 1)
    assert on_file_work == nobodys_work
    assert any(statement.startswith("SELECT") for work in on_file_work for statement in work)
    # The near miss was counted against Jordan all the same.
    assert await near_misses_counted(database_url, JORDAN_ID) == 1


@pytest.mark.parametrize(
    "request_line",
    [
        "Please change my email to jordan.new@example.org",
        "My new email is jordan.new@example.org, can you update it?",
    ],
)
async def test_an_email_said_as_the_new_value_of_a_request_is_no_identity_detail(
    settings: Settings, database_url: str, request_line: str
) -> None:
    # The model puts the new email in the check with the name and zip: the new value is
    # not the account's, so it is left out, and the name and zip verify; nothing counts.
    new_email = "jordan.new@example.org"
    model = ScriptedLLM([Call("verify_identity"), check(email=new_email, **BY_NAME_AND_ZIP), relay])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        await session.run(user_input=request_line)
        await session.run(user_input="Jordan Lee, 94107")
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID
        assert session.userdata.identity.failed_checks == 0
        [verified] = await audit_events(session, kind="identity_verified")
        assert verified.detail["by"] == "name_and_postal_code"
    assert not model.overran
    assert await near_misses_counted(database_url, JORDAN_ID) == 0


async def test_an_email_said_as_on_file_is_checked_as_given(
    settings: Settings, database_url: str
) -> None:
    # Said as the account's, a wrong email with the right name and zip is still a miss.
    model = ScriptedLLM(
        [Call("verify_identity"), check(email="jordan.new@example.org", **BY_NAME_AND_ZIP), relay]
    )
    async with call_session(model, settings=settings, database_url=database_url) as session:
        await session.run(user_input="My email is jordan.new@example.org")
        await session.run(user_input="Jordan Lee, 94107")
        assert session.userdata.verified_customer is None
        assert session.userdata.identity.failed_checks == 1
    assert await near_misses_counted(database_url, JORDAN_ID) == 1


async def test_a_name_and_zip_said_before_any_request_are_checked_at_once(
    settings: Settings, database_url: str
) -> None:
    """A caller who gives their name and zip code on their own, before asking anything,
    is verified by them: the identity task opens on them (one model turn that checks),
    not with the question that asks for them again."""
    seen: list[str] = []

    def checks_what_was_said(turn: Any) -> Call:
        seen.extend(
            item.text_content or ""
            for item in turn.chat_ctx.items
            if getattr(item, "role", None) == "user"
        )
        return check(**BY_NAME_AND_ZIP)

    model = ScriptedLLM([Call("verify_identity"), checks_what_was_said, relay])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        await session.run(user_input="Jordan Lee, 94107")
        assert OPENING_QUESTION_EMAIL_OR_NAME_ZIP not in agent_lines(session)
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID
    assert "Jordan Lee, 94107" in seen
    assert not model.overran


async def test_words_and_an_order_number_are_no_name_and_zip(
    settings: Settings, database_url: str
) -> None:
    """ "where's order 100102" is a request, not details: the fixed question is asked."""
    model = ScriptedLLM([Call("verify_identity")])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        await session.run(user_input="where's order 100102")
        assert agent_lines(session)[-1] == OPENING_QUESTION_EMAIL_OR_NAME_ZIP
    assert not model.overran
