"""A retrieval pass, and how the best one becomes the turn's outcome: its draft with
refuted figures taken out, bound to its citations, every gap line present, and the
notices and declines a person must read first. A cached answer is reused the same way.
Pure functions: the decision lines go to the `note` they are given (`_without_refuted`
asks its patch, `REFUTED_EVERY_SENTENCE`, of the workflow it runs in)."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.contracts import CachedAnswer, RewritePlan, RouteDecision
    from domain.companies.roster import display_name, latest_fiscal_year
    from domain.memory.rules import preference_notice
    from domain.models import (
        CheckedFigure,
        ChunkHit,
        Derived,
        Draft,
        NotFound,
        Relevance,
        Slots,
        Source,
        SubQuery,
        UnsupportedClaim,
    )
    from domain.questions.question import asks_figures
    from domain.questions.years import coverage_notice, coverage_warning
    from domain.turns import Carried, Citation
    from workflows import progress
    from workflows.rules import gate
    from workflows.rules.citations import Bound, bind_citations
    from workflows.rules.coverage import asked_items, ensure_gap_lines, items_missing, unanswered
    from workflows.rules.refuted import (
        remove_every_refuted,
        remove_refuted,
        substance_left,
    )
    from workflows.rules.relevance import RelevanceVerdict, relevance_verdict
    from workflows.turn.errors import TurnError
    from workflows.turn.outcome import Outcome

REFUTED_EVERY_SENTENCE = "refuted-every-sentence-v1"
"""ChatTurn patch (2026-12-04): every sentence that carries a refuted figure is taken out,
and a draft with one that cannot be found falls back (`gate.UNVERIFIED`); asked only when
the chosen draft has refuted claims. Before it, one sentence per claim label was."""
RELEVANCE_OF_WHAT_REMAINS = "relevance-of-what-remains-v1"
"""ChatTurn patch (2026-12-07): when the gate takes refuted sentences out of the chosen
draft, the relevance control runs again on the text that remains (a question answered only
by a sentence taken out is not answered); asked only when the chosen draft has refuted
claims. Before it, the draft's relevance stood for what was shown."""
NUMBERS_UNCHECKED_CLOSED = "numbers-unchecked-closed-v1"
"""ChatTurn patch (2026-12-04): a draft whose numeric check could not run is never shown
(no unchecked figure reaches a person): another pass's checked draft is, else the turn
falls back (`gate.NUMBERS_UNCHECKED`); asked only when a check failed. Before it, the
draft was shown at low confidence."""
Note = Callable[[str, str], None]
"""`TurnStream.note`: the operator's line, then the person's."""
SPOKE_TO_READER_WARNING = (
    "A sentence of the drafted answer spoke of instructions or called itself verified; it "
    "was taken out (only the checks say what is verified)."
)


@dataclass
class Pass:
    """One retrieval pass: its draft (None when none was composed) and its checks."""

    number: int
    draft: Draft | None
    sources: list[ChunkHit]
    unsupported: list[UnsupportedClaim]
    derived: list[Derived]
    quality_passed: bool
    judge_unavailable: bool = False
    numbers_unverified: bool = False
    checked_numbers: int = 0
    relevance: Relevance | None = None
    relevance_checked: bool = True
    """False when the relevance control was due and could not run (fail-closed)."""
    sentences: dict[str, str] = field(default_factory=dict)
    """Each unsupported claim's sentence in the draft, by label (the numeric check's)."""
    spoke_to_reader: int = 0
    """Sentences of the draft taken out for instructions or a claim of being verified."""
    verified: list[CheckedFigure] = field(default_factory=list)
    """The answer's figures the numeric check found backed (company, year, metric)."""
    judge_closed: bool = False
    """The judge was down and fails closed (`TurnInput.judge_policy`): the draft is
    never shown."""
    every_sentence: dict[str, list[str]] = field(default_factory=dict)
    """Every sentence in the draft that carries each unsupported claim, by label."""

    @property
    def gaps(self) -> list[NotFound]:
        return self.draft.not_found if self.draft else []

    @property
    def figures_given(self) -> bool:
        return self.checked_numbers > 0 or self.numbers_unverified


def shown_passes(
    done: list[Pass], unchecked_closed: Callable[[], bool]
) -> tuple[dict[int, Pass], str | None]:
    """The passes whose draft may be shown, by number; and, when none may, the fallback
    reason of the closed check that withheld a draft (None: no draft was composed). A
    draft whose numeric check could not run is withheld where `unchecked_closed()` says
    so (the workflow's `NUMBERS_UNCHECKED_CLOSED` patch; asked only when there is one)."""
    drafted = {p.number: p for p in done if p.draft is not None and not p.judge_closed}
    unchecked = [p for p in drafted.values() if p.numbers_unverified]
    if unchecked and unchecked_closed():
        drafted = {n: p for n, p in drafted.items() if not p.numbers_unverified}
        if not drafted and not any(p.judge_closed for p in done):
            return drafted, gate.NUMBERS_UNCHECKED
    withheld = gate.JUDGE_UNAVAILABLE if any(p.judge_closed for p in done) else None
    return drafted, withheld


