"""Slow-provider benchmark: a model provider slower than the model timeout, and how long
a turn takes to settle, and with what.

    .venv/bin/python -m bench.slow_provider [--hang 70] [--turns 3] [--budget 90]
                                            [--model-timeout 60] [--slow STEP ...] [--json]

It starts the fake OpenAI-compatible server of testkit/fake_servers.py, answering every
chat request of the `--slow` steps only after `--hang` seconds (the `timeout` fault;
default: every step; `SynthesisOut` alone: a provider slow only on the draft), and an
isolated embedded stack of its own (bench/common.py) with TURNSTILE_ENGINE=openai
pointed at it, the default turn budget and model timeout unless given. Then it asks
`--turns` figure questions at once through the HTTP API (each in its own conversation,
answer cache off) and polls each until it settles. It reports, per turn, the seconds
from the POST to the settled status, the status and fallback reason, and the failed
steps with their error classes; and whether every turn settled within the budget plus
`SETTLE_MARGIN_SECONDS` (domain/budget.py). What it measures: the whole turn's wall time
with the model engine, no answer cache, a provider that never answers in time.
Exit code 0 when it ran, 1 when a turn settled late or not at all, 2 when the stack
could not start.
"""

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from bench import common
from domain.budget import SETTLE_MARGIN_SECONDS
from stack import embedded
from stack.processes import StackError
from testkit.fake_servers import Brain, FakeOpenAI

QUESTIONS = (
    "What was BHP's revenue in FY2024?",
    "What was Rio Tinto's net debt in FY2023?",
    "Compare Fortescue and South32 underlying EBITDA in FY2025",
    "What dividends did Northern Star pay in FY2024?",
)


SCHEMAS = ("RouteOut", "RewriteOut", "GradeOut", "SynthesisOut", "JudgeOut")


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


async def one_turn(http: httpx.AsyncClient, question: str, limit: float) -> dict[str, Any]:
    started = time.monotonic()
    response = await http.post(
        "/v1/turns",
        json={"question": question, "conversation_id": f"slow-{uuid.uuid4()}"},
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )
    turn = response.json()
    if response.status_code >= 400:  # refused, not late: say so
        turn = {"status": f"error {response.status_code}", "step_failures": []}
    while turn.get("status") in (None, "running") and time.monotonic() - started < limit:
        await asyncio.sleep(1.0)
        if "turn_id" in turn:
            turn = (await http.get(f"/v1/turns/{turn['turn_id']}")).json()
    return {
        "question": question,
        "seconds": round(time.monotonic() - started, 1),
        "status": turn.get("status"),
        "fallback_reason": turn.get("fallback_reason"),
        "answer_opening": (turn.get("answer") or "")[:80],
        "step_failures": [
            f"{f['step']} ({f['direction']}, {f['error_class']})"
            for f in turn.get("step_failures", [])
        ],
    }


async def ask_all(api_url: str, turns: int, limit: float) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=api_url, timeout=30.0) as http:
        questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(turns)]
        return list(await asyncio.gather(*(one_turn(http, q, limit) for q in questions)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hang", type=float, default=70.0, help="provider delay, seconds")
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--budget", type=float, default=None, help="turn budget, seconds")
    parser.add_argument("--model-timeout", type=float, default=None)
    parser.add_argument(
        "--slow",
        nargs="+",
        default=list(SCHEMAS),
        choices=SCHEMAS,
        help="the steps whose calls hang (by response schema)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="turnstile-slow-"))
    with FakeOpenAI().running() as fake:
        Brain(fake).writes(lambda body: "The reports do not say [1].")
        fake.hang_seconds = args.hang
        for schema in args.slow:
            fake.step_faults[schema] = "timeout"
        settings = common.isolated_settings(home, "slow")
        os.environ.update(
            TURNSTILE_ENGINE="openai",
            TURNSTILE_OPENAI_BASE_URL=fake.base_url,
            TURNSTILE_OPENAI_API_KEY=fake.api_key,
            TURNSTILE_ANSWER_CACHE="false",
        )
        if args.budget is not None:
            os.environ["TURNSTILE_TURN_BUDGET_SECONDS"] = str(args.budget)
        if args.model_timeout is not None:
            os.environ["TURNSTILE_MODEL_TIMEOUT_SECONDS"] = str(args.model_timeout)
        settings = type(settings)()
        budget = settings.turn_budget_seconds
        bound = budget + SETTLE_MARGIN_SECONDS
        try:
            say(f"starting an isolated stack in {home} (provider hangs {args.hang:g} s)")
            embedded.up(settings, say)
            results = asyncio.run(ask_all(settings.api_url, args.turns, bound + 120.0))
        except StackError as exc:
            say(f"stack error: {exc}")
            return 2
        finally:
            with contextlib.suppress(StackError):
                embedded.down(settings, say)
    late = [r for r in results if r["status"] in (None, "running") or r["seconds"] > bound]
    report = {
        "hang_seconds": args.hang,
        "slow_steps": args.slow,
        "model_timeout_seconds": settings.model_timeout_seconds,
        "turn_budget_seconds": budget,
        "bound_seconds": bound,
        "turns": results,
        "late": len(late),
    }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(
            f"provider {args.hang:g} s on {', '.join(args.slow)}, "
            f"model timeout {settings.model_timeout_seconds:g} s, "
            f"budget {budget:g} s (bound {bound:g} s)"
        )
        for r in results:
            print(
                f"  {r['seconds']:6.1f} s  {r['status']} {r['fallback_reason'] or ''}  "
                f"{'; '.join(r['step_failures'])}"
            )
        print(f"late or unsettled: {len(late)} of {len(results)}")
    return 1 if late else 0


if __name__ == "__main__":
    sys.exit(main())
