"""Traces through the framework's hook (`livekit.agents.telemetry.set_tracer_provider`):
one whole call yields the framework's spans and the project's (each specialist run with
its outcome, each store transaction with its action, the call report's row among them),
and no attribute holds the caller's name, email, phone, address or order contents, by
any shape the privacy mask knows. The OTLP exporters stay off until the standard OTel
settings name a collector."""

from __future__ import annotations

import datetime as dt
import http.server
import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
import yaml
from livekit.agents.telemetry import set_tracer_provider
from livekit.agents.telemetry.pii import is_pii_attribute
from opentelemetry import trace as trace_api
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from customer_service.chat import converse
from customer_service.offline_llm import OfflineLLM
from customer_service.privacy import mask_free_text
from customer_service.settings import PROJECT_ROOT, Settings
from customer_service.store.seed import DEMO_CUSTOMERS, demo_orders
from customer_service.telemetry import exporters
from customer_service.telemetry.spans import (
    OUTCOME,
    SPECIALIST,
    SPECIALIST_RUN,
    STORE_ACTION,
    STORE_TRANSACTION,
)
from customer_service.testing import sqlite_url
from support.agent_process import child_environment
from support.offline_chat import JORDAN

JORDAN_RECORD = DEMO_CUSTOMERS[0]
[ORDER] = [order for order in demo_orders(dt.date.today()) if order.order_id == "100101"]
NAMES = [JORDAN_RECORD.full_name]
DETAILS = [
    JORDAN_RECORD.email,
    JORDAN_RECORD.phone,
    JORDAN_RECORD.postal_code,
    *(str(part) for part in JORDAN_RECORD.address.model_dump().values() if part),
    *(item.name for item in ORDER.items),
]
"""What the call hears and says: the caller's details and what their order holds."""
PHONE_AND_ADDRESS = "My number is 415 555 0134, and I live at 500 Howard St, Apt 4B."
"""Said in the call too, so its spans meet every kind of detail the mask knows."""
NUMBERS_ONLY = {"lk.llm_metrics", "langfuse.observation.completion_start_time"}
"""The framework's attributes of timings alone, whose digits read like a phone number's."""


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """An exporter that keeps the spans; no provider is left installed afterwards."""
    yield InMemorySpanExporter()
    set_tracer_provider(trace_api.NoOpTracerProvider())


async def one_call(tmp_path: Path) -> None:
    await converse(
        OfflineLLM(),
        database_url=sqlite_url(tmp_path / "store.sqlite3"),
        lines=io.StringIO(f"Where is my order 100101?\n{JORDAN}\n{PHONE_AND_ADDRESS}\nbye\n"),
        out=io.StringIO(),
        echo_caller=True,
        settings=Settings(report_dir=tmp_path / "reports"),
    )


def texts(span: ReadableSpan) -> Iterator[tuple[str, str]]:
    """Every text of the span's attributes and its events', with the key that holds it;
    the framework's timing attributes by each text inside them."""
    attributes = [span.attributes or {}, *(event.attributes or {} for event in span.events)]
    for found in attributes:
        for key, value in found.items():
            for text in value if isinstance(value, tuple) else (value,):
                if not isinstance(text, str):
                    continue
                if key in NUMBERS_ONLY:
                    yield from ((key, inner) for inner in _strings(json.loads(text)))
                else:
                    yield key, text


def _strings(value: object) -> Iterator[str]:
    """The texts inside a timing attribute's JSON, but for the times (ISO 8601)."""
    if isinstance(value, str):
        if not _is_time(value):
            yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)


def _is_time(text: str) -> bool:
    try:
        dt.datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def personal(finished: tuple[ReadableSpan, ...]) -> list[tuple[str, str, str]]:
    """(span, key, text) for each text the privacy mask would change."""
    return [
        (span.name, key, text)
        for span in finished
        for key, text in texts(span)
        if mask_free_text(text, names=NAMES, details=DETAILS) != text
    ]


