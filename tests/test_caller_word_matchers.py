"""The matchers that read callers' everyday words: digits in spoken emails, sizes and
capacities said in words or digits, everyday names and broader words for the catalog's
products (derived from τ²-bench's catalog, not listed), and option words that pick
among orders and items."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from benchmarks.tau2.data import DEFAULT_DB, load_json

from customer_service.domain import Order, OrderItem, OrderStatus, PostalAddress
from customer_service.normalize import emails_match, normalize_email
from customer_service.offline_llm.fields import find_emails
from customer_service.offline_llm.identity_details import details_in
from customer_service.offline_llm.item_choice import ListedItem, ListedVariant, variant_described
from customer_service.order_choice import fitting_orders, read_choice
from customer_service.spoken.item_words import EVERYDAY_WORDS, name_words, names_item
from customer_service.spoken.numbers import numerals

CATALOG = [product["name"] for product in load_json(DEFAULT_DB)["products"].values()]


@pytest.mark.parametrize(
    "said",
    [
        "sofia dot ito three eight seven seven at example dot com",
        "sofia dot ito 3 8 7 7 at example dot com",
        "sofia dot ito thirty eight seventy seven at example dot com",
        "sofia dot ito 3877 at example dot com",
        "s o f i a dot i t o 3 8 7 7 at example dot com",
    ],
)
def test_digits_in_a_spoken_email_are_read_as_digits(said: str) -> None:
    assert normalize_email(said) == "sofia.ito3877@example.com"
    assert emails_match(said, "sofia.ito3877@example.com")
    assert details_in(f"my email is {said}").phone_or_email == find_emails(said)[0].text
    assert normalize_email(details_in(said).phone_or_email or "") == "sofia.ito3877@example.com"


def test_a_double_digit_in_a_spoken_email() -> None:
    assert normalize_email("lee double five at example dot com") == "lee55@example.com"


def test_an_email_without_digits_keeps_its_number_like_letters() -> None:
    assert normalize_email("oh dot no at example dot com") == "oh.no@example.com"
    assert normalize_email("someone at example dot com") == "someone@example.com"


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("size ten", "size 10"),
        ("size 10", "size 10"),
        ("the fifty foot one", "the 50 foot one"),
        ("seven hundred fifty ml", "750 ml"),
        ("the 750 one", "the 750 one"),
        ("twenty five feet", "25 feet"),
    ],
)
def test_numbers_said_in_words_are_written_in_digits(said: str, written: str) -> None:
    assert numerals(said) == written


def _item(options: dict[str, str], variants: list[tuple[str, dict[str, str], bool]]) -> ListedItem:
    return ListedItem(
        "1",
        "Thing",
        1,
        options,
        Decimal(10),
        tuple(ListedVariant(i, o, Decimal(10), a) for i, o, a in variants),
    )


BOTTLE = _item(
    {"capacity": "1000ml", "material": "glass", "color": "blue"},
    [
        ("1", {"capacity": "1000ml", "material": "glass", "color": "blue"}, True),
        ("2", {"capacity": "750ml", "material": "glass", "color": "blue"}, True),
        ("3", {"capacity": "500ml", "material": "glass", "color": "blue"}, True),
        ("4", {"capacity": "750ml", "material": "plastic", "color": "blue"}, True),
    ],
)
HOSE = _item(
    {"length": "25ft", "color": "green"},
    [
        ("1", {"length": "25ft", "color": "green"}, True),
        ("5", {"length": "50ft", "color": "green"}, True),
    ],
)
SHOES = _item(
    {"size": "9", "color": "black"},
    [("1", {"size": "9", "color": "black"}, True), ("6", {"size": "10", "color": "black"}, True)],
)


@pytest.mark.parametrize(
    ("item", "said", "chosen"),
    [
        (BOTTLE, "the 750 one", "2"),
        (BOTTLE, "the seven hundred fifty ml one", "2"),
        (BOTTLE, "750ml please", "2"),
        (HOSE, "the fifty foot one", "5"),
        (HOSE, "the 50 ft one", "5"),
        (SHOES, "size ten", "6"),
        (SHOES, "a size 10", "6"),
    ],
)
def test_sizes_and_capacities_in_words_and_digits_pick_the_variant(
    item: ListedItem, said: str, chosen: str
) -> None:
    found = variant_described(item, said)
    assert isinstance(found, ListedVariant)
    assert found.item_id == chosen


@pytest.mark.parametrize(
    ("said", "product"),
    [
        ("watch", "Wristwatch"),
        ("glasses", "Sunglasses"),
        ("buds", "Wireless Earbuds"),
        ("phone", "Smartphone"),
        ("bike", "Bicycle"),
        ("shirt", "T-Shirt"),
        ("tshirt", "T-Shirt"),
        ("helmet", "Cycling Helmet"),
        ("kettle", "Tea Kettle"),
        ("shoes", "Sneakers"),
        ("boots", "Hiking Boots"),
        ("speakers", "Bluetooth Speaker"),
    ],
)
def test_everyday_names_and_broader_words_name_a_catalog_product(said: str, product: str) -> None:
    assert product in CATALOG
    assert names_item(said, product)


@pytest.mark.parametrize(("said", "product"), [("watch", "Wall Clock"), ("bike", "Skateboard")])
def test_an_everyday_name_does_not_name_another_product(said: str, product: str) -> None:
    assert not names_item(said, product)


def test_every_catalog_name_is_matched_by_its_own_words_without_a_list() -> None:
    for product in CATALOG:
        assert all(names_item(word, product) for word in name_words(product))
    # The everyday words are general English: none of them is a catalog product's name.
    assert not set(EVERYDAY_WORDS) & {name.lower() for name in CATALOG}


def test_an_option_word_names_an_item_only_when_options_count() -> None:
    helmet = {"size": "L", "color": "blue"}
    assert names_item("blue", "Cycling Helmet", helmet)
    assert names_item("large", "Cycling Helmet", helmet)
    assert not names_item("blue", "Cycling Helmet")
    assert not names_item("red", "Cycling Helmet", helmet)


def _order(
    order_id: str, name: str, options: dict[str, str], status: OrderStatus = OrderStatus.PENDING
) -> Order:
    return Order(
        order_id=order_id,
        customer_id="c",
        status=status,
        items=(OrderItem(name=name, options=options),),
        shipping_address=PostalAddress(
            street="1 Main St", city="Austin", region="TX", postal_code="78701", country="US"
        ),
        placed_on=dt.date(2026, 11, 2),
    )


BLUE = _order("#W1000001", "Cycling Helmet", {"size": "S", "color": "blue"})
BLACK = _order(
    "#W1000002", "Cycling Helmet", {"size": "L", "color": "black"}, OrderStatus.DELIVERED
)
GONE = _order("#W1000003", "Cycling Helmet", {"size": "M", "color": "red"}, OrderStatus.CANCELLED)


@pytest.mark.parametrize(
    ("said", "picked"),
    [("the blue one", BLUE), ("the black helmet", BLACK), ("the large one", BLACK)],
)
def test_option_words_pick_among_orders(said: str, picked: Order) -> None:
    assert fitting_orders(read_choice(said), [BLUE, BLACK]) == [picked]


def test_a_cancelled_order_gives_way_to_a_live_one_of_the_same_item() -> None:
    assert fitting_orders(read_choice("the helmet"), [GONE, BLUE]) == [BLUE]
    assert fitting_orders(read_choice("the cancelled helmet"), [GONE, BLUE]) == [GONE]
    assert fitting_orders(read_choice("the helmet"), [GONE]) == [GONE]
