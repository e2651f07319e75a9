"""`python src/agent.py migrate | seed-demo | identity-release CUSTOMER_ID`, and the store
check before a voice command starts: one line of what was done, or one line of what is
wrong and what to do."""

from __future__ import annotations

import asyncio
import datetime as dt
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from customer_service.entry import MISCONFIGURED_EXIT_CODE
from customer_service.settings import Settings
from customer_service.store.errors import shown_url
from customer_service.store.identity_release import HOLD_RELEASED
from customer_service.store.schema import head_revision
from customer_service.store_commands import (
    EMPTY_STORE_NOTICE,
    OPERATOR_MAX_CHARS,
    run_store_command,
    store_startup_problem,
)
from customer_service.testing import open_demo_store, sqlite_url
from support.agent_process import AGENT, child_environment

MIGRATE_HINT = "run `python src/agent.py migrate` (or `make migrate`)"


def _settings(**values: Any) -> Settings:
    return Settings.model_validate(values)


def _run(
    command: str, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    status = run_store_command([command], settings)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_migrate_brings_the_database_to_the_latest_schema_once(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _settings(database_url=database_url)
    where = shown_url(database_url)
    head = head_revision()
    assert _run("migrate", settings, capsys) == (
        0,
        f"{where}: created the store's tables at schema revision {head} (the latest).\n",
        "",
    )
    assert _run("migrate", settings, capsys) == (
        0,
        f"{where}: already at the latest schema revision, {head}.\n",
        "",
    )


def test_seed_demo_needs_a_migrated_database_then_seeds_it_once(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _settings(database_url=database_url)
    status, out, err = _run("seed-demo", settings, capsys)
    assert (status, out) == (MISCONFIGURED_EXIT_CODE, "")
    assert err == (
        f"{shown_url(database_url)}: The database has none of the store's tables yet: "
        f"{MIGRATE_HINT}.\n"
    )

    assert _run("migrate", settings, capsys)[0] == 0
    where = shown_url(database_url)
    assert _run("seed-demo", settings, capsys) == (
        0,
        f"{where}: added 3 demo customers and 5 demo orders.\n",
        "",
    )
    assert _run("seed-demo", settings, capsys) == (
        0,
        f"{where}: the demo data is already there.\n",
        "",
    )


def test_seed_demo_on_the_embedded_default_store_needs_no_migrate(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    status, out, _ = _run("seed-demo", _settings(seed_demo_data="false"), capsys)
    assert status == 0
    assert out.endswith(": added 3 demo customers and 5 demo orders.\n")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_migrate_against_an_unreachable_server_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"postgresql+asyncpg://agent:s3cret@127.0.0.1:{_closed_port()}/store"
    status, out, err = _run("migrate", _settings(database_url=url), capsys)
    assert (status, out) == (MISCONFIGURED_EXIT_CODE, "")
    assert err.count("\n") == 1
    assert "agent:***@127.0.0.1" in err
    assert "nothing accepts connections at that host and port" in err
    assert "s3cret" not in err


def test_a_store_command_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run_store_command(["migrate", "--help"], _settings())
    assert exited.value.code == 0
    assert "latest schema" in capsys.readouterr().out


# Releasing a held account


def _release(
    customer_id: str, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    status = run_store_command(["identity-release", customer_id], settings)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


async def _with_failures(database_url: str, count: int) -> None:
    async with await open_demo_store(database_url) as store:
        at = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.UTC)
        for index in range(count):
            await store.record_identity_failure(["C-1001"], f"call-{index}", at=at)


async def _released(database_url: str) -> tuple[int, list[dict[str, object]]]:
    async with await open_demo_store(database_url) as store:
        since = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
        left = await store.identity_failures_since("C-1001", since)
        events = await store.audit_events(kind=HOLD_RELEASED)
    return left, [{"customer_id": e.customer_id, **e.detail} for e in events]


def test_identity_release_clears_the_hold_and_audits_it(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_with_failures(database_url, 5))
    settings = _settings(database_url=database_url)

    assert _release(" C-1001 ", settings, capsys) == (
        0,
        f"{shown_url(database_url)}: released C-1001: cleared 5 failed identity checks (the "
        "latest at 2026-11-20 12:00 UTC), kept in the audit log; the customer can verify by "
        "phone again.\n",
        "",
    )
    left, [event] = asyncio.run(_released(database_url))
    assert left == 0
    assert event["customer_id"] == "C-1001"
    assert event["failures_cleared"] == 5
    assert event["failed_call_ids"] == [f"call-{index}" for index in range(5)]
    assert event["released_by"]

    # Nothing left to clear: said so, and the release is recorded again.
    status, out, _ = _release("C-1001", settings, capsys)
    assert (status, out) == (
        0,
        f"{shown_url(database_url)}: C-1001 had no failed identity checks to clear; the "
        "release is recorded.\n",
    )


def test_seed_demo_clears_the_holds_on_demo_customers_and_audits_it(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The README's lockout example, tried often enough, holds Jordan's account.
    asyncio.run(_with_failures(database_url, 5))
    settings = _settings(database_url=database_url)
    assert _run("seed-demo", settings, capsys) == (
        0,
        f"{shown_url(database_url)}: the demo data is already there; cleared the failed "
        "identity checks of C-1001, kept in the audit log.\n",
        "",
    )
    left, [event] = asyncio.run(_released(database_url))
    assert left == 0
    assert (event["customer_id"], event["failures_cleared"]) == ("C-1001", 5)
    assert event["released_by"] == "seed-demo"
    # Nothing held: nothing cleared, nothing audited again.
    assert _run("seed-demo", settings, capsys)[1].endswith(": the demo data is already there.\n")
    assert len(asyncio.run(_released(database_url))[1]) == 1


def _release_as(
    arguments: list[str], settings: Settings, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    status = run_store_command(["identity-release", "C-1001", *arguments], settings)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_identity_release_records_the_operator_named_and_the_login_name(
    database_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGNAME", "svc-agent")
    asyncio.run(_with_failures(database_url, 5))
    settings = _settings(database_url=database_url)

    status, _, err = _release_as(["--operator", " Dana  Ops "], settings, capsys)
    assert (status, err) == (0, "")
    _, [event] = asyncio.run(_released(database_url))
    assert event["released_by"] == "Dana Ops (login svc-agent)"


def test_identity_release_without_an_operator_records_the_login_name_bounded_and_printable(
    database_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGNAME", "\x1b[2J\x1b[31mroot\n" + "x" * 5000)
    asyncio.run(_with_failures(database_url, 1))
    settings = _settings(database_url=database_url)

    assert _release_as([], settings, capsys)[0] == 0
    _, [event] = asyncio.run(_released(database_url))
    released_by = str(event["released_by"])
    assert released_by.isprintable()
    assert "\x1b" not in released_by
    assert released_by.startswith("?[2J?[31mroot?xxx")
    assert len(released_by) == OPERATOR_MAX_CHARS


@pytest.mark.parametrize(
    "operator", ["", "   ", "Dana\x1b[31m", "Dana\nOps", "Dana\u202eOps", "D" * 65]
)
def test_identity_release_refuses_an_operator_name_that_is_empty_unprintable_or_long(
    database_url: str, capsys: pytest.CaptureFixture[str], operator: str
) -> None:
    asyncio.run(_with_failures(database_url, 1))
    with pytest.raises(SystemExit) as exited:
        run_store_command(
            ["identity-release", "C-1001", "--operator", operator],
            _settings(database_url=database_url),
        )
    assert exited.value.code == MISCONFIGURED_EXIT_CODE
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.endswith(f"--operator: 1 to {OPERATOR_MAX_CHARS} printable characters")
    assert asyncio.run(_released(database_url)) == (1, [])


def test_identity_release_of_an_unknown_account_is_one_line_and_status_2(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_with_failures(database_url, 5))
    settings = _settings(database_url=database_url)

    assert _release("C-9999", settings, capsys) == (
        MISCONFIGURED_EXIT_CODE,
        "",
        f"{shown_url(database_url)}: no customer has the id 'C-9999'; nothing was released.\n",
    )
    left, events = asyncio.run(_released(database_url))
    assert (left, events) == (5, [])


def test_identity_release_against_an_unreachable_server_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"postgresql+asyncpg://agent:s3cret@127.0.0.1:{_closed_port()}/store"
    status, out, err = _release("C-1001", _settings(database_url=url), capsys)
    assert (status, out) == (MISCONFIGURED_EXIT_CODE, "")
    assert err.count("\n") == 1
    assert "nothing accepts connections at that host and port" in err
    assert "s3cret" not in err


def test_identity_release_needs_an_id_and_explains_itself(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        run_store_command(["identity-release"], _settings())
    assert exited.value.code == MISCONFIGURED_EXIT_CODE
    assert "CUSTOMER_ID" in capsys.readouterr().err

    with pytest.raises(SystemExit) as exited:
        run_store_command(["identity-release", "--help"], _settings())
    assert exited.value.code == 0
    assert "held account" in capsys.readouterr().out


def test_the_identity_release_command_runs_from_the_script(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "store.sqlite3")
    asyncio.run(_with_failures(url, 1))
    result = _agent(tmp_path, "identity-release", "C-1001", DATABASE_URL=url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"DATABASE_URL={url}: released C-1001: cleared 1 ")
    assert asyncio.run(_released(url))[0] == 0


# The check before a voice command starts


def test_start_refuses_a_database_that_is_behind(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _settings(database_url=database_url)
    for command in ("start", "dev", "console", "connect"):
        problem = store_startup_problem([command], settings)
        assert problem == (
            f"{shown_url(database_url)}: The database has none of the store's tables yet: "
            f"{MIGRATE_HINT}."
        )
    assert store_startup_problem(["chat"], settings) is None  # chat checks its own store

    assert _run("migrate", settings, capsys)[0] == 0
    assert store_startup_problem(["start"], settings) is None


def test_a_voice_command_on_an_empty_store_says_how_to_fill_it(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _settings(database_url=database_url)
    assert _run("migrate", settings, capsys)[0] == 0
    for command in ("start", "dev", "console", "connect"):
        assert store_startup_problem([command], settings) is None  # a notice, not a stop
        assert capsys.readouterr().err.strip() == EMPTY_STORE_NOTICE

    assert _run("seed-demo", settings, capsys)[0] == 0
    assert store_startup_problem(["dev"], settings) is None
    assert capsys.readouterr().err == ""


def _agent(tmp_path: Path, *args: str, **environment: str) -> subprocess.CompletedProcess[str]:
    workdir = tmp_path / "elsewhere"
    workdir.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, str(AGENT), *args],
        cwd=workdir,
        env={**child_environment(tmp_path), **environment},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_the_start_command_stops_at_a_database_that_is_behind(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "store.sqlite3")
    result = _agent(
        tmp_path,
        "start",
        DATABASE_URL=url,
        MODEL_PROVIDER="offline",
        LIVEKIT_URL="ws://127.0.0.1:1",
        LIVEKIT_API_KEY="APIdummy",
        LIVEKIT_API_SECRET="dummy-secret-0123456789abcdef0123456789",
    )
    assert result.returncode == MISCONFIGURED_EXIT_CODE
    assert result.stderr == (
        f"DATABASE_URL={url}: The database has none of the store's tables yet: {MIGRATE_HINT}.\n"
    )


def test_chat_with_an_unreachable_database_says_so_in_one_line(tmp_path: Path) -> None:
    url = f"postgresql+asyncpg://agent:s3cret@127.0.0.1:{_closed_port()}/store"
    result = _agent(tmp_path, "chat", DATABASE_URL=url)
    assert result.returncode == MISCONFIGURED_EXIT_CODE
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("DATABASE_URL=postgresql+asyncpg://agent:***@127.0.0.1:")
    assert "cannot be used: nothing accepts connections" in result.stderr


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+asyncpg://agent@127.0.0.1:{port}/store?password=s3cret",
        "postgres://agent:s3cret@127.0.0.1:{port}/store?sslmode=disable",
        "postgresql://agent:s3cret@127.0.0.1:{port}/store",
    ],
    ids=["password in the query", "postgres://", "postgresql://"],
)
def test_migrate_with_a_hosted_form_of_url_is_one_line_without_the_secret(
    tmp_path: Path, url: str
) -> None:
    result = _agent(tmp_path, "migrate", DATABASE_URL=url.format(port=_closed_port()))
    assert result.returncode == MISCONFIGURED_EXIT_CODE
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert "cannot be used: nothing accepts connections at that host and port" in result.stderr
    assert "s3cret" not in result.stderr
    assert "Traceback" not in result.stderr


def test_migrate_takes_a_postgres_url(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if database_url.startswith("sqlite"):
        pytest.skip("the postgres:// form is PostgreSQL's")
    hosted = database_url.replace("postgresql+asyncpg://", "postgres://", 1)
    status, out, err = _run("migrate", _settings(database_url=hosted), capsys)
    assert (status, err) == (0, "")
    assert out == (
        f"{shown_url(hosted)}: created the store's tables at schema revision "
        f"{head_revision()} (the latest).\n"
    )
