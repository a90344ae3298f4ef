"""The worker's Prometheus metrics: one observation per settled turn, and the sweeper's.

Counted where the outcome is final and the process may do I/O: the save activity
observes a turn once, when its final save first writes the assistant message (a retried
save observes nothing twice). Labels are bounded sets — statuses, routes, step names,
error classes, confidence bands, model names from settings — never user text or ids.

The Temporal SDK's own metrics (activity and workflow-task latency per step, schedule
to start, failures) are exported by the worker's runtime on its own port; per-step
latency comes from there.
"""

from dataclasses import dataclass, field

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from domain.failures import error_class
from domain.models import Relevance
from domain.turns import TurnResult
from domain.usage import Usage

_COUNTS = (0, 1, 2, 3, 5, 8, 13)
_SECONDS = (0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120)
_TOKENS = (100, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000)


@dataclass
class TurnMetrics:
    """Every turn-level metric, in one registry (the process default unless a test gives
    its own)."""

    registry: CollectorRegistry = field(default_factory=lambda: REGISTRY)

    def __post_init__(self) -> None:
        self._declare_probes()
        self._declare_outcomes()
        self._declare_answers()
        self._declare_model_use()
        self._declare_tenant_use()
        self._declare_latency()

    def _declare_probes(self) -> None:
        """The golden probes' pass rates, runs and incidents, by slice."""
        r = self.registry
        self.probe_pass_rate = Gauge(
            "turnstile_probe_pass_rate",
            "Pass rate of the last golden-probe run, by slice",
            ["slice"],
            registry=r,
        )
        self.probe_runs = Counter(
            "turnstile_probe_runs",
            "Golden-probe runs by slice and verdict (ok, breached)",
            ["slice", "verdict"],
            registry=r,
        )
        self.probe_incidents = Counter(
            "turnstile_probe_incidents",
            "Incidents opened after two consecutive breaches",
            ["slice"],
            registry=r,
        )

    def _declare_outcomes(self) -> None:
        """How turns settled: outcome and route, refusals, fallbacks, clarifications,
        retries and fail-open degradations."""
        r = self.registry
        self.turns = Counter(
            "turnstile_turns",
            "Turns settled, by outcome and route",
            ["status", "route"],
            registry=r,
        )
        self.refusals = Counter(
            "turnstile_refusals", "Refused turns, by reason", ["reason"], registry=r
        )
        self.fallbacks = Counter(
            "turnstile_fallbacks", "Diagnostic fallbacks, by reason", ["reason"], registry=r
        )
        self.clarifications = Counter(
            "turnstile_clarifications", "Clarifying questions asked", registry=r
        )
        self.retries = Counter("turnstile_retries", "Retrieval passes after the first", registry=r)
        self.degraded = Counter(
            "turnstile_degraded",
            "Fail-open degradations, by layer (step) and reason class",
            ["layer", "reason"],
            registry=r,
        )

    def _declare_answers(self) -> None:
        """What answered turns were judged on: unsupported claims, the answer cache,
        summarised messages, relevance, confidence and citations."""
        r = self.registry
        self.unsupported = Histogram(
            "turnstile_unsupported_claims",
            "Unsupported claims per answered turn",
            buckets=_COUNTS,
            registry=r,
        )
        self.cache = Counter(
            "turnstile_answer_cache",
            "Settled turns that asked the answer cache, by outcome (hit, hint, miss)",
            ["outcome"],
            registry=r,
        )
        self.summarised = Counter(
            "turnstile_messages_summarised", "Messages compressed into summaries", registry=r
        )
        self.relevance = Counter(
            "turnstile_relevance",
            "Answered turns by what the relevance control found (addressed, partial: some"
            " part not covered, off_point: none covered)",
            ["result"],
            registry=r,
        )
        self.confidence = Counter(
            "turnstile_confidence", "Answered turns by confidence band", ["band"], registry=r
        )
        self.citations = Histogram(
            "turnstile_citations", "Citations per answered turn", buckets=_COUNTS, registry=r
        )

    def _declare_model_use(self) -> None:
        """Model-step calls and tokens, per turn and by model."""
        r = self.registry
        self.model_calls = Histogram(
            "turnstile_model_calls", "Model-step calls per turn", buckets=_COUNTS, registry=r
        )
        self.tokens = Counter(
            "turnstile_model_tokens",
            "Model tokens, by model and kind",
            ["model", "kind"],
            registry=r,
        )
        self.turn_tokens = Histogram(
            "turnstile_turn_tokens", "Model tokens per turn", buckets=_TOKENS, registry=r
        )

    def _declare_tenant_use(self) -> None:
        """Each tenant's tokens and cost (tenants are configured: a bounded label set)."""
        r = self.registry
        self.tenant_tokens = Counter(
            "turnstile_tenant_tokens",
            "Model tokens of settled turns, by tenant and kind",
            ["tenant", "kind"],
            registry=r,
        )
        self.tenant_cost = Counter(
            "turnstile_tenant_cost_usd",
            "Model cost of settled turns in US$, by tenant",
            ["tenant"],
            registry=r,
        )
        self.unpriced = Counter(
            "turnstile_unpriced_turns",
            "Settled turns whose cost is unknown (a model without TURNSTILE_MODEL_PRICES)",
            ["tenant"],
            registry=r,
        )

    def _declare_latency(self) -> None:
        r = self.registry
        self.turn_seconds = Histogram(
            "turnstile_turn_seconds",
            "Seconds from a turn's start to its settling, by outcome",
            ["status"],
            buckets=_SECONDS,
            registry=r,
        )

    def observe_turn(self, result: TurnResult, seconds: float | None) -> None:
        """Count one settled turn (call once per turn)."""
        route = result.route or "none"
        self.turns.labels(result.status, route).inc()
        if result.status == "refused":
            self.refusals.labels(result.refusal_reason or "other").inc()
        if result.status == "fallback":
            self.fallbacks.labels(error_class(result.fallback_reason or "")).inc()
        self.clarifications.inc(result.clarification_round)
        if result.cache is not None:
            self.cache.labels(result.cache).inc()
        self.summarised.inc(result.summarised)
        self.retries.inc(result.retries)
        for degradation in result.degraded:
            self.degraded.labels(degradation.layer, error_class(degradation.reason)).inc()
        if result.status == "answered":
            self.unsupported.observe(len(result.unsupported_claims))
            self.citations.observe(len(result.citations))
            self.confidence.labels(result.confidence or "none").inc()
            if result.relevance is not None:
                self.relevance.labels(_relevance_label(result.relevance)).inc()
        self.model_calls.observe(result.model_calls)
        tokens = 0
        for call in result.model_trace:
            self.tokens.labels(call.model, "prompt").inc(call.prompt_tokens)
            self.tokens.labels(call.model, "completion").inc(call.completion_tokens)
            tokens += call.prompt_tokens + call.completion_tokens
        if result.model_trace:
            self.turn_tokens.observe(tokens)
        if seconds is not None:
            self.turn_seconds.labels(result.status).observe(max(seconds, 0.0))

    def observe_usage(self, tenant: str, usage: Usage) -> None:
        """A settled turn's tokens and cost, by tenant (tenants are configured, so the
        label set is bounded)."""
        self.tenant_tokens.labels(tenant, "prompt").inc(usage.prompt_tokens)
        self.tenant_tokens.labels(tenant, "completion").inc(usage.completion_tokens)
        if usage.cost_usd is not None:
            self.tenant_cost.labels(tenant).inc(usage.cost_usd)
        else:
            self.unpriced.labels(tenant).inc()

    def observe_probe(self, slice_: str, cases: int, passed: int, breached: bool) -> None:
        """One slice of a golden-probe run: its pass rate, and a breach when below its
        binomial threshold."""
        self.probe_pass_rate.labels(slice_).set(passed / cases if cases else 0.0)
        self.probe_runs.labels(slice_, "breached" if breached else "ok").inc()

    def observe_swept(self, status: str) -> None:
        """A turn the sweeper settled (its workflow had closed without saving it)."""
        self.turns.labels(status, "swept").inc()


def _relevance_label(relevance: Relevance) -> str:
    """What the relevance control found of an answered turn, as its metric's label."""
    if relevance.off_point:
        return "off_point"
    return "addressed" if relevance.addressed else "partial"


_DEFAULT: TurnMetrics | None = None


def turn_metrics() -> TurnMetrics:
    """The process's metrics on the default registry (created on first use)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = TurnMetrics()
    return _DEFAULT
