"""The LiveKit entry: one `AgentSession` per call, with the supervisor in charge."""

from __future__ import annotations

import functools
import gc
import logging
import weakref
from typing import Any, TypedDict

from livekit.agents import (
    AgentServer,
    AgentSession,
    APIConnectOptions,
    JobContext,
    JobProcess,
    TurnHandlingOptions,
    room_io,
)
from livekit.agents.llm import LLM
from livekit.agents.stt import STT
from livekit.agents.tts import TTS
from livekit.agents.types import NOT_GIVEN
from livekit.agents.vad import VAD
from livekit.agents.voice.agent_session import SessionConnectOptions

from customer_service.call import audit
from customer_service.call.idle import IdleCaller
from customer_service.call.phrase_cache import PhraseCache
from customer_service.call.state import CallState
from customer_service.call.transcripts import save_transcript
from customer_service.pipeline import build_models, listen_for_the_store, load_vad
from customer_service.reports.collect import report_job
from customer_service.reports.live import log_metrics
from customer_service.settings import RecordingConsent, Settings, get_settings
from customer_service.simulation.grading import on_simulation_end, simulation_store
from customer_service.simulation.rehearsal import FORKSERVER_MODULE
from customer_service.store import StoreMisconfigured, StoreUnavailable
from customer_service.store.errors import store_problem
from customer_service.store.shared import StoreConfig, shared_store
from customer_service.supervisor import CustomerServiceAgent
from customer_service.telemetry.exporters import flush, install_otlp
from customer_service.telephony.attributes import ProgressAttributes
from customer_service.telephony.caller_id import learn_caller_line
from customer_service.telephony.hangup import hang_up
from customer_service.telephony.noise import caller_audio_input

logger = logging.getLogger(__name__)

VAD_KEY = "vad"
PHRASES_KEY = "phrases"


PRELOADED_MODULES = [
    "customer_service.server",
    "customer_service.addresses.every_country",
    FORKSERVER_MODULE,
]
"""Imported once in the forkserver that job processes are forked from (Linux), so every
job process shares their pages instead of importing them again: less memory per call
and a shorter start, every country's address rules read before any call, and the
rehearsal calls' first-use work done (`simulation.rehearsal`). The framework freezes
them there (`gc.freeze`)."""


def prewarm(proc: JobProcess) -> None:
    """Loads Silero once per worker process, before any call arrives, and installs the
    OTLP exporters there when the OTel settings name a collector (off by default)."""
    proc.userdata[VAD_KEY] = load_vad()
    install_otlp()
    # What is loaded by now lives as long as the process: no collection needs to walk
    # it during a call, and walking it would copy the pages shared with the forkserver.
    gc.collect()
    gc.freeze()


server = AgentServer(setup_fnc=prewarm, preload_modules=PRELOADED_MODULES)


def call_id_for(ctx: JobContext) -> str:
    return f"call-{ctx.job.id}"


async def report_session_end(ctx: JobContext) -> None:
    """The framework's `on_session_end`: puts the call's outcome on the job's tagger
    (uploaded to LiveKit Cloud next), writes its report to REPORT_DIR when set and to the
    store, sends the call's spans when an OTLP collector is configured, and logs the shape
    of the finished call; the transcript stays out of the logs."""
    call = await report_job(ctx)
    # The call's spans and figures leave now rather than wait for the next batch.
    await flush()
    if call is None:
        return  # no session started (the store could not be opened): nothing to report
    report = call.content
    logger.info(
        "call ended",
        extra={
            "call_id": call_id_for(ctx),
            "job_id": report["job_id"],
            "duration_s": round((report["duration_ms"] or 0) / 1000, 1),
            "history_items": len(report["chat_history"]),
            "outcome": call.outcome.value,
            "tags": report["tags"],
        },
    )


class SessionTimers(TypedDict, total=False):
    """The session's own timers. A call in a room leaves them to the framework (3 s of
    echo warm-up, 2 s to wait for the caller's last words at close) except the silence
    before the caller counts as away (USER_AWAY_TIMEOUT_S); the voice tests run them
    all on their faster clock."""

    aec_warmup_duration: float | None
    session_close_transcript_timeout: float
    user_away_timeout: float | None


def build_session(
    settings: Settings,
    state: CallState,
    *,
    stt: STT[Any] | None,
    llm: LLM[Any],
    tts: TTS[Any] | None,
    vad: VAD | None,
    turn_handling: TurnHandlingOptions,
    timers: SessionTimers | None = None,
) -> AgentSession[CallState]:
    """The call's `AgentSession`, the same in a room and under `customer_service.testing`.

    The models come as they are: `build_models` has already wrapped `llm` with
    `speak_failures`.
    """
    if timers is None:
        timers = SessionTimers(user_away_timeout=settings.user_away_timeout_s)
    session: AgentSession[CallState] = AgentSession(
        stt=stt if stt is not None else NOT_GIVEN,
        llm=llm,
        tts=tts if tts is not None else NOT_GIVEN,
        vad=vad,
        turn_handling=turn_handling,
        max_tool_steps=settings.session_max_tool_steps,
        # One quick retry: every retry of a failing model is silence on the line, and the
        # fallback models and the spoken apology take over after it.
        conn_options=SessionConnectOptions(
            llm_conn_options=APIConnectOptions(max_retry=1, retry_interval=0.5)
        ),
        userdata=state,
        **(timers if timers is not None else SessionTimers()),
    )
    # A caller who goes quiet is asked once more, then the call ends the way end_call does.
    IdleCaller(session, functools.partial(hang_up, session))
    # A reply that needs a second model request says a short acknowledgement first.
    state.first_words.follow(session)
    audit.write_kept_each_turn(session)
    log_metrics(session, call_id=state.call_id)
    return session


