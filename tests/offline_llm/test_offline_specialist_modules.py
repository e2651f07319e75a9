"""A specialist is one module of `offline_llm/specialists/`: found there, routed to, put
on the menu and played, with no other edit."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from textwrap import dedent

import pytest
from livekit.agents import llm
from livekit.agents.llm import function_tool

from customer_service.offline_llm import specialists
from customer_service.offline_llm.specialists import registered
from customer_service.specialists.cancellation import REASON_QUESTION
from support.offline_chat import (
    CANCELLATION,
    CAPABILITIES_WITH_ADDRESS,
    FULL_SUPERVISOR,
    agent,
    answer,
    called,
    said,
    user,
)

GIFT_WRAP_MODULE = dedent(
    """
    from customer_service.call.answers import Phrases, normalise
    from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
    from customer_service.offline_llm.routing import names_an_order, order_arguments
    from customer_service.offline_llm.specialist_replies import leave, transfer
    from customer_service.offline_llm.specialists import OfflineSpecialist

    PAPER_QUESTION = "Which wrapping paper would you like?"
    _GIFT_WRAP = Phrases(["gift wrap", "gift-wrap", "wrap it"])


    def respond(conversation: Conversation) -> Reply:
        if (handed_over := transfer(conversation)) is not None:
            return handed_over
        if (left := leave(conversation, own="wrap_gift")) is not None:
            return left
        return CallTool("record_paper", {"paper": conversation.last_caller_line or ""})


    def route(conversation: Conversation) -> Reply | None:
        if _GIFT_WRAP.found_in(normalise(conversation.last_caller_line or "")):
            return CallTool("wrap_gift", order_arguments(conversation))
        return None


    def asks_for(line: str) -> bool:
        return _GIFT_WRAP.found_in(normalise(line)) and names_an_order(line)


    SPECIALIST = OfflineSpecialist(
        name="gift_wrap",
        markers=frozenset({"record_paper"}),
        respond=respond,
        prompt=lambda _conversation: PAPER_QUESTION,
        supervisor_tool="wrap_gift",
        route=route,
        route_rank=15,
        menu_phrase="gift-wrap an order",
        menu_rank=25,
        asks_for=asks_for,
    )
    """
)
MODULE_NAME = f"{specialists.__name__}.gift_wrap"


@pytest.fixture
def gift_wrap_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A new specialist module, dropped beside the others (a folder on the package's
    path): nothing else is edited."""
    (tmp_path / "gift_wrap.py").write_text(GIFT_WRAP_MODULE)
    monkeypatch.setattr(specialists, "__path__", [*specialists.__path__, str(tmp_path)])
    registered.cache_clear()
    yield
    registered.cache_clear()
    sys.modules.pop(MODULE_NAME, None)


@function_tool()
async def wrap_gift(order_id: str | None = None) -> str:
    """Gift-wrap an order."""
    return "wrapped"


@function_tool()
async def record_paper(paper: str) -> None:
    """Record the paper."""


@function_tool()
async def give_up() -> None:
    """The caller stops."""


@function_tool()
async def caller_wants_something_else(request: str) -> None:
    """The caller asks for something else."""


GIFT_WRAP_TASK: list[llm.Tool] = [record_paper, give_up, caller_wants_something_else]


async def test_a_new_specialist_module_is_routed_offered_and_played(
    gift_wrap_module: None,
) -> None:
    assert "gift_wrap" in [specialist.name for specialist in registered()]
    supervisor = [*FULL_SUPERVISOR, wrap_gift]
    # Routed to, with the order the caller named.
    assert called(await answer(supervisor, user("Could you gift wrap order 100102?"))) == (
        "wrap_gift",
        {"order_id": "100102"},
    )
    # On the menu, in its place (`menu_rank` 25: after the address change), once the
    # supervisor offers its tool.
    address = "change a delivery address, "
    assert address in CAPABILITIES_WITH_ADDRESS
    assert said(await answer(supervisor, user("hmm"))) == CAPABILITIES_WITH_ADDRESS.replace(
        address, f"{address}gift-wrap an order, "
    )
    # Played, once its task's tools are offered: its question, then its own tool.
    assert said(await answer(GIFT_WRAP_TASK)) == "Which wrapping paper would you like?"
    assert called(await answer(GIFT_WRAP_TASK, user("the blue one"))) == (
        "record_paper",
        {"paper": "the blue one"},
    )
    # Another specialist hears its request as a change of topic, once it asked its question.
    line = "actually, gift wrap order 100101 instead"
    assert called(await answer(CANCELLATION, agent(REASON_QUESTION), user(line))) == (
        "caller_wants_something_else",
        {"request": line},
    )


async def test_a_specialist_whose_tool_is_not_offered_is_neither_routed_nor_on_the_menu(
    gift_wrap_module: None,
) -> None:
    assert said(await answer(FULL_SUPERVISOR, user("hmm"))) == CAPABILITIES_WITH_ADDRESS
    assert "gift" not in said(await answer(FULL_SUPERVISOR, user("please gift wrap it")))
