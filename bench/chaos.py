"""Chaos benchmark: every turn settles exactly once while the stack is knocked over.

    .venv/bin/python -m bench.chaos [--turns 200] [--kills 6] [--concurrency 8] [--seed 1]
                                    [--arrivals 2] [--settle-timeout 180] [--json] [--home DIR]

It starts its own embedded stack (a temporary TURNSTILE_HOME, free loopback ports, its own
task queue), so it never touches a developer's stack or a system PostgreSQL, and stops it
at the end. Then:

1. Baseline: each question of `QUESTIONS` once, in a new conversation, with no faults.
   The workflow is deterministic for a given corpus, so the baseline is the expected
   status and answer text of every later turn asking the same question.
2. Chaos: `--turns` turns (each in its own conversation), `--concurrency` at a time,
   through the HTTP API as a careful client would drive them: one `Idempotency-Key` per
   turn, the POST resent unchanged on 5xx and transport errors; 202 answers polled on
   `GET /v1/turns/{id}`; clarifying questions answered through
   `POST /v1/turns/{id}/clarification`. Meanwhile, one fault at a time at seeded random
   moments: `--kills` SIGKILLs of the worker (restarted at once), one PostgreSQL outage
   (10-20 s) and one restart of the Temporal dev server. While each component is down,
   `--arrivals` more turns are sent; once settled, each of those is POSTed again, same
   key, and must come back as the same turn.
3. Checks: turns lost (accepted, never settled within `--settle-timeout` after the last
   fault), PostgreSQL rows (exactly one turn per conversation, exactly one user and one
   assistant message per settled turn, none for an unsettled one), answers differing
   from the baseline, ChatTurn workflows left open or failed in Temporal; and timings:
   from each fault to the settling of the turns it caught in flight (with the timeouts
   and retries their histories show), worker restart, and how long the API kept failing
   after each component came back.

The exit code is 1 when a turn was lost, duplicated, missing a message, differing,
never accepted or answered as another turn on a replay, or a fault could not be undone;
2 when the benchmark itself could not run (stack start-up, baseline).
"""

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg
from temporalio.api.enums.v1 import EventType, TaskQueueType, TimeoutType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.service import RPCError

import payloads
from bench import common
from bench.common import percentile
from domain.turns import SETTLED, WAITING
from settings import Settings
from stack import embedded, postgres
from stack.processes import StackError, pid_alive, read_pid, signal_tree, stop_pid

# "failed" and "cancelled" are listed here as well so that the benchmark counts them as
# settled whether or not the contract it runs against has them yet.
TERMINAL: frozenset[str] = frozenset(SETTLED) | {"failed", "cancelled"}
WORKER_READY_LINE = b"worker polling"
SLOW_ACTIVITY_SECONDS = 5.0


@dataclass(frozen=True)
class Question:
    """One question of the mix; `reply` answers its clarifying question, if it asks one."""

    kind: str
    text: str
    reply: str | None = None
    expected: str = "answered"


QUESTIONS: tuple[Question, ...] = (
    Question("figure", "What was BHP's revenue in FY2024?"),
    Question("figure", "What was Fortescue's net debt in FY2023?"),
    Question("figure", "What was South32's underlying EBITDA in FY2025?"),
    Question("figure", "What was Northern Star's revenue in FY2024?"),
    Question("figure", "What was Rio Tinto's net earnings in FY2023?"),
    Question("comparison", "Compare the revenue of BHP, Rio Tinto and Fortescue in FY2024"),
    Question("comparison", "Compare net debt of BHP, Fortescue and South32 in FY2025"),
    Question("comparison", "Compare the revenue of all five companies in FY2024"),
    Question("refusal", "Should I buy BHP shares?", expected="refused"),
    Question("refusal", "Write a poem about Fortescue", expected="refused"),
    Question("refusal", "What is the capital of France?", expected="refused"),
    Question("clarification", "Tell me about this company", "BHP FY2024"),
    Question("clarification", "What was this company's revenue in FY2024?", "Fortescue"),
)


# ---- the isolated stack ---------------------------------------------------------------


def isolated_settings(home: Path) -> Settings:
    return common.isolated_settings(home, "chaos")


# ---- turns ----------------------------------------------------------------------------


@dataclass
class Turn:
    """One turn as the client saw it; times are seconds since the run's start."""

    index: int
    question: Question
    conversation_id: str
    idempotency_key: str
    turn_id: str | None = None
    sent_at: float | None = None
    accepted_at: float | None = None
    settled_at: float | None = None
    status: str | None = None
    answer: str | None = None
    clarification_round: int = 0
    outcome: str = "pending"  # settled | lost | unaccepted | rejected | not_sent
    asked_clarification: bool = False
    replay: str | None = None  # what a second, identical POST got back
    polls: int = 0
    http: Counter[str] = field(default_factory=Counter)

    @property
    def in_flight(self) -> bool:
        return self.sent_at is not None and self.outcome == "pending"


@dataclass
class HttpEvent:
    """A response the client had to retry or could not use (5xx, 4xx, transport error)."""

    at: float
    route: str
    code: str
    turn_index: int
    turn_id: str | None
    detail: str
    seconds: float | None = None
    """How long the API took to give this answer (None for a transport error)."""


def _done(data: dict[str, Any], after_round: int) -> bool:
    status = data.get("status")
    if status in TERMINAL:
        return True
    return status == WAITING and int(data.get("clarification_round", 0)) > after_round