def room_options(settings: Settings, *, text_only: bool, call_id: str) -> room_io.RoomOptions:
    """How the session meets the room: the caller's audio (noise-cancelled by the kind of
    participant), the agent's voice, and typed text, which Agent Playground's chat box
    sends alongside voice and which is answered like speech."""
    return room_io.RoomOptions(
        audio_input=False if text_only else caller_audio_input(settings, call_id=call_id),
        audio_output=not text_only,
        text_input=True,
    )


@server.rtc_session(
    agent_name=get_settings().agent_name,
    on_session_end=report_session_end,
    on_simulation_end=on_simulation_end,
)
async def entrypoint(ctx: JobContext) -> None:
    settings = get_settings()
    models = build_models(settings, vad=ctx.proc.userdata.get(VAD_KEY))
    logger.info(models.describe())

    # The process's one engine and pool, opened by its first call; this call's handle
    # is closed with the call, the engine when the process ends. A simulated call gets a
    # scratch store of its own, prepared as its scenario starts and graded at its end.
    config = StoreConfig.from_settings(settings)
    simulation = ctx.simulation_context()
    try:
        if simulation is not None:
            store = await simulation_store(ctx, simulation)
        else:
            store = await shared_store(ctx.proc.userdata, config).for_call()
    except (StoreUnavailable, StoreMisconfigured) as error:
        logger.error("the call cannot start: %s", store_problem(error, config.database_url))
        ctx.shutdown(reason="store unavailable")
        return
    ctx.add_shutdown_callback(store.close)
    await listen_for_the_store(models.stt, store)
    # The process's phrase cache, kept for its next call; LiveKit runs one call per
    # process at a time, so SPEECH_CACHE_DIR is what carries sentences between calls.
    phrases = ctx.proc.userdata.setdefault(PHRASES_KEY, PhraseCache(settings.speech_cache_dir))
    state = CallState(store=store, settings=settings, call_id=call_id_for(ctx), phrases=phrases)

    session = build_session(
        settings,
        state,
        stt=models.stt,
        llm=models.llm,
        tts=models.tts,
        vad=models.vad,
        turn_handling=models.turn_handling(),
    )
    # LiveKit's recorder cannot be stopped mid-call, so when the caller is asked first it
    # is not started at all; the consented transcript is kept instead.
    recording: dict[str, Any] = (
        {"record": False} if settings.recording_consent == RecordingConsent.ASK else {}
    )

    async def end_of_call() -> None:
        save_transcript(state, session.history)
        await audit.end_of_call(state)

    ctx.add_shutdown_callback(end_of_call)
    await session.start(
        agent=CustomerServiceAgent(),
        room=ctx.room,
        **recording,
        room_options=room_options(settings, text_only=models.text_only, call_id=state.call_id),
    )
    await ctx.connect()
    # After the start, which readies the room's handlers before the caller's first audio
    # arrives: the line is known as soon as they join, long before any specialist (the
    # only readers of it) can start.
    await learn_caller_line(ctx, state)
    progress = ProgressAttributes(ctx.room, call_id=state.call_id)
    ctx.add_shutdown_callback(progress.aclose)
    progress.follow(state)


# How rooms get this agent

AUTOMATIC_DISPATCH = "automatic dispatch: every new room gets this agent (Agent Playground)"


def dispatch_line(agent_name: str) -> str:
    """How rooms get an agent registered as `agent_name` ("" for none), in one line."""
    if not agent_name:
        return AUTOMATIC_DISPATCH
    return (
        f"explicit dispatch as AGENT_NAME={agent_name}: rooms get this agent only through "
        "a dispatch rule or API"
    )


_announcing: weakref.WeakSet[AgentServer] = weakref.WeakSet()


def announce_dispatch(server: AgentServer) -> None:
    """Logs `dispatch_line` once, when `server` first registers with LiveKit (`dev`, `start`,
    `lk agent dev|start`: the commands that take rooms). Calling it again for the same
    server adds nothing, so every path that loads the entry file may call it."""
    if server in _announcing:
        return
    _announcing.add(server)

    def announce(*_: object) -> None:
        # rtc_session() settles the name (AGENT_NAME, else LiveKit's LIVEKIT_AGENT_NAME
        # variables); AgentServer has no public accessor for it.
        logger.info(dispatch_line(server._agent_name))

    server.once("worker_registered", announce)
