"""Mock mode: synthetic outcomes through the real scorers, with no stack.

For every case, outcomes are made from its own expectation: one that a correct system
would give, which the scorer must pass, and one per checked key wrong in that key alone
(the status, each figure that must be present or absent, the not-found lines, the
opening, groundedness, citations, derived figures, the table, the route and each slot,
the ranking), each of which it must fail. A case whose correct outcome fails contradicts
itself (a figure both present and absent, an opening the answer cannot have); a wrong
outcome that passes means the scorer cannot fail on that key. Both fail the case.
Free and fast: `make test` runs it.
"""

import re

from domain.evaluation.scoring import (
    EvalCase,
    RetrievalExpected,
    Route,
    RoutingExpected,
    RoutingOutcome,
    ScopeExpected,
    TurnExpected,
    TurnStatusExpected,
    score_retrieval,
    score_routing,
    score_scope,
    score_turn,
)
from domain.models import Citation, Derived, NotFound, SearchHitWithText
from domain.turns import TurnResult
from evals.results import CaseResult

CUTOFF = 5
_NOT_FOUND = re.compile(r"^(?P<company>[A-Z0-9]+) FY(?P<year>\d{4}) (?P<metric>.+)$")
_OTHER_STATUS: dict[str, TurnStatusExpected] = {
    "answered": "refused",
    "refused": "answered",
    "needs_clarification": "answered",
    "fallback": "answered",
}
_OTHER_ROUTE: dict[str, Route] = {
    "needs_retrieval": "out_of_scope",
    "out_of_scope": "needs_retrieval",
    "needs_clarification": "needs_retrieval",
    "direct_answer": "out_of_scope",
}


def _citation(n: int) -> Citation:
    return Citation(
        chunk_id=f"mock-{n}",
        company="BHP",
        fiscal_year=2024,
        page=n,
        document="mock",
        preview="mock",
        n=n,
    )


def good_turn(case: EvalCase, expected: TurnExpected) -> TurnResult:
    """The outcome a correct system gives for `expected`."""
    # long: builds one TurnResult; most lines are its fields, one a line.
    not_found = []
    for text in expected.not_found:
        match = _NOT_FOUND.match(text)
        if match is None:
            raise ValueError(f"not_found {text!r} does not read 'TICKER FYyyyy metric'")
        not_found.append(
            NotFound(
                company=match["company"], fiscal_year=int(match["year"]), metric=match["metric"]
            )
        )
    parts = [expected.opens_with or "", *expected.present, *(nf.line() for nf in not_found)]
    if expected.table:
        parts.append("\n| company | figure |\n|---|---|\n| BHP | 1 |\n")
    answer = " ".join(p for p in parts if p) or "A synthetic answer of some length."
    citations = max(expected.min_citations or 0, 1 if expected.present else 0)
    cited = [_citation(n) for n in range(1, citations + 1)]
    cited += [
        Citation(
            chunk_id=f"mock-cite-{i}",
            company=c.company,
            fiscal_year=c.fiscal_year,
            page=(c.pages or [1])[0],
            document="mock",
            preview="mock",
            n=len(cited) + i,
        )
        for i, c in enumerate(expected.cites, start=1)
    ]
    asks = expected.status == "needs_clarification"
    return TurnResult(
        turn_id=f"mock-{case.id}",
        conversation_id="mock",
        status=expected.status,
        question=case.query,
        grounded=expected.grounded,
        citations=cited,
        derived=[Derived(label=d, formula="mock") for d in expected.derived],
        not_found=not_found,
        refusal_reason=expected.refusal_reason,
        answer=None if asks else answer,
        clarifying_question=answer if asks else None,
    )


def broken_turns(good: TurnResult, expected: TurnExpected) -> list[tuple[str, TurnResult]]:
    """One outcome per checked key, each wrong in that key alone: the scorer must fail
    every one, so no expectation of the case goes unchecked."""
    answer = good.answer or good.clarifying_question or ""
    text = "clarifying_question" if good.answer is None else "answer"

    def said(new: str) -> dict[str, object]:
        return {text: new}

    allowed = {expected.status, *expected.status_in}
    other = next(s for s in (_OTHER_STATUS[expected.status], *_OTHER_STATUS) if s not in allowed)
    broken = [("status", good.model_copy(update={"status": other}))]
    if expected.confidence_not:
        band = expected.confidence_not[0]
        broken.append(("confidence_not", good.model_copy(update={"confidence": band})))
    broken += [
        (f"present {p!r}", good.model_copy(update=said(answer.replace(p, ""))))
        for p in expected.present
    ]
    broken += [
        (f"absent {a!r}", good.model_copy(update=said(f"{answer} {a}"))) for a in expected.absent
    ]
    if expected.not_found:
        broken.append(("not_found", good.model_copy(update={"not_found": []})))
    if expected.opens_with:
        broken.append(("opens_with", good.model_copy(update=said(f"Well. {answer}"))))
    if expected.grounded:
        other = "no" if expected.grounded != "no" else "yes"
        broken.append(("grounded", good.model_copy(update={"grounded": other})))
    broken += _broken_citations(good, expected)
    if expected.derived:
        broken.append(("derived", good.model_copy(update={"derived": []})))
    if expected.table is not None:
        flipped = answer.replace("|---|", "") if expected.table else f"{answer}\n|a|\n|---|\n"
        broken.append(("table", good.model_copy(update=said(flipped))))
    if expected.refusal_reason:
        broken.append(("refusal_reason", good.model_copy(update={"refusal_reason": "other"})))
    return broken


