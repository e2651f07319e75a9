"""A yes read in code: numbers said with it must be whole numbers of what was read back."""

from __future__ import annotations

import pytest

from customer_service.call.answers import confirms, declines_outright

ADDRESS_READ_BACK = "500 Howard St, Apt 4B, San Francisco, CA 94107, United States"


@pytest.mark.parametrize(
    "answer",
    [
        "yes",
        "Oh yes, please",
        "yes, 100102",
        "yes, 100-102",
        "Yes, one zero zero one zero two",
        "yes, cancel order one double zero, one oh two",
    ],
)
def test_a_yes_with_the_whole_order_number_or_none_confirms(answer: str) -> None:
    assert confirms(answer, read_back="100102")


@pytest.mark.parametrize(
    "answer",
    [
        "yes, 102",
        "yes 0",
        "yes, cancel order 10",
        "yes, one oh two",
        "yes, zero",
        "yes, 100101",
        "yes, 1001021",
    ],
)
def test_a_yes_with_part_of_a_number_or_another_number_confirms_nothing(answer: str) -> None:
    assert not confirms(answer, read_back="100102")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("yes, 94107", True),
        ("yes, 500 Howard Street, 94107", True),
        ("Yes, 500 Howard, apartment 4B, nine four one oh seven", True),
        ("yes, 941", False),
        ("yes, 94108", False),
        ("yes, 94107, 500 Howard", False),
    ],
)
def test_numbers_in_a_yes_to_an_address_are_its_own_in_its_order(
    answer: str, expected: bool
) -> None:
    assert confirms(answer, read_back=ADDRESS_READ_BACK) is expected


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("Stop sending me those texts", True),
        ("please dont text me", True),
        ("I do not want to be recorded", True),
        ("opt me out of the texts", True),
        ("quit messaging me", True),
        ("can you stop texting me?", True),
        ("sign me up for texts", False),
        ("yes please", False),
        ("texts would be great", False),
    ],
)
def test_a_no_said_outright_is_read_from_the_callers_words(said: str, expected: bool) -> None:
    assert declines_outright(said) is expected
