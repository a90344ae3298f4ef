"""Activities at the PostgreSQL session boundary: load recent turns, save a turn."""

import logging
from collections.abc import Callable, Mapping
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from activities import steps
from activities.contracts import LoadSessionRequest, SaveTurnRequest, Session
from activities.errors import invalid_input
from activities.steps import implements
from backends.heartbeat import heartbeating
from backends.metrics import turn_metrics
from db import memory, turns
from domain.turns import TurnResult
from domain.usage import Price

log = logging.getLogger("turnstile.turns")


class SessionActivities:
    def __init__(
        self, pool: AsyncConnectionPool, prices: Mapping[str, Price] | None = None
    ) -> None:
        self.pool = pool
        self.prices = dict(prices or {})
        """Model → price, for each settled turn's cost (record and per-tenant metrics)."""

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [self.load_session, self.save_turn]

    @implements(steps.postgres_load_session)
    async def load_session(self, request: LoadSessionRequest) -> Session:
        """Load what the turn may remember (read-only): the resolved questions of earlier
        turns, the conversation's last messages, its summary and how many messages it does
        not cover yet, and the user's current facts."""
        async with heartbeating(), self.pool.connection() as conn:
            recent = await turns.recent_user_questions(conn, request.conversation_id, request.seq)
            said = await turns.recent_messages(conn, request.conversation_id, request.seq)
            summary = await memory.latest_summary(conn, request.conversation_id)
            pending = await memory.unsummarised_count(conn, request.conversation_id, request.seq)
            facts = (
                await memory.preferences(conn, request.tenant_id, request.user_id)
                if request.user_id
                else []
            )
        return Session(
            recent_questions=recent,
            summary=summary,
            unsummarised=pending,
            preferences=facts,
            recent_messages=said,
        )

    @implements(steps.postgres_save_turn)
    async def save_turn(self, request: SaveTurnRequest) -> None:
        """Persist the turn's state; when final, its user and assistant messages.

        Idempotent: a retried save rewrites the same row and inserts no second message
        (unique (turn_id, role)). Data PostgreSQL refuses (a character it cannot store, a
        value out of range) raises a non-retryable InvalidInput: retrying cannot help,
        and the workflow's settle path then ends the turn instead of waiting forever.
        """
        try:
            async with heartbeating(), self.pool.connection() as conn:
                settled = await turns.save_turn(conn, request.result, request.final, self.prices)
        except psycopg.DataError as exc:
            raise invalid_input(f"the turn cannot be stored: {type(exc).__name__}") from exc
        if settled is not None:  # this save settled the turn: count it, once
            turn_metrics().observe_turn(request.result, settled.seconds)
            turn_metrics().observe_usage(settled.tenant_id, settled.usage)
            _log_settled(request.result, settled.seconds)


def _log_settled(result: TurnResult, seconds: float) -> None:
    """The turn's one log line: ids and decisions, never its text."""
    log.info(
        "turn %s settled %s",
        result.turn_id,
        result.status,
        extra={
            "event": "turn",
            "turn_id": result.turn_id,
            "conversation_id": result.conversation_id,
            "status": result.status,
            "route": result.route,
            "confidence": result.confidence,
            "fallback_reason": result.fallback_reason,
            "refusal_reason": result.refusal_reason,
            "degraded": [f"{d.layer}:{d.reason}" for d in result.degraded],
            "retries": result.retries,
            "citations": len(result.citations),
            "unsupported_claims": len(result.unsupported_claims),
            "seconds": round(seconds, 3),
        },
    )
