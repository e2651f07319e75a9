"""What the store reports: the database cannot be used right now, or it cannot be used as
configured until someone acts."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import unquote

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

__all__ = [
    "MIGRATE_COMMAND",
    "DemoDataRefused",
    "SchemaNotCurrent",
    "StoreMisconfigured",
    "StoreUnavailable",
    "database_errors",
    "shown_url",
    "split_credentials",
    "store_problem",
]

MIGRATE_COMMAND = "python src/agent.py migrate"
"""What brings a database to the schema this version of the agent needs."""


class StoreUnavailable(Exception):
    """The database is down, locked, unreadable or not writable.

    The message is generic on purpose: it may be logged or shown to the model, and
    driver messages can carry paths, hosts or values. The driver's error is kept as
    `__cause__` for the logs of whoever runs the service.
    """


class StoreMisconfigured(Exception):
    """The database cannot be used as configured until its operator acts: the URL names no
    async driver, the driver is not installed, or the schema is not the one this version
    needs. The message is one line that says what to do; it never quotes the URL, which
    may hold a password."""


class SchemaNotCurrent(StoreMisconfigured):
    """The database's schema is not this version's latest (behind, empty, unknown or from
    before migrations and not adoptable); the message names the command that fixes it."""


class DemoDataRefused(StoreMisconfigured):
    """The database holds customers other than the demo ones: the demo customers, whose
    details the README publishes, are not added next to them unless forced."""

    def __init__(self) -> None:
        super().__init__(
            "It holds customers other than the demo ones, so the demo customers (whose "
            "details are public) were not added: use `python src/agent.py seed-demo --force` "
            "or SEED_DEMO_DATA=force to add them anyway, or SEED_DEMO_DATA=false."
        )


class Tau2ImportRefused(StoreMisconfigured):
    """The database already holds customers: τ²-bench's are loaded into it only if forced,
    so that nobody's data is mixed with the benchmark's by mistake."""

    def __init__(self, customers: int) -> None:
        super().__init__(
            f"It already holds {customers} customers, so τ²-bench's data was not loaded: use "
            "an empty database, or `python src/agent.py import-tau2 DB.json --force` to load "
            "it beside them (records with the data's ids are replaced)."
        )


@contextmanager
def database_errors(action: str) -> Iterator[None]:
    """Re-raises database and I/O errors inside the block as `StoreUnavailable`.

    `action` completes "The store could not ..." and must not contain personal data.
    """
    try:
        yield
    except (DBAPIError, PoolTimeoutError, OSError) as exc:
        raise StoreUnavailable(f"The store could not {action}.") from exc


_SECRET_QUERY_KEY = re.compile(r"pass|pwd|secret|token|key|auth", re.IGNORECASE)
"""Query parameters that may carry a credential (`password`, `sslpassword`, `pwd`,
`auth_token`, ...): masked like the password."""


def split_credentials(database_url: str) -> tuple[str, str | None]:
    """`database_url` without its user part, and that part (`user:password`, None when
    there is none). The user part ends at the last '@': a URL parser ends it at the first,
    so a password written with a raw '@' would be read as part of the host."""
    scheme, separator, rest = database_url.partition("://")
    credentials, at, location = rest.rpartition("@")
    if not separator or not at:
        return database_url, None
    return f"{scheme}://{location}", credentials


def shown_url(database_url: str) -> str:
    """`DATABASE_URL=<the URL with its password masked>`, to name the database in a message.

    The password is masked where it is, in the user part or in the query string. The user
    part is taken off before SQLAlchemy reads the rest, so a password with a raw '@', ':'
    or '/' never shows; an '@' in the query string makes more of the URL masked, not less.
    """
    location, credentials = split_credentials(database_url)
    try:
        url = make_url(location)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        return "DATABASE_URL"  # not a URL: it cannot be masked, so it is not shown
    if credentials is not None:
        username, has_password, _ = credentials.partition(":")
        url = url.set(username=unquote(username), password="***" if has_password else None)
    shown = url.set(query={}).render_as_string(hide_password=True)
    parameters = [
        f"{key}={'***' if _SECRET_QUERY_KEY.search(key) else value}"
        for key, values in url.query.items()
        for value in ((values,) if isinstance(values, str) else values)
    ]
    return f"DATABASE_URL={shown}" + (f"?{'&'.join(parameters)}" if parameters else "")


def store_problem(error: StoreUnavailable | StoreMisconfigured, database_url: str) -> str:
    """One line for whoever runs the agent: which database (DATABASE_URL, its password
    masked), what is wrong with it, and what to do."""
    where = shown_url(database_url)
    if isinstance(error, StoreMisconfigured):
        return f"{where}: {error}"
    if database_url.startswith("sqlite"):
        advice = "Check that the path is a SQLite database file in a folder you may write to."
    else:
        advice = (
            "Check that the database server is running and that the host, port, user, "
            "password and database name are right."
        )
    return f"{where} cannot be used: {_reason(error)}. {advice}"


_REASON_LIMIT = 200


def _reason(error: BaseException) -> str:
    """The driver's own words for why, from the bottom of the chain, in one short line."""
    cause: BaseException = error
    for _ in range(10):
        deeper = cause.orig if isinstance(cause, DBAPIError) else cause.__cause__
        if not isinstance(deeper, BaseException):
            break
        cause = deeper
    if isinstance(cause, socket.gaierror):
        return "the host name does not resolve"
    if isinstance(cause, ConnectionRefusedError):
        return "nothing accepts connections at that host and port"
    if isinstance(cause, TimeoutError):
        return "no answer in time"
    lines = str(cause).strip().splitlines()
    text = lines[0] if lines else type(cause).__name__
    # asyncpg's errors, as SQLAlchemy's adapter words them, start with their class.
    text = re.sub(r"^<class '[\w.]+'>: ", "", text)
    return text if len(text) <= _REASON_LIMIT else f"{text[: _REASON_LIMIT - 3]}..."
