"""Activities at the memory boundary: summaries and user facts (PostgreSQL), the
semantic answer cache (Qdrant), and erasing a user's memory from both."""

import asyncio
from collections.abc import Callable
from typing import Any

from psycopg_pool import AsyncConnectionPool

from activities import steps
from activities.contracts import (
    CacheLookup,
    CacheLookupRequest,
    CacheWriteRequest,
    CacheWriteResult,
    ForgetRequest,
    ForgetResult,
    RememberRequest,
    SummarizeRequest,
    SummaryResult,
)
from activities.steps import implements
from backends.answer_cache import AnswerCache
from backends.engines.calls import recording
from backends.engines.protocol import Engine
from backends.heartbeat import heartbeating
from db import memory
from db import pii as token_map
from domain.memory.rules import merge_summary, without_markers


class MemoryActivities:
    """Conversation summaries and facts about users, in PostgreSQL."""

    def __init__(self, pool: AsyncConnectionPool, engine: Engine) -> None:
        self.pool = pool
        self.engine = engine

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [self.summarize_history, self.remember_fact, self.forget_user]

    @implements(steps.llm_summarize_history)
    async def summarize_history(self, request: SummarizeRequest) -> SummaryResult:
        """Summarise all but the last messages into an increment, merge it into the
        previous summary (`domain.memory.rules.merge_summary`: one line per fact, the newest
        value winning, bounded without dropping the oldest facts first) and mark the
        messages summarised, in one transaction. A failing summariser raises before
        anything is written: the history stays exactly as it was."""
        async with heartbeating():
            async with self.pool.connection() as conn:
                pending = await memory.to_summarise(conn, request.conversation_id, request.seq)
            if not pending.message_ids:
                return SummaryResult(summary=pending.previous)
            # Oldest first, so the increment's last line is the latest said; remembered
            # text loses its citation markers (they numbered other sources).
            texts = [without_markers(t) for t in pending.texts]
            with recording() as calls:
                increment = (await self.engine.summarize(texts)).strip()
            if not increment:
                raise ValueError("the summariser returned an empty summary")
            summary = merge_summary(pending.previous, increment)
            async with self.pool.connection() as conn:
                await memory.store_summary(
                    conn, request.conversation_id, pending.message_ids, summary
                )
                current = await memory.latest_summary(conn, request.conversation_id)
        return SummaryResult(
            summary=current, summarised=len(pending.message_ids), model_calls=calls
        )

    @implements(steps.postgres_remember_fact)
    async def remember_fact(self, request: RememberRequest) -> None:
        async with heartbeating(), self.pool.connection() as conn:
            await memory.remember(
                conn, request.tenant_id, request.user_id, request.preference, request.turn_id
            )

    @implements(steps.postgres_forget_user)
    async def forget_user(self, request: ForgetRequest) -> ForgetResult:
        async with heartbeating(), self.pool.connection() as conn:
            facts, summaries = await memory.erase_user(conn, request.tenant_id, request.user_id)
            values = await token_map.erase_owner(conn, request.tenant_id, request.user_id)
        return ForgetResult(facts=facts, summaries=summaries, personal_values=values)


class CacheActivities:
    """The semantic answer cache (the worker owns Qdrant)."""

    def __init__(self, cache: AnswerCache) -> None:
        self.cache = cache

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [self.lookup_answer, self.save_answer, self.forget_answers]

    @implements(steps.qdrant_lookup_answer)
    async def lookup_answer(self, request: CacheLookupRequest) -> CacheLookup:
        async with heartbeating():
            return await asyncio.to_thread(self.cache.lookup, request.tenant_id, request.question)

    @implements(steps.qdrant_save_answer)
    async def save_answer(self, request: CacheWriteRequest) -> CacheWriteResult:
        async with heartbeating():
            return await asyncio.to_thread(
                self.cache.write,
                request.tenant_id,
                request.user_id,
                request.entry,
                request.corpus_version,
            )

    @implements(steps.qdrant_forget_answers)
    async def forget_answers(self, request: ForgetRequest) -> ForgetResult:
        async with heartbeating():
            erased = await asyncio.to_thread(
                self.cache.forget_user, request.tenant_id, request.user_id
            )
        return ForgetResult(cached_answers=erased)
