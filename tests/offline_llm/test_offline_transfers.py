"""Every specialist offers transfer_to_human: a caller who asks for a person, or says yes
to a colleague a tool offered, is handed over from wherever they are."""

from __future__ import annotations

import pytest
from livekit.agents import llm

from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from support.offline_chat import (
    ACCEPTED_OFFER,
    ADDRESS,
    ASKED_FOR_PERSON,
    CONSENT,
    IDENTITY,
    ORDER_LOOKUP,
    agent,
    answer,
    called,
    said,
    tool_round,
    user,
)

SPECIALISTS = {
    "identity": IDENTITY,
    "order lookup": ORDER_LOOKUP,
    "address": ADDRESS,
    "consent": CONSENT,
}
SMS_QUESTION = CONSENT_WORDING[ConsentTopic.ORDER_UPDATES_SMS].question


@pytest.mark.parametrize("specialist", SPECIALISTS)
@pytest.mark.parametrize(
    "line",
    [
        "I'd rather speak to a person",
        "Can I talk to a human?",
        "representative please",
        "no, get me an agent",
    ],
)
async def test_asking_for_a_person_inside_a_specialist_transfers(
    specialist: str, line: str
) -> None:
    tools = SPECIALISTS[specialist]
    assert called(await answer(tools, agent(SMS_QUESTION), user(line))) == (
        "transfer_to_human",
        ASKED_FOR_PERSON,
    )


async def test_a_person_asked_for_alongside_details_still_transfers() -> None:
    line = "Jordan Lee, 94107, jordan.lee@example.com, but put me through to a person"
    assert called(await answer(IDENTITY, user(line))) == ("transfer_to_human", ASKED_FOR_PERSON)


async def test_an_address_is_never_read_as_asking_for_a_person() -> None:
    line = "1 Operator Way, San Francisco, CA 94105"
    name, arguments = called(await answer(ADDRESS, user(line)))
    assert (name, arguments["street"]) == ("record_address", "1 Operator Way")


REPEATED = (
    "I'm sorry, we seem to be going around in circles. I can transfer you to a colleague "
    "who can help."
)


def offered_a_colleague() -> list[llm.ChatItem]:
    return [
        user("1 Market Street, San Francisco, CA 94105"),
        *tool_round("record_address", REPEATED, is_error=True),
        agent(REPEATED),
    ]


@pytest.mark.parametrize("line", ["yes", "yes please", "okay, yes"])
async def test_yes_to_a_colleague_inside_a_specialist_transfers(line: str) -> None:
    assert called(await answer(ADDRESS, *offered_a_colleague(), user(line))) == (
        "transfer_to_human",
        ACCEPTED_OFFER,
    )


async def test_no_to_a_colleague_inside_a_specialist_carries_on() -> None:
    response = await answer(ADDRESS, *offered_a_colleague(), user("no"))
    assert said(response) == (
        "Please tell me the full new address: the street, city, state or region, and postal code."
    )


async def test_a_specialist_without_the_transfer_tool_never_calls_it() -> None:
    tools = [tool for tool in CONSENT if tool.id != "transfer_to_human"]
    assert said(await answer(tools, agent(SMS_QUESTION), user("a human please"))) == SMS_QUESTION
