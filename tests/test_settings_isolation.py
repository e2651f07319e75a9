"""The suite never reads the developer's configuration nor writes to their store."""

from __future__ import annotations

from pathlib import Path

import pytest

from customer_service.settings import (
    PROJECT_ROOT,
    default_database_url,
    env_files,
    get_settings,
)


def test_a_developers_env_local_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env.local").write_text(
        "MAX_TOOL_STEPS=9\nDATABASE_URL=sqlite+aiosqlite:////somewhere/real.sqlite3\n"
    )
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    try:
        assert env_files() == []
        settings = get_settings()
        assert settings.max_tool_steps == 3
        assert "somewhere/real" not in settings.database_url
    finally:
        get_settings.cache_clear()


def test_the_default_store_is_the_suites_own(
    isolated_from_the_developers_world: Path,
) -> None:
    assert str(isolated_from_the_developers_world) in default_database_url()
    assert str(Path.home()) not in default_database_url().replace(
        str(isolated_from_the_developers_world), ""
    )


def test_env_files_are_still_found_outside_the_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The switch is the suite's; a deployment reads its files as documented.
    monkeypatch.delenv("CUSTOMER_SERVICE_IGNORE_ENV_FILES")
    (tmp_path / ".env.local").write_text("MAX_TOOL_STEPS=9\n")
    found = env_files(cwd=tmp_path)
    assert found[0] == (tmp_path / ".env.local").resolve()
    assert all(path.parent in (tmp_path.resolve(), PROJECT_ROOT) for path in found)