async def test_one_call_traces_the_framework_and_the_project_without_personal_data(
    spans: InMemorySpanExporter, tmp_path: Path
) -> None:
    exporters.install_tracer_provider(_provider_for(spans))

    await one_call(tmp_path)

    finished = spans.get_finished_spans()
    names = {span.name for span in finished}
    assert {"agent_session", "llm_request", "function_tool"} <= names
    [run] = [span for span in finished if span.name == SPECIALIST_RUN]
    assert dict(run.attributes or {}) == {
        SPECIALIST: "verify_identity_task",
        OUTCOME: "completed",
    }
    actions = {
        (span.attributes or {}).get(STORE_ACTION)
        for span in finished
        if span.name == STORE_TRANSACTION
    }
    assert {"store a call report", "write an audit event"} <= actions
    assert personal(finished) == []


async def test_the_check_finds_what_the_framework_keeps_when_content_is_allowed(
    spans: InMemorySpanExporter, tmp_path: Path
) -> None:
    # The framework's default keeps the conversation in its spans: the check sees it.
    set_tracer_provider(_provider_for(spans), allow_pii=True)

    await one_call(tmp_path)

    found = " ".join(text for _, _, text in personal(spans.get_finished_spans()))
    said = (JORDAN_RECORD.email, JORDAN_RECORD.full_name, "415 555 0134", "500 Howard St")
    for detail in (*said, ORDER.items[0].name):
        assert detail in found, detail


def _provider_for(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


@pytest.mark.parametrize(
    ("environ", "traces", "metrics"),
    [
        ({}, False, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True, True),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"},
            False,
            False,
        ),
        (
            {
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces",
                "OTEL_METRICS_EXPORTER": "none",
            },
            True,
            False,
        ),
    ],
)
def test_the_exporters_are_on_only_when_the_otel_settings_name_a_collector(
    environ: dict[str, str], traces: bool, metrics: bool
) -> None:
    assert exporters.wanted(environ) == exporters.Installed(traces=traces, metrics=metrics)


COLLECTOR = PROJECT_ROOT / "examples" / "telemetry" / "otel-collector.yaml"


def test_the_example_collector_takes_otlp_and_drops_only_content_attributes() -> None:
    config = yaml.safe_load(COLLECTOR.read_text())
    for pipeline in config["service"]["pipelines"].values():
        for kind in ("receivers", "processors", "exporters"):
            assert set(pipeline[kind]) <= set(config[kind]), (kind, pipeline[kind])
    protocols = config["receivers"]["otlp"]["protocols"]
    assert protocols["http"]["endpoint"].endswith(":4318")
    assert protocols["grpc"]["endpoint"].endswith(":4317")
    dropped = config["processors"]["attributes/no-content"]["actions"]
    assert {action["action"] for action in dropped} == {"delete"}
    keys = [action["key"] for action in dropped if "key" in action]
    assert keys
    assert all(is_pii_attribute(key) for key in keys)
    assert (
        "OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318"
        in (PROJECT_ROOT / "docs" / "operating.md").read_text()
    )


EXPORTING_PROCESS = """
import asyncio

from customer_service.server import prewarm
from customer_service.telemetry.exporters import flush
from customer_service.telemetry.metrics import record_call
from customer_service.telemetry.spans import OUTCOME, specialist_run


class JobProcess:
    userdata = {}


prewarm(JobProcess())
with specialist_run("order_lookup_task") as span:
    span.set_attribute(OUTCOME, "completed")
record_call({"outcome": "transferred", "turns": [{"llm_ttft_s": 0.2}], "cost_usd": 0.01})
asyncio.run(flush())
"""


class Collector(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP collector's front door: keeps each request's path and body."""

    received: ClassVar[list[tuple[str, bytes]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self.received.append((self.path, self.rfile.read(length)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_job_process_sends_its_spans_and_metrics_to_the_collector_otel_names(
    tmp_path: Path,
) -> None:
    collector = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    try:
        environment = child_environment(tmp_path) | {
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector.server_port}"
        }
        result = subprocess.run(
            [sys.executable, "-c", EXPORTING_PROCESS],
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        collector.shutdown()
    assert result.returncode == 0, result.stderr[-2000:]
    bodies = {path: body for path, body in Collector.received}
    assert b"customer_service.specialist_run" in bodies["/v1/traces"]
    assert b"order_lookup_task" in bodies["/v1/traces"]
    assert b"customer_service.handoffs" in bodies["/v1/metrics"]
    assert b"customer_service.caller_wait" in bodies["/v1/metrics"]
