"""Settings of metrics, tracing, the sweep of open turns, and how long records are kept."""

from typing import Annotated

from pydantic import Field

from settings.base import HttpAddress, NonEmpty, Port, Seconds, Section


class OperationsSettings(Section):
    """Observability, the sweep schedule and retention."""

    metrics_host: NonEmpty = "127.0.0.1"
    """The interface the worker serves its Prometheus metrics on (the API serves GET
    /metrics on its own port)."""
    worker_metrics_port: Port | None = 9464
    """The port the worker serves its turn metrics on."""
    temporal_metrics_port: Port | None = 9465
    """The port the worker serves the Temporal SDK's metrics on (step latency per
    activity type, schedule-to-start, task failures)."""
    otlp_endpoint: HttpAddress | None = None
    """Where to send OpenTelemetry spans (OTLP over HTTP, e.g.
    `http://collector:4318/v1/traces`); unset, tracing is off."""

    sweep_interval_seconds: Seconds = 600.0
    """How often the SweepTurns schedule reconciles open turns with their workflows. Ten
    minutes: the API reconciles a turn that blocks its conversation at once, so the sweep
    only catches the rest, and each run is a row in the Temporal UI's workflow list (a
    per-minute sweep added 1,440 a day to the list operators read)."""

    decision_retention_days: Annotated[int, Field(ge=1, le=36_500)] = 365
    """Decision records older than this are purged by the daily retention schedule."""
    pii_retention_days: Annotated[int, Field(ge=1, le=36_500)] = 30
    """Personal values unused for this long are erased by the daily retention schedule."""
    conversation_retention_days: Annotated[int, Field(ge=0, le=36_500)] = 90
    """Conversations idle for this long lose their turns, messages and summaries to the
    daily retention schedule (never a turn running or waiting, never a decision record);
    0 keeps them forever."""
