"""Fifty calls at once on one database: who calls, what each caller says, and running them
in this process or spread over worker processes.

Every call is a real text session (`call_session`): the real supervisor, specialists and
store, with the offline model in the model's place. The model is deterministic and
needs no script, so each caller only says their lines: details and request in one
breath, then a clear yes to the read-back (and no to the text-update offer when it is
made). A caller answers only what was actually asked, so a call whose order another
call already cancelled ends early, as it would on the phone.

The checks on what the calls left in the database are in `outcome_checks`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import enum
import itertools
import multiprocessing
import os
import queue
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from multiprocessing.synchronize import Event
from typing import Any

from livekit.agents import AgentSession, llm
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.addresses import validated_address
from customer_service.call.state import CallState
from customer_service.domain import (
    CancelReason,
    Customer,
    Order,
    OrderItem,
    OrderStatus,
    PostalAddress,
)
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import IGNORE_ENV_FILES_VARIABLE, Settings
from customer_service.specialists.address_update import read_back_question
from customer_service.specialists.cancellation import opening_question as cancellation_question
from customer_service.specialists.cancellation import read_back as cancellation_read_back
from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from customer_service.specialists.identity import mismatch_message
from customer_service.specialists.identity.said import CHECKS as IDENTITY_CHECKS
from customer_service.specialists.order_lookup import OrderLookupResult
from customer_service.store import Store
from customer_service.store.customers import customer_to_row
from customer_service.store.orders import order_to_row
from customer_service.testing import call_session

SMS_QUESTION = CONSENT_WORDING[ConsentTopic.ORDER_UPDATES_SMS].question
HANG_GUARD_S = 300.0
"""Only a bound on a hang, never a measure: a stuck call fails the test instead of
stalling it."""


class CallKind(enum.StrEnum):
    CHANGE = "change"
    """A new delivery address for the caller's own order, which no other call touches."""
    SHARED_CHANGE = "shared_change"
    """A new delivery address (each call its own) for the one order these calls share."""
    CANCEL = "cancel"
    """Cancelling the caller's own order, which no other call touches."""
    SHARED_CANCEL = "shared_cancel"
    """Cancelling the one order these calls share."""
    LOCKOUT = "lockout"
    """Three wrong guesses at the guessed account: the call's own limit locks it."""
    GUESS_THEN_RIGHT = "guess_then_right"
    """One wrong guess at the guessed account, then its right details: verified, or
    told the account is held once it is over its limit."""
    RIGHT_DETAILS = "right_details"
    """The guessed account's right details, and nothing wrong (after the load)."""


@dataclass(frozen=True)
class CallPlan:
    index: int
    kind: CallKind
    customer: Customer
    """Whose order the call is about (for guesses, the account guessed at)."""
    order: Order
    lines: tuple[str, ...]
    """What the caller says, in order; later lines only when the agent asked for them."""
    new_address: PostalAddress | None = None


@dataclass(frozen=True)
class ToolOutput:
    name: str
    output: str
    is_error: bool


@dataclass(frozen=True)
class CallOutcome:
    """A finished call as its caller and its session saw it."""

    index: int
    kind: CallKind
    call_id: str
    worker: int
    """Which process ran it: 0 when all ran in one."""
    heard: tuple[str, ...]
    """Everything the agent said, in order."""
    tools: tuple[ToolOutput, ...]
    identity_checks: int
    verified_customer_id: str | None

    def outputs(self, name: str) -> list[ToolOutput]:
        return [tool for tool in self.tools if tool.name == name]


@dataclass(frozen=True)
class Population:
    customers: tuple[Customer, ...]
    orders: tuple[Order, ...]
    plans: tuple[CallPlan, ...]
    shared_change_order: Order
    shared_cancel_order: Order
    guessed: Customer
    guessed_order: Order

    def plans_of(self, *kinds: CallKind) -> list[CallPlan]:
        return [plan for plan in self.plans if plan.kind in kinds]


_FIRST_NAMES = ("Avery", "Blake", "Casey", "Dana", "Emery", "Finley")
_LAST_NAMES = ("Quinn", "Rivera", "Sato", "Okafor", "Lindqvist")
_PLACED_ON = dt.date(2026, 11, 20)


def _customer(number: int, first: str, last: str) -> Customer:
    return Customer(
        customer_id=f"L-{number:04d}",
        full_name=f"{first} {last}",
        phone=f"+1415555{2000 + number:04d}",
        email=f"{first.lower()}.{last.lower()}@example.com",
        postal_code=f"{95000 + number}",
        country="US",
    )


