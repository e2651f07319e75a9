"""The supervisor's rules: which tool a caller's words lead to, and what it says otherwise."""

from __future__ import annotations

import pytest
from livekit.agents import llm

from customer_service.domain import OrderStatus
from customer_service.offline_llm.routing import DECLINED_OFFER
from customer_service.offline_llm.specialists import registered
from customer_service.specialists import SPECIALISTS
from customer_service.specialists.address_update import not_changeable_message
from support.offline_chat import (
    ACCEPTED_OFFER,
    ANYTHING_ELSE,
    ASKED_FOR_PERSON,
    CAPABILITIES,
    CAPABILITIES_WITH_ADDRESS,
    CONSENT_TOPICS_QUESTION,
    FULL_SUPERVISOR,
    GREETING,
    SUPERVISOR,
    agent,
    answer,
    called,
    said,
    tool_round,
    user,
)


@pytest.mark.parametrize(
    ("line", "order_id"),
    [
        ("Where is my order 100101?", "100101"),
        ("order 100-101 please", "100101"),
        ("it's one zero zero one zero one", "100101"),
        ("1 0 0 1 0 1", "100101"),
        ("100102", "100102"),
    ],
)
async def test_order_number_goes_to_lookup_order(line: str, order_id: str) -> None:
    assert called(await answer(SUPERVISOR, user(line))) == ("lookup_order", {"order_id": order_id})


@pytest.mark.parametrize(
    "line",
    ["Where is my package?", "I want to track a delivery", "what's the status of my orders"],
)
async def test_order_intent_without_a_number_omits_it(line: str) -> None:
    assert called(await answer(SUPERVISOR, user(line))) == ("lookup_order", {})


@pytest.mark.parametrize(
    "line",
    [
        "Can I talk to a human?",
        "representative please",
        "I want someone real",
        "put me through to an agent about my order",
    ],
)
async def test_asking_for_a_person_transfers(line: str) -> None:
    assert called(await answer(SUPERVISOR, user(line))) == ("transfer_to_human", ASKED_FOR_PERSON)


@pytest.mark.parametrize(
    "line", ["bye", "Goodbye!", "That's all, thanks", "no thank you", "nothing else", "hang up"]
)
async def test_goodbye_ends_the_call(line: str) -> None:
    assert called(await answer(SUPERVISOR, user(line))) == ("end_call", {})


@pytest.mark.parametrize("line", ["I need to verify my identity", "is this my account?"])
async def test_verification_intent(line: str) -> None:
    assert called(await answer(SUPERVISOR, user(line))) == ("verify_identity", {})


@pytest.mark.parametrize("line", ["Sofia Ito, 19169", "Ivan Rossi 10056", "Sofia Ito, zip 19169"])
async def test_a_name_and_zip_code_alone_are_details_to_verify(line: str) -> None:
    assert called(await answer(SUPERVISOR, user(line))) == ("verify_identity", {})


DONE = "Done. Order 1 0 0, 1 0 2 will now be delivered to 1 Market St, San Francisco."


@pytest.mark.parametrize(
    "line", ["Will it still arrive this week?", "when will it get here?", "is it on its way?"]
)
async def test_a_question_about_its_arrival_looks_up_the_order_in_discussion(line: str) -> None:
    changed = [
        user("change the address of order 100102"),
        *tool_round("update_address", DONE, order_id="100102"),
        agent(DONE),
    ]
    response = await answer(FULL_SUPERVISOR, *changed, user(line))
    assert called(response) == ("lookup_order", {"order_id": "100102"})
    # With no order in the call yet, the order lookup asks which one.
    assert called(await answer(SUPERVISOR, user(line))) == ("lookup_order", {})


@pytest.mark.parametrize("line", ["Okay, thanks.", "great, thank you", "ok"])
async def test_thanks_for_what_the_agent_said_is_welcome(line: str) -> None:
    said_so = [user("change the address of order 100102"), agent(DONE)]
    assert said(await answer(FULL_SUPERVISOR, *said_so, user(line))) == "You're welcome."


async def test_bare_yes_or_no_asks_how_to_help() -> None:
    assert said(await answer(SUPERVISOR, user("yes"))) == "How can I help you today?"
    assert said(await answer(SUPERVISOR, agent(GREETING), user("no"))) == (
        "How can I help you today?"
    )


async def test_yes_or_no_to_anything_else() -> None:
    before = [
        user("where is it"),
        *tool_round("lookup_order", "It shipped."),
        agent(f"It shipped. {ANYTHING_ELSE}"),
    ]
    assert called(await answer(SUPERVISOR, *before, user("no"))) == ("end_call", {})
    assert said(await answer(SUPERVISOR, *before, user("yes"))) == "What else can I help you with?"


async def test_no_to_what_else_ends_the_call() -> None:
    before = [
        user("where is it"),
        *tool_round("lookup_order", "It shipped."),
        agent(f"It shipped. {ANYTHING_ELSE}"),
        user("yes"),
        agent("What else can I help you with?"),
    ]
    assert called(await answer(SUPERVISOR, *before, user("no"))) == ("end_call", {})


OFFER = not_changeable_message("100101", OrderStatus.PROCESSED)


def offered_a_colleague() -> list[llm.ChatItem]:
    return [
        user("change the address of order 100101"),
        *tool_round("update_address", OFFER, is_error=True, order_id="100101"),
        agent(OFFER),
    ]


