"""Golden-probe activities: read the probe sets, allocate probe turns, record each run.

The probe sets are JSONL files (evals/probes/ by default, `TURNSTILE_PROBE_DIR`), read
with the suites' own loader, so a malformed probe is named by file and line in the run's
failure. A probe turn is allocated in PostgreSQL exactly as the API allocates a caller's
(tenant `probes`), so it is an ordinary turn: stored, audited, visible in the UI.
"""

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool
from temporalio import activity

from activities import steps
from activities.contracts import (
    AllocateProbeTurn,
    FreezeRequest,
    FrozenCorpus,
    ProbeCasesRequest,
    ProbeHistory,
    ProbeHistoryRequest,
    ProbeIncident,
    ProbeSet,
    ProbeTurn,
    RecordedProbeRun,
    RecordProbeRun,
)
from activities.errors import invalid_input
from activities.steps import implements
from backends.heartbeat import heartbeating
from backends.metrics import turn_metrics
from backends.reports import ReportIndex, read_index
from db import probes, turns
from domain.evaluation.scoring import SLICES, CaseError, SliceRun, incident_due, parse_cases

SEVERITY = "S2"
"""A slice that breached twice in a row: a same-day ticket (docs/incidents.md)."""


class ProbeActivities:
    def __init__(self, pool: AsyncConnectionPool, index: ReportIndex, probe_dir: Path) -> None:
        self.pool = pool
        self.index = index
        self.probe_dir = probe_dir

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [
            self.load_cases,
            self.allocate_turn,
            self.record_run,
            self.read_history,
            self.freeze_corpus,
        ]

    @implements(steps.probes_load_cases)
    async def load_cases(self, request: ProbeCasesRequest) -> ProbeSet:
        names = request.slices or list(SLICES)
        out = {}
        for name in names:
            path = self.probe_dir / f"{name}.jsonl"
            try:
                text = await asyncio.to_thread(path.read_text, encoding="utf-8")
                cases = parse_cases(text, f"{path.parent.name}/{path.name}", "probe")
            except (OSError, CaseError) as err:
                raise invalid_input(f"probe set {name}: {err}") from None
            out[name] = cases[: request.limit] if request.limit else cases
        version = await asyncio.to_thread(self.index.corpus_version)
        return ProbeSet(slices=out, corpus_version=version)

    @implements(steps.postgres_allocate_probe_turn)
    async def allocate_turn(self, request: AllocateProbeTurn) -> ProbeTurn:
        async with self.pool.connection() as conn:
            alloc = await turns.allocate_turn(
                conn,
                request.conversation_id,
                None,
                request.question,
                (request.key, request.question),
                tenant_id=request.tenant_id,
            )
        return ProbeTurn(
            turn_id=alloc.turn_id, conversation_id=alloc.conversation_id, seq=alloc.seq
        )

    @implements(steps.postgres_record_probe_run)
    async def record_run(self, request: RecordProbeRun) -> RecordedProbeRun:
        """Store each slice; open an incident when a slice's breach streak reaches two.
        Retried until done: rows are idempotent, and a retry counts nothing twice."""
        opened: list[ProbeIncident] = []
        metrics = turn_metrics()
        async with self.pool.connection() as conn:
            for run in request.slices:
                recorded = await probes.record_run(
                    conn,
                    request.scope,
                    request.run_id,
                    run.slice,
                    run.cases,
                    run.passed,
                    run.threshold,
                    run.breached,
                    run.failed,
                    request.corpus_version,
                    run.failed_turns,
                    run.healthy_rate,
                )
                if recorded.stored:
                    metrics.observe_probe(run.slice, run.cases, run.passed, run.breached)
                incident = await self._incident_if_due(conn, request, run, recorded.previous)
                if incident is not None:
                    opened.append(incident)
        return RecordedProbeRun(incidents=opened)

    async def _incident_if_due(
        self,
        conn: AsyncConnection[Any],
        request: RecordProbeRun,
        run: SliceRun,
        previous_runs: list[tuple[str, bool]],
    ) -> ProbeIncident | None:
        """Open the slice's incident when its breach streak reaches two (once: a retry
        finds the incident already open and counts nothing)."""
        before = [breached for _, breached in previous_runs]
        if not incident_due(run.breached, before):
            return None
        previous = previous_runs[0][0]
        category = request.categories.get(run.slice, "unsupported_claim_shown")
        summary = (
            f"golden probes, slice {run.slice}: {run.passed}/{run.cases} passed "
            f"(threshold {run.threshold}) in two consecutive runs"
        )
        incident, created = await probes.open_incident(
            conn, request.scope, run.slice, request.run_id, previous, category, SEVERITY, summary
        )
        if created:  # counted once, even when an earlier attempt stored the run
            activity.logger.error("probe incident %s: %s", incident, summary)
            turn_metrics().probe_incidents.labels(run.slice).inc()
        return ProbeIncident(
            slice=run.slice, incident_id=incident, category=category, previous_run_id=previous
        )

    @implements(steps.postgres_read_probe_history)
    async def read_history(self, request: ProbeHistoryRequest) -> ProbeHistory:
        """Each slice's latest healthy runs, for its own healthy rate."""
        async with self.pool.connection() as conn:
            return ProbeHistory(
                slices={
                    name: await probes.healthy_history(conn, request.scope, name, request.runs)
                    for name in request.slices
                }
            )

    @implements(steps.qdrant_freeze_corpus)
    async def freeze_corpus(self, request: FreezeRequest) -> FrozenCorpus:
        """Freeze the index as it stands (a copy named by its corpus version, made once),
        and drop the snapshots no recent run of the scope used. Idempotent. With a
        version named, that snapshot is read instead (InvalidInput when it is gone)."""
        async with heartbeating():
            if request.corpus_version is not None:
                read_index(self.index, request.corpus_version)  # raises when it is gone
                return FrozenCorpus(corpus_version=request.corpus_version, created=False)
            version, created = await asyncio.to_thread(self.index.freeze)
            async with self.pool.connection() as conn:
                keep = {
                    version,
                    *await probes.recent_versions(conn, request.scope, request.keep - 1),
                }
            held = await asyncio.to_thread(self.index.snapshot_versions)
            dropped = [v for v in held if v not in keep]
            for old in dropped:
                await asyncio.to_thread(self.index.drop_snapshot, old)
        if created:
            activity.logger.info("froze the index at corpus %s for the probes", version)
        return FrozenCorpus(corpus_version=version, created=created, dropped=dropped)
