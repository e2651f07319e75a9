"""`make chat`: a text conversation with the agent in the terminal, no server needed.

Reads caller lines from standard input (typed, or piped) and prints the conversation.
It runs the same supervisor, specialists and store as a phone call; the model is the
offline stand-in unless provider keys or LiveKit credentials are configured. With
REPORT_DIR set, the call leaves its report there, as a call in a room does.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Any, TextIO

from livekit.agents import AgentSession, llm
from livekit.agents.voice import CloseEvent

from customer_service.call.state import CallState
from customer_service.call.wording import GOODBYE
from customer_service.entry import MISCONFIGURED_EXIT_CODE
from customer_service.log_privacy import install_log_privacy
from customer_service.pipeline import PipelineError, build_models
from customer_service.reports.collect import SessionEvents, report_call
from customer_service.settings import ModelProvider, Settings, get_settings
from customer_service.store import Store, StoreMisconfigured, StoreUnavailable
from customer_service.store.errors import store_problem
from customer_service.store.shared import StoreConfig
from customer_service.store_commands import empty_store_notice
from customer_service.terminal_input import INTERRUPTED_EXIT_CODE, LineReader
from customer_service.testing import call_session

EXIT_WORDS = frozenset({"/quit", "/exit"})

PROMPT = "Caller: "
"""Typed turns start as piped ones are echoed, so both transcripts read alike."""

OFFLINE_MODEL = (
    "offline stand-in model (no provider keys configured), which understands English only"
)
"""The start-up line's model when no provider is configured: its rules read English alone."""


def choose_llm() -> tuple[llm.LLM[Any], str]:
    settings = get_settings()
    if settings.resolved_model_provider is ModelProvider.OFFLINE:
        from customer_service.offline_llm import OfflineLLM

        return OfflineLLM(), OFFLINE_MODEL
    models = build_models(settings, vad=None, text_only=True)
    if not isinstance(models.llm, llm.LLM):
        raise SystemExit("The configured model cannot run a text chat.")
    return models.llm, models.summary()


async def converse(
    model: llm.LLM[Any],
    *,
    database_url: str,
    lines: TextIO,
    out: TextIO,
    echo_caller: bool,
    settings: Settings | None = None,
    store: Store | None = None,
    goodbye_at_end: bool = False,
) -> int:
    """Runs one call: each input line is a caller turn; returns when input ends or the
    agent ends the call. The call uses `store` when given (the chat command's, opened as
    the settings say), else a demo store at `database_url` as `call_session` opens it.
    At the prompt (`echo_caller` false), the end of input (Ctrl-D) ends the prompt's
    line and the agent says goodbye; piped input that runs out ends with the same goodbye
    when `goodbye_at_end` (the chat command's), as the caller hanging up would."""
    ended = asyncio.Event()
    reader = LineReader(lines)

    def show(item: llm.ChatItem) -> None:
        if isinstance(item, llm.ChatMessage) and item.role == "assistant" and item.text_content:
            print(f"Agent: {item.text_content}", file=out, flush=True)

    def closed(_: CloseEvent) -> None:
        ended.set()

    session: AgentSession[CallState]
    async with call_session(
        model, database_url=database_url, settings=settings, store=store
    ) as session:
        for greeting in session.history.items:
            show(greeting)
        session.on("conversation_item_added", lambda event: show(event.item))
        session.on("close", closed)
        recorded = SessionEvents(session)
        try:
            while not (ended.is_set() or session.userdata.ending):
                if not echo_caller:
                    print(PROMPT, end="", file=out, flush=True)
                line = await reader.readline()
                if not line and (goodbye_at_end or not echo_caller):
                    end_of_prompt = "" if echo_caller else "\n"
                    print(f"{end_of_prompt}Agent: {GOODBYE}", file=out, flush=True)
                if not line or line.strip() in EXIT_WORDS:
                    break
                text = line.strip()
                if not text:
                    continue
                if echo_caller:
                    print(f"{PROMPT}{text}", file=out, flush=True)
                await session.run(user_input=text)
        finally:
            # However the call ended, Ctrl-C (which cancels this) included, as a job's
            # `on_session_end` does once the session has closed: the report needs the
            # store, which `call_session` may close on the way out.
            state = session.userdata
            await session.aclose()
            if state.settings.report_dir is not None:
                await report_call(state, recorded.session_report(session, call_id=state.call_id))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="agent.py chat", description="Talk to the agent in the terminal."
    )
    parser.add_argument(
        "--database-url", help="store to use (default: DATABASE_URL or the local demo store)"
    )
    parser.add_argument("--verbose", action="store_true", help="show the agent's logs")
    args = parser.parse_args(argv)
    return _chat(args)


def _chat(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.ERROR,
        format="%(levelname)s %(name)s: %(message)s",
    )
    # Quiet unless --verbose, which shows the agent's own logs at LOG_LEVEL.
    install_log_privacy(get_settings(), own_level=None if args.verbose else logging.ERROR)
    try:
        model, description = choose_llm()
    except PipelineError as problem:
        # A provider chosen without its keys, or a model it cannot serve: the message
        # names the setting.
        print(problem, file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    interactive = sys.stdin.isatty()
    config = StoreConfig.from_settings(get_settings(), database_url=args.database_url)

    async def chat() -> int:
        try:
            store = await config.open()
        except (StoreUnavailable, StoreMisconfigured) as error:
            print(store_problem(error, config.database_url), file=sys.stderr)
            return MISCONFIGURED_EXIT_CODE
        print(f"Model: {description}. Type /quit to leave.", file=sys.stdout, flush=True)
        notice = await empty_store_notice(store)
        if notice is not None:
            print(notice, file=sys.stderr, flush=True)
        conversation = asyncio.ensure_future(
            converse(
                model,
                database_url=config.database_url,
                lines=sys.stdin,
                out=sys.stdout,
                echo_caller=not interactive,
                store=store,
                goodbye_at_end=True,
            )
        )
        # Ctrl-C ends the call at once: the conversation is cancelled, which closes the
        # session and leaves the report as any end does, with the status shells give a
        # command Ctrl-C ended. Only the first one counts: asyncio's own handler would
        # raise KeyboardInterrupt at a second one, in the middle of the closing.
        interrupted = False

        def interrupt() -> None:
            nonlocal interrupted
            if not interrupted:
                interrupted = True
                conversation.cancel()

        loop = asyncio.get_running_loop()
        before = signal.getsignal(signal.SIGINT)
        loop.add_signal_handler(signal.SIGINT, interrupt)
        try:
            return await conversation
        except asyncio.CancelledError:
            if not interrupted:
                raise
            print(file=sys.stdout, flush=True)  # past the ^C the terminal shows
            return INTERRUPTED_EXIT_CODE
        finally:
            await store.close()
            loop.remove_signal_handler(signal.SIGINT)
            # Once interrupted, a Ctrl-C more while the process ends would only add a
            # traceback; otherwise Ctrl-C does again what it did before the conversation.
            signal.signal(signal.SIGINT, signal.SIG_IGN if interrupted else before)

    return asyncio.run(chat())
