"""Every row of docs/tau2-caller-phrasings.md, run as a `make chat` call on the offline
model over τ²-bench's retail store: the real supervisor, specialists and store, under
the benchmark's identity rule, one test per row. The store is imported once and copied
for each row, and read back (`export-tau2`) where the row expects a change."""

from __future__ import annotations

import io
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from benchmarks.tau2.data import DEFAULT_DB, load_json

from customer_service.call.wording import HANDOFF
from customer_service.chat import converse
from customer_service.offline_llm import OfflineLLM
from customer_service.order_choice import one_order_offer
from customer_service.order_numbers import spoken_order_id
from customer_service.settings import IdentityPolicy, Settings
from customer_service.specialists.cancellation import REASON_QUESTION
from customer_service.specialists.order_lookup import OPENING_QUESTION as ORDER_QUESTION
from customer_service.store import Store
from customer_service.testing import sqlite_url
from support.offline_chat import Transcript

TABLE = Path(__file__).parents[1] / "docs" / "tau2-caller-phrasings.md"
DB: dict[str, Any] = load_json(DEFAULT_DB)
RECENT_ORDERS = "Here are your recent orders."
OUTCOME = re.compile(
    r"order question|recent orders|person|unchanged"
    r"|(?P<kind>offer|status|cancel question) (?P<order>W\d{7})"
    r"|order (?P<changed>W\d{7}) (?P<status>.+)"
    r"|item (?P<swapped>W\d{7}) (?P<old>\d+) to (?P<new>\d+)"
    r"|paid (?P<paid>W\d{7}) with (?P<method>\S+)"
    r"|address (?P<moved>W\d{7}) (?P<street>.+)"
    r"|account (?P<user>\S+) (?P<home>.+)"
    r"|(?P<never>never )?says (?P<words>.+)"
)


@dataclass(frozen=True)
class Row:
    caller_lines: tuple[str, ...]
    kind: str
    expected: tuple[str, ...]
    fails: str | None
    """Why the call does not give its outcome today (the table's last column)."""


def rows() -> list[Row]:
    found = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or len(cells) != 4 or cells[0] in ("Caller says", "---"):
            continue
        said, kind, expected, now = cells
        fails = now.removeprefix("fails: ") if now.startswith("fails: ") else None
        assert fails or now == "passes", now
        found.append(Row(tuple(said.split(" / ")), kind, tuple(expected.split("; ")), fails))
    return found


ROWS = rows()


def test_the_table_covers_every_kind_and_request() -> None:
    assert len(ROWS) >= 60
    assert {row.kind for row in ROWS} >= {
        "spoken email",
        "opening",
        "item change",
        "return",
        "everyday name",
        "option words",
        "cancelled order",
        "items told apart",
        "correction",
        "account address",
        "product question",
        "carrier",
        "cancel",
        "payment",
        "exchange",
        "order status",
        "address change",
        "person",
    }
    assert [o for row in ROWS for o in row.expected if not OUTCOME.fullmatch(o)] == []


@pytest.fixture(scope="module")
def imported_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """τ²-bench's database imported once into a SQLite file that each row copies."""
    import asyncio

    path = tmp_path_factory.mktemp("tau2") / "imported.sqlite3"

    async def load() -> None:
        async with await Store.open(sqlite_url(path), migrate=True, seed_demo_data=False) as s:
            await s.import_tau2(DB)

    asyncio.run(load())
    return path


@pytest.fixture
async def store_copy(imported_store: Path, tmp_path: Path) -> AsyncIterator[Store]:
    copy = tmp_path / "store.sqlite3"
    shutil.copyfile(imported_store, copy)
    async with await Store.open(sqlite_url(copy), migrate=False, seed_demo_data=False) as store:
        yield store


async def call(store: Store, settings: Settings, lines: tuple[str, ...]) -> Transcript:
    out = io.StringIO()
    await converse(
        OfflineLLM(),
        database_url="",
        lines=io.StringIO("".join(f"{line}\n" for line in lines)),
        out=out,
        echo_caller=True,
        settings=settings.model_copy(update={"identity_policy": IdentityPolicy.EMAIL_OR_NAME_ZIP}),
        store=store,
    )
    return Transcript(tuple(out.getvalue().splitlines()))


def _order(exported: dict[str, Any], order: str) -> dict[str, Any]:
    record: dict[str, Any] = exported["orders"][f"#{order}"]
    return record


async def check(expected: str, transcript: Transcript, store: Store) -> None:
    said = transcript.agent
    text = transcript.text()
    found = OUTCOME.fullmatch(expected)
    assert found is not None, expected
    if expected == "order question":
        assert ORDER_QUESTION in said, text
    elif expected == "recent orders":
        assert any(line.startswith(RECENT_ORDERS) for line in said), text
    elif expected == "person":
        assert HANDOFF in said, text
    elif expected == "unchanged":
        assert await store.export_tau2() == DB, text
    elif (kind := found.group("kind")) is not None:
        order = f"#{found.group('order')}"
        spoken = f"Order {spoken_order_id(order)}"
        if kind == "status":
            assert any(re.match(rf"{re.escape(spoken)}, (is|has|was) ", line) for line in said), (
                text
            )
        elif kind == "offer":
            offered = await store.get_order(order)
            assert offered is not None
            assert one_order_offer(offered) in said, text
        else:
            assert any(
                line.startswith(f"{spoken} contains") and line.endswith(REASON_QUESTION)
                for line in said
            ), text
    elif (changed := found.group("changed")) is not None:
        assert _order(await store.export_tau2(), changed)["status"] == found.group("status"), text
    elif (swapped := found.group("swapped")) is not None:
        items = [item["item_id"] for item in _order(await store.export_tau2(), swapped)["items"]]
        assert found.group("new") in items, text
        assert found.group("old") not in items, text
    elif (paid := found.group("paid")) is not None:
        history = _order(await store.export_tau2(), paid)["payment_history"]
        payments = [entry for entry in history if entry["transaction_type"] == "payment"]
        assert payments[-1]["payment_method_id"] == found.group("method"), text
    elif (moved := found.group("moved")) is not None:
        address = _order(await store.export_tau2(), moved)["address"]
        assert address["address1"] == found.group("street"), text
    elif (user := found.group("user")) is not None:
        address = (await store.export_tau2())["users"][user]["address"]
        assert address["address1"] == found.group("home"), text
    else:
        words = found.group("words").casefold()
        heard = any(words in line.casefold() for line in said)
        assert heard is not bool(found.group("never")), text


@pytest.mark.parametrize(
    "row",
    [
        pytest.param(row, marks=pytest.mark.xfail(reason=row.fails, strict=True))
        if row.fails
        else row
        for row in ROWS
    ],
    ids=[" / ".join(row.caller_lines)[:60] for row in ROWS],
)
async def test_retail_phrasing(store_copy: Store, settings: Settings, row: Row) -> None:
    transcript = await call(store_copy, settings, row.caller_lines)
    for expected in row.expected:
        await check(expected, transcript, store_copy)
