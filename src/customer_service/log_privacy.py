"""Keeps callers' personal data out of every log line the process writes; applies LOG_LEVEL.

Where personal data would reach the logs:
- The LiveKit framework puts transcripts, tool arguments and tool outputs into log
  records as extra fields whose name has a `pii` segment (`lk.pii.text`,
  `lk.pii.user_input`, `lk.pii.arguments`, ...). Its log setup prints every extra field,
  and `dev` and `console` log at DEBUG.
- The database driver's loggers (`sqlalchemy`, `aiosqlite`, `asyncpg`) print each
  statement with its bound values, and result rows, at INFO and DEBUG.
- A traceback's exception message can quote the input that failed (pydantic's
  `ValidationError` always does).
- A phone call's room is named by LiveKit's dispatch rule, after the caller's number with
  individual dispatch (`call-_+14155550134_Xk3pQ9aZ`), and the framework logs the room
  name with every job ("received job request"), in a field `room`, as the job processes'
  forwarded records do too.

`install_log_privacy` puts `LogPrivacyFilter` on every handler of the root logger: those
there already and those added later, since the framework's command line adds its handler
(`livekit.agents.cli.log.setup_logging`) after the entry has run. It has to be the
handler: a logger's filter sees only the records logged on that very logger, while a
handler's filter sees the records of every logger that propagates to it, the records
that job processes forward to the main process included.
"""

from __future__ import annotations

import logging
import re
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import pydantic

from customer_service.privacy import mask_phone, mask_room_name
from customer_service.settings import Settings

__all__ = [
    "DRIVER_LOGGERS",
    "LogPrivacyFilter",
    "install_log_privacy",
    "is_personal_field",
    "uninstall_log_privacy",
]

PACKAGE_LOGGER = "customer_service"
"""The agent's own loggers, which LOG_LEVEL sets."""

DRIVER_LOGGERS = ("sqlalchemy", "aiosqlite", "asyncpg")
"""Loggers that print SQL parameters and result rows below `DRIVER_LEVEL`."""

DRIVER_LEVEL = logging.WARNING
"""The driver's records below this level are never written. Masking their parameters
instead would mean parsing each driver's message format, and every value in them (names,
emails, addresses, whole result rows) is the caller's; the warnings and errors above it
stay, with their parameters hidden by the engine (`hide_parameters=True` in the store)."""

WITHHELD = "[withheld: may carry personal data]"


def is_personal_field(name: str) -> bool:
    """Whether a log record attribute is one the framework marks as personal data."""
    return "pii" in name.split(".")


def _from_driver(logger_name: str) -> bool:
    return any(
        logger_name == driver or logger_name.startswith(f"{driver}.") for driver in DRIVER_LOGGERS
    )


def _exception_chain(error: BaseException) -> list[BaseException]:
    """`error` and the exceptions it was raised from or while handling, innermost first."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )
    return chain[::-1]


def _traceback_without_messages(error: BaseException) -> str:
    """The traceback as Python prints it, with each exception's message withheld: where
    it failed and with which type, not the values it was given."""
    parts: list[str] = []
    for position, link in enumerate(_exception_chain(error)):
        if position:
            parts.append("\nThe exception above led to the one below:\n\n")
        parts.append("Traceback (most recent call last):\n")
        parts.extend(traceback.format_tb(link.__traceback__))
        parts.append(f"{type(link).__module__}.{type(link).__qualname__}: {WITHHELD}\n")
    return "".join(parts).rstrip("\n")


def _frames_only(formatted_traceback: str) -> str:
    """A traceback already formatted (a job process's record) reduced to its frames."""
    frames = [
        line
        for line in formatted_traceback.splitlines()
        if line.startswith(("Traceback (most recent call last)", '  File "'))
    ]
    return "\n".join([*frames, f"Exception message {WITHHELD}"])


_RECORD_FIELDS = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}
"""Attributes every log record has; any other is an extra field."""

_ROOM_NAME_NUMBER = re.compile(
    r"(?<![A-Za-z0-9+])\+\d{7,15}(?!\d)|(?<=_)\d{7,}(?!\d)|(?<![A-Za-z0-9+])\d{7,}(?=_)"
)
"""A phone number as room names carry it, in any text: written with its '+', or joined
to the rest of the name by '_'. A bare number (a time, a size, a process id) is left."""


def _names_a_room(field: str) -> bool:
    return "room" in field.lower()


