"""The address specialist: reading an address, the read-back, and corrections of one part."""

from __future__ import annotations

from typing import Any

import pytest
from livekit.agents import llm

from customer_service.addresses import AddressProblem, validated_address
from support.offline_chat import (
    ADDRESS,
    ADDRESS_QUESTION,
    agent,
    answer,
    called,
    said,
    tool_round,
    user,
)


@pytest.mark.parametrize(
    ("line", "arguments"),
    [
        (
            "500 Market Street, Apt 4, San Francisco, CA 94105",
            {
                "street": "500 Market Street",
                "unit": "Apt 4",
                "city": "San Francisco",
                "region": "CA",
                "postal_code": "94105",
                "country": "US",
            },
        ),
        (
            "My new address is 12 Main St, Springfield, Illinois, 62701, USA",
            {
                "street": "12 Main St",
                "city": "Springfield",
                "region": "Illinois",
                "postal_code": "62701",
                "country": "US",
            },
        ),
        (
            "Calle Mayor 5, Madrid, Madrid 28013, Spain",
            {
                "street": "Calle Mayor 5",
                "city": "Madrid",
                "region": "Madrid",
                "postal_code": "28013",
                "country": "ES",
            },
        ),
        (
            "1 Market Street, Suite 5, San Francisco, CA 94105",
            {
                "street": "1 Market Street",
                "unit": "Suite 5",
                "city": "San Francisco",
                "region": "CA",
                "postal_code": "94105",
                "country": "US",
            },
        ),
        (
            "1 Market Street, San Francisco CA 94105",
            {
                "street": "1 Market Street",
                "city": "San Francisco",
                "region": "CA",
                "postal_code": "94105",
                "country": "US",
            },
        ),
        # In their usual spoken order: the postcode before the city, the country last.
        (
            "Calle de Alcalá 45, 28014 Madrid, Spain",
            {
                "street": "Calle de Alcalá 45",
                "city": "Madrid",
                "region": "",
                "postal_code": "28014",
                "country": "ES",
            },
        ),
        (
            "Calle de Alcalá 45, 2º izquierda, 28014 Madrid, España",
            {
                "street": "Calle de Alcalá 45",
                "unit": "2º izquierda",
                "city": "Madrid",
                "region": "",
                "postal_code": "28014",
                "country": "ES",
            },
        ),
        (
            "Carrer de Pau Claris 1, 08201 Sabadell, Barcelona, Spain",
            {
                "street": "Carrer de Pau Claris 1",
                "city": "Sabadell",
                "region": "Barcelona",
                "postal_code": "08201",
                "country": "ES",
            },
        ),
        (
            "Unter den Linden 77, 10117 Berlin, Germany",
            {
                "street": "Unter den Linden 77",
                "city": "Berlin",
                "region": "",
                "postal_code": "10117",
                "country": "DE",
            },
        ),
        (
            "55 Rue du Faubourg Saint-Honoré, 75008 Paris, France",
            {
                "street": "55 Rue du Faubourg Saint-Honoré",
                "city": "Paris",
                "region": "",
                "postal_code": "75008",
                "country": "FR",
            },
        ),
        (
            "10 Downing Street, London SW1A 2AA, United Kingdom",
            {
                "street": "10 Downing Street",
                "city": "London",
                "region": "",
                "postal_code": "SW1A 2AA",
                "country": "GB",
            },
        ),
        (
            "24 Sussex Drive, Ottawa, Ontario K1M 1M4, Canada",
            {
                "street": "24 Sussex Drive",
                "city": "Ottawa",
                "region": "Ontario",
                "postal_code": "K1M 1M4",
                "country": "CA",
            },
        ),
        # Without the country a postcode before the city is not taken for a US ZIP code:
        # the tool asks for the country.
        (
            "Calle de Alcalá 45, 28014 Madrid",
            {
                "street": "Calle de Alcalá 45",
                "city": "Madrid",
                "region": "",
                "postal_code": "28014",
                "country": "",
            },
        ),
    ],
)
async def test_address_is_recorded(line: str, arguments: dict[str, str]) -> None:
    assert called(await answer(ADDRESS, user(line))) == ("record_address", arguments)


