"""Tests that each break one of the suite's own rules (tests/conftest.py), for
tests/test_suite_checks.py to run in a pytest of its own: each must fail with its
check's words, however the tests are spread over processes. Given no path on the
command line, pytest never collects this file (its name is not a test file's)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from customer_service.offline_llm import OfflineLLM
from customer_service.testing import call_session


async def test_a_call_on_the_default_store_hidden_from_the_reading() -> None:
    options: dict[str, Any] = {}  # `**options` may hold a store: the reading skips it
    async with call_session(OfflineLLM(), **options) as session:
        assert await session.userdata.store.get_customer("C-1001") is not None


async def test_a_call_on_every_backend_that_never_opens_a_store() -> None:
    never = sys.maxsize < 0
    if never:
        async with call_session(OfflineLLM()):
            pass


def test_a_process_started_where_the_reading_cannot_see() -> None:
    start = getattr(subprocess, "run")  # noqa: B009 (hidden from the reading on purpose)
    start([sys.executable, "-c", "pass"], check=True)


def test_a_test_that_keeps_the_rules() -> None:
    assert OfflineLLM() is not None
