"""How a ChatTurn is started: the one set of start options the API and the golden probes
both use, so every turn is bounded, never reuses an id and reads the same in the
Temporal UI, whoever started it."""

from typing import Any

from temporalio.common import WorkflowIDReusePolicy

from workflows import attributes
from workflows.contracts import TurnInput
from workflows.turn.budget import TASK_TIMEOUT, execution_timeout


def summary_line(question: str, limit: int = 120) -> str:
    """The Temporal UI's one-line summary of a turn: its (redacted) question."""
    line = " ".join(question.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def start_options(turn: TurnInput, summary: str | None = None) -> dict[str, Any]:
    """ChatTurn's start options (a client's `start_workflow` or a workflow's
    `start_child_workflow`; the caller adds its task queue where it is not the default):
    one id per turn, never reused; bounded by every clarification wait it may make; a
    workflow task handed on quickly when its worker dies; named in the UI by `summary`
    (else its question, already redacted: tokens only, never personal data)."""
    return {
        "id": turn.turn_id,
        "id_reuse_policy": WorkflowIDReusePolicy.REJECT_DUPLICATE,
        "execution_timeout": execution_timeout(turn.clarification_timeout_seconds),
        "task_timeout": TASK_TIMEOUT,
        "static_summary": summary or summary_line(turn.question),
        "static_details": (
            f"turn {turn.seq} of conversation {turn.conversation_id}, tenant {turn.tenant_id}"
        ),
        "memo": {"question": turn.question, "tenant": turn.tenant_id},
        "search_attributes": attributes.at_start(turn.conversation_id, turn.tenant_id),
    }
