"""The chaos benchmark's checks after the run, in PostgreSQL and Temporal.

Exactly-once read straight from the turns and messages tables; the ChatTurn workflows
Temporal lists; and the timeouts and retries in the histories of the turns a fault caught.
"""

import asyncio
import contextlib
import time
from collections import Counter
from datetime import datetime
from typing import Any

import psycopg
from temporalio.api.enums.v1 import EventType, TimeoutType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client
from temporalio.service import RPCError

from bench.chaos.driver import TERMINAL, Turn
from bench.chaos.faults import connect_temporal
from settings import Settings

SLOW_ACTIVITY_SECONDS = 5.0


def check_database(
    database_url: str, turns: list[Turn]
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Exactly-once, read straight from PostgreSQL for the conversations the run used."""
    by_conversation = {t.conversation_id: t for t in turns}
    with psycopg.connect(database_url, autocommit=True) as conn:
        turn_rows = conn.execute(
            "SELECT conversation_id, turn_id, status FROM turns WHERE conversation_id = ANY(%s)",
            (list(by_conversation),),
        ).fetchall()
        message_rows = conn.execute(
            "SELECT conversation_id, turn_id, role, count(*) FROM messages"
            " WHERE conversation_id = ANY(%s) GROUP BY 1, 2, 3",
            (list(by_conversation),),
        ).fetchall()
    return _tally_rows(by_conversation, turn_rows, message_rows)


def _tally_rows(
    by_conversation: dict[str, Turn],
    turn_rows: list[tuple[Any, ...]],
    message_rows: list[tuple[Any, ...]],
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Row counts and problems: the rows of each turn, then messages of no known turn."""
    problems: list[dict[str, Any]] = []
    counts = Counter[str]()
    per_conversation: dict[str, list[tuple[str, str]]] = {}
    for conversation_id, turn_id, status in turn_rows:
        per_conversation.setdefault(conversation_id, []).append((turn_id, status))
    messages: dict[tuple[str, str], int] = {(r[1], r[2]): int(r[3]) for r in message_rows}
    counts["turn_rows"] = len(turn_rows)
    counts["message_rows"] = sum(messages.values())
    for conversation_id, turn in by_conversation.items():
        rows = per_conversation.get(conversation_id, [])
        _check_turn(conversation_id, turn, rows, messages, counts, problems)
    known = {t for rows in per_conversation.values() for t, _ in rows}
    for turn_id, role in messages:
        if turn_id not in known:
            counts["orphan_messages"] += 1
            problems.append({"problem": f"{role} message of an unknown turn", "turn_id": turn_id})
    return dict(counts), problems


def _check_turn(
    conversation_id: str,
    turn: Turn,
    rows: list[tuple[str, str]],
    messages: dict[tuple[str, str], int],
    counts: Counter[str],
    problems: list[dict[str, Any]],
) -> None:
    """One turn row per accepted turn (none for one never accepted), with its status."""
    if turn.turn_id is None:
        if rows:
            counts["rows_for_unaccepted"] += len(rows)
            problems.append(
                {
                    "problem": "turn rows for a turn the API never accepted",
                    "conversation_id": conversation_id,
                    "rows": rows,
                }
            )
        return
    if len(rows) > 1:
        counts["duplicated_turns"] += len(rows) - 1
        problems.append(
            {
                "problem": "more than one turn in the conversation",
                "conversation_id": conversation_id,
                "rows": rows,
            }
        )
    if turn.turn_id not in {r[0] for r in rows}:
        counts["missing_turns"] += 1
        problems.append(
            {"problem": "the accepted turn has no row", "turn_id": turn.turn_id, "rows": rows}
        )
    _check_rows(turn, rows, messages, counts, problems)


def _check_rows(
    turn: Turn,
    rows: list[tuple[str, str]],
    messages: dict[tuple[str, str], int],
    counts: Counter[str],
    problems: list[dict[str, Any]],
) -> None:
    """Each row of an accepted turn's conversation: the status served, and its messages."""
    for turn_id, status in rows:
        if turn_id == turn.turn_id and turn.status is not None and status != turn.status:
            counts["status_mismatches"] += 1
            problems.append(
                {
                    "problem": "stored status differs from the one served",
                    "turn_id": turn_id,
                    "stored": status,
                    "served": turn.status,
                }
            )
        _check_messages(turn_id, status, messages, counts, problems)


def _check_messages(
    turn_id: str,
    status: str,
    messages: dict[tuple[str, str], int],
    counts: Counter[str],
    problems: list[dict[str, Any]],
) -> None:
    """Exactly one user and one assistant message for a settled turn, none otherwise."""
    want = 1 if status in TERMINAL else 0
    for role in ("user", "assistant"):
        have = messages.get((turn_id, role), 0)
        if have > want:
            counts["duplicated_messages"] += have - want
            problems.append(
                {
                    "problem": f"{have} {role} messages, expected {want}",
                    "turn_id": turn_id,
                    "status": status,
                }
            )
        elif have < want:
            counts["missing_messages"] += want - have
            problems.append(
                {
                    "problem": f"{have} {role} messages, expected {want}",
                    "turn_id": turn_id,
                    "status": status,
                }
            )


async def check_temporal(settings: Settings, caught: list[str]) -> dict[str, Any]:
    """ChatTurn workflows that did not complete, and what the caught turns waited for.

    For each turn a fault caught in flight, its history names the timeouts and failures
    it went through: they are why a turn took long to settle after the fault.
    """
    client = await connect_temporal(settings)
    by_status: Counter[str] = Counter()
    not_completed: list[dict[str, str]] = []
    async for wf in client.list_workflows("WorkflowType = 'ChatTurn'"):
        name = wf.status.name if wf.status is not None else "UNKNOWN"
        if name == "RUNNING":
            # The list is read from visibility, which lags: a turn that settled a moment
            # ago may still be listed as running. Its own description is current.
            name = await _current_status(client, wf.id)
        by_status[name] += 1
        if name != "COMPLETED":
            not_completed.append({"workflow_id": wf.id, "status": name})
    delays: dict[str, list[str]] = {}
    for workflow_id in caught:
        with contextlib.suppress(RPCError):
            delays[workflow_id] = await _delays(client, workflow_id)
    return {"by_status": dict(by_status), "not_completed": not_completed, "delays": delays}


async def _current_status(client: Client, workflow_id: str, wait: float = 10.0) -> str:
    """The workflow's status from its own description, given `wait` seconds to finish."""
    deadline = time.monotonic() + wait
    while True:
        description = await client.get_workflow_handle(workflow_id).describe()
        status = description.status
        name = status.name if status is not None else "UNKNOWN"
        if name != "RUNNING" or time.monotonic() > deadline:
            return name
        await asyncio.sleep(0.5)


def _timeout(failure: Any) -> str:
    kind = TimeoutType.Name(failure.timeout_failure_info.timeout_type)
    return str(kind.removeprefix("TIMEOUT_TYPE_"))


async def _delays(client: Client, workflow_id: str) -> list[str]:
    """The timeouts, retries and failures in one workflow's history, one line each:
    what happened, then " — " and the details (attempt, seconds since it was scheduled).
    """
    history = _History()
    async for e in client.get_workflow_handle(workflow_id).fetch_history_events():
        history.read(e)
    return history.found


class _History:
    """The lines `_delays` finds, read one history event at a time."""

    def __init__(self) -> None:
        self.scheduled: dict[int, tuple[str, datetime]] = {}
        self.retried: dict[int, int] = {}  # scheduled event id -> index in `found`
        self.found: list[str] = []

    def read(self, e: HistoryEvent) -> None:
        when = e.event_time.ToDatetime()
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            name = e.activity_task_scheduled_event_attributes.activity_type.name
            self.scheduled[e.event_id] = (name, when)
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            self._started(e, when)
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            self._completed(e, when)
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
            attrs = e.activity_task_timed_out_event_attributes
            name, at = self.scheduled.get(attrs.scheduled_event_id, ("?", when))
            self.found.append(
                f"activity {name} timed out ({_timeout(attrs.failure)}) —"
                f" {(when - at).total_seconds():.1f} s after it was scheduled"
            )
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
            attrs_f = e.activity_task_failed_event_attributes
            name, _ = self.scheduled.get(attrs_f.scheduled_event_id, ("?", when))
            self.found.append(f"activity {name} failed — {attrs_f.failure.message[:100]}")
        elif e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
            kind = TimeoutType.Name(e.workflow_task_timed_out_event_attributes.timeout_type)
            self.found.append(f"workflow task timed out ({kind.removeprefix('TIMEOUT_TYPE_')})")
        elif e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
            cause = e.workflow_task_failed_event_attributes.failure.message[:100]
            self.found.append(f"workflow task failed — {cause}")

    def _started(self, e: HistoryEvent, when: datetime) -> None:
        # A retried attempt shows only here (its attempt number and the failure or
        # timeout that ended the attempt before it), not as events of its own.
        started = e.activity_task_started_event_attributes
        if started.attempt > 1:
            name, at = self.scheduled.get(started.scheduled_event_id, ("?", when))
            last = started.last_failure
            why = (
                f"a {_timeout(last)} timeout"
                if last.HasField("timeout_failure_info")
                else "a failure"
            )
            self.retried[started.scheduled_event_id] = len(self.found)
            self.found.append(
                f"activity {name} retried after {why} — attempt {started.attempt} started"
                f" {(when - at).total_seconds():.1f} s after it was scheduled;"
                f" {last.message[:100]}"
            )

    def _completed(self, e: HistoryEvent, when: datetime) -> None:
        sid = e.activity_task_completed_event_attributes.scheduled_event_id
        name, at = self.scheduled.get(sid, ("?", when))
        took = (when - at).total_seconds()
        if sid in self.retried:
            self.found[self.retried[sid]] += f"; completed {took:.1f} s after"
        elif took > SLOW_ACTIVITY_SECONDS:
            # One attempt that neither failed nor timed out, but waited (for a
            # connection, a lock, a restarted worker) before it completed.
            self.found.append(
                f"activity {name} took over {SLOW_ACTIVITY_SECONDS:.0f} s in one"
                f" attempt — completed {took:.1f} s after it was scheduled"
            )
