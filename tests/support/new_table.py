"""A new table added as the recipe says, for the tests that prove it is all it takes: its
module in the store package (imported and listed nowhere) and, if asked, its revision
after the latest (in a folder of the revisions). Both are gone when the block ends."""

from __future__ import annotations

import importlib
import os
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from alembic.config import Config
from sqlalchemy.engine import Connection

from customer_service.store import schema
from customer_service.store.tables import Base

NEW_TABLE = "probe_rows"

_MODULE = f"""
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.store.tables import Base, serial_id


class ProbeRow(Base):
    __tablename__ = "{NEW_TABLE}"
    id: Mapped[int] = serial_id()
    note: Mapped[str] = mapped_column(String(20))
"""

_REVISION = """
import sqlalchemy as sa
from alembic import op

from customer_service.store.migrations.helpers import serial_id

revision = "probe"
down_revision = {down_revision!r}
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "{table}", serial_id(), sa.Column("note", sa.String(20), nullable=False)
    )


def downgrade() -> None:
    op.drop_table("{table}")
"""


def _clear_caches() -> None:
    for cached in (schema._scripts, schema._known_revisions, schema._first_revision_columns):
        cached.cache_clear()


@contextmanager
def new_table(
    folder: Path, monkeypatch: pytest.MonkeyPatch, *, with_revision: bool
) -> Iterator[str]:
    """Adds the new table's module (and its revision when `with_revision`); yields the
    table's name."""
    models = folder / "models"
    models.mkdir()
    # A module name of its own each time: the declarative base remembers class names.
    module = f"probe_table_{uuid.uuid4().hex[:8]}"
    (models / f"{module}.py").write_text(_MODULE)
    package = importlib.import_module("customer_service.store")
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(models)])
    if with_revision:
        versions = folder / "versions"
        versions.mkdir()
        revision = _REVISION.format(down_revision=schema.head_revision(), table=NEW_TABLE)
        (versions / "rev_probe_new_table.py").write_text(revision)
        monkeypatch.setattr(schema, "migrations_config", _with_versions_in(versions))
        _clear_caches()
    try:
        yield NEW_TABLE
    finally:
        monkeypatch.undo()
        _clear_caches()
        sys.modules.pop(f"customer_service.store.{module}", None)
        if (table := Base.metadata.tables.get(NEW_TABLE)) is not None:
            Base.metadata.remove(table)


def _with_versions_in(versions: Path) -> object:
    own = schema.migrations_config

    def migrations_config(connection: Connection | None = None) -> Config:
        config = own(connection)
        locations = [str(schema.MIGRATIONS / "versions"), str(versions)]
        config.set_main_option("version_locations", os.pathsep.join(locations))
        return config

    return migrations_config
