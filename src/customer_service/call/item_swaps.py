"""Items of an order swapped for other variants of the same products: what an exchange (a
delivered order) and an item change (a pending order) share.

A swap names units by item id (`OrderItem.item_id`; an id said twice is two units of
it), the variant each becomes (`new_item_ids`, in the same order) and the caller's
payment method the price difference is paid from or refunded to. Everything a swap can
break is checked here, in code, before anything is read back (`checked_swap`): the
units are the order's, each new variant is an available one of the same product, the
method is one of the caller's own, and a gift card covers what it must pay. The
difference is computed here too, never taken from the model.

A specialist gives its own words and rules (`SwapRules`); the task and the supervisor's
run of it are in `call.item_swap_task`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from textwrap import dedent
from typing import Any, Generic, TypeVar

from livekit.agents import ToolError
from pydantic import BaseModel, ConfigDict, Field

from customer_service.call.confirmation import ConfirmationWording
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.payment_methods import (
    chosen_method,
    methods_listing,
    spoken_amount,
    spoken_method,
)
from customer_service.call.speakable import item_phrase, spoken_items, spoken_list
from customer_service.call.state import CallState
from customer_service.call.wording import UNEXPECTED_APOLOGY, quoted
from customer_service.domain import (
    ORDER_ID_PATTERN,
    OrderItem,
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    Product,
    Variant,
    held_by_method,
)
from customer_service.order_numbers import spoken_order_id
from customer_service.store.order_changes import ChangeRefusal

__all__ = [
    "ItemSwapResult",
    "Swap",
    "SwapChoices",
    "SwapRules",
    "checked_swap",
    "chosen_names",
    "described_options",
    "item_refusal",
    "read_back",
    "swap_choices",
    "swap_listing",
    "unavailable_question",
]

ResultT = TypeVar("ResultT", bound="ItemSwapResult")

SWAP_LISTING = """Its items, each with the variants of its product (ids for the tools):
{items}
The order was paid with: {paid_with}
The caller's payment methods:
{methods}"""

SWAP_STEPS = dedent(
    """
    When you know the items, their new versions and the method, call {record} with one
    item id per unit and, in the same order, the id of the variant each becomes; it
    checks them and reads the {verb} back itself, so do not repeat it. Call {confirm}
    only after the caller clearly says the read-back is right; if they correct
    anything, call {record} again. If the caller wants to stop, call give_up. Never add
    an item the caller did not ask for.
    """
)
SAME_PRICE = "The price is the same, so nothing is paid or refunded."


class ItemSwapResult(BaseModel):
    """The caller's confirmed swap: units of one order (by item id, one per unit), the
    variant each becomes, and the method the price difference goes through."""

    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    item_ids: tuple[str, ...] = Field(min_length=1)
    new_item_ids: tuple[str, ...] = Field(min_length=1)
    payment_method_id: str


@dataclass(frozen=True)
class SwapChoices:
    """What the caller can choose from: the order, its items' products, their methods."""

    order: OrderLookupResult
    products: Mapping[str, Product]
    methods: tuple[PaymentMethod, ...]
    paid_with: str | None
    """The id of the method that holds (most of) the order's money now, if any does."""


async def swap_choices(state: CallState, order: OrderLookupResult) -> SwapChoices:
    """The caller's order with its products and the caller's payment methods, from the store."""
    products: dict[str, Product] = {}
    for product_id in dict.fromkeys(item.product_id for item in order.items if item.product_id):
        product = await state.store.get_product(product_id)
        if product is not None:
            products[product_id] = product
    held = held_by_method(order.payments)
    return SwapChoices(
        order=order,
        products=products,
        methods=tuple(await state.store.payment_methods(order.customer_id)),
        paid_with=max(held, key=held.__getitem__) if held else None,
    )


def described_options(options: Mapping[str, str], *, for_the_model: bool = False) -> str:
    """A variant's options: "capacity 750 ml and color green"; each quoted `for_the_model`."""
    said = [
        f"{name}: {value}" if for_the_model else f"{name} {value}"
        for name, value in options.items()
    ]
    if for_the_model:
        return ", ".join(quoted(option) for option in said) or "no options"
    return spoken_list(said)


def _variant_line(variant: Variant) -> str:
    available = "available" if variant.available else "not available"
    options = described_options(variant.options, for_the_model=True)
    return f"  - {variant.item_id}: {options}, price {variant.price}, {available}"


def swap_listing(choices: SwapChoices) -> str:
    """The order's items and their products' variants, the method that paid, and the
    caller's methods, for a specialist's instructions; stored text quoted, as data."""
    lines = []
    for item in choices.order.items:
        product = choices.products.get(item.product_id or "")
        if item.item_id is None or product is None:
            continue  # stored before the catalog: nothing to swap it for
        options = described_options(item.options, for_the_model=True)
        lines.append(
            f"- item {item.item_id}: {quoted(item.name)}, quantity {item.quantity}, "
            f"{options}, price {item.price}. Its product's variants:"
        )
        lines.extend(_variant_line(variant) for variant in product.variants)
    return SWAP_LISTING.format(
        items="\n".join(lines),
        paid_with=choices.paid_with or "nothing",
        methods=methods_listing(choices.methods),
    )


