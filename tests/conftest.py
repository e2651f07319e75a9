from __future__ import annotations

import pytest

# The shared helpers assert too: give their failures pytest's detailed messages.
pytest.register_assert_rewrite("support")

from customer_service.settings import ModelProvider, Settings  # noqa: E402 (after the rewrite hook)


@pytest.fixture
def settings() -> Settings:
    """Settings independent of the developer's environment: defaults, offline model."""
    return Settings.model_validate({"model_provider": ModelProvider.OFFLINE})
