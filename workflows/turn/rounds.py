"""The turn's clarification rounds: which question waits, its reply or cancel, and
whether the turn has settled. The signal handlers and the wait read and write it."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from domain.language.text import unstorable
    from workflows.contracts import CancelRequest, ClarificationReply
    from workflows.rules import gate

MAX_CLARIFICATIONS = 2
"""Clarifying questions a turn may ask before it settles with its fallback."""

CONVERSATION_CAP = "conversation-clarification-cap-v1"
"""Patch: a turn asks no more clarifying questions than its conversation has left
(`TurnInput.clarifications_left`); asked only when the cap, not the turn's own two,
stops a question, so a turn started before it replays."""


class Rounds:
    def __init__(self) -> None:
        self.round = 0
        """Clarifying questions asked so far."""
        self.asked = 0
        """The last round whose question was saved and shown (the outcome update's)."""
        self.waiting: int | None = None
        """The round whose reply is awaited, while it is."""
        self.reply: str | None = None
        self.cancel: CancelRequest | None = None
        self.settled = False

    def open(self) -> int:
        """Start the next round: its reply is awaited from now on (before the save, so a
        reply arriving with the save's completion is accepted, not ignored)."""
        self.round += 1
        self.reply = None
        self.waiting = self.round
        return self.round

    def spent(self, left: int | None) -> str | None:
        """Why no further clarifying question may be asked (a fallback reason), or None."""
        if self.round >= MAX_CLARIFICATIONS:
            return gate.CLARIFICATION_EXHAUSTED
        if left is not None and self.round >= left and workflow.patched(CONVERSATION_CAP):
            return gate.CONVERSATION_CLARIFICATIONS_SPENT
        return None

    def answered(self) -> bool:
        return self.reply is not None or self.cancel is not None

    def take_reply(self) -> str | None:
        """The reply, and the round closed."""
        reply, self.reply, self.waiting = self.reply, None, None
        return reply

    def close(self) -> None:
        self.waiting = None

    def accept_reply(self, reply: ClarificationReply) -> str | None:
        """Take the reply to the question now waiting; else the line saying why not.

        A reply PostgreSQL could not store (NUL, lone surrogate) is ignored too: the API
        refuses it with 422, but a signal sent with the Temporal CLI skips the API."""
        if self.waiting != reply.round or self.reply is not None or self.cancel:
            return f"ignored a reply for round {reply.round}"
        if unstorable(reply.reply):
            return f"ignored a reply for round {reply.round}: {unstorable(reply.reply)}"
        self.reply = reply.reply
        return None

    def accept_cancel(self, request: CancelRequest) -> str | None:
        """Take the cancel of the question now waiting; else the line saying why not."""
        if self.waiting != request.round or self.reply is not None or self.cancel:
            return f"ignored a cancel for round {request.round}"
        self.cancel = request
        return None
