"""The evals' models, from the process settings; skipped, with the missing setting named,
when there is no provider or no judge."""

from __future__ import annotations

import pytest

from customer_service.settings import Settings
from support.evals import EvalModels, eval_models


@pytest.fixture
def models() -> EvalModels:
    found = eval_models(Settings())
    if isinstance(found, str):
        pytest.skip(found)
    return found
