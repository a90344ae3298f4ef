"""Answer quality: every case of `testkit/answer_cases.py` as whole turns through ChatTurn.

Real parts throughout: the dev server, PostgreSQL, the Qdrant index of the sample
corpus and the offline engine. A case not built yet (`pending`) is a strict xfail: it
documents the gap, and the day it passes the xfail fails, so the marker cannot go stale.
"""

from collections.abc import Callable

import pytest

from domain.models import NotFound
from domain.turns import TurnResult
from testkit.answer_cases import CASES, CATEGORIES, Case, check
from tests.conftest import Turns, TurnWorker, unique


def params() -> list[object]:
    out: list[object] = []
    for case in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=case.pending)] if case.pending else []
        out.append(pytest.param(case, id=f"{case.category}-{case.id}", marks=marks))
    return out


async def ask(turns: Turns, case: Case) -> TurnResult:
    conversation = unique("answers")
    for earlier in case.before:
        await turns.ask(earlier, conversation)
    return await turns.ask(case.question, conversation)


@pytest.mark.parametrize("case", params())
async def test_answer(
    case: Case, turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    async with turn_worker() as task_queue:
        result = await ask(turns_on(task_queue), case)
    problems = check(case, result)
    assert not problems, f"{case.id} ({CATEGORIES[case.category]}): {problems}\n{result.answer}"


def test_every_category_has_cases_with_unique_ids() -> None:
    categories = {c.category for c in CASES}
    assert categories == set(CATEGORIES)
    assert len({c.id for c in CASES}) == len(CASES)


def test_the_checker_can_fail() -> None:
    """A wrong answer is caught: the checks are not vacuous."""
    case = next(c for c in CASES if c.id == "fcf-bhp")
    wrong = TurnResult(
        turn_id="t",
        conversation_id="c",
        status="answered",
        question=case.question,
        answer="BHP Group's revenue for FY2024 was US$55,658 million [1].",
        confidence="high",
        not_found=[NotFound(company="BHP", fiscal_year=2024, metric="revenue")],
    )
    problems = check(case, wrong)
    assert any("55,658" in p for p in problems)
    assert any("free cash flow" in p for p in problems)
    assert any("confidence high" in p for p in problems)
