"""What a swap declares (`call.item_swaps.SwapRules`): a sentence for every state of an
order it does not swap, said with the order's number as it is spoken."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from customer_service.call.item_swaps import SwapRules
from customer_service.domain import OrderStatus
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists import exchange, item_change
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store.order_changes import ChangeRefusal

SWAPS = [exchange.RULES, item_change.RULES]


def test_a_swap_that_says_nothing_of_a_state_is_refused_where_it_is_declared() -> None:
    said = dict(exchange.RULES.not_swappable)
    del said[OrderStatus.CANCELLED]
    with pytest.raises(ValueError, match="cancelled"):
        dataclasses.replace(exchange.RULES, not_swappable=said)


@pytest.mark.parametrize("rules", SWAPS, ids=lambda rules: rules.name)
def test_each_state_it_does_not_swap_is_said_with_the_order_number(rules: SwapRules[Any]) -> None:
    for status in set(OrderStatus) - {rules.swappable}:
        said = rules.not_swappable_message("200201", status)
        assert spoken_order_id("200201") in said, status
        assert "{" not in said, status


@pytest.mark.parametrize("rules", SWAPS, ids=lambda rules: rules.name)
def test_an_order_missing_or_not_the_callers_reads_as_not_found(rules: SwapRules[Any]) -> None:
    for refusal in (ChangeRefusal.ORDER_NOT_FOUND, ChangeRefusal.CUSTOMER_NOT_FOUND):
        assert rules.status_refused("200201", refusal) == not_found_message("200201")
    assert rules.status_refused("200201", ChangeRefusal.SAME_ITEM) is None
