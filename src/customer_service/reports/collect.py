"""One call's report: the framework's session report plus what only this agent knows.

Built at the end of every call, in a room (`server.report_session_end`, the framework's
`on_session_end`) and in `make chat`, from `SessionReport.to_dict()` with its text masked
or withheld (`masking`), the specialists that ran with their masked results, the call's
audit events (already masked when written), the per-turn timings and usage (`turns`), and
the outcome, which also goes on the job's tagger so LiveKit Cloud shows it.
"""

from __future__ import annotations

import enum
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession, JobContext
from livekit.agents.observability import Tagger
from livekit.agents.voice.events import AgentEvent
from livekit.agents.voice.report import SessionReport

from customer_service.call import audit
from customer_service.call.idle import ENDED_FOR_SILENCE
from customer_service.call.known_details import known_details
from customer_service.call.state import CallState
from customer_service.privacy import mask_room_name
from customer_service.reports.masking import masked_history, masked_result
from customer_service.reports.stored import store_report
from customer_service.reports.turns import turns, usage_entries
from customer_service.settings import RecordingConsent
from customer_service.specialists import SPECIALISTS
from customer_service.specialists.consent import ConsentTopic
from customer_service.store import AuditEvent, StoreUnavailable
from customer_service.telemetry.metrics import record_call

logger = logging.getLogger(__name__)

REPORT_VERSION = 1
TRANSFERRED = "call_transferred"
SERVED = frozenset(entry.writes for entry in SPECIALISTS if entry.writes)
"""Audit events of a change the caller came for: each specialist's write
(`SpecialistRegistration.writes`)."""
EVENT_FIELDS = {
    "agent_state_changed": ("old_state", "new_state"),
    "user_state_changed": ("old_state", "new_state"),
    "close": ("reason",),
    "error": (),
    "agent_handoff": (),
    "speech_created": ("source", "user_initiated"),
}
"""The framework's events a report keeps, with the fields of each that carry no words."""


class Outcome(enum.StrEnum):
    RESOLVED = "resolved"
    """The caller heard about an order, had a change made or a product question answered."""
    ESCALATED = "escalated"
    """Handed to a colleague who calls back."""
    TRANSFERRED = "transferred"
    """Put through to a colleague on the phone."""
    ABANDONED = "abandoned"
    """The call ended with nothing done for the caller."""
    LOCKED = "locked"
    """Identity checks failed until verification locked for the call."""
    ENDED_FOR_SILENCE = "ended_for_silence"

    @property
    def success(self) -> bool:
        """Whether LiveKit Cloud shows the call as a success: the caller got what they
        came for, or the person they asked for."""
        return self in (Outcome.RESOLVED, Outcome.TRANSFERRED)


def outcome_of(state: CallState, events: list[AuditEvent]) -> Outcome:
    kinds = {event.kind for event in events}
    if TRANSFERRED in kinds:
        return Outcome.TRANSFERRED
    if state.escalated:
        return Outcome.ESCALATED
    if state.identity.locked:
        return Outcome.LOCKED
    if ENDED_FOR_SILENCE in kinds:
        return Outcome.ENDED_FOR_SILENCE
    if state.disclosed_order_ids or state.products_answered or kinds & SERVED:
        return Outcome.RESOLVED
    return Outcome.ABANDONED


def transcript_allowed(state: CallState, events: list[AuditEvent]) -> bool:
    """Whether the report keeps what was said, as the transcript does: not when the
    caller declined recording, and when they were to be asked, only after their yes."""
    if not state.recording:
        return False
    if state.settings.recording_consent is not RecordingConsent.ASK:
        return True
    answers = [
        event.detail.get("granted")
        for event in events
        if event.kind == "consent_recorded"
        and event.detail.get("topic") == ConsentTopic.CALL_RECORDING.value
    ]
    return bool(answers) and answers[-1] is True


def tags_for(state: CallState, outcome: Outcome) -> list[str]:
    """`key:value` tags for LiveKit Cloud's observability."""
    tags = {f"outcome:{outcome.value}", f"verified:{str(bool(state.verified_customer)).lower()}"}
    for delegation in state.guardrails.delegations:
        tags.add(f"specialist:{delegation.specialist}:{delegation.outcome.value}")
    return sorted(tags)


def tag(tagger: Tagger, state: CallState, outcome: Outcome) -> None:
    for name in tags_for(state, outcome):
        tagger.add(name)
    if outcome.success:
        tagger.success(reason=outcome.value)
    else:
        tagger.fail(reason=outcome.value)


async def call_events(state: CallState) -> tuple[list[AuditEvent], bool]:
    """The call's audit events, the kept ones written first (the shutdown's
    `audit.end_of_call` still closes the call's writes), and whether the store gave them;
    when it cannot, the events still kept, which the shutdown tries to write again."""
    try:
        await audit.flush(state)
        return await state.store.audit_events(call_id=state.call_id), True
    except StoreUnavailable:
        return list(state.audit_backlog.events), False


@dataclass(frozen=True)
class CallReport:
    outcome: Outcome
    content: dict[str, Any]

    def write(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.content['call_id']}.json"
        path.write_text(json.dumps(self.content, ensure_ascii=False, indent=1, default=str))
        return path


