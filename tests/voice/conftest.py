"""A failed voice test prints the transcript of each of its calls, with timings: what
went wrong on a voice line is usually when something was said, not what."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from customer_service.testing.timed_transcript import Transcribed, recording_calls

_CALLS = pytest.StashKey[list[Transcribed]]()


@pytest.fixture(autouse=True)
def calls_transcribed_on_failure(request: pytest.FixtureRequest) -> Iterator[None]:
    with recording_calls() as calls:
        request.node.stash[_CALLS] = calls
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[pytest.TestReport]:
    report: pytest.TestReport = yield
    if report.when == "call" and report.failed:
        for number, call in enumerate(item.stash.get(_CALLS, []), start=1):
            transcript = call.transcript()
            if transcript not in str(report.longrepr):  # not already in the failure
                report.sections.append((f"voice call {number}: transcript", transcript))
    return report
