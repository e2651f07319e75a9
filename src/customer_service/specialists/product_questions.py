"""Product questions: what a product comes in, which variants are available, at what price.

Read-only: the task writes nothing. The catalog is public, so any caller may ask about
it, read through the store. A product from the caller's own orders ("the keyboard I
ordered") is looked up only among the items of a verified caller's orders, which the
supervisor tool reads after `Desk.verified_caller`; an unverified caller's task is given
no order at all, so no order detail reaches them whatever the model calls. Answers fit
the ear: the options and their values, how many variants, which are available and the
price range, or precisely the variants a narrower question names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from livekit.agents.types import NOT_GIVEN, NotGivenOr
from pydantic import BaseModel, ConfigDict, Field

from customer_service.call.delegation import delegate
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.payment_methods import spoken_amount
from customer_service.call.registration import Desk, supervisor_tool
from customer_service.call.speakable import count_word, looks_plural, spoken_list
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA, quoted
from customer_service.domain import Product, Variant
from customer_service.order_numbers import spoken_order_id
from customer_service.spoken.item_words import SIZE_WORDS, names_item, option_key

INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to answer the caller's questions about our products: the options
    a product comes in, which variants are available and at what price.
    Our catalog: {catalog}
    {ordered}
    For each question call describe_product with the product as the caller names it and
    any option values they ask about (a colour, a size); set ordered when they mean
    something they ordered. Say what the tool says, and never a price, option or
    availability it did not give. When the caller has no more questions about products,
    call questions_answered.
    """
)
NOT_VERIFIED = "You know nothing of the caller's orders."
WHICH_PRODUCT = fixed("Which product would you like to know about?")
NEEDS_VERIFICATION = (
    "I can only look at what you ordered once I've confirmed who you are. I can tell you "
    "about any product in our catalog, though."
)
ANSWERED = "All right."
MAX_VARIANTS_LISTED = 4
SIZE = "size"
"""The option a size said as a word ("a large") is about."""
"""Variants said one by one; more are summed up (how many, which available, prices)."""


@dataclass(frozen=True)
class OrderedItem:
    """A product in one of the verified caller's orders, in the options they ordered."""

    order_id: str
    product: Product
    options: dict[str, str]

    @property
    def options_said(self) -> str:
        return ", ".join(self.options.values())


class ProductQuestionsResult(BaseModel):
    """The products the caller asked about, by id: nothing to check, nothing to write."""

    model_config = ConfigDict(frozen=True)

    product_ids: tuple[str, ...] = Field(default=())


