"""Evaluation: the case format, the scorers, and the probe thresholds — pure rules.

A case is one JSON line with `id`, `query`, `expected` and `why_it_matters` (one line
naming the regression it catches). `parse_cases` refuses a line missing any of them,
naming the file and the line, and checks `expected` against its suite's shape. The
scorers say what is wrong with an outcome (an empty list: the case passes); the same
scorers serve mock mode (synthetic outcomes), real mode (the running stack) and the golden
probes (inside a workflow, so nothing here does I/O or reads a clock).

The probe thresholds come from the binomial distribution: with `n` probes that each pass
with probability `p` on a healthy system, the alarm threshold is the largest pass count
`t` with P(X < t) ≤ alpha, so a healthy system alarms in at most `alpha` of runs. Exact
arithmetic (`math.comb`, fractions); no statistics library is needed for one sum.
"""

import json
import math
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from domain.checks.tables import said_in_table
from domain.models import Citation
from domain.turns import TurnResult

SUITES = (
    "routing",
    "retrieval",
    "calculation",
    "boundary",
    "over_refusal",
    "under_refusal",
    "open_vocabulary",
    "narrative",
    "typed",
)
SAMPLED = ("open_vocabulary", "narrative", "typed")
"""Suites of whole turns too long for every test run: `make test` runs a fixed sample
(`sample`), `turnstile eval --mode real` and `bench/answers.py` run all of them."""
SLICES = ("single_figure", "comparison", "follow_up", "boundary")
DRAFTS = "live"
"""The shape of cases drafted from live turns (`turnstile eval add-case`): whole turns,
read from a candidates file (evals/candidates/), never from a suite, until confirmed."""
REQUIRED = ("id", "query", "expected", "why_it_matters")
TurnStatusExpected = Literal["answered", "refused", "needs_clarification", "fallback"]
Route = Literal["needs_retrieval", "needs_clarification", "out_of_scope", "direct_answer"]


class CaseError(ValueError):
    """A suite file that cannot be used; `str()` names the file and line."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


Text = Annotated[str, StringConstraints(min_length=1)]


class ExpectedCite(_Strict):
    """A source the answer must cite: the company's report of `fiscal_year`, on one of
    `pages` (any page of it when `pages` is empty)."""

    company: Text
    fiscal_year: int
    pages: list[int] = Field(default_factory=list)

    def describe(self) -> str:
        where = f" p.{'/'.join(str(p) for p in self.pages)}" if self.pages else ""
        return f"{self.company} FY{self.fiscal_year} report{where}"

    def cited_by(self, citations: Sequence[Citation]) -> bool:
        return any(
            c.company == self.company
            and c.fiscal_year == self.fiscal_year
            and (not self.pages or c.page in self.pages)
            for c in citations
        )


class TurnExpected(_Strict):
    """What a person must see in a whole turn's outcome; every key given is checked."""

    status: TurnStatusExpected
    present: list[Text] = Field(default_factory=list)
    absent: list[Text] = Field(default_factory=list)
    not_found: list[Text] = Field(default_factory=list)
    opens_with: Text | None = None
    grounded: Literal["yes", "partial", "no"] | None = None
    min_citations: int | None = Field(default=None, ge=0)
    derived: list[Text] = Field(default_factory=list)
    table: bool | None = None
    refusal_reason: Text | None = None
    status_in: list[TurnStatusExpected] = Field(default_factory=list)
    """Statuses that also pass ("fallback" or an honest "answered" for a topic the
    reports never mention); `status` is the one a correct system most likely gives."""
    confidence_not: list[Literal["high", "medium", "low"]] = Field(default_factory=list)
    cites: list[ExpectedCite] = Field(default_factory=list)
    """Sources the answer must cite, each on one of its pages."""


class RoutingExpected(_Strict):
    route: Route
    by: Literal["rules", "classifier"] | None = None
    companies: list[str] | None = None
    fiscal_years: list[int] | None = None
    metrics: list[str] | None = None
    declines: bool | None = None


class RetrievalExpected(_Strict):
    company: Text
    fiscal_year: int
    figures: list[Text] = Field(min_length=1)


class ScopeExpected(_Strict):
    """Whether the routing steps keep a question in scope: refused means routed out of
    scope or a part declined (the scope rules' line); in scope means neither."""

    in_scope: bool


Expected = TurnExpected | RoutingExpected | RetrievalExpected | ScopeExpected
_SHAPES: dict[str, type[BaseModel]] = {
    "routing": RoutingExpected,
    "retrieval": RetrievalExpected,
    "calculation": TurnExpected,
    "boundary": TurnExpected,
    "over_refusal": ScopeExpected,
    "under_refusal": ScopeExpected,
    "open_vocabulary": TurnExpected,
    "narrative": TurnExpected,
    "typed": TurnExpected,
    "probe": TurnExpected,
    DRAFTS: TurnExpected,
}


