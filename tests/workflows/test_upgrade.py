"""The lean turn (short steps as local activities) without breaking turns already running.

A turn started by the previous ChatTurn and left waiting for a clarification must
complete under the new code: the new code replays its history (no `LEAN_TURN` patch
marker there) and keeps every step a regular activity for it. New turns record the
marker and run the short steps locally, in far fewer history events.
"""

import importlib.util
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

import worker as registry
from activities.engines.offline import OfflineEngine
from activities.reports import ReportIndex
from settings import PROJECT_ROOT
from tests.conftest import Turns, TurnWorker, outcome, unique
from workflows.chat_turn import LEAN_TURN, ChatTurn

PREVIOUS_CHAT_TURN = "9a594d30f667de64b5e985cf497c1e001a184c82"
"""The last commit whose ChatTurn ran every step as a regular activity."""


def previous_chat_turn(folder: Path) -> ModuleType:
    """The previous ChatTurn module, read from git history (skips where there is none)."""
    shown = subprocess.run(
        ["git", "show", f"{PREVIOUS_CHAT_TURN}:workflows/chat_turn.py"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if shown.returncode != 0:
        pytest.skip("this checkout has no git history with the previous ChatTurn")
    path = folder / "previous_chat_turn.py"
    path.write_text(shown.stdout)
    spec = importlib.util.spec_from_file_location("previous_chat_turn", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["previous_chat_turn"] = module
    spec.loader.exec_module(module)
    return module


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
    previous = previous_chat_turn(tmp_path)
    queue = unique("upgrade")
    activities = registry.activities(report_index, pool, OfflineEngine())
    t = turns_on(queue)
    async with Worker(
        temporal_client, task_queue=queue, workflows=[previous.ChatTurn],
        activities=activities, workflow_runner=UnsandboxedWorkflowRunner(),
    ):  # fmt: skip
        handle = await t.start("What was this company's revenue in FY2024?")
        waiting = await outcome(handle, 0)
    assert waiting.status == "needs_clarification"
    async with Worker(
        temporal_client, task_queue=queue, workflows=[ChatTurn], activities=activities
    ):
        result = await t.reply(handle, waiting.clarification_round, "BHP")
    assert result.status == "answered", result
    assert "55,658" in (result.answer or "")
    events = await event_types(temporal_client, handle.id)
    assert events["EVENT_TYPE_MARKER_RECORDED"] == 0, "the old turn must not take the new path"
    assert events["EVENT_TYPE_ACTIVITY_TASK_COMPLETED"] >= 8


async def test_new_single_company_turn_runs_short_steps_locally_in_at_most_30_events(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns], temporal_client: Client
) -> None:
    async with turn_worker() as tq:
        result = await turns_on(tq).ask("What was BHP's revenue in FY2024?")
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
    assert sum(events.values()) <= 30, events
    assert LEAN_TURN


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
