"""`support.backends` finds a conversation test's call on the default store wherever its
code opens it: in its own code, in a helper of the suite it names (decorated or not),
or in a method it calls on an object of the suite's (`REQUEST.at_question`), so that
test runs on every backend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from customer_service.settings import Settings
from support.backends import opens_the_default_store
from support.conversation import PRIYA, PRIYA_SAYS
from support.order_request import OrderRequest

REQUEST = OrderRequest(
    supervisor_tool="exchange_items",
    asking="I'd like to exchange something from order {order_id}",
    order_id="200201",
    caller=PRIYA,
    says=PRIYA_SAYS,
    task_tools=frozenset({"record_exchange"}),
    confirm_tool="confirm_exchange",
)


async def at_the_question(settings: Settings) -> None:
    async with REQUEST.at_question(settings) as session:
        await session.run(user_input="the mat")


async def at_the_question_on_a_prepared_store(settings: Settings, database_url: str) -> None:
    async with REQUEST.at_question_on(database_url, settings) as session:
        await session.run(user_input="the mat")


@asynccontextmanager
async def at_the_question_through_a_helper(settings: Settings) -> AsyncIterator[None]:
    async with REQUEST.at_question(settings):
        yield


async def through_a_decorated_helper(settings: Settings) -> None:
    async with at_the_question_through_a_helper(settings):
        pass


async def the_store_alone(settings: Settings) -> None:
    assert REQUEST.writes == "order_exchange_requested"


def found(name: str) -> bool:
    # Looked up by name: named in a test's code, the function would make that test one
    # of those it checks.
    return opens_the_default_store(globals()[name])


def test_a_call_opened_by_a_method_of_a_suite_object_is_found() -> None:
    assert found("at_the_question")
    assert not found("at_the_question_on_a_prepared_store")
    # Naming the object for what opens no call does not make a conversation test.
    assert not found("the_store_alone")


def test_a_call_opened_by_a_decorated_helper_is_found_in_the_helpers_own_module() -> None:
    # An `asynccontextmanager`'s wrapper has the library's globals; the helper's are read.
    assert found("through_a_decorated_helper")
