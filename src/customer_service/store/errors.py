"""The one failure the store reports: the database cannot be used right now."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

__all__ = ["StoreUnavailable", "database_errors"]


class StoreUnavailable(Exception):
    """The database is down, locked, unreadable or not writable.

    The message is generic on purpose: it may be logged or shown to the model, and
    driver messages can carry paths, hosts or values. The driver's error is kept as
    `__cause__` for the logs of whoever runs the service.
    """


@contextmanager
def database_errors(action: str) -> Iterator[None]:
    """Re-raises database and I/O errors inside the block as `StoreUnavailable`.

    `action` completes "The store could not ..." and must not contain personal data.
    """
    try:
        yield
    except (DBAPIError, PoolTimeoutError, OSError) as exc:
        raise StoreUnavailable(f"The store could not {action}.") from exc
