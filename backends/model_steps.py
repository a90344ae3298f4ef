"""Activities for the model-backed steps of a turn, each delegating to the engine.

Evidence arrives as chunk ids (claim check): these activities load the full text from
Qdrant, strip instruction-like lines (retrieved text is data, not instructions) and hand
text to the engine. Grader output is validated here: indices only, in range. Every step
heartbeats while it waits on Qdrant or the model, so a dead worker's attempt is retried
after the policy's heartbeat timeout.
"""

import asyncio
from collections.abc import Callable
from typing import Any

from temporalio import activity

from activities import steps
from activities.contracts import (
    AnswerGrade,
    CheckRequest,
    DocumentGrades,
    EvidenceRank,
    EvidenceRequest,
    RelevanceRequest,
    RewritePlan,
    RewriteRequest,
    RouteDecision,
    RouteRequest,
)
from activities.errors import invalid_input
from activities.steps import implements
from backends.embeddings import similarity_of
from backends.engines.calls import recording
from backends.engines.protocol import Engine
from backends.heartbeat import heartbeating
from backends.reports import ReportIndex, read_index
from domain.checks.evidence import strip_instructions
from domain.checks.numeric import check_numbers
from domain.checks.relevance import check_relevance
from domain.companies.roster import companies, display_name, proper_names
from domain.memory.rules import Excerpt, assemble_context, without_markers_to
from domain.models import ChunkText, Draft, GroundingReport, Relevance
from domain.questions.measures import asks_topic
from domain.reports.open_answers import Similarity


async def load_evidence(
    index: ReportIndex, chunk_ids: list[str], snapshot: str | None = None
) -> list[ChunkText]:
    """Load chunks in the given order with instruction-like lines removed, from the live
    index or from the frozen snapshot `snapshot` names.

    Raises a non-retryable InvalidInput when a chunk is gone (re-ingested mid-turn):
    source numbering must match the workflow's list exactly.
    """
    chunks = await asyncio.to_thread(read_index(index, snapshot).get_chunks, chunk_ids)
    if len(chunks) != len(chunk_ids):
        found = {c.chunk_id for c in chunks}
        missing = [c for c in chunk_ids if c not in found]
        raise invalid_input(f"{len(missing)} evidence chunk(s) no longer exist: {missing[:3]}")
    return [c.model_copy(update={"text": strip_instructions(c.text)[0]}) for c in chunks]


def excerpts(sources: list[ChunkText], ranked: list[EvidenceRank]) -> list[Excerpt]:
    """The sources as the context budget weighs them: numbered in request order, with
    their search rank and score where the workflow sent them."""
    strength = {r.chunk_id: r for r in ranked}
    found = [strength.get(c.chunk_id) for c in sources]
    return [
        Excerpt(
            n=n,
            text=c.text,
            company=c.company,
            rank=r.rank if r else 0,
            score=r.score if r else 0.0,
        )
        for n, (c, r) in enumerate(zip(sources, found, strict=True), start=1)
    ]


MAX_OWNERS = 2
"""A name in at most this many companies' reports points at them; more is a common word."""


def _name(ticker: str) -> str:
    return display_name(ticker)


