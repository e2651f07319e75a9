"""The LiveKit entry: one `AgentSession` per call, with the supervisor in charge."""

from __future__ import annotations

import logging

from livekit.agents import AgentServer, AgentSession, JobContext, JobProcess, room_io
from livekit.agents.types import NOT_GIVEN

from customer_service.call_state import CallState
from customer_service.pipeline import build_models, build_noise_cancellation, load_vad
from customer_service.settings import get_settings
from customer_service.store import Store
from customer_service.supervisor import CustomerServiceAgent

logger = logging.getLogger("customer_service.server")

VAD_KEY = "vad"


def prewarm(proc: JobProcess) -> None:
    """Loads Silero once per worker process, before any call arrives."""
    proc.userdata[VAD_KEY] = load_vad()


server = AgentServer(setup_fnc=prewarm)


def call_id_for(ctx: JobContext) -> str:
    return f"call-{ctx.job.id}"


async def report_session_end(ctx: JobContext) -> None:
    """Logs the shape of the finished call; the transcript stays out of the logs."""
    report = ctx.make_session_report()
    logger.info(
        "call ended",
        extra={
            "call_id": call_id_for(ctx),
            "job_id": report.job_id,
            "duration_s": round(report.duration or 0.0, 1),
            "history_items": len(report.chat_history.items),
            "tags": report.tags,
        },
    )


@server.rtc_session(agent_name=get_settings().agent_name, on_session_end=report_session_end)
async def entrypoint(ctx: JobContext) -> None:
    settings = get_settings()
    models = build_models(settings, vad=ctx.proc.userdata.get(VAD_KEY))
    logger.info(models.describe())

    store = await Store.open(settings.database_url)
    ctx.add_shutdown_callback(store.close)
    state = CallState(store=store, settings=settings, call_id=call_id_for(ctx))

    session: AgentSession[CallState] = AgentSession(
        stt=models.stt if models.stt is not None else NOT_GIVEN,
        llm=models.llm,
        tts=models.tts if models.tts is not None else NOT_GIVEN,
        vad=models.vad,
        turn_handling=models.turn_handling(),
        userdata=state,
    )
    await session.start(
        agent=CustomerServiceAgent(),
        room=ctx.room,
        room_options=room_io.RoomOptions(
            audio_input=(
                False
                if models.text_only
                else room_io.AudioInputOptions(
                    noise_cancellation=build_noise_cancellation(settings)
                )
            ),
            audio_output=not models.text_only,
        ),
    )
    await ctx.connect()
