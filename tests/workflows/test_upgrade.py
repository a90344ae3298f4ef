"""Upgrades that keep turns already running: a turn the previous code left waiting for a
clarification completes under the new code.

The previous code runs for real: a checkout of the earlier commit, in its own process,
with its own workflow, activities and contracts. The earlier commits tried are the last
of each live code generation: before the domain package (the steps named by activity
methods), before the memory patch, before companies were data. The generation before the
lean turn (every step a regular activity) is retired: its patch is deprecated
(docs/architecture.md, "Retiring workflow versions").
"""

import asyncio
import os
import shutil
import subprocess
import sys
import tarfile
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from io import BytesIO
from pathlib import Path

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Worker

import worker as registry
from activities.engines.offline import OfflineEngine
from activities.reports import ReportIndex
from settings import PROJECT_ROOT
from tests.conftest import Turns, TurnWorker, outcome, unique
from workflows.chat_turn import (
    ANSWERS_V2,
    COVERAGE_FROM_REGISTRY,
    FALLBACK_ATTRIBUTE,
    LEAN_TURN,
    MEMORY,
    ChatTurn,
)

KNOWN_PATCHES = (LEAN_TURN, ANSWERS_V2, FALLBACK_ATTRIBUTE, MEMORY)
BEFORE_DOMAIN = "364fcd2ce82e542729aba079062b3d7c4acc1e18"
"""The last commit before the domain package and the step declarations."""
BEFORE_MEMORY = "e5bbcf460ae4a10d099b6b6b68a5f5d158dd21d7"
"""The last commit before the memory patch (summary, preferences, answer cache)."""
BEFORE_REGISTRY = "23c643811c0cf2d29f6287098728da9896fab9ef"
"""The last commit whose turns named the five sample companies from code."""
RUNNER = Path(__file__).with_name("previous_worker.py")


def checkout(commit: str, folder: Path) -> Path:
    """The tree of `commit`, from git history (skips where there is none)."""
    archived = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=PROJECT_ROOT, capture_output=True,
        check=False,
    )  # fmt: skip
    if archived.returncode != 0:
        pytest.skip(f"this checkout has no git history with commit {commit[:10]}")
    tree = folder / commit[:10]
    with tarfile.open(fileobj=BytesIO(archived.stdout)) as tar:
        tar.extractall(tree, filter="data")
    shutil.copy(RUNNER, tree / RUNNER.name)
    return tree


