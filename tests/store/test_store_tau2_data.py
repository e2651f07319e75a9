"""τ²-bench's retail database into the store and back out (`import-tau2`, `export-tau2`):
everything it holds comes back as it went in, in one transaction, never mixed with other
customers by mistake."""

from __future__ import annotations

import asyncio
import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from benchmarks.tau2.data import DEFAULT_DB, load_json

from customer_service.entry import MISCONFIGURED_EXIT_CODE
from customer_service.normalize import phones_match
from customer_service.settings import Settings
from customer_service.store import Store
from customer_service.store.errors import Tau2ImportRefused
from customer_service.store.schema import migrate_database
from customer_service.store.seed import DEMO_CUSTOMERS
from customer_service.store.tau2_data import Tau2ShapeError
from customer_service.store_commands import run_store_command
from customer_service.testing import open_demo_store

DB: dict[str, Any] = load_json(DEFAULT_DB)
_WITH_A_BAD_ORDER = {
    "products": {},
    "users": {},
    "orders": {
        "#W0000001": {
            **next(iter(DB["orders"].values())),
            "status": "lost in the post",
            "address": {
                "address1": "500 Howard St",
                "address2": "",
                "city": "San Francisco",
                "country": "USA",
                "state": "CA",
                "zip": "94107",
            },
        }
    },
}


async def _empty_store(database_url: str) -> Store:
    return await Store.open(database_url, migrate=True, seed_demo_data=False)


async def test_the_benchmarks_database_comes_back_out_as_it_went_in(database_url: str) -> None:
    async with await _empty_store(database_url) as store:
        imported = await store.import_tau2(DB)
        assert tuple(imported) == (50, 500, 1000)
        assert await store.export_tau2() == DB


async def test_an_imported_customer_is_found_by_postal_code_and_email_and_has_no_phone(
    database_url: str,
) -> None:
    async with await _empty_store(database_url) as store:
        await store.import_tau2(DB)
        [yusuf] = [
            c for c in await store.customers_with_postal_code("19122") if "Yusuf" in c.full_name
        ]
        assert yusuf.full_name == "Yusuf Rossi"
        assert yusuf.phone is None
        assert not phones_match("215 555 0100", yusuf.phone, "US")
        assert yusuf.address is not None
        assert yusuf.address.country == "US"
        assert await store.customer_id_by_email(yusuf.email.upper()) == yusuf.customer_id
        assert await store.customer_id_by_email("nobody@example.com") is None
        methods = await store.payment_methods(yusuf.customer_id)
        assert [m.method_id for m in methods] == list(
            DB["users"][yusuf.customer_id]["payment_methods"]
        )


async def test_a_store_holding_customers_refuses_the_import_and_keeps_what_it_had(
    database_url: str,
) -> None:
    async with await open_demo_store(database_url) as store:
        before = await store.export_tau2()
        with pytest.raises(Tau2ImportRefused, match="already holds 3 customers"):
            await store.import_tau2(DB)
        assert await store.export_tau2() == before


async def test_forced_it_loads_beside_them_and_replaces_the_datas_own_records(
    database_url: str,
) -> None:
    async with await open_demo_store(database_url) as store:
        await store.import_tau2(DB, force=True)
        changed = copy.deepcopy(DB)
        user_id = next(iter(changed["users"]))
        changed["users"][user_id]["email"] = "changed@example.com"
        await store.import_tau2(changed, force=True)
        exported = await store.export_tau2()
        assert exported["users"][user_id]["email"] == "changed@example.com"
        assert {c.customer_id for c in DEMO_CUSTOMERS} <= exported["users"].keys()
        assert len(exported["users"]) == 503
        assert len(exported["orders"]) == 1005


async def test_data_not_in_the_benchmarks_shape_writes_nothing(database_url: str) -> None:
    broken = copy.deepcopy(DB)
    last_order = list(broken["orders"])[-1]
    broken["orders"][last_order]["status"] = "lost in the post"
    async with await _empty_store(database_url) as store:
        with pytest.raises(Tau2ShapeError, match="orders record 1000 of 1000: not a valid"):
            await store.import_tau2(broken)
        assert await store.export_tau2() == {"products": {}, "users": {}, "orders": {}}


def _settings(database_url: str) -> Settings:
    return Settings.model_validate({"database_url": database_url, "seed_demo_data": "false"})


async def test_the_commands_load_and_write_the_database_in_one_line_each(
    database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await migrate_database(database_url)
    settings = _settings(database_url)
    status = await _in_thread(run_store_command, ["import-tau2", str(DEFAULT_DB)], settings)
    loaded = capsys.readouterr().out
    assert status == 0
    assert "loaded τ²-bench's retail database: 50 products, 500 customers, 1000 orders." in loaded

    out = tmp_path / "exported.json.gz"
    status = await _in_thread(run_store_command, ["export-tau2", str(out)], settings)
    assert status == 0
    assert "wrote 50 products, 500 customers and 1000 orders" in capsys.readouterr().out
    with gzip.open(out, "rt", encoding="utf-8") as exported:
        assert json.load(exported) == DB

    status = await _in_thread(run_store_command, ["import-tau2", str(DEFAULT_DB)], settings)
    refused = capsys.readouterr()
    assert status == MISCONFIGURED_EXIT_CODE
    assert refused.out == ""
    assert len(refused.err.splitlines()) == 1
    assert "import-tau2 DB.json --force" in refused.err


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "could not be read as JSON (FileNotFoundError)"),
        ("{not json", "could not be read as JSON (JSONDecodeError)"),
        ('{"users": {}}', "is not τ²-bench's retail database: no products by id"),
        (
            json.dumps(_WITH_A_BAD_ORDER),
            "is not τ²-bench's retail database: orders record 1 of 1: not a valid OrderStatus",
        ),
    ],
    ids=["missing", "not-json", "not-the-shape", "a-bad-record"],
)
async def test_a_file_that_is_not_the_benchmarks_database_is_one_line(
    database_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    problem: str,
) -> None:
    await migrate_database(database_url)
    path = tmp_path / "db.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    status = await _in_thread(
        run_store_command, ["import-tau2", str(path)], _settings(database_url)
    )
    err = capsys.readouterr().err
    assert status == MISCONFIGURED_EXIT_CODE
    assert len(err.splitlines()) == 1
    assert problem in err
    assert "Traceback" not in err
    # What the file holds about a customer is never echoed.
    assert "lost in the post" not in err
    assert "Howard" not in err


async def _in_thread(command: Any, argv: list[str], settings: Settings) -> int:
    """The command runs its own event loop (`asyncio.run`), as from the command line."""
    return await asyncio.to_thread(command, argv, settings)
