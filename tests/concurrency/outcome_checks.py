"""What fifty calls at once must leave behind: every confirmed change applied once with
one audit record, one cancellation per order, and failed identity checks counted
exactly, whatever the interleaving.

Each check reads the database through the public `Store` methods and compares it with
what every caller heard. Problems are collected, not raised one by one, so a failure
lists all of them.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable

from concurrency.calls_at_once import (
    CallKind,
    CallOutcome,
    CallPlan,
    Population,
    right_details_call,
    run_call,
)
from customer_service.addresses import read_back
from customer_service.call.identity_hold import Hold, hold_on
from customer_service.call.state import CallerLine
from customer_service.call.wording import (
    BOUND_APOLOGY,
    LLM_FAILURE_APOLOGY,
    REPEATED_CALL,
    RESULT_UNUSABLE,
    STORE_APOLOGY,
    UNEXPECTED_APOLOGY,
    spaced_digits,
)
from customer_service.domain import OrderStatus
from customer_service.privacy import mask_address
from customer_service.settings import Settings
from customer_service.specialists.cancellation import not_cancellable_message
from customer_service.specialists.identity import VERIFICATION_LOCKED, mismatch_message
from customer_service.store import AddressChange, AuditEvent, Store
from customer_service.store.seed import DEMO_CUSTOMERS
from customer_service.supervisor import TEXT_UPDATES_NOT_SET

NEVER_HEARD = {
    "the store apology": STORE_APOLOGY,
    "the unexpected-error apology": UNEXPECTED_APOLOGY,
    "the model-failure apology": LLM_FAILURE_APOLOGY,
    "the repeated-call stop": REPEATED_CALL,
    "the guardrail apology": BOUND_APOLOGY,
    "the unusable-result apology": RESULT_UNUSABLE,
    "the lost text-update offer": TEXT_UPDATES_NOT_SET,
}
"""Words that mean something failed under the load: none of the calls may hear them."""
CHANGES = (CallKind.CHANGE, CallKind.SHARED_CHANGE)
CANCELS = (CallKind.CANCEL, CallKind.SHARED_CANCEL)
GUESSES = (CallKind.LOCKOUT, CallKind.GUESS_THEN_RIGHT)
EVER = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


def done_changing(plan: CallPlan) -> str:
    assert plan.new_address is not None
    order = spaced_digits(plan.order.order_id)
    return f"Done. Order {order} will now be delivered to {read_back(plan.new_address)}."


def told_changed(plan: CallPlan, outcome: CallOutcome) -> bool:
    """Whether the caller heard their change made: "Done. Order ... will now be delivered
    to ..." (also when another call of theirs answered the text-update offer meanwhile;
    see test_text_update_offer_race)."""
    return any(line.startswith(done_changing(plan)) for line in outcome.heard)


def done_cancelling(order_id: str) -> str:
    return f"Done. Order {spaced_digits(order_id)} is cancelled."


class Findings:
    """Problems found, each naming the call or order it concerns."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def expect(self, condition: bool, problem: str) -> None:
        if not condition:
            self.problems.append(problem)

    def assert_none(self) -> None:
        assert not self.problems, f"{len(self.problems)} problems:\n" + "\n".join(self.problems)


def _calls(
    plans: Iterable[CallPlan], outcomes: dict[int, CallOutcome]
) -> list[tuple[CallPlan, CallOutcome]]:
    return [(plan, outcomes[plan.index]) for plan in plans]


def _by(
    items: Iterable[AuditEvent | AddressChange], order_id: str
) -> list[AuditEvent | AddressChange]:
    return [item for item in items if item.order_id == order_id]


