from __future__ import annotations

import pytest

from customer_service.settings import ModelProvider, Settings


@pytest.fixture
def settings() -> Settings:
    """Settings independent of the developer's environment: defaults, offline model."""
    return Settings.model_validate({"model_provider": ModelProvider.OFFLINE})
