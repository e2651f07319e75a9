"""The key a calling line's failed checks are stored under: no number in clear, and no
number found again without the deployment's secret."""

from __future__ import annotations

import hashlib

from customer_service.store.line_failures import line_key

NUMBER = "+1 (415) 555-0134"


def test_a_line_is_keyed_by_its_digits_whatever_their_shape() -> None:
    assert line_key(NUMBER, "s3cret") == line_key("14155550134", "s3cret")
    assert line_key("no digits here", "s3cret") is None


def test_without_the_secret_trying_numbers_does_not_find_the_line() -> None:
    key = line_key(NUMBER, "s3cret")
    assert key is not None
    assert "14155550134" not in key
    assert key != line_key(NUMBER, "another deployment's secret")
    assert key != line_key(NUMBER, "")
    # The plain digest of the digits, what a guesser would try first, is not it either.
    assert key != hashlib.sha256(b"14155550134").hexdigest()
