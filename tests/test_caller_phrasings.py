"""Every row of docs/caller-phrasings.md, run as a `make chat` call on the offline model:
the real supervisor, specialists and store, one test per row."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from customer_service.call.speakable import spaced_digits
from customer_service.call.wording import GOODBYE, HANDOFF
from customer_service.offline_llm.small_talk import GREETED_BACK, NOT_SOMETHING_I_DO
from customer_service.specialists import cancellation
from customer_service.specialists.address_update import opening_question
from customer_service.specialists.cancellation import REASON_QUESTION
from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from customer_service.specialists.order_lookup import OPENING_QUESTION as ORDER_QUESTION
from customer_service.store import Store
from support.offline_chat import JORDAN, Transcript, chat

TABLE = Path(__file__).parents[1] / "docs" / "caller-phrasings.md"
PRIYA = "Priya Natarajan, 10001, priya.n@example.com"
DETAILS = {"<Jordan>": JORDAN, "<Priya>": PRIYA}
SMS_QUESTION = CONSENT_WORDING[ConsentTopic.ORDER_UPDATES_SMS].question
ADDRESS_CHANGED = re.compile(r"address changed (\d{6}) to (.+)")


@dataclass(frozen=True)
class Row:
    caller_lines: tuple[str, ...]
    flow: str
    expected: str


def rows() -> list[Row]:
    found = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or len(cells) != 3 or cells[0] in ("Caller says", "---"):
            continue
        said, flow, expected = cells
        lines = []
        for part in said.split(" / "):
            for placeholder, details in DETAILS.items():
                part = part.replace(placeholder, details)
            lines.append(part)
        found.append(Row(tuple(lines), flow, expected))
    return found


ROWS = rows()


def test_the_table_covers_every_flow() -> None:
    assert len(ROWS) >= 40
    assert {row.flow for row in ROWS} >= {
        "order status",
        "recent orders",
        "address change",
        "cancellation",
        "opt out",
        "opt in",
        "identity",
        "person",
        "goodbye",
        "topic switch",
    }


async def sms_consent(database_url: str) -> bool | None:
    async with await Store.open(database_url) as store:
        record = await store.latest_consent(
            topic=ConsentTopic.ORDER_UPDATES_SMS, customer_id="C-1001"
        )
    return None if record is None else record.granted


async def shipping_address(database_url: str, order_id: str) -> str | None:
    async with await Store.open(database_url) as store:
        order = await store.get_order(order_id)
    return None if order is None else order.shipping_address.one_line()


async def check(expected: str, transcript: Transcript, database_url: str) -> None:
    said = transcript.agent
    text = transcript.text()
    kind, _, order = expected.rpartition(" ")
    if (changed := ADDRESS_CHANGED.fullmatch(expected)) is not None:
        order_id, address = changed.groups()
        assert await shipping_address(database_url, order_id) == address, text
    elif kind == "status":
        assert any(line.startswith(f"Order {spaced_digits(order)}, placed on") for line in said), (
            text
        )
    elif kind == "address question":
        assert opening_question(order) in said, text
    elif kind == "cancel question":
        assert any(
            line.startswith(f"Order {spaced_digits(order)} contains")
            and line.endswith(REASON_QUESTION)
            for line in said
        ), text
    elif kind == "cancel read-back":
        asking = cancellation.wording(order).asking
        assert any(
            line.startswith(f"I'll cancel order {spaced_digits(order)}") and line.endswith(asking)
            for line in said
        ), text
    elif expected == "order question":
        assert ORDER_QUESTION in said, text
    elif expected == "recent orders":
        assert any(line.startswith("Here are your recent orders.") for line in said), text
    elif expected == "verified":
        assert any(line.startswith("Thank you, Jordan Lee, you are verified.") for line in said), (
            text
        )
    elif expected.startswith("texts "):
        granted = expected.startswith("texts on")
        asked = said.count(SMS_QUESTION)
        assert asked == (0 if expected.endswith("not asked") else 1), text
        assert await sms_consent(database_url) is granted, text
    elif expected == "person":
        assert HANDOFF in said, text
    elif expected == "call ends":
        assert said[-1] == GOODBYE, text
    elif expected == "cannot do":
        assert said[-1] == NOT_SOMETHING_I_DO, text
    elif expected == "greeted":
        assert said[-1] == GREETED_BACK, text
    else:
        raise AssertionError(f"unknown outcome {expected!r}")


@pytest.mark.parametrize("row", ROWS, ids=[" / ".join(row.caller_lines)[:60] for row in ROWS])
async def test_phrasing(demo_database_url: str, row: Row) -> None:
    transcript = await chat(demo_database_url, *row.caller_lines)
    await check(row.expected, transcript, demo_database_url)


def test_outcomes_are_all_known() -> None:
    known = re.compile(
        r"(status|address question|cancel question|cancel read-back) \d{6}|order question|"
        r"recent orders|verified|"
        r"texts (on|off), (not asked|asked once)|person|call ends|cannot do|greeted"
    )
    assert [
        row.expected
        for row in ROWS
        if not known.fullmatch(row.expected) and not ADDRESS_CHANGED.fullmatch(row.expected)
    ] == []