@pytest.mark.parametrize("line", ["yes", "yes please", "sure", "okay, yes"])
async def test_yes_to_a_colleague_transfers(line: str) -> None:
    before = offered_a_colleague()
    response = await answer(FULL_SUPERVISOR, *before, user(line))
    assert called(response) == ("transfer_to_human", ACCEPTED_OFFER)


async def test_no_to_a_colleague_asks_what_else_then_no_ends_the_call() -> None:
    before = offered_a_colleague()
    response = await answer(FULL_SUPERVISOR, *before, user("no thanks"))
    # "no thanks" is a goodbye wherever it is said.
    assert called(response) == ("end_call", {})
    declined = await answer(FULL_SUPERVISOR, *before, user("no"))
    assert said(declined) == DECLINED_OFFER == f"All right. {ANYTHING_ELSE}"
    after = [*before, user("no"), agent(DECLINED_OFFER)]
    response = await answer(FULL_SUPERVISOR, *after, user("no"))
    assert called(response) == ("end_call", {})


async def test_anything_else_lists_what_the_agent_can_do() -> None:
    # The menu says the menu phrase of each specialist the supervisor may start, in
    # `menu_rank` order (equal ranks in `route_rank` order): every registration's, and
    # only the core tools' when the others are not offered.
    assert CAPABILITIES == (
        "I can check the status of an order, or put you through to a person. "
        "What would you like to do?"
    )
    phrases = {entry.name: entry.menu_phrase for entry in SPECIALISTS if entry.menu_phrase}
    on_menu = sorted(
        (played for played in registered() if played.name in phrases),
        key=lambda played: (played.menu_rank, played.route_rank),
    )
    listed = "".join(f"{phrases[played.name]}, " for played in on_menu)
    assert (
        f"I can {listed}or put you through to a person. What would you like to do?"
    ) == CAPABILITIES_WITH_ADDRESS
    assert len(on_menu) == len(phrases) >= 2
    assert said(await answer(SUPERVISOR, user("What's the weather like?"))) == CAPABILITIES
    assert said(await answer(FULL_SUPERVISOR, user("What's the weather like?"))) == (
        CAPABILITIES_WITH_ADDRESS
    )


# --- address changes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "arguments"),
    [
        ("I moved, please ship order 100102 to my new address", {"order_id": "100102"}),
        ("I need to change my delivery address", {}),
        ("can you deliver to my office instead", {}),
        ("I need to change the delivery address for order 100102", {"order_id": "100102"}),
    ],
)
async def test_address_change_when_offered(line: str, arguments: dict[str, str]) -> None:
    assert called(await answer(FULL_SUPERVISOR, user(line))) == ("update_address", arguments)


async def test_address_change_not_offered_is_not_called() -> None:
    assert said(await answer(SUPERVISOR, user("I moved house"))) == CAPABILITIES


async def test_email_address_is_not_an_address_change() -> None:
    line = "I want to verify my email address"
    assert called(await answer(FULL_SUPERVISOR, user(line))) == ("verify_identity", {})


# --- consent: the two topics request_consent accepts ---------------------------------------


@pytest.mark.parametrize(
    ("line", "said_no"),
    [
        ("please don't send me text updates", True),
        ("stop sending me texts", True),
        ("I'd like text messages about my orders", False),
        ("can I get SMS notifications?", False),
        ("turn off notifications", True),
        ("stop texting me about order 100102", True),
        ("I want order updates by text", False),
        ("text updates, please", False),
    ],
)
async def test_text_updates_ask_the_order_updates_sms_question(line: str, said_no: bool) -> None:
    # A no said outright is passed on as such; the tool reads the caller's words again.
    assert called(await answer(FULL_SUPERVISOR, user(line))) == (
        "request_consent",
        {"topic": "order_updates_sms", **({"caller_said_no": True} if said_no else {})},
    )


@pytest.mark.parametrize(
    ("line", "said_no"),
    [
        ("don't record this call", True),
        ("please stop recording", True),
        ("is this call being recorded?", False),
        ("I don't want my call recorded", True),
        ("you may not record me", False),
    ],
)
async def test_recording_asks_the_call_recording_question(line: str, said_no: bool) -> None:
    assert called(await answer(FULL_SUPERVISOR, user(line))) == (
        "request_consent",
        {"topic": "call_recording", **({"caller_said_no": True} if said_no else {})},
    )


@pytest.mark.parametrize(
    "line", ["Please unsubscribe me from marketing", "opt me out", "change my preferences"]
)
async def test_consent_without_a_topic_asks_which_one(line: str) -> None:
    # There is no "marketing" topic: the agent says which choices it can record.
    assert said(await answer(FULL_SUPERVISOR, user(line))) == CONSENT_TOPICS_QUESTION
    asked = [user(line), agent(CONSENT_TOPICS_QUESTION)]
    assert called(await answer(FULL_SUPERVISOR, *asked, user("text updates"))) == (
        "request_consent",
        {"topic": "order_updates_sms"},
    )
    assert called(await answer(FULL_SUPERVISOR, *asked, user("the recording"))) == (
        "request_consent",
        {"topic": "call_recording"},
    )


async def test_consent_request_when_offered() -> None:
    line = "Please unsubscribe me from marketing"
    assert said(await answer(FULL_SUPERVISOR, user(line))) == CONSENT_TOPICS_QUESTION
    assert said(await answer(SUPERVISOR, user(line))) == CAPABILITIES
    assert said(await answer(SUPERVISOR, user("stop texting me"))) == CAPABILITIES
