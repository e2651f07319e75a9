"""A tool result the caller's words cut off from its reply is still said.

When the caller speaks while a tool runs ("Hello? Are you still there?"), the framework
answers their words and interrupts the reply the tool's result was waiting for: the
result goes into the history, but nothing says it. A tool whose result is for the caller
hands its call to `say_if_cut_off`: once the framework has the result, its words (written
for the caller, as every result is) are said, with the closing question.
"""

from __future__ import annotations

from livekit.agents import FunctionToolsExecutedEvent, RunContext

from customer_service.call.listeners import listen
from customer_service.call.phrase_cache import say
from customer_service.call.state import CallState
from customer_service.call.wording import ANYTHING_ELSE, unquoted


def say_if_cut_off(context: RunContext[CallState]) -> None:
    """After a tool returns a result: if the caller's words interrupted the reply it was
    waiting for, its words are said as soon as the framework has them."""
    if not context.speech_handle.interrupted:
        return
    session = context.session
    call_id = context.function_call.call_id

    def on_executed(event: FunctionToolsExecutedEvent) -> None:
        output = next(
            (out for out in event.function_call_outputs if out and out.call_id == call_id), None
        )
        if output is None:
            return
        session.off("function_tools_executed", listener)
        # Stored text arrives quoted, as data; a caller hears it without the marks.
        text = unquoted(output.output).strip()
        if text:
            closing = "" if text.endswith("?") else f" {ANYTHING_ELSE}"
            say(session, f"{text}{closing}")

    listener = listen(session, "function_tools_executed", on_executed)
