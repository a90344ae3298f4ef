"""RunSuites (issue 45 item 9): the suites through the stack on a schedule, judged
against a baseline, moving the metrics the drift alert reads. Real worker, API in-process,
PostgreSQL and Temporal; the suites and baseline are files of the test's own."""

import contextlib
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from temporalio.client import Client
from temporalio.exceptions import ApplicationError

from activities.contracts import SuiteRunRequest
from backends.suite_runs import SuiteMetrics
from evals.cases import load_suites
from evals.real import Stack
from evals.results import Baseline, CaseResult, SuiteRun
from evals.scheduled import SuiteActivities, judged
from settings import Settings
from tests.conftest import TurnWorker, WorkerFactory, client_for, unique
from workflows.suites import RunSuites, ensure_suite_schedule, remove_suite_schedule


def _suite(tmp_path: Path, broken: bool) -> Path:
    """A calculation suite of two real cases; `broken`: the second expects a figure no
    report gives, as an answer that regressed would miss it."""
    first, second = load_suites(["calculation"])["calculation"][:2]
    if broken:
        expected = second.expected.model_copy(update={"present": ["US$999,999 million"]})
        second = second.model_copy(update={"expected": expected})
    folder = tmp_path / "suites"
    folder.mkdir()
    lines = [c.model_dump_json(exclude_none=True) for c in (first, second)]
    (folder / "calculation.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "baseline.json").write_text(Baseline().model_dump_json(), encoding="utf-8")
    return folder


async def _run(
    app_settings: Settings,
    turn_worker: TurnWorker,
    worker: WorkerFactory,
    temporal_client: Client,
    tmp_path: Path,
    broken: bool,
) -> tuple[dict[str, object], CollectorRegistry]:
    suite_dir = _suite(tmp_path, broken)
    registry = CollectorRegistry()

    @contextlib.asynccontextmanager
    async def connect() -> AsyncIterator[Stack]:
        async with client_for(app_settings) as http:
            yield Stack(temporal=temporal_client, task_queue=app_settings.task_queue, http=http)

    steps = SuiteActivities(connect, suite_dir=suite_dir, baseline=tmp_path / "baseline.json")
    async with (
        turn_worker(task_queue=app_settings.task_queue),
        worker(
            workflows=[RunSuites],
            activities=[*steps.activities(), *SuiteMetrics(registry).activities()],
        ) as tq,
    ):
        verdict = await temporal_client.execute_workflow(
            RunSuites.run,
            SuiteRunRequest(suites=["calculation"]),
            id=unique("suites"),
            task_queue=tq,
            execution_timeout=timedelta(minutes=5),
        )
    return json.loads(verdict.model_dump_json()), registry


async def test_a_regressed_case_raises_the_drift_metric(
    app_settings: Settings,
    turn_worker: TurnWorker,
    worker: WorkerFactory,
    temporal_client: Client,
    tmp_path: Path,
) -> None:
    verdict, registry = await _run(
        app_settings, turn_worker, worker, temporal_client, tmp_path, True
    )
    assert verdict["cases"] == 2 and verdict["failed"] == 1
    [line] = verdict["regressions"]  # type: ignore[misc]
    assert line.startswith("regressed: calculation/") and "US$999,999 million" in line
    assert registry.get_sample_value("turnstile_suite_regressions") == 1
    assert registry.get_sample_value("turnstile_suite_runs_total", {"verdict": "regressed"}) == 1


async def test_a_run_as_the_baseline_expects_keeps_the_metric_at_zero(
    app_settings: Settings,
    turn_worker: TurnWorker,
    worker: WorkerFactory,
    temporal_client: Client,
    tmp_path: Path,
) -> None:
    verdict, registry = await _run(
        app_settings, turn_worker, worker, temporal_client, tmp_path, False
    )
    assert verdict["cases"] == 2 and verdict["failed"] == 0
    assert verdict["regressions"] == [] and verdict["stale"] == []
    assert registry.get_sample_value("turnstile_suite_regressions") == 0
    assert registry.get_sample_value("turnstile_suite_runs_total", {"verdict": "ok"}) == 1


async def test_the_schedule_is_made_when_on_and_removed_when_off(temporal_client: Client) -> None:
    queue = unique("tq")
    await ensure_suite_schedule(temporal_client, queue, timedelta(hours=24), SuiteRunRequest())
    handle = temporal_client.get_schedule_handle(f"turnstile-suites-{queue}")
    described = await handle.describe()
    assert described.schedule.spec.intervals[0].every == timedelta(hours=24)
    await ensure_suite_schedule(temporal_client, queue, timedelta(hours=6), SuiteRunRequest())
    assert (await handle.describe()).schedule.spec.intervals[0].every == timedelta(hours=6)
    await remove_suite_schedule(temporal_client, queue)
    await remove_suite_schedule(temporal_client, queue)  # twice: nothing to remove is fine
    assert f"turnstile-suites-{queue}" not in [
        s.id async for s in await temporal_client.list_schedules()
    ]


def test_a_run_whose_cases_could_not_run_fails_instead_of_reporting_drift() -> None:
    """The stack failed the cases (here: the API unreachable), not the answers: the step
    fails, not retried, and no regression reaches the drift metric."""
    unrun = CaseResult(
        suite="calculation",
        id="c1",
        passed=False,
        passes=0,
        problems=["could not run: ConnectError"],
    )
    run = SuiteRun(mode="real", engine="offline", cases=[unrun])
    with pytest.raises(ApplicationError, match="1 of 1 cases could not run") as raised:
        judged(run, Baseline(), complete=False)
    assert raised.value.non_retryable
    wrong = unrun.model_copy(update={"problems": ["missing 'US$999,999 million'"]})
    verdict = judged(SuiteRun(mode="real", engine="offline", cases=[wrong]), Baseline(), False)
    assert verdict.regressions == ["regressed: calculation/c1: missing 'US$999,999 million'"]