class Driver:
    """Drives turns through the HTTP API like a careful client, timing everything."""

    def __init__(self, api_url: str, settle_timeout: float, hard_deadline: float) -> None:
        self.http = httpx.AsyncClient(
            base_url=api_url, timeout=httpx.Timeout(60.0, connect=5.0), trust_env=False
        )
        self.t0 = time.monotonic()
        self.settle_timeout = settle_timeout
        self.hard_deadline = hard_deadline
        # Until every fault is over, no turn may be given up on: a deadline only starts
        # once the stack is whole again (or, for a later turn, once it was sent).
        self.faults_over = False
        self.last_fault_end = 0.0
        self.events: list[HttpEvent] = []
        self.poll_interval = 0.25

    def now(self) -> float:
        return time.monotonic() - self.t0

    def _expired(self, turn: Turn) -> bool:
        now = self.now()
        if now > self.hard_deadline:
            return True
        if not self.faults_over:
            return False
        return now > max(self.last_fault_end, turn.sent_at or 0.0) + self.settle_timeout

    def _event(
        self, turn: Turn, route: str, code: str, detail: str, seconds: float | None = None
    ) -> None:
        turn.http[f"{route} {code}"] += 1
        self.events.append(
            HttpEvent(self.now(), route, code, turn.index, turn.turn_id, detail, seconds)
        )

    async def _call(
        self, turn: Turn, method: str, url: str, route: str, **kwargs: Any
    ) -> httpx.Response | None:
        """Send until the API answers below 500; None once the turn's deadline passed.

        Retrying a POST is safe only because it is resent unchanged (same body, same
        Idempotency-Key): the API must answer it with the turn it already started.
        """
        backoff = 0.25
        while not self._expired(turn):
            sent = time.monotonic()
            try:
                response = await self.http.request(method, url, **kwargs)
            except httpx.TransportError as exc:
                self._event(turn, route, type(exc).__name__, str(exc)[:200])
            else:
                if response.status_code < 500:
                    return response
                self._event(
                    turn, route, str(response.status_code), response.text[:300],
                    round(time.monotonic() - sent, 3),
                )  # fmt: skip
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 2.0)
        return None

    async def _poll(
        self, turn: Turn, data: dict[str, Any], after_round: int
    ) -> dict[str, Any] | None:
        """Poll GET /v1/turns/{id} until the turn settles or asks after `after_round`."""
        while not _done(data, after_round):
            if self._expired(turn):
                return None
            await asyncio.sleep(self.poll_interval)
            turn.polls += 1
            response = await self._call(
                turn, "GET", f"/v1/turns/{turn.turn_id}", "GET /v1/turns/{id}"
            )
            if response is None:
                return None
            if response.status_code != 200:
                self._event(turn, "GET /v1/turns/{id}", str(response.status_code), response.text)
                continue
            data = response.json()
        return data

    async def _reply(self, turn: Turn, data: dict[str, Any]) -> dict[str, Any] | None:
        assert turn.question.reply is not None and turn.turn_id is not None
        asked = int(data.get("clarification_round", 0))
        route = "POST /v1/turns/{id}/clarification"
        while True:
            response = await self._call(
                turn,
                "POST",
                f"/v1/turns/{turn.turn_id}/clarification",
                route,
                json={"reply": turn.question.reply},
            )
            if response is None:
                return None
            if response.status_code in (200, 202):
                turn.http[f"{route} {response.status_code}"] += 1
                data = response.json()
                break
            self._event(turn, route, str(response.status_code), response.text[:300])
            if response.status_code != 409:
                turn.outcome = "rejected"
                return None
            # 409 NotWaiting: an earlier attempt (answered 5xx) may have been delivered.
            # Read the turn: still waiting on the same round means the reply was not
            # taken, so it is sent again; anything else means it was.
            current = await self._call(
                turn, "GET", f"/v1/turns/{turn.turn_id}", "GET /v1/turns/{id}"
            )
            if current is None:
                return None
            data = current.json()
            if data.get("status") != WAITING or int(data.get("clarification_round", 0)) != asked:
                break
            await asyncio.sleep(self.poll_interval)
        return await self._poll(turn, data, asked)

    async def drive(self, turn: Turn, replay: bool = False) -> None:
        """Send one turn and follow it until it settles (or its deadline passes).

        With `replay`, the same POST is sent once more after the turn settled, as a
        client whose first answer got lost would: the API must answer with this turn.
        """
        body = {"question": turn.question.text, "conversation_id": turn.conversation_id}
        headers = {"Idempotency-Key": turn.idempotency_key}
        turn.sent_at = self.now()
        response = await self._call(
            turn, "POST", "/v1/turns", "POST /v1/turns", json=body, headers=headers
        )
        if response is None:
            turn.outcome = "unaccepted"
            return
        if response.status_code not in (200, 202):
            self._event(turn, "POST /v1/turns", str(response.status_code), response.text[:300])
            turn.outcome = "rejected"
            return
        data: dict[str, Any] | None = response.json()
        assert data is not None
        turn.http[f"POST /v1/turns {response.status_code}"] += 1
        turn.turn_id = str(data["turn_id"])
        turn.accepted_at = self.now()
        data = await self._poll(turn, data, 0)
        if data is not None and data.get("status") == WAITING and turn.question.reply:
            turn.asked_clarification = True
            data = await self._reply(turn, data)
        if data is None:
            if turn.outcome == "pending":
                turn.outcome = "lost"
            return
        turn.settled_at = self.now()
        turn.status = str(data.get("status"))
        turn.answer = data.get("answer")
        turn.clarification_round = int(data.get("clarification_round", 0))
        turn.outcome = "settled"
        if replay:
            again = await self._call(
                turn, "POST", "/v1/turns", "POST /v1/turns", json=body, headers=headers
            )
            code = "none" if again is None else str(again.status_code)
            same = again is not None and again.json().get("turn_id") == turn.turn_id
            turn.replay = f"{code} {'same turn' if same else 'ANOTHER TURN OR NO ANSWER'}"