@pytest.mark.parametrize(
    ("line", "arguments"),
    [
        (
            "it's 1 market street suite 5 san francisco california 9 4 1 0 5",
            {
                "street": "1 Market Street",
                "unit": "Suite 5",
                "city": "San Francisco",
                "region": "California",
                "postal_code": "9 4 1 0 5",
                "country": "US",
            },
        ),
        (
            "it's one market street suite five san francisco california nine four one oh five",
            {
                "street": "1 Market Street",
                "unit": "Suite 5",
                "city": "San Francisco",
                "region": "California",
                "postal_code": "nine four one oh five",
                "country": "US",
            },
        ),
        (
            "25 5th Avenue New York NY 10003",
            {
                "street": "25 5th Avenue",
                "city": "New York",
                "region": "NY",
                "postal_code": "10003",
                "country": "US",
            },
        ),
        (
            "25 5th avenue apt 4b new york new york 10003 usa",
            {
                "street": "25 5th Avenue",
                "unit": "Apt 4b",
                "city": "New York",
                "region": "New York",
                "postal_code": "10003",
                "country": "US",
            },
        ),
        (
            "1 St Johns Road Oxford OX1 2AB",
            {
                "street": "1 St Johns Road",
                "city": "Oxford",
                "region": "",
                "postal_code": "OX1 2AB",
                "country": "GB",
            },
        ),
    ],
)
async def test_an_address_said_without_pauses_is_recorded(
    line: str, arguments: dict[str, str]
) -> None:
    assert called(await answer(ADDRESS, user(line))) == ("record_address", arguments)


@pytest.mark.parametrize(
    ("line", "postal_code"),
    [
        ("1 Market Street, San Francisco, CA 9410", "9410"),
        ("1 Market Street, San Francisco, CA 941050, USA", "941050"),
    ],
)
async def test_a_misshapen_zip_is_passed_on_for_the_tool_to_judge(
    line: str, postal_code: str
) -> None:
    name, arguments = called(await answer(ADDRESS, user(line)))
    assert (name, arguments["postal_code"], arguments["region"]) == (
        "record_address",
        postal_code,
        "CA",
    )


@pytest.mark.parametrize(
    "line",
    [
        "sorry, it's 94105",
        "500 Market St, Apt 400",
        "500 Market St, Apt 400, San Francisco",
        "Market Street, 94105",
    ],
)
async def test_not_a_whole_address_asks_for_one(line: str) -> None:
    assert said(await answer(ADDRESS, user(line))) == ADDRESS_QUESTION


RECORDED: dict[str, Any] = {
    "street": "500 Market Street",
    "city": "San Francisco",
    "region": "CA",
    "postal_code": "94105",
    "country": "US",
}


def read_back() -> list[llm.ChatItem]:
    question = "I have 500 Market Street, San Francisco, CA 94105. Is that right?"
    return [
        user("500 Market Street, San Francisco, CA 94105"),
        *tool_round("record_address", question, **RECORDED),
        agent(question),
    ]


@pytest.mark.parametrize("line", ["yes", "correct", "that's right", "yep", "right, yes"])
async def test_address_yes_after_read_back_confirms(line: str) -> None:
    assert called(await answer(ADDRESS, *read_back(), user(line))) == ("confirm_address", {})


async def test_address_no_after_read_back_asks_again() -> None:
    assert said(await answer(ADDRESS, *read_back(), user("no"))) == (
        "Please tell me the full new address again."
    )