class CaseOrigin(_Strict):
    """Where a case drafted from a live turn came from, for the reviewer who confirms it."""

    turn_id: Text
    why: list[str] = Field(default_factory=list)
    """Why the turn is a candidate: its "wrong figure" rating, the probe it failed."""
    status: str = ""
    """The turn's status as settled."""
    shown: str = ""
    """What the turn showed the person (its answer, question back or refusal)."""
    notes: list[str] = Field(default_factory=list)
    """What the draft could not decide: a reviewer settles each before confirming."""
    corpus_version: str | None = None


class EvalCase(_Strict):
    suite: str
    id: str = Field(min_length=1)
    query: str = Field(min_length=1)
    expected: TurnExpected | RoutingExpected | RetrievalExpected | ScopeExpected
    why_it_matters: str = Field(min_length=1)
    before: list[str] = Field(default_factory=list)
    """Earlier questions of the same conversation, asked first in order."""
    tags: list[str] = Field(default_factory=list)
    source: str = ""
    """Where the case was read: `file:line`."""
    confirmed: bool = True
    """False for a case drafted from a live turn until a reviewer confirms it: a suite
    or a probe set refuses an unconfirmed case (`parse_cases`)."""
    origin: CaseOrigin | None = None
    """The live turn a drafted case came from."""

    def to_line(self) -> str:
        """The case as one JSONL line, as `parse_cases` reads it (no suite or source)."""
        data = self.model_dump(mode="json", exclude={"suite", "source"}, exclude_defaults=True)
        return json.dumps(data, ensure_ascii=False)


def parse_cases(text: str, source: str, suite: str) -> list[EvalCase]:
    """Read one JSONL suite; raise `CaseError` naming `source:line` for the first bad line."""
    # long: each line of a case file parsed and checked, its errors said with their line.
    shape = _SHAPES.get(suite)
    if shape is None:
        raise CaseError(f"{source}: unknown suite {suite!r}")
    cases: list[EvalCase] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as err:
            raise CaseError(f"{where}: not JSON ({err.msg})") from None
        if not isinstance(raw, dict):
            raise CaseError(f"{where}: a case is a JSON object")
        missing = [f for f in REQUIRED if f not in raw or raw[f] in ("", None)]
        if missing:
            raise CaseError(f"{where}: missing {', '.join(missing)}")
        if "\n" in str(raw["why_it_matters"]):
            raise CaseError(f"{where}: why_it_matters must be one line")
        try:
            expected = shape.model_validate(raw["expected"])
        except ValidationError as err:
            raise CaseError(f"{where}: {_first_error(err, 'expected.')}") from None
        try:
            case = EvalCase.model_validate(
                {**raw, "suite": suite, "expected": expected, "source": where}
            )
        except ValidationError as err:
            raise CaseError(f"{where}: {_first_error(err)}") from None
        if not case.confirmed and suite != DRAFTS:
            raise CaseError(
                f"{where}: case {case.id!r} is not confirmed: a drafted case "
                "joins a suite once a reviewer confirms it"
            )
        if case.id in seen:
            raise CaseError(f"{where}: id {case.id!r} already used on line {seen[case.id]}")
        seen[case.id] = number
        cases.append(case)
    return cases


def _first_error(err: ValidationError, prefix: str = "") -> str:
    first = err.errors()[0]
    return f"{prefix}{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"


# ---- scorers ----------------------------------------------------------------------------


_BARE_FIGURE = re.compile(r"-?\d{1,3}(?:,\d{3})*(?:\.\d+)?|-?\d+(?:\.\d+)?")
_SCALED = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s*"
    r"(billion|bn|million|m)\b",
    re.IGNORECASE,
)


def shows(answer: str, wanted: str) -> bool:
    """Whether `answer` shows `wanted`: as written, or, for a bare figure ("1,928"), the
    same amount a thousand times coarser or finer with its scale word ("US$1.928 billion"
    for a figure printed in millions; "9,120 million" for 9.12 printed in billions). An
    answer that writes a series in one unit gives the figure exactly, at another scale."""
    if wanted in answer:
        return True
    if not _BARE_FIGURE.fullmatch(wanted):
        return False
    value = Fraction(wanted.replace(",", ""))
    for m in _SCALED.finditer(answer):
        said = Fraction(m.group(1).replace(",", ""))
        coarser = m.group(2).lower() in ("billion", "bn")
        if said == (value / 1000 if coarser else value * 1000):
            return True
    return False


