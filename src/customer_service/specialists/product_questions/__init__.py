"""Product questions: what a product comes in, which variants are available, at what price.

Read-only: the task writes nothing. The catalog is public, so any caller may ask about
it, read through the store. A product from the caller's own orders ("the keyboard I
ordered") is looked up only among the items of a verified caller's orders, which the
supervisor tool reads after `Desk.verified_caller`; an unverified caller's task is given
no order at all, so no order detail reaches them whatever the model calls. Answers fit
the ear: the options and their values, how many variants, which are available and the
price range, or precisely the variants a narrower question names (`answers.py`).
"""

from __future__ import annotations

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
from customer_service.call.registration import Desk, supervisor_tool
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA, quoted
from customer_service.domain import Product
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists.product_questions.answers import (
    MAX_VARIANTS_LISTED,
    best_matches,
    described,
    either,
)

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
