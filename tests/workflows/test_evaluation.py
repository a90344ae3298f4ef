"""Evaluation through a real stack: the release gate, the retrieval A/B harness (with the
reranker against the fake Cohere server), the judge calibration and the golden probes.

Real parts: the Temporal dev server, PostgreSQL, the Qdrant index of the sample corpus,
the API in-process and the offline engine.
"""

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.api.enums.v1 import WorkflowIdReusePolicy
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError

from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from backends.rerank import CohereReranker
from db import probes
from domain.evaluation.scoring import SAMPLED, SLICES, sample
from evals import ab, judge
from evals.cases import BASELINE, load_suites
from evals.mock import run_mock
from evals.real import Stack, run_real
from evals.results import Baseline, SuiteRun, gate
from settings import Settings
from testkit.fake_servers import FakeCohere
from tests.conftest import TurnWorker, WorkerFactory, client_for, unique
from workflows.probes import (
    SCHEDULE_PREFIX,
    ProbeRequest,
    RunGoldenProbes,
    ensure_probe_schedule,
    remove_probe_schedule,
)
from workflows.turn.budget import TASK_TIMEOUT

SAMPLE_EVERY = 20
"""The release gate asks every 20th case of the suites of whole turns (`SAMPLED`)."""


@pytest.fixture
async def stack(
    app_settings: Settings, turn_worker: TurnWorker, temporal_client: Client
) -> AsyncIterator[Stack]:
    """The API in-process and a worker with every real activity, as an evaluation sees them."""
    async with turn_worker(task_queue=app_settings.task_queue), client_for(app_settings) as http:
        yield Stack(temporal=temporal_client, task_queue=app_settings.task_queue, http=http)


async def test_the_release_gate_finds_no_regression_against_the_baseline(stack: Stack) -> None:
    """`make test`'s gate: the mock suites, then the real suites with the offline engine,
    compared with the committed baseline (known failures with their reasons, floors).
    The suites of whole turns generated from the reports run as a fixed sample here
    (every SAMPLE_EVERY-th case); `turnstile eval --mode real` runs all of them."""
    suites = load_suites()
    assert all(r.passed for r in run_mock([c for cases in suites.values() for c in cases]))
    whole = [c for name, cases in suites.items() if name not in SAMPLED for c in cases]
    sampled = [c for name in SAMPLED for c in sample(suites[name], SAMPLE_EVERY)]

    results, metrics = await run_real(stack, [*whole, *sampled])
    full = [r for r in results if r.suite not in SAMPLED]
    part = [r for r in results if r.suite in SAMPLED]
    baseline = Baseline.read(BASELINE)

    assert (
        gate(SuiteRun(mode="real", engine="offline", cases=full, metrics=metrics), baseline) == []
    )
    assert gate(SuiteRun(mode="real", engine="offline", cases=part), baseline, complete=False) == []
    assert metrics["retrieval.hit@5"] >= 0.98 and metrics["retrieval.mrr@5"] >= 0.90


async def test_the_gate_fails_when_an_answer_regresses(stack: Stack) -> None:
    """The same gate on a case whose expectation the engine cannot meet: a regression."""
    [case] = [c for c in load_suites(["calculation"])["calculation"]][:1]
    broken = case.model_copy(
        update={"expected": case.expected.model_copy(update={"present": ["US$999,999 million"]})}
    )

    results, metrics = await run_real(stack, [broken])
    verdict = gate(
        SuiteRun(mode="real", engine="offline", cases=results, metrics=metrics), Baseline()
    )

    assert verdict == [f"regressed: calculation/{case.id}: missing 'US$999,999 million'"]


async def test_a_clarifying_turn_is_cancelled_so_nothing_is_left_waiting(stack: Stack) -> None:
    [case] = [
        c
        for c in load_suites(["boundary"])["boundary"]
        if c.expected.model_dump().get("status") == "needs_clarification"
    ][:1]

    [result], _ = await run_real(stack, [case])
    turn = await stack.http.get(f"/v1/turns/{result.detail['turn_id']}")

    assert result.passed, result.problems
    assert turn.json()["status"] == "cancelled"


@pytest.fixture
def fake_cohere() -> Iterator[FakeCohere]:
    with FakeCohere().running() as fake:
        yield fake


