"""Upgrades that keep turns already running: a turn the previous code left waiting for a
clarification completes under the new code.

The previous code runs for real: a checkout of the earlier commit, in its own process,
with its own workflow, activities and contracts. The earlier commit tried is the last of
the one live code generation: every ChatTurn patch taken (`workflow.patched`), just
before they were deprecated. The generations before it (before the domain package, the
memory patch, companies as data) are retired with the code their patches kept
(docs/architecture.md, "Retiring workflow versions").
"""

import asyncio
import json
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
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from settings import PROJECT_ROOT
from tests.conftest import Turns, TurnWorker, outcome, unique
from workflows.chat_turn import DEPRECATED_PATCHES, ChatTurn
from workflows.turn.memory import CONTEXT_FOR_MODEL

LIVE_PATCHES = (CONTEXT_FOR_MODEL,)
"""The ChatTurn patches taken today (`workflow.patched`): a turn that drafts records each."""
BEFORE_DEPRECATION = "188abebbe8aef3847d450b21f6915979b3bd3536"
"""The last commit with every ChatTurn patch live (`workflow.patched`)."""
RUNNER = Path(__file__).with_name("previous_worker.py")


def checkout(commit: str, folder: Path) -> Path:
    """The tree of `commit`, from git history (skips where there is none)."""
    archived = subprocess.run(
        ["git", "archive", "--format=tar", commit],
        cwd=PROJECT_ROOT,
        capture_output=True,
        check=False,
    )
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
        sys.executable,
        RUNNER.name,
        target,
        client.namespace,
        queue,
        pool.conninfo,
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        line = await asyncio.wait_for(process.stdout.readline(), timeout=120)
        if line.strip() != b"ready":
            raise AssertionError((await process.stderr.read()).decode()[-3000:])
        yield
    finally:
        process.kill()
        await process.wait()


async def patch_markers(client: Client, workflow_id: str) -> dict[str, bool]:
    """Each patch marker's id, and whether it was recorded as deprecated."""
    found: dict[str, bool] = {}
    async for e in client.get_workflow_handle(workflow_id).fetch_history_events():
        attrs = e.marker_recorded_event_attributes
        if (
            e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
            and attrs.marker_name == "core_patch"
        ):
            for payload in attrs.details["patch-data"].payloads:
                data = json.loads(payload.data)
                found[data["id"]] = bool(data.get("deprecated"))
    return found


async def event_types(client: Client, workflow_id: str) -> Counter[str]:
    handle = client.get_workflow_handle(workflow_id)
    return Counter([EventType.Name(e.event_type) async for e in handle.fetch_history_events()])


async def test_turn_left_waiting_by_the_previous_code_completes_under_the_new_code(
    temporal_client: Client,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
    tmp_path: Path,
) -> None:
    tree = checkout(BEFORE_DEPRECATION, tmp_path)
    queue, index_queue = unique("upgrade"), unique("upgrade-index")
    t = turns_on(queue)
    # The previous worker has no index of its own: the turn's steps that need one run on
    # an index worker's queue (`TurnInput.index_task_queue`), as turn workers do.
    t.index_task_queue = index_queue
    activities = registry.activities(report_index, pool, OfflineEngine())
    async with Worker(temporal_client, task_queue=index_queue, activities=activities):
        async with previous_worker(tree, temporal_client, pool, queue):
            handle = await t.start("What was this company's revenue in FY2024?")
            waiting = await outcome(handle, 0)
        assert waiting.status == "needs_clarification", waiting
        async with Worker(
            temporal_client, task_queue=queue, workflows=[ChatTurn], activities=activities
        ):
            result = await t.reply(handle, waiting.clarification_round, "BHP")
    assert result.status == "answered", result
    assert "55,658" in (result.answer or "")
    # The previous code took every patch at the start; the new code deprecates them, so
    # the markers in the history are accepted and the turn runs the one code path left.
    # What the new code runs past the reply takes today's live patch.
    markers = await patch_markers(temporal_client, handle.id)
    assert set(markers) == {*DEPRECATED_PATCHES, *LIVE_PATCHES}
    assert not any(markers[p] for p in LIVE_PATCHES)


