"""PurgeDecisionRecords: the daily retention run — the decision record, the token map,
idle rate-limit buckets and idle conversations — run by a Temporal Schedule.

Once a day the purge removes the decision records older than the retention period
(`TURNSTILE_DECISION_RETENTION_DAYS`) — only the oldest rows, a prefix of the hash chain —
and logs in `decision_purges` how many rows it removed and the hash of the last one, so
`turnstile audit verify` still passes afterwards. It then erases the personal values
unused for `TURNSTILE_PII_RETENTION_DAYS`, removes idle rate-limit buckets, and expires
the conversations idle for `TURNSTILE_CONVERSATION_RETENTION_DAYS` (their turns,
messages and summaries; never a turn running or waiting, never a decision record). The
workflow's result (and its history) records what it purged. Created by the worker at
start-up, idempotently, like the sweep.
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.client import (
    Client,
    Schedule,
)

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import ConversationExpiryResult, PurgeRequest, PurgeResult
    from workflows.policy import step_options
    from workflows.sweep import ensure_schedule, interval_schedule

SCHEDULE_PREFIX = "turnstile-purge-decisions"
PII_PURGE = "purge-pii-tokens"
"""Patch: runs started before it purged decision records only."""
RATE_BUCKET_PURGE = "purge-rate-buckets"
"""Patch: runs started before it left idle rate-limit buckets in place."""
CONVERSATION_EXPIRY = "expire-conversations"
"""Patch: runs started before it kept every conversation."""
EVERY = timedelta(days=1)


@workflow.defn(name="PurgeDecisionRecords")
class PurgeDecisionRecords:
    @workflow.run
    async def run(self, request: PurgeRequest) -> PurgeResult:
        result = await workflow.execute_activity(
            steps.postgres_purge_decisions,
            request,
            summary=f"decision records older than {request.retention_days} days",
            **step_options(steps.postgres_purge_decisions),
        )
        through = "nothing" if result.through_seq is None else f"rows ≤ {result.through_seq}"
        details = f"purged {result.rows} row(s): {through}"
        if workflow.patched(PII_PURGE):
            erased = await workflow.execute_activity(
                steps.postgres_purge_pii_tokens,
                request,
                summary=f"personal values unused for {request.pii_retention_days} days",
                **step_options(steps.postgres_purge_pii_tokens),
            )
            result = result.model_copy(update={"pii_tokens": erased.erased})
            details += f"; erased {erased.erased} personal value(s)"
        if workflow.patched(RATE_BUCKET_PURGE):
            buckets = await workflow.execute_activity(
                steps.postgres_purge_rate_buckets,
                request,
                summary=f"rate-limit buckets idle for {request.rate_bucket_idle_days:g} days",
                **step_options(steps.postgres_purge_rate_buckets),
            )
            result = result.model_copy(update={"rate_buckets": buckets.removed})
            details += f"; removed {buckets.removed} idle rate-limit bucket(s)"
        if workflow.patched(CONVERSATION_EXPIRY) and request.conversation_retention_days > 0:
            expired = await self._expire_conversations(request)
            result = result.model_copy(update={"conversations_expired": expired.conversations})
            details += (
                f"; expired {expired.conversations} idle conversation(s)"
                f" ({expired.turns} turn(s), {expired.messages} message(s))"
            )
        workflow.set_current_details(details)
        return result

    async def _expire_conversations(self, request: PurgeRequest) -> ConversationExpiryResult:
        return await workflow.execute_activity(
            steps.postgres_expire_conversations,
            request,
            summary=f"conversations idle for {request.conversation_retention_days:g} days",
            **step_options(steps.postgres_expire_conversations),
        )


def _schedule(
    task_queue: str, retention_days: int, pii_retention_days: int, conversation_retention_days: int
) -> Schedule:
    request = PurgeRequest(
        retention_days=retention_days,
        pii_retention_days=pii_retention_days,
        conversation_retention_days=conversation_retention_days,
    )
    return interval_schedule(
        PurgeDecisionRecords.run,
        request,
        f"purge-decisions-{task_queue}",
        task_queue,
        EVERY,
        timedelta(hours=1),
        f"retention: purge decision records older than {retention_days} days, personal"
        f" values unused for {pii_retention_days} days",
    )


async def ensure_retention_schedule(
    client: Client,
    task_queue: str,
    retention_days: int,
    pii_retention_days: int = 30,
    conversation_retention_days: int = 0,
) -> None:
    """Create the purge schedule, or bring an existing one up to date (a restart with
    other retention settings changes what its next run purges)."""
    schedule_id = f"{SCHEDULE_PREFIX}-{task_queue}"
    schedule = _schedule(
        task_queue, retention_days, pii_retention_days, conversation_retention_days
    )
    await ensure_schedule(client, schedule_id, schedule)
