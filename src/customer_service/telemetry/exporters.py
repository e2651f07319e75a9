"""OTLP exporters for traces and metrics, installed when the standard OpenTelemetry
settings name a collector, so that the framework's spans and metrics and the project's
reach it: `OTEL_EXPORTER_OTLP_ENDPOINT` (or the per-signal `..._TRACES_ENDPOINT`,
`..._METRICS_ENDPOINT`), `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or
`grpc`), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`;
`OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none` or `OTEL_METRICS_EXPORTER=none`
turn them off. The exporters read these themselves; this module only decides whether to
install them, once per process (each job process, from the server's `prewarm`).

Traces go through the framework's own hook, `livekit.agents.telemetry.set_tracer_provider`,
with `allow_pii=False`: the framework's content attributes (what was said, tool
arguments and results, instructions) are stripped before any exporter.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass

from livekit.agents.telemetry import set_tracer_provider
from opentelemetry import metrics as metrics_api
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricExporter, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

__all__ = [
    "DEFAULT_SERVICE_NAME",
    "Installed",
    "flush",
    "install_otlp",
    "install_tracer_provider",
    "wanted",
]

logger = logging.getLogger(__name__)

DEFAULT_SERVICE_NAME = "customer-service-agent"
"""The traces' service name unless OTEL_SERVICE_NAME gives one."""
FLUSH_TIMEOUT_MS = 2000
"""How long a call's end waits for its spans to leave (in a thread, after the call)."""


@dataclass(frozen=True)
class Installed:
    traces: bool
    metrics: bool


_installed: list[TracerProvider | MeterProvider] = []


def _on(environ: Mapping[str, str], signal: str) -> bool:
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = environ.get(f"OTEL_{signal}_EXPORTER", "").strip().lower()
    if exporter == "none":
        return False
    endpoint = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or environ.get(
        f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT"
    )
    return bool(endpoint) or exporter == "otlp"


def _grpc(environ: Mapping[str, str], signal: str) -> bool:
    protocol = environ.get(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL") or environ.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL", ""
    )
    return protocol.strip().lower() == "grpc"


def _span_exporter(grpc: bool) -> SpanExporter:
    if grpc:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcSpanExporter,
        )

        return GrpcSpanExporter()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def _metric_exporter(grpc: bool) -> MetricExporter:
    if grpc:
        from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (
            OTLPMetricExporter as GrpcMetricExporter,
        )

        return GrpcMetricExporter()
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

    return OTLPMetricExporter()


def install_tracer_provider(provider: TracerProvider) -> None:
    """`provider` for the framework's spans and the project's, through the framework's
    hook, with the framework's content attributes stripped before every exporter."""
    set_tracer_provider(provider, allow_pii=False)


def wanted(environ: Mapping[str, str]) -> Installed:
    """The exporters the OTel settings in `environ` ask for."""
    return Installed(traces=_on(environ, "TRACES"), metrics=_on(environ, "METRICS"))


def install_otlp(environ: Mapping[str, str] | None = None) -> Installed:
    """Installs the OTLP trace and metric exporters the settings ask for (none by
    default). Safe to call again: a process installs them once."""
    environ = os.environ if environ is None else environ
    if _installed:
        return Installed(traces=False, metrics=False)
    traces, metrics = (asked := wanted(environ)).traces, asked.metrics
    if not (traces or metrics):
        return asked
    attributes = {} if environ.get("OTEL_SERVICE_NAME") else {"service.name": DEFAULT_SERVICE_NAME}
    resource = Resource.create(attributes)
    if traces:
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(BatchSpanProcessor(_span_exporter(_grpc(environ, "TRACES"))))
        install_tracer_provider(provider)
        _installed.append(provider)
    if metrics:
        reader = PeriodicExportingMetricReader(_metric_exporter(_grpc(environ, "METRICS")))
        meters = MeterProvider(resource=resource, metric_readers=[reader])
        metrics_api.set_meter_provider(meters)
        _installed.append(meters)
    logger.info("OpenTelemetry export on", extra={"traces": traces, "metrics": metrics})
    return Installed(traces=traces, metrics=metrics)


async def flush() -> None:
    """Sends what the installed providers hold, in a thread (the exporters block); at
    once when none is installed."""
    if not _installed:
        return

    def send() -> None:
        for provider in _installed:
            provider.force_flush(FLUSH_TIMEOUT_MS)

    await asyncio.to_thread(send)
