"""Priya's orders as an exchange and an item change see them: the demo's item ids, her
payment methods, the model's record calls, reads of what the store holds after, and
what each swap declares for the cases every swap runs (`SwapCase`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Set
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession

from customer_service.call.item_swap_task import ItemSwapTask
from customer_service.call.item_swaps import SwapChoices, SwapRules, item_refusal
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.registration import SpecialistRegistration
from customer_service.call.state import CallState
from customer_service.call.wording import UNEXPECTED_APOLOGY
from customer_service.domain import OrderStatus, PaymentMethod
from customer_service.specialists import SPECIALISTS
from customer_service.store.order_changes import ChangeRefusal

from .clock import DEMO_ORDERS
from .conversation import PRIYA_SAYS as PRIYA_SAYS  # read here by the swap tests
from .conversation import order_now as order_now
from .order_request import OrderRequest
from .own_tests import SPECIALIST_TESTS, Declared, declared
from .scripted_llm import Call

DELIVERED = "200201"
"""A Cork yoga mat 4 mm (68.00) and two cork Yoga blocks (14.50 each), paid by PayPal."""
PENDING = "200202"
"""Three 500 ml blue water bottles (24.00 each), paid 72.00 by the gift card."""
PAYPAL = "paypal_9000201"
GIFT_CARD = "gift_card_9000202"
"""Priya's gift card: 40.00 on it."""
JORDANS_CARD = "credit_card_9000101"
MAT_4MM, MAT_6MM = "9000000401", "9000000402"
BLOCK_CORK, BLOCK_FOAM = "9000000501", "9000000502"
BOTTLE_BLUE, BOTTLE_BLUE_750, BOTTLE_GREEN, BOTTLE_GREEN_750 = (
    "9000000601",
    "9000000602",
    "9000000603",
    "9000000604",
)
"""The bottle's variants; the 750 ml green one is not available."""
HEADPHONES_BLACK = "9000000101"
"""A variant of another product."""


def record(tool: str, item_ids: list[str], new_item_ids: list[str], method: str) -> Call:
    return Call(
        tool, {"item_ids": item_ids, "new_item_ids": new_item_ids, "payment_method_id": method}
    )


async def methods_now(session: AgentSession[CallState]) -> dict[str, PaymentMethod]:
    methods = await session.userdata.store.payment_methods("C-1002")
    return {method.method_id: method for method in methods}


async def gift_card_balance(session: AgentSession[CallState]) -> Decimal | None:
    return (await methods_now(session))[GIFT_CARD].balance


NOT_A_SWAPS = frozenset(
    {
        # Refusals of a payment change and of a return.
        ChangeRefusal.SAME_PAYMENT_METHOD,
        ChangeRefusal.NOT_ONE_PAYMENT,
        ChangeRefusal.REFUND_METHOD_NOT_ALLOWED,
        # Not refused in words: the swap is read back again on the new facts.
        ChangeRefusal.CHANGED_SINCE_READ_BACK,
    }
)
"""What the store answers no swap with in words."""


def refusal_sentences(
    rules: SwapRules[Any], order_id: str, the_other_swaps: Set[ChangeRefusal]
) -> tuple[int, int]:
    """How many refusals the store can answer this swap of `order_id` with (all but
    `NOT_A_SWAPS` and `the_other_swaps`'s own) and how many sentences say them; none is
    the apology kept for the unexpected."""
    order = OrderLookupResult.from_order(next(o for o in DEMO_ORDERS if o.order_id == order_id))
    choices = SwapChoices(order=order, products={}, methods=(), paid_with=None)
    answered = set(ChangeRefusal) - NOT_A_SWAPS - set(the_other_swaps)
    sentences = set()
    for refusal in answered:
        sentence = rules.status_refused(order_id, refusal) or item_refusal(refusal, choices, rules)
        assert sentence != UNEXPECTED_APOLOGY, refusal
        sentences.add(sentence)
    return len(answered), len(sentences)


SwapArguments = tuple[list[str], list[str], str]
"""A record's items, the versions they become and the method for the difference."""
SessionCheck = Callable[[AgentSession[CallState]], Awaitable[None]]
"""Asserts what the call's store holds."""


@dataclass(frozen=True)
class SwapCase:
    """What one swap (a specialist on `call.item_swaps.SwapRules`) declares as `SWAP` in
    its own test module, for the cases every swap runs
    (`tests/specialists/test_item_swaps.py`)."""

    request: OrderRequest
    record: Call
    """A choice its rules allow, recorded; the caller says `said` for it."""
    said: str
    correction: Call
    """Another allowed choice, said (`said_correcting`) after the first was read back."""
    said_correcting: str
    correction_read_back: str
    corrected: SessionCheck
    """Asserts the store holds the correction, and nothing of the first choice."""
    unchanged: SessionCheck
    """Asserts the order, the caller's methods and the audit are as before the call."""
    refused: dict[str, tuple[SwapArguments, str]]
    """Records its rules refuse, by a short id, with what the caller hears."""
    not_swappable: dict[OrderStatus, str]
    """What a caller hears of the order in each state it does not swap."""
    offered_instead: str
    """The demo order the other swap is for: refused with an offer of that swap."""
    not_its_refusals: frozenset[ChangeRefusal]
    """The store's refusals only another swap's write answers."""

    @property
    def rules(self) -> SwapRules[Any]:
        """Its registration's rules."""
        tool = self.request.supervisor_tool
        (task,) = [r.task for r in SPECIALISTS if r.tool_name == tool]
        assert issubclass(task, ItemSwapTask)
        return task.rules


def swap_cases(
    registrations: Iterable[SpecialistRegistration] = SPECIALISTS,
    folder: Path = SPECIALIST_TESTS,
) -> Declared[SwapCase]:
    """The `SWAP` of every registered specialist whose task is an `ItemSwapTask`."""
    swaps = [r for r in registrations if issubclass(r.task, ItemSwapTask)]
    return declared("SWAP", SwapCase, registrations=swaps, folder=folder)
