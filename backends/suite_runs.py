"""The scheduled suite run's metrics (`metrics_record_suite_run`, for RunSuites): what the
drift alert reads (`TurnstileSuiteDrift` in ops/prometheus/alerts.yml)."""

import functools
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge

from activities import steps
from activities.contracts import SuiteVerdict
from activities.steps import implements


class SuiteMetrics:
    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.regressions = Gauge(
            "turnstile_suite_regressions",
            "Regressions against the baseline in the last scheduled suite run (RunSuites)",
            registry=registry,
        )
        self.stale = Gauge(
            "turnstile_suite_stale_baseline",
            "Baseline entries the last scheduled suite run found stale (a known failure passes)",
            registry=registry,
        )
        self.last_run = Gauge(
            "turnstile_suite_last_run_timestamp_seconds",
            "When the last scheduled suite run was recorded (Unix time)",
            registry=registry,
        )
        self.runs = Counter(
            "turnstile_suite_runs",
            "Scheduled suite runs recorded, by verdict (ok, regressed)",
            ["verdict"],
            registry=registry,
        )

    def activities(self) -> list[Callable[..., Any]]:
        return [self.record_run]

    @implements(steps.metrics_record_suite_run)
    async def record_run(self, verdict: SuiteVerdict) -> SuiteVerdict:
        self.regressions.set(len(verdict.regressions))
        self.stale.set(len(verdict.stale))
        self.last_run.set(time.time())
        self.runs.labels("regressed" if verdict.regressions else "ok").inc()
        return verdict


@functools.cache
def suite_metrics() -> SuiteMetrics:
    """The process's one set (the default registry takes each metric once)."""
    return SuiteMetrics()
