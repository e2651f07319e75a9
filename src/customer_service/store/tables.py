"""What every table shares: the declarative base, portable column types, and the one
way a row and the record it mirrors convert into each other.

Portable SQLAlchemy types only, so SQLite and PostgreSQL share one schema. Each table
lives in the module of its concern, beside its record and the `Store` methods that use it.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, AwareDatetime, BaseModel
from sqlalchemy import BigInteger, DateTime, Dialect, Integer
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

__all__ = [
    "Base",
    "UTCDateTime",
    "UTCTimestamp",
    "record_from_row",
    "row_from_record",
    "serial_id",
    "utc_now",
]


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


UTCTimestamp = Annotated[AwareDatetime, AfterValidator(lambda value: value.astimezone(dt.UTC))]
"""A record's timestamp: any timezone accepted, kept in UTC like the column it fills."""


class UTCDateTime(TypeDecorator[dt.datetime]):
    """A timezone-aware UTC timestamp on every backend.

    PostgreSQL keeps the offset; SQLite drops it, so values are converted to UTC before
    they are written and read back as UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps must be timezone-aware")
        return value.astimezone(dt.UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if not isinstance(value, dt.datetime):
            raise TypeError(f"expected a datetime from the database, got {type(value).__name__}")
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)


class Base(DeclarativeBase):
    pass


def serial_id() -> Mapped[int]:
    """An auto-incrementing key: SQLite only auto-increments an INTEGER primary key;
    PostgreSQL gets 64 bits."""
    return mapped_column(
        BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
    )


RecordT = TypeVar("RecordT", bound=BaseModel)
RowT = TypeVar("RowT", bound=Base)


def row_from_record(record: BaseModel, row_type: type[RowT]) -> RowT:
    """For rows that mirror their record field for field; nested records become JSON."""
    return row_type(**record.model_dump())


def record_from_row(row: object, record_type: type[RecordT]) -> RecordT:
    return record_type.model_validate(row, from_attributes=True)
