"""The outcome of a call, on the job's tagger (what LiveKit Cloud shows) and in its
report: the entrypoint runs under the framework's fake job context, as in a room, and
`on_session_end` is called as the framework calls it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from livekit.agents.testing import fake_job_context

from customer_service import server
from customer_service.call.state import CallState
from customer_service.reports.collect import Outcome, outcome_of
from customer_service.settings import Settings, get_settings
from customer_service.store import AuditEvent, Store
from support.job_calls import call_in_a_room
from support.offline_chat import JORDAN

ORDER_QUESTION = "Where is my order 100101?"
WRONG = "Jordan Lee, 90210, jordan.lee@example.com"


@pytest.fixture
def report_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MODEL_PROVIDER", "offline")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("REPORT_DIR", str(tmp_path / "reports"))
    get_settings.cache_clear()
    yield tmp_path / "reports"
    get_settings.cache_clear()


def written(report_dir: Path, job_id: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((report_dir / f"call-{job_id}.json").read_text())
    return report


async def test_a_resolved_call_is_a_success(report_dir: Path) -> None:
    tags, outcome, reason = await call_in_a_room(
        "job-resolved", "Where is my order 100101?", JORDAN
    )
    assert (outcome, reason) == ("success", "resolved")
    assert {"lk.success", "outcome:resolved", "verified:true"} <= tags
    assert "specialist:verify_identity_task:completed" in tags
    report = written(report_dir, "job-resolved")
    assert report["outcome"] == "resolved"
    assert report["job_id"] == "job-resolved"
    assert "lk.success" in report["tags"]


async def test_a_call_that_only_asked_about_a_product_is_resolved(report_dir: Path) -> None:
    tags, outcome, reason = await call_in_a_room(
        "job-product", "What colours does the water bottle come in?", "and in green?"
    )
    assert (outcome, reason) == ("success", "resolved")
    assert {"lk.success", "outcome:resolved", "verified:false"} <= tags
    report = written(report_dir, "job-product")
    assert report["outcome"] == "resolved"
    assert report["disclosed_order_ids"] == []


async def test_an_escalated_call_is_a_failure(report_dir: Path) -> None:
    tags, outcome, reason = await call_in_a_room("job-escalated", "I want to talk to a person")
    assert (outcome, reason) == ("fail", "escalated")
    assert {"lk.fail", "outcome:escalated", "verified:false"} <= tags
    assert written(report_dir, "job-escalated")["outcome"] == "escalated"


async def test_a_locked_call_is_a_failure(report_dir: Path) -> None:
    tags, outcome, reason = await call_in_a_room("job-locked", ORDER_QUESTION, WRONG, WRONG, WRONG)
    assert (outcome, reason) == ("fail", "locked")
    assert {"lk.fail", "outcome:locked", "verified:false"} <= tags
    report = written(report_dir, "job-locked")
    assert report["outcome"] == "locked"
    assert report["identity_failed_checks"] == 3
    assert report["disclosed_order_ids"] == []


async def test_without_report_dir_the_outcome_is_still_tagged(
    report_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REPORT_DIR")
    get_settings.cache_clear()
    _, outcome, reason = await call_in_a_room("job-unwritten", ORDER_QUESTION, JORDAN)
    assert (outcome, reason) == ("success", "resolved")
    assert not list(report_dir.parent.glob("reports"))


@pytest.mark.parametrize(
    ("events", "change", "expected"),
    [
        (["call_transferred"], "escalate", Outcome.TRANSFERRED),
        ([], "escalate", Outcome.ESCALATED),
        ([], "lock", Outcome.LOCKED),
        (["call_ended_for_silence"], None, Outcome.ENDED_FOR_SILENCE),
        (["order_cancelled"], None, Outcome.RESOLVED),
        (["address_changed"], None, Outcome.RESOLVED),
        (["return_requested"], None, Outcome.RESOLVED),
        (["call_ended_by_agent"], "answer", Outcome.RESOLVED),
        (["call_ended_by_agent"], None, Outcome.ABANDONED),
        ([], None, Outcome.ABANDONED),
    ],
)
def test_the_outcome_comes_from_the_calls_state_and_events(
    events: list[str], change: str | None, expected: Outcome
) -> None:
    state = CallState(store=cast(Store, None), settings=Settings())
    if change == "escalate":
        state.mark_escalated()
    elif change == "answer":
        state.record_product_answer()
    elif change == "lock":
        for _ in range(state.settings.identity_max_attempts):
            state.record_failed_identity_check()
    kept = [AuditEvent(call_id=state.call_id, kind=kind) for kind in events]
    assert outcome_of(state, kept) is expected
    assert expected.success is (expected in (Outcome.RESOLVED, Outcome.TRANSFERRED))


async def test_a_report_the_framework_cannot_make_still_tags_the_outcome(
    report_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake_job_context(job_id="job-recording") as ctx:
        ctx.proc.userdata[server.VAD_KEY] = None
        await server.entrypoint(ctx)
        session = ctx.primary_session
        try:
            await session.run(user_input="I want to talk to a person")
        finally:
            await session.aclose()

        def still_recording(*_: object) -> None:
            raise RuntimeError("the RecorderIO is still recording")

        monkeypatch.setattr(ctx, "make_session_report", still_recording)
        await server.report_session_end(ctx)
        for shutdown_callback in ctx._shutdown_callbacks:
            await shutdown_callback("test over")
        assert (ctx.tagger.outcome, ctx.tagger.outcome_reason) == ("fail", "escalated")
        assert "outcome:escalated" in ctx.tagger.tags
    assert not list(report_dir.parent.glob("reports"))