async def test_the_ab_harness_compares_two_configurations_with_the_reranker(
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    temporal_client: Client,
    fake_cohere: FakeCohere,
) -> None:
    import worker as registry

    reranker = CohereReranker(api_key=fake_cohere.api_key, base_url=fake_cohere.base_url)
    reranked = ReportIndex(report_index.client, report_index.embedder, reranker)
    cases = load_suites(["retrieval"])["retrieval"][:12]
    plain, rerank = ab.load_config("pool8-no-rerank"), ab.load_config("pool20-rerank8")
    activities = registry.activities(reranked, pool, OfflineEngine())
    async with worker(activities=activities) as tq, httpx.AsyncClient() as http:
        report = await ab.compare(Stack(temporal_client, tq, http), cases, plain, rerank)

    # B reranked each case's 20 fused candidates down to 8 (plus the few later-report
    # hits a search adds, top 3); A never called the reranker.
    main = [r for r in fake_cohere.requests if r["top_n"] == 8]
    assert len(main) == len(cases)
    assert {len(r["documents"]) for r in main} == {20}
    for side in (report.a, report.b):
        assert set(side.metrics) == {"hit@8 (cutoff)", "hit@5", "mrr@5", "mean_rank"}
    assert report.not_scored == {}
    assert "per case:" in ab.render(report)


async def test_a_throttled_reranker_is_waited_for_never_scored_as_a_miss(
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    temporal_client: Client,
    fake_cohere: FakeCohere,
) -> None:
    import worker as registry

    fake_cohere.retry_after = "30"  # longer than a search waits: the search falls back
    fake_cohere.fail_next("429")
    reranker = CohereReranker(api_key=fake_cohere.api_key, base_url=fake_cohere.base_url)
    reranked = ReportIndex(report_index.client, report_index.embedder, reranker)
    cases = load_suites(["retrieval"])["retrieval"][:2]
    rerank = ab.load_config("pool20-rerank8")
    activities = registry.activities(reranked, pool, OfflineEngine())
    async with worker(activities=activities) as tq, httpx.AsyncClient() as http:
        report = await ab.compare(
            Stack(temporal_client, tq, http), cases, rerank, rerank, pause=0.05
        )

    assert report.not_scored == {}  # asked again after a pause, then scored
    main = [r for r in fake_cohere.requests if r["top_n"] == 8]
    assert len(main) == 2 * len(cases) + 1  # the throttled one, asked again


async def test_a_rerank_config_without_a_reranker_is_not_scored(stack: Stack) -> None:
    cases = load_suites(["retrieval"])["retrieval"][:1]
    rerank = ab.load_config("pool20-rerank8")

    report = await ab.compare(stack, cases, ab.load_config("today"), rerank)

    assert list(report.not_scored) == [cases[0].id]
    assert "no reranker is configured" in report.not_scored[cases[0].id]
    assert report.changes[0].change == "not scored"
    assert f"not scored {cases[0].id}: " in ab.render(report)


async def test_the_numeric_check_meets_its_calibration_target(stack: Stack) -> None:
    pairs = judge.load_pairs()
    wrong = [p for p in pairs if p.expected == "unsupported"]
    assert len(pairs) >= 40 and len(wrong) * 3 >= len(pairs)

    numeric, model = await judge.calibrate(stack, pairs, model=True, engine="offline")

    assert numeric.precision >= 0.95 and numeric.recall >= 0.95, judge.render(numeric)
    # The offline engine's judge is the numeric check: the two agree pair by pair.
    assert model.disagreements == numeric.disagreements


# ---- golden probes ---------------------------------------------------------------------


async def test_a_probe_run_started_by_hand_is_not_recorded(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    request = ProbeRequest(slices=["boundary"], limit=1, record=False)
    async with turn_worker() as tq:
        result = await temporal_client.execute_workflow(
            RunGoldenProbes.run, request, id=unique("probes"), task_queue=tq
        )

    assert [(s.slice, s.cases) for s in result.slices] == [("boundary", 1)]
    async with pool.connection() as conn:
        query = "SELECT count(*) FROM probe_runs WHERE run_id = %s"
        rows = await (await conn.execute(query, (result.run_id,))).fetchone()
    assert rows == (0,)


async def test_a_probe_run_asks_every_slice_as_real_turns_and_records_it(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    settled = "SELECT count(*) FROM turns WHERE tenant_id = 'probes' AND status <> 'running'"
    async with pool.connection() as conn:
        before = await (await conn.execute(settled)).fetchone()
    async with turn_worker() as tq:
        run_id = unique("probes")
        result = await temporal_client.execute_workflow(
            RunGoldenProbes.run, ProbeRequest(limit=2), id=run_id, task_queue=tq
        )
        history = await temporal_client.get_workflow_handle(run_id).fetch_history()

    assert [s.slice for s in result.slices] == list(SLICES)
    # Each probe turn started as the API starts a turn (`workflows.turn_start`): its task
    # timeout, one id never reused, its question in the memo and the UI's summary.
    children = [
        e.start_child_workflow_execution_initiated_event_attributes
        for e in history.events
        if e.HasField("start_child_workflow_execution_initiated_event_attributes")
    ]
    assert len(children) >= 8
    for child in children:
        assert child.workflow_task_timeout.ToTimedelta() == TASK_TIMEOUT
        reuse = child.workflow_id_reuse_policy
        assert reuse == WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
        assert set(child.memo.fields) == {"question", "tenant"}
    started = [
        e.user_metadata.summary.data
        for e in history.events
        if e.HasField("start_child_workflow_execution_initiated_event_attributes")
    ]
    assert all(b"probe " in summary for summary in started), started
    assert all(s.cases == 2 and s.passed == 2 and not s.breached for s in result.slices), [
        s.failed for s in result.slices
    ]
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT slice, passed FROM probe_runs WHERE run_id = %s ORDER BY slice",
                (result.run_id,),
            )
        ).fetchall()
        after = await (await conn.execute(settled)).fetchone()
    assert rows == sorted((s, 2) for s in SLICES)
    # Every probe was a real turn, settled (a follow-up probe asks two).
    assert before is not None and after is not None and after[0] - before[0] >= 8


