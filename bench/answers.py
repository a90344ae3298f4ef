"""Answer-quality benchmark: the cases of testkit/answer_cases.py against a running stack.

    .venv/bin/turnstile up --detach
    .venv/bin/python -m bench.answers [--api-url URL] [--category N ...] [--json]
    .venv/bin/python -m bench.answers --suites [--suite open_vocabulary ...] [--json]

With `--suites` it asks the cases of the open-world suites instead (`open_vocabulary`, `typed`,
`narrative`, `over_refusal`, `under_refusal`; `evals/suites/`), every one as a whole turn
through the API: a scope case passes when the turn is refused or declines the part
(over-refusal: when it is neither). It prints each suite's pass rate and the off-point
count: answers shown at confidence high or medium that lack what the case asks for, and
the reliability table: per confidence band, how many answers passed their case.

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

from domain.evaluation.scoring import ScopeExpected, TurnExpected, score_turn, shows
from domain.turns import TurnResult
from evals.cases import load_suites
from settings import get_settings
from testkit.answer_cases import CASES, CATEGORIES, Case, check
from workflows.rules.scope import DECLINE_LINE, OTHER_COMPANY_LINE

OPEN_SUITES = ("open_vocabulary", "narrative", "over_refusal", "under_refusal", "typed")
_DECLINES = (DECLINE_LINE, OTHER_COMPANY_LINE.split("{", 1)[0])

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
            conversation = f"answers-{uuid.uuid4()}"
            try:
                for earlier in case.before:
                    await ask(http, earlier, conversation)
                result = await ask(http, case.question, conversation)
                problems = check(case, result)
                answer = result.answer or ""
            except httpx.HTTPError as exc:
                problems, answer = [f"http: {type(exc).__name__}: {str(exc)[:120]}"], ""
            results.append(
                {
                    "id": case.id,
                    "category": case.category,
                    "pending": case.pending is not None,
                    "passed": not problems,
                    "problems": problems,
                    "unasked_figure": any(a in answer for a in case.absent),
                }
            )
    return {"api_url": api_url, "cases": results}


def refused_or_declined(result: TurnResult) -> bool:
    answer = result.answer or ""
    return result.status == "refused" or any(answer.startswith(d) for d in _DECLINES)


async def run_suites(api_url: str, names: list[str]) -> dict[str, Any]:
    suites = load_suites(names)
    results: list[dict[str, Any]] = []
    async with httpx.AsyncClient(base_url=api_url, timeout=60.0) as http:
        for name in names:
            for case in suites[name]:
                conversation = f"answers-{uuid.uuid4()}"
                try:
                    for earlier in case.before:  # a follow-up's conversation first
                        await ask(http, earlier, conversation)
                    result = await ask(http, case.query, conversation)
                except httpx.HTTPError as exc:
                    results.append(
                        {
                            "suite": name,
                            "id": case.id,
                            "passed": False,
                            "problems": [f"http: {type(exc).__name__}"],
                            "off_point": False,
                        }
                    )
                    continue
                expected = case.expected
                if isinstance(expected, ScopeExpected):
                    refused = refused_or_declined(result)
                    problems = (
                        []
                        if refused != expected.in_scope
                        else ["refused or declined" if refused else "answered, nothing declined"]
                    )
                    off_point = False
                else:
                    assert isinstance(expected, TurnExpected)
                    problems = score_turn(expected, result)
                    lacking = any(not shows(result.answer or "", p) for p in expected.present)
                    off_point = result.confidence in ("high", "medium") and lacking
                results.append(
                    {
                        "suite": name,
                        "id": case.id,
                        "passed": not problems,
                        "problems": problems,
                        "off_point": off_point,
                        "confidence": result.confidence,
                    }
                )
    return {"api_url": api_url, "suites": results}


def render_suites(report: dict[str, Any]) -> str:
    by_suite: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in report["suites"]:
        by_suite[r["suite"]].append(r)
    lines = [f"open-world suites against {report['api_url']} (whole turns)", ""]
    for name, rows in by_suite.items():
        passed = sum(r["passed"] for r in rows)
        off = sum(r["off_point"] for r in rows)
        lines.append(
            f"{name:>16}  {passed}/{len(rows)} ({passed / len(rows):.1%})  "
            f"off-point at high/medium: {off}"
        )
    lines += ["", "reliability (answers with a confidence, every suite): confidence, n, passed"]
    for band in ("high", "medium", "low"):
        rows = [r for r in report["suites"] if r.get("confidence") == band]
        if rows:
            passed = sum(r["passed"] for r in rows)
            lines.append(f"{band:>16}  {len(rows)}  {passed} ({passed / len(rows):.1%})")
    return "\n".join(lines)


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
    parser.add_argument("--suites", action="store_true", help="the open-world suites instead")
    parser.add_argument("--suite", action="append", choices=OPEN_SUITES, help="only these")
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
    if args.suites or args.suite:
        suites = asyncio.run(run_suites(api_url, args.suite or list(OPEN_SUITES)))
        print(json.dumps(suites) if args.json else render_suites(suites))
        return 0
    report = asyncio.run(run(api_url, cases))
    print(json.dumps(report) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
