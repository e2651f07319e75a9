"""Items and versions named by what they are (`offline_llm/item_choice.py`), among what
the swap listing of `call.item_swaps` gives a specialist's model: the demo's products and
a keyboard shaped like τ²-bench's, whose options are words."""

from __future__ import annotations

from decimal import Decimal

import pytest

from customer_service.call.item_swaps import SwapChoices, swap_listing
from customer_service.call.order_view import OrderLookupResult
from customer_service.domain import OrderItem, Product, Variant
from customer_service.offline_llm.item_choice import (
    ListedItem,
    ListedVariant,
    Several,
    Unavailable,
    item_segments,
    items_named,
    listed_items,
    paid_with,
    variant_described,
)
from customer_service.store.demo_catalog import DEMO_PRODUCTS
from support.clock import DEMO_ORDERS


def _keyboard(item_id: str, switches: str, backlight: str, available: bool = True) -> Variant:
    options = {"switch type": switches, "backlight": backlight, "size": "full size"}
    return Variant(
        item_id=item_id,
        product_id="1656367028",
        options=options,
        available=available,
        price=Decimal("150.00"),
    )


KEYBOARD = Product(
    product_id="1656367028",
    name="Mechanical Keyboard",
    variants=(
        _keyboard("9690244451", "linear", "RGB"),
        _keyboard("7706410293", "clicky", "none"),
        _keyboard("6342039236", "clicky", "white"),
        _keyboard("1151293680", "tactile", "RGB", available=False),
    ),
)


def _listing(order_id: str, *extra: tuple[OrderItem, Product]) -> str:
    order = next(order for order in DEMO_ORDERS if order.order_id == order_id)
    items = (*order.items, *(item for item, _ in extra))
    view = OrderLookupResult.from_order(order.model_copy(update={"items": items}))
    products = {product.product_id: product for product in DEMO_PRODUCTS}
    products |= {product.product_id: product for _, product in extra}
    return swap_listing(
        SwapChoices(order=view, products=products, methods=(), paid_with="paypal_9000201")
    )


LINEAR = KEYBOARD.variants[0]
KEYBOARD_ITEM = OrderItem(
    name="Mechanical Keyboard",
    product_id=KEYBOARD.product_id,
    item_id=LINEAR.item_id,
    options=LINEAR.options,
    price=LINEAR.price,
)
YOGA = {item.name: item for item in listed_items(_listing("200201", (KEYBOARD_ITEM, KEYBOARD)))}
BOTTLE = listed_items(_listing("200202"))[0]


def _variant(item: ListedItem, item_id: str) -> ListedVariant:
    return next(variant for variant in item.variants if variant.item_id == item_id)


def test_the_listing_is_read_back_as_it_was_written() -> None:
    mat = YOGA["Cork yoga mat"]
    assert (mat.item_id, mat.quantity, mat.options, mat.price) == (
        "9000000401",
        1,
        {"thickness": "4 mm"},
        Decimal("68.00"),
    )
    assert [(v.item_id, v.options, v.available) for v in mat.variants] == [
        ("9000000401", {"thickness": "4 mm"}, True),
        ("9000000402", {"thickness": "6 mm"}, True),
    ]
    assert YOGA["Yoga block"].quantity == 2
    assert len(YOGA["Mechanical Keyboard"].variants) == 4
    assert paid_with(_listing("200202")) == "paypal_9000201"


@pytest.mark.parametrize(
    ("said", "named"),
    [
        ("the mat", ["Cork yoga mat"]),
        ("both blocks please", ["Yoga block"]),
        ("the keyboard and the mat", ["Cork yoga mat", "Mechanical Keyboard"]),
        ("the blender", []),
    ],
)
def test_items_are_named_by_what_they_are(said: str, named: list[str]) -> None:
    assert items_named({name: name for name in YOGA}, said) == named


@pytest.mark.parametrize(
    ("item", "said", "chosen"),
    [
        (BOTTLE, "the same one but in green", "9000000603"),
        (BOTTLE, "from blue to green", "9000000603"),
        (BOTTLE, "the bigger one", "9000000602"),
        (BOTTLE, "the 750ml ones", "9000000602"),
        (BOTTLE, "750 millilitres", "9000000602"),
        (YOGA["Cork yoga mat"], "the 6 mm one", "9000000402"),
        (YOGA["Cork yoga mat"], "a thicker one", "9000000402"),
        (YOGA["Cork yoga mat"], "the same one, mine is faulty", "9000000401"),
        (YOGA["Yoga block"], "foam ones", "9000000502"),
        (YOGA["Mechanical Keyboard"], "the one with white backlight", "6342039236"),
    ],
)
def test_a_version_is_picked_by_its_options_or_a_comparison(
    item: ListedItem, said: str, chosen: str
) -> None:
    assert variant_described(item, said) == _variant(item, chosen)


def test_several_fitting_versions_are_asked_about() -> None:
    keyboard = YOGA["Mechanical Keyboard"]
    described = variant_described(keyboard, "the same keyboard but with clicky switches")
    assert described == Several(
        (_variant(keyboard, "7706410293"), _variant(keyboard, "6342039236"))
    )


@pytest.mark.parametrize(
    ("item", "said", "sold_out"),
    [
        (BOTTLE, "the green 750 ml ones", "9000000604"),
        (BOTTLE, "a bigger green one", "9000000604"),
        (YOGA["Mechanical Keyboard"], "tactile switches", "1151293680"),
    ],
)
def test_a_version_that_cannot_be_had_is_said_so(
    item: ListedItem, said: str, sold_out: str
) -> None:
    assert variant_described(item, said) == Unavailable(_variant(item, sold_out))


@pytest.mark.parametrize("said", ["something nicer", "a smaller one", "purple"])
def test_words_that_name_no_version_pick_none(said: str) -> None:
    # The mat comes in nothing thinner; nothing is purple.
    assert variant_described(YOGA["Cork yoga mat"], said) is None


def test_each_item_is_described_by_the_words_about_it() -> None:
    items = list(YOGA.values())
    segments = item_segments(items, "the mat for a 6 mm one and the blocks for foam ones")
    assert segments == {
        "9000000401": "the mat for a 6 mm one and the ",
        "9000000501": "blocks for foam ones",
    }
    assert item_segments([BOTTLE], "green please") == {BOTTLE.item_id: "green please"}


def _shirt(item_id: str, color: str, size: str, style: str) -> ListedVariant:
    options = {"color": color, "size": size, "style": style}
    return ListedVariant(item_id, options, Decimal("50.00"), available=True)


SHIRT = ListedItem(
    "1",
    "T-Shirt",
    1,
    {"color": "blue", "size": "S", "style": "v-neck"},
    Decimal("50.00"),
    (
        _shirt("1", "blue", "S", "v-neck"),
        _shirt("2", "black", "XXL", "v-neck"),
        _shirt("3", "black", "S", "crew neck"),
        _shirt("4", "black", "XL", "crew neck"),
    ),
)


@pytest.mark.parametrize(
    ("said", "chosen"),
    [("change the color to black, same size", "3"), ("black please, the size stays", "3")],
)
def test_an_option_said_to_stay_the_same_is_kept(said: str, chosen: str) -> None:
    described = variant_described(SHIRT, said)
    assert isinstance(described, ListedVariant)
    assert described.item_id == chosen


def test_without_the_option_kept_several_versions_fit() -> None:
    assert isinstance(variant_described(SHIRT, "change the color to black"), Several)
