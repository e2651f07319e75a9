"""Logs never carry a caller's personal data in full, whatever happens in the call."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from livekit.agents import llm
from livekit.agents.cli.log import setup_logging
from livekit.agents.ipc.log_queue import LogQueueListener
from livekit.agents.plugin import Plugin
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS

from customer_service.log_privacy import (
    DRIVER_LOGGERS,
    LogPrivacyFilter,
    install_log_privacy,
    uninstall_log_privacy,
)
from customer_service.offline_llm import OfflineLLM, OfflineLLMStream
from customer_service.settings import ModelProvider, Settings
from customer_service.store import Store, StoreUnavailable
from customer_service.testing import call_session, sqlite_url
from support.faults import fail_everything, fail_writes

PERSONAL = (
    "Jordan Lee",
    "jordan.lee@example.com",
    "4155550134",
    "555-0134",
    "1 Market Street",
    "500 Howard St",
    "Suite 5",
)

CALLER_TURNS = (
    "I need to change the delivery address for order 100102",
    "Jordan Lee, 94107, jordan.lee@example.com",
    "1 Market Street, Suite 5, San Francisco, CA 94105",
    "yes",
    "yes",
    "Where is my order 100101?",
    "Can I talk to a person? My number is +1 415 555 0134",
)
LAST_TURN = "Please transfer me to a human, I'm Jordan Lee"

# What the caller said, except words too common to identify anyone ("yes").
TRANSCRIPT_SENTENCES = tuple(turn for turn in (*CALLER_TURNS, LAST_TURN) if len(turn) > 3)
# The caller's postal code reaches the store only as a bound SQL parameter.
POSTAL_CODE = "94107"


def everything_logged(records: list[logging.LogRecord]) -> str:
    standard = set(vars(logging.makeLogRecord({})))
    lines = []
    for record in records:
        extras = {key: value for key, value in vars(record).items() if key not in standard}
        lines.append(f"{record.getMessage()} {extras}")
    return "\n".join(lines)


SLOPPY = frozenset({"check_identity", "record_address"})
"""Tools whose arguments are personal: the identity details (when the model reads them)
and the new address."""


class SloppyJSONStream(OfflineLLMStream):
    async def __anext__(self) -> llm.ChatChunk:
        chunk = await super().__anext__()
        for call in chunk.delta.tool_calls if chunk.delta else ():
            if call.name in SLOPPY:
                call.arguments = call.arguments.removesuffix("}")
        return chunk


class OfflineLLMWithSloppyJSON(OfflineLLM):
    """The offline model, except that the arguments of the tools it calls with personal
    data lack their closing brace, as real models sometimes send them. The framework
    repairs them and logs a WARNING that quotes them, a line `start` prints at its
    default level, INFO."""

    def chat(self, *, chat_ctx: llm.ChatContext, **options: Any) -> OfflineLLMStream:
        return SloppyJSONStream(
            self,
            chat_ctx=chat_ctx,
            tools=list(options.get("tools") or []),
            conn_options=options.get("conn_options", DEFAULT_API_CONNECT_OPTIONS),
            tools_allowed=options.get("tool_choice") != "none",
        )


async def run_whole_call(settings: Settings, model: llm.LLM[Any] | None = None) -> None:
    """Address change, consent, order status and a hand-off, with the store refusing
    writes at the end so that the hand-off record is logged instead of stored."""
    async with call_session(model or OfflineLLM(), settings=settings) as session:
        for turn in CALLER_TURNS[:-1]:
            await session.run(user_input=turn)
        fail_writes(session.userdata.store)
        await session.run(user_input=CALLER_TURNS[-1])
        await session.run(user_input=LAST_TURN)


async def test_a_whole_call_logs_no_personal_data(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="customer_service"):
        await run_whole_call(settings)
    ours = [record for record in caplog.records if record.name.startswith("customer_service")]
    assert any(record.getMessage() == "escalation not stored" for record in ours)
    logged = everything_logged(ours)
    for value in PERSONAL:
        assert value not in logged


# The whole process, as `python src/agent.py dev | start` sets it up: our privacy first,
# then the framework's own log setup, then a call; every line its handler prints is read.


@pytest.fixture
def restored_logging() -> Iterator[None]:
    """Puts back the root handlers, every logger's level and the framework's plugin hook,
    so that the process-wide logging set up by a test leaves no trace in the next."""
    root = logging.getLogger()
    handlers = list(root.handlers)
    levels = {
        name: logger.level
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    root_level = root.level
    plugin_hooks = {event: set(hooks) for event, hooks in Plugin.emitter._events.items()}
    try:
        yield
    finally:
        uninstall_log_privacy()
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(root_level)
        for name, logger in logging.Logger.manager.loggerDict.items():
            if isinstance(logger, logging.Logger):
                logger.setLevel(levels.get(name, logging.NOTSET))
        Plugin.emitter._events.clear()
        Plugin.emitter._events.update(plugin_hooks)


def framework_logging(
    monkeypatch: pytest.MonkeyPatch, level: str, *, devmode: bool, console: bool = False
) -> io.StringIO:
    """Runs the framework's `setup_logging` as its CLI does (`dev`: colored, `start`:
    JSON, `lk agent console`: colored for a terminal), its handler writing to the
    returned buffer instead of the terminal."""
    printed = io.StringIO()
    monkeypatch.setattr(sys, "stdout", printed)
    before = list(logging.getLogger().handlers)
    setup_logging(level, devmode=devmode, console=console)
    added = [handler for handler in logging.getLogger().handlers if handler not in before]
    assert len(added) == 1
    (handler,) = added
    assert isinstance(handler, logging.StreamHandler)
    assert handler.stream is printed
    # The filter was installed before the handler existed, and still sits on it.
    assert any(isinstance(f, LogPrivacyFilter) for f in handler.filters)
    return printed


def offline_settings() -> Settings:
    """The process settings (environment included) with the offline model."""
    return Settings(model_provider=ModelProvider.OFFLINE)


def leaks(printed: str) -> list[str]:
    return [
        f"{value!r} in: {line}"
        for line in printed.splitlines()
        for value in (*PERSONAL, *TRANSCRIPT_SENTENCES, POSTAL_CODE)
        if value in line
    ]


@pytest.mark.usefixtures("restored_logging")
@pytest.mark.parametrize(
    ("level", "devmode", "console"),
    [
        ("DEBUG", True, False),
        ("INFO", False, False),
        ("DEBUG", False, False),
        ("DEBUG", True, True),
    ],
    ids=["dev default", "start default", "start at DEBUG", "console"],
)
async def test_every_line_the_framework_prints_in_a_whole_call_is_free_of_personal_data(
    monkeypatch: pytest.MonkeyPatch, level: str, devmode: bool, console: bool
) -> None:
    settings = offline_settings()
    install_log_privacy(settings)
    printed = framework_logging(monkeypatch, level, devmode=devmode, console=console)
    await run_whole_call(settings, OfflineLLMWithSloppyJSON())

    text = printed.getvalue()
    # The call was logged (an empty capture proves nothing) ...
    assert "delegation started" in text
    assert "escalation not stored" in text
    assert "repaired malformed function-call JSON arguments" in text
    if level == "DEBUG":
        assert "executing tool" in text
        assert "conversation_item_added" in text
    # ... and no line of it names the caller or repeats what they said.
    assert leaks(text) == []
    assert "pii" not in text


@pytest.mark.usefixtures("restored_logging")
async def test_log_transcripts_lets_what_the_caller_said_into_the_logs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LOG_TRANSCRIPTS", "true")
    settings = offline_settings()
    assert settings.log_transcripts
    install_log_privacy(settings)
    printed = framework_logging(monkeypatch, "DEBUG", devmode=True)
    await run_whole_call(settings)

    text = printed.getvalue()
    assert all(sentence in text for sentence in TRANSCRIPT_SENTENCES)
    assert "lk.pii.arguments" in text
    # Transcripts only: the database driver's lines stay out.
    assert not any(f" {driver}" in text for driver in DRIVER_LOGGERS)


def test_transcripts_are_kept_out_unless_the_setting_says_otherwise() -> None:
    assert Settings().log_transcripts is False


@pytest.mark.usefixtures("restored_logging")
async def test_log_level_warning_silences_the_agents_info_lines_not_the_framework(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LOG_LEVEL", "warning")
    settings = offline_settings()
    install_log_privacy(settings)
    printed = framework_logging(monkeypatch, "DEBUG", devmode=True)
    await run_whole_call(settings)

    ours = [line for line in printed.getvalue().splitlines() if " customer_service." in line]
    assert any("escalation not stored" in line for line in ours)
    assert not any("INFO" in line or "DEBUG" in line for line in ours)
    assert "delegation started" not in printed.getvalue()
    # `--log-level` still decides for the framework.
    assert "executing tool" in printed.getvalue()


@pytest.mark.usefixtures("restored_logging")
async def test_log_level_info_keeps_the_agents_info_lines_under_dev(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = offline_settings()
    assert settings.log_level == "INFO"
    install_log_privacy(settings)
    printed = framework_logging(monkeypatch, "DEBUG", devmode=True)
    await run_whole_call(settings)

    assert "delegation started" in printed.getvalue()
    assert logging.getLogger("customer_service").getEffectiveLevel() == logging.INFO


def test_an_unknown_log_level_is_a_settings_error() -> None:
    with pytest.raises(ValueError, match="unknown log level"):
        Settings(log_level="verbose")


@pytest.mark.usefixtures("restored_logging")
async def test_sql_parameters_never_reach_the_logs_even_with_the_driver_at_debug(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = offline_settings()
    install_log_privacy(settings)
    for driver in DRIVER_LOGGERS:
        assert logging.getLogger(driver).getEffectiveLevel() >= logging.WARNING
    printed = framework_logging(monkeypatch, "DEBUG", devmode=True)
    # Someone turns the driver's logs on after start-up: the handler still drops them.
    for name in ("sqlalchemy.engine", "aiosqlite"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    await run_whole_call(settings)

    text = printed.getvalue()
    assert "executing tool" in text
    assert POSTAL_CODE not in text
    assert "jordan.lee@example.com" not in text
    assert not any(f" {driver}" in text for driver in DRIVER_LOGGERS)


async def test_store_errors_do_not_quote_the_sql_parameters(tmp_path: Path) -> None:
    store = await Store.open(sqlite_url(tmp_path / "store.sqlite3"))
    try:
        fail_everything(store)
        with pytest.raises(StoreUnavailable) as raised:
            await store.customers_with_postal_code(POSTAL_CODE)
    finally:
        await store.close()
    assert raised.value.__cause__ is not None
    assert POSTAL_CODE not in str(raised.value.__cause__)


# The filter on its own, for records no offline call produces


def record_with(**extra: object) -> logging.LogRecord:
    record = logging.makeLogRecord(
        {"name": "livekit.agents", "msg": "executing tool", "levelno": logging.DEBUG}
    )
    record.__dict__.update(extra)
    return record


def test_every_field_with_a_pii_segment_goes_and_the_others_stay() -> None:
    record = record_with(
        **{"lk.pii.arguments": "{}", "lk.pii.sip.phoneNumber": "+1", "function": "f"}
    )
    assert LogPrivacyFilter().filter(record)
    assert "lk.pii.arguments" not in vars(record)
    assert "lk.pii.sip.phoneNumber" not in vars(record)
    assert vars(record)["function"] == "f"
    kept = record_with(**{"lk.pii.text": "hello"})
    assert LogPrivacyFilter(allow_transcripts=True).filter(kept)
    assert vars(kept)["lk.pii.text"] == "hello"


def test_a_traceback_that_quotes_the_callers_input_keeps_its_frames_not_its_message() -> None:
    try:
        raise ValueError(f"could not parse function arguments: {CALLER_TURNS[1]}")
    except ValueError:
        record = record_with(**{"lk.pii.arguments": CALLER_TURNS[1]})
        record.exc_info = sys.exc_info()
    handler = logging.StreamHandler(io.StringIO())
    handler.addFilter(LogPrivacyFilter())
    handler.handle(record)
    printed = handler.stream.getvalue()
    assert "Traceback (most recent call last)" in printed
    assert "ValueError" in printed
    assert "Jordan Lee" not in printed


def test_a_job_process_traceback_arrives_as_text_and_is_cut_to_its_frames() -> None:
    # A job process formats the record before forwarding it: message and traceback are text.
    traceback_text = (
        "Traceback (most recent call last):\n"
        '  File "tool.py", line 3, in run\n'
        "    raise ValueError(arguments)\n"
        f"ValueError: {CALLER_TURNS[1]}"
    )
    record = record_with(**{"lk.pii.arguments": CALLER_TURNS[1]})
    record.msg = f"error parsing arguments\n{traceback_text}"
    record.exc_text = traceback_text
    assert LogPrivacyFilter().filter(record)
    printed = logging.Formatter().format(record)
    assert '  File "tool.py", line 3, in run' in printed
    assert "Jordan Lee" not in printed


@pytest.mark.usefixtures("restored_logging")
def test_handlers_already_on_the_root_get_the_filter_and_lose_it_on_uninstall() -> None:
    handler = logging.StreamHandler(io.StringIO())
    logging.getLogger().addHandler(handler)
    install_log_privacy(offline_settings())
    assert any(isinstance(f, LogPrivacyFilter) for f in handler.filters)
    uninstall_log_privacy()
    assert handler.filters == []
    assert "addHandler" not in vars(logging.getLogger())


# Room names: LiveKit's individual dispatch rule names a phone call's room after the
# caller's number, and the framework logs the room name at every job.

ROOM = "call-_+14155550134_Xk3pQ9aZ"
MASKED_ROOM = "call-_+1*******0134_Xk3pQ9aZ"


def received_job_request() -> None:
    """The framework's INFO line at each job, as `Worker._handle_availability` logs it."""
    logging.getLogger("livekit.agents").info(
        "received job request",
        extra={
            "job_id": "AJ_dDrGHmmxcTJ3",
            "dispatch_id": "AD_ZAoW3rJGnNqp",
            "room": ROOM,
            "room_id": "RM_nAaF7bM2QwEu",
            "agent_name": "customer-service",
            "resuming": False,
            "enable_recording": False,
        },
    )


