"""The chaos benchmark's faults, planned by seed, injected one at a time and undone.

Worker SIGKILL (and restart), PostgreSQL outage and stall, Temporal restart and stall;
while each component is down, a few more turns are sent.
"""

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.service import RPCError

import payloads
from bench.chaos.driver import Driver, Turn
from settings import Settings
from stack import embedded, postgres
from stack.processes import StackError, pid_alive, read_pid, signal_tree, stop_pid

WORKER_READY_LINE = b"worker polling"
ONCE_EACH = ("postgres_outage", "postgres_stall", "temporal_restart", "temporal_stall")
"""The faults of every run besides its worker kills, one of each."""


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
                if not await self._reached(fault):
                    break
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
                await self._await_caught(fault)
                self.armed += 1
        finally:
            self.armed = len(self.faults)
            self.driver.faults_over = True
            await asyncio.gather(*self.arrival_tasks)

    async def _reached(self, fault: Fault) -> bool:
        """Wait until `fault` is due; False when the run's hard cap passed first."""
        while self._sent() < fault.trigger and not self._all_done():
            await asyncio.sleep(0.02)
        if self.driver.now() > self.driver.hard_deadline:
            return False
        # A random delay, so that the fault lands at a random step of the turns,
        # cut short once the lanes have sent the whole segment (from then on they
        # only drain) or only one turn is left in flight: a fault that catches no
        # turn measures nothing.
        until = self.driver.now() + self.rng.uniform(0.0, 1.5)
        while (
            self.driver.now() < until and self._sent() < fault.gate and len(self._in_flight()) > 1
        ):
            await asyncio.sleep(0.01)
        return True

    async def _await_caught(self, fault: Fault) -> None:
        """Wait for the turns this fault caught (bounded) before the next one, so that
        each fault-to-settle time measures one fault, not several."""
        caught = [self.turns[i] for i in fault.in_flight + fault.arrivals]
        limit = self.driver.now() + 90.0
        while any(t.outcome == "pending" for t in caught) and self.driver.now() < limit:
            await asyncio.sleep(0.05)

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
        client = await connect_temporal(self.settings)
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


async def connect_temporal(settings: Settings) -> Client:
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
    kinds = ["worker_kill"] * kills + list(ONCE_EACH)
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
