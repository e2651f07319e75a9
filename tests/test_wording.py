"""Numbers are read out so that a listener can write them down."""

from __future__ import annotations

import pytest

from customer_service.call.wording import spaced_digits


@pytest.mark.parametrize(
    ("number", "read_out"),
    [
        ("100101", "1 0 0, 1 0 1"),
        ("1Z999AA10123456784", "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4"),
        ("1234567", "1 2 3, 4 5 6, 7"),
        ("12", "1 2"),
    ],
)
def test_numbers_are_read_one_character_at_a_time_in_groups_of_three(
    number: str, read_out: str
) -> None:
    assert spaced_digits(number) == read_out
