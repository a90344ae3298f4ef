"""Memory in whole turns, on the real stack: the summary buffer, the answer cache with its
slot guard, and preferences. Each test has a tenant of its own, so no other test's
answers are in its cache."""

from collections.abc import Callable
from pathlib import Path

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client

import worker as registry
from activities.contracts import AnswerGrade
from backends.answer_cache import AnswerCache
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from db import audit
from domain.models import Draft, UnsupportedClaim
from tests.conftest import CORPUS_DIR, Turns, TurnWorker, WorkerFactory, unique
from tests.workflows.scripted_engine import ScriptedEngine

EBITDA_FY2024 = "What was Fortescue's underlying EBITDA in FY2024?"
PARAPHRASE = "How much underlying EBITDA did Fortescue make in FY2024?"
SIX_QUESTIONS = [
    "What was BHP's revenue in FY2024?",
    "What was Rio Tinto's net debt in FY2024?",
    "What was Fortescue's underlying EBITDA in FY2023?",
    "What was South32's revenue in FY2025?",
    "What was Northern Star's revenue in FY2024?",
    "What was BHP's capital expenditure in FY2023?",
]


def cached_turns(client: Client, pool: AsyncConnectionPool, tq: str, **kw: object) -> Turns:
    kw.setdefault("tenant_id", unique("t"))
    return Turns(client, pool, tq, answer_cache=True, **kw)  # type: ignore[arg-type]


async def messages_of(pool: AsyncConnectionPool, conversation: str) -> list[tuple[str, bool]]:
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT content, summary_id IS NOT NULL FROM messages"
                " WHERE conversation_id = %s ORDER BY message_id",
                (conversation,),
            )
        ).fetchall()
    return [(r[0], r[1]) for r in rows]


async def summaries_of(pool: AsyncConnectionPool, conversation: str) -> list[str]:
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT summary FROM conversation_summaries WHERE conversation_id = %s",
                (conversation,),
            )
        ).fetchall()
    return [r[0] for r in rows]


# ---- the summary buffer ---------------------------------------------------------------


