"""Golden probes on a frozen snapshot of the index, and each slice's threshold from its own
history, through the real stack (Temporal dev server, PostgreSQL, Qdrant Edge, the
offline engine)."""

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client

import worker as registry
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from domain.evaluation.scoring import pass_threshold
from tests.conftest import CORPUS_DIR, Turns, WorkerFactory, unique
from workflows.probes import ProbeRequest, ProbeRunResult, RunGoldenProbes

QUESTION = "What was BHP's revenue in FY2024?"
ORIGINAL, ALTERED = "55,658", "57,913"


def probe_set(directory: Path, name: str, passing: int, failing: int = 0) -> None:
    """A slice of revenue probes; the failing ones expect a figure no report holds (ids
    unique across slices, as a run's probe turns are keyed by them)."""
    lines = []
    for i in range(passing + failing):
        present = [ORIGINAL if i < passing else "US$1 trillion"]
        lines.append(
            json.dumps(
                {
                    "id": f"{name}-p{i}",
                    "query": QUESTION,
                    "expected": {"status": "answered", "present": present},
                    "why_it_matters": "a probe of the test",
                }
            )
        )
    (directory / f"{name}.jsonl").write_text("\n".join(lines) + "\n")


async def run(client: Client, tq: str, request: ProbeRequest) -> ProbeRunResult:
    return await client.execute_workflow(
        RunGoldenProbes.run, request, id=unique("probes"), task_queue=tq
    )


async def test_probes_read_the_frozen_snapshot_not_the_index_ingested_since(
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    temporal_client: Client,
    turns_on: Callable[[str], Turns],
    tmp_path: Path,
) -> None:
    original = CORPUS_DIR / "BHP_FY2024.md"
    altered = tmp_path / "altered" / original.name
    altered.parent.mkdir()
    altered.write_text(original.read_text(encoding="utf-8").replace(ORIGINAL, ALTERED))
    index = make_report_index()
    assert index.ingest_file(original).status == "ingested"
    name = unique("slice").replace("-", "_")
    probe_set(tmp_path, name, passing=1)
    activities = registry.activities(index, pool, OfflineEngine(), probe_dir=tmp_path)

    async with worker(activities=activities) as tq:
        first = await run(temporal_client, tq, ProbeRequest(slices=[name]))
        # The report is corrected and ingested again: the live index changes...
        assert (await asyncio.to_thread(index.ingest_file, altered)).status == "ingested"
        live = await turns_on(tq).ask(QUESTION)
        # ...and a run on the first run's corpus still reads what that run read.
        pinned = await run(
            temporal_client, tq, ProbeRequest(slices=[name], corpus_version=first.corpus_version)
        )
        moved = await run(temporal_client, tq, ProbeRequest(slices=[name]))

    assert ALTERED in (live.answer or ""), live.answer
    assert first.slices[0].passed == 1 and pinned.slices[0].passed == 1
    assert pinned.corpus_version == first.corpus_version
    # Without a version named, a run freezes the index as it now stands.
    assert moved.corpus_version != first.corpus_version and moved.slices[0].breached
    assert sorted(index.snapshot_versions()) == sorted([first.corpus_version, moved.corpus_version])
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT run_id, corpus_version FROM probe_runs WHERE slice = %s", (name,)
            )
        ).fetchall()
    assert dict(rows) == {r.run_id: r.corpus_version for r in (first, pinned, moved)}


async def test_each_slices_threshold_comes_from_its_own_history(
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    temporal_client: Client,
    tmp_path: Path,
) -> None:
    steady, flaky, fresh = (unique(s).replace("-", "_") for s in ("steady", "flaky", "fresh"))
    for slice_ in (steady, flaky, fresh):
        probe_set(tmp_path, slice_, passing=2, failing=1)
    tq = unique("tq")
    async with pool.connection() as conn:  # ten healthy runs each, recorded before
        for i in range(10):
            for slice_, passed in ((steady, 20), (flaky, 15)):
                await conn.execute(
                    "INSERT INTO probe_runs (scope, run_id, slice, cases, passed, threshold,"
                    " breached) VALUES (%s, %s, %s, 20, %s, 0, false)",
                    (tq, f"{slice_}-{i}", slice_, passed),
                )
    activities = registry.activities(report_index, pool, OfflineEngine(), probe_dir=tmp_path)
    async with worker(activities=activities, task_queue=tq):
        result = await run(temporal_client, tq, ProbeRequest(slices=[steady, flaky, fresh]))

    by = {s.slice: s for s in result.slices}
    assert all(s.passed == 2 and s.cases == 3 for s in result.slices), result.slices
    # A slice that never failed: its own rate is near 1, so one failure breaches.
    assert by[steady].healthy_rate is not None and by[steady].healthy_rate > 0.99
    assert by[steady].threshold == 3 and by[steady].breached
    # A slice that fails a quarter of its probes on a healthy day: one failure is noise.
    assert by[flaky].healthy_rate is not None and by[flaky].healthy_rate < 0.8
    assert by[flaky].threshold == 1 and not by[flaky].breached
    # No history yet: the configured rate, as before.
    assert by[fresh].healthy_rate == 0.95 and by[fresh].threshold == pass_threshold(3, 0.95)
    assert not by[fresh].breached
