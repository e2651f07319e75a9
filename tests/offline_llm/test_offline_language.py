"""The offline model reads English only, and says so to a request it cannot read."""

from __future__ import annotations

import pytest

from customer_service.offline_llm import OfflineLLM
from customer_service.offline_llm.routing import ENGLISH_ONLY
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
        await session.run(user_input="Tell me a joke about the weather")
        said = agent_lines(session)
        assert said[-1] != ENGLISH_ONLY
        assert said[-1].endswith("or put you through to a person. What would you like to do?")
