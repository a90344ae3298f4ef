"""The sweep and retention activities: reconcile open turns whose workflow has closed;
purge decision records, personal values and rate-limit buckets past their retention;
expire idle conversations."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg_pool import AsyncConnectionPool
from temporalio import activity

from activities import steps
from activities.contracts import (
    ConversationExpiryResult,
    PiiPurgeResult,
    PurgeRequest,
    PurgeResult,
    RateBucketPurgeResult,
    SweepRequest,
    SweepResult,
)
from activities.steps import implements
from backends.metrics import turn_metrics
from db import audit, expiry, ratelimit, reconcile, turns
from db import pii as token_map
from domain.turns import OPEN

EXPIRY_BATCH = 500
"""Conversations expired per transaction: short locks, and progress a retry keeps."""


class SweepActivities:
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [
            self.sweep_turns,
            self.purge_decisions,
            self.purge_pii_tokens,
            self.purge_rate_buckets,
            self.expire_conversations,
        ]

    @implements(steps.postgres_expire_conversations)
    async def expire_conversations(self, request: PurgeRequest) -> ConversationExpiryResult:
        """Expire conversations idle for `conversation_retention_days` (0: none), a batch
        of them per transaction, heartbeating between batches; idempotent. A turn running
        or waiting is never deleted, and the decision records stay (`db.expiry`)."""
        if request.conversation_retention_days <= 0:
            return ConversationExpiryResult(conversations=0)
        cutoff = datetime.now(UTC) - timedelta(days=request.conversation_retention_days)
        done = expiry.Expired()
        async with self.pool.connection() as conn:
            while True:
                batch = await expiry.expire_idle(conn, cutoff, EXPIRY_BATCH)
                done += batch
                activity.heartbeat(done.conversations)
                if batch.conversations < EXPIRY_BATCH:
                    break
        if done.conversations:
            activity.logger.warning(
                "retention expired %d idle conversation(s): %d turn(s), %d message(s)",
                done.conversations,
                done.turns,
                done.messages,
            )
        return ConversationExpiryResult(
            conversations=done.conversations, turns=done.turns, messages=done.messages
        )

    @implements(steps.postgres_purge_rate_buckets)
    async def purge_rate_buckets(self, request: PurgeRequest) -> RateBucketPurgeResult:
        """Remove rate-limit buckets idle for `rate_bucket_idle_days`; idempotent."""
        async with self.pool.connection() as conn:
            removed = await ratelimit.purge_idle(
                conn, timedelta(days=request.rate_bucket_idle_days)
            )
        return RateBucketPurgeResult(removed=removed)

    @implements(steps.postgres_purge_pii_tokens)
    async def purge_pii_tokens(self, request: PurgeRequest) -> PiiPurgeResult:
        """Erase token-map rows unused for the PII retention period; idempotent. Stored
        text keeps the bare tokens, which then show as tokens."""
        cutoff = datetime.now(UTC) - timedelta(days=request.pii_retention_days)
        async with self.pool.connection() as conn:
            erased = await token_map.purge_unused_since(conn, cutoff)
        if erased:
            activity.logger.warning("retention purge erased %d personal value(s)", erased)
        return PiiPurgeResult(erased=erased)

    @implements(steps.postgres_purge_decisions)
    async def purge_decisions(self, request: PurgeRequest) -> PurgeResult:
        """Remove decision records older than the retention period; idempotent (a second
        run finds nothing old enough) and logged in `decision_purges`."""
        cutoff = datetime.now(UTC) - timedelta(days=request.retention_days)
        async with self.pool.connection() as conn:
            purged = await audit.purge_older_than(conn, cutoff)
        if purged.rows:
            activity.logger.warning(
                "retention purge removed %d decision record(s) through row %s",
                purged.rows,
                purged.through_seq,
            )
        return PurgeResult(rows=purged.rows, through_seq=purged.through_seq)

    @implements(steps.postgres_sweep_turns)
    async def sweep_turns(self, request: SweepRequest) -> SweepResult:
        """Compare open turns (untouched for a while) with their workflows; settle closed ones.

        Idempotent: a turn already settled, by its workflow or by an earlier sweep, is
        left alone. Uses the worker's own Temporal client to describe the workflows.
        """
        client = activity.client()
        settled: list[str] = []
        async with self.pool.connection() as conn:
            ids = await turns.open_turns_to_sweep(
                conn, timedelta(seconds=request.quiet_for_seconds), request.limit
            )
            for turn_id in ids:
                activity.heartbeat(turn_id)
                result = await reconcile.reconcile_turn(client, conn, turn_id)
                if result is not None and result.status not in OPEN:
                    settled.append(turn_id)
                    turn_metrics().observe_swept(result.status)
        if settled:
            activity.logger.warning("sweep settled %d closed turn(s): %s", len(settled), settled)
        return SweepResult(checked=len(ids), settled=settled)