async def check_the_load(
    store: Store, population: Population, outcomes: list[CallOutcome], settings: Settings
) -> None:
    """Everything the calls left behind agrees with what every caller heard."""
    found = Findings()
    by_index = {outcome.index: outcome for outcome in outcomes}
    assert sorted(by_index) == [plan.index for plan in population.plans], "calls missing"
    assert len({outcome.call_id for outcome in outcomes}) == len(outcomes), "call ids repeat"
    for outcome in outcomes:
        said = [*outcome.heard, *(tool.output for tool in outcome.tools)]
        for what, words in NEVER_HEARD.items():
            found.expect(
                not any(words in line for line in said),
                f"call {outcome.index} ({outcome.kind}, worker {outcome.worker}) heard {what}",
            )
    for plan, outcome in _calls(population.plans_of(*CHANGES, *CANCELS), by_index):
        found.expect(
            outcome.verified_customer_id == plan.customer.customer_id
            and outcome.identity_checks == 1,
            f"call {plan.index} ({plan.kind}) was not verified at its one check",
        )
    changes = await store.address_changes()
    changed = await store.audit_events(kind="address_changed")
    cancelled = await store.audit_events(kind="order_cancelled")
    await _check_distinct_changes(found, store, population, by_index, changes, changed)
    await _check_shared_changes(found, store, population, by_index, changes, changed)
    await _check_cancellations(found, store, population, by_index, cancelled)
    await _check_identity_counts(found, store, population, by_index, settings)

    # Nothing written twice, nothing written that no caller confirmed.
    confirmed = population.plans_of(*CHANGES)
    found.expect(
        len(changes) == len(changed) == len(confirmed),
        f"{len(confirmed)} changes confirmed, {len(changes)} change rows, "
        f"{len(changed)} address_changed audit events",
    )
    found.expect(
        len(cancelled) == len(population.plans_of(CallKind.CANCEL)) + 1,
        f"{len(cancelled)} order_cancelled audit events",
    )
    untouched = await store.get_order(population.guessed_order.order_id)
    found.expect(
        untouched is not None and untouched.status is OrderStatus.PENDING,
        "the guessed account's order changed",
    )
    found.assert_none()


def _check_change_event(
    found: Findings, event: AuditEvent, change: AddressChange, where: str
) -> None:
    found.expect(
        (event.customer_id, event.detail)
        == (
            change.customer_id,
            {
                "old_address": mask_address(change.old_address.one_line()),
                "new_address": mask_address(change.new_address.one_line()),
            },
        ),
        f"{where}: its address_changed audit event does not match its change",
    )


async def _check_distinct_changes(
    found: Findings,
    store: Store,
    population: Population,
    outcomes: dict[int, CallOutcome],
    changes: list[AddressChange],
    changed: list[AuditEvent],
) -> None:
    for plan, outcome in _calls(population.plans_of(CallKind.CHANGE), outcomes):
        where = f"call {plan.index} (order {plan.order.order_id}, worker {outcome.worker})"
        found.expect(
            told_changed(plan, outcome),
            f"{where} was not told its change was made: {outcome.heard[-3:]}",
        )
        order = await store.get_order(plan.order.order_id)
        assert order is not None
        found.expect(
            order.shipping_address == plan.new_address and order.status is OrderStatus.PENDING,
            f"{where}: the order ships to {order.shipping_address}, not the confirmed address",
        )
        rows = _by(changes, plan.order.order_id)
        events = _by(changed, plan.order.order_id)
        found.expect(len(rows) == 1, f"{where}: {len(rows)} change rows")
        found.expect(len(events) == 1, f"{where}: {len(events)} address_changed events")
        if len(rows) == len(events) == 1:
            [row], [event] = rows, events
            assert isinstance(row, AddressChange)
            assert isinstance(event, AuditEvent)
            found.expect(
                (row.call_id, row.old_address, row.new_address)
                == (outcome.call_id, plan.order.shipping_address, plan.new_address),
                f"{where}: the change row is not this call's change",
            )
            found.expect(event.call_id == outcome.call_id, f"{where}: the event is another call's")
            _check_change_event(found, event, row, where)