def plan_for(
    plan: RewritePlan, question: str, slots: Slots, requested: list[str]
) -> list[SubQuery]:
    """One sub-query per requested company: the rewrite's, or the company's name plus the
    question when the rewrite gave none for it (or failed)."""
    by_company = {sq.company: sq for sq in plan.sub_queries if sq.company in requested}
    for ticker in requested:
        by_company.setdefault(
            ticker,
            SubQuery(
                company=ticker,
                query=f"{display_name(ticker)} {question}",
                fiscal_years=slots.fiscal_years,
                metrics=slots.metrics,
            ),
        )
    return [by_company[t] for t in requested]


def with_notices(text: str, resolved: str, carried: Carried, decline: str | None) -> str:
    """What a person must read before the answer, outermost first: a decline of advice
    or a prediction around the fact, a year not covered, a preference applied, a year said
    in words and how it was read."""
    if carried.year_read:
        text = f"The year asked about, read as {carried.year_read}.\n\n{text}"
    if remembered := preference_notice(carried.preferences):
        text = f"{remembered}\n\n{text}"
    if notice := coverage_notice(resolved):
        text = f"{notice}\n\n{text}"
    if decline:
        text = f"{decline}\n\n{text}"
    return text


def reused(entry: CachedAnswer, resolved: str, carried: Carried, decline: str | None) -> Outcome:
    """A cached answer as this turn's outcome: the same notices and declines as a fresh
    answer, then the final gate and confidence shaping at the turn's one exit."""
    warning = coverage_warning(resolved)
    return Outcome(
        "answered",
        with_notices(entry.answer, resolved, carried, decline),
        "answer_cache",
        resolved,
        carried,
        warnings=list(entry.warnings) + ([warning] if warning else []),
        citations=list(entry.citations),
        derived=list(entry.derived),
        not_found=list(entry.not_found),
        unsupported=list(entry.unsupported),
        coverage=dict(entry.coverage),
        had_evidence=True,
        figures_given=entry.figures_given,
        items_asked=entry.items_asked,
        items_missing=entry.items_missing,
    )


def _asked_gaps(
    best: Pass,
    slots: Slots,
    coverage: dict[str, bool],
    resolved: str,
    known: set[str],
    removed: list[str],
) -> list[NotFound]:
    """What was asked and no backed figure gives, whatever the draft lists: a gap line
    each, less those already listed (`known`) or taken out as refuted (their own line)."""
    missed = unanswered(list(coverage), slots, best.verified, best.derived, resolved)
    gone = {label.lower() for label in removed}
    return [g for g in missed if g.line().lower() not in known and g.label().lower() not in gone]


def _gaps(
    best: Pass,
    bound: Bound,
    slots: Slots,
    coverage: dict[str, bool],
    resolved: str,
    removed: list[str],
    note: Note,
) -> tuple[list[NotFound], RelevanceVerdict]:
    """Every gap line the answer must carry, and the relevance control's verdict. A draft
    the final gate will refuse gets neither: they must not turn an empty answer into one
    that passes."""
    if best.draft is None or not gate.final_gate(bound.answer):
        return list(best.gaps), RelevanceVerdict()
    latest = latest_fiscal_year()
    years = slots.fiscal_years or ([latest] if latest is not None else [])
    verdict = relevance_verdict(best.relevance, list(coverage), years, best.relevance_checked)
    known = {g.line().lower() for g in best.draft.not_found}
    # A figure taken out has its removal line: not a not-found line beside it as well.
    gone = {label.lower() for label in removed}
    gaps = [
        *best.draft.not_found,
        *(
            g
            for g in verdict.gaps
            if g.line().lower() not in known and g.label().lower() not in gone
        ),
    ]
    if not best.numbers_unverified:
        asked = _asked_gaps(
            best, slots, coverage, resolved, known | {g.line().lower() for g in gaps}, removed
        )
        if asked:
            note(*progress.asked_gaps(len(asked)))
            gaps.extend(asked)
    return gaps, verdict


def without_refuted(best: Pass, note: Note) -> tuple[str | None, list[str]]:
    """The draft with each figure still refuted taken out, every sentence that says it (a
    figure still refuted is never shown; a draft the gate refuses anyway is left to it),
    and their labels; no text when a refuted sentence could not be found to take out."""
    if best.draft is None:  # only drafted passes are chosen
        raise TurnError("the chosen pass has no draft", "NoDraft")
    answer = best.draft.answer
    if not (best.unsupported and gate.final_gate(answer)):
        return answer, []
    if not workflow.patched(REFUTED_EVERY_SENTENCE):
        answer, removed = remove_refuted(answer, best.unsupported, best.sentences)
        if removed:
            note(*progress.refuted_taken_out(len(removed)))
        return answer, removed
    # A check recorded before `every_sentence` existed gave one sentence per claim.
    every = best.every_sentence or {label: [s] for label, s in best.sentences.items()}
    removal = remove_every_refuted(answer, best.unsupported, every)
    if removal.removed:
        note(*progress.refuted_taken_out(len(removal.removed)))
    if removal.not_found:
        note(*progress.refuted_not_found(len(removal.not_found)))
        return None, removal.removed
    return removal.answer, removal.removed