def _order(order_id: str, customer: Customer, number: int) -> Order:
    return Order(
        order_id=order_id,
        customer_id=customer.customer_id,
        status=OrderStatus.PENDING,
        items=(OrderItem(name="Cast-iron teapot", quantity=1),),
        placed_on=_PLACED_ON,
        shipping_address=PostalAddress(
            street=f"{10 + number} Pine Street",
            city="San Francisco",
            region="CA",
            postal_code="94109",
            country="US",
        ),
    )


def says_details(customer: Customer, *, postal_code: str | None = None, **changes: str) -> str:
    """The three identity details in one breath, any of them replaced by a wrong one."""
    name = changes.get("full_name", customer.full_name)
    contact = changes.get("phone_or_email", customer.email)
    return f"{name}, {postal_code or customer.postal_code}, {contact}"


def _new_address(number: int) -> PostalAddress:
    return validated_address(
        street=f"{100 + number} Market Street",
        city="San Francisco",
        region="CA",
        postal_code="94105",
        country="US",
    )


def _round_robin(*groups: Sequence[CallPlan]) -> list[CallPlan]:
    """One of each kind in turn, so every worker process gets a share of every kind."""
    mixed = itertools.chain.from_iterable(itertools.zip_longest(*groups))
    return [plan for plan in mixed if plan is not None]


def build_population(
    *, changes: int = 16, shared_changes: int = 8, cancels: int = 10, shared_cancels: int = 8
) -> Population:
    """The customers, orders and calls of the load: distinct and shared address changes,
    distinct and shared cancellations, and eight calls guessing at one account (four
    that lock themselves with three wrong guesses, four with one wrong guess then the
    right details), 50 calls with the defaults."""
    names = itertools.product(_FIRST_NAMES, _LAST_NAMES)
    customers = [_customer(number, *name) for number, name in enumerate(names, start=1)]
    needed = changes + cancels + 3
    assert len(customers) >= needed, "not enough distinct names for the callers"
    customers = customers[:needed]
    own_changes, own_cancels = customers[:changes], customers[changes : changes + cancels]
    sharing_a_change, sharing_a_cancel, guessed = customers[changes + cancels :]

    orders: list[Order] = []

    def order_of(customer: Customer, order_id: str) -> Order:
        orders.append(_order(order_id, customer, len(orders)))
        return orders[-1]

    addresses = (_new_address(number) for number in itertools.count())

    def change(kind: CallKind, customer: Customer, order: Order) -> CallPlan:
        address = next(addresses)
        said = (
            f"{says_details(customer)}. Please change the delivery address of order "
            f"{order.order_id} to {address.street}, San Francisco, CA 94105"
        )
        return CallPlan(0, kind, customer, order, (said, "yes", "no"), address)

    def cancel(kind: CallKind, customer: Customer, order: Order) -> CallPlan:
        said = f"{says_details(customer)}. Please cancel order {order.order_id}"
        return CallPlan(0, kind, customer, order, (said, "I don't need it any more", "yes"))

    guessed_order = order_of(guessed, "750001")
    wrong_guesses = itertools.cycle(
        [
            {"postal_code": "94999"},
            {"full_name": "Robin Nobody"},
            {"phone_or_email": "someone.else@example.org"},
        ]
    )

    def guesses(kind: CallKind, wrong: int) -> CallPlan:
        lines = [says_details(guessed, **next(wrong_guesses)) for _ in range(wrong)]
        if kind is CallKind.GUESS_THEN_RIGHT:
            lines.append(says_details(guessed))
        lines[0] = f"{lines[0]}. Where is order {guessed_order.order_id}?"
        return CallPlan(0, kind, guessed, guessed_order, tuple(lines))

    shared_change_order = order_of(sharing_a_change, "720001")
    shared_cancel_order = order_of(sharing_a_cancel, "740001")
    groups = [
        [
            change(CallKind.CHANGE, customer, order_of(customer, f"{710001 + number}"))
            for number, customer in enumerate(own_changes)
        ],
        [
            change(CallKind.SHARED_CHANGE, sharing_a_change, shared_change_order)
            for _ in range(shared_changes)
        ],
        [
            cancel(CallKind.CANCEL, customer, order_of(customer, f"{730001 + number}"))
            for number, customer in enumerate(own_cancels)
        ],
        [
            cancel(CallKind.SHARED_CANCEL, sharing_a_cancel, shared_cancel_order)
            for _ in range(shared_cancels)
        ],
        [guesses(CallKind.LOCKOUT, 3) for _ in range(4)],
        [guesses(CallKind.GUESS_THEN_RIGHT, 1) for _ in range(4)],
    ]
    plans = [
        CallPlan(index, plan.kind, plan.customer, plan.order, plan.lines, plan.new_address)
        for index, plan in enumerate(_round_robin(*groups))
    ]
    return Population(
        customers=tuple(customers),
        orders=tuple(orders),
        plans=tuple(plans),
        shared_change_order=shared_change_order,
        shared_cancel_order=shared_cancel_order,
        guessed=guessed,
        guessed_order=guessed_order,
    )