@pytest.mark.usefixtures("restored_logging")
@pytest.mark.parametrize("devmode", [True, False], ids=["dev", "start"])
def test_the_frameworks_job_request_line_prints_the_room_name_masked(
    monkeypatch: pytest.MonkeyPatch, devmode: bool
) -> None:
    install_log_privacy(offline_settings())
    printed = framework_logging(monkeypatch, "INFO", devmode=devmode)
    received_job_request()
    text = printed.getvalue()
    assert "received job request" in text
    assert MASKED_ROOM in text
    assert "4155550134" not in text


@pytest.mark.usefixtures("restored_logging")
def test_a_job_process_line_forwarded_with_its_room_prints_it_masked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_log_privacy(offline_settings())
    printed = framework_logging(monkeypatch, "INFO", devmode=False)
    # As the job process's LogQueueHandler sends it: the message formatted, no args ...
    record = logging.makeLogRecord(
        {
            "name": "livekit.agents",
            "levelno": logging.INFO,
            "levelname": "INFO",
            "msg": f"connected to room {ROOM}",
            "args": None,
        }
    )

    # ... and as the main process receives it: the job's fields added (`logging_extra`).
    def add_job_fields(forwarded: logging.LogRecord) -> None:
        forwarded.__dict__.update({"job_id": "AJ_dDrGHmmxcTJ3", "room": ROOM, "pid": 4242})

    LogQueueListener(duplex=None, prepare_fnc=add_job_fields).handle(record)  # type: ignore[arg-type]
    text = printed.getvalue()
    assert f"connected to room {MASKED_ROOM}" in text
    assert text.count(MASKED_ROOM) == 2
    assert "4155550134" not in text