def _without_room_numbers(value: object, *, room: bool) -> object:
    """`value` (text, or a list, tuple or dict of them) with the phone numbers of room
    names masked: every number when it is a room's field (`room`), else those joined to a
    room name. The very same object when there was nothing to mask."""
    if isinstance(value, str):
        if room:
            masked = mask_room_name(value)
        else:
            masked = _ROOM_NAME_NUMBER.sub(lambda found: mask_phone(found.group()), value)
        return value if masked == value else masked
    if isinstance(value, list | tuple):
        items = [_without_room_numbers(item, room=room) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        entries = {
            key: _without_room_numbers(item, room=room or _names_a_room(str(key)))
            for key, item in value.items()
        }
        return value if all(entries[key] is value[key] for key in value) else entries
    return value


def _mask_room_numbers(record: logging.LogRecord) -> None:
    """Masks the phone numbers of room names in the message (its arguments merged in), the
    traceback's text and every extra field of `record`."""
    try:
        message = record.getMessage()
    except (TypeError, ValueError):  # arguments that do not fit: the handler says so
        message = None
    if message is not None:
        masked = _without_room_numbers(message, room=False)
        if masked is not message:
            record.msg, record.args = masked, None
    if record.exc_text:
        record.exc_text = str(_without_room_numbers(record.exc_text, room=False))
    for name, value in list(vars(record).items()):
        if name not in _RECORD_FIELDS:
            masked = _without_room_numbers(value, room=_names_a_room(name))
            if masked is not value:
                setattr(record, name, masked)


def _echoes_its_input(error: BaseException) -> bool:
    return any(isinstance(link, pydantic.ValidationError) for link in _exception_chain(error))


class LogPrivacyFilter(logging.Filter):
    """A handler filter that writes no caller data.

    - Drops the database driver's records below `DRIVER_LEVEL`.
    - Removes the framework's personal-data fields (`is_personal_field`) from the record,
      unless `allow_transcripts`.
    - Withholds the exception messages of a record that carried such fields or whose
      exception quotes its input (pydantic's `ValidationError`), unless `allow_transcripts`.
    - Masks the phone numbers of room names in the message, its arguments and its extra
      fields (`privacy.mask_room_name`), whatever `allow_transcripts` says.

    It changes the record itself, so every handler after it sees the redacted record.
    """

    def __init__(self, *, allow_transcripts: bool = False) -> None:
        super().__init__()
        self.allow_transcripts = allow_transcripts

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < DRIVER_LEVEL and _from_driver(record.name):
            return False
        if self.allow_transcripts:
            _mask_room_numbers(record)
            return True
        personal = [name for name in vars(record) if is_personal_field(name)]
        for name in personal:
            delattr(record, name)
        if record.exc_info is not None and record.exc_info[1] is not None:
            if personal or _echoes_its_input(record.exc_info[1]):
                record.exc_text = _traceback_without_messages(record.exc_info[1])
                record.exc_info = None
        elif record.exc_text and (personal or "ValidationError" in record.exc_text):
            # Forwarded from a job process: the traceback is text, also inside the message.
            withheld = _frames_only(record.exc_text)
            if isinstance(record.msg, str):
                record.msg = record.msg.replace(record.exc_text, withheld)
            record.exc_text = withheld
        _mask_room_numbers(record)
        return True


@dataclass
class _Installation:
    privacy: LogPrivacyFilter
    add_handler: Callable[[logging.Handler], None] | None = None
    handlers: weakref.WeakSet[logging.Handler] = field(default_factory=weakref.WeakSet)
    previous_levels: dict[str, int] = field(default_factory=dict)

    def attach(self, handler: logging.Handler) -> None:
        handler.addFilter(self.privacy)
        self.handlers.add(handler)

    def set_level(self, name: str, level: int | str) -> None:
        logger = logging.getLogger(name)
        self.previous_levels.setdefault(name, logger.level)
        logger.setLevel(level)


_installed: _Installation | None = None


def install_log_privacy(
    settings: Settings, *, own_level: int | str | None = None
) -> LogPrivacyFilter:
    """Makes every log line of the process free of full personal data, and sets the
    level of the agent's own loggers.

    Call it before the framework sets up its logging: the filter goes on the root logger's
    handlers now and on every handler added to the root logger later. The driver's loggers
    are capped at `DRIVER_LEVEL` (job processes copy the levels, so they do not even
    format those records). `own_level` (default `settings.log_level`) is the level of the
    `customer_service` loggers; the framework's loggers and the root keep the level that
    its `--log-level` option gives them. Calling it again replaces the earlier installation.

    Not covered: handlers attached to loggers other than the root (none by default).
    """
    global _installed
    uninstall_log_privacy()
    installation = _Installation(LogPrivacyFilter(allow_transcripts=settings.log_transcripts))
    installation.set_level(
        PACKAGE_LOGGER, own_level if own_level is not None else settings.log_level
    )
    for name in DRIVER_LOGGERS:
        if logging.getLogger(name).level < DRIVER_LEVEL:
            installation.set_level(name, DRIVER_LEVEL)

    root = logging.getLogger()
    for handler in root.handlers:
        installation.attach(handler)
    add_handler = root.addHandler

    def add_handler_with_privacy(handler: logging.Handler) -> None:
        add_handler(handler)
        installation.attach(handler)

    # The framework's setup_logging calls `logging.getLogger().addHandler(...)`: an
    # attribute of the root logger object shadows the method for that object alone.
    vars(root)["addHandler"] = installation.add_handler = add_handler_with_privacy
    _installed = installation
    return installation.privacy


def uninstall_log_privacy() -> None:
    """Undoes `install_log_privacy`: filters, the root logger's hook and the levels it set."""
    global _installed
    installation, _installed = _installed, None
    if installation is None:
        return
    root = logging.getLogger()
    if vars(root).get("addHandler") is installation.add_handler:
        del vars(root)["addHandler"]
    for handler in list(installation.handlers):
        handler.removeFilter(installation.privacy)
    for name, level in installation.previous_levels.items():
        logging.getLogger(name).setLevel(level)