async def drive_all(
    driver: Driver,
    pending: list[Turn],
    concurrency: int,
    may_send: Callable[[int], bool] | None = None,
) -> None:
    """Drive the turns of `pending` (last first), `concurrency` at a time; a turn whose
    index `may_send` refuses waits until it allows it. Others may take turns from
    `pending` too."""

    async def lane() -> None:
        while pending:
            turn = pending.pop()
            while may_send is not None and not may_send(turn.index):
                await asyncio.sleep(0.02)
            if driver.now() > driver.hard_deadline:
                turn.outcome = "not_sent"  # the run's hard cap passed: send no more
                continue
            await driver.drive(turn)

    await asyncio.gather(*(lane() for _ in range(concurrency)))


# ---- faults ---------------------------------------------------------------------------


@dataclass
class Fault:
    """One injected fault; times are seconds since the run's start."""

    kind: str  # worker_kill | postgres_outage | temporal_restart
    trigger: int  # injected once this many turns were sent (plus a random delay)
    gate: int  # turns from this index on wait until the turns this fault caught settled
    target: str = "worker"  # worker_kill: which worker (`worker-2`...: a turn worker)
    at: float | None = None
    recovered_at: float | None = None
    restart_seconds: float | None = None  # worker: spawn until it polls the task queue
    held_seconds: float | None = None  # postgres: how long it stayed down
    in_flight: list[int] = field(default_factory=list)
    in_flight_turn_ids: list[str | None] = field(default_factory=list)
    arrivals: list[int] = field(default_factory=list)  # turns sent while it was down
    arrival_settle_seconds: list[float] = field(default_factory=list)  # sent to settled
    settle_seconds: list[float] = field(default_factory=list)
    unsettled: list[int] = field(default_factory=list)
    slowest: dict[str, Any] | None = None  # the caught turn that settled last
    # Seconds from restoring the component until the API answers 200 again, by probe.
    api_ok_after: dict[str, float] = field(default_factory=dict)
    error: str | None = None


