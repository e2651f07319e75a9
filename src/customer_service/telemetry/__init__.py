"""OpenTelemetry for operators: the OTLP exporters the server installs when the standard
OTel settings name a collector (`exporters`), the project's own spans (`spans`: each
specialist run, each store transaction) and its metrics from each call's report
(`metrics`). Off by default; nothing here ever carries personal data."""