async def test_address_correction_after_read_back_is_recorded() -> None:
    line = "No, it's 501 Market Street, San Francisco, CA 94105"
    name, arguments = called(await answer(ADDRESS, *read_back(), user(line)))
    assert (name, arguments["street"]) == ("record_address", "501 Market Street")


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ("no, the zip is 94103", "postal_code", "94103"),
        ("the city should be Oakland", "city", "Oakland"),
        ("No, the state is Nevada.", "region", "Nevada"),
        ("the unit is Suite 5", "unit", "Suite 5"),
        # A postcode alone can only correct the postcode.
        ("sorry it's 9 4 1 0 3", "postal_code", "9 4 1 0 3"),
        ("no, nine four one oh three", "postal_code", "nine four one oh three"),
    ],
)
async def test_one_part_corrected_after_read_back(line: str, field: str, value: str) -> None:
    response = await answer(ADDRESS, *read_back(), user(line))
    assert called(response) == ("record_address", {**RECORDED, field: value})


def problem_with(**changes: str) -> str:
    arguments = {**RECORDED, **changes}
    with pytest.raises(AddressProblem) as problem:
        validated_address(**arguments)
    return problem.value.message


def problem_reported(**changes: str) -> list[llm.ChatItem]:
    """The caller gave an address with one bad part; the tool said what is wrong."""
    message = problem_with(**changes)
    return [
        user("500 Market Street, San Francisco, CA ..."),
        *tool_round("record_address", message, is_error=True, **{**RECORDED, **changes}),
        agent(message),
    ]


@pytest.mark.parametrize(
    ("changes", "line", "field", "value"),
    [
        ({"postal_code": "9410"}, "sorry, it's 94105", "postal_code", "94105"),
        ({"postal_code": "9410"}, "94105", "postal_code", "94105"),
        (
            {"postal_code": "9410"},
            "nine four one zero five",
            "postal_code",
            "nine four one zero five",
        ),
        # 73301 is in both Texas's and Oklahoma's ranges, so the state is asked for.
        ({"region": "", "postal_code": "73301"}, "Texas", "region", "Texas"),
        ({"region": "Cali"}, "it's California", "region", "California"),
        ({"city": "S4n Francisco"}, "San Francisco", "city", "San Francisco"),
        ({"country": "Atlantis"}, "United States", "country", "United States"),
    ],
)
async def test_the_part_the_tool_asked_about_is_corrected(
    changes: dict[str, str], line: str, field: str, value: str
) -> None:
    response = await answer(ADDRESS, *problem_reported(**changes), user(line))
    assert called(response) == ("record_address", {**RECORDED, **changes, field: value})


async def test_a_whole_address_after_a_problem_replaces_it() -> None:
    line = "1 Market Street, San Francisco, CA 94105"
    response = await answer(ADDRESS, *problem_reported(postal_code="9410"), user(line))
    name, arguments = called(response)
    assert (name, arguments["street"], arguments["postal_code"]) == (
        "record_address",
        "1 Market Street",
        "94105",
    )


@pytest.mark.parametrize("line", ["yes", "what do you mean?", "hmm"])
async def test_no_usable_answer_to_a_problem_asks_for_the_address(line: str) -> None:
    response = await answer(ADDRESS, *problem_reported(postal_code="9410"), user(line))
    assert said(response) == ADDRESS_QUESTION


async def test_a_problem_about_no_part_needs_the_whole_address() -> None:
    message = "The address has changed since I read it back. Please listen to the new read-back."
    items = [
        user("500 Market Street, San Francisco, CA 94105"),
        *tool_round("record_address", message, is_error=True, **RECORDED),
        agent(message),
    ]
    assert said(await answer(ADDRESS, *items, user("94105"))) == ADDRESS_QUESTION


async def test_address_yes_without_read_back_asks_for_the_address() -> None:
    assert said(await answer(ADDRESS, user("yes"))) == ADDRESS_QUESTION


async def test_address_give_up() -> None:
    assert called(await answer(ADDRESS, *read_back(), user("forget it"))) == ("give_up", {})


# --- an address said before the specialist started ----------------------------------------

UP_FRONT = (
    "Jordan Lee, 94107, jordan.lee@example.com. Please change the delivery address of "
    "order 100102 to 500 Market Street, San Francisco, CA 94105"
)
RECORDED_LINE = "500 Market Street, San Francisco, CA 94105"


