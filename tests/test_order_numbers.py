"""Order numbers in both forms, the demo's six digits and τ²-bench's "#W" and seven:
heard, normalised, checked, said and masked by one definition (`order_numbers`)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from customer_service.call.duplicates import request_key
from customer_service.domain import Order
from customer_service.offline_llm.heard_order_numbers import (
    find_order_number,
    find_order_number_read_out,
)
from customer_service.order_numbers import (
    is_order_id,
    normalize_order_id,
    order_id_from_digits,
    order_number_in,
    spoken_order_id,
    written_order_ids,
)
from customer_service.privacy import mask_free_text
from customer_service.settings import Settings
from customer_service.specialists.order_lookup import (
    INVALID_ORDER_NUMBER,
    OrderLookupResult,
    not_found_message,
)
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, check_identity, tool_outputs
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay


@pytest.mark.parametrize(
    ("said", "order_id"),
    [
        # The demo's six digits, as today.
        ("200202", "200202"),
        ("200 202", "200202"),
        ("200-202", "200202"),
        ("two zero zero two zero two", "200202"),
        ("two double zero, two oh two", "200202"),
        ("order number 200202", "200202"),
        ("one zero zero one zero one", "100101"),
        ("1 0 0 1 0 1", "100101"),
        ("order 100101 please", "100101"),
        ("two double zero two zero one", "200201"),
        # A w inside a word is no W.
        ("new order 200202", "200202"),
        # The benchmark's W and seven digits, the W written, said or left out.
        ("#W2378156", "#W2378156"),
        ("W2378156", "#W2378156"),
        ("w2378156", "#W2378156"),
        ("w 237 8156", "#W2378156"),
        ("# W 237-8156", "#W2378156"),
        ("double-u two three seven eight one five six", "#W2378156"),
        ("double you, two three seven, eight one five six", "#W2378156"),
        ("number W2378156", "#W2378156"),
        ("it's W two three seven eight one five six", "#W2378156"),
        ("order number W 2 3 7, 8 1 5 6", "#W2378156"),
        # Seven bare digits can only be the benchmark's form.
        ("2378156", "#W2378156"),
        ("two three seven eight one five six", "#W2378156"),
        # "three" counts and "hundred" does not: seven digits, so the benchmark's form.
        ("three hundred, no, three zero zero three zero one", "#W3300301"),
        ("1001011", "#W1001011"),
    ],
)
def test_what_a_caller_or_a_model_says_becomes_the_canonical_number(
    said: str, order_id: str
) -> None:
    assert normalize_order_id(said) == order_id


@pytest.mark.parametrize(
    "said",
    [
        "12345",
        "ORD-7",
        "",
        "my order",
        "order 100101 or 100102",
        # Six digits after a W, or a W with the wrong count, are no order number.
        "W200202",
        "double-u 200 202",
        "#W23781560",
        "W 12345",
    ],
)
def test_what_names_no_order_number_is_none(said: str) -> None:
    assert normalize_order_id(said) is None


@pytest.mark.parametrize(
    ("digits", "order_id"),
    [("200202", "200202"), ("2378156", "#W2378156"), ("20020", None), ("23781560", None)],
)
def test_keyed_digits_name_the_order_their_count_says(digits: str, order_id: str | None) -> None:
    assert order_id_from_digits(digits) == order_id


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("200202", True),
        ("#W2378156", True),
        ("W2378156", False),
        ("2378156", False),
        ("#W200202", False),
        ("20020", False),
        ("200202\n", False),
        ("#w2378156", False),
    ],
)
def test_only_the_canonical_forms_are_order_numbers(value: str, valid: bool) -> None:
    assert is_order_id(value) is valid


def order_record(order_id: str) -> dict[str, Any]:
    return {
        "order_id": order_id,
        "customer_id": "c1",
        "status": "pending",
        "items": [{"name": "Yoga mat", "quantity": 1}],
        "placed_on": "2026-11-02",
        "shipping_address": {
            "street": "500 Howard St",
            "city": "San Francisco",
            "region": "CA",
            "postal_code": "94107",
            "country": "US",
        },
    }


@pytest.mark.parametrize("order_id", ["200202", "#W2378156"])
def test_records_hold_either_form(order_id: str) -> None:
    assert Order.model_validate(order_record(order_id)).order_id == order_id
    assert OrderLookupResult.model_validate(order_record(order_id)).order_id == order_id


@pytest.mark.parametrize("order_id", ["2378156", "W2378156", "#W200202", "20020"])
def test_records_refuse_any_other_form(order_id: str) -> None:
    with pytest.raises(ValidationError):
        Order.model_validate(order_record(order_id))


@pytest.mark.parametrize(
    ("order_id", "said"),
    [("200202", "2 0 0, 2 0 2"), ("100101", "1 0 0, 1 0 1"), ("#W2378156", "W 2 3 7, 8 1 5 6")],
)
def test_the_agent_reads_a_number_out_in_groups(order_id: str, said: str) -> None:
    assert spoken_order_id(order_id) == said
    # What the agent reads out is heard back as the same number.
    assert normalize_order_id(said) == order_id


@pytest.mark.parametrize(
    ("line", "words", "order_id"),
    [
        ("Where is order 100101?", "100101", "100101"),
        ("it's one double oh, one oh one", "one double oh, one oh one", "100101"),
        (
            "it's W two three seven eight one five six",
            "W two three seven eight one five six",
            "#W2378156",
        ),
        ("double-u two three seven, eight one five six", None, "#W2378156"),
        ("where is #W2378156 please", "#W2378156", "#W2378156"),
        ("order w 237 8156", "w 237 8156", "#W2378156"),
        ("double-u 2378156 is late", "double-u 2378156", "#W2378156"),
    ],
)
def test_the_offline_model_hears_a_number_inside_a_sentence(
    line: str, words: str | None, order_id: str
) -> None:
    found = find_order_number(line)
    assert found is not None
    assert (found.span.text, found.order_id) == (words or line, order_id)


@pytest.mark.parametrize(
    "line",
    [
        # Seven digits with no W may be a phone number's last seven.
        "my number is 555 0134",
        "Jordan Lee, 94107, 415 555 0134",
        "a W with six digits: W 200202",
    ],
)
def test_the_offline_model_hears_no_number_where_none_is_said(line: str) -> None:
    assert find_order_number(line) is None


@pytest.mark.parametrize("order_id", ["100101", "#W2378156"])
def test_the_offline_model_hears_the_agents_own_read_out(order_id: str) -> None:
    line = f"Order {spoken_order_id(order_id)}, placed on November second, is processing."
    found = find_order_number_read_out(line)
    assert found is not None
    assert found.order_id == order_id


@pytest.mark.parametrize(
    ("choice", "order_id"),
    [("the first one, 100101", "100101"), ("that one, W 237 8156", "#W2378156")],
)
def test_a_number_said_in_a_choice_of_order_is_read_as_one(choice: str, order_id: str) -> None:
    assert order_number_in(choice) == order_id


@pytest.mark.parametrize(
    ("text", "order_ids"),
    [
        ("orders 100101 and #W2378156", ["100101", "#W2378156"]),
        ("It's 100 102, or w 237 8156.", ["100102", "#W2378156"]),
        # Six digits of a longer number, or seven with no W, are none.
        ("call 415 555 0134", []),
        ("it's 2378156", []),
    ],
)
def test_order_numbers_written_among_other_words(text: str, order_ids: list[str]) -> None:
    assert written_order_ids(text) == order_ids


def test_the_same_number_in_two_forms_is_one_request() -> None:
    def key(order_id: str) -> str:
        return request_key("lookup_order", {"order_id": order_id})

    assert (
        key("#W2378156") == key("w 237 8156") == key("double-u two three seven eight one five six")
    )
    assert key("200202") == key("200 202")
    assert key("#W2378156") != key("#W2378157")


# Masked text keeps an order number in either form readable, as said whole or as the agent
# reads it out; seven digits with no W may be a phone number and are masked.
@pytest.mark.parametrize(
    "text",
    [
        "order 100101",
        "order 1 0 0, 1 0 1, placed on November second",
        "order #W2378156",
        "order W2378156 has shipped",
        "order W 2 3 7, 8 1 5 6, placed on November second, is processing",
        "I couldn't find an order with the number W 2 3 7, 8 1 5 6 on your account.",
        "it's W two three seven eight one five six",
        "it's double-u two three seven, eight one five six",
        "orders W 237 8156 and W 1 2 3, 4 5 6 7",
        "orders #W2378156, 100102 and W2378157",
    ],
)
def test_masking_keeps_order_numbers_readable(text: str) -> None:
    assert mask_free_text(text, names=["Jordan Lee"], details=["94107"]) == text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        # No W: seven digits are masked as a phone number is.
        ("call 555 0134", "call *******0134"),
        ("two three seven eight one five six", "*******8156"),
        # A W before more than seven digits, or a code with more letters, is no order.
        ("W 415 555 0134", "W *******0134"),
        ("UPS 1Z999AA10123456784", "UPS *******6784"),
        ("WW2378156", "*******8156"),
        # A known detail next to a W is masked all the same.
        ("W 94107, 12", "W ***"),
    ],
)
def test_masking_still_masks_what_is_no_order_number(text: str, masked: str) -> None:
    assert mask_free_text(text, details=["94107"]) == masked


async def test_a_w_number_said_by_voice_reaches_the_store_canonical_and_reads_like_any_miss(
    settings: Settings,
) -> None:
    """The caller says a benchmark number in words; the store is asked for "#W2378156"
    and, holding no such order, the caller hears the sentence an unknown six-digit number
    gets."""
    said = "it's W two three seven eight one five six"
    model = ScriptedLLM(
        [
            Call("lookup_order"),
            check_identity(JORDAN),
            Call("lookup", {"order_id": said}),
            relay,
            Call("lookup", {"order_id": "999999"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        store = session.userdata.store
        read = store.read_order_for_disclosure
        asked_for: list[str] = []

        async def spied_read(order_id: str, customer_id: str, *rest: Any) -> Any:
            asked_for.append(order_id)
            return await read(order_id, customer_id, *rest)

        store.read_order_for_disclosure = spied_read  # type: ignore[method-assign]
        await session.run(user_input="I want to check on an order")
        await session.run(user_input=JORDAN_SAYS)

        w_miss = await session.run(user_input=said)
        w_miss.expect.next_event().is_function_call(name="lookup", arguments={"order_id": said})
        refusal = w_miss.expect.next_event().is_function_call_output(is_error=True)
        assert refusal.event().item.output == not_found_message("#W2378156")
        assert agent_lines(session)[-1] == not_found_message("#W2378156")

        await session.run(user_input="999999")
        assert agent_lines(session)[-1] == not_found_message("999999")
        assert asked_for == ["#W2378156", "999999"]

        def anonymised(line: str, order_id: str) -> str:
            return line.replace(spoken_order_id(order_id), "<order>")

        w_line, six_line = agent_lines(session)[-2:]
        assert anonymised(w_line, "#W2378156") == anonymised(six_line, "999999")
        assert INVALID_ORDER_NUMBER not in agent_lines(session)
        assert not tool_outputs(session, "lookup_order")
        assert session.userdata.order_lookup_failures == 2
    assert not model.overran
