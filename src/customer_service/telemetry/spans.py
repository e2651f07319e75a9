"""The project's spans, on the framework's tracer, so they reach the provider installed
through `livekit.agents.telemetry.set_tracer_provider` beside the framework's own.

Attributes are names the code chose (a specialist, a store action, an outcome), never
anything a caller said or a record holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from livekit.agents.telemetry import tracer
from opentelemetry.trace import Span

__all__ = [
    "OUTCOME",
    "SPECIALIST",
    "SPECIALIST_RUN",
    "STORE_ACTION",
    "STORE_TRANSACTION",
    "specialist_run",
    "store_transaction",
]

SPECIALIST_RUN = "customer_service.specialist_run"
STORE_TRANSACTION = "customer_service.store_transaction"
SPECIALIST = "customer_service.specialist"
OUTCOME = "customer_service.outcome"
STORE_ACTION = "customer_service.store.action"
"""What the transaction does, in the store's own fixed words ("store a call report")."""


@contextmanager
def specialist_run(specialist: str) -> Iterator[Span]:
    """The span of one specialist's run; the caller sets its `OUTCOME`."""
    with tracer.start_as_current_span(SPECIALIST_RUN, attributes={SPECIALIST: specialist}) as span:
        yield span


@contextmanager
def store_transaction(action: str) -> Iterator[None]:
    """The span of one store transaction, named by its action."""
    with tracer.start_as_current_span(STORE_TRANSACTION, attributes={STORE_ACTION: action}):
        yield
