"""The decision record on a real PostgreSQL: append-only by the database's own rules,
hash-chained, verified, purged by retention without breaking the chain.

Each test gets a database of its own (tampering with a chain must not break the
session's), migrated like any other.
"""

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from psycopg import AsyncConnection

from db import audit, turns
from db.audit import incident_category
from domain.models import ModelCall, UnsupportedClaim
from domain.turns import Degradation, StepFailure, TurnResult
from domain.usage import Price


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
            turn_id=alloc.turn_id, conversation_id=alloc.conversation_id, status="answered",
            question=f"question {i}", route="needs_retrieval", answer="An answer [1].",
            confidence="medium", grounded="partial", retries=1, figures_checked=2,
            unsupported_claims=[UnsupportedClaim(label="BHP FY2024 revenue",
                                                 reason="calculation")],
            degraded=[Degradation(layer="llm_grade_answer", reason="judge_unavailable")],
            step_failures=[StepFailure(step="llm_grade_answer", direction="open",
                                       error_class="timeout",
                                       reason="ModelTimeout: grade_answer: the model timed out")],
            model_trace=[ModelCall(step="synthesize", model="m", prompt_sha="abc123def456",
                                   prompt_tokens=1000, completion_tokens=100)],
        )  # fmt: skip
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
    assert record["step_failures"] == [{
        "step": "llm_grade_answer", "direction": "open", "error_class": "timeout",
        "reason": "ModelTimeout: grade_answer: the model timed out",
    }]  # fmt: skip
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