@pytest.mark.parametrize(
    ("room", "masked"),
    [
        (ROOM, MASKED_ROOM),
        ("call_4155550134_Xk3pQ9aZ", "call_*******0134_Xk3pQ9aZ"),
        ("+14155550134_Xk3pQ9aZ", "+1*******0134_Xk3pQ9aZ"),
        ("call-_+15105550100_Xk3pQ9aZ", "call-_+1*******0100_Xk3pQ9aZ"),
        ("playground-Xk3pQ9aZ", "playground-Xk3pQ9aZ"),
    ],
)
def test_a_phone_number_in_a_room_name_is_masked_in_message_args_and_fields(
    room: str, masked: str
) -> None:
    record = record_with(room=room, lk_room_name=room, job_id="AJ_dDrGHmmxcTJ3")
    record.msg = "job for %s in room %s"
    record.args = ("customer-service", room)
    assert LogPrivacyFilter().filter(record)
    assert record.getMessage() == f"job for customer-service in room {masked}"
    assert (vars(record)["room"], vars(record)["lk_room_name"]) == (masked, masked)
    assert vars(record)["job_id"] == "AJ_dDrGHmmxcTJ3"


def test_a_field_that_names_a_room_masks_a_bare_number_too() -> None:
    # The callee rule without a prefix or suffix names the room after the number alone.
    record = record_with(room="14155550134", rooms=["14155550134"])
    assert LogPrivacyFilter().filter(record)
    assert vars(record)["room"] == "*******0134"
    assert vars(record)["rooms"] == ["*******0134"]


def test_numbers_that_are_no_room_name_stay_as_they_are() -> None:
    record = record_with(elapsed_time=1234567.25, pid=1234567, sizes=[12345678])
    record.msg = "took %d ms for %s bytes at 1714380000.5"
    record.args = (1234567, "12345678")
    assert LogPrivacyFilter().filter(record)
    assert record.getMessage() == "took 1234567 ms for 12345678 bytes at 1714380000.5"
    assert (vars(record)["elapsed_time"], vars(record)["pid"]) == (1234567.25, 1234567)
    assert vars(record)["sizes"] == [12345678]