def _words(text: str) -> set[str]:
    """Lower-case words, singular: "Water bottles" and "bottle" share "bottle"."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {word[:-1] if len(word) > 3 and word.endswith("s") else word for word in words}


def _key(value: str) -> str:
    """An option value as compared: "6mm" is "6 mm", "ten" is "10", "large" is "L"."""
    return option_key(value)


def best_matches(words: str, products: Sequence[Product]) -> list[Product]:
    """The products whose names share the most words with `words`; failing that, those
    an everyday word of `words` names ("bike" for a Bicycle, `item_words`); none when
    none do."""
    wanted = _words(words)
    scored = [(len(wanted & _words(product.name)), product) for product in products]
    best = max((score for score, _ in scored), default=0)
    if best == 0:
        return [p for p in products if any(names_item(word, p.name) for word in wanted)]
    return [product for score, product in scored if score == best]


def either(phrases: Sequence[str]) -> str:
    """Alternatives as one phrase: "a, b or c"."""
    return phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} or {phrases[-1]}"


def variant_phrase(variant: Variant) -> str:
    return ", ".join(variant.options.values())


def price_phrase(variants: Sequence[Variant]) -> str:
    low, high = min(v.price for v in variants), max(v.price for v in variants)
    return (
        f"at {spoken_amount(low)}"
        if low == high
        else f"from {spoken_amount(low)} to {spoken_amount(high)}"
    )


def summary(product: Product, variants: Sequence[Variant]) -> str:
    """How many of `variants` there are, which are available and at what price."""
    available = [v for v in variants if v.available]
    count = count_word(len(variants))
    if not available:
        return f"None of its {count} variants is available right now."
    missing = [v for v in variants if not v.available]
    if not missing:
        every = {1: "It's", 2: "Both variants are"}.get(len(variants), f"All {count} variants are")
        said = f"{every} available"
    elif len(missing) < MAX_VARIANTS_LISTED:
        gone = spoken_list([quoted(variant_phrase(v)) for v in missing])
        said = f"Of its {count} variants, all but {gone} are available"
    else:
        said = f"{count_word(len(available)).capitalize()} of its {count} variants are available"
    return f"{said}, {price_phrase(available)}."


def variants_said(variants: Sequence[Variant]) -> str:
    """Each variant a narrower question names, precisely."""
    return " ".join(
        f"{quoted(variant_phrase(v))}: "
        + (
            f"available, {spoken_amount(v.price)}."
            if v.available
            else f"not available right now ({spoken_amount(v.price)})."
        )
        for v in variants
    )


def _wanted(product: Product, value: str) -> tuple[str | None, str]:
    """The option an asked value is about (None: any option) and its key: a size said
    as a word ("a large") is about the product's size when it has one."""
    letters = SIZE_WORDS.get(value.strip().lower())
    sizes = {_key(v.options.get(SIZE, "")) for v in product.variants}
    if letters is not None and letters in sizes:
        return SIZE, letters
    return None, _key(value)


def _fits(variant: Variant, wanted: tuple[str | None, str]) -> bool:
    name, key = wanted
    if name is not None:
        return _key(variant.options.get(name, "")) == key
    return key in {_key(option) for option in variant.options.values()}


def described(product: Product, asked: Sequence[str]) -> str:
    """The answer about `product`: its options, then the variants `asked` narrows to."""
    options: dict[str, list[str]] = {}
    for variant in product.variants:
        for name, value in variant.options.items():
            options.setdefault(name, [])
            if value not in options[name]:
                options[name].append(value)
    comes_in = spoken_list(
        [
            f"{quoted(name)} {either([quoted(v) for v in values])}"
            for name, values in options.items()
        ]
    )
    come = "come" if looks_plural(product.name) else "comes"
    lead = (
        f"{quoted(product.name)} {come} in {comes_in}." if options else f"{quoted(product.name)}:"
    )
    wanted = {value: _wanted(product, value) for value in asked}
    unknown = [v for v in asked if not any(_fits(x, wanted[v]) for x in product.variants)]
    if unknown:
        return f"{lead} It doesn't come in {spoken_list([quoted(v) for v in unknown])}."
    chosen = [x for x in product.variants if all(_fits(x, want) for want in wanted.values())]
    if not chosen:
        return f"{lead} There's no variant with all of {spoken_list([quoted(v) for v in asked])}."
    if asked and len(chosen) <= MAX_VARIANTS_LISTED:
        return f"{quoted(product.name)}: {variants_said(chosen)}"
    return f"{lead} {summary(product, chosen)}"


