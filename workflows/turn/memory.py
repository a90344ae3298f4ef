"""What the turn remembers: the conversation's summary, the user's preferences that
apply to its question, and what the answer cache said (a hint for synthesis, the
corpus version an answer written back is stamped with)."""

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.contracts import CacheLookup
    from domain.memory.rules import MemoryNote, RecentMessage, conversation_note, without_markers

NO_USER_TEXT = (
    "I can only remember preferences for a known user (send a user id with your "
    "questions), so nothing was stored."
)
REMEMBER_FAILED_TEXT = (
    "I could not store that preference just now, so nothing was stored. Please say it "
    "again in a moment."
)
"""What a person who stated a preference is told when it was not stored."""

CONTEXT_FOR_MODEL = "context-for-model-v1"
"""Synthesis is sent the conversation's last messages and each chunk's search rank
(`TurnSteps.synthesize_answer`): its evidence budget and order."""


class TurnMemory:
    def __init__(self) -> None:
        self.conversation: list[MemoryNote] = []
        """The conversation's last messages, verbatim, labelled a claim."""
        self.summary: list[MemoryNote] = []
        """The conversation's summary for synthesis, labelled a claim."""
        self.preferences: list[MemoryNote] = []
        """The user's preferences that apply to the current question."""
        self.lookup: CacheLookup | None = None
        self.summarised = 0
        """Older messages the summary step compressed this turn."""

    def heard(self, messages: list[RecentMessage]) -> None:
        note = conversation_note(messages)
        self.conversation = [note] if note else []

    def summarised_as(self, summary: str) -> None:
        self.summary.append(MemoryNote(kind="summary", text=without_markers(summary)))

    def applied(self, preferences: list[str]) -> None:
        """Only what applies to this question is a hint: a scale the question sets itself
        must not be contradicted by a remembered one."""
        self.preferences = [
            MemoryNote(kind="preference", text=f"the user asked for {what}") for what in preferences
        ]

    @property
    def corpus_version(self) -> str | None:
        return self.lookup.corpus_version if self.lookup else None

    def notes(
        self, refuted: list[str] | None = None, conversation: bool = False
    ) -> list[MemoryNote]:
        """What synthesis may be reminded of, in budget order: the last messages (with
        `conversation`: a turn past `CONTEXT_FOR_MODEL`), summary, the claims the checks
        refuted (dropped after the hints), then hints."""
        notes = list(self.conversation) if conversation else []
        notes += self.summary
        if refuted:
            notes.append(MemoryNote(kind="refuted", text="; ".join(refuted)))
        notes += self.preferences
        hint = self.lookup
        if hint is not None and hint.outcome == "hint" and hint.entry is not None:
            # Its [n] markers number another turn's sources: dropped, never reused.
            notes.append(MemoryNote(kind="cached_answer", text=without_markers(hint.entry.answer)))
        return notes

    def bookkeeping(self) -> dict[str, Any]:
        """The TurnResult fields memory holds."""
        lookup = self.lookup
        return {
            "cache": lookup.outcome if lookup else None,
            "cache_turn_id": lookup.entry.turn_id if lookup and lookup.entry else None,
            "cache_similarity": lookup.similarity if lookup else None,
            "summarised": self.summarised,
        }
