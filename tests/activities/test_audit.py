"""The decision record on a real PostgreSQL: append-only by the database's own rules,
hash-chained, verified, purged by retention without breaking the chain.

Each test gets a database of its own (tampering with a chain must not break the
session's), migrated like any other.
"""

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from db import audit, documents, turns
from db.audit import incident_category
from domain.models import ModelCall, UnsupportedClaim
from domain.provenance import text_sha256
from domain.turns import Citation, Degradation, DocumentsUsed, StepFailure, TurnResult
from domain.usage import Price
from ingestion.documents import ParsedDocument, parse_document
from tests.conftest import CORPUS_DIR


@pytest.fixture
async def conn(fresh_database_url: str) -> AsyncIterator[AsyncConnection]:
    async with await AsyncConnection.connect(fresh_database_url, autocommit=True) as connection:
        yield connection


async def settle(conn: AsyncConnection, n: int) -> list[str]:
    """Allocate and settle `n` turns through the same code the save activity runs."""
    ids = []
    for i in range(n):
        alloc = await turns.allocate_turn(conn, f"c-{i % 3}", None, f"question {i}")
        result = TurnResult(
            turn_id=alloc.turn_id,
            conversation_id=alloc.conversation_id,
            status="answered",
            question=f"question {i}",
            route="needs_retrieval",
            answer="An answer [1].",
            confidence="medium",
            grounded="partial",
            retries=1,
            figures_checked=2,
            unsupported_claims=[UnsupportedClaim(label="BHP FY2024 revenue", reason="calculation")],
            degraded=[Degradation(layer="llm_grade_answer", reason="judge_unavailable")],
            step_failures=[
                StepFailure(
                    step="llm_grade_answer",
                    direction="open",
                    error_class="timeout",
                    reason="ModelTimeout: grade_answer: the model timed out",
                )
            ],
            model_trace=[
                ModelCall(
                    step="synthesize",
                    model="m",
                    prompt_sha="abc123def456",
                    prompt_tokens=1000,
                    completion_tokens=100,
                )
            ],
        )
        prices = {"m": Price(input=1.0, output=2.0)}
        assert await turns.save_turn(conn, result, final=True, prices=prices) is not None
        assert await turns.save_turn(conn, result, final=True) is None  # a retried save
        ids.append(alloc.turn_id)
    return ids


async def test_each_settled_turn_gets_one_chained_record(conn: AsyncConnection) -> None:
    ids = await settle(conn, 5)
    report = await audit.verify(conn)
    assert report.ok and report.rows == 5, report.line()
    row = await audit.show(conn, ids[2])
    assert row is not None and row["seq"] == 3
    record = row["record"]
    assert record["route"] == "needs_retrieval" and record["retries"] == 1
    assert record["checks"]["unsupported_claims"] == [
        {"label": "BHP FY2024 revenue", "reason": "calculation"}
    ]
    assert record["degradations"][0]["layer"] == "llm_grade_answer"
    assert record["model_trace"][0]["prompt_sha"] == "abc123def456"
    # 1000 prompt tokens at US$1/M and 100 completion tokens at US$2/M
    assert record["usage"]["cost_usd"] == 0.0012 and record["usage"]["prompt_tokens"] == 1000
    assert record["tenant_id"] == "default"
    checks = {c["check"]: c["result"] for c in record["check_results"]}
    assert checks["answer_judge"].startswith("unavailable")  # the degradation above
    assert checks["final_gate"] == "passed" and checks["numeric_grounding"] == "partial (2 checked)"
    # Each failed step named, with its direction and error class.
    assert record["step_failures"] == [
        {
            "step": "llm_grade_answer",
            "direction": "open",
            "error_class": "timeout",
            "reason": "ModelTimeout: grade_answer: the model timed out",
        }
    ]
    assert record["seconds"] is not None
    assert record["incident"] == "unsupported_claim_shown"  # docs/incidents.md
    first = await audit.show(conn, ids[0])
    assert first is not None and first["prev_hash"] == audit.GENESIS
    assert row["prev_hash"] == (await audit.show(conn, ids[1]) or {})["hash"]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE decision_records SET record = '{}' WHERE seq = 2",
        "DELETE FROM decision_records WHERE seq = 2",
        "TRUNCATE decision_records",
    ],
)
async def test_postgres_itself_refuses_to_change_a_record(
    conn: AsyncConnection, statement: str
) -> None:
    await settle(conn, 3)
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
        await conn.execute(statement)
    assert (await audit.verify(conn)).ok


async def test_a_row_removed_with_the_guard_disabled_is_named_by_verify(
    conn: AsyncConnection,
) -> None:
    ids = await settle(conn, 6)
    await conn.execute("ALTER TABLE decision_records DISABLE TRIGGER USER")
    await conn.execute("DELETE FROM decision_records WHERE seq = 3")
    report = await audit.verify(conn)
    assert not report.ok
    assert (report.broken_seq, report.broken_turn_id) == (4, ids[3])
    assert "row 3 is missing" in (report.reason or "")
    assert f"broken at row 4 (turn {ids[3]})" in report.line()