async def test_a_twelve_message_conversation_is_summarised_and_its_numbers_survive(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    conversation = unique("c")
    async with turn_worker() as tq:
        t = cached_turns(temporal_client, pool, tq)
        answers = [await t.ask(q, conversation) for q in SIX_QUESTIONS]
        assert all(a.status == "answered" and a.summarised == 0 for a in answers)
        assert await summaries_of(pool, conversation) == [], "10 messages or fewer: none"
        seventh = await t.ask("What was Rio Tinto's revenue in FY2024?", conversation)
    assert seventh.status == "answered" and seventh.summarised == 8, seventh
    messages = await messages_of(pool, conversation)
    assert len(messages) == 14, "nothing is deleted"
    assert [s for _, s in messages] == [True] * 8 + [False] * 6
    (summary,) = await summaries_of(pool, conversation)
    assert "55,658" in summary, summary  # BHP's FY2024 revenue, from the first answer
    for name in ("BHP", "Rio Tinto", "Fortescue", "South32"):
        assert name in summary, (name, summary)
    assert "FY2024" in summary and "FY2023" in summary


async def test_a_failing_summariser_leaves_the_history_intact_and_is_recorded(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    conversation = unique("c")
    engine = ScriptedEngine().always("summarize", RuntimeError("summariser down"))
    async with turn_worker(engine) as tq:
        t = cached_turns(temporal_client, pool, tq)
        for q in SIX_QUESTIONS:
            await t.ask(q, conversation)
        seventh = await t.ask("What was Rio Tinto's revenue in FY2024?", conversation)
    assert seventh.status == "answered", seventh
    assert "llm_summarize_history" in [d.layer for d in seventh.degraded]
    assert seventh.summarised == 0
    assert engine.calls["summarize"] >= 1
    messages = await messages_of(pool, conversation)
    assert len(messages) == 14 and not any(s for _, s in messages)
    assert await summaries_of(pool, conversation) == []


# ---- the answer cache -----------------------------------------------------------------


async def test_a_paraphrase_is_served_from_the_cache_and_says_which_turn(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    async with turn_worker() as tq:
        t = cached_turns(temporal_client, pool, tq)
        first = await t.ask(EBITDA_FY2024)
        again = await t.ask(EBITDA_FY2024)
        paraphrase = await t.ask(PARAPHRASE)
    assert first.cache == "miss" and first.status == "answered"
    assert again.cache == "hit" and again.cache_turn_id == first.turn_id
    assert again.route == "answer_cache" and again.model_calls == 0
    assert again.answer == first.answer, "the same clean answer through the same gate"
    assert again.confidence == first.confidence and again.citations == first.citations
    assert paraphrase.cache in ("hit", "hint"), paraphrase
    assert paraphrase.cache_turn_id == first.turn_id
    assert paraphrase.status == "answered"
    async with pool.connection() as conn:
        shown = await audit.show(conn, again.turn_id)
    assert shown is not None
    record = shown["record"]
    assert record["memory"]["cache"] == "hit"
    assert record["memory"]["cache_turn_id"] == first.turn_id
    checks = {c["check"]: c["result"] for c in record["check_results"]}
    assert checks["answer_cache"] == "hit"
    assert checks["numeric_grounding"].startswith(f"not run: the answer of {first.turn_id}")


async def test_the_decision_record_names_the_corpus_version_its_passages_came_from(
    turn_worker: TurnWorker,
    temporal_client: Client,
    pool: AsyncConnectionPool,
    report_index: ReportIndex,
) -> None:
    """Issue 45: the record's corpus version was the newest worker heartbeat's, not the
    version of the passages the turn read. Now it is the searches' (and a cache hit's, the
    version it was looked up at); a turn that read nothing says where its version is from."""
    async with turn_worker() as tq:
        t = cached_turns(temporal_client, pool, tq)
        first = await t.ask(EBITDA_FY2024)
        again = await t.ask(EBITDA_FY2024)
        refused = await t.ask("Should I buy BHP shares?")
    version = report_index.corpus_version()
    assert first.documents.corpus_versions == [version], first.documents
    assert again.cache == "hit" and again.documents.corpus_versions == [version]
    assert refused.documents.corpus_versions == []
    async with pool.connection() as conn:
        records = [await audit.show(conn, r.turn_id) for r in (first, again, refused)]
    assert all(r is not None for r in records)
    for shown in records[:2]:
        assert shown is not None
        assert shown["record"]["corpus_version"] == version
        assert shown["record"]["corpus_version_from"] == "passages read"
    assert records[2] is not None
    assert records[2]["record"]["corpus_version_from"] == "newest worker heartbeat"


async def test_another_year_or_company_is_never_served_from_the_cache(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    async with turn_worker() as tq:
        t = cached_turns(temporal_client, pool, tq)
        first = await t.ask(EBITDA_FY2024)
        other_year = await t.ask(EBITDA_FY2024.replace("FY2024", "FY2023"))
        other_company = await t.ask(EBITDA_FY2024.replace("Fortescue", "BHP"))
    assert first.cache == "miss"
    for result in (other_year, other_company):
        assert result.cache == "miss" and result.cache_turn_id is None, result
        assert result.route != "answer_cache" and result.answer != first.answer
    assert "FY2023" in (other_year.answer or "")
    assert "BHP" in (other_company.answer or "")


async def test_another_tenant_never_sees_a_tenants_entries(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    async with turn_worker() as tq:
        a = cached_turns(temporal_client, pool, tq)
        b = cached_turns(temporal_client, pool, tq)
        assert (await a.ask(EBITDA_FY2024)).cache == "miss"
        assert (await a.ask(EBITDA_FY2024)).cache == "hit"
        seen_by_b = await b.ask(EBITDA_FY2024)
    assert seen_by_b.cache == "miss" and seen_by_b.cache_turn_id is None


BAD_DRAFT = Draft(
    answer="Fortescue's underlying EBITDA for FY2024 was US$99,999 million [1]. Its revenue "
    "was US$88,888 million [1]. Its net profit was US$77,777 million [1]. Its net debt was "
    "US$66,666 million [1]."
)
NOT_WRITTEN = {
    "grounded no": (ScriptedEngine().always("synthesize", BAD_DRAFT), "grounded no"),
    "quality failed": (
        ScriptedEngine().always("grade_answer", AnswerGrade(quality_passed=False)),
        "quality failed",
    ),
    "judge down": (ScriptedEngine().always("grade_answer", RuntimeError("judge down")), None),
    # issue 45: a partial answer (one claim the judge could not back) was cached and reused
    "partial": (
        ScriptedEngine().always(
            "grade_answer",
            AnswerGrade(
                quality_passed=True,
                unsupported=[
                    UnsupportedClaim(label="FMG FY2024 underlying EBITDA", reason="calculation")
                ],
            ),
        ),
        "partial",
    ),
}


@pytest.mark.parametrize("case", sorted(NOT_WRITTEN))
async def test_an_answer_that_is_not_checked_clean_is_never_written(
    case: str, turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    engine, reason = NOT_WRITTEN[case]
    async with turn_worker(engine) as tq:
        t = cached_turns(temporal_client, pool, tq)
        first = await t.ask(EBITDA_FY2024)
        assert first.status in ("answered", "fallback"), first
        if reason == "grounded no":  # every figure refuted twice: none is shown
            assert first.status == "fallback" and first.fallback_reason == "unverified", first
        if case == "judge down":
            assert "llm_grade_answer" in [d.layer for d in first.degraded]
        if reason == "partial":
            assert first.grounded == "partial" and first.status == "answered", first
    async with turn_worker() as tq:  # a good engine now: nothing of the first may be there
        good = Turns(temporal_client, pool, tq, tenant_id=t.tenant_id, answer_cache=True)
        later = await good.ask(EBITDA_FY2024)
        again = await good.ask(EBITDA_FY2024)
    assert later.cache == "miss", later
    assert "99,999" not in (later.answer or "")
    assert again.cache == "hit", "quiet on a good answer: a checked answer is written"


async def test_a_corpus_reingest_invalidates_old_entries(
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    temporal_client: Client,
    pool: AsyncConnectionPool,
    tmp_path: Path,
) -> None:
    question = "What was BHP's revenue in FY2024?"
    original = CORPUS_DIR / "BHP_FY2024.md"
    text = original.read_text(encoding="utf-8")
    altered = tmp_path / original.name
    altered.write_text(text.replace("55,658", "57,913"), encoding="utf-8")
    index = make_report_index()
    assert index.ingest_file(altered).status == "ingested"
    tenant = unique("t")
    async with worker(activities=registry.activities(index, pool, OfflineEngine())) as tq:
        t = Turns(temporal_client, pool, tq, tenant_id=tenant, answer_cache=True)
        first = await t.ask(question)
        assert "57,913" in (first.answer or "")
        assert (await t.ask(question)).cache == "hit"
        before = index.corpus_version()
        # The same document, re-ingested with its true figure: a new corpus version.
        assert index.ingest_file(original).status == "ingested"
        assert index.corpus_version() != before
        after = await t.ask(question)
    assert after.cache == "miss", after
    assert "55,658" in (after.answer or "") and "57,913" not in (after.answer or "")


async def test_an_entry_past_its_time_to_live_is_not_served(
    make_report_index: Callable[[], ReportIndex],
) -> None:
    from activities.contracts import CachedAnswer

    cache = AnswerCache(make_report_index(), ttl_seconds=60)
    entry = CachedAnswer(turn_id="turn-x-1", question=EBITDA_FY2024, answer="a checked answer")
    tenant = unique("t")
    assert cache.write(tenant, "u1", entry, now=1000.0).written
    assert cache.lookup(tenant, EBITDA_FY2024, now=1030.0).outcome == "hit"
    expired = cache.lookup(tenant, EBITDA_FY2024, now=1061.0)
    assert expired.outcome == "miss" and expired.reason == "no entry"
    # A hit does not extend the life of an entry: looked up at 1030, gone at 1061.
    assert cache.forget_user(tenant, "u1") == 1 and cache.entries(tenant) == 0


async def test_a_partial_entry_written_before_the_quarantine_is_never_served(
    make_report_index: Callable[[], ReportIndex],
) -> None:
    """Issue 45: a partial answer is neither written nor, if an older version of the
    code wrote one, served: its unsupported claims keep it out of every lookup."""
    from qdrant_client import models

    from activities.contracts import CachedAnswer
    from backends.answer_cache import QUARANTINED

    cache = AnswerCache(make_report_index(), ttl_seconds=60)
    claim = UnsupportedClaim(label="FMG FY2024 underlying EBITDA", reason="calculation")
    clean = CachedAnswer(turn_id="turn-x-1", question=EBITDA_FY2024, answer="a checked answer")
    partial = clean.model_copy(update={"unsupported": [claim]})
    tenant = unique("t")
    refused = cache.write(tenant, "u1", partial, now=1000.0)
    assert not refused.written and refused.reason == QUARANTINED
    assert cache.write(tenant, "u1", clean, now=1000.0).written
    assert cache.lookup(tenant, EBITDA_FY2024, now=1010.0).outcome == "hit"  # quiet
    only = models.Filter(
        must=[models.FieldCondition(key="tenant_id", match=models.MatchValue(value=tenant))]
    )
    cache.client.set_payload(cache.collection, {"entry": partial.model_dump(mode="json")}, only)
    older = cache.lookup(tenant, EBITDA_FY2024, now=1020.0)
    assert older.outcome == "miss" and QUARANTINED in older.reason, older


async def test_a_hint_and_the_users_preferences_reach_synthesis_labelled(
    turn_worker: TurnWorker, temporal_client: Client, pool: AsyncConnectionPool
) -> None:
    engine = ScriptedEngine()
    async with turn_worker(engine) as tq:
        t = cached_turns(temporal_client, pool, tq, user_id=unique("u"))
        noted = await t.ask("Show me figures in billions from now on")
        assert noted.route == "remember" and "billions" in (noted.answer or "")
        first = await t.ask(EBITDA_FY2024)
        hinted = await t.ask(PARAPHRASE)
    assert first.cache == "miss" and hinted.cache == "hint", hinted
    assert hinted.cache_turn_id == first.turn_id and hinted.route != "answer_cache"
    kinds = [n.kind for n in engine.last_memory]
    assert kinds == ["preference", "cached_answer"], kinds
    assert engine.last_memory[0].text == "the user asked for figures in billions"
    assert "[1]" in (first.answer or "") and "[1]" not in engine.last_memory[1].text
    assert "billion" in engine.last_memory[1].text, "the clean stored answer, markers dropped"
