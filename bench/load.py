"""Load benchmark: a concurrency sweep of closed-loop clients through the HTTP API.

    .venv/bin/python -m bench.load [--levels 1,10,25,50] [--duration 60] [--warmup 10]
                                   [--mix figure | --mix figure,comparison,refusal]
                                   [--turn-timeout 120] [--json] [--home DIR]
                                   [--api-url URL] [--cache]

It measures the full path by default: every turn is sent with `Cache-Control: no-cache`,
so it neither reads nor writes the semantic answer cache (the questions repeat, and with
the cache about four turns in five would be hits: a figure of the cache, not of the
turn). `--cache` sends no such header and reports how many turns were cache hits, so
cache-hit throughput is measured apart; docs/benchmarks.md states both.

Unless `--api-url` is given it starts its own embedded stack (a temporary TURNSTILE_HOME,
free loopback ports, its own task queue, as bench/chaos/ does), so it never touches a
developer's stack or a system PostgreSQL, and stops it at the end.

For each level N, N clients run for `--duration` seconds. Each client sends one turn at a
time (closed loop), each in a new conversation: `POST /v1/turns`, and a 202 is polled on
`GET /v1/turns/{id}` until it settles, so a turn's latency is its full time to settle.
When the window closes no new turn starts; the turns still running are waited for (at
most `--turn-timeout` seconds each) before the next level starts, so levels do not
overlap.

Per level it reports: turns/s (turns that settled as expected within the window, divided
by the window), p50/p95/max latency of all turns started in the window, errors (a non-200
/202 answer, a transport error or timeout, a turn not settled within `--turn-timeout`, or
one that settled other than its question's expected status, `answered` or `refused`; each
with its turn id), and the CPU seconds per settled turn of each process of the stack:
Temporal dev server, worker, API and PostgreSQL (the postmaster and all its backends),
read from the pid files under `$TURNSTILE_HOME/run` and `postmaster.pid`, each process's
CPU plus that of its children, live and exited, measured from the level's start until its
last turn finished. The benchmark's own CPU and the rest of the machine's (other work on
the same cores) are reported alongside.

The issue's targets are reported, never asserted: >= 20 turns/s for 60 s at 50 concurrent
with 0 errors and p95 <= 3 s; single-company figure turn p50 <= 0.30 s (level 1). The exit
code is 0 when the sweep ran (whatever the figures), 2 when it could not (stack start-up).
"""

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil

from bench import common
from bench.common import percentile
from settings import Settings
from stack import embedded, postgres
from stack.processes import StackError, read_pid

# Terminal statuses of a turn (workflows.contracts.SETTLED plus failed/cancelled).
TERMINAL = frozenset(
    {"answered", "needs_clarification", "refused", "fallback", "expired", "failed", "cancelled"}
)
PROCESSES = ("temporal", "worker", "api", "postgres")
POLL_INTERVAL = 0.25

QUESTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    # kind -> ((question, expected status), ...)
    "figure": (
        ("What was BHP's revenue in FY2024?", "answered"),
        ("What was Fortescue's net debt in FY2023?", "answered"),
        ("What was South32's underlying EBITDA in FY2025?", "answered"),
        ("What was Northern Star's revenue in FY2024?", "answered"),
        ("What was Rio Tinto's net earnings in FY2023?", "answered"),
    ),
    "comparison": (
        ("Compare the revenue of BHP, Rio Tinto and Fortescue in FY2024", "answered"),
        ("Compare net debt of BHP, Fortescue and South32 in FY2025", "answered"),
    ),
    "refusal": (
        ("Should I buy BHP shares?", "refused"),
        ("Write a poem about Fortescue", "refused"),
        ("What is the capital of France?", "refused"),
    ),
}

TARGET_RATE = 20.0  # turns/s sustained at 50 concurrent, 0 errors
TARGET_P95 = 3.0  # seconds, at 50 concurrent
TARGET_CONCURRENCY = 50
TARGET_SINGLE_P50 = 0.30  # seconds, single-company figure turn


# ---- the isolated stack ---------------------------------------------------------------


def isolated_settings(home: Path) -> Settings:
    return common.isolated_settings(home, "load")


# ---- CPU accounting -------------------------------------------------------------------


def stack_pids(home: Path) -> dict[str, int]:
    """The pids of the stack's processes under `home` (those that have a pid file)."""
    paths = embedded.Paths(home)
    pids: dict[str, int] = {}
    for name in ("temporal", "worker", "api"):
        pid = read_pid(paths.pid_file(name))
        if pid is not None:
            pids[name] = pid
    pid = postgres.pid(paths.pgdata)
    if pid is not None:
        pids["postgres"] = pid
    return pids