def _broken_citations(good: TurnResult, expected: TurnExpected) -> list[tuple[str, TurnResult]]:
    """Too few citations, and each source to cite left uncited."""
    broken = []
    if expected.min_citations:
        fewer = good.citations[: expected.min_citations - 1]
        broken.append(("min_citations", good.model_copy(update={"citations": fewer})))
    for cite in expected.cites:
        others = [c for c in good.citations if not cite.cited_by([c])]
        broken.append((f"cites {cite.describe()!r}", good.model_copy(update={"citations": others})))
    return broken


def _routing(expected: RoutingExpected, broken: bool = False) -> RoutingOutcome:
    route = _OTHER_ROUTE[expected.route] if broken else expected.route
    return RoutingOutcome(
        route=route,
        by=expected.by or "classifier",
        reason="mock",
        declines=bool(expected.declines),
        companies=expected.companies or [],
        fiscal_years=expected.fiscal_years or [],
        metrics=expected.metrics or [],
    )


def _scoped(in_scope: bool) -> RoutingOutcome:
    route: Route = "needs_retrieval" if in_scope else "out_of_scope"
    return RoutingOutcome(route=route, by="rules", reason="mock")


def _ranking(expected: RetrievalExpected, broken: bool) -> list[SearchHitWithText]:
    def hit(rank: int, text: str, year: int) -> SearchHitWithText:
        return SearchHitWithText(
            chunk_id=f"mock-{rank}",
            company=expected.company,
            fiscal_year=year,
            page=1,
            document="mock",
            section="mock",
            rank=rank,
            score=1.0 / rank,
            text=text,
        )

    other_year = expected.fiscal_year - 1
    ranking = [hit(r, "nothing relevant", expected.fiscal_year) for r in range(1, CUTOFF + 2)]
    if broken:  # the figure only in another year's chunk, or only past the cutoff
        ranking[0] = hit(1, " ".join(expected.figures), other_year)
        ranking[-1] = hit(CUTOFF + 1, " ".join(expected.figures), expected.fiscal_year)
    else:
        ranking[1] = hit(2, f"| row | {expected.figures[0]} |", expected.fiscal_year)
    return ranking


def _routings(expected: RoutingExpected) -> list[tuple[str, RoutingOutcome]]:
    good = _routing(expected, broken=False)
    broken = [("route", good.model_copy(update={"route": _OTHER_ROUTE[expected.route]}))]
    if expected.by:
        other = "rules" if expected.by == "classifier" else "classifier"
        broken.append(("by", good.model_copy(update={"by": other})))
    if expected.companies is not None:
        broken.append(
            ("companies", good.model_copy(update={"companies": [*good.companies, "XYZ"]}))
        )
    if expected.fiscal_years is not None:
        broken.append(
            ("fiscal_years", good.model_copy(update={"fiscal_years": [*good.fiscal_years, 1999]}))
        )
    if expected.metrics is not None:
        broken.append(("metrics", good.model_copy(update={"metrics": [*good.metrics, "other"]})))
    if expected.declines is not None:
        broken.append(("declines", good.model_copy(update={"declines": not expected.declines})))
    return broken


# What the scorer's problem says when it catches each key (the wording of
# `domain.evaluation.scoring`): a wrong outcome must be failed for its own key, not for another
# check it happens to trip as well.
_SAYS = {
    "status": "status ",
    "present": "missing ",
    "absent": "unexpected ",
    "not_found": "not-found line",
    "opens_with": "does not open with",
    "grounded": "grounded ",
    "min_citations": "citation(s), expected",
    "derived": "derived figure",
    "table": "table",
    "refusal_reason": "refusal reason",
    "route": "route ",
    "by": "decided by",
    "companies": "companies ",
    "fiscal_years": "fiscal_years ",
    "metrics": "metrics ",
    "declines": "declin",
    "ranking": "",
    "in_scope": "scope",
    "confidence_not": "confidence ",
    "cites": "no citation of",
}


def _names(key: str, problems: list[str]) -> bool:
    said = _SAYS[key.split(" ", 1)[0]]
    return any(said in p for p in problems)


def score_case(case: EvalCase) -> CaseResult:
    expected = case.expected
    try:
        if isinstance(expected, TurnExpected):
            good = good_turn(case, expected)
            ok = score_turn(expected, good)
            bad = [(key, score_turn(expected, b)) for key, b in broken_turns(good, expected)]
        elif isinstance(expected, ScopeExpected):
            ok = score_scope(expected, _scoped(expected.in_scope))
            bad = [("in_scope", score_scope(expected, _scoped(not expected.in_scope)))]
        elif isinstance(expected, RoutingExpected):
            ok = score_routing(expected, _routing(expected, broken=False))
            bad = [(key, score_routing(expected, b)) for key, b in _routings(expected)]
        else:
            ok = score_retrieval(expected, _ranking(expected, broken=False), CUTOFF)
            wrong = _ranking(expected, broken=True)
            bad = [("ranking", score_retrieval(expected, wrong, CUTOFF))]
    except ValueError as err:
        return CaseResult(suite=case.suite, id=case.id, passed=False, problems=[str(err)])
    problems = [f"a correct outcome fails: {p}" for p in ok]
    problems += [
        f"an outcome wrong in {key} passes: the scorer cannot fail it"
        for key, found in bad
        if not _names(key, found)
    ]
    return CaseResult.scored(case, problems)


def run_mock(cases: list[EvalCase]) -> list[CaseResult]:
    return [score_case(case) for case in cases]
