from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# The shared helpers assert too: give their failures pytest's detailed messages.
pytest.register_assert_rewrite("support")

from customer_service.settings import (  # noqa: E402 (after the rewrite hook)
    IGNORE_ENV_FILES_VARIABLE,
    ModelProvider,
    Settings,
    get_settings,
)


def _setting_variables() -> set[str]:
    return {name.upper() for name in Settings.model_fields}


@pytest.fixture(scope="session", autouse=True)
def isolated_from_the_developers_world() -> Iterator[Path]:
    """The whole suite, subprocesses included, runs on defaults: no `.env.local` or
    `.env`, no setting from the developer's shell, and a data folder of its own, so it
    can neither be failed by a local configuration nor write to a real store."""
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="customer-service-tests-") as scratch:
        for name in _setting_variables() & set(os.environ):
            del os.environ[name]
        os.environ[IGNORE_ENV_FILES_VARIABLE] = "1"
        os.environ["XDG_DATA_HOME"] = str(Path(scratch) / "data")
        get_settings.cache_clear()
        try:
            yield Path(scratch)
        finally:
            os.environ.clear()
            os.environ.update(saved)
            get_settings.cache_clear()


@pytest.fixture
def settings() -> Settings:
    """Settings independent of the developer's environment: defaults, offline model."""
    return Settings.model_validate({"model_provider": ModelProvider.OFFLINE})
