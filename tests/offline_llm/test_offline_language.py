"""The offline model reads English only, and says so to a request it cannot read."""

from __future__ import annotations

import pytest

from customer_service.offline_llm import OfflineLLM
from customer_service.offline_llm.language import not_english
from customer_service.offline_llm.routing import ENGLISH_ONLY
from customer_service.offline_llm.small_talk import GREETED_BACK, NOT_SOMETHING_I_DO
from customer_service.settings import Settings
from customer_service.testing import call_session
from support.conversation import agent_lines


@pytest.mark.parametrize(
    ("request_said", "said_again"),
    [
        ("¿Dónde está mi pedido? Quiero saber cuándo llega.", "No encuentro mi pedido"),
        ("我的订单在哪里", "我想取消订单"),
    ],
)
async def test_a_request_it_cannot_read_is_told_so_in_one_sentence(
    settings: Settings, request_said: str, said_again: str
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input=request_said)
        await session.run(user_input=said_again)
        said = agent_lines(session)
        # The greeting, then the one sentence each time: never the menu on repeat.
        assert said[1:] == [ENGLISH_ONLY, ENGLISH_ONLY]
        await session.run(user_input="Where is my order?")
        assert agent_lines(session)[-1] != ENGLISH_ONLY


async def test_english_it_does_not_understand_still_gets_the_menu(settings: Settings) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input="hmm, the weather is awful today")
        said = agent_lines(session)
        assert said[-1] != ENGLISH_ONLY
        assert said[-1].endswith("or put you through to a person. What would you like to do?")


@pytest.mark.parametrize(
    "request_said", ["Tell me a joke", "sing me a song", "can you write me a poem?"]
)
async def test_a_request_it_cannot_serve_is_told_so_kindly(
    settings: Settings, request_said: str
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input=request_said)
        assert agent_lines(session)[-1] == NOT_SOMETHING_I_DO


@pytest.mark.parametrize(
    "line",
    [
        "tell me a joke",
        "sing me a song",
        "Jordan Lee, 94107, jordan.lee@example.com",
        "jordan lee nine four one oh seven",
        "track package fast please",
        "María García 28013 maria.garcia@example.es",
    ],
)
def test_english_words_it_does_not_know_are_not_another_language(line: str) -> None:
    assert not not_english(line)


@pytest.mark.parametrize(
    "line",
    [
        "No encuentro mi pedido",
        "Bonjour, où est ma commande?",
        "Wo ist meine Bestellung bitte",
        "Onde está o meu pedido",
    ],
)
def test_everyday_words_of_another_language_are_not_english(line: str) -> None:
    assert not_english(line)


@pytest.mark.parametrize("greeting", ["hi", "Hello!", "hey there", "good morning"])
async def test_a_greeting_is_answered_with_a_greeting_and_a_question(
    settings: Settings, greeting: str
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input=greeting)
        assert agent_lines(session)[-1] == GREETED_BACK
