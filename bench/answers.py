"""Answer-quality benchmark: the cases of tests/answers/cases.py against a running stack.

    .venv/bin/turnstile up --detach
    .venv/bin/python -m bench.answers [--api-url URL] [--category N ...] [--json]

Each case is asked through the HTTP API as a person would (earlier questions of the same
conversation first), one turn at a time, and checked exactly as the test suite checks it.
It prints the pass rate per category, every failing case with what was wrong, and the
number of answers that presented a figure the question did not ask for (a case's
`absent` figure in the answer). Cases marked pending (not built yet) are run and counted
separately. Exit code 0 when it ran, whatever the figures; 2 when the API does not answer.
"""

import argparse
import asyncio
import json
import sys
import time
import uuid
from collections import defaultdict
from typing import Any

import httpx

from domain.turns import TurnResult
from settings import get_settings
from tests.answers.cases import CASES, CATEGORIES, Case, check

WAITING = {"running"}
POLL_SECONDS = 0.2


async def ask(http: httpx.AsyncClient, question: str, conversation: str) -> TurnResult:
    response = await http.post(
        "/v1/turns", json={"question": question, "conversation_id": conversation}
    )
    response.raise_for_status()
    data = response.json()
    deadline = time.monotonic() + 120
    while data.get("status") in WAITING and time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        polled = await http.get(f"/v1/turns/{data['turn_id']}")
        polled.raise_for_status()
        data = polled.json()
    return TurnResult.model_validate(data)


async def run(api_url: str, cases: list[Case]) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    async with httpx.AsyncClient(base_url=api_url, timeout=60.0) as http:
        for case in cases:
            conversation = f"answers{uuid.uuid4().hex[:16]}"
            try:
                for earlier in case.before:
                    await ask(http, earlier, conversation)
                result = await ask(http, case.question, conversation)
                problems = check(case, result)
                answer = result.answer or ""
            except httpx.HTTPError as exc:
                problems, answer = [f"http: {type(exc).__name__}: {str(exc)[:120]}"], ""
            results.append({
                "id": case.id, "category": case.category, "pending": case.pending is not None,
                "passed": not problems, "problems": problems,
                "unasked_figure": any(a in answer for a in case.absent),
            })  # fmt: skip
    return {"api_url": api_url, "cases": results}


def render(report: dict[str, Any]) -> str:
    by_category: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in report["cases"]:
        by_category[r["category"]].append(r)
    lines = [f"answer quality against {report['api_url']}", ""]
    lines.append(f"{'cat':>3}  {'built':>9}  {'pending':>9}  category")
    for category, name in CATEGORIES.items():
        rows = by_category.get(category, [])
        built = [r for r in rows if not r["pending"]]
        pending = [r for r in rows if r["pending"]]

        def rate(rs: list[dict[str, Any]]) -> str:
            return f"{sum(r['passed'] for r in rs)}/{len(rs)}" if rs else "-"

        lines.append(f"{category:>3}  {rate(built):>9}  {rate(pending):>9}  {name}")
    unasked = [r["id"] for r in report["cases"] if r["unasked_figure"]]
    lines += ["", f"answers presenting a figure not asked for: {len(unasked)} {unasked or ''}"]
    failed = [r for r in report["cases"] if not r["passed"] and not r["pending"]]
    if failed:
        lines += ["", "failing (built) cases:"]
        lines += [f"  {r['category']}-{r['id']}: {'; '.join(r['problems'])}" for r in failed]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api-url", default=None, help="default: the configured API")
    parser.add_argument("--category", type=int, action="append", help="only these categories")
    parser.add_argument("--json", action="store_true", help="print one JSON report")
    args = parser.parse_args(argv)
    api_url = args.api_url or get_settings().api_url
    cases = [c for c in CASES if not args.category or c.category in args.category]
    try:
        httpx.get(f"{api_url}/healthz", timeout=5.0)
    except httpx.HTTPError:
        print(
            f"the API at {api_url} does not answer; start the stack: turnstile up", file=sys.stderr
        )
        return 2
    report = asyncio.run(run(api_url, cases))
    print(json.dumps(report) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