async def test_an_altered_row_is_named_by_verify(conn: AsyncConnection) -> None:
    ids = await settle(conn, 4)
    await conn.execute("ALTER TABLE decision_records DISABLE TRIGGER USER")
    await conn.execute(
        "UPDATE decision_records SET record = jsonb_set(record, '{confidence}', '\"high\"')"
        " WHERE seq = 2"
    )
    report = await audit.verify(conn)
    assert (report.ok, report.broken_seq, report.broken_turn_id) == (False, 2, ids[1])
    assert "altered" in (report.reason or "")


async def test_the_retention_purge_removes_a_prefix_and_the_chain_still_verifies(
    conn: AsyncConnection,
) -> None:
    await settle(conn, 3)
    cutoff = datetime.now(UTC) + timedelta(seconds=1)
    purged = await audit.purge_older_than(conn, cutoff)
    assert (purged.rows, purged.through_seq) == (3, 3)
    later = await settle(conn, 2)
    report = await audit.verify(conn)
    assert report.ok and report.rows == 2, report.line()
    assert (await audit.show(conn, later[0]) or {})["seq"] == 4
    log = await (
        await conn.execute("SELECT through_seq, rows_purged FROM decision_purges")
    ).fetchall()
    assert log == [(3, 3)]
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        await conn.execute("DELETE FROM decision_purges")
    nothing = await audit.purge_older_than(conn, datetime.now(UTC) - timedelta(days=1))
    assert nothing.rows == 0 and (await audit.verify(conn)).ok


def test_the_incident_category_follows_the_documented_order() -> None:
    base = {"turn_id": "t", "conversation_id": "c", "question": "q"}
    claim = UnsupportedClaim(label="BHP FY2024 revenue", reason="calculation")
    outage = Degradation(layer="llm_grade_answer", reason="judge_unavailable")
    assert (
        incident_category(
            TurnResult(**base, status="answered", unsupported_claims=[claim], degraded=[outage])
        )
        == "unsupported_claim_shown"
    )
    assert incident_category(TurnResult(**base, status="answered", degraded=[outage])) == (
        "control_outage"
    )
    assert incident_category(TurnResult(**base, status="answered")) is None


async def test_the_record_holds_every_text_shown_with_its_hash(conn: AsyncConnection) -> None:
    """Each clarifying question asked (once per round, however often its save is retried)
    and the final text, exactly as stored, with their SHA-256."""
    alloc = await turns.allocate_turn(conn, "c-asked", None, "How much profit was there?")
    base = {
        "turn_id": alloc.turn_id,
        "conversation_id": alloc.conversation_id,
        "question": "How much profit was there?",
    }
    for round_, asked in ((1, "Which company do you mean?"), (2, "Which fiscal year?")):
        waiting = TurnResult(
            **base,
            status="needs_clarification",
            clarification_round=round_,
            clarifying_question=asked,
        )
        await turns.save_turn(conn, waiting, final=False)
        await turns.save_turn(conn, waiting, final=False)  # a retried save
        await turns.save_turn(conn, TurnResult(**base, status="running"), final=False)
    answer = "BHP's attributable profit for FY2024 was US$7,897 million [1]."
    await turns.save_turn(
        conn,
        TurnResult(**base, status="answered", clarification_round=2, answer=answer),
        final=True,
    )

    row = await audit.show(conn, alloc.turn_id)

    assert row is not None
    assert row["record"]["shown"] == [
        {
            "kind": "clarifying_question",
            "round": 1,
            "text": "Which company do you mean?",
            "sha256": text_sha256("Which company do you mean?"),
        },
        {
            "kind": "clarifying_question",
            "round": 2,
            "text": "Which fiscal year?",
            "sha256": text_sha256("Which fiscal year?"),
        },
        {"kind": "answer", "round": None, "text": answer, "sha256": text_sha256(answer)},
    ]
    assert (await audit.verify(conn)).ok


async def test_a_refusal_is_recorded_as_the_refusal_shown(conn: AsyncConnection) -> None:
    alloc = await turns.allocate_turn(conn, "c-refused", None, "Should I buy BHP?")
    text = "I do not give investment advice."
    await turns.save_turn(
        conn,
        TurnResult(
            turn_id=alloc.turn_id,
            conversation_id=alloc.conversation_id,
            question="Should I buy BHP?",
            status="refused",
            answer=text,
        ),
        final=True,
    )
    row = await audit.show(conn, alloc.turn_id)
    assert row is not None and [(s["kind"], s["sha256"]) for s in row["record"]["shown"]] == [
        ("refusal", text_sha256(text))
    ]
    assert row["record"]["evidence"] == [] and await audit.passages_today(conn, row["record"]) == []


def _copy(folder: Path, text: str) -> ParsedDocument:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "BHP_FY2024.md"
    path.write_text(text, encoding="utf-8")
    return parse_document(path)


