"""One call through the server's entrypoint in the framework's fake job context, typed
rather than spoken, and ended as the framework ends a job: the session closed, the
session-end report made, the job's shutdown callbacks run."""

from __future__ import annotations

from livekit.agents.testing import fake_job_context

from customer_service import server

__all__ = ["call_in_a_room"]


async def call_in_a_room(job_id: str, *lines: str) -> tuple[set[str], str | None, str | None]:
    """Runs one call saying `lines` and returns the job tagger's tags, outcome and reason."""
    with fake_job_context(job_id=job_id) as ctx:
        # No VAD: the offline model's call is a text conversation (`build_models`).
        ctx.proc.userdata[server.VAD_KEY] = None
        await server.entrypoint(ctx)
        session = ctx.primary_session
        try:
            for line in lines:
                await session.run(user_input=line)
        finally:
            await session.aclose()
        await server.report_session_end(ctx)
        for shutdown_callback in ctx._shutdown_callbacks:
            await shutdown_callback("test over")
        return ctx.tagger.tags, ctx.tagger.outcome, ctx.tagger.outcome_reason