@asynccontextmanager
async def previous_worker(
    tree: Path, client: Client, pool: AsyncConnectionPool, queue: str
) -> AsyncIterator[None]:
    """The previous code's worker polling `queue`, in its own process, until the block ends."""
    target = client.service_client.config.target_host
    process = await asyncio.create_subprocess_exec(
        sys.executable, RUNNER.name, target, client.namespace, queue, pool.conninfo,
        cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stdout is not None and process.stderr is not None
        line = await asyncio.wait_for(process.stdout.readline(), timeout=120)
        if line.strip() != b"ready":
            raise AssertionError((await process.stderr.read()).decode()[-3000:])
        yield
    finally:
        process.kill()
        await process.wait()


async def patch_ids(client: Client, workflow_id: str) -> set[str]:
    """The patch ids whose markers the workflow recorded."""
    found = set()
    async for e in client.get_workflow_handle(workflow_id).fetch_history_events():
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
            for payloads in e.marker_recorded_event_attributes.details.values():
                for payload in payloads.payloads:
                    found |= {p for p in KNOWN_PATCHES if p.encode() in payload.data}
    return found


async def event_types(client: Client, workflow_id: str) -> Counter[str]:
    handle = client.get_workflow_handle(workflow_id)
    return Counter([EventType.Name(e.event_type) async for e in handle.fetch_history_events()])


@pytest.mark.parametrize(
    "commit",
    [BEFORE_DOMAIN, BEFORE_MEMORY, BEFORE_REGISTRY],
    ids=["pre-domain", "pre-memory", "pre-registry"],
)
async def test_turn_left_waiting_by_the_previous_code_completes_under_the_new_code(
    commit: str,
    temporal_client: Client,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
    tmp_path: Path,
) -> None:
    tree = checkout(commit, tmp_path)
    queue = unique("upgrade")
    t = turns_on(queue)
    async with previous_worker(tree, temporal_client, pool, queue):
        handle = await t.start("What was this company's revenue in FY2024?")
        waiting = await outcome(handle, 0)
    assert waiting.status == "needs_clarification"
    activities = registry.activities(report_index, pool, OfflineEngine())
    async with Worker(
        temporal_client, task_queue=queue, workflows=[ChatTurn], activities=activities
    ):
        result = await t.reply(handle, waiting.clarification_round, "BHP")
    assert result.status == "answered", result
    assert "55,658" in (result.answer or "")
    patches = await patch_ids(temporal_client, handle.id)
    # The lean turn's patch is deprecated: turns begun before it are retired (their
    # generation's upgrade case went with it); every later turn is lean.
    assert LEAN_TURN in patches, "a lean turn stays lean"
    # The coverage patch is decided at the start: a turn begun before it keeps the
    # sample companies of the code it began under and never reads the registry.
    assert COVERAGE_FROM_REGISTRY not in patches
    if commit == BEFORE_REGISTRY:
        assert MEMORY in patches  # that code remembered: its turn keeps doing so
        return
    # The memory patch is decided at the start: a turn begun before it never looks up
    # or writes the answer cache, even when it finishes under the new code.
    assert MEMORY not in patches
    assert not {"qdrant_lookup_answer", "qdrant_save_answer"} & await local_steps(
        temporal_client, handle.id
    )


async def test_new_single_company_turn_runs_short_steps_locally_in_at_most_44_events(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    """30 events before the memory patch; it adds four — its own marker and version
    upsert, the cache lookup and the cache write (local activities, one marker each); the
    relevance patch three — its marker, its version upsert and the relevance check; the
    checked-drafts patch two — its marker and its version upsert (a grounded answer is
    not drafted again); the checked-drafts-v2 patch (the turn budget) two — its marker and
    its version upsert (the budget adds no command); the coverage patch three — its
    marker, its version upsert and the coverage read (a local activity)."""
    async with turn_worker() as tq:
        t = Turns(temporal_client, pool, tq, tenant_id=unique("t"), answer_cache=True)
        result = await t.ask("What was BHP's revenue in FY2024?")
    assert result.status == "answered" and "55,658" in (result.answer or "")
    events = await event_types(temporal_client, result.turn_id)
    scheduled = []
    async for e in temporal_client.get_workflow_handle(result.turn_id).fetch_history_events():
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled.append(e.activity_task_scheduled_event_attributes.activity_type.name)
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
            assert e.marker_recorded_event_attributes.marker_name in (
                "core_patch",
                "core_local_activity",
            )
    assert scheduled == ["qdrant_search_chunks"], "only retrieval leaves the worker"
    assert {"qdrant_lookup_answer", "qdrant_save_answer"} <= await local_steps(
        temporal_client, result.turn_id
    )
    assert sum(events.values()) <= 44, events
    assert LEAN_TURN


async def local_steps(client: Client, workflow_id: str) -> set[str]:
    """The activity types of a history's local-activity markers."""
    found: set[str] = set()
    async for e in client.get_workflow_handle(workflow_id).fetch_history_events():
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
            attrs = e.marker_recorded_event_attributes
            if attrs.marker_name == "core_local_activity":
                data = b"".join(p.data for p in attrs.details["data"].payloads)
                found |= {n for n in ("qdrant_lookup_answer", "qdrant_save_answer")
                          if n.encode() in data}  # fmt: skip
    return found


async def test_remote_model_steps_stay_regular_activities(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns], temporal_client: Client
) -> None:
    from datetime import timedelta

    from db import turns as turn_store
    from workflows.chat_turn import execution_timeout
    from workflows.contracts import TurnInput

    async with turn_worker() as tq:
        t = turns_on(tq)
        conversation = unique("c")
        async with t.pool.connection() as conn:
            alloc = await turn_store.allocate_turn(conn, conversation, None, "BHP revenue FY2024")
        handle = await temporal_client.start_workflow(
            ChatTurn.run,
            TurnInput(turn_id=alloc.turn_id, conversation_id=conversation, seq=alloc.seq,
                      question="BHP revenue FY2024", engine_in_process=False),
            id=alloc.turn_id, task_queue=tq,
            execution_timeout=execution_timeout(timedelta(hours=1).total_seconds()),
        )  # fmt: skip
        result = await outcome(handle, 0)
    assert result.status == "answered"
    scheduled = set()
    async for e in handle.fetch_history_events():
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled.add(e.activity_task_scheduled_event_attributes.activity_type.name)
    assert {"llm_route_question", "llm_synthesize_answer", "llm_grade_answer"} <= scheduled
    assert "postgres_save_turn" not in scheduled, "PostgreSQL steps stay local"
