"""The reconciler: record a terminal status for a turn whose workflow closed without one.

A turn's workflow settles its own row on every path it can act on (answer, refusal,
fallback, expiry, cancellation, its settle path for unexpected errors). What it cannot
report is its own end from outside: terminated from the Temporal UI or CLI, timed out,
failed on a non-retryable error, or never started. The API runs `reconcile_turn`
before answering 409 for a blocking turn, and a Temporal Schedule sweeps open rows, so
no conversation stays blocked by a turn that will never finish.
"""

from datetime import UTC, datetime, timedelta

from psycopg import AsyncConnection
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from db import turns
from domain.turns import OPEN, TurnResult, TurnStatus

NEVER_STARTED_AFTER = timedelta(minutes=1)
"""A row with no workflow is only declared failed after this: the API allocates the
row a moment before it starts the workflow."""

_CLOSED: dict[WorkflowExecutionStatus, tuple[TurnStatus, str]] = {
    WorkflowExecutionStatus.FAILED: ("failed", "the turn's workflow failed"),
    WorkflowExecutionStatus.TIMED_OUT: ("failed", "the turn ran past its time limit"),
    WorkflowExecutionStatus.TERMINATED: ("failed", "the turn was terminated by an operator"),
    WorkflowExecutionStatus.CANCELED: ("cancelled", "the turn was cancelled by an operator"),
    WorkflowExecutionStatus.CONTINUED_AS_NEW: ("failed", "the turn's workflow was replaced"),
}


def closed_answer(reason: str) -> str:
    """What the conversation shows for a turn that stopped without answering."""
    return f"This question was not answered: {reason}. Nothing else was affected; ask again."


async def reconcile_turn(client: Client, conn: AsyncConnection, turn_id: str) -> TurnResult | None:
    """Settle `turn_id`'s row if its workflow has closed; return the settled result.

    Returns None when the turn is still open for good reason (its workflow runs) or is
    unknown. Raises RPCError when Temporal cannot be asked (the caller answers 503).
    """
    stored = await turns.get_turn(conn, turn_id)
    if stored is None:
        return None
    if stored.status not in OPEN:
        return stored
    handle = client.get_workflow_handle(turn_id, result_type=TurnResult)
    try:
        description = await handle.describe()
    except RPCError as err:
        if err.status != RPCStatusCode.NOT_FOUND:
            raise
        if await _age(conn, turn_id) < NEVER_STARTED_AFTER:
            return None
        reason = "the turn's workflow never started"
        return await turns.settle_closed_turn(
            conn, turn_id, "failed", reason, closed_answer(reason)
        )
    status = description.status
    if status is None or status == WorkflowExecutionStatus.RUNNING:
        return None
    if status == WorkflowExecutionStatus.COMPLETED:
        # The workflow saves before it completes, so this is a lost race with that save.
        result = await handle.result()
        if not isinstance(result, TurnResult):
            return None
        await turns.save_turn(conn, result, final=True)
        return result
    turn_status, reason = _CLOSED.get(status, ("failed", "the turn's workflow closed"))
    settled = await turns.settle_closed_turn(
        conn, turn_id, turn_status, reason, closed_answer(reason)
    )
    return settled or await turns.get_turn(conn, turn_id)


async def _age(conn: AsyncConnection, turn_id: str) -> timedelta:
    row = await (
        await conn.execute("SELECT created_at FROM turns WHERE turn_id = %s", (turn_id,))
    ).fetchone()
    return datetime.now(UTC) - row[0] if row else timedelta(0)
