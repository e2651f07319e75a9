"""Each call's report as a row of the store's `call_reports`, after the call.

The row is written in a transaction of its own once the call is over (`report_call`,
from the framework's `on_session_end`), bounded by `STORE_WRITE_TIMEOUT_S`, and a
failure never reaches the call: it is logged and counted (`WRITES`, and the OTel
counter when the exporter is on). With REPORT_DIR set, the report's file is written
first and a failed row leaves a marker beside it (`unstored/<call id>`); the marked
reports are stored by the next row this machine writes successfully, by any process
that shares the folder, a few at a time (`RETRIES_PER_WRITE`), and by
`python src/agent.py report DIR --database-url URL --store-unstored` at once. Without
REPORT_DIR a failed row is lost, and the log line says so.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
from collections import Counter
from pathlib import Path
from typing import Any

from customer_service.store import StoreUnavailable
from customer_service.store.call_reports import SPECIALISTS_MAX, CallReportRecord
from customer_service.store.repository import Store
from customer_service.telemetry.metrics import count_report_write

logger = logging.getLogger(__name__)

STORE_WRITE_TIMEOUT_S = 5.0
"""How long the row may take: a store that does not answer costs the ended call's
process no more than this before the report is left to its retry."""
UNSTORED = "unstored"
"""The folder of REPORT_DIR whose empty files name the reports not yet stored."""
RETRIES_PER_WRITE = 20
"""Marked reports stored after each successful row, at most: a long outage's backlog
drains over the next calls instead of holding one process."""

WRITES: Counter[str] = Counter()
"""This process's row writes by result: stored, failed, retried."""


def record_of(content: dict[str, Any]) -> CallReportRecord:
    """The row a report (`CallReport.content`) is stored as."""
    names = list(dict.fromkeys(str(run["specialist"]) for run in content.get("specialists", [])))
    return CallReportRecord(
        call_id=content["call_id"],
        started_at=_moment(content.get("started_at")),
        ended_at=_moment(content.get("ended_at")) or dt.datetime.now(dt.UTC),
        outcome=content["outcome"],
        specialists=",".join(names)[:SPECIALISTS_MAX],
        cost_usd=content.get("cost_usd"),
        # Through JSON, as the file is: the column holds exactly what the file does.
        report=json.loads(json.dumps(content, ensure_ascii=False, default=str)),
    )


def _moment(value: object) -> dt.datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return dt.datetime.fromtimestamp(value, dt.UTC)


async def store_report(store: Store, content: dict[str, Any], directory: Path | None) -> bool:
    """Writes the report's row; on success, stores the reports marked unstored in
    `directory` too. Never raises: a failure is logged and counted, and marked for a
    retry when `directory` holds the report's file. Whether the row was stored."""
    call_id = content["call_id"]
    try:
        async with asyncio.timeout(STORE_WRITE_TIMEOUT_S):
            await store.add_call_report(record_of(content))
    except (StoreUnavailable, TimeoutError) as error:
        WRITES["failed"] += 1
        count_report_write("failed")
        marked = directory is not None and _mark_unstored(directory, call_id)
        logger.error(
            "call report not stored",
            extra={
                "call_id": call_id,
                "error": type(error).__name__,
                "failed_writes": WRITES["failed"],
                "retried_from": "REPORT_DIR" if marked else None,
            },
        )
        return False
    WRITES["stored"] += 1
    count_report_write("stored")
    if directory is not None:
        await store_unstored(store, directory, limit=RETRIES_PER_WRITE)
    return True


def _mark_unstored(directory: Path, call_id: str) -> bool:
    if not (directory / f"{call_id}.json").is_file():
        return False  # no file to retry from
    try:
        (directory / UNSTORED).mkdir(exist_ok=True)
        (directory / UNSTORED / call_id).touch()
    except OSError:
        return False
    return True


async def store_unstored(store: Store, directory: Path, *, limit: int | None = None) -> int:
    """Stores the reports marked unstored in `directory` (at most `limit`), removing each
    marker once its row is there; stops at the first failure. How many it stored (a row
    already there is not stored again)."""
    folder = directory / UNSTORED
    try:
        markers = sorted(folder.iterdir())[:limit] if folder.is_dir() else []
    except OSError:
        return 0
    stored = 0
    for marker in markers:
        try:
            content = json.loads((directory / f"{marker.name}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            logger.warning("unstored call report unreadable", extra={"call_id": marker.name})
            continue
        try:
            added = await store.add_call_report(record_of(content))
        except StoreUnavailable:
            return stored
        marker.unlink(missing_ok=True)
        if added:  # else a write that failed on the way back had reached the store after all
            stored += 1
            WRITES["retried"] += 1
            count_report_write("retried")
    if stored:
        logger.info("unstored call reports stored", extra={"reports": stored})
    return stored
