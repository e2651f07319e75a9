"""A model reply with no words and no tool call: real models send one now and then.

Left alone, the framework plays nothing and waits for the caller, who waits for the
agent: dead air. Every reply of the supervisor and of every specialist passes through
`never_empty` (their `llm_node`), so such a reply ends with `SAY_AGAIN` instead. The
supervisor puts a question it owes the caller in that place, when it owes one.

An empty reply to a tool's result is asked for once more first: the caller said what
they wanted and the tool has done its part, so "say that again" would be wrong, and
the result (a change made, an order found) would go unsaid.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable

from livekit.agents import FlushSentinel, llm

from customer_service.call.wording import SAY_AGAIN, unquoted

__all__ = [
    "Reply",
    "ReplyChunk",
    "answers_the_caller",
    "never_empty",
    "reaches_the_caller",
    "relays_a_tool_result",
    "results_to_relay",
]

ReplyChunk = llm.ChatChunk | str | FlushSentinel
Reply = AsyncIterable[ReplyChunk]


def reaches_the_caller(chunk: ReplyChunk) -> bool:
    """Whether a chunk of a reply is words to speak or a tool call to run; blank text,
    token counts and provider metadata are neither."""
    if isinstance(chunk, str):
        return bool(chunk.strip())
    if isinstance(chunk, llm.ChatChunk) and chunk.delta is not None:
        return bool((chunk.delta.content or "").strip() or chunk.delta.tool_calls)
    return False


def relays_a_tool_result(chat_ctx: llm.ChatContext) -> bool:
    """Whether the reply asked for follows a tool's result."""
    return bool(chat_ctx.items) and chat_ctx.items[-1].type == "function_call_output"


def results_to_relay(chat_ctx: llm.ChatContext) -> str:
    """The tool results the reply asked for follows, as the caller hears them: each
    distinct output of the tools that last ran, stored text unquoted, in order; empty when
    the reply follows no tool's result. A supervisor tool returns the sentence for the
    caller (a change made, a refusal), so code can say it when the model cannot."""
    outputs: list[str] = []
    for item in reversed(chat_ctx.items):
        if not isinstance(item, llm.FunctionCallOutput):
            break
        said = unquoted(item.output).strip()
        if said and said not in outputs:
            outputs.insert(0, said)
    return " ".join(outputs)


def answers_the_caller(chat_ctx: llm.ChatContext) -> bool:
    """Whether the reply asked for answers the caller's words: the first request of
    their turn."""
    last = chat_ctx.items[-1] if chat_ctx.items else None
    return isinstance(last, llm.ChatMessage) and last.role == "user"


async def never_empty(
    reply: Reply, *, ask_again: Callable[[], Reply] | None = None
) -> AsyncIterator[ReplyChunk]:
    """`reply`, passed on as it comes; when nothing in it reached the caller, the reply
    of `ask_again` (when given, once) and then, if that too is empty, `SAY_AGAIN`."""
    answered = False
    async for chunk in reply:
        answered = answered or reaches_the_caller(chunk)
        yield chunk
    if not answered and ask_again is not None:
        async for chunk in ask_again():
            answered = answered or reaches_the_caller(chunk)
            yield chunk
    if not answered:
        yield SAY_AGAIN