@dataclass(frozen=True)
class SwapRules(Generic[ResultT]):
    """What one kind of swap allows and says."""

    result: type[ResultT]
    intro: str
    """The specialist's own instructions, for order `{order}`; the listing and the steps
    follow them."""
    name: str
    """The kind of swap ("exchange", "item_change"): its tools are `record_<name>` and
    `confirm_<name>`."""
    verb: str
    """What the caller does to items: "exchange", "change"."""
    question: str
    """The opening question after the order's items (its first sentence is asked again
    of a caller who goes quiet), then the reminder that it is done once."""
    wording: ConfirmationWording
    same_variant_allowed: bool
    """Whether a unit may become the variant it is (a faulty unit replaced)."""
    settled: str
    """When a price difference is paid or refunded, as a sentence of the read-back."""
    swappable: OrderStatus
    """The one state of an order whose items this swap changes."""
    swapped: OrderStatus
    """The state the swap leaves the order in."""
    not_swappable: Mapping[OrderStatus, str]
    """For every other state, why an order in it cannot be swapped and what can be done
    instead: a sentence with `{order}` where its number is said."""
    changed_meanwhile: Mapping[ChangeRefusal, str]
    """For each refusal of the store that means the order changed in another call while
    the caller was deciding, its sentence, with `{order}` where its number is said."""
    not_found: Callable[[str], str]
    """The sentence for an order missing or not the caller's, given its number."""

    def __post_init__(self) -> None:
        unsaid = set(OrderStatus) - {self.swappable} - set(self.not_swappable)
        if unsaid:
            raise ValueError(f"{self.name} says nothing of an order {sorted(unsaid)}")

    def not_swappable_message(self, order_id: str, status: OrderStatus) -> str:
        """Why order `order_id`, in `status`, cannot be swapped, and what can be done."""
        return self.not_swappable[status].format(order=spoken_order_id(order_id))

    def status_refused(self, order_id: str, refusal: ChangeRefusal) -> str | None:
        """The sentence for a refusal about the order (its state, or not the caller's),
        given its number; None for a refusal about the items or the method."""
        if refusal in (ChangeRefusal.ORDER_NOT_FOUND, ChangeRefusal.CUSTOMER_NOT_FOUND):
            return self.not_found(order_id)
        template = self.changed_meanwhile.get(refusal)
        return template.format(order=spoken_order_id(order_id)) if template else None

    @property
    def record_tool(self) -> str:
        return f"record_{self.name}"

    @property
    def confirm_tool(self) -> str:
        return f"confirm_{self.name}"

    @property
    def still_there_question(self) -> str:
        return self.question.partition("?")[0] + "?"

    def instructions(self, choices: SwapChoices) -> str:
        """A task's instructions: the specialist's own, the listing, then the steps."""
        intro = self.intro.format(order=choices.order.order_id)
        steps = SWAP_STEPS.format(
            record=self.record_tool, confirm=self.confirm_tool, verb=self.verb
        )
        return f"{intro}\n{swap_listing(choices)}\n{steps}"


@dataclass(frozen=True)
class Swap:
    """A swap with every rule checked: each unit with the variant it becomes."""

    pairs: tuple[tuple[OrderItem, Variant], ...]
    method: PaymentMethod
    difference: Decimal
    """New prices less those paid: positive, the caller pays; negative, they get it back."""


def unavailable_question(name: str, options: Mapping[str, str]) -> str:
    """A version the caller asked for that is not available, and the question again."""
    return (
        f"The {name.lower()} with {described_options(options)} isn't available right now. "
        "Which other would you like?"
    )


def _balance_too_low(method: PaymentMethod, difference: Decimal) -> str:
    balance = spoken_amount(method.balance or Decimal(0))
    return (
        f"Your gift card has {balance} on it, which doesn't cover the difference of "
        f"{spoken_amount(difference)}. Which other payment method would you like to use?"
    )


def item_refusal(refusal: ChangeRefusal, choices: SwapChoices, rules: SwapRules[Any]) -> str:
    """The sentence for a refusal about the items or the method, with nothing particular
    to name (a change the store refused after the read-back)."""
    verb = rules.verb
    sentences = {
        ChangeRefusal.NO_ITEMS: f"Which items would you like to {verb}?",
        ChangeRefusal.ITEMS_NOT_IN_ORDER: (
            f"Order {spoken_order_id(choices.order.order_id)} contains "
            f"{spoken_items(choices.order.items)}. Which of them would you like to {verb}?"
        ),
        ChangeRefusal.ITEM_COUNT_DIFFERS: (
            f"Please tell me which version you'd like for each item you {verb}."
        ),
        ChangeRefusal.SAME_ITEM: (
            "That's the version already in the order. Which other would you like?"
        ),
        ChangeRefusal.NOT_THE_SAME_PRODUCT: (
            "An item can only become another version of the same product. Which version "
            "would you like?"
        ),
        ChangeRefusal.ITEM_UNAVAILABLE: (
            "One of those versions isn't available right now. Which other would you like?"
        ),
        ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW: (
            "Your gift card doesn't cover the difference. Which other payment method would "
            "you like to use?"
        ),
    }
    if refusal is ChangeRefusal.PAYMENT_METHOD_NOT_FOUND:
        try:
            chosen_method(choices.methods, "")
        except ToolError as naming_the_callers_methods:
            return naming_the_callers_methods.message
    return sentences.get(refusal, UNEXPECTED_APOLOGY)


