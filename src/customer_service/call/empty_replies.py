"""A model reply with no words and no tool call: real models send one now and then.

Left alone, the framework plays nothing and waits for the caller, who waits for the
agent: dead air. Every reply of the supervisor and of every specialist passes through
`never_empty` (their `llm_node`), so such a reply ends with `SAY_AGAIN` instead. The
supervisor puts a question it owes the caller in that place, when it owes one.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from livekit.agents import FlushSentinel, llm

from customer_service.call.wording import SAY_AGAIN

__all__ = ["never_empty", "reaches_the_caller"]


def reaches_the_caller(chunk: llm.ChatChunk | str | FlushSentinel) -> bool:
    """Whether a chunk of a reply is words to speak or a tool call to run; blank text,
    token counts and provider metadata are neither."""
    if isinstance(chunk, str):
        return bool(chunk.strip())
    if isinstance(chunk, llm.ChatChunk) and chunk.delta is not None:
        return bool((chunk.delta.content or "").strip() or chunk.delta.tool_calls)
    return False


async def never_empty(
    reply: AsyncIterable[llm.ChatChunk | str | FlushSentinel],
) -> AsyncIterator[llm.ChatChunk | str | FlushSentinel]:
    """`reply`, passed on as it comes, ended with `SAY_AGAIN` when nothing in it reached
    the caller."""
    answered = False
    async for chunk in reply:
        answered = answered or reaches_the_caller(chunk)
        yield chunk
    if not answered:
        yield SAY_AGAIN
