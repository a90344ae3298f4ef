"""Mock mode: synthetic outcomes through the real scorers, with no stack.

For every case two outcomes are made from its own expectation: one that a correct
system would give, which the scorer must pass, and one broken in the way the case is
about (the wrong status, route or ranking; a missing figure), which it must fail. A
case whose correct outcome fails contradicts itself (a figure both present and absent,
an opening the answer cannot have); a broken outcome that passes means the scorer
cannot fail. Both are reported as the case failing. Free and fast: `make test` runs it.
"""

import re

from domain.evaluation import (
    EvalCase,
    RetrievalExpected,
    Route,
    RoutingExpected,
    RoutingOutcome,
    TurnExpected,
    TurnStatusExpected,
    score_retrieval,
    score_routing,
    score_turn,
)
from domain.models import Citation, Derived, NotFound, SearchHitWithText
from domain.turns import TurnResult
from evals.results import CaseResult

CUTOFF = 5
_NOT_FOUND = re.compile(r"^(?P<company>[A-Z0-9]+) FY(?P<year>\d{4}) (?P<metric>.+)$")
_OTHER_STATUS: dict[str, TurnStatusExpected] = {
    "answered": "refused", "refused": "answered",
    "needs_clarification": "answered", "fallback": "answered",
}  # fmt: skip
_OTHER_ROUTE: dict[str, Route] = {
    "needs_retrieval": "out_of_scope", "out_of_scope": "needs_retrieval",
    "needs_clarification": "needs_retrieval", "direct_answer": "out_of_scope",
}  # fmt: skip


def _citation(n: int) -> Citation:
    return Citation(chunk_id=f"mock-{n}", company="BHP", fiscal_year=2024, page=n,
                    document="mock", preview="mock", n=n)  # fmt: skip


def good_turn(case: EvalCase, expected: TurnExpected) -> TurnResult:
    """The outcome a correct system gives for `expected`."""
    not_found = []
    for text in expected.not_found:
        match = _NOT_FOUND.match(text)
        if match is None:
            raise ValueError(f"not_found {text!r} does not read 'TICKER FYyyyy metric'")
        not_found.append(NotFound(company=match["company"], fiscal_year=int(match["year"]),
                                  metric=match["metric"]))  # fmt: skip
    parts = [expected.opens_with or "", *expected.present, *(nf.line() for nf in not_found)]
    if expected.table:
        parts.append("\n| company | figure |\n|---|---|\n| BHP | 1 |\n")
    answer = " ".join(p for p in parts if p) or "A synthetic answer of some length."
    citations = max(expected.min_citations or 0, 1 if expected.present else 0)
    asks = expected.status == "needs_clarification"
    return TurnResult(
        turn_id=f"mock-{case.id}", conversation_id="mock", status=expected.status,
        question=case.query, grounded=expected.grounded,
        citations=[_citation(n) for n in range(1, citations + 1)],
        derived=[Derived(label=d, formula="mock") for d in expected.derived],
        not_found=not_found, refusal_reason=expected.refusal_reason,
        answer=None if asks else answer, clarifying_question=answer if asks else None,
    )  # fmt: skip


def broken_turn(good: TurnResult, expected: TurnExpected) -> TurnResult:
    answer = good.answer or ""
    for figure in expected.present[:1]:
        answer = answer.replace(figure, "")
    return good.model_copy(update={"status": _OTHER_STATUS[expected.status], "answer": answer})


def _routing(expected: RoutingExpected, broken: bool) -> RoutingOutcome:
    route = _OTHER_ROUTE[expected.route] if broken else expected.route
    return RoutingOutcome(
        route=route, by=expected.by or "classifier", reason="mock",
        declines=bool(expected.declines), companies=expected.companies or [],
        fiscal_years=expected.fiscal_years or [], metrics=expected.metrics or [],
    )  # fmt: skip


def _ranking(expected: RetrievalExpected, broken: bool) -> list[SearchHitWithText]:
    def hit(rank: int, text: str, year: int) -> SearchHitWithText:
        return SearchHitWithText(
            chunk_id=f"mock-{rank}", company=expected.company, fiscal_year=year, page=1,
            document="mock", section="mock", rank=rank, score=1.0 / rank, text=text,
        )  # fmt: skip

    other_year = expected.fiscal_year - 1
    ranking = [hit(r, "nothing relevant", expected.fiscal_year) for r in range(1, CUTOFF + 2)]
    if broken:  # the figure only in another year's chunk, or only past the cutoff
        ranking[0] = hit(1, " ".join(expected.figures), other_year)
        ranking[-1] = hit(CUTOFF + 1, " ".join(expected.figures), expected.fiscal_year)
    else:
        ranking[1] = hit(2, f"| row | {expected.figures[0]} |", expected.fiscal_year)
    return ranking


def score_case(case: EvalCase) -> CaseResult:
    expected = case.expected
    try:
        if isinstance(expected, TurnExpected):
            good = good_turn(case, expected)
            ok = score_turn(expected, good)
            bad = score_turn(expected, broken_turn(good, expected))
        elif isinstance(expected, RoutingExpected):
            ok = score_routing(expected, _routing(expected, broken=False))
            bad = score_routing(expected, _routing(expected, broken=True))
        else:
            ok = score_retrieval(expected, _ranking(expected, broken=False), CUTOFF)
            bad = score_retrieval(expected, _ranking(expected, broken=True), CUTOFF)
    except ValueError as err:
        return CaseResult(suite=case.suite, id=case.id, passed=False, problems=[str(err)])
    problems = [f"a correct outcome fails: {p}" for p in ok]
    if not bad:
        problems.append("a broken outcome passes: the scorer cannot fail this case")
    return CaseResult(suite=case.suite, id=case.id, passed=not problems, problems=problems,
                      passes=int(not problems))  # fmt: skip


def run_mock(cases: list[EvalCase]) -> list[CaseResult]:
    return [score_case(case) for case in cases]
