"""OpenTelemetry tracing for the API and the worker: off unless an OTLP endpoint is set.

Spans come from the Temporal SDK's `TracingInterceptor` (its stable, replay-safe
integration: a workflow replayed on another worker emits no span twice), put on the
Temporal client of each process, so the API's span that starts a turn is the parent of
the workflow's spans and those of every step, across processes, through Temporal headers.
The API's own span carries the turn, conversation and tenant ids; each step's span the
turn and conversation ids (`backends.steplog`). With no endpoint nothing is exported
and the interceptor is not installed at all.
"""

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from temporalio.client import Interceptor
from temporalio.contrib.opentelemetry import TracingInterceptor

from settings import Settings


def interceptors(settings: Settings, service: str) -> list[Interceptor]:
    """The client interceptors for this process: tracing when TURNSTILE_OTLP_ENDPOINT is
    set (installing the global tracer provider that exports there), else none."""
    if settings.otlp_endpoint is None:
        return []
    provider = TracerProvider(resource=Resource.create({"service.name": f"turnstile-{service}"}))
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=settings.otlp_endpoint))
    )
    trace.set_tracer_provider(provider)
    return [TracingInterceptor()]