def tree_cpu(pid: int) -> float | None:
    """CPU seconds of a process and all its children: live ones (recursively) plus the
    exited ones it reaped (`children_user`/`children_system`, e.g. PostgreSQL backends
    whose connection closed). None when the process is gone or not readable."""
    try:
        proc = psutil.Process(pid)
        t = proc.cpu_times()
        total = t.user + t.system + t.children_user + t.children_system
        for child in proc.children(recursive=True):
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                c = child.cpu_times()
                # A child's own reaped children count once: in its children_* times.
                total += c.user + c.system + c.children_user + c.children_system
        return float(total)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None


def machine_busy() -> float:
    """CPU seconds the whole machine spent not idle (all cores)."""
    t = psutil.cpu_times()
    return float(sum(t) - t.idle - getattr(t, "iowait", 0.0))


@dataclass
class CpuSample:
    processes: dict[str, float | None]
    client: float
    machine: float

    @classmethod
    def take(cls, pids: dict[str, int]) -> "CpuSample":
        own = psutil.Process().cpu_times()
        return cls(
            processes={name: tree_cpu(pid) for name, pid in pids.items()},
            client=own.user + own.system,
            machine=machine_busy(),
        )


# ---- turns ----------------------------------------------------------------------------


@dataclass
class TurnRecord:
    """One turn as a client saw it; times are seconds since the level's start."""

    kind: str
    question: str
    expected: str
    started: float
    finished: float | None = None
    turn_id: str | None = None
    first_code: int | None = None  # the POST's status code
    status: str | None = None
    polls: int = 0
    error: str | None = None  # None when it settled as expected
    cache: str | None = None  # the turn's `cache` field: hit, hint, miss or None

    @property
    def latency(self) -> float | None:
        return None if self.finished is None else self.finished - self.started


