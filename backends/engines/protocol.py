"""The engine protocol: every model-backed step of a turn, one method each.

The offline engine (default) and the OpenAI-compatible engine implement it. Methods get
text, not ids: the model-step activities load chunk text from Qdrant and call these.
"""

from collections.abc import Sequence
from typing import Protocol

from activities.contracts import AnswerGrade, DocumentGrades, RewritePlan, RouteDecision
from domain.memory.rules import MemoryNote
from domain.models import ChunkText, Draft, Slots


class Engine(Protocol):
    name: str
    """Model name(s) recorded with each decision, e.g. "offline-1"."""

    async def route(self, question: str) -> RouteDecision:
        """Classify the (resolved) question; extract its slots."""
        ...

    async def rewrite(self, question: str, slots: Slots) -> RewritePlan:
        """Decompose into one search sub-query per company."""
        ...

    async def grade_documents(
        self, question: str, slots: Slots, chunks: list[ChunkText]
    ) -> DocumentGrades:
        """Return the indices of chunks relevant to the question (never rewritten text)."""
        ...

    async def synthesize(
        self,
        question: str,
        slots: Slots,
        sources: list[ChunkText],
        memory: Sequence[MemoryNote] = (),
        shown: Sequence[int] | None = None,
    ) -> Draft:
        """Compose an answer with inline [n] markers (1-based into `sources`).

        Every requested (company, fiscal year, metric) that the sources do not hold
        gets a NotFound entry and its exact line in the answer. `memory` is remembered
        context, already fitted to the budget and labelled a claim: never a source.
        `shown` is the source numbers that fit the evidence budget, in the order to show
        them (strongest at the ends); None: every source in its order. Each keeps its
        number whatever its place, so the markers mean the same to every later step.
        """
        ...

    def context_size(self, text: str) -> int:
        """How much of the context budget `text` takes (characters, or tokens)."""
        ...

    async def grade_answer(
        self, question: str, answer: str, sources: list[ChunkText]
    ) -> AnswerGrade:
        """Judge quality (leniently) and groundedness (strictly); never sees the draft's notes."""
        ...

    async def summarize(self, messages: list[str]) -> str:
        """Summarise messages (oldest first) into an increment, one fact a line, keeping
        numbers, companies and decisions; it is merged into the conversation's summary
        (`domain.memory.rules.merge_summary`), never handed the summary itself."""
        ...