class ModelActivities:
    def __init__(
        self,
        engine: Engine,
        index: ReportIndex,
        context_budget: int = 16_000,
        evidence_budget: int | None = None,
    ) -> None:
        self.engine = engine
        self.index = index
        self.context_budget = context_budget
        """The synthesis context's size limit, in the engine's unit (`context_size`)."""
        self.evidence_budget = evidence_budget
        """The evidence's share of it (None: no cap, for an engine with no window)."""

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [self.route, self.rewrite, self.grade_documents, self.synthesize, self.grade_answer]

    @implements(steps.llm_route_question)
    async def route(self, request: RouteRequest) -> RouteDecision:
        async with heartbeating():
            with recording() as calls:
                decision = await self.engine.route(request.question)
            if decision.route != "direct_answer" and not decision.slots.companies:
                index = read_index(self.index, request.snapshot)
                decision = await asyncio.to_thread(
                    self._owner_of_names, index, request.question, decision
                )
        return decision.model_copy(update={"model_calls": calls})

    @staticmethod
    def _owner_of_names(
        index: ReportIndex, question: str, decision: RouteDecision
    ) -> RouteDecision:
        """A question naming no company but a name only some companies' reports use
        ("When did the Oyu Tolgoi underground mine start producing?") is about those
        companies: the reports say whose the name is, so no list of assets is needed.
        A name every company's reports use (a city, "Board") says nothing."""
        owners: set[str] = set()
        for name in proper_names(question):
            found = index.companies_naming(name)
            if found and len(found) <= MAX_OWNERS:
                owners |= found
        if not owners or len(owners) > MAX_OWNERS:
            return decision
        owning = [t for t in companies() if t in owners]
        intent = decision.slots.intent
        slots = decision.slots
        if (
            intent != "narrative"
            and not (slots.metrics or slots.other_measures)
            and asks_topic(question)
        ):
            intent = "narrative"
        names = ", ".join(_name(t) for t in owning)
        return decision.model_copy(
            update={
                "route": "needs_retrieval",
                "reason": f"names what {names}'s reports name ({decision.reason} otherwise)",
                "slots": decision.slots.model_copy(update={"companies": owning, "intent": intent}),
                "clarifying_question": None,
            }
        )

    @implements(steps.llm_rewrite_query)
    async def rewrite(self, request: RewriteRequest) -> RewritePlan:
        async with heartbeating():
            with recording() as calls:
                plan = await self.engine.rewrite(request.question, request.slots)
        return plan.model_copy(update={"model_calls": calls})

    @implements(steps.llm_grade_documents)
    async def grade_documents(self, request: EvidenceRequest) -> DocumentGrades:
        """Judge each chunk's relevance; returns validated, unique, in-range indices."""
        async with heartbeating():
            chunks = await load_evidence(self.index, request.chunk_ids, request.snapshot)
            with recording() as calls:
                grades = await self.engine.grade_documents(request.question, request.slots, chunks)
        keep = sorted({i for i in grades.keep if 0 <= i < len(chunks)})
        return DocumentGrades(keep=keep, model_calls=calls)

    @implements(steps.llm_synthesize_answer)
    async def synthesize(self, request: EvidenceRequest) -> Draft:
        """A draft from the evidence and memory that fit the context budget, the strongest
        excerpts at the ends. A marker naming an excerpt left out is taken out of the
        draft: the model never read it (`Draft.left_out` names those excerpts)."""
        async with heartbeating():
            sources = await load_evidence(self.index, request.chunk_ids, request.snapshot)
            context = assemble_context(
                request.question,
                excerpts(sources, request.ranked),
                request.memory,
                self.context_budget,
                self.engine.context_size,
                self.evidence_budget,
            )
            if context.dropped or context.left_out:
                activity.logger.info(
                    "context budget dropped %s; left out %d of %d excerpts",
                    ", ".join(context.dropped) or "no note",
                    len(context.left_out),
                    len(sources),
                )
            with recording() as calls:
                draft = await self.engine.synthesize(
                    request.question,
                    request.slots,
                    sources,
                    context.memory,
                    [e.n for e in context.evidence],
                )
        left_out = [request.chunk_ids[n - 1] for n in context.left_out]
        answer = without_markers_to(draft.answer, set(context.left_out))
        return draft.model_copy(
            update={"answer": answer, "model_calls": calls, "left_out": left_out}
        )

    @implements(steps.llm_grade_answer)
    async def grade_answer(self, request: CheckRequest) -> AnswerGrade:
        """The judge: independent of the synthesiser; sees only answer and evidence."""
        async with heartbeating():
            sources = await load_evidence(self.index, request.chunk_ids, request.snapshot)
            with recording() as calls:
                grade = await self.engine.grade_answer(request.question, request.answer, sources)
        return grade.model_copy(update={"model_calls": calls})


class GroundingActivities:
    def __init__(self, index: ReportIndex) -> None:
        self.index = index
        # One for the worker's life (made at the first check): a question's focus phrase
        # is embedded once, not on every check (the chunks' texts are cached on disk).
        self._similarity: Similarity | None = None

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [self.check_numbers, self.check_relevance]

    @implements(steps.grounding_check_relevance)
    async def check_relevance(self, request: RelevanceRequest) -> Relevance:
        """The relevance control: deterministic, the same for every engine's draft (it reads
        the question, the answer and the cited chunks, never the draft's own gap list);
        meaning by the worker's embedder. An activity because it needs chunk text."""
        async with heartbeating():
            sources = await load_evidence(self.index, request.chunk_ids, request.snapshot)
            if self._similarity is None:
                self._similarity = similarity_of(self.index.embedder)
            return await asyncio.to_thread(
                check_relevance,
                request.question,
                request.answer,
                sources,
                request.derived,
                self._similarity,
            )

    @implements(steps.grounding_check_numbers)
    async def check_numbers(self, request: CheckRequest) -> GroundingReport:
        """Deterministic numeric grounding; an activity only because it needs chunk text."""
        async with heartbeating():
            sources = await load_evidence(self.index, request.chunk_ids, request.snapshot)
        return check_numbers(request.answer, sources, request.question)