def failing_probes(directory: Path, name: str, passing: int, failing: int) -> None:
    """A slice whose failing probes expect a figure no report holds."""
    lines = []
    for i in range(passing + failing):
        present = ["55,658"] if i < passing else ["US$1 trillion"]
        lines.append(
            json.dumps(
                {
                    "id": f"p{i}",
                    "query": "What was BHP's revenue in FY2024?",
                    "expected": {"status": "answered", "present": present},
                    "why_it_matters": "a probe that can be made to fail",
                }
            )
        )
    (directory / f"{name}.jsonl").write_text("\n".join(lines) + "\n")


async def test_an_incident_opens_only_after_two_consecutive_breaches(
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    temporal_client: Client,
    tmp_path: Path,
) -> None:
    import worker as registry

    name = unique("slice").replace("-", "_")
    failing_probes(tmp_path, name, passing=2, failing=1)
    request = ProbeRequest(slices=[name], healthy_rate=1.0)  # any failure breaches
    activities = registry.activities(report_index, pool, OfflineEngine(), probe_dir=tmp_path)

    async with worker(activities=activities) as tq:
        runs = [
            await temporal_client.execute_workflow(
                RunGoldenProbes.run, request, id=unique("probes"), task_queue=tq
            )
            for _ in range(3)
        ]
        failing_probes(tmp_path, name, passing=3, failing=0)  # healthy again
        healed = await temporal_client.execute_workflow(
            RunGoldenProbes.run, request, id=unique("probes"), task_queue=tq
        )

    first, second, third = runs
    assert first.slices[0].breached and first.incidents == []
    assert second.slices[0].breached
    [incident] = second.incidents
    assert (incident.slice, incident.previous_run_id) == (name, first.run_id)
    assert incident.category == "unsupported_claim_shown"
    assert third.slices[0].breached and third.incidents == []  # one incident per streak
    assert not healed.slices[0].breached and healed.incidents == []
    async with pool.connection() as conn:
        opened = [i for i in await probes.incidents(conn) if i["slice"] == name]
    assert [(i["run_id"], i["severity"]) for i in opened] == [(second.run_id, "S2")]


async def test_a_malformed_probe_set_fails_the_run_naming_the_line(
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    temporal_client: Client,
    tmp_path: Path,
) -> None:
    from temporalio.client import WorkflowFailureError

    import worker as registry

    (tmp_path / "bad.jsonl").write_text('{"id": "x", "query": "q", "expected": {}}\n')
    activities = registry.activities(report_index, pool, OfflineEngine(), probe_dir=tmp_path)
    async with worker(activities=activities) as tq:
        with pytest.raises(WorkflowFailureError) as failure:
            await temporal_client.execute_workflow(
                RunGoldenProbes.run,
                ProbeRequest(slices=["bad"]),
                id=unique("probes"),
                task_queue=tq,
            )
    activity_failure = failure.value.cause
    assert activity_failure is not None
    assert "bad.jsonl:1: missing why_it_matters" in str(activity_failure.cause)


async def test_the_worker_keeps_one_probe_schedule(temporal_client: Client) -> None:
    from datetime import timedelta

    tq = unique("probes")
    await ensure_probe_schedule(temporal_client, tq, timedelta(hours=6), ProbeRequest())
    await ensure_probe_schedule(  # a restart updates it
        temporal_client, tq, timedelta(hours=1), ProbeRequest(healthy_rate=0.9)
    )
    handle = temporal_client.get_schedule_handle(f"{SCHEDULE_PREFIX}-{tq}")
    try:
        described = await handle.describe()
        action = described.schedule.action
        assert action.workflow == "RunGoldenProbes"  # type: ignore[attr-defined]
        [request] = pydantic_data_converter.payload_converter.from_payloads(
            [action.args[0]],
            [ProbeRequest],  # type: ignore[attr-defined]
        )
        assert request.healthy_rate == 0.9
        assert described.schedule.spec.intervals[0].every == timedelta(hours=1)
    finally:
        await remove_probe_schedule(temporal_client, tq)  # probes turned off
        await remove_probe_schedule(temporal_client, tq)  # and again: nothing to remove
    with pytest.raises(RPCError):
        await handle.describe()