class _Items(TypedDict):
    items_asked: int
    items_missing: int


def _items(asked: list[NotFound], gaps: list[NotFound], removed: list[str]) -> _Items:
    """The outcome's count of asked items and of those the answer does not give."""
    return {"items_asked": len(asked), "items_missing": items_missing(asked, gaps, removed)}


@dataclass(frozen=True)
class _Written:
    """The chosen draft as the person will read it, before its notices."""

    text: str
    citations: list[Citation]
    warnings: list[str]
    citation_warnings: list[str]
    """The citation binder's own warnings: the only ones a cached answer keeps."""
    gaps: list[NotFound]
    verdict: RelevanceVerdict
    items: _Items


def answered(
    best: Pass,
    resolved: str,
    carried: Carried,
    decision: RouteDecision,
    coverage: dict[str, bool],
    decline: str | None,
    turn_id: str,
    note: Note,
) -> Outcome:
    """The best pass's draft, bound to its citations, with every gap line present."""
    answer, removed = without_refuted(best, note)
    if answer is None or (removed and not substance_left(answer, removed)):
        return Outcome(
            "answered",
            None,
            decision.route,
            resolved,
            carried,
            coverage=coverage,
            had_evidence=True,
            fallback_reason=gate.UNVERIFIED,
        )
    written = _written(best, answer, decision.slots, coverage, resolved, removed, note)
    clean = None
    if best.quality_passed and not (written.verdict.low or removed or best.spoke_to_reader):
        clean = _cache_entry(best, turn_id, resolved, coverage, written)
    return _answered_outcome(
        best, resolved, carried, decision, coverage, decline, written, clean, len(removed)
    )


def _written(
    best: Pass,
    answer: str,
    slots: Slots,
    coverage: dict[str, bool],
    resolved: str,
    removed: list[str],
    note: Note,
) -> _Written:
    """The draft bound to its citations, every gap line present, the relevance verdict's
    lead and the warnings a person must read."""
    bound = bind_citations(answer, [Source.narrowed(h) for h in best.sources])
    citation_warnings = list(bound.warnings)
    if warning := coverage_warning(resolved):
        bound.warnings.append(warning)
    gaps, verdict = _gaps(best, bound, slots, coverage, resolved, removed, note)
    text, added = ensure_gap_lines(bound.answer, gaps)
    if added:
        note(*progress.gap_lines_added(len(added)))
    text = f"{verdict.lead}\n\n{text}" if verdict.lead else text
    bound.warnings += [verdict.warning] if verdict.warning else []
    bound.warnings += [SPOKE_TO_READER_WARNING] if best.spoke_to_reader else []
    return _Written(
        text=text,
        citations=[Citation(**s.model_dump(), n=n) for n, s in bound.cited],
        warnings=bound.warnings,
        citation_warnings=citation_warnings,
        gaps=gaps,
        verdict=verdict,
        items=_items(asked_items(list(coverage), slots, resolved), gaps, removed),
    )


def _cache_entry(
    best: Pass, turn_id: str, resolved: str, coverage: dict[str, bool], written: _Written
) -> CachedAnswer:
    """The clean answer the cache may keep (before any notice or disclaimer)."""
    return CachedAnswer(
        turn_id=turn_id,
        question=resolved,
        answer=written.text,
        citations=written.citations,
        derived=best.derived,
        not_found=best.gaps,
        unsupported=best.unsupported,
        coverage=coverage,
        figures_given=best.figures_given,
        warnings=written.citation_warnings,
        **written.items,
    )


def _answered_outcome(
    best: Pass,
    resolved: str,
    carried: Carried,
    decision: RouteDecision,
    coverage: dict[str, bool],
    decline: str | None,
    written: _Written,
    clean: CachedAnswer | None,
    removed: int,
) -> Outcome:
    """The answered outcome: the written draft with its notices, and what the gate,
    the confidence rule and the decision record read."""
    return Outcome(
        "answered",
        with_notices(written.text, resolved, carried, decline),
        decision.route,
        resolved,
        carried,
        citations=written.citations,
        derived=best.derived,
        not_found=written.gaps,
        unsupported=best.unsupported,
        warnings=written.warnings,
        coverage=coverage,
        had_evidence=True,
        judge_unavailable=best.judge_unavailable,
        numbers_unverified=best.numbers_unverified,
        figures_given=best.figures_given,
        figures_asked=asks_figures(decision.slots),
        figures_checked=best.checked_numbers,
        to_cache=clean,
        relevance=best.relevance,
        verdict=written.verdict,
        **written.items,
        removed=removed,
    )