async def _check_shared_changes(
    found: Findings,
    store: Store,
    population: Population,
    outcomes: dict[int, CallOutcome],
    changes: list[AddressChange],
    changed: list[AuditEvent],
) -> None:
    shared = population.shared_change_order
    calls = _calls(population.plans_of(CallKind.SHARED_CHANGE), outcomes)
    for plan, outcome in calls:
        found.expect(
            told_changed(plan, outcome),
            f"shared-order call {plan.index} (worker {outcome.worker}) was not told its "
            f"change was made: {outcome.heard[-3:]}",
        )
    rows = [row for row in _by(changes, shared.order_id) if isinstance(row, AddressChange)]
    events = [event for event in _by(changed, shared.order_id) if isinstance(event, AuditEvent)]
    expected = Counter(outcome.call_id for _, outcome in calls)
    found.expect(
        Counter(row.call_id for row in rows) == expected,
        f"shared order: change rows per call {Counter(row.call_id for row in rows)}, "
        f"expected one for each of {sorted(expected)}",
    )
    found.expect(
        Counter(event.call_id for event in events) == expected,
        f"shared order: address_changed events per call "
        f"{Counter(event.call_id for event in events)}, expected one each",
    )
    address_of = {outcome.call_id: plan.new_address for plan, outcome in calls}
    for row in rows:
        found.expect(
            row.new_address == address_of.get(row.call_id),
            f"shared order: call {row.call_id} recorded an address it did not confirm",
        )
        for event in events:
            if event.call_id == row.call_id:
                _check_change_event(found, event, row, f"shared order, {row.call_id}")
    # Each change starts from the address the one before it left: no update was lost
    # to a stale read. (Rows come oldest first, in the order they were written.)
    previous = shared.shipping_address
    for number, row in enumerate(rows):
        found.expect(
            row.old_address == previous,
            f"shared order: change {number} ({row.call_id}) started from {row.old_address}, "
            f"but the address then was {previous}: an update was lost",
        )
        previous = row.new_address
    order = await store.get_order(shared.order_id)
    assert order is not None
    found.expect(
        bool(rows) and order.shipping_address == rows[-1].new_address,
        f"shared order ships to {order.shipping_address}, not the last change's address",
    )


async def _check_cancellations(
    found: Findings,
    store: Store,
    population: Population,
    outcomes: dict[int, CallOutcome],
    cancelled: list[AuditEvent],
) -> None:
    for plan, outcome in _calls(population.plans_of(CallKind.CANCEL), outcomes):
        where = f"cancel call {plan.index} (order {plan.order.order_id}, worker {outcome.worker})"
        found.expect(
            any(line.startswith(done_cancelling(plan.order.order_id)) for line in outcome.heard),
            f"{where} was not told the order is cancelled: {outcome.heard[-2:]}",
        )
        order = await store.get_order(plan.order.order_id)
        assert order is not None
        found.expect(order.status is OrderStatus.CANCELLED, f"{where}: status {order.status}")
        events = _by(cancelled, plan.order.order_id)
        found.expect(
            [event.call_id for event in events] == [outcome.call_id],
            f"{where}: order_cancelled events from calls {[e.call_id for e in events]}",
        )

    shared = population.shared_cancel_order.order_id
    spaced = spaced_digits(shared)
    told_already = {
        (not_cancellable_message(shared, OrderStatus.CANCELLED), True),
        (f"Order {spaced} is cancelled.", False),
    }
    winners: list[str] = []
    for plan, outcome in _calls(population.plans_of(CallKind.SHARED_CANCEL), outcomes):
        answers = [(tool.output, tool.is_error) for tool in outcome.outputs("cancel_order")]
        if answers == [(done_cancelling(shared), False)]:
            winners.append(outcome.call_id)
            continue
        found.expect(
            len(answers) == 1 and answers[0] in told_already,
            f"shared-cancel call {plan.index} (worker {outcome.worker}) was neither the one "
            f"that cancelled nor told it is already cancelled: {answers}",
        )
    found.expect(len(winners) == 1, f"shared order cancelled by {len(winners)} calls")
    order = await store.get_order(shared)
    assert order is not None
    found.expect(order.status is OrderStatus.CANCELLED, f"shared order status {order.status}")
    events = _by(cancelled, shared)
    found.expect(
        [event.call_id for event in events] == winners,
        f"shared order: order_cancelled events from {[e.call_id for e in events]}, "
        f"the call told it cancelled: {winners}",
    )


