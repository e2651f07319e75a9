"""A caller's answer read in code: one rule for a clear yes, a clear no and neither,
used by every question; and a yes to a read-back, whose numbers must be whole numbers
of what was read back."""

from __future__ import annotations

import pytest

from customer_service.call.answers import (
    acknowledgement_only,
    confirms,
    declines_outright,
    polarity,
)

YES, NO, NEITHER = True, False, None
ANSWERS: list[tuple[str, bool | None]] = [
    ("yes", YES),
    ("Yes please", YES),
    ("yeah", YES),
    ("yep", YES),
    ("sure", YES),
    ("sure thing", YES),
    ("of course", YES),
    ("go ahead", YES),
    ("that's right", YES),
    ("thats correct", YES),
    ("Okay, yes", YES),
    ("right, yes", YES),
    ("yes, thanks", YES),
    ("yes, no worries", YES),
    ("yes please, and then I also need my delivery address updated", YES),
    ("Yes. And I want to return an order too.", YES),
    ("no", NO),
    ("nope", NO),
    ("no thanks", NO),
    ("No, thank you.", NO),
    ("that's not right", NO),
    ("okay, no", NO),
    ("all right, no", NO),
    ("don't", NO),
    # Acknowledgements answer nothing, alone or together.
    ("okay", NEITHER),
    ("ok", NEITHER),
    ("okay thanks", NEITHER),
    ("Okay, thank you.", NEITHER),
    ("all right", NEITHER),
    ("alright", NEITHER),
    ("right", NEITHER),
    ("no worries", NEITHER),
    ("no problem", NEITHER),
    ("fine", NEITHER),
    ("great, thank you", NEITHER),
    ("got it", NEITHER),
    ("thanks", NEITHER),
    # Questions, doubt, both at once, a negated yes.
    ("sure thing?", NEITHER),
    ("ok?", NEITHER),
    ("are you sure?", NEITHER),
    ("maybe", NEITHER),
    ("I'm not sure", NEITHER),
    ("why not", NEITHER),
    ("yes and no", NEITHER),
    ("absolutely not", NEITHER),
    ("of course not", NEITHER),
    ("yes please, and I don't know about the other order", NEITHER),
    ("hmm", NEITHER),
    ("", NEITHER),
]


@pytest.mark.parametrize(("said", "reading"), ANSWERS)
def test_every_question_reads_an_answer_by_one_table(said: str, reading: bool | None) -> None:
    assert polarity(said) is reading


@pytest.mark.parametrize("said", [said for said, _ in ANSWERS if acknowledgement_only(said)])
def test_an_acknowledgement_alone_is_never_an_answer(said: str) -> None:
    assert polarity(said) is None


def test_the_acknowledgements_the_table_holds() -> None:
    acknowledgements = {said for said, _ in ANSWERS if acknowledgement_only(said)}
    assert {"okay thanks", "all right", "alright", "right", "no worries", "fine"} <= (
        acknowledgements
    )


@pytest.mark.parametrize(("said", "reading"), ANSWERS)
def test_a_read_back_is_confirmed_only_by_a_clear_yes(said: str, reading: bool | None) -> None:
    assert confirms(said, read_back="100102") is (reading is YES)


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


PAYPAL_READ_BACK = (
    "Order 2 0 0, 2 0 2's 72 dollars will be charged to your PayPal account instead. You "
    "get 72 dollars back. It goes back onto your gift card straight away. Shall I make "
    "this change? Please say yes or no."
)


@pytest.mark.parametrize(
    ("answer", "names", "confirmed"),
    [
        ("yes, the gift card", "your PayPal account", False),
        ("yes, on my Visa", "your PayPal account", False),
        ("yes, the credit card", "your gift card, which has 40 dollars on it", False),
        ("yes, the card", "your PayPal account", False),
        ("yes, in black", "size: M, color: blue", False),
        ("yes, the small ones", "size: M, color: blue", False),
        ("yes, PayPal please", "your PayPal account", True),
        ("yes, the gift card", "your gift card, which has 40 dollars on it", True),
        ("yes, that card", "your Visa card ending in 4 2 4 2", True),
        ("yes, in grey", "color: gray", True),
        ("yes please", "your PayPal account", True),
    ],
)
def test_a_yes_that_names_another_method_or_item_than_the_read_back_is_a_correction(
    answer: str, names: str, confirmed: bool
) -> None:
    # What the change chooses is what the answer may name: the read-back also names the
    # gift card, as where the old payment goes back, and that is not what is chosen.
    assert confirms(answer, read_back=PAYPAL_READ_BACK, names=names) is confirmed
    assert confirms(answer, read_back=names) is confirmed
