"""Durability on the real embedded stack: a waiting turn survives `down`/`up`, and a
worker killed with SIGKILL mid-turn loses nothing and repeats no completed step."""

import asyncio
import json
import os
import signal
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from stack.processes import read_pid
from tests.e2e.test_stack import TURNSTILE, stack_env, turnstile

Env = dict[str, str]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    env, _ = stack_env(tmp_path_factory.mktemp("durable-home"))
    up = turnstile(env, "up", "--detach", timeout=300)
    assert up.returncode == 0, up.stdout + up.stderr
    yield env
    turnstile(env, "down", timeout=120)


def post_turn(env: Env, question: str, conversation: str) -> dict[str, object]:
    response = httpx.post(
        f"{env['TURNSTILE_API_URL']}/v1/turns",
        json={"question": question, "conversation_id": conversation},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


def messages(env: Env, conversation: str) -> list[dict[str, object]]:
    url = f"{env['TURNSTILE_API_URL']}/v1/conversations/{conversation}/messages"
    body: list[dict[str, object]] = httpx.get(url, timeout=10).json()
    return body


def test_turn_waiting_for_clarification_survives_down_and_up(stack: Env) -> None:
    conversation = f"d{uuid.uuid4().hex[:8]}"
    waiting = post_turn(stack, "What was this company's revenue in FY2024?", conversation)
    assert waiting["status"] == "needs_clarification"
    down = turnstile(stack, "down", timeout=120)
    assert down.returncode == 0, down.stderr
    up = turnstile(stack, "up", "--detach", timeout=300)
    assert up.returncode == 0, up.stdout + up.stderr
    replied = turnstile(stack, "reply", str(waiting["turn_id"]), "Fortescue", "--json", timeout=180)
    assert replied.returncode == 0, replied.stderr
    result = json.loads(replied.stdout)
    assert result["status"] == "answered"
    assert "What was this company's revenue in FY2024?" in result["resolved_question"]
    assert "Fortescue" in result["resolved_question"]
    assert "18.22" in result["answer"]
    assert [m["role"] for m in messages(stack, conversation)] == ["user", "assistant"]


def local_steps(events: list[Any]) -> list[tuple[str, str]]:
    """(activity id, step name) of every local activity recorded in a history."""
    found = []
    for e in events:
        if e.event_type != EventType.EVENT_TYPE_MARKER_RECORDED:
            continue
        attrs = e.marker_recorded_event_attributes
        if attrs.marker_name == "core_local_activity":
            data = json.loads(attrs.details["data"].payloads[0].data)
            found.append((str(data["activity_id"]), str(data["activity_type"])))
    return found


async def _history_events(client: Client, workflow_id: str) -> list[object]:
    return [e async for e in client.get_workflow_handle(workflow_id).fetch_history_events()]


def test_worker_killed_mid_turn_resumes_without_repeating_completed_activities(
    stack: Env,
) -> None:
    conversation = f"k{uuid.uuid4().hex[:8]}"
    turn_id = f"turn-{conversation}-1"
    ask = subprocess.Popen(
        [
            TURNSTILE,
            "ask",
            "Compare the revenue of all five companies in FY2024",
            "--conversation",
            conversation,
            "--json",
            "--timeout",
            "240",
        ],
        env=stack,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    async def kill_when_retrieval_is_scheduled() -> tuple[int, set[int]]:
        client = await Client.connect(
            f"127.0.0.1:{stack['TURNSTILE_TEMPORAL_PORT']}", data_converter=pydantic_data_converter
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                events = await _history_events(client, turn_id)
            except Exception:  # the workflow may not exist yet
                await asyncio.sleep(0.005)
                continue
            scheduled = {
                e.event_id: e.activity_task_scheduled_event_attributes.activity_type.name
                for e in events
                if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            }
            if "qdrant_search_chunks" in scheduled.values():
                pid = read_pid(Path(stack["TURNSTILE_HOME"]) / "run" / "worker.pid")
                assert pid is not None
                os.kill(pid, signal.SIGKILL)
                done = {
                    e.activity_task_completed_event_attributes.scheduled_event_id
                    for e in events
                    if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
                }
                return len(events), done, local_steps(events)
            await asyncio.sleep(0.005)
        raise AssertionError("retrieval was never scheduled")

    events_at_kill, completed_before_kill, local_before_kill = asyncio.run(
        kill_when_retrieval_is_scheduled()
    )
    restarted = turnstile(stack, "up", "--detach", timeout=300)
    assert restarted.returncode == 0, restarted.stdout + restarted.stderr
    out, err = ask.communicate(timeout=300)
    assert ask.returncode == 0, err
    result = json.loads(out)
    assert result["status"] == "answered"
    assert set(result["coverage"]) == {"BHP", "RIO", "FMG", "S32", "NST"}

    async def history() -> list[object]:
        client = await Client.connect(
            f"127.0.0.1:{stack['TURNSTILE_TEMPORAL_PORT']}", data_converter=pydantic_data_converter
        )
        return await _history_events(client, turn_id)

    events = asyncio.run(history())
    assert len(events) > events_at_kill
    starts = {
        e.activity_task_started_event_attributes.scheduled_event_id: e.activity_task_started_event_attributes.attempt  # noqa: E501
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    }
    completions = Counter(
        e.activity_task_completed_event_attributes.scheduled_event_id
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
    )
    assert completed_before_kill or local_before_kill, "some steps had completed before the kill"
    for scheduled_id in completed_before_kill:
        assert starts[scheduled_id] == 1, "a completed activity ran again"
    assert all(n == 1 for n in completions.values())
    recorded = Counter(local_steps(events))
    assert set(local_before_kill) <= set(recorded), "a recorded local step was lost"
    assert all(n == 1 for n in recorded.values()), "a local step was recorded twice"
    assert [m["role"] for m in messages(stack, conversation)] == ["user", "assistant"]


# ---- the CLI against the same stack -------------------------------------------------------


def test_ask_json_prints_exactly_one_turn_result_object(stack: Env) -> None:
    done = turnstile(stack, "ask", "What was Northern Star's revenue in FY2024?", "--json")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["status"] == "answered" and "4.92" in result["answer"]


def test_ask_prints_a_refusal_and_still_exits_zero(stack: Env) -> None:
    done = turnstile(stack, "ask", "Should I buy Fortescue shares?")
    assert done.returncode == 0
    assert "investment advice" in done.stdout


def test_ask_with_an_empty_question_exits_2_with_one_line(stack: Env) -> None:
    done = turnstile(stack, "ask", "   ")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_reply_to_an_unknown_turn_exits_2_with_one_line(stack: Env) -> None:
    done = turnstile(stack, "reply", "turn-nobody-1", "BHP")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no turn" in done.stderr


def test_ask_with_the_api_unreachable_exits_3_with_one_line(stack: Env) -> None:
    from stack.processes import free_port

    env = {**stack, "TURNSTILE_API_URL": f"http://127.0.0.1:{free_port()}"}
    done = turnstile(env, "ask", "What was BHP's revenue in FY2024?")
    assert done.returncode == 3
    assert done.stderr.strip().count("\n") == 0 and "cannot reach the API" in done.stderr


def test_cancel_frees_a_conversation_waiting_for_a_clarification(stack: Env) -> None:
    conversation = f"x{uuid.uuid4().hex[:8]}"
    waiting = post_turn(stack, "Tell me about this company", conversation)
    assert waiting["status"] == "needs_clarification"
    done = turnstile(stack, "cancel", str(waiting["turn_id"]), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "cancelled"
    again = turnstile(stack, "cancel", str(waiting["turn_id"]))
    assert again.returncode == 2 and again.stderr.strip().count("\n") == 0
    assert "cancelled" in again.stderr
    nxt = post_turn(stack, "What was BHP's revenue in FY2024?", conversation)
    assert nxt["status"] == "answered"


def test_ask_that_does_not_settle_in_time_exits_4(stack: Env) -> None:
    pid = read_pid(Path(stack["TURNSTILE_HOME"]) / "run" / "worker.pid")
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # no worker: the turn cannot settle
    done = turnstile(stack, "ask", "What was BHP's revenue in FY2023?", "--timeout", "2")
    assert done.returncode == 4, done.stderr
    assert done.stderr.strip().count("\n") == 0
