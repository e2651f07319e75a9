"""A scripted model that makes a τ²-bench task's gold calls through the agent's own tools,
as a correct agent would, and a caller who gives what it is asked for and says yes.

Each gold write becomes the supervisor tool that does that work and the steps of its
specialist: what the caller gave, recorded with the specialist's record tools, then the
read-back, the caller's own "yes" and the confirm tool. The specialists' checks, the
confirmations read in code and the store's rules all run as in a call; only the
model's choices are the gold actions'. Reads (order, user and product details) change
nothing in the store and are not replayed: a real model makes them to decide, and the
agent's tools read what they need themselves.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from benchmarks.tau2.data import task_actions
from benchmarks.tau2.users import STOP, Usage
from livekit.agents import llm

from support.scripted_llm import Call, Decision, Say, ScriptedLLM, Turn

__all__ = ["GoldUser", "GoldWrite", "NotExpressible", "caller_of", "gold_pair", "gold_writes"]

GO_ON = "Yes, that's what I'd like."
YES = "Yes."
REQUEST = "I have a request about my account."
MAX_LINES_PER_STEP = 5
"""Caller lines given for a specialist's record steps before the drive is a failure."""


class NotExpressible(Exception):
    """A gold action the agent's tools cannot make, with the reason."""


@dataclass
class GoldWrite:
    """One gold write as the agent makes it."""

    action: str
    supervisor_tool: str
    supervisor_arguments: dict[str, Any]
    records: deque[Call]
    """The specialist's record calls, one per caller line, in order."""
    confirm: str
    answered: bool = False
    """Its supervisor tool has answered: the work is done, or was refused."""


def _address(arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "street": arguments["address1"],
        "unit": arguments["address2"] or None,
        "city": arguments["city"],
        "region": arguments["state"],
        "postal_code": arguments["zip"],
        "country": arguments["country"],
    }


def _line_numbers(db: dict[str, Any], order_id: str, item_ids: list[str]) -> list[int]:
    """The returned items as the returns specialist lists them: their lines, from 1."""
    items = [item["item_id"] for item in db["orders"][order_id]["items"]]
    free = list(range(len(items)))
    numbers = []
    for item_id in item_ids:
        line = next((index for index in free if items[index] == item_id), None)
        if line is None:
            raise NotExpressible(f"item {item_id} is not in order {order_id}")
        free.remove(line)
        numbers.append(line + 1)
    return numbers


def _gold_write(db: dict[str, Any], name: str, arguments: dict[str, Any]) -> GoldWrite | None:
    order = {"order_id": arguments.get("order_id")}
    swap = {key: arguments.get(key) for key in ("item_ids", "new_item_ids", "payment_method_id")}
    if name == "cancel_pending_order":
        reason = Call("record_cancellation_reason", {"reason": arguments["reason"]})
        return GoldWrite(name, "cancel_order", order, deque([reason]), "confirm_cancellation")
    if name == "modify_pending_order_address":
        record = Call("record_address", _address(arguments))
        return GoldWrite(name, "update_address", order, deque([record]), "confirm_address")
    if name == "modify_user_address":
        record = Call("record_account_address", _address(arguments))
        return GoldWrite(
            name, "change_default_address", {}, deque([record]), "confirm_account_address"
        )
    if name == "modify_pending_order_items":
        record = Call("record_item_change", swap)
        return GoldWrite(name, "change_items", order, deque([record]), "confirm_item_change")
    if name == "exchange_delivered_order_items":
        record = Call("record_exchange", swap)
        return GoldWrite(name, "exchange_items", order, deque([record]), "confirm_exchange")
    if name == "modify_pending_order_payment":
        record = Call(
            "record_payment_change", {"payment_method_id": arguments["payment_method_id"]}
        )
        return GoldWrite(
            name, "change_payment_method", order, deque([record]), "confirm_payment_change"
        )
    if name == "return_delivered_order_items":
        numbers = _line_numbers(db, arguments["order_id"], arguments["item_ids"])
        record = Call(
            "record_return",
            {
                "item_numbers": numbers,
                "reason": "other",
                "refund_method_id": arguments["payment_method_id"],
            },
        )
        return GoldWrite(name, "request_return", order, deque([record]), "confirm_return")
    return None