class Injector:
    """Injects faults one at a time, each after its trigger, and restores the stack."""

    def __init__(
        self,
        settings: Settings,
        driver: Driver,
        turns: list[Turn],
        pending: list[Turn],
        faults: list[Fault],
        rng: random.Random,
        arrivals: int,
        say: Callable[[str], None],
        probe_turn_id: str,
    ) -> None:
        self.settings = settings
        self.paths = embedded.Paths(settings.home)
        self.driver = driver
        self.turns = turns
        self.faults = faults
        self.rng = rng
        self.armed = 0
        self.pending = pending
        self.arrivals = arrivals
        self.arrival_tasks: list[asyncio.Task[None]] = []
        self.say = say
        self.probe_turn_id = probe_turn_id

    def _sent(self) -> int:
        return sum(1 for t in self.turns if t.sent_at is not None)

    def _all_done(self) -> bool:
        return all(t.outcome != "pending" for t in self.turns)

    def may_send(self, index: int) -> bool:
        """Whether turn `index` may be sent: not beyond the gate of the fault now armed.

        The next segment opens only once the previous fault's turns settled, so the
        next fault's trigger is reached by turns sent after that and finds them in flight.
        """
        return self.armed >= len(self.faults) or index < self.faults[self.armed].gate

    def _in_flight(self) -> list[Turn]:
        return [t for t in self.turns if t.in_flight]

    async def run(self) -> None:
        try:
            for fault in self.faults:
                while self._sent() < fault.trigger and not self._all_done():
                    await asyncio.sleep(0.02)
                if self.driver.now() > self.driver.hard_deadline:
                    break
                # A random delay, so that the fault lands at a random step of the turns,
                # cut short once the lanes have sent the whole segment (from then on they
                # only drain) or only one turn is left in flight: a fault that catches no
                # turn measures nothing.
                until = self.driver.now() + self.rng.uniform(0.0, 1.5)
                while (
                    self.driver.now() < until
                    and self._sent() < fault.gate
                    and len(self._in_flight()) > 1
                ):
                    await asyncio.sleep(0.01)
                fault.in_flight = [t.index for t in self._in_flight()]
                fault.at = self.driver.now()
                self.say(
                    f"fault {self.armed + 1}/{len(self.faults)}: {fault.kind} at {fault.at:.1f} s,"
                    f" {len(fault.in_flight)} turns in flight, {self._sent()} sent"
                )
                try:
                    await self._inject(fault)
                except (StackError, OSError, RuntimeError, subprocess.SubprocessError) as exc:
                    # No further faults on a stack we could not restore; the turns still
                    # run to their deadlines and the report shows what that cost.
                    fault.error = f"{type(exc).__name__}: {exc}"
                    break
                finally:
                    fault.recovered_at = self.driver.now()
                    self.driver.last_fault_end = fault.recovered_at
                await self._probe(fault)
                # Wait for the turns this fault caught (bounded) before the next one, so
                # that each fault-to-settle time measures one fault, not several.
                caught = [self.turns[i] for i in fault.in_flight + fault.arrivals]
                limit = self.driver.now() + 90.0
                while any(t.outcome == "pending" for t in caught) and self.driver.now() < limit:
                    await asyncio.sleep(0.05)
                self.armed += 1
        finally:
            self.armed = len(self.faults)
            self.driver.faults_over = True
            await asyncio.gather(*self.arrival_tasks)

    async def _probe(self, fault: Fault) -> None:
        """Time from the restored component to a green /healthz, and to the API reading
        a turn from PostgreSQL again: how long the API keeps failing after the fault."""
        assert fault.recovered_at is not None
        http = self.driver.http
        pending = {"healthz": "/healthz", "read": f"/v1/turns/{self.probe_turn_id}"}
        while pending and self.driver.now() < fault.recovered_at + 120:
            for name, url in list(pending.items()):
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(url, timeout=5.0)).status_code == 200:
                        fault.api_ok_after[name] = round(self.driver.now() - fault.recovered_at, 2)
                        del pending[name]
            await asyncio.sleep(0.25)

    def _arrive(self, fault: Fault) -> None:
        """Send the next few turns now, while the component is down: new traffic during
        an outage is what exercises the API's 503s and the idempotent retries."""
        for _ in range(min(self.arrivals, len(self.pending))):
            turn = self.pending.pop()
            fault.arrivals.append(turn.index)
            self.arrival_tasks.append(asyncio.create_task(self.driver.drive(turn, replay=True)))

    async def _inject(self, fault: Fault) -> None:
        if fault.kind == "worker_kill":
            await asyncio.to_thread(self._kill_worker, fault.target)
            self._arrive(fault)
            fault.restart_seconds = await self._start_worker(fault.target)
        elif fault.kind == "postgres_outage":
            await asyncio.to_thread(postgres.stop, self.paths.pgdata)
            self._arrive(fault)
            hold = self.rng.uniform(10.0, 20.0)
            await asyncio.sleep(hold)
            await asyncio.to_thread(embedded.start_postgres, self.settings, self.paths)
            fault.held_seconds = self.driver.now() - (fault.at or 0.0)
        elif fault.kind in ("postgres_stall", "temporal_stall"):
            # Stopped, not gone: the processes keep their sockets open and answer
            # nothing, so only the API's own bounds end a request's wait.
            if fault.kind == "postgres_stall":
                pid = postgres.pid(self.paths.pgdata)
            else:
                pid = read_pid(self.paths.pid_file("temporal"))
            if pid is None:
                raise StackError(f"no pid to stall for {fault.kind}")
            await asyncio.to_thread(signal_tree, pid, signal.SIGSTOP)
            try:
                self._arrive(fault)
                await asyncio.sleep(self.rng.uniform(8.0, 15.0))
            finally:
                await asyncio.to_thread(signal_tree, pid, signal.SIGCONT)
            fault.held_seconds = self.driver.now() - (fault.at or 0.0)
        elif fault.kind == "temporal_restart":
            pid = read_pid(self.paths.pid_file("temporal"))
            if pid is None:
                raise StackError("no Temporal pid file")
            await asyncio.to_thread(stop_pid, pid, 20.0, signal.SIGINT)
            self._arrive(fault)
            await asyncio.to_thread(embedded.start_temporal, self.settings, self.paths)
        else:
            raise ValueError(fault.kind)

    def _kill_worker(self, name: str = "worker") -> None:
        pid = read_pid(self.paths.pid_file(name))
        if pid is None or not pid_alive(pid):
            raise StackError("the worker is not running")
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)

    async def _start_worker(self, name: str = "worker") -> float:
        """Start the worker exactly as `turnstile up` does; return seconds until it polls.

        Spawning it is cheaper than `embedded.up`, which would also re-run the corpus
        ingestion and wait for a green /healthz. It can take work again once Temporal
        lists it as a poller of the task queue (the SDK's identity is `pid@host`), or
        once its log says it polls, whichever is seen first.
        """
        log = self.paths.logs / f"{name}.log"
        mark = log.stat().st_size if log.exists() else 0
        started = time.monotonic()
        turn_worker = name != "worker"
        args = [sys.executable, "worker.py", *(["--role", "turn"] if turn_worker else [])]
        queue = self.settings.turn_task_queue if turn_worker else self.settings.task_queue
        pid = await asyncio.to_thread(embedded._spawn, self.paths, name, args)
        client = await _temporal(self.settings)
        while time.monotonic() < started + 180:
            with open(log, "rb") as f:
                f.seek(mark)
                if WORKER_READY_LINE in f.read():
                    return time.monotonic() - started
            with contextlib.suppress(RPCError):
                response = await client.workflow_service.describe_task_queue(
                    DescribeTaskQueueRequest(
                        namespace=self.settings.temporal_namespace,
                        task_queue=TaskQueue(name=queue),
                        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
                    )
                )
                if any(p.identity.startswith(f"{pid}@") for p in response.pollers):
                    return time.monotonic() - started
            if not pid_alive(pid):
                raise StackError(f"the restarted worker exited; see {log}")
            await asyncio.sleep(0.1)
        raise StackError("the restarted worker did not poll within 180 s")


async def _temporal(settings: Settings) -> Client:
    return await Client.connect(
        settings.effective_temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=payloads.data_converter(settings),
    )


def plan_faults(turns: int, kills: int, rng: random.Random, workers: int = 1) -> list[Fault]:
    """One fault per segment of the turns, in a seeded random order.

    The turns are cut into len(faults) + 1 segments; fault i fires once a random number of
    segment i's turns were sent, and no turn of the next segment is sent before the turns
    it caught settled. So every fault finds turns in flight, however fast the turns are,
    and the last segment runs against a recovered stack.
    """
    kinds = ["worker_kill"] * kills + [
        "postgres_outage", "postgres_stall", "temporal_restart", "temporal_stall",
    ]  # fmt: skip
    rng.shuffle(kinds)
    size = turns / (len(kinds) + 1)
    faults = []
    # With turn workers, the kills take them in turn (the index holder's kill is the
    # one-worker run's): a killed one's turns settle on the others.
    targets = [f"worker-{n}" for n in range(2, workers + 1)] or ["worker"]
    kills_so_far = 0
    for i, kind in enumerate(kinds):
        start, gate = round(i * size), max(round((i + 1) * size), round(i * size) + 1)
        fault = Fault(kind, trigger=rng.randint(start + 1, gate), gate=gate)
        if kind == "worker_kill":
            fault.target = targets[kills_so_far % len(targets)]
            kills_so_far += 1
        faults.append(fault)
    return faults


