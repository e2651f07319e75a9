"""A run of one τ²-bench task graded as the benchmark grades it, and pass^k over trials.

A run passes when all of these hold, each failure given as a reason:
- the conversation ended as τ²-bench evaluates it: the user stopped (its stop,
  transfer or out-of-scope token) or the agent ended the call or put the caller through
  to a person; a run cut off by the turn limit or an error fails;
- the store the agent left holds the records the task's gold actions leave (both
  performed through the store's own operations, each on a fresh copy of the database);
- every fact of the task's `communicate_info` is in something the agent said, as
  τ²-bench looks for it (case and commas aside), or in the form this agent speaks it
  (an amount in dollars and cents, a long number digit by digit);
- the agent put the caller through to a person exactly when the task's gold actions do.

τ²-bench's retail tasks reward the store alone (their `reward_basis`); the two later
checks are this runner's, so `Grade.store_passed` is the figure comparable with the
published leaderboard and `Grade.passed` the stricter one.

Reasons name orders by number and fields by name, never a value, and a fact never said
is masked as call reports mask it: the benchmark's users are made up, but their records
have the shape of personal data.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from math import comb
from typing import Any

from benchmarks.tau2.data import task_actions
from customer_service.call.payment_methods import spoken_amount
from customer_service.call.speakable import spaced_digits
from customer_service.privacy.free_text import mask_free_text

__all__ = ["Ending", "Grade", "differing_records", "grade", "pass_hat_k", "said_forms"]

TRANSFER_TOOL = "transfer_to_human_agents"
"""τ²-bench's gold action for putting the caller through to a person."""


class Ending(StrEnum):
    """How a conversation ended."""

    USER_STOP = "user_stop"
    """The user said it was done, transferred, or out of scope (τ²-bench's stop tokens)."""
    AGENT_STOP = "agent_stop"
    """The agent ended the call."""
    TRANSFER = "transfer"
    """The agent put the caller through to a person."""
    TURN_LIMIT = "turn_limit"
    ERROR = "error"

    @property
    def evaluated(self) -> bool:
        """τ²-bench grades a conversation that ended so; any other ending scores 0."""
        return self in {Ending.USER_STOP, Ending.AGENT_STOP, Ending.TRANSFER}


@dataclass(frozen=True)
class Grade:
    store_passed: bool
    """The ending is evaluated and the store matches: τ²-bench's retail reward."""
    reasons: tuple[str, ...]
    """Why the run fails; empty when it passes."""

    @property
    def passed(self) -> bool:
        return not self.reasons


def grade(
    task: dict[str, Any],
    *,
    ending: Ending,
    left: dict[str, Any],
    gold: dict[str, Any],
    said: list[str],
    transferred: bool,
) -> Grade:
    """`left` and `gold`: the store's records (`Store.export_tau2`) after the agent's run
    and after the gold actions; `said`: the agent's messages as the user received them."""
    reasons = []
    if not ending.evaluated:
        reasons.append(f"the conversation did not end as τ²-bench grades it ({ending.value})")
    differing = differing_records(left, gold)
    reasons.extend(differing)
    criteria = task.get("evaluation_criteria") or {}
    for fact in criteria.get("communicate_info") or []:
        if not _was_said(str(fact), said):
            # Masked as the call reports mask it: a tracking number keeps its last four.
            reasons.append(f"the agent never said {mask_free_text(str(fact))!r}")
    due = any(action["name"] == TRANSFER_TOOL for action in task_actions(task))
    if transferred and not due:
        reasons.append("the agent put the caller through to a person; the task does not")
    if due and not transferred:
        reasons.append("the task puts the caller through to a person; the agent did not")
    return Grade(store_passed=ending.evaluated and not differing, reasons=tuple(reasons))


def differing_records(left: dict[str, Any], gold: dict[str, Any]) -> list[str]:
    """One reason per record that differs, naming its fields: orders by number, users
    counted (a user's id holds their name)."""
    reasons = []
    orders_left, orders_gold = left["orders"], gold["orders"]
    for order_id in sorted(orders_left.keys() | orders_gold.keys()):
        fields = _differing_fields(orders_left.get(order_id), orders_gold.get(order_id))
        if fields:
            reasons.append(f"order {order_id} differs from the gold store in {fields}")
    users_left, users_gold = left["users"], gold["users"]
    for user_id in sorted(users_left.keys() | users_gold.keys()):
        fields = _differing_fields(users_left.get(user_id), users_gold.get(user_id))
        if fields:
            reasons.append(f"a user's record differs from the gold store in {fields}")
    return reasons


def _differing_fields(left: dict[str, Any] | None, gold: dict[str, Any] | None) -> str:
    if left == gold:
        return ""
    if left is None or gold is None:
        return "being there at all"
    fields = left.keys() | gold.keys()
    return ", ".join(sorted(key for key in fields if left.get(key) != gold.get(key)))


def said_forms(fact: str) -> list[str]:
    """`fact` as τ²-bench looks for it, and as this agent speaks it."""
    forms = [fact]
    stripped = fact.replace(",", "").strip()
    if stripped.isdigit() and len(stripped) >= 5:
        forms.append(spaced_digits(stripped))
    elif "." in stripped:
        with suppress(InvalidOperation):
            forms.append(spoken_amount(Decimal(stripped)))
    return forms


def _was_said(fact: str, said: list[str]) -> bool:
    heard = [message.lower().replace(",", "") for message in said]
    return any(
        form.lower().replace(",", "") in message for form in said_forms(fact) for message in heard
    )


def pass_hat_k(passes: dict[str, list[bool]]) -> dict[int, float]:
    """τ²-bench's pass^k for k = 1 … the fewest trials of a task: per task, the chance
    that k trials drawn from its n, c of which passed, all pass (C(c, k) / C(n, k)),
    averaged over tasks."""
    if not passes:
        return {}
    trials = min(len(results) for results in passes.values())
    return {
        k: sum(comb(sum(results), k) / comb(len(results), k) for results in passes.values())
        / len(passes)
        for k in range(1, trials + 1)
    }
