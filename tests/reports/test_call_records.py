"""Call records in the store: every call's report is a row of `call_reports`, written
after the call; `report --database-url` reads them as `report DIR` reads a folder; a
store that is down at the end of a call loses nothing when REPORT_DIR is set; `--prune`
deletes only the older rows. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from livekit.agents import llm

from customer_service.chat import converse
from customer_service.offline_llm import OfflineLLM
from customer_service.reports import stored
from customer_service.reports.collect import Outcome, SessionEvents, report_call
from customer_service.reports.command import OUTCOMES, main
from customer_service.settings import Settings, get_settings
from customer_service.store import Store
from customer_service.store.call_reports import CallReportRecord
from customer_service.testing import call_session
from support.databases import backend_params, new_demo_database
from support.faults import fail_everything
from support.job_calls import call_in_a_room
from support.offline_chat import GOODBYE, GREETING, JORDAN

RESOLVED = ("Where is my order 100101?", JORDAN, "bye")
ABANDONED = ("bye",)


@pytest.fixture(params=backend_params())
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with new_demo_database(request.param, tmp_path) as url:
        yield url


async def chat(database_url: str, directory: Path, *lines: str) -> None:
    """One whole `make chat` call, which writes its report as a call in a room does."""
    await converse(
        OfflineLLM(),
        database_url=database_url,
        lines=io.StringIO("".join(f"{line}\n" for line in lines)),
        out=io.StringIO(),
        echo_caller=True,
        settings=Settings(report_dir=directory),
    )


async def rows(database_url: str) -> list[CallReportRecord]:
    async with await Store.open(database_url, migrate=False, seed_demo_data=False) as store:
        return await store.call_reports()


async def report(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    # The command runs its own event loop, as it does from the command line.
    status = await asyncio.to_thread(main, list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def page(path: Path) -> str:
    """The page, each chart's random id made one."""
    return re.sub(r"chart-[0-9a-f-]{36}", "chart", path.read_text())