async def test_an_address_in_the_request_is_recorded_on_entry() -> None:
    # What the specialist's first turn sees: the request, and the supervisor's tool that
    # started it, still running (another agent's work, not to be relayed).
    running = tool_round("update_address", "The tool call is still in progress.")
    response = await answer(ADDRESS, user(UP_FRONT), *running)
    assert called(response) == ("record_address", RECORDED)


async def test_an_address_said_before_the_identity_questions_is_recorded() -> None:
    items = [
        user(f"I'm Jordan Lee. Please send order 100102 to {RECORDED_LINE}"),
        agent("To verify your identity, please tell me the postal code and email."),
        user("94107, jordan.lee@example.com"),
    ]
    assert called(await answer(ADDRESS, *items)) == ("record_address", RECORDED)


async def test_an_earlier_address_is_not_recorded_again_after_a_read_back() -> None:
    items = [user(f"Please change the address to {RECORDED_LINE}"), *read_back()[1:]]
    assert said(await answer(ADDRESS, *items, user("hmm"))) == ADDRESS_QUESTION


@pytest.mark.parametrize(
    "line",
    [
        "1 Market Street, Suite 5, San Francisco, CA 94110 no wait 94105",
        "1 Market Street, Suite 5, San Francisco, CA 94110, sorry, I mean 94105",
        "1 Market Street, Suite 5, San Francisco, CA 94110. Actually, it's 94105",
        "1 Market Street Suite 5 San Francisco CA 94110 no wait 94105",
        "1 Market Street, Suite 5, Oakland, CA 94110, no wait, I mean "
        "1 Market Street, Suite 5, San Francisco, CA 94105",
    ],
)
async def test_a_correction_inside_the_address_line_is_recorded(line: str) -> None:
    assert called(await answer(ADDRESS, user(line))) == (
        "record_address",
        {
            "street": "1 Market Street",
            "unit": "Suite 5",
            "city": "San Francisco",
            "region": "CA",
            "postal_code": "94105",
            "country": "US",
        },
    )


async def test_a_correction_inside_the_address_line_that_is_not_understood_is_not_recorded() -> (
    None
):
    reply = await answer(ADDRESS, user("1 Market Street, San Francisco, CA 94110 no wait Oakland"))
    assert said(reply) == ADDRESS_QUESTION


@pytest.mark.parametrize(
    ("line", "street"),
    [
        ("five hundred Howard Street, San Francisco, CA 94105", "500 Howard Street"),
        ("twelve hundred Howard Street, San Francisco, CA 94105", "1200 Howard Street"),
        ("five hundred and twenty Howard Street, San Francisco, CA 94105", "520 Howard Street"),
        ("two thousand five Howard Street, San Francisco, CA 94105", "2005 Howard Street"),
        ("twenty-five hundred Howard Street, San Francisco, CA 94105", "2500 Howard Street"),
        ("it's one thousand Howard Street, San Francisco, CA 94105", "1000 Howard Street"),
        ("five hundred howard street san francisco california 94105", "500 Howard Street"),
    ],
)
async def test_a_house_number_said_in_hundreds_or_thousands_is_written_in_digits(
    line: str, street: str
) -> None:
    name, arguments = called(await answer(ADDRESS, user(line)))
    assert (name, arguments["street"], arguments["postal_code"]) == (
        "record_address",
        street,
        "94105",
    )


async def test_a_house_number_with_more_number_words_after_hundred_is_left_as_said() -> None:
    # "five hundred one oh one" could be 501 01 or 500 101: not guessed.
    line = "five hundred one oh one Howard Street, San Francisco, CA 94105"
    name, arguments = called(await answer(ADDRESS, user(line)))
    assert (name, arguments["street"]) == (
        "record_address",
        "five hundred one oh one Howard Street",
    )


async def test_a_named_part_corrected_inside_the_address_line_is_recorded() -> None:
    line = "1 Market Street, San Francisco, CA 94105, sorry, the city is Oakland"
    assert called(await answer(ADDRESS, user(line))) == (
        "record_address",
        {
            "street": "1 Market Street",
            "city": "Oakland",
            "region": "CA",
            "postal_code": "94105",
            "country": "US",
        },
    )