async def _check_identity_counts(
    found: Findings,
    store: Store,
    population: Population,
    outcomes: dict[int, CallOutcome],
    settings: Settings,
) -> None:
    guessed = population.guessed.customer_id
    failed_checks = 0
    for plan, outcome in _calls(population.plans_of(*GUESSES), outcomes):
        where = f"guessing call {plan.index} ({plan.kind}, worker {outcome.worker})"
        verified = outcome.verified_customer_id is not None
        # The right details, when given, verify, or on a held account count like a miss.
        failed = outcome.identity_checks - int(verified)
        failed_checks += failed
        kinds = Counter(e.kind for e in await store.audit_events(call_id=outcome.call_id))
        found.expect(
            kinds["identity_failed"] == failed,
            f"{where}: {failed} failed checks, {kinds['identity_failed']} identity_failed events",
        )
        found.expect(
            mismatch_message(settings.identity_max_attempts - 1) in outcome.heard,
            f"{where}: the first wrong guess was not refused: {outcome.heard}",
        )
        if plan.kind is CallKind.LOCKOUT:
            found.expect(
                outcome.identity_checks == settings.identity_max_attempts
                and not verified
                and outcome.heard[-1] == VERIFICATION_LOCKED,
                f"{where}: not locked after {outcome.identity_checks} checks: {outcome.heard}",
            )
            continue
        found.expect(outcome.identity_checks == 2, f"{where}: {outcome.identity_checks} checks")
        if verified:
            # The account was under its limit when the right details were checked.
            found.expect(
                outcome.verified_customer_id == guessed and kinds["identity_verified"] == 1,
                f"{where}: verified, but its audit says {dict(kinds)}",
            )
        else:
            # Held: the right details heard what a second wrong guess hears.
            found.expect(
                outcome.heard[-1] == mismatch_message(settings.identity_max_attempts - 2)
                and kinds["identity_verified"] == 0,
                f"{where}: refused, but heard {outcome.heard[-1:]} with audit {dict(kinds)}",
            )
    counted = await store.identity_failures_since(guessed, EVER)
    found.expect(
        counted == failed_checks,
        f"the guessed account counts {counted} failed checks; the calls made {failed_checks}",
    )
    others = [c.customer_id for c in (*population.customers, *DEMO_CUSTOMERS)]
    for customer_id in others:
        if customer_id != guessed:
            misplaced = await store.identity_failures_since(customer_id, EVER)
            found.expect(misplaced == 0, f"{customer_id} counts {misplaced} failed checks")


async def check_right_details_held_over_the_limit(
    store: Store, population: Population, settings: Settings
) -> None:
    """After the load the guessed account is held: a call with every detail right hears
    what a wrong guess hears, is not verified, and its check is counted like one."""
    guessed = population.guessed
    before = await store.identity_failures_since(guessed.customer_id, EVER)
    [candidate] = [
        candidate
        for candidate in await store.identity_candidates(guessed.postal_code, EVER)
        if candidate.customer.customer_id == guessed.customer_id
    ]
    assert hold_on(candidate, settings, CallerLine()) is Hold.HELD, candidate
    outcome = await run_call(right_details_call(population), store, settings)
    kinds = Counter(e.kind for e in await store.audit_events(call_id=outcome.call_id))
    assert outcome.verified_customer_id is None
    assert outcome.heard[-1] == mismatch_message(settings.identity_max_attempts - 1)
    assert kinds["identity_failed"] == 1, kinds
    assert kinds["identity_verified"] == kinds["order_disclosed"] == 0, kinds
    assert await store.identity_failures_since(guessed.customer_id, EVER) == before + 1