class Mix:
    """Questions handed out round-robin over kinds, then over each kind's questions."""

    def __init__(self, kinds: list[str]) -> None:
        self.kinds = kinds
        self.count = 0

    def next(self) -> tuple[str, str, str]:
        kind = self.kinds[self.count % len(self.kinds)]
        options = QUESTIONS[kind]
        question, expected = options[(self.count // len(self.kinds)) % len(options)]
        self.count += 1
        return kind, question, expected


async def run_turn(
    http: httpx.AsyncClient,
    kind: str,
    question: str,
    expected: str,
    t0: float,
    turn_timeout: float,
    cache: bool = False,
) -> TurnRecord:
    """Send one turn in a new conversation and follow it until it settles (past the
    answer cache unless `cache`)."""
    record = TurnRecord(kind, question, expected, time.monotonic() - t0)
    deadline = time.monotonic() + turn_timeout
    body = {"question": question, "conversation_id": f"load-{uuid.uuid4()}"}
    headers = {} if cache else {"Cache-Control": "no-cache"}
    try:
        response = await http.post("/v1/turns", json=body, headers=headers)
        record.first_code = response.status_code
        if response.status_code not in (200, 202):
            record.error = f"http {response.status_code}: {response.text[:200]}"
            with contextlib.suppress(ValueError):
                record.turn_id = response.json().get("turn_id")
            return record
        data = response.json()
        record.turn_id = str(data["turn_id"])
        while data.get("status") not in TERMINAL:
            if time.monotonic() > deadline:
                record.status = str(data.get("status"))
                record.error = f"not settled after {turn_timeout:.0f}s (status {record.status})"
                return record
            await asyncio.sleep(POLL_INTERVAL)
            record.polls += 1
            response = await http.get(f"/v1/turns/{record.turn_id}")
            if response.status_code != 200:
                record.error = f"poll http {response.status_code}: {response.text[:200]}"
                return record
            data = response.json()
        record.status = str(data["status"])
        record.cache = data.get("cache")
        if record.status != expected:
            record.error = f"settled {record.status}, expected {expected}"
    except httpx.TimeoutException as exc:
        record.error = f"timeout: {type(exc).__name__}"
    except httpx.TransportError as exc:
        record.error = f"transport: {type(exc).__name__}: {str(exc)[:120]}"
    finally:
        record.finished = time.monotonic() - t0
    return record


async def run_level(
    http: httpx.AsyncClient,
    concurrency: int,
    duration: float,
    mix: Mix,
    turn_timeout: float,
    pids: dict[str, int],
    cache: bool = False,
) -> dict[str, Any]:
    """N closed-loop clients for `duration` seconds; then wait for the turns in flight."""
    records: list[TurnRecord] = []
    before = CpuSample.take(pids)
    t0 = time.monotonic()

    async def client() -> None:
        while time.monotonic() - t0 < duration:
            kind, question, expected = mix.next()
            records.append(await run_turn(http, kind, question, expected, t0, turn_timeout, cache))

    await asyncio.gather(*(client() for _ in range(concurrency)))
    elapsed = time.monotonic() - t0
    after = CpuSample.take(pids)
    return summarise_level(concurrency, duration, elapsed, records, before, after)


def summarise_level(
    concurrency: int,
    duration: float,
    elapsed: float,
    records: list[TurnRecord],
    before: CpuSample,
    after: CpuSample,
) -> dict[str, Any]:
    ok = [r for r in records if r.error is None]
    in_window = [r for r in ok if r.finished is not None and r.finished <= duration]
    latencies = [r.latency for r in ok if r.latency is not None]
    all_latencies = [r.latency for r in records if r.latency is not None]
    errors = [r for r in records if r.error is not None]
    settled = len(ok) or 1
    cpu: dict[str, float | None] = {}
    for name, start in before.processes.items():
        end = after.processes.get(name)
        cpu[name] = None if start is None or end is None else end - start
    stack_cpu = sum(v for v in cpu.values() if v is not None)
    client_cpu = after.client - before.client
    machine_cpu = after.machine - before.machine
    by_kind: dict[str, dict[str, Any]] = {}
    for kind in sorted({r.kind for r in records}):
        lat = [r.latency for r in ok if r.kind == kind and r.latency is not None]
        by_kind[kind] = {
            "n": len(lat),
            "p50": percentile(lat, 0.5),
            "p95": percentile(lat, 0.95),
        }
    return {
        "concurrency": concurrency,
        "duration": duration,
        "elapsed": round(elapsed, 2),  # until the last turn of the level finished
        "started": len(records),
        "settled_ok": len(ok),
        "settled_in_window": len(in_window),
        "turns_per_s": len(in_window) / duration,
        "p50": percentile(latencies, 0.5),
        "p95": percentile(latencies, 0.95),
        "max": max(all_latencies) if all_latencies else None,
        "mean": statistics.fmean(latencies) if latencies else None,
        "by_kind": by_kind,
        "post_codes": dict(Counter(str(r.first_code) for r in records)),
        "polled_202": sum(1 for r in records if r.first_code == 202),
        "cache_hits": sum(1 for r in ok if r.cache == "hit"),
        "errors": len(errors),
        "error_kinds": dict(Counter(_error_kind(r.error) for r in errors if r.error)),
        "error_turns": [
            {"turn_id": r.turn_id, "question": r.question, "error": r.error} for r in errors
        ],
        "cpu_seconds": {k: _r(v) for k, v in cpu.items()},
        "cpu_per_turn": {k: _r(v / settled if v is not None else None, 4) for k, v in cpu.items()},
        "cpu_client_per_turn": _r(client_cpu / settled, 4),
        # Everything else the machine did meanwhile (other engineers' tests, ...).
        "cpu_other_seconds": _r(machine_cpu - stack_cpu - client_cpu),
        "machine_busy_share": _r(machine_cpu / (elapsed * (psutil.cpu_count() or 1)), 3),
    }


def _error_kind(error: str) -> str:
    return error.split(":")[0].split(" (")[0]


def _r(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


async def sweep(
    api_url: str,
    levels: list[int],
    duration: float,
    warmup: int,
    kinds: list[str],
    turn_timeout: float,
    pids: dict[str, int],
    say: Callable[[str], None],
    cache: bool = False,
) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=max(levels) + 10, max_keepalive_connections=max(levels))
    async with httpx.AsyncClient(
        base_url=api_url,
        timeout=httpx.Timeout(60.0, connect=5.0),
        limits=limits,
        trust_env=False,
    ) as http:
        mix = Mix(kinds)
        warm: list[TurnRecord] = []
        if warmup:
            say(f"warm-up: {warmup} turns, one at a time")
            t0 = time.monotonic()
            for _ in range(warmup):
                kind, question, expected = mix.next()
                warm.append(await run_turn(http, kind, question, expected, t0, turn_timeout, cache))
        results = []
        for level in levels:
            say(f"level {level}: {level} clients for {duration:.0f}s")
            result = await run_level(http, level, duration, mix, turn_timeout, pids, cache)
            say(
                f"level {level}: {result['turns_per_s']:.2f} turns/s, "
                f"p50 {_s(result['p50'])}, p95 {_s(result['p95'])}, errors {result['errors']}"
            )
            results.append(result)
    return {
        "warmup": {
            "turns": len(warm),
            "errors": [
                {"turn_id": r.turn_id, "question": r.question, "error": r.error}
                for r in warm
                if r.error
            ],
            "p50": percentile([r.latency for r in warm if r.latency is not None], 0.5),
        },
        "levels": results,
    }


# ---- report ---------------------------------------------------------------------------


def targets(levels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    at50 = next((lv for lv in levels if lv["concurrency"] == TARGET_CONCURRENCY), None)
    if at50 is not None:
        out.append(
            {
                "target": f">= {TARGET_RATE:.0f} turns/s at {TARGET_CONCURRENCY} concurrent "
                f"for {at50['duration']:.0f}s",
                "measured": f"{at50['turns_per_s']:.2f} turns/s",
                "met": at50["turns_per_s"] >= TARGET_RATE,
            }
        )
        out.append(
            {
                "target": f"0 errors at {TARGET_CONCURRENCY} concurrent",
                "measured": f"{at50['errors']} errors",
                "met": at50["errors"] == 0,
            }
        )
        out.append(
            {
                "target": f"p95 <= {TARGET_P95:.0f} s at {TARGET_CONCURRENCY} concurrent",
                "measured": _s(at50["p95"]),
                "met": at50["p95"] is not None and at50["p95"] <= TARGET_P95,
            }
        )
    at1 = next((lv for lv in levels if lv["concurrency"] == 1), None)
    if at1 is not None and "figure" in at1["by_kind"]:
        p50 = at1["by_kind"]["figure"]["p50"]
        out.append(
            {
                "target": f"single-company figure p50 <= {TARGET_SINGLE_P50:.2f} s (1 client)",
                "measured": _s(p50),
                "met": p50 is not None and p50 <= TARGET_SINGLE_P50,
            }
        )
    return out


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} s"


def _c(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def calibration() -> float:
    """CPU seconds of a fixed pure-Python loop: how fast this machine is right now.

    A shared virtual machine's speed drifts (the same commit measured 10.97 and 3.9
    turns/s on different days), so a run's figures are only comparable with another
    run's at a similar calibration."""
    start = time.process_time()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.process_time() - start


def render(report: dict[str, Any]) -> str:
    lines = [
        f"load benchmark: mix {','.join(report['mix'])}, answer cache {report['cache']}, "
        f"{report['duration']:.0f}s per level, {report['cpus']} CPUs, API {report['api_url']}",
        f"machine speed: a 10M-step Python loop takes {report['calibration_s']:.3f} CPU s "
        "(compare runs only at similar speeds)",
    ]
    warm = report["warmup"]
    if warm["turns"]:
        lines.append(
            f"warm-up: {warm['turns']} turns one at a time, p50 {_s(warm['p50'])}, "
            f"errors {len(warm['errors'])}"
        )
    lines += [
        "",
        f"{'clients':>7} {'turns':>6} {'turns/s':>8} {'p50':>9} {'p95':>9} {'max':>9} "
        f"{'errors':>6} {'202s':>5} {'hits':>5} | CPU s/turn: "
        + " ".join(f"{p:>8}" for p in PROCESSES)
        + f" {'bench':>7} | other CPU s",
    ]
    for lv in report["levels"]:
        per = lv["cpu_per_turn"]
        lines.append(
            f"{lv['concurrency']:>7} {lv['settled_ok']:>6} {lv['turns_per_s']:>8.2f} "
            f"{_s(lv['p50']):>9} {_s(lv['p95']):>9} {_s(lv['max']):>9} {lv['errors']:>6} "
            f"{lv['polled_202']:>5} {lv['cache_hits']:>5} |             "
            + " ".join(f"{_c(per.get(p)):>8}" for p in PROCESSES)
            + f" {_c(lv['cpu_client_per_turn']):>7} | {lv['cpu_other_seconds']}"
        )
    for lv in report["levels"]:
        if len(lv["by_kind"]) > 1:
            kinds = ", ".join(
                f"{k} n={v['n']} p50 {_s(v['p50'])} p95 {_s(v['p95'])}"
                for k, v in lv["by_kind"].items()
            )
            lines.append(f"  {lv['concurrency']} clients by kind: {kinds}")
    errors = [(lv["concurrency"], e) for lv in report["levels"] for e in lv["error_turns"]]
    errors += [(0, e) for e in warm["errors"]]
    if errors:
        lines += ["", f"errors ({len(errors)}; level 0 = warm-up):"]
        for level, e in errors[:30]:
            lines.append(f"  [{level}] {e['turn_id']} {e['question']!r}: {e['error']}")
        if len(errors) > 30:
            lines.append(f"  ... {len(errors) - 30} more (see --json)")
    if report["targets"]:
        lines += ["", "targets (reported, not asserted):"]
        for t in report["targets"]:
            lines.append(f"  {'met ' if t['met'] else 'MISS'} {t['target']}: {t['measured']}")
    return "\n".join(lines)


def parse_levels(text: str) -> list[int]:
    levels = [int(x) for x in text.split(",") if x.strip()]
    if not levels or any(n < 1 or n > 500 for n in levels):
        raise argparse.ArgumentTypeError("levels must be integers between 1 and 500")
    return levels


def parse_mix(text: str) -> list[str]:
    kinds = [x.strip() for x in text.split(",") if x.strip()]
    unknown = [k for k in kinds if k not in QUESTIONS]
    if not kinds or unknown:
        raise argparse.ArgumentTypeError(f"mix kinds are {', '.join(QUESTIONS)}")
    return kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--levels", type=parse_levels, default=[1, 10, 25, 50])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds per level")
    parser.add_argument(
        "--warmup", type=int, default=10, help="turns sent one at a time before the sweep"
    )
    parser.add_argument(
        "--mix",
        type=parse_mix,
        default=["figure"],
        help="question kinds, round-robin: figure (default), comparison, refusal",
    )
    parser.add_argument(
        "--turn-timeout", type=float, default=120.0, help="seconds before a turn is an error"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON report")
    parser.add_argument(
        "--home",
        type=Path,
        help="TURNSTILE_HOME for the stack (kept afterwards); with --api-url, where to "
        "read the pids for the CPU figures",
    )
    parser.add_argument("--api-url", help="use this running API instead of starting a stack")
    parser.add_argument(
        "--cache",
        action="store_true",
        help="let turns use the answer cache (default: every turn sent with no-cache)",
    )
    args = parser.parse_args(argv)
    if args.duration <= 0 or args.warmup < 0 or args.turn_timeout <= 0:
        parser.error("--duration and --turn-timeout must be positive, --warmup not negative")

    def say(message: str) -> None:
        print(f"[load] {message}", file=sys.stderr, flush=True)

    own_stack = args.api_url is None
    home: Path | None = None
    settings: Settings | None = None
    report: dict[str, Any] | None = None
    try:
        if own_stack:
            home = (
                args.home.resolve()
                if args.home
                else Path(tempfile.mkdtemp(prefix="turnstile-load-"))
            )
            home.mkdir(parents=True, exist_ok=True)
            settings = isolated_settings(home)
            api_url = settings.api_url
            t0 = time.monotonic()
            say(f"starting an isolated stack in {home} (API {api_url})")
            embedded.up(settings, say)
            say(f"stack up in {time.monotonic() - t0:.0f}s")
        else:
            api_url = args.api_url
            home = args.home.resolve() if args.home else None
        pids = stack_pids(home) if home is not None else {}
        if not pids:
            say("no pid files: CPU per process is not reported")
        result = asyncio.run(
            sweep(
                api_url,
                args.levels,
                args.duration,
                args.warmup,
                args.mix,
                args.turn_timeout,
                pids,
                say,
                args.cache,
            )
        )
        report = {
            "api_url": api_url,
            "own_stack": own_stack,
            "mix": args.mix,
            "cache": "on" if args.cache else "off (Cache-Control: no-cache)",
            "duration": args.duration,
            "cpus": psutil.cpu_count(),
            "calibration_s": calibration(),
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "pids": pids,
            **result,
        }
        report["targets"] = targets(report["levels"])
    except StackError as exc:
        say(f"stack error: {exc}" + (f" (logs under {home / 'logs'})" if home else ""))
        return 2
    finally:
        if own_stack and settings is not None and home is not None:
            with contextlib.suppress(StackError):
                embedded.down(settings, say)
            failed = (
                report is None
                or any(lv["errors"] for lv in report["levels"])
                or bool(report["warmup"]["errors"])
            )
            if args.home is not None or failed:
                say(f"kept {home} (logs under {home / 'logs'})")
            else:
                shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(report, ensure_ascii=False, default=str) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