async def test_three_calls_in_three_jobs_write_three_rows_with_no_report_folder(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MODEL_PROVIDER", "offline")
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.delenv("REPORT_DIR", raising=False)
    get_settings.cache_clear()
    try:
        await call_in_a_room("job-1", *RESOLVED[:2])
        await call_in_a_room("job-2", "I want to talk to a person")
        await call_in_a_room("job-3", *ABANDONED)
    finally:
        get_settings.cache_clear()

    stored_rows = await rows(database_url)
    assert [(row.call_id, row.outcome) for row in sorted(stored_rows, key=lambda r: r.call_id)] == [
        ("call-job-1", "resolved"),
        ("call-job-2", "escalated"),
        ("call-job-3", "abandoned"),
    ]
    assert all(row.report["job_id"] == row.call_id.removeprefix("call-") for row in stored_rows)


def test_the_outcomes_report_offers_are_the_calls_outcomes() -> None:
    assert tuple(outcome.value for outcome in Outcome) == OUTCOMES


async def test_three_calls_write_three_rows_that_report_summarises_as_it_does_the_folder(
    database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "reports"
    await chat(database_url, directory, *RESOLVED)
    await chat(database_url, directory, *ABANDONED)
    await chat(database_url, directory, *RESOLVED)

    stored_rows = await rows(database_url)
    files = {path.stem: json.loads(path.read_text()) for path in directory.glob("*.json")}
    assert len(stored_rows) == 3
    assert {row.call_id: row.report for row in stored_rows} == files
    by_outcome = sorted((row.outcome, row.specialists) for row in stored_rows)
    assert by_outcome == [
        ("abandoned", ""),
        ("resolved", "verify_identity_task"),
        ("resolved", "verify_identity_task"),
    ]
    for row in stored_rows:
        assert row.ended_at.timestamp() == pytest.approx(files[row.call_id]["ended_at"])
        assert row.started_at is not None
        assert row.started_at <= row.ended_at
        assert row.cost_usd == files[row.call_id]["cost_usd"]

    from_folder = await report(capsys, str(directory), "--html", str(tmp_path / "folder.html"))
    from_store = await report(
        capsys, "--database-url", database_url, "--html", str(tmp_path / "store.html")
    )
    assert from_folder[0] == from_store[0] == 0
    assert from_store[1].replace("store.html", "folder.html") == from_folder[1]
    assert from_store[1].startswith("3 calls\n")
    assert page(tmp_path / "store.html") == page(tmp_path / "folder.html")
    assert 'id="fleet"' in page(tmp_path / "store.html")

    status, out, _ = await report(capsys, "--database-url", database_url, "--outcome", "abandoned")
    assert status == 0
    assert out.startswith("1 call\n")
    future = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).date().isoformat()
    status, _, err = await report(capsys, "--database-url", database_url, "--since", future)
    assert status == 1
    assert "holds no call report" in err


async def test_a_store_down_at_the_end_of_a_call_loses_nothing_with_a_report_folder(
    database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "reports"
    failed_before = stored.WRITES["failed"]
    store = await Store.open(database_url, migrate=False, seed_demo_data=False)
    try:
        async with call_session(
            OfflineLLM(), store=store, settings=Settings(report_dir=directory)
        ) as session:
            events = SessionEvents(session)
            await session.run(user_input="bye")
            said = [
                item.text_content
                for item in session.history.items
                if isinstance(item, llm.ChatMessage) and item.role == "assistant"
            ]
            state = session.userdata
            await session.aclose()
            restore = fail_everything(store)
            # The call is over and its reply was heard; the store is down from here.
            call = await report_call(state, events.session_report(session, call_id=state.call_id))
            restore()
    finally:
        await store.close()

    assert said == [GREETING, GOODBYE]
    assert call.outcome is Outcome.ABANDONED
    assert stored.WRITES["failed"] == failed_before + 1
    assert (directory / f"{state.call_id}.json").is_file()
    assert (directory / stored.UNSTORED / state.call_id).is_file()
    assert await rows(database_url) == []

    # The next call's report, written once the store is back, brings the first one along.
    await chat(database_url, directory, *ABANDONED)

    assert len(await rows(database_url)) == 2
    assert state.call_id in {row.call_id for row in await rows(database_url)}
    assert not (directory / stored.UNSTORED / state.call_id).exists()


async def test_report_stores_a_folders_unstored_reports_once(
    database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "reports"
    await chat(database_url, directory, *ABANDONED)
    [path] = directory.glob("*.json")
    unstored = {**json.loads(path.read_text()), "call_id": "call-unstored"}
    (directory / "call-unstored.json").write_text(json.dumps(unstored))
    (directory / stored.UNSTORED).mkdir()
    for call_id in (path.stem, "call-unstored"):
        (directory / stored.UNSTORED / call_id).touch()

    status, out, _ = await report(
        capsys, str(directory), "--store-unstored", "--database-url", database_url
    )

    assert (status, out) == (0, "stored 1 call report left out of the store\n")
    # The one already there is not stored twice.
    assert sorted(row.call_id for row in await rows(database_url)) == sorted(
        [path.stem, "call-unstored"]
    )
    assert list((directory / stored.UNSTORED).iterdir()) == []


def record(call_id: str, ended: dt.datetime) -> CallReportRecord:
    return CallReportRecord(
        call_id=call_id,
        started_at=ended - dt.timedelta(minutes=3),
        ended_at=ended,
        outcome="resolved",
        specialists="",
        cost_usd=None,
        report={"report_version": 1, "call_id": call_id, "outcome": "resolved"},
    )


async def test_prune_deletes_only_the_reports_older_than_its_days(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    now = dt.datetime.now(dt.UTC)
    async with await Store.open(database_url, migrate=False, seed_demo_data=False) as store:
        for call_id, days_ago in (("call-old", 31), ("call-older", 400), ("call-recent", 29)):
            assert await store.add_call_report(record(call_id, now - dt.timedelta(days=days_ago)))
        assert not await store.add_call_report(record("call-recent", now))

    status, out, _ = await report(capsys, "--prune", "30", "--database-url", database_url)

    assert status == 0
    assert out.startswith("deleted 2 call reports of calls that ended before ")
    assert [row.call_id for row in await rows(database_url)] == ["call-recent"]