def score_turn(expected: TurnExpected, result: TurnResult) -> list[str]:
    """What is wrong with a settled turn for `expected` (empty: it passes)."""
    problems: list[str] = []
    answer = result.answer or result.clarifying_question or ""
    allowed = {expected.status, *expected.status_in}
    if result.status not in allowed:
        problems.append(f"status {result.status}, expected {' or '.join(sorted(allowed))}")
    if result.confidence in expected.confidence_not:
        problems.append(
            f"confidence {result.confidence}, expected none of {', '.join(expected.confidence_not)}"
        )
    problems += [f"missing {p!r}" for p in expected.present if not shows(answer, p)]
    problems += [f"unexpected {a!r}" for a in expected.absent if a in answer]
    problems += _not_found_problems(expected, result, answer)
    if expected.opens_with and not answer.startswith(expected.opens_with):
        problems.append(f"does not open with {expected.opens_with!r}")
    if expected.grounded and result.grounded != expected.grounded:
        problems.append(f"grounded {result.grounded}, expected {expected.grounded}")
    if expected.min_citations is not None and len(result.citations) < expected.min_citations:
        problems.append(f"{len(result.citations)} citation(s), expected ≥ {expected.min_citations}")
    labels = [d.label for d in result.derived]
    for wanted in expected.derived:
        if not any(wanted in label for label in labels):
            problems.append(f"no derived figure labelled with {wanted!r} (got {labels})")
    if expected.table is not None and _has_table(answer) != expected.table:
        problems.append("no table" if expected.table else "an unexpected table")
    if expected.refusal_reason and result.refusal_reason != expected.refusal_reason:
        problems.append(
            f"refusal reason {result.refusal_reason}, expected {expected.refusal_reason}"
        )
    problems += [
        f"no citation of the {c.describe()}"
        for c in expected.cites
        if not c.cited_by(result.citations)
    ]
    figures = expected.status == "answered" and expected.present and result.status == "answered"
    if figures and not result.citations:
        problems.append("a figure is given without a citation")
    return problems


def _not_found_problems(expected: TurnExpected, result: TurnResult, answer: str) -> list[str]:
    """Each expected gap listed, and said in the answer: as its line, or as its company's
    row of a comparison table."""
    problems = []
    lines = [nf.line() for nf in result.not_found]
    for wanted in expected.not_found:
        if not any(wanted in line for line in lines):
            problems.append(f"no not-found line with {wanted!r}")
        rows = [nf for nf in result.not_found if wanted in nf.line() and said_in_table(nf, answer)]
        if wanted not in answer and not rows:
            problems.append(f"the answer text lacks {wanted!r}")
    return problems


_TABLE_RULE = re.compile(r"^\s*\|\s*:?-{3,}", re.MULTILINE)


def _has_table(text: str) -> bool:
    """A markdown table: a header rule row (`|---|`, `| :--- |`)."""
    return _TABLE_RULE.search(text) is not None


class RoutingOutcome(_Strict):
    """What the routing steps decided: the scope rules, then the router."""

    route: Route
    by: Literal["rules", "classifier"]
    reason: str
    declines: bool = False
    companies: list[str] = Field(default_factory=list)
    fiscal_years: list[int] = Field(default_factory=list)
    metrics: list[str] = Field(default_factory=list)


def score_routing(expected: RoutingExpected, outcome: RoutingOutcome) -> list[str]:
    problems: list[str] = []
    if outcome.route != expected.route:
        problems.append(f"route {outcome.route} ({outcome.reason}), expected {expected.route}")
    if expected.by and outcome.by != expected.by:
        problems.append(f"decided by the {outcome.by}, expected the {expected.by}")
    for name in ("companies", "fiscal_years", "metrics"):
        want = getattr(expected, name)
        got = getattr(outcome, name)
        if want is not None and sorted(want) != sorted(got):
            problems.append(f"{name} {sorted(got)}, expected {sorted(want)}")
    if expected.declines is not None and outcome.declines != expected.declines:
        problems.append("declines the advice" if outcome.declines else "does not decline")
    return problems


def score_scope(expected: ScopeExpected, outcome: RoutingOutcome) -> list[str]:
    refused = outcome.route == "out_of_scope" or outcome.declines
    if expected.in_scope and refused:
        how = "declined in part" if outcome.declines else "refused"
        return [f"in scope but {how} ({outcome.reason})"]
    if not expected.in_scope and not refused:
        return [f"out of scope but routed {outcome.route} ({outcome.reason}), nothing declined"]
    return []


def sample(cases: Sequence[EvalCase], every: int) -> list[EvalCase]:
    """Every `every`-th case, from the first: a fixed sample, the same on every run."""
    return list(cases[::every])


class Returned(Protocol):
    """A returned chunk with its text (a search hit with text, or a chunk)."""

    @property
    def company(self) -> str: ...
    @property
    def fiscal_year(self) -> int: ...
    @property
    def text(self) -> str: ...


def holds(text: str, figure: str) -> bool:
    """`figure` in `text` as a whole number: "55,658" is not in "155,658" or "55,6581"."""
    pattern = rf"(?<![\d.,]){re.escape(figure)}(?!\d|[.,]\d)"
    return re.search(pattern, text) is not None