def _units(choices: SwapChoices, item_ids: list[str], rules: SwapRules[Any]) -> list[OrderItem]:
    """The order's item for each unit named, every unit at most as often as ordered."""
    held: Counter[str] = Counter()
    lines: dict[str, OrderItem] = {}
    for item in choices.order.items:
        if item.item_id is not None and item.product_id in choices.products:
            held[item.item_id] += item.quantity
            lines.setdefault(item.item_id, item)
    named = Counter(item_id.strip() for item_id in item_ids)
    if not item_ids:
        raise ToolError(item_refusal(ChangeRefusal.NO_ITEMS, choices, rules))
    if any(count > held[item_id] for item_id, count in named.items()):
        raise ToolError(item_refusal(ChangeRefusal.ITEMS_NOT_IN_ORDER, choices, rules))
    return [lines[item_id.strip()] for item_id in item_ids]


def checked_swap(
    choices: SwapChoices,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
    rules: SwapRules[Any],
) -> Swap:
    """The swap, every rule checked; a speakable `ToolError` for the first one broken."""
    units = _units(choices, item_ids, rules)
    if len(new_item_ids) != len(units):
        raise ToolError(item_refusal(ChangeRefusal.ITEM_COUNT_DIFFERS, choices, rules))
    pairs = []
    for item, new_item_id in zip(units, new_item_ids, strict=True):
        product = choices.products[item.product_id or ""]
        variant = product.variant(new_item_id.strip())
        name = item.name.lower()
        if variant is None:
            versions = spoken_list(
                [described_options(v.options) for v in product.variants if v.available]
            )
            raise ToolError(
                f"The {name} can only become another version of it: {versions}. Which "
                "would you like?"
            )
        if variant.item_id == item.item_id and not rules.same_variant_allowed:
            raise ToolError(item_refusal(ChangeRefusal.SAME_ITEM, choices, rules))
        if not variant.available:
            raise ToolError(unavailable_question(name, variant.options))
        pairs.append((item, variant))
    method = chosen_method(choices.methods, payment_method_id)
    difference = sum(
        (variant.price - (item.price or Decimal(0)) for item, variant in pairs), Decimal(0)
    )
    if method.kind is PaymentKind.GIFT_CARD and (method.balance or Decimal(0)) < difference:
        raise ToolError(_balance_too_low(method, difference))
    return Swap(pairs=tuple(pairs), method=method, difference=difference)


def _pair_phrase(item: OrderItem, variant: Variant, count: int) -> str:
    units = item_phrase(item.model_copy(update={"quantity": count}))
    ones = "ones" if count > 1 else "one"
    if variant.item_id == item.item_id:
        return f"{units} for {'new ones' if count > 1 else 'a new one'} just the same"
    changed = {
        name: value for name, value in variant.options.items() if item.options.get(name) != value
    }
    was = {name: item.options[name] for name in changed if name in item.options}
    before = f" with {described_options(was)}" if was else ""
    return f"{units}{before} for {ones} with {described_options(changed)}"


def read_back(choices: SwapChoices, swap: Swap, rules: SwapRules[Any]) -> str:
    """What will be swapped, in which order, and what happens to the difference."""
    counted = Counter((item.item_id, variant.item_id) for item, variant in swap.pairs)
    first = {(item.item_id, variant.item_id): (item, variant) for item, variant in swap.pairs}
    phrases = [_pair_phrase(*first[pair], count) for pair, count in counted.items()]
    return rules.wording.read_back(
        f"You'd like to {rules.verb} {spoken_list(phrases)} in order "
        f"{spoken_order_id(choices.order.order_id)}. {_difference(swap, rules)}"
    )


def chosen_names(swap: Swap) -> str:
    """What a swap chooses, for the yes to its read-back (`ConfirmBeforeActing.propose`):
    each new variant's options and the method the difference goes to or from."""
    options = [described_options(variant.options) for _, variant in swap.pairs]
    return " ".join([*options, spoken_method(swap.method)])


def _difference(swap: Swap, rules: SwapRules[Any]) -> str:
    amount, method = spoken_amount(swap.difference), spoken_method(swap.method)
    if swap.difference > 0:
        return f"The new items cost {amount} more, paid with {method}. {rules.settled}"
    if swap.difference < 0:
        return f"The new items cost {amount} less, refunded to {method}. {rules.settled}"
    return SAME_PRICE
