"""What the benchmarks share: an isolated embedded stack (its own home, free loopback
ports, its own queue, so no benchmark ever touches a developer's stack or a system
PostgreSQL) and the percentile every latency table uses."""

import os
import uuid
from pathlib import Path

from settings import Settings
from stack.processes import free_port


def isolated_settings(home: Path, queue_prefix: str, ingest_dir: Path | None = None) -> Settings:
    """Settings for a stack of our own; also exported, because every process `up` spawns
    (worker, API) reads its settings from the environment it inherits. `ingest_dir` is
    where the API may ingest files from (the sample corpus when not given)."""
    for key in [k for k in os.environ if k.startswith("TURNSTILE_")]:
        del os.environ[key]
    api_port = free_port()
    os.environ.update(
        TURNSTILE_HOME=str(home),
        TURNSTILE_API_PORT=str(api_port),
        TURNSTILE_API_URL=f"http://127.0.0.1:{api_port}",
        TURNSTILE_TEMPORAL_PORT=str(free_port()),
        TURNSTILE_TEMPORAL_UI_PORT=str(free_port()),
        TURNSTILE_POSTGRES_PORT=str(free_port()),
        TURNSTILE_TASK_QUEUE=f"{queue_prefix}-{uuid.uuid4().hex[:8]}",
        # Chosen up front too, so the dev server cannot take one of the ports above.
        TURNSTILE_WORKER_METRICS_PORT=str(free_port()),
        TURNSTILE_TEMPORAL_METRICS_PORT=str(free_port()),
        TURNSTILE_TEMPORAL_HTTP_PORT=str(free_port()),
        TURNSTILE_TEMPORAL_DEV_METRICS_PORT=str(free_port()),
        # A benchmark is one caller starting turns as fast as it can: measure the turn,
        # not the per-user rate limit.
        TURNSTILE_RATE_LIMIT_PER_MINUTE="1000000",
        TURNSTILE_RATE_LIMIT_BURST="1000000",
    )
    if ingest_dir is not None:
        os.environ["TURNSTILE_INGEST_DIR"] = str(ingest_dir)
    return Settings()


def percentile(values: list[float], q: float) -> float | None:
    """The `q` quantile of `values` by nearest rank (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