def gold_writes(db: dict[str, Any], actions: list[dict[str, Any]]) -> list[GoldWrite]:
    """The task's gold writes as the agent makes them, in order."""
    writes = []
    for action in actions:
        write = _gold_write(db, action["name"], action["arguments"])
        if write is not None:
            writes.append(write)
    return writes


def caller_of(db: dict[str, Any], actions: list[dict[str, Any]]) -> str | None:
    """The user the task's gold actions act for: named by a write, or owning its order."""
    for action in actions:
        arguments = action["arguments"]
        if "user_id" in arguments and action["name"] != "get_user_details":
            return str(arguments["user_id"])
        if "order_id" in arguments and action["name"] != "get_order_details":
            order = db["orders"].get(arguments["order_id"])
            if order is not None:
                return str(order["user_id"])
    return None


@dataclass
class GoldAgent:
    """The scripted model's rule: the next gold step for whichever agent is asking."""

    writes: deque[GoldWrite]
    identity: dict[str, Any]
    current: GoldWrite | None = None
    turns: list[str] = field(default_factory=list)

    def __call__(self, turn: Turn) -> Decision:
        last = turn.last_item
        if isinstance(last, llm.FunctionCallOutput):
            if self.current is not None and last.name == self.current.supervisor_tool:
                self.current.answered = True
            return Say(last.output)  # a well-behaved model relays what the tool said
        if "check_identity" in turn.tool_names:
            return Call("check_identity", self.identity)
        current = self.current
        if (current is not None and current.confirm in turn.tool_names) or (
            current is not None and current.records and current.records[0].name in turn.tool_names
        ):
            if current.records:
                return current.records.popleft()
            return Call(current.confirm)
        if self.writes and self.writes[0].supervisor_tool in turn.tool_names:
            self.current = self.writes.popleft()
            return Call(self.current.supervisor_tool, self.current.supervisor_arguments)
        return Say("Is there anything else I can help you with?")


class GoldUser:
    """The caller's side, as the benchmark's user: a request per gold write, their
    details when first asked, then a line per record step of the specialist and a yes
    to its read-back; then the stop token."""

    def __init__(self, agent: GoldAgent, identity_line: str) -> None:
        self.usage = Usage()
        self.agent = agent
        self._lines = self._script(agent, identity_line)

    async def reply(self, agent_said: str) -> str:
        return next(self._lines)

    @staticmethod
    def _script(agent: GoldAgent, identity_line: str) -> Iterator[str]:
        verified = False
        while agent.writes:
            yield REQUEST
            if not verified:
                yield identity_line
                verified = True
            current = agent.current
            assert current is not None, "the supervisor did not start the gold write's tool"
            if current.answered:
                continue  # refused before its specialist began, as τ²-bench's tool refuses it
            for _ in range(MAX_LINES_PER_STEP):
                if not current.records:
                    break
                yield GO_ON
            assert not current.records, f"{current.action}: its specialist never asked to record"
            yield YES
        yield STOP


def identity_of(db: dict[str, Any], user_id: str) -> tuple[dict[str, Any], str]:
    """The caller's details under the benchmark's rule, as the model passes them and as
    the caller says them: the email on the account."""
    email = db["users"][user_id]["email"]
    return {"email": email}, f"My email is {email}."


def gold_pair(db: dict[str, Any], task: dict[str, Any]) -> tuple[ScriptedLLM, GoldUser]:
    """A scripted model making the task's gold writes and the caller who asks for them;
    `NotExpressible` when the agent's tools cannot make them, ValueError when the task
    has no write."""
    actions = task_actions(task)
    writes = gold_writes(db, actions)
    user_id = caller_of(db, actions)
    if not writes or user_id is None:
        raise ValueError(f"task {task['id']} makes no write")
    details, said = identity_of(db, user_id)
    model, agent = gold_model(writes, details)
    return model, GoldUser(agent, said)


def gold_model(writes: list[GoldWrite], identity: dict[str, Any]) -> tuple[ScriptedLLM, GoldAgent]:
    agent = GoldAgent(deque(writes), identity)
    return ScriptedLLM(then=agent), agent