class ProductQuestionsTask(Specialist[ProductQuestionsResult]):
    """Answers questions about the catalog's products, and about the products of the
    verified caller's orders when it is given them (`ordered`; None: not verified)."""

    still_there_question = WHICH_PRODUCT

    def __init__(
        self,
        *,
        catalog: Sequence[Product],
        ordered: Sequence[OrderedItem] | None,
        chat_ctx: NotGivenOr[ChatContext] = NOT_GIVEN,
    ) -> None:
        self._catalog = tuple(catalog)
        self._ordered = None if ordered is None else tuple(ordered)
        self._asked_about: list[str] = []
        yours = (
            NOT_VERIFIED
            if self._ordered is None
            else "The caller ordered: " + ", ".join(quoted(i.product.name) for i in self._ordered)
        )
        names = ", ".join(quoted(product.name) for product in self._catalog)
        super().__init__(
            instructions=INSTRUCTIONS.format(catalog=names, ordered=yours), chat_ctx=chat_ctx
        )

    async def opening(self) -> None:
        # The caller's question is in the history: one round trip to answer it (or to
        # ask which product, when they named none).
        self.session.generate_reply()

    @function_tool()
    @guarded()
    async def describe_product(
        self,
        context: RunContext[CallState],
        product: str,
        options: list[str] | None = None,
        ordered: bool = False,
    ) -> str:
        """Look a product up and say what it comes in, what is available and the prices.

        Args:
            product: The product as the caller names it ("water bottle", "yoga mat").
            options: Option values the caller asks about ("blue", "6 mm"), if any.
            ordered: True when the caller means something they ordered.
        """
        if ordered and self._ordered is None:
            raise ToolError(NEEDS_VERIFICATION)
        items = self._ordered if ordered and self._ordered is not None else ()
        pool = [item.product for item in items] if ordered else list(self._catalog)
        found = best_matches(product, pool)
        if not found:
            where = "among what you ordered" if ordered else "in our catalog"
            raise ToolError(f"I couldn't find {quoted(product)} {where}. {WHICH_PRODUCT}")
        if len({match.product_id for match in found}) > 1:
            choices = either([quoted(match.name) for match in found[:MAX_VARIANTS_LISTED]])
            return f"Which one do you mean: {choices}?"
        match = found[0]
        self._asked_about.append(match.product_id)
        answer = described(match, options or [])
        context.userdata.record_product_answer()
        mine = [item for item in items if item.product.product_id == match.product_id]
        if not mine:
            return answer
        # What they ordered is order detail: recorded as disclosed before it is said.
        for item in mine:
            context.userdata.record_disclosure(item.order_id)
        yours = " ".join(
            f"In order {spoken_order_id(i.order_id)} you have the one in {quoted(i.options_said)}."
            for i in mine
        )
        return f"{yours} {answer}"

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def questions_answered(self, context: RunContext[CallState]) -> None:
        """Call when the caller has no more questions about products."""
        self.finish(ProductQuestionsResult(product_ids=tuple(dict.fromkeys(self._asked_about))))


ORDERS_READ = 20
"""The caller's newest orders whose products they can ask about."""


async def ordered_items(
    state: CallState, customer_id: str, catalog: Sequence[Product]
) -> list[OrderedItem]:
    """The products of the customer's newest orders, each in the options ordered."""
    products = {product.product_id: product for product in catalog}
    return [
        OrderedItem(order.order_id, products[item.product_id], dict(item.options))
        for order in await state.store.recent_orders(customer_id, limit=ORDERS_READ)
        for item in order.items
        if item.product_id in products
    ]


@supervisor_tool(
    ProductQuestionsTask,
    ProductQuestionsResult,
    when_to_use=(
        "the caller asks what a product comes in, whether it is available or what it "
        "costs. Pass about_their_orders=true when they mean something they ordered."
    ),
    menu_phrase="answer questions about our products",
    plain_name="Product questions",
    explains="What a product comes in and costs.",
)
async def answer_product_questions(
    desk: Desk, context: RunContext[CallState], about_their_orders: bool = False
) -> str:
    """Answer the caller's questions about our products; writes nothing."""
    state = context.userdata
    catalog = await state.store.products()
    ordered: list[OrderedItem] | None = None
    if about_their_orders or state.verified_customer is not None:
        # Their own orders' items only, and only once they are verified.
        customer = await desk.verified_caller(state)
        ordered = await ordered_items(state, customer.customer_id, catalog)
    history = desk.recent_history()
    await delegate(state, ProductQuestionsTask(catalog=catalog, ordered=ordered, chat_ctx=history))
    return ANSWERED