async def _answer_citing(conn: AsyncConnection, doc: ParsedDocument, pages: list[int]) -> str:
    """Settle an answer citing the first chunk of each of `pages`, keeping those and one more."""
    cited = [next(c for c in doc.chunks if c.page == page) for page in pages]
    alloc = await turns.allocate_turn(conn, "c-cites", None, "What was BHP's revenue?")
    citations = [
        Citation(
            n=n,
            chunk_id=c.chunk_id,
            company="BHP",
            fiscal_year=2024,
            page=c.page,
            document=c.document,
            preview=c.text[:40],
        )
        for n, c in enumerate(cited, 1)
    ]
    kept = [*(c.chunk_id for c in cited), doc.chunks[-1].chunk_id]
    await turns.save_turn(
        conn,
        TurnResult(
            turn_id=alloc.turn_id,
            conversation_id=alloc.conversation_id,
            question="What was BHP's revenue?",
            status="answered",
            answer="[1] [2]",
            citations=citations,
            documents=DocumentsUsed(retrieved=kept, kept=kept),
        ),
        final=True,
    )
    return alloc.turn_id


async def test_cited_passages_are_compared_with_the_registry_today(
    conn: AsyncConnection, tmp_path: Path
) -> None:
    """Unchanged while the report stays; one passage changed by a revision; all gone when
    the report leaves the index (its file re-ingested under another year)."""
    corpus = "test-corpus"
    original = CORPUS_DIR / "BHP_FY2024.md"
    v1 = _copy(tmp_path / "v1", original.read_text(encoding="utf-8"))
    await documents.record(conn, corpus, v1, len(v1.chunks), None, forced=False)
    turn_id = await _answer_citing(conn, v1, [4, 6])
    row = await audit.show(conn, turn_id)
    assert row is not None
    evidence = row["record"]["evidence"]
    assert [(e["cited_as"], e["kept"]) for e in evidence] == [([1], True), ([2], True), ([], True)]
    page4 = next(c for c in v1.chunks if c.page == 4)
    assert evidence[0]["version"] == {
        "chunk_id": page4.chunk_id,
        "corpus": corpus,
        "document_id": "BHP-FY2024",
        "document_version": v1.content_hash,
        "page": 4,
        "position": v1.chunks.index(page4),
        "text_sha256": text_sha256(page4.text),
    }

    async def statuses() -> list[str]:
        return [p.status for p in await audit.passages_today(conn, row["record"])]

    assert await statuses() == ["unchanged", "unchanged"]
    edited = original.read_text(encoding="utf-8").replace(
        "The table below summarises", "The table below sets out"
    )
    v2 = _copy(tmp_path / "v2", edited)
    await documents.record(conn, corpus, v2, len(v2.chunks), None, forced=True)
    checks = await audit.passages_today(conn, row["record"])
    assert [c.status for c in checks] == ["changed", "unchanged"]
    assert f"re-ingested ({v1.content_hash} → {v2.content_hash})" in checks[0].detail
    assert checks[0].now == [c.chunk_id for c in v2.chunks if c.page == 4]

    retagged = parse_document(tmp_path / "v2" / "BHP_FY2024.md", fiscal_year=2023)
    await documents.record(conn, corpus, retagged, len(retagged.chunks), None, forced=False)
    assert await statuses() == ["gone", "gone"]


async def test_records_from_before_the_evidence_fields_still_verify_and_show(
    conn: AsyncConnection,
) -> None:
    """A row written by the earlier code (no `shown`, no `evidence`) keeps its hash and
    its place in the chain; its cited passages are `unknown`, not guessed."""
    alloc = await turns.allocate_turn(conn, "c-old", None, "What was BHP's revenue?")
    result = TurnResult(
        turn_id=alloc.turn_id,
        conversation_id=alloc.conversation_id,
        status="answered",
        question="What was BHP's revenue?",
        answer="US$55,658 million [1].",
        citations=[
            Citation(
                n=1,
                chunk_id="legacy-id",
                company="BHP",
                fiscal_year=2024,
                page=4,
                document="BHP Annual Report 2024",
                preview="Revenue",
            )
        ],
    )
    old = audit.build_record(result, 0.4, "e70b6e8a82ff")
    del old["shown"], old["evidence"]
    recorded_at = datetime.now(UTC)
    digest = audit.row_hash(
        audit.GENESIS, 1, alloc.turn_id, alloc.conversation_id, recorded_at, old
    )
    await conn.execute(
        "INSERT INTO decision_records (seq, turn_id, conversation_id, recorded_at, record,"
        " prev_hash, hash) VALUES (1, %s, %s, %s, %s, %s, %s)",
        (alloc.turn_id, alloc.conversation_id, recorded_at, Jsonb(old), audit.GENESIS, digest),
    )
    later = await settle(conn, 2)

    report = await audit.verify(conn)
    assert report.ok and report.rows == 3, report.line()
    row = await audit.show(conn, alloc.turn_id)
    assert row is not None and "evidence" not in row["record"]
    (check,) = await audit.passages_today(conn, row["record"])
    assert (check.n, check.chunk_id, check.status) == (1, "legacy-id", "unknown")
    assert "before decision records kept passage hashes" in check.detail
    new = await audit.show(conn, later[0])
    assert new is not None and new["prev_hash"] == digest and "shown" in new["record"]
