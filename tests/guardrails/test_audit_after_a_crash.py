"""A worker process that dies mid-call loses at most the turn in progress: the audit
events of every turn already answered are in the store, report-only ones included."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import customer_service
from customer_service.store import Store
from support.call_until_killed import STORED_BY_THEN, TURNS_ANSWERED

TESTS = Path(__file__).resolve().parents[1]
SOURCE = Path(customer_service.__file__).resolve().parents[1]
HANG_GUARD_S = 120.0
"""Real seconds for the child's call to answer its turns: a guard against a hang, not a
measurement."""
STORE_LOOKS = 100
"""Looks at the store for the background write before the kill; each a short pause."""


async def call_id_once_answered(child: asyncio.subprocess.Process) -> str | None:
    """The child's call id, read from its marker line (anything else printed before it
    is skipped); None when it ended without one."""
    assert child.stdout is not None
    async with asyncio.timeout(HANG_GUARD_S):
        while line := (await child.stdout.readline()).decode():
            marker, _, call_id = line.strip().partition(" ")
            if marker == TURNS_ANSWERED:
                return call_id
    return None


async def test_a_killed_call_leaves_the_audit_events_of_its_answered_turns(
    demo_database_url: str, tmp_path: Path
) -> None:
    errors = tmp_path / "child.stderr"
    with errors.open("wb") as stderr:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "support.call_until_killed",
            demo_database_url,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(SOURCE), str(TESTS)])},
        )
    async with await Store.open(demo_database_url) as store:
        try:
            call_id = await call_id_once_answered(child)
            assert call_id is not None, errors.read_text()
            # The turn's events are written in the background once its reply starts:
            # the store gets a bounded number of looks before the process dies.
            for _ in range(STORE_LOOKS):
                if len(await store.audit_events(call_id=call_id)) >= len(STORED_BY_THEN):
                    break
                await asyncio.sleep(0.05)
        finally:
            if child.returncode is None:
                child.kill()
            await child.wait()

        assert child.returncode == -signal.SIGKILL  # killed mid-call: its end never ran
        stored = await store.audit_events(call_id=call_id)
        assert [event.kind for event in stored] == STORED_BY_THEN
