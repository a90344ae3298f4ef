"""The offline engine: deterministic implementations of every model-backed step.

No keys, no network, no I/O. It is a real engine for structured financial questions:
it routes with rules, decomposes a question into one sub-query per company, grades
evidence lexically, and composes answers ONLY from the figures in the source chunks'
tables (prose as a fallback), computing growth and differences itself and listing them
as derived with their formulas. Its judge is the numeric grounding check, which sees the
answer and the sources and nothing the synthesiser knew.

Each step lives in its own module of this package: `route`, `rewrite`, `grade` (the
documents kept and the draft's grade), `sections` (the answer, section by section, with
`facts`, `compose`, `compare`, `tables`, `open_answers`, `narrative` and `wording`
behind it) and `analyst` (a question asked as an analyst asks it).
"""

import re
from collections.abc import Sequence

from activities.contracts import AnswerGrade, DocumentGrades, RewritePlan, RouteDecision
from backends.embeddings import Embedder, similarity_of
from backends.engines.offline import grade, rewrite, route, sections
from domain.companies.roster import find_companies
from domain.language.sentences import split_sentences
from domain.memory.rules import MemoryNote, merge_summary
from domain.models import ChunkText, Draft, Slots
from domain.reports.open_answers import Similarity

ENGINE_NAME = "offline-1"

_DECISION = re.compile(
    r"\b(?:confirm\w*|decid\w*|prefer\w*|agree\w*|chose|choose|selected|yes|no|only|instead|"
    r"always|never|focus\w*|interested)\b",
    re.IGNORECASE,
)


class OfflineEngine:
    """Deterministic, rule-based engine; see the module docstring.

    With an `embedder` (the worker's), a measure asked in words the reports do not use
    ("how often were workers hurt") also meets a report's label by meaning; without one,
    by its stemmed words only.
    """

    name = ENGINE_NAME

    def __init__(self, embedder: "Embedder | None" = None) -> None:
        self._similarity = similarity_of(embedder) if embedder is not None else None

    def similarity(self) -> Similarity | None:
        """Cosine similarity by the embedder (see `similarity_of`), or None without one."""
        return self._similarity

    async def route(self, question: str) -> RouteDecision:
        """Route by rules (`route.route`): the reason names the rule that fired."""
        return route.route(question)

    async def rewrite(self, question: str, slots: Slots) -> RewritePlan:
        """One sub-query per company: name, metric names and report wordings, FY tokens
        (an analyst's question: its line items and statements)."""
        return rewrite.rewrite(question, slots)

    async def grade_documents(
        self, question: str, slots: Slots, chunks: list[ChunkText]
    ) -> DocumentGrades:
        """Keep chunks that hold a requested metric (tables) or share its vocabulary
        (prose), and, for a narrative question, the chunk of the sentence closest in
        meaning to it (`grade.grade_documents`)."""
        return grade.grade_documents(question, slots, chunks, self.similarity())

    def context_size(self, text: str) -> int:
        """The offline budget is in characters."""
        return len(text)

    async def synthesize(
        self,
        question: str,
        slots: Slots,
        sources: list[ChunkText],
        memory: Sequence[MemoryNote] = (),
        shown: Sequence[int] | None = None,
    ) -> Draft:
        """Compose cited sentences from the sources' figures: an analyst's question by its
        line items, a choice among options by theirs, else `sections`, in this order.

        `memory` is not read: this engine states only what the evidence holds, so a
        remembered claim cannot reach its answer. Preferences reach it through the
        resolved question ("[your preference: in billions]"), where they are visible.
        Nor is `shown`: this engine has no window to fill, so it reads every source in
        retrieval order (the worker gives it no evidence budget).
        """
        if not sources:
            return Draft(answer="")
        if (draft := sections.analyst_answer(question, slots, sources)) is not None:
            return draft
        similarity = self.similarity()
        if (draft := sections.chosen_option(question, slots, sources, similarity)) is not None:
            return draft
        drafting = sections.start(question, slots, sources, similarity)
        for build in (
            sections.figures,  # each company's figures and changes, a paragraph each
            sections.figure_tables,  # three or more companies: a table per metric, first
            sections.commodity_note,  # "only X mines gold", first
            sections.shares_of_total,  # a company's share of a total, first
            sections.rankings,  # the one asked for first, each year's ranking after
            sections.open_measures,  # measures in the reports' words; the highest first
            sections.unread_measures,  # a measure with no rule: not found, never swapped
            sections.what_reports_say,  # the reports' sentences, quoted
            sections.currency_note,  # a currency asked that the reports do not use, first
            sections.year_end_note,  # fiscal years that end on different dates
            sections.not_found_lines,  # the exact not-found lines, last
        ):
            build(drafting)
        return drafting.draft()

    async def grade_answer(
        self, question: str, answer: str, sources: list[ChunkText]
    ) -> AnswerGrade:
        """Quality leniently (fail only empty or all-disclaimer answers); groundedness
        strictly, by the numeric grounding check on the answer text and sources alone."""
        return grade.grade_answer(question, answer, sources)

    async def summarize(self, messages: list[str]) -> str:
        """An increment, extractively: the sentences with numbers, company names or
        decisions, one a line, oldest first, merged one fact a line and bounded as the
        summary is (`domain.memory.rules.merge_summary`)."""
        kept = [
            sentence
            for message in messages
            for sentence in split_sentences(message)
            if re.search(r"\d", sentence) or find_companies(sentence) or _DECISION.search(sentence)
        ]
        if not kept:  # nothing of note: the messages themselves, cut to the bound
            kept = [" ".join(" ".join(messages).split())]
        return merge_summary(None, "\n".join(kept))
