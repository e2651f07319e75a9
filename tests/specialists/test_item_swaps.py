"""The cases every swap runs (a specialist built on `call.item_swaps.SwapRules`: the
exchange, the item change): a correction, an unclear or missing yes, a confirm before
the read-back, every rule checked in code, the orders refused before the task, and a
sentence for every refusal. Each swap's facts are the `SWAP` its own test module
declares (`support.swaps.SwapCase`), found from the registrations; the suite fails
naming a swap that declares none. Real sessions; only the model is scripted."""

from __future__ import annotations

from typing import Any

import pytest

from customer_service.call.item_swaps import SwapRules
from customer_service.call.wording import NOTHING_TO_CONFIRM_YET
from customer_service.domain import OrderStatus
from customer_service.settings import Settings
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store.order_changes import ChangeRefusal
from customer_service.supervisor import CustomerServiceAgent
from support.clock import DEMO_ORDERS
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, tool_outputs
from support.scripted_llm import Call
from support.scripted_llm import relay_tool_output as relay
from support.store_records import change_order
from support.swaps import SwapArguments, SwapCase, order_now, record, refusal_sentences, swap_cases

DECLARED = swap_cases()
EVERY_SWAP = pytest.mark.parametrize("swap", DECLARED.cases, ids=DECLARED.names)
REFUSED = pytest.mark.parametrize(
    ("swap", "arguments", "refusal"),
    [
        pytest.param(swap, arguments, refusal, id=f"{name}-{key}")
        for name, swap in DECLARED.found.items()
        for key, (arguments, refusal) in swap.refused.items()
    ],
)
NOT_SWAPPABLE = pytest.mark.parametrize(
    ("swap", "status", "refusal"),
    [
        pytest.param(swap, status, refusal, id=f"{name}-{status.value}")
        for name, swap in DECLARED.found.items()
        for status, refusal in swap.not_swappable.items()
    ],
)


def test_every_swap_declares_its_cases_and_a_sentence_for_each_state() -> None:
    assert DECLARED.missing == []
    assert DECLARED.names  # the suite runs some
    for swap in DECLARED.cases:
        assert set(swap.not_swappable) == set(OrderStatus) - {swap.rules.swappable}


@EVERY_SWAP
async def test_a_correction_after_the_read_back_replaces_what_is_confirmed(
    settings: Settings, swap: SwapCase
) -> None:
    confirm = swap.request.confirm
    async with swap.request.at_question(
        settings, swap.record, swap.correction, *confirm
    ) as session:
        await session.run(user_input=swap.said)
        await session.run(user_input=swap.said_correcting)
        assert agent_lines(session)[-1] == swap.correction_read_back
        await session.run(user_input="Yes")
        await swap.corrected(session)


@EVERY_SWAP
async def test_unclear_answers_to_the_read_back_change_nothing(
    settings: Settings, swap: SwapCase
) -> None:
    confirm = swap.request.confirm
    wording = swap.rules.wording
    async with swap.request.at_question(settings, swap.record, *confirm, *confirm) as session:
        await session.run(user_input=swap.said)
        first = await session.run(user_input="Hmm, how long does that take?")
        first.expect.contains_function_call_output(output=wording.not_a_clear_yes, is_error=True)
        await session.run(user_input="I'm not sure")
        (output,) = tool_outputs(session, swap.request.supervisor_tool)
        assert (output.output, output.is_error) == (wording.nothing_done, True)
        assert isinstance(session.current_agent, CustomerServiceAgent)
        await swap.unchanged(session)


@EVERY_SWAP
async def test_no_to_the_read_back_changes_nothing(settings: Settings, swap: SwapCase) -> None:
    async with swap.request.at_question(settings, swap.record, Call("give_up"), relay) as session:
        await session.run(user_input=swap.said)
        await session.run(user_input="No, leave them as they are")
        (output,) = tool_outputs(session, swap.request.supervisor_tool)
        assert (output.output, output.is_error) == (swap.rules.wording.nothing_done, True)
        await swap.unchanged(session)


@EVERY_SWAP
async def test_a_confirm_before_anything_is_read_back_changes_nothing(
    settings: Settings, swap: SwapCase
) -> None:
    request = swap.request
    early = (Call(request.confirm_tool), relay)
    async with request.at_question(settings, *early, swap.record, *request.confirm) as session:
        await session.run(user_input="Yes, just do it")
        (output,) = tool_outputs(session, request.confirm_tool)
        assert (output.output, output.is_error) == (NOTHING_TO_CONFIRM_YET, True)
        await swap.unchanged(session)
        await session.run(user_input=swap.said)
        await session.run(user_input="yes")
        order = await order_now(session, request.order_id)
        assert order.status is swap.rules.swapped


@REFUSED
async def test_every_rule_is_checked_in_code_before_the_read_back(
    settings: Settings, swap: SwapCase, arguments: SwapArguments, refusal: str
) -> None:
    request = swap.request
    invalid = record(swap.rules.record_tool, *arguments)
    async with request.at_question(settings, invalid, relay, *request.confirm) as session:
        await session.run(user_input=swap.said)
        (output,) = tool_outputs(session, swap.rules.record_tool)
        assert (output.output, output.is_error) == (refusal, True)
        await session.run(user_input="yes")
        (confirmed,) = tool_outputs(session, request.confirm_tool)
        assert (confirmed.output, confirmed.is_error) == (NOTHING_TO_CONFIRM_YET, True)
        await swap.unchanged(session)


@NOT_SWAPPABLE
async def test_an_order_it_cannot_swap_is_refused_saying_what_can_be_done(
    settings: Settings, demo_database_url: str, swap: SwapCase, status: OrderStatus, refusal: str
) -> None:
    request = swap.request
    await change_order(demo_database_url, request.order_id, status=status)
    said = await request.refused_before_the_task(
        settings, demo_database_url, request.order_id, request.caller, request.says
    )
    assert said == refusal


@EVERY_SWAP
async def test_the_other_swaps_demo_order_is_offered_that_swap_instead(
    settings: Settings, demo_database_url: str, swap: SwapCase
) -> None:
    request = swap.request
    other = next(order for order in DEMO_ORDERS if order.order_id == swap.offered_instead)
    said = await request.refused_before_the_task(
        settings, demo_database_url, other.order_id, request.caller, request.says
    )
    assert said == swap.rules.not_swappable_message(other.order_id, other.status)


@EVERY_SWAP
async def test_another_customers_order_reads_like_an_unknown_one(
    settings: Settings, demo_database_url: str, swap: SwapCase
) -> None:
    request = swap.request
    said = await request.refused_before_the_task(
        settings, demo_database_url, request.order_id, JORDAN, JORDAN_SAYS
    )
    assert said == not_found_message(request.order_id)


@pytest.mark.parametrize(
    ("rules", "order_id", "not_its_refusals"),
    [(swap.rules, swap.request.order_id, swap.not_its_refusals) for swap in DECLARED.cases],
    ids=DECLARED.names,
)
def test_every_refusal_the_store_can_answer_has_its_own_sentence(
    rules: SwapRules[Any], order_id: str, not_its_refusals: frozenset[ChangeRefusal]
) -> None:
    # Given the rules, not the case: support.backends reads a case as a call on the default
    # store (its request opens one), and this check opens none.
    refusals, sentences = refusal_sentences(rules, order_id, not_its_refusals)
    # One refusal is the same for a missing order and a stranger's; every other its own.
    assert sentences == refusals - 1
