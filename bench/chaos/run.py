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
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import common
from bench.chaos.checks import check_database, check_temporal
from bench.chaos.driver import QUESTIONS, Driver, Turn, drive_all
from bench.chaos.faults import Fault, Injector, plan_faults
from bench.chaos.report import render, summarise
from settings import Settings
from stack import embedded
from stack.processes import StackError


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


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its report; the exit code is the module's (0, 1 or 2)."""
    args = _arguments(argv)
    home = args.home.resolve() if args.home else Path(tempfile.mkdtemp(prefix="turnstile-chaos-"))
    home.mkdir(parents=True, exist_ok=True)
    settings = common.isolated_settings(home, "chaos")
    if args.workers > 1:
        os.environ["TURNSTILE_WORKERS"] = str(args.workers)
        settings = settings.model_copy(update={"workers": args.workers})
    rng = random.Random(args.seed)
    report: dict[str, Any] | None = None
    try:
        report = _run(settings, args, rng, home)
        if report is None:
            return 2
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


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.chaos", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--kills", type=int, default=6, help="worker SIGKILLs (default 6)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        choices=range(1, 9),
        metavar="N",
        help="workers, as `turnstile up --workers N` (default 1); N > 1: kills hit turn workers",
    )
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
    return args


def say(message: str) -> None:
    # Progress goes to stderr so that --json leaves stdout with the report alone.
    print(f"[chaos] {message}", file=sys.stderr, flush=True)


def _run(
    settings: Settings, args: argparse.Namespace, rng: random.Random, home: Path
) -> dict[str, Any] | None:
    """Start the stack, run the baseline, then the chaos, and check what it left behind;
    None when the baseline did not settle. Stopping the stack is left to the caller."""
    timings: dict[str, float] = {}
    t0 = time.monotonic()
    say(f"starting an isolated stack in {home} (API {settings.api_url})")
    embedded.up(settings, say)
    timings["stack_up"] = round(time.monotonic() - t0, 1)

    base = _run_baseline(settings, args, timings)
    unsettled = [t for t in base.values() if t.outcome != "settled"]
    if unsettled:
        say(f"baseline did not settle: {[(t.question.text, t.outcome) for t in unsettled]}")
        return None

    t0 = time.monotonic()
    say(f"chaos: {args.turns} turns, concurrency {args.concurrency}, seed {args.seed}")
    driver, turns, faults = asyncio.run(
        chaos(settings, args, rng, say, str(next(iter(base.values())).turn_id))
    )
    timings["chaos"] = round(time.monotonic() - t0, 1)
    say("checking PostgreSQL and Temporal")
    all_turns = list(base.values()) + turns
    db = check_database(settings.effective_database_url, all_turns)
    temporal = _check_temporal(settings, turns, faults)
    report = summarise(base, driver, turns, faults, db, temporal, timings, args)
    report["home"] = str(home)
    return report


def _run_baseline(
    settings: Settings, args: argparse.Namespace, timings: dict[str, float]
) -> dict[str, Turn]:
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
    return base


def _check_temporal(settings: Settings, turns: list[Turn], faults: list[Fault]) -> dict[str, Any]:
    caught = {turns[i].turn_id for f in faults for i in f.in_flight + f.arrivals}
    try:
        return asyncio.run(check_temporal(settings, sorted(t for t in caught if t)))
    except Exception as exc:  # a listing failure must not hide the other figures
        return {"error": f"{type(exc).__name__}: {exc}"}