def is_hit(expected: RetrievalExpected, chunk: Returned) -> bool:
    """A returned chunk of the expected company and year whose text holds a figure."""
    return (
        chunk.company == expected.company
        and chunk.fiscal_year == expected.fiscal_year
        and any(holds(chunk.text, figure) for figure in expected.figures)
    )


def first_hit_rank(expected: RetrievalExpected, returned: Sequence[Returned]) -> int | None:
    return next((i for i, c in enumerate(returned, start=1) if is_hit(expected, c)), None)


def score_retrieval(
    expected: RetrievalExpected, returned: Sequence[Returned], cutoff: int
) -> list[str]:
    rank = first_hit_rank(expected, returned)
    if rank is None:
        return [
            f"no chunk of {expected.company} FY{expected.fiscal_year} with "
            f"{' or '.join(expected.figures)} in the {len(returned)} returned"
        ]
    if rank > cutoff:
        return [f"first hit at rank {rank}, beyond {cutoff}"]
    return []


# ---- golden-probe thresholds ------------------------------------------------------------


def binomial_cdf_below(threshold: int, n: int, p: Fraction) -> Fraction:
    """P(X < threshold) for X ~ Binomial(n, p), exactly."""
    return sum(
        (Fraction(math.comb(n, k)) * p**k * (1 - p) ** (n - k) for k in range(max(threshold, 0))),
        Fraction(0),
    )


def pass_threshold(n: int, healthy_rate: float, alpha: float = 0.05) -> int:
    """The fewest passes (of `n`) that do not alarm: the largest `t` with
    P(X < t) ≤ alpha when each probe passes with `healthy_rate`.

    A run alarms when its passes are below the threshold, so a healthy system alarms in
    at most `alpha` of runs. `healthy_rate` 1 gives `n` (any failure alarms).
    """
    if n <= 0:
        return 0
    p, a = Fraction(str(healthy_rate)), Fraction(str(alpha))
    threshold = 0
    for t in range(n + 1):
        if binomial_cdf_below(t, n, p) <= a:
            threshold = t
        else:
            break
    return threshold


class SliceRun(_Strict):
    """One slice of one probe run: counted, compared with its threshold."""

    slice: str
    cases: int
    passed: int
    threshold: int
    failed: list[str] = Field(default_factory=list)
    """`id: first problem` of each failing case."""
    failed_turns: list[str] = Field(default_factory=list)
    """The turn of each failing case, in `failed`'s order ("" where none settled)."""
    healthy_rate: float | None = None
    """The healthy pass rate the threshold was computed at (None: runs before it was
    taken from the slice's history)."""

    @property
    def breached(self) -> bool:
        return self.passed < self.threshold


PRIOR_PROBES = 20
"""How many probes' worth of weight the configured healthy rate carries against a
slice's own history (`healthy_rate`)."""
HISTORY_RUNS = 20
"""How many of a slice's latest healthy runs its healthy rate is read from."""


def healthy_rate(
    history: Sequence[tuple[int, int]], prior: float, prior_probes: int = PRIOR_PROBES
) -> float:
    """One probe's pass rate on a healthy system, for one slice, from its own history.

    `history` holds (cases, passed) of the slice's latest runs that did not breach; the
    configured rate (`prior`) counts as `prior_probes` more probes passing at that rate,
    so a slice with no history yet uses the configured rate and one with a long history
    its own: a slice that has not failed in hundreds of probes breaches on one failure
    (an incident still needs two breaches in a row), one that fails a probe in most
    runs gets a lower bar. Breached runs are left out, so a slice that keeps failing
    does not lower its own bar."""
    cases = sum(c for c, _ in history)
    passed = sum(p for _, p in history)
    rate = (passed + prior * prior_probes) / (cases + prior_probes)
    return round(min(max(rate, 1e-6), 1.0), 6)


def incident_due(breached: bool, before: Sequence[bool]) -> bool:
    """Whether this run opens an incident: it breached and so did the run before, and the
    run before that did not (one incident per streak of breaches, not one per run).
    `before` holds the earlier runs' breaches, newest first."""
    return breached and len(before) >= 1 and before[0] and not (len(before) >= 2 and before[1])


def incident_category(problems: list[str]) -> str:
    """The incident category (docs/incidents.md) a breached slice's failures point to:
    an answer where a refusal was due is a scope breach; a refusal or a question back
    where an answer was due is a wrongful refusal; anything else is a wrong answer."""
    if any(p.startswith("status answered, expected refused") for p in problems):
        return "scope_breach"
    if any(
        p.startswith(("status refused", "status needs_clarification", "status fallback"))
        and p.endswith("expected answered")
        for p in problems
    ):
        return "wrongful_refusal"
    return "unsupported_claim_shown"
