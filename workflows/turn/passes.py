"""The retrieval passes of a turn: search, grade, draft and check; a refuted figure
drafted once more; another pass with changed queries while the retry rule says so."""

from dataclasses import dataclass, replace

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.contracts import AnswerGrade, CheckRequest, RewritePlan
    from domain.checks.injection import without_instructions
    from domain.checks.numeric import merge_claims
    from domain.companies.roster import latest_fiscal_year
    from domain.models import ChunkHit, Draft, GroundingReport, Relevance, Slots, SubQuery
    from workflows import progress
    from workflows.rules.coverage import company_status, gaps_to_retry
    from workflows.rules.refuted import REMOVED_LINE
    from workflows.rules.retry import (
        metric_synonyms,
        plan_retry,
        retry_targets,
        retryable,
        should_retry,
    )
    from workflows.turn.answer import (
        NUMBERS_UNCHECKED_CLOSED,
        RELEVANCE_OF_WHAT_REMAINS,
        Pass,
        without_refuted,
    )
    from workflows.turn.steps import TurnSteps


@dataclass(frozen=True)
class _Checked:
    """A draft's numeric check (an empty report when it could not run) and relevance."""

    report: GroundingReport
    numbers_unverified: bool
    relevance: Relevance | None
    relevance_checked: bool


CLAIM_NAMES = "claim-label-names-v1"
"""A claim label naming its company by name retargets that company's search."""
UNCOVERED_RETRY = "uncovered-company-retry-v1"
"""A requested company with no surviving evidence is searched again, changed, even when
the draft names no gap for it (a question with no figure); asked only then."""