def build(
    state: CallState, session_report: SessionReport, events: list[AuditEvent], *, stored: bool
) -> CallReport:
    outcome = outcome_of(state, events)
    transcript = transcript_allowed(state, events)
    customer = state.verified_customer
    known = known_details(state, session_report.chat_history)
    framework = session_report.to_dict(include_events=False)
    content: dict[str, Any] = {
        "report_version": REPORT_VERSION,
        "call_id": state.call_id,
        "job_id": framework["job_id"],
        # A dispatch rule may name the room after the caller's number.
        "room": mask_room_name(framework["room"]),
        "agent_name": framework["agent_name"],
        "started_at": session_report.started_at,
        "ended_at": framework["timestamp"],
        "duration_ms": framework["duration_ms"],
        "close_reason": framework["close_reason"],
        "user_turns": framework["user_turns"],
        "errors": framework["errors"],
        "sdk_version": framework["sdk_version"],
        "options": framework["options"],
        "outcome": outcome.value,
        "success": outcome.success,
        "tags": sorted({*framework["tags"], *tags_for(state, outcome)}),
        "verified_customer_id": customer.customer_id if customer else None,
        "identity_failed_checks": state.identity.failed_checks,
        "disclosed_order_ids": list(state.disclosed_order_ids),
        "transcript_included": transcript,
        "specialists": [
            {
                "specialist": run.specialist,
                "outcome": run.outcome.value,
                "duration_ms": run.duration_ms,
                "result": masked_result(run.result, known=known),
            }
            for run in state.guardrails.delegations
        ],
        "audit_events": [event.model_dump(mode="json") for event in events],
        "audit_events_stored": stored,
        "turns": turns(framework["chat_history"]["items"]),
        "usage": usage_entries(session_report.model_usage, state.settings.price_table),
        "events": _events(session_report),
        "chat_history": masked_history(
            framework["chat_history"]["items"], transcript=transcript, known=known
        ),
    }
    content["cost_usd"] = round(sum(u["cost_usd"] or 0.0 for u in content["usage"]), 6)
    return CallReport(outcome, content)


def _events(session_report: SessionReport) -> list[dict[str, Any]]:
    kept = []
    for event in session_report.events:
        fields = EVENT_FIELDS.get(event.type)
        if fields is None:
            continue
        entry: dict[str, Any] = {"type": event.type, "created_at": event.created_at}
        for name in fields:
            value = getattr(event, name, None)
            entry[name] = value.value if isinstance(value, enum.Enum) else value
        if event.type == "error":
            entry["error"] = type(getattr(event, "error", None)).__name__
        kept.append(entry)
    return kept


async def report_call(
    state: CallState, session_report: SessionReport, *, tagger: Tagger | None = None
) -> CallReport:
    """The call's report, its outcome put on `tagger`, written to REPORT_DIR when set, then
    stored as a row of the store (`stored`), and counted in the OTel metrics. The call is
    over: neither write can fail it, and the row waits on nothing the caller hears."""
    events, stored = await call_events(state)
    report = build(state, session_report, events, stored=stored)
    if tagger is not None:
        tag(tagger, state, report.outcome)
        report.content["tags"] = sorted({*report.content["tags"], *tagger.tags})
    record_call(report.content)
    directory = state.settings.report_dir
    written = directory is not None and _write_file(state, report, directory)
    await store_report(state.store, report.content, directory if written else None)
    return report


def _write_file(state: CallState, report: CallReport, directory: Path) -> bool:
    try:
        path = report.write(directory)
    except OSError as error:
        # The call is over either way; its outcome is on the tagger and in this line.
        logger.error(
            "call report not written",
            extra={
                "call_id": state.call_id,
                "outcome": report.outcome.value,
                "error": type(error).__name__,
            },
        )
        return False
    logger.info(
        "call report written",
        extra={"call_id": state.call_id, "outcome": report.outcome.value, "path": str(path)},
    )
    return True


async def report_job(ctx: JobContext) -> CallReport | None:
    """`report_call` for a job's session; None when no session started."""
    try:
        session = ctx.primary_session
    except RuntimeError:
        return None  # no session started (the store could not be opened)
    state = session.userdata
    if not isinstance(state, CallState):
        return None
    try:
        session_report = ctx.make_session_report(session)
    except RuntimeError:
        # The recorder has not finished closing: no report, but the outcome still counts.
        events, _ = await call_events(state)
        tag(ctx.tagger, state, outcome_of(state, events))
        logger.warning("call report not made", extra={"call_id": state.call_id})
        return None
    return await report_call(state, session_report, tagger=ctx.tagger)


class SessionEvents:
    """The framework's events a report keeps (`EVENT_FIELDS`), recorded for a session
    that runs outside a job (`make chat`), where no `JobContext` records them."""

    def __init__(self, session: AgentSession[Any]) -> None:
        self.events: list[AgentEvent] = []
        self.started_at = time.time()
        for name in EVENT_FIELDS:
            session.on(name, self.events.append)  # type: ignore[arg-type]

    def session_report(self, session: AgentSession[Any], *, call_id: str) -> SessionReport:
        """What `JobContext.make_session_report` would give for the session."""
        report = SessionReport(
            job_id=call_id,
            room_id="",
            room="",
            options=session.options,
            events=list(self.events),
            chat_history=session.history.copy(),
            model_usage=session.usage.model_usage,
            started_at=self.started_at,
        )
        report.duration = report.timestamp - self.started_at
        return report