async def add_population(store: Store, population: Population) -> None:
    """Writes the generated customers and their orders, beside the demo data."""
    async with AsyncSession(store.engine) as session, session.begin():
        session.add_all(customer_to_row(customer) for customer in population.customers)
        # Orders reference customers: the customers go first.
        await session.flush()
        session.add_all(order_to_row(order) for order in population.orders)


# --- one call ------------------------------------------------------------------------


def _agent_lines(session: AgentSession[CallState]) -> list[str]:
    return [
        item.text_content or ""
        for item in session.history.items
        if isinstance(item, llm.ChatMessage) and item.role == "assistant"
    ]


class _Caller:
    """Says a plan's lines, each only when the agent asked for it."""

    def __init__(self, session: AgentSession[CallState], plan: CallPlan) -> None:
        self.session = session
        self.plan = plan
        self._heard = 0

    async def say(self, line: str) -> list[str]:
        """Says `line`; returns what the agent said in reply."""
        await self.session.run(user_input=line)
        lines = _agent_lines(self.session)
        new, self._heard = lines[self._heard :], len(lines)
        return new

    async def call(self) -> None:
        self._heard = len(_agent_lines(self.session))
        plan = self.plan
        first, *later = plan.lines
        reply = await self.say(first)
        if plan.kind in (CallKind.CHANGE, CallKind.SHARED_CHANGE):
            assert plan.new_address is not None
            if read_back_question(plan.new_address) in reply:
                reply = await self.say(later[0])
                if any(line.endswith(SMS_QUESTION) for line in reply):
                    await self.say(later[1])
        elif plan.kind in (CallKind.CANCEL, CallKind.SHARED_CANCEL):
            order = OrderLookupResult.from_order(plan.order)
            if cancellation_question(order) in reply:
                reply = await self.say(later[0])
                # The population's orders carry no payments: nothing to refund is said.
                if cancellation_read_back(order, CancelReason.NO_LONGER_NEEDED, "") in reply:
                    await self.say(later[1])
        else:
            for line in later:
                if not any(mismatch_message(left) in reply for left in (1, 2)):
                    break
                reply = await self.say(line)


async def run_call(
    plan: CallPlan, shared: Store, settings: Settings, *, worker: int = 0
) -> CallOutcome:
    """One call on a `for_call()` handle of the process's store, as the server runs it."""
    async with call_session(OfflineLLM(), settings=settings, store=shared.for_call()) as session:
        await _Caller(session, plan).call()
        items = session.history.items
        verified = session.userdata.verified_customer
        return CallOutcome(
            index=plan.index,
            kind=plan.kind,
            call_id=session.userdata.call_id,
            worker=worker,
            heard=tuple(_agent_lines(session)),
            tools=tuple(
                ToolOutput(item.name, item.output, item.is_error)
                for item in items
                if isinstance(item, llm.FunctionCallOutput)
            ),
            identity_checks=sum(
                1
                for item in items
                if isinstance(item, llm.FunctionCall) and item.name in IDENTITY_CHECKS
            ),
            verified_customer_id=None if verified is None else verified.customer_id,
        )


class CallsFailed(AssertionError):
    """Calls that raised instead of finishing: every one, with its traceback."""


async def run_calls(
    plans: Iterable[CallPlan], shared: Store, settings: Settings, *, worker: int = 0
) -> list[CallOutcome]:
    """All `plans` at once on one store; raises `CallsFailed` naming every call that
    raised (after letting the others finish)."""
    plans = list(plans)
    async with asyncio.timeout(HANG_GUARD_S):
        results = await asyncio.gather(
            *(run_call(plan, shared, settings, worker=worker) for plan in plans),
            return_exceptions=True,
        )
    failures = [
        f"call {plan.index} ({plan.kind}):\n"
        + "".join(traceback.format_exception(type(result), result, result.__traceback__))
        for plan, result in zip(plans, results, strict=True)
        if isinstance(result, BaseException)
    ]
    if failures:
        raise CallsFailed(f"{len(failures)} of {len(plans)} calls raised:\n" + "\n".join(failures))
    return [result for result in results if isinstance(result, CallOutcome)]


# --- worker processes ----------------------------------------------------------------