# ---- checks ---------------------------------------------------------------------------


def check_database(
    database_url: str, turns: list[Turn]
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Exactly-once, read straight from PostgreSQL for the conversations the run used."""
    by_conversation = {t.conversation_id: t for t in turns}
    problems: list[dict[str, Any]] = []
    counts = Counter[str]()
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
    per_conversation: dict[str, list[tuple[str, str]]] = {}
    for conversation_id, turn_id, status in turn_rows:
        per_conversation.setdefault(conversation_id, []).append((turn_id, status))
    messages: dict[tuple[str, str], int] = {(r[1], r[2]): int(r[3]) for r in message_rows}
    counts["turn_rows"] = len(turn_rows)
    counts["message_rows"] = sum(messages.values())
    for conversation_id, turn in by_conversation.items():
        rows = per_conversation.get(conversation_id, [])
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
            continue
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
    known = {t for rows in per_conversation.values() for t, _ in rows}
    for turn_id, role in messages:
        if turn_id not in known:
            counts["orphan_messages"] += 1
            problems.append({"problem": f"{role} message of an unknown turn", "turn_id": turn_id})
    return dict(counts), problems


async def check_temporal(settings: Settings, caught: list[str]) -> dict[str, Any]:
    """ChatTurn workflows that did not complete, and what the caught turns waited for.

    For each turn a fault caught in flight, its history names the timeouts and failures
    it went through: they are why a turn took long to settle after the fault.
    """
    client = await _temporal(settings)
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
    scheduled: dict[int, tuple[str, datetime]] = {}
    retried: dict[int, int] = {}  # scheduled event id -> index in `found`
    found: list[str] = []
    async for e in client.get_workflow_handle(workflow_id).fetch_history_events():
        when = e.event_time.ToDatetime()
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            name = e.activity_task_scheduled_event_attributes.activity_type.name
            scheduled[e.event_id] = (name, when)
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            # A retried attempt shows only here (its attempt number and the failure or
            # timeout that ended the attempt before it), not as events of its own.
            started = e.activity_task_started_event_attributes
            if started.attempt > 1:
                name, at = scheduled.get(started.scheduled_event_id, ("?", when))
                last = started.last_failure
                why = (
                    f"a {_timeout(last)} timeout"
                    if last.HasField("timeout_failure_info")
                    else "a failure"
                )
                retried[started.scheduled_event_id] = len(found)
                found.append(
                    f"activity {name} retried after {why} — attempt {started.attempt} started"
                    f" {(when - at).total_seconds():.1f} s after it was scheduled;"
                    f" {last.message[:100]}"
                )
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            sid = e.activity_task_completed_event_attributes.scheduled_event_id
            name, at = scheduled.get(sid, ("?", when))
            took = (when - at).total_seconds()
            if sid in retried:
                found[retried[sid]] += f"; completed {took:.1f} s after"
            elif took > SLOW_ACTIVITY_SECONDS:
                # One attempt that neither failed nor timed out, but waited (for a
                # connection, a lock, a restarted worker) before it completed.
                found.append(
                    f"activity {name} took over {SLOW_ACTIVITY_SECONDS:.0f} s in one"
                    f" attempt — completed {took:.1f} s after it was scheduled"
                )
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
            attrs = e.activity_task_timed_out_event_attributes
            name, at = scheduled.get(attrs.scheduled_event_id, ("?", when))
            found.append(
                f"activity {name} timed out ({_timeout(attrs.failure)}) —"
                f" {(when - at).total_seconds():.1f} s after it was scheduled"
            )
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
            attrs_f = e.activity_task_failed_event_attributes
            name, _ = scheduled.get(attrs_f.scheduled_event_id, ("?", when))
            found.append(f"activity {name} failed — {attrs_f.failure.message[:100]}")
        elif e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
            kind = TimeoutType.Name(e.workflow_task_timed_out_event_attributes.timeout_type)
            found.append(f"workflow task timed out ({kind.removeprefix('TIMEOUT_TYPE_')})")
        elif e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
            cause = e.workflow_task_failed_event_attributes.failure.message[:100]
            found.append(f"workflow task failed — {cause}")
    return found


def _fault_window(faults: list[Fault], at: float) -> str:
    """When `at` was relative to the latest fault before it, bucketed for counting."""
    latest = None
    for n, f in enumerate(faults, 1):
        if f.at is not None and f.at <= at:
            latest = (n, f)
    if latest is None:
        return "before any fault"
    n, f = latest
    if f.recovered_at is None or at <= f.recovered_at:
        return f"during #{n} {f.kind}"
    after = at - f.recovered_at
    bucket = "0-5 s" if after < 5 else "5-30 s" if after < 30 else "over 30 s"
    return f"{bucket} after #{n} {f.kind} was restored"


# ---- the run --------------------------------------------------------------------------


async def baseline(driver: Driver, concurrency: int) -> dict[str, Turn]:
    turns = [
        Turn(i, q, f"chaosb-{uuid.uuid4()}", str(uuid.uuid4())) for i, q in enumerate(QUESTIONS)
    ]
    driver.faults_over = True
    await drive_all(driver, list(reversed(turns)), concurrency)
    return {t.question.text: t for t in turns}


async def chaos(
    settings: Settings,
    args: argparse.Namespace,
    rng: random.Random,
    say: Callable[[str], None],
    probe_turn_id: str,
) -> tuple[Driver, list[Turn], list[Fault]]:
    mix = [QUESTIONS[i % len(QUESTIONS)] for i in range(args.turns)]
    rng.shuffle(mix)
    turns = [Turn(i, q, f"chaos-{uuid.uuid4()}", str(uuid.uuid4())) for i, q in enumerate(mix)]
    faults = plan_faults(args.turns, args.kills, rng, args.workers)
    driver = Driver(settings.api_url, args.settle_timeout, args.max_seconds)
    pending = list(reversed(turns))
    injector = Injector(
        settings, driver, turns, pending, faults, rng, args.arrivals, say, probe_turn_id
    )
    try:
        await asyncio.gather(
            drive_all(driver, pending, args.concurrency, injector.may_send), injector.run()
        )
    finally:
        await driver.http.aclose()
    return driver, turns, faults


def summarise(
    base: dict[str, Turn],
    driver: Driver,
    turns: list[Turn],
    faults: list[Fault],
    db: tuple[dict[str, int], list[dict[str, Any]]],
    temporal: dict[str, Any],
    timings: dict[str, float],
    args: argparse.Namespace,
) -> dict[str, Any]:
    by_index = {t.index: t for t in turns}
    delays: dict[str, list[str]] = temporal.get("delays") or {}
    causes: dict[str, Counter[str]] = {}
    for fault in faults:
        if fault.at is None:
            continue
        slowest: tuple[float, Turn] | None = None
        fault.in_flight_turn_ids = [by_index[i].turn_id for i in fault.in_flight]
        for i in fault.in_flight:
            t = by_index[i]
            if t.settled_at is not None:
                fault.settle_seconds.append(round(t.settled_at - fault.at, 3))
                if slowest is None or t.settled_at - fault.at > slowest[0]:
                    slowest = (t.settled_at - fault.at, t)
            else:
                fault.unsettled.append(i)
        for i in fault.arrivals:
            t = by_index[i]
            if t.settled_at is not None and t.sent_at is not None:
                fault.arrival_settle_seconds.append(round(t.settled_at - t.sent_at, 3))
            else:
                fault.unsettled.append(i)
        for i in fault.in_flight + fault.arrivals:
            for line in delays.get(by_index[i].turn_id or "", []):
                # Counted by what happened, without the details after " — ".
                causes.setdefault(fault.kind, Counter())[line.split(" — ")[0]] += 1
        if slowest is not None:
            fault.slowest = {
                "turn_id": slowest[1].turn_id,
                "seconds": round(slowest[0], 1),
                "history": delays.get(slowest[1].turn_id or "", []),
            }
    differing = []
    for t in turns:
        if t.outcome != "settled":
            continue
        expected = base[t.question.text]
        if (t.status, t.answer) != (expected.status, expected.answer):
            differing.append(
                {
                    "turn_id": t.turn_id,
                    "question": t.question.text,
                    "baseline_status": expected.status,
                    "status": t.status,
                    "baseline_answer": expected.answer,
                    "answer": t.answer,
                }
            )
    outcomes = Counter(t.outcome for t in turns)
    kill_settle = [s for f in faults if f.kind == "worker_kill" for s in f.settle_seconds]
    restarts = [f.restart_seconds for f in faults if f.restart_seconds is not None]
    db_counts, db_problems = db
    http_errors = Counter(
        f"{e.route} {e.code} ({_fault_window(faults, e.at)})" for e in driver.events
    )
    by_kind: dict[str, Counter[str]] = {}
    for t in turns:
        by_kind.setdefault(t.question.kind, Counter())[t.status or t.outcome] += 1
    base_unexpected = [
        {"question": t.question.text, "expected": t.question.expected, "status": t.status}
        for t in base.values()
        if t.status != t.question.expected
        or t.asked_clarification != (t.question.reply is not None)
    ]
    report: dict[str, Any] = {
        "config": {
            "turns": args.turns,
            "kills": args.kills,
            "concurrency": args.concurrency,
            "seed": args.seed,
            "settle_timeout": args.settle_timeout,
            "arrivals": args.arrivals,
        },
        "timings": timings,
        "baseline": {
            "questions": len(base),
            "statuses": dict(Counter(str(t.status) for t in base.values())),
            "unexpected": base_unexpected,
        },
        "turns": {
            "sent": sum(1 for t in turns if t.sent_at is not None),
            "started": sum(1 for t in turns if t.turn_id is not None),
            "settled": outcomes["settled"],
            "lost": outcomes["lost"],
            "unaccepted": outcomes["unaccepted"],
            "rejected": outcomes["rejected"],
            "not_sent": outcomes["not_sent"],
            "statuses": dict(Counter(str(t.status) for t in turns if t.outcome == "settled")),
            "by_kind": {k: dict(v) for k, v in by_kind.items()},
        },
        "duplicated": db_counts.get("duplicated_turns", 0)
        + db_counts.get("duplicated_messages", 0),
        "missing": db_counts.get("missing_turns", 0) + db_counts.get("missing_messages", 0),
        "differing": len(differing),
        "database": db_counts,
        "database_problems": db_problems,
        "temporal": temporal,
        "kill_to_settle": {
            "n": len(kill_settle),
            "p50": percentile(kill_settle, 0.5),
            "p95": percentile(kill_settle, 0.95),
            "max": max(kill_settle, default=None),
        },
        "worker_restart": {
            "n": len(restarts),
            "p50": percentile(restarts, 0.5),
            "max": max(restarts, default=None),
        },
        "faults": [asdict(f) for f in faults],
        "delays_after_faults": {k: dict(v.most_common()) for k, v in causes.items()},
        "http_errors": dict(http_errors),
        "error_answers": _error_answers(driver.events, faults),
        "lost_turns": [
            {
                "index": t.index,
                "turn_id": t.turn_id,
                "question": t.question.text,
                "sent_at": t.sent_at,
                "http": dict(t.http),
                "polls": t.polls,
            }
            for t in turns
            if t.outcome == "lost"
        ],
        "unaccepted_turns": [
            {
                "index": t.index,
                "conversation_id": t.conversation_id,
                "http": dict(t.http),
                "outcome": t.outcome,
            }
            for t in turns
            if t.outcome in ("unaccepted", "rejected")
        ],
        "differing_turns": differing,
        "http_events": [asdict(e) for e in driver.events],
    }
    report["fault_errors"] = [f.error for f in faults if f.error]
    replayed = [t for t in turns if t.replay is not None]
    report["replays"] = {
        "n": len(replayed),
        "wrong": [
            {"turn_id": t.turn_id, "replay": t.replay}
            for t in replayed
            if not str(t.replay).endswith("same turn")
        ],
    }
    report["passed"] = not (
        report["fault_errors"]
        or report["replays"]["wrong"]
        or report["turns"]["lost"]
        or report["turns"]["unaccepted"]
        or report["turns"]["rejected"]
        or report["turns"]["not_sent"]
        or report["duplicated"]
        or report["missing"]
        or report["differing"]
        or report["error_answers"]["over_limit"]
    )
    return report


ERROR_ANSWER_LIMIT = 5.0
"""Every 5xx the API gives, stalled dependency or not, comes within this many seconds."""


def _error_answers(events: list[HttpEvent], faults: list[Fault]) -> dict[str, Any]:
    """How long the API took to answer each 5xx, by the fault it came during."""
    timed = [e for e in events if e.seconds is not None]
    by_fault: dict[str, list[float]] = {}
    for e in timed:
        by_fault.setdefault(_fault_window(faults, e.at), []).append(e.seconds or 0.0)
    return {
        "n": len(timed),
        "max": max((e.seconds or 0.0 for e in timed), default=None),
        "by_fault": {
            k: {"n": len(v), "p50": percentile(v, 0.5), "max": max(v)} for k, v in by_fault.items()
        },
        "over_limit": [asdict(e) for e in timed if (e.seconds or 0.0) > ERROR_ANSWER_LIMIT],
    }


def _s(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def render(report: dict[str, Any]) -> str:
    c, t, tm = report["config"], report["turns"], report["timings"]
    lines = [
        f"Chaos benchmark: {c['turns']} turns, {c['kills']} worker kills, 1 PostgreSQL outage,"
        f" 1 Temporal restart; concurrency {c['concurrency']}, seed {c['seed']}",
        f"stack up {tm['stack_up']:.0f} s · baseline {report['baseline']['questions']} questions"
        f" in {tm['baseline']:.1f} s {report['baseline']['statuses']} · chaos run"
        f" {tm['chaos']:.0f} s",
        "",
        f"{'sent':>6} {'started':>8} {'settled':>8} {'lost':>5} {'unaccepted':>11}"
        f" {'duplicated':>11} {'missing':>8} {'differing':>10}",
        f"{t['sent']:>6} {t['started']:>8} {t['settled']:>8} {t['lost']:>5}"
        f" {t['unaccepted'] + t['rejected']:>11} {report['duplicated']:>11}"
        f" {report['missing']:>8} {report['differing']:>10}",
        f"statuses: {t['statuses']}"
        + (f" · not sent (hard cap reached): {t['not_sent']}" if t["not_sent"] else ""),
        "by kind:  " + " · ".join(f"{k} {dict(v)}" for k, v in t["by_kind"].items()),
        "",
        f"{'#':>2} {'fault':16} {'at s':>6} {'down s':>6} {'restart s':>9} {'in flight':>9}"
        f" {'settle p50':>10} {'settle max':>10} {'sent while down':>15} {'their max':>9}"
        f" {'unsettled':>9} {'API ok after':>12}",
    ]
    for n, f in enumerate(report["faults"], 1):
        down = (f["recovered_at"] - f["at"]) if f["at"] is not None else None
        lines.append(
            f"{n:>2} {f['kind']:16} {_s(f['at']):>6} {_s(down):>6}"
            f" {_s(f['restart_seconds']):>9} {len(f['in_flight']):>9}"
            f" {_s(percentile(f['settle_seconds'], 0.5)):>10}"
            f" {_s(max(f['settle_seconds'], default=None)):>10} {len(f['arrivals']):>15}"
            f" {_s(max(f['arrival_settle_seconds'], default=None)):>9}"
            f" {len(f['unsettled']):>9}"
            f" {_s(f['api_ok_after'].get('read')) + '/' + _s(f['api_ok_after'].get('healthz')):>12}"
            + (f"  ERROR {f['error']}" if f["error"] else "")
        )
    lines += [
        "(settle: seconds from the fault to the settling of each turn in flight at it;"
        " their max: from sending to settling, for the turns sent while it was down;"
        " API ok after: seconds from restoring the component until GET /v1/turns/{id}"
        " / GET /healthz answer 200)"
    ]
    k, w = report["kill_to_settle"], report["worker_restart"]
    lines += [
        "",
        f"kill-to-settle (turns in flight at a worker kill, n={k['n']}): p50 {_s(k['p50'])} s,"
        f" p95 {_s(k['p95'])} s, max {_s(k['max'])} s",
        f"worker restart (spawn until it polls, n={w['n']}): p50 {_s(w['p50'])} s,"
        f" max {_s(w['max'])} s",
        f"identical POST re-sent after settling (turns sent while a fault was down):"
        f" {report['replays']['n']}, answered with another turn or not at all:"
        f" {len(report['replays']['wrong'])} {report['replays']['wrong'] or ''}",
        f"PostgreSQL rows: {report['database']}",
        f"Temporal ChatTurn workflows: {report['temporal'].get('by_status')}",
    ]
    for kind, counts in report["delays_after_faults"].items():
        lines.append(
            f"in the histories of the turns a {kind} caught or that were sent during it: "
            + ", ".join(f"{n} × {what}" for what, n in counts.items())
        )
    for n, f in enumerate(report["faults"], 1):
        if f["slowest"]:
            slow = f["slowest"]
            seen = Counter(slow["history"])
            history = "; ".join(f"{k}" if c == 1 else f"{c} × {k}" for k, c in seen.items())
            lines.append(
                f"  slowest after #{n}: {slow['turn_id']} {slow['seconds']} s:"
                f" {history or 'no timeout or failure in its history'}"
            )
    answers = report["error_answers"]
    lines += [
        "",
        f"5xx answers (n={answers['n']}): slowest {_s(answers['max'])} s (limit"
        f" {ERROR_ANSWER_LIMIT:g} s), over the limit: {len(answers['over_limit'])}",
    ]
    lines += [
        f"  {window}: n={v['n']}, p50 {_s(v['p50'])} s, max {_s(v['max'])} s"
        for window, v in sorted(answers["by_fault"].items())
    ]
    if report["http_errors"]:
        lines += ["", "responses retried or refused (route, code, during which fault):"]
        lines += [f"  {n:>4} × {key}" for key, n in sorted(report["http_errors"].items())]
    if report["baseline"]["unexpected"]:
        lines += [
            "",
            f"baseline outcomes not as the mix expects: {report['baseline']['unexpected']}",
        ]
    for title, key in (
        ("lost", "lost_turns"),
        ("not accepted", "unaccepted_turns"),
        ("differing from the baseline", "differing_turns"),
        ("PostgreSQL problems", "database_problems"),
    ):
        if report[key]:
            lines += ["", f"{title}:"]
            lines += [f"  {json.dumps(item, ensure_ascii=False)[:600]}" for item in report[key]]
    open_wf = report["temporal"].get("not_completed") or []
    if open_wf:
        lines += ["", "ChatTurn workflows not completed:"]
        lines += [f"  {w['workflow_id']} {w['status']}" for w in open_wf[:50]]
    lines += ["", "PASS" if report["passed"] else "FAIL"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--kills", type=int, default=6, help="worker SIGKILLs (default 6)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--workers", type=int, default=1, choices=range(1, 9), metavar="N",
        help="workers, as `turnstile up --workers N` (default 1); N > 1: kills hit turn workers",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--arrivals", type=int, default=2, help="turns sent while each fault is down"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON report")
    parser.add_argument("--home", type=Path, help="TURNSTILE_HOME to use (kept afterwards)")
    parser.add_argument(
        "--settle-timeout",
        type=float,
        default=180.0,
        help="seconds after the last fault (or after it was sent) before a turn is lost",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=3600.0, help="hard cap on the chaos run"
    )
    args = parser.parse_args(argv)
    if args.turns < 1 or args.kills < 0 or args.concurrency < 1:
        parser.error("--turns and --concurrency must be positive, --kills not negative")

    def say(message: str) -> None:
        # Progress goes to stderr so that --json leaves stdout with the report alone.
        print(f"[chaos] {message}", file=sys.stderr, flush=True)

    home = args.home.resolve() if args.home else Path(tempfile.mkdtemp(prefix="turnstile-chaos-"))
    home.mkdir(parents=True, exist_ok=True)
    settings = isolated_settings(home)
    if args.workers > 1:
        os.environ["TURNSTILE_WORKERS"] = str(args.workers)
        settings = settings.model_copy(update={"workers": args.workers})
    rng = random.Random(args.seed)
    timings: dict[str, float] = {}
    report: dict[str, Any] | None = None
    try:
        t0 = time.monotonic()
        say(f"starting an isolated stack in {home} (API {settings.api_url})")
        embedded.up(settings, say)
        timings["stack_up"] = round(time.monotonic() - t0, 1)

        t0 = time.monotonic()
        say(f"baseline: {len(QUESTIONS)} questions, no faults")
        base_driver = Driver(settings.api_url, args.settle_timeout, args.max_seconds)

        async def run_baseline() -> dict[str, Turn]:
            try:
                return await baseline(base_driver, args.concurrency)
            finally:
                await base_driver.http.aclose()

        base = asyncio.run(run_baseline())
        timings["baseline"] = round(time.monotonic() - t0, 1)
        unsettled = [t for t in base.values() if t.outcome != "settled"]
        if unsettled:
            say(f"baseline did not settle: {[(t.question.text, t.outcome) for t in unsettled]}")
            return 2

        t0 = time.monotonic()
        say(f"chaos: {args.turns} turns, concurrency {args.concurrency}, seed {args.seed}")
        driver, turns, faults = asyncio.run(
            chaos(settings, args, rng, say, str(next(iter(base.values())).turn_id))
        )
        timings["chaos"] = round(time.monotonic() - t0, 1)
        say("checking PostgreSQL and Temporal")
        all_turns = list(base.values()) + turns
        db = check_database(settings.effective_database_url, all_turns)
        caught = {turns[i].turn_id for f in faults for i in f.in_flight + f.arrivals}
        try:
            temporal = asyncio.run(check_temporal(settings, sorted(t for t in caught if t)))
        except Exception as exc:  # a listing failure must not hide the other figures
            temporal = {"error": f"{type(exc).__name__}: {exc}"}
        report = summarise(base, driver, turns, faults, db, temporal, timings, args)
        report["home"] = str(home)
    except StackError as exc:
        say(f"stack error: {exc} (logs under {home / 'logs'})")
        return 2
    finally:
        with contextlib.suppress(StackError):
            embedded.down(settings, say)
        keep = args.home is not None or report is None or not report["passed"]
        if keep:
            say(f"kept {home} (logs under {home / 'logs'})")
        else:
            shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(report, ensure_ascii=False) if args.json else render(report))
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