class RetrievalPasses:
    """A turn's passes over the reports for one resolved question."""

    def __init__(self, steps: TurnSteps) -> None:
        self._steps = steps
        self._stream, self._ledger = steps.stream, steps.ledger
        self._budget, self._memory = steps.budget, steps.memory
        self._redrafted = False

    async def run(
        self, resolved: str, slots: Slots, requested: list[str], plan: RewritePlan
    ) -> tuple[list[Pass], dict[str, ChunkHit], dict[str, bool]]:
        """Every pass, the evidence kept across passes, and the last coverage."""
        current = {sq.company: sq for sq in plan.sub_queries}
        to_search = list(current.values())
        kept: dict[str, ChunkHit] = {}
        passes: list[Pass] = []
        while True:
            number = len(passes) + 1
            self._ledger.retries = number - 1
            new = await self._gather(resolved, slots, to_search, kept)
            sources = list(kept.values())
            coverage = company_status(requested, {h.company for h in sources})
            self._stream.note(*progress.pass_found(number, new, len(sources), coverage))
            this = await self._draft_and_check(number, resolved, slots, sources)
            if this.judge_closed:  # no unjudged draft is shown: another pass cannot help
                passes.append(this)
                return passes, kept, coverage
            if this.unsupported and not self._redrafted and self._budget.time_for("redraft"):
                this = await self._redraft(this, resolved, slots, sources)
            passes.append(this)
            gaps = retryable(this.gaps, slots.other_measures)
            if not self._retries(this, len(gaps), number - 1, coverage):
                return passes, kept, coverage
            if not self._budget.time_for(f"retry {number}"):
                return passes, kept, coverage
            retry = self._next_queries(this, list(current.values()), coverage, slots)
            if retry is None:
                return passes, kept, coverage
            current.update((sq.company, sq) for sq in retry)
            to_search = retry

    @staticmethod
    def _retries(this: Pass, gaps: int, done: int, coverage: dict[str, bool]) -> bool:
        """Whether another pass runs (`should_retry`); a company with no surviving
        evidence counts only under its patch, asked only when it alone decides."""
        if should_retry(this.quality_passed, gaps, len(this.unsupported), done):
            return True
        uncovered = sum(not found for found in coverage.values())
        return should_retry(
            this.quality_passed, gaps, len(this.unsupported), done, uncovered
        ) and workflow.patched(UNCOVERED_RETRY)

    async def as_shown(self, best: Pass, question: str) -> Pass:
        """The chosen pass with its relevance judged on what the reader will see: the
        draft without the sentences the gate takes out for a refuted figure (their removal
        lines aside). A question answered only by a sentence taken out is not answered:
        its item is missing, with its not-found line and the confidence it caps."""
        if best.draft is None or not best.unsupported:
            return best
        if not workflow.patched(RELEVANCE_OF_WHAT_REMAINS):
            return best
        answer, removed = without_refuted(best, lambda operator, person: None)  # noted later
        if answer is None or not removed:
            return best  # nothing taken out, or the gate falls back on it anyway
        lines = {REMOVED_LINE.format(label=label) for label in removed}
        shown = "\n".join(ln for ln in answer.splitlines() if ln.strip() not in lines)
        relevance, checked = await self._steps.check_relevance(
            question, shown, [h.chunk_id for h in best.sources], [d.label for d in best.derived]
        )
        return replace(best, relevance=relevance, relevance_checked=checked)

    async def _gather(
        self, question: str, slots: Slots, sub_queries: list[SubQuery], kept: dict[str, ChunkHit]
    ) -> int:
        """Search, and keep what grading finds relevant among the hits not kept before;
        returns how many new hits were graded."""
        hits = await self._steps.search_chunks(sub_queries)
        self._ledger.retrieve(hits)
        candidates = [
            h for h in dict((h.chunk_id, h) for h in hits).values() if h.chunk_id not in kept
        ]
        for hit in await self._steps.grade_documents(question, slots, candidates):
            kept[hit.chunk_id] = hit
            self._ledger.keep(hit)
        return len(candidates)

    async def _draft_and_check(
        self,
        number: int,
        question: str,
        slots: Slots,
        sources: list[ChunkHit],
        refuted: list[str] | None = None,
    ) -> Pass:
        """Draft from the evidence, then check the draft: its figures, its relevance to
        the question, and the judge's grade."""
        if not sources:
            return Pass(number, None, [], [], [], quality_passed=False)
        draft, spoken = await self._drafted(question, slots, sources, refuted)
        if draft is None:
            return Pass(number, None, sources, [], [], quality_passed=False)
        check = CheckRequest(
            question=question, answer=draft.answer, chunk_ids=[h.chunk_id for h in sources]
        )
        checked = await self._checked(check, draft)
        grade = await self._steps.grade_answer(check)
        if grade is None and self._steps.judge_fails_closed:  # the ledger noted it
            return Pass(number, draft, sources, [], [], quality_passed=False, judge_closed=True)
        return self._checked_pass(number, draft, sources, spoken, checked, grade)

    async def _drafted(
        self, question: str, slots: Slots, sources: list[ChunkHit], refuted: list[str] | None
    ) -> tuple[Draft | None, int]:
        """The draft, without the sentences that speak to the reader (the checks check
        what is shown), and how many were taken out."""
        draft = await self._steps.synthesize_answer(question, slots, sources, refuted)
        if draft is None:
            return None, 0
        answer, spoken = without_instructions(draft.answer)
        if spoken:
            self._stream.note(*progress.spoken_taken_out(len(spoken)))
            draft = draft.model_copy(update={"answer": answer})
        return draft, len(spoken)

    async def _checked(self, check: CheckRequest, draft: Draft) -> _Checked:
        """The draft's numeric check, then its relevance control."""
        report = await self._steps.check_numbers(check)
        numbers_unverified = report is None
        report = report or GroundingReport()
        relevance, relevance_checked = await self._steps.check_relevance(
            check.question,
            draft.answer,
            check.chunk_ids,
            [d.label for d in report.derived + draft.derived],
        )
        return _Checked(report, numbers_unverified, relevance, relevance_checked)

    def _checked_pass(
        self,
        number: int,
        draft: Draft,
        sources: list[ChunkHit],
        spoken: int,
        checked: _Checked,
        grade: AnswerGrade | None,
    ) -> Pass:
        """The pass with its checks' findings (a judge that did not answer passes it)."""
        judge_unavailable = grade is None
        grade = grade or AnswerGrade(quality_passed=True)
        report = checked.report
        unsupported = merge_claims(report.unsupported, grade.unsupported)
        self._stream.note(
            *progress.pass_checked(
                number, grade.quality_passed, len(unsupported), len(draft.not_found)
            )
        )
        return Pass(
            number,
            draft,
            sources,
            unsupported,
            report.derived or draft.derived,
            grade.quality_passed,
            judge_unavailable,
            checked.numbers_unverified,
            report.checked_numbers,
            checked.relevance,
            checked.relevance_checked,
            report.sentences,
            spoken,
            report.verified,
            every_sentence=report.every_sentence,
        )

    async def _redraft(
        self, last: Pass, question: str, slots: Slots, sources: list[ChunkHit]
    ) -> Pass:
        """Once per turn: the same evidence drafted again, its input naming the claims the
        checks refuted (a retry changes its input); the draft with fewer refuted claims
        is kept."""
        self._redrafted = True
        labels = [c.label for c in last.unsupported]
        self._stream.note(
            f"redraft {last.number}: naming {len(labels)} refuted claim(s)",
            f"Writing the answer again, without the {progress.plural(len(labels), 'statement')}"
            " the checks refuted",
        )
        again = await self._draft_and_check(last.number, question, slots, sources, labels)
        if again.draft is None or again.judge_closed:  # the judged draft stands
            return last
        unchecked = again.numbers_unverified != last.numbers_unverified
        if unchecked and workflow.patched(NUMBERS_UNCHECKED_CLOSED):
            # The checked draft of the two: one whose figures went unchecked is never shown.
            return last if again.numbers_unverified else again
        if len(again.unsupported) > len(last.unsupported):
            return last
        return again

    def _next_queries(
        self, last: Pass, current: list[SubQuery], coverage: dict[str, bool], slots: Slots
    ) -> list[SubQuery] | None:
        """The changed sub-queries of the next pass; None (recorded) when nothing can change."""
        drafted = retryable(last.gaps, slots.other_measures) if last.draft else None
        gaps = gaps_to_retry(drafted, coverage, slots, latest_fiscal_year() or 0)
        targets = retry_targets(coverage, gaps, last.unsupported)
        retry_plan = plan_retry(
            current, targets, gaps, last.unsupported, last.number, metric_synonyms
        )
        # A model judge's label may name the company ("Rio Tinto FY2025 revenue") rather
        # than open with its ticker: that company is searched again too. Asked only
        # when it changes the plan, so a history recorded before replays as it ran.
        named = retry_targets(coverage, gaps, last.unsupported, by_name=True)
        by_name = plan_retry(
            current, named, gaps, last.unsupported, last.number, metric_synonyms, by_name=True
        )
        if by_name != retry_plan and workflow.patched(CLAIM_NAMES):
            retry_plan = by_name
        if retry_plan is None:
            self._ledger.retry_skipped = "nothing in the sub-queries could change"
            self._stream.note(
                f"retry skipped: {self._ledger.retry_skipped}",
                "Nothing could be searched for differently, so the search stops here",
            )
            return None
        self._stream.note(
            f"retry {last.number}: {'; '.join(retry_plan.changes)}",
            "Searching again, differently, for what is still missing",
        )
        return retry_plan.sub_queries