def _worker(
    worker: int,
    database_url: str,
    plans: list[CallPlan],
    settings: Settings,
    results: Any,
    go: Event,
) -> None:
    """A worker process: opens its own store, says it is ready, waits for the others,
    then runs its share of the calls at once and sends back their outcomes (or its
    traceback)."""
    try:
        # The suite's isolation (tests/conftest.py) is in the environment spawn passed on.
        if os.environ.get(IGNORE_ENV_FILES_VARIABLE) != "1":
            raise RuntimeError("the worker process did not inherit the test isolation")
        outcomes = asyncio.run(_worker_calls(worker, database_url, plans, settings, results, go))
    except BaseException:
        results.put(("failed", worker, traceback.format_exc()))
        raise SystemExit(1) from None
    results.put(("done", worker, outcomes))


async def _worker_calls(
    worker: int,
    database_url: str,
    plans: list[CallPlan],
    settings: Settings,
    results: Any,
    go: Event,
) -> list[CallOutcome]:
    store = await Store.open(database_url)
    try:
        results.put(("ready", worker, None))
        if not await asyncio.to_thread(go.wait, HANG_GUARD_S):
            raise RuntimeError("the other worker processes never became ready")
        return await run_calls(plans, store, settings, worker=worker)
    finally:
        await store.close()


def right_details_call(population: Population) -> CallPlan:
    """A call giving the guessed account's right details at once, asking about its order."""
    said = (
        f"{says_details(population.guessed)}. Where is order {population.guessed_order.order_id}?"
    )
    return CallPlan(
        -1, CallKind.RIGHT_DETAILS, population.guessed, population.guessed_order, (said,)
    )


def shares(plans: Sequence[CallPlan], processes: int) -> list[list[CallPlan]]:
    """The plans dealt out to `processes` workers like cards, kind by kind, so that every
    worker gets its part of every kind (and of the races on the shared orders)."""
    dealt: list[list[CallPlan]] = [[] for _ in range(processes)]
    turn = itertools.count()
    for kind in CallKind:
        for plan in plans:
            if plan.kind is kind:
                dealt[next(turn) % processes].append(plan)
    return [sorted(share, key=lambda plan: plan.index) for share in dealt]


async def run_in_processes(
    database_url: str, plans: Sequence[CallPlan], settings: Settings, *, processes: int = 4
) -> list[CallOutcome]:
    """The plans spread over `processes` worker processes (spawned, as new interpreters)
    that start their calls together once every one has opened its store. A worker that
    fails fails this with its traceback; one that dies without a word, with its exit
    code; the hang guard bounds the rest."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    go = context.Event()
    workers = [
        context.Process(
            target=_worker,
            args=(worker, database_url, share, settings, results, go),
            name=f"calls-at-once-{worker}",
            daemon=True,
        )
        for worker, share in enumerate(shares(plans, processes))
    ]
    for process in workers:
        process.start()
    ready: set[int] = set()
    done: dict[int, list[CallOutcome]] = {}
    finished = False
    try:
        async with asyncio.timeout(HANG_GUARD_S):
            while len(done) < processes:
                state, worker, payload = await _next_message(results, workers, done)
                if state == "failed":
                    raise CallsFailed(f"worker process {worker} failed:\n{payload}")
                if state == "ready":
                    ready.add(worker)
                    if len(ready) == processes:
                        go.set()
                else:
                    done[worker] = payload
        finished = True
    finally:
        for process in workers:
            if finished:
                process.join(timeout=30)
            if process.is_alive():
                process.kill()
                process.join(timeout=10)
        results.close()
        with contextlib.suppress(Exception):
            results.join_thread()
    return [outcome for worker in sorted(done) for outcome in done[worker]]


async def _next_message(
    results: Any, workers: list[Any], done: dict[int, list[CallOutcome]]
) -> tuple[str, int, Any]:
    """The next worker message. A worker that ended without sending its outcomes gets a
    last chance to have its words read (a traceback is sent just before exiting); then
    this fails with its exit code instead of waiting for the hang guard."""
    while True:
        with contextlib.suppress(queue.Empty):
            message: tuple[str, int, Any] = results.get_nowait()
            return message
        ended = [
            worker
            for worker, process in enumerate(workers)
            if worker not in done and process.exitcode is not None
        ]
        if ended:
            with contextlib.suppress(queue.Empty):
                message = await asyncio.to_thread(results.get, True, 10.0)
                return message
            worker = ended[0]
            raise CallsFailed(
                f"worker process {worker} ended with exit code {workers[worker].exitcode} "
                "without sending its outcomes"
            )
        await asyncio.sleep(0.05)