async def test_new_single_company_turn_runs_short_steps_locally_with_patches_deprecated(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    """A new turn records every patch as deprecated, with no version upsert, and leaves
    the worker only for retrieval: each other step is a local activity, one marker each."""
    async with turn_worker() as tq:
        t = Turns(temporal_client, pool, tq, tenant_id=unique("t"), answer_cache=True)
        result = await t.ask("What was BHP's revenue in FY2024?")
    assert result.status == "answered" and "55,658" in (result.answer or "")
    events = await event_types(temporal_client, result.turn_id)
    scheduled, markers = [], []
    async for e in temporal_client.get_workflow_handle(result.turn_id).fetch_history_events():
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled.append(e.activity_task_scheduled_event_attributes.activity_type.name)
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
            markers.append(e.marker_recorded_event_attributes.marker_name)
    assert scheduled == ["qdrant_search_chunks"], "only retrieval leaves the worker"
    assert set(markers) == {"core_local_activity", "core_patch"}
    assert {"qdrant_lookup_answer", "qdrant_save_answer"} <= await local_steps(
        temporal_client, result.turn_id
    )
    # A deprecated patch still leaves its marker, flagged deprecated (a worker of the
    # code before it could still replay this turn), but no version upsert; a live one
    # leaves its marker unflagged.
    assert await patch_markers(temporal_client, result.turn_id) == {
        **dict.fromkeys(DEPRECATED_PATCHES, True),
        **dict.fromkeys(LIVE_PATCHES, False),
    }
    # The commands, not the total: how many workflow tasks a turn takes depends on how
    # busy the machine is. 20 markers: the 7 deprecated patches' (they stay until their
    # calls are deleted), the live patch's and 12 local steps; 10 search-attribute
    # upserts: 9 of the turn's and the live patch's version (TemporalChangeVersion). An
    # added command shows here first.
    assert events["EVENT_TYPE_MARKER_RECORDED"] == 20, events
    assert events["EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES"] == 10, events


async def local_steps(client: Client, workflow_id: str) -> set[str]:
    """The activity types of a history's local-activity markers."""
    found: set[str] = set()
    async for e in client.get_workflow_handle(workflow_id).fetch_history_events():
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
            attrs = e.marker_recorded_event_attributes
            if attrs.marker_name == "core_local_activity":
                data = b"".join(p.data for p in attrs.details["data"].payloads)
                found |= {
                    n for n in ("qdrant_lookup_answer", "qdrant_save_answer") if n.encode() in data
                }
    return found


async def test_remote_model_steps_stay_regular_activities(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns], temporal_client: Client
) -> None:
    from datetime import timedelta

    from db import turns as turn_store
    from workflows.contracts import TurnInput
    from workflows.turn.budget import execution_timeout

    async with turn_worker() as tq:
        t = turns_on(tq)
        conversation = unique("c")
        async with t.pool.connection() as conn:
            alloc = await turn_store.allocate_turn(conn, conversation, None, "BHP revenue FY2024")
        handle = await temporal_client.start_workflow(
            ChatTurn.run,
            TurnInput(
                turn_id=alloc.turn_id,
                conversation_id=conversation,
                seq=alloc.seq,
                question="BHP revenue FY2024",
                engine_in_process=False,
            ),
            id=alloc.turn_id,
            task_queue=tq,
            execution_timeout=execution_timeout(timedelta(hours=1).total_seconds()),
        )
        result = await outcome(handle, 0)
    assert result.status == "answered"
    scheduled = set()
    async for e in handle.fetch_history_events():
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled.add(e.activity_task_scheduled_event_attributes.activity_type.name)
    assert {"llm_route_question", "llm_synthesize_answer", "llm_grade_answer"} <= scheduled
    assert "postgres_save_turn" not in scheduled, "PostgreSQL steps stay local"


async def test_a_relative_year_turn_the_previous_code_ran_replays_under_the_new_code(
    temporal_client: Client,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
    tmp_path: Path,
) -> None:
    """A follow-up saying its year in words ("and the previous year?"), run to the end by
    the code before the relative-years patch, replays under today's code. (Temporal does
    not compare an activity's input on replay, so this shows the commands agree, not the
    patch's answer: that is `tests/unit/test_carry.py`'s patch test. The patch keeps a
    turn resumed after a clarification on the reading it began with.)"""
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.worker import Replayer

    tree = checkout(BEFORE_DEPRECATION, tmp_path)
    queue, index_queue = unique("upgrade"), unique("upgrade-index")
    t = turns_on(queue)
    t.index_task_queue = index_queue
    conversation = unique("c")
    activities = registry.activities(report_index, pool, OfflineEngine())
    async with (
        Worker(temporal_client, task_queue=index_queue, activities=activities),
        previous_worker(tree, temporal_client, pool, queue),
    ):
        await t.ask("What was BHP's net debt in FY2025?", conversation)
        before = await t.ask("and the previous year?", conversation)
    assert before.status == "answered" and "FY2024" not in before.resolved_question
    history = await temporal_client.get_workflow_handle(before.turn_id).fetch_history()
    replayer = Replayer(workflows=[ChatTurn], data_converter=pydantic_data_converter)
    await replayer.replay_workflow(history)
