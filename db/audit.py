"""The decision record: one append-only, hash-chained row per settled turn.

A reviewer reads, months later, what the turn decided and why: the route, every check
and its result, the evidence cited, unsupported claims with their classes, confidence,
fallback reason, degradations, retries, prompt hashes, model names, corpus version and
timing; and, so the row stands on its own, the exact texts the person was shown (as
stored: personal values as tokens) with their SHA-256, and for every chunk cited or kept
the hash of its text and its document's version (`shown`, `evidence`).

Rows are written in the same transaction as the turn's final save (so a turn is not
settled without its record, and the save is retried until it succeeds); PostgreSQL
itself refuses UPDATE, DELETE and TRUNCATE (migration 0005), except the retention purge,
which removes only the oldest rows and logs the hash of the last one it removed.

Each row's hash covers the previous row's hash and the row's own canonical JSON, so an
edited, removed or reordered row breaks the chain at a row `verify` names.
"""

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from db import chunks
from domain.provenance import (
    PassageCheck,
    PassageVersion,
    RecordedPassage,
    Shown,
    check_passage,
    final_kind,
    shown_text,
)
from domain.turns import TurnResult
from domain.usage import Usage

GENESIS = "0" * 64
"""The `prev_hash` of the first row ever written."""
_CHAIN_LOCK = 7_233_002


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def row_hash(
    prev_hash: str,
    seq: int,
    turn_id: str,
    conversation_id: str,
    recorded_at: datetime,
    record: dict[str, Any],
) -> str:
    """SHA-256 over the previous hash and this row's fields, in canonical JSON."""
    body = {
        "seq": seq,
        "turn_id": turn_id,
        "conversation_id": conversation_id,
        "recorded_at": _iso(recorded_at),
        "record": record,
    }
    return hashlib.sha256(prev_hash.encode() + b"\n" + _canonical(body)).hexdigest()


def incident_category(result: TurnResult) -> str | None:
    """The incident category the system can assign by itself (docs/incidents.md)."""
    if result.status == "answered" and result.unsupported_claims:
        return "unsupported_claim_shown"
    if result.degraded:
        return "control_outage"
    return None


def _relevance_result(result: TurnResult) -> str:
    """What the relevance control decided: every part covered, or which parts were not."""
    relevance = result.relevance
    if relevance is None:
        return "not run"
    if relevance.off_point:
        return "off point: " + "; ".join(relevance.missing())
    if not relevance.addressed:
        return "partly addressed, missing: " + "; ".join(relevance.missing())
    return f"addressed ({len(relevance.items)} part{'s' if len(relevance.items) != 1 else ''})"


def _numeric_result(result: TurnResult) -> str:
    """What the numeric check decided, and whether it had any figure to check."""
    if result.grounded is None:
        return "not run"
    if any(f.step == "grounding_check_numbers" for f in result.step_failures):
        return f"{result.grounded}: the check could not run (every figure unverified)"
    if result.figures_checked == 0:
        return f"{result.grounded}: no figure in the answer to check"
    return f"{result.grounded} ({result.figures_checked} checked)"


def _judge_result(result: TurnResult, closed: set[str]) -> str:
    """What the answer judge did: ran, not run, or which way it failed when unavailable."""
    if any(d.layer == "llm_grade_answer" for d in result.degraded):
        return "unavailable: passed with 0 unsupported, confidence capped"
    if "llm_grade_answer" in closed:
        return "unavailable: failed closed, the draft not shown"
    return "ran" if result.grounded is not None else "not run"


def _grading_result(result: TurnResult) -> str:
    """How many retrieved passages the relevance grader kept."""
    docs = result.documents
    if not docs.retrieved:
        return "not run"
    grading_down = any(d.layer == "llm_grade_documents" for d in result.degraded)
    return f"kept {len(docs.kept)} of {len(docs.retrieved)}" + (
        " (grader unavailable: kept all)" if grading_down else ""
    )


def check_results(result: TurnResult) -> list[dict[str, str]]:
    """Each control the turn went through and what it decided, in the turn's order."""
    closed = {f.step for f in result.step_failures if f.direction == "closed"}
    route = result.route or (
        "classifier unavailable: failed closed, nothing looked up"
        if "llm_route_question" in closed
        else "not reached"
    )
    reused = (
        f"not run: the answer of {result.cache_turn_id} (checked then: {result.grounded})"
        if result.cache == "hit"
        else None
    )
    scope = f"refused: {result.refusal_reason}" if result.route == "scope_rules" else "passed"
    final = (
        f"fallback: {result.fallback_reason}"
        if result.fallback_reason
        else ("passed" if result.status == "answered" else result.status)
    )
    checks = [
        ("scope_rules", scope),
        ("answer_cache", result.cache or "not asked"),
        ("route", route),
        ("relevance_grading", _grading_result(result)),
        ("numeric_grounding", reused or _numeric_result(result)),
        ("answer_relevance", reused or _relevance_result(result)),
        ("answer_judge", reused or _judge_result(result, closed)),
        ("final_gate", final),
    ]
    return [{"check": name, "result": outcome} for name, outcome in checks]


def shown_texts(result: TurnResult, asked: Sequence[Mapping[str, Any]] = ()) -> list[Shown]:
    """What the person was shown, in order: each clarifying question the turn asked (as
    `asked` holds them, one per round), then its final text."""
    shown = [shown_text("clarifying_question", str(a["text"]), int(a["round"])) for a in asked]
    last = result.clarifying_question
    if last is not None and all(s.text != last for s in shown):  # asked before rounds were kept
        shown.append(shown_text("clarifying_question", last, result.clarification_round or None))
    if result.answer is not None:
        shown.append(shown_text(final_kind(result.status), result.answer))
    return shown


async def evidence_of(conn: AsyncConnection, result: TurnResult) -> list[RecordedPassage]:
    """Every chunk the turn cited or kept, cited first, with its version from the chunk
    registry (none when the registry does not hold it)."""
    cited: dict[str, list[int]] = {}
    for c in result.citations:
        if c.chunk_id:
            cited.setdefault(c.chunk_id, []).append(c.n)
    kept = set(result.documents.kept)
    ids = list(dict.fromkeys([*cited, *result.documents.kept]))
    found = await chunks.versions(conn, ids)
    return [
        RecordedPassage(chunk_id=i, cited_as=cited.get(i, []), kept=i in kept, version=found.get(i))
        for i in ids
    ]


def _checks(result: TurnResult) -> dict[str, Any]:
    """The record's `checks`: what the grounding, relevance and coverage controls found."""
    return {
        "coverage": result.coverage,
        "not_found": [g.line() for g in result.not_found],
        "grounded": result.grounded,
        "unsupported_claims": [c.model_dump(mode="json") for c in result.unsupported_claims],
        "derived": [d.model_dump(mode="json") for d in result.derived],
        "relevance": result.relevance.model_dump(mode="json") if result.relevance else None,
        "warnings": result.warnings,
    }


def _memory(result: TurnResult) -> dict[str, Any]:
    """The record's `memory`: the answer cache's verdict and whether history was summarised."""
    return {
        "cache": result.cache,
        "cache_turn_id": result.cache_turn_id,
        "cache_similarity": result.cache_similarity,
        "summarised": result.summarised,
    }


def _citations(result: TurnResult) -> list[dict[str, Any]]:
    """The record's `citations`: where each cited passage is, never its text."""
    return [
        {
            "n": c.n,
            "chunk_id": c.chunk_id,
            "company": c.company,
            "fiscal_year": c.fiscal_year,
            "page": c.page,
            "document": c.document,
        }
        for c in result.citations
    ]


def build_record(
    result: TurnResult,
    seconds: float | None,
    corpus_version: str | None,
    tenant_id: str | None = None,
    usage: Usage | None = None,
    shown: Sequence[Shown] = (),
    evidence: Sequence[RecordedPassage] = (),
) -> dict[str, Any]:
    """What a reviewer needs from a settled turn: decisions and checks, never a prompt."""
    return {
        "tenant_id": tenant_id,
        "status": result.status,
        "route": result.route,
        "resolved_question": result.resolved_question,
        "carried": result.carried.model_dump(mode="json"),
        "refusal_reason": result.refusal_reason,
        "fallback_reason": result.fallback_reason,
        "failure_reason": result.failure_reason,
        "clarification_rounds": result.clarification_round,
        "check_results": check_results(result),
        "checks": _checks(result),
        "confidence": result.confidence,
        "documents": result.documents.model_dump(mode="json"),
        "memory": _memory(result),
        "citations": _citations(result),
        "degradations": [d.model_dump(mode="json") for d in result.degraded],
        "step_failures": [f.model_dump(mode="json") for f in result.step_failures],
        "retries": result.retries,
        "retry_skipped": result.retry_skipped,
        "model_calls": result.model_calls,
        "model_trace": [c.model_dump(mode="json") for c in result.model_trace],
        "usage": None if usage is None else usage.model_dump(mode="json"),
        "corpus_version": corpus_version,
        "seconds": None if seconds is None else round(seconds, 3),
        "incident": incident_category(result),
        "shown": [s.model_dump(mode="json") for s in shown],
        "evidence": [e.model_dump(mode="json") for e in evidence],
    }


async def _corpus_version(conn: AsyncConnection, result: TurnResult) -> tuple[str | None, str]:
    """The version of the passages the turn read, and where it is from; a turn that read
    none (a refusal, a direct answer) gets the newest worker's, and says so."""
    if read := result.documents.corpus_versions:
        return ", ".join(read), "passages read"
    heartbeat = await (
        await conn.execute(
            "SELECT corpus_version FROM worker_heartbeats ORDER BY seen_at DESC LIMIT 1"
        )
    ).fetchone()
    return (str(heartbeat[0]) if heartbeat else None), "newest worker heartbeat"


async def append(
    conn: AsyncConnection,
    result: TurnResult,
    seconds: float | None,
    tenant_id: str | None = None,
    usage: Usage | None = None,
    asked: Sequence[Mapping[str, Any]] = (),
) -> bool:
    """Write the turn's record at the end of the chain (inside the caller's transaction).

    Idempotent: a turn that already has its record gets no second one. Returns whether a
    row was written. Writers are serialised by a transaction-level advisory lock, so the
    chain has exactly one tail. `asked` holds the clarifying questions the turn asked.
    """
    await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_CHAIN_LOCK,))
    cur = await conn.execute("SELECT 1 FROM decision_records WHERE turn_id = %s", (result.turn_id,))
    if await cur.fetchone() is not None:
        return False
    seq, prev = await _tail(conn)
    version, source = await _corpus_version(conn, result)
    record = build_record(
        result,
        seconds,
        version,
        tenant_id,
        usage,
        shown_texts(result, asked),
        await evidence_of(conn, result),
    )
    record["corpus_version_from"] = source
    recorded_at = datetime.now(UTC)
    digest = row_hash(prev, seq, result.turn_id, result.conversation_id, recorded_at, record)
    await conn.execute(
        "INSERT INTO decision_records (seq, turn_id, conversation_id, recorded_at, record,"
        " prev_hash, hash) VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (seq, result.turn_id, result.conversation_id, recorded_at, Jsonb(record), prev, digest),
    )
    return True


async def _tail(conn: AsyncConnection) -> tuple[int, str]:
    """The next row's seq and prev_hash: after the last row, else after the last purge."""
    last = await (
        await conn.execute("SELECT seq, hash FROM decision_records ORDER BY seq DESC LIMIT 1")
    ).fetchone()
    if last is not None:
        return int(last[0]) + 1, str(last[1])
    purge = await _last_purge(conn)
    return (purge[0] + 1, purge[1]) if purge else (1, GENESIS)


async def _last_purge(conn: AsyncConnection) -> tuple[int, str] | None:
    row = await (
        await conn.execute(
            "SELECT through_seq, last_hash FROM decision_purges ORDER BY purge_id DESC LIMIT 1"
        )
    ).fetchone()
    return (int(row[0]), str(row[1])) if row else None


@dataclass(frozen=True)
class Verification:
    ok: bool
    rows: int
    broken_seq: int | None = None
    broken_turn_id: str | None = None
    reason: str | None = None

    def line(self) -> str:
        if self.ok:
            return f"decision record chain intact: {self.rows} row(s) verified"
        return (
            f"decision record chain broken at row {self.broken_seq} "
            f"(turn {self.broken_turn_id}): {self.reason}"
        )


async def verify(conn: AsyncConnection) -> Verification:
    """Walk the chain from its start (or the last purge's checkpoint) and recompute every
    hash; the first row that does not follow is named."""
    purge = await _last_purge(conn)
    expected_seq, prev = (purge[0] + 1, purge[1]) if purge else (1, GENESIS)
    rows = 0
    cur = await conn.execute(
        "SELECT seq, turn_id, conversation_id, recorded_at, record, prev_hash, hash"
        " FROM decision_records ORDER BY seq"
    )
    async for seq, turn_id, conversation_id, recorded_at, record, prev_hash, digest in cur:
        reason = None
        if seq != expected_seq:
            reason = f"row {expected_seq} is missing (removed outside the retention purge)"
        elif prev_hash != prev:
            reason = "its prev_hash is not the previous row's hash"
        elif row_hash(prev, seq, turn_id, conversation_id, recorded_at, record) != digest:
            reason = "its content does not match its hash (altered)"
        if reason:
            return Verification(False, rows, seq, turn_id, reason)
        rows += 1
        prev, expected_seq = digest, seq + 1
    return Verification(True, rows)


async def show(
    conn: AsyncConnection, turn_id: str, tenant_id: str | None = None
) -> dict[str, Any] | None:
    """One turn's row, as stored (None for another tenant's turn, when `tenant_id` is
    given; rows from before tenants belong to the development tenant)."""
    row = await (
        await conn.execute(
            "SELECT seq, turn_id, conversation_id, recorded_at, record, prev_hash, hash"
            " FROM decision_records WHERE turn_id = %s"
            " AND coalesce(record->>'tenant_id', 'default') = coalesce(%s,"
            " record->>'tenant_id', 'default')",
            (turn_id, tenant_id),
        )
    ).fetchone()
    if row is None:
        return None
    keys = ("seq", "turn_id", "conversation_id", "recorded_at", "record", "prev_hash", "hash")
    out = dict(zip(keys, row, strict=True))
    out["recorded_at"] = _iso(out["recorded_at"])
    return out


async def passages_today(conn: AsyncConnection, record: Mapping[str, Any]) -> list[PassageCheck]:
    """Each passage a stored record cites, compared with what the chunk registry holds
    today (`domain.provenance.check_passage`). Read-only; beside the record, not in it."""
    kept = record.get("evidence")
    evidence = (
        None
        if kept is None
        else {e.chunk_id: e for e in (RecordedPassage.model_validate(x) for x in kept)}
    )
    documents: dict[tuple[str, str], list[PassageVersion]] = {}
    checks = []
    for cited in record.get("citations") or []:
        chunk_id = str(cited.get("chunk_id") or "")
        recorded = (
            None
            if evidence is None
            else evidence.get(chunk_id) or RecordedPassage(chunk_id=chunk_id)
        )
        was = recorded.version if recorded is not None else None
        now: list[PassageVersion] = []
        if was is not None:
            key = (was.corpus, was.document_id)
            if key not in documents:
                documents[key] = await chunks.now(conn, *key)
            now = documents[key]
        checks.append(check_passage(int(cited.get("n", 0)), chunk_id, recorded, now))
    return checks


@dataclass(frozen=True)
class Purge:
    rows: int
    through_seq: int | None


async def purge_older_than(conn: AsyncConnection, cutoff: datetime) -> Purge:
    """Delete the oldest rows recorded before `cutoff` — only a prefix of the chain, so
    it stays verifiable — and log the last removed hash as the new checkpoint."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_CHAIN_LOCK,))
        newer = await (
            await conn.execute(
                "SELECT min(seq) FROM decision_records WHERE recorded_at >= %s", (cutoff,)
            )
        ).fetchone()
        bound = "seq < %s" if newer and newer[0] is not None else "TRUE"
        args: tuple[Any, ...] = (newer[0],) if newer and newer[0] is not None else ()
        last = await (
            await conn.execute(
                f"SELECT seq, hash FROM decision_records WHERE {bound} ORDER BY seq DESC LIMIT 1",
                args,
            )
        ).fetchone()
        if last is None:
            return Purge(0, None)
        through, last_hash = int(last[0]), str(last[1])
        await conn.execute("SET LOCAL turnstile.retention_purge = 'on'")
        deleted = await conn.execute("DELETE FROM decision_records WHERE seq <= %s", (through,))
        await conn.execute("SET LOCAL turnstile.retention_purge = 'off'")
        await conn.execute(
            "INSERT INTO decision_purges (through_seq, last_hash, rows_purged, older_than)"
            " VALUES (%s, %s, %s, %s)",
            (through, last_hash, deleted.rowcount, cutoff),
        )
        return Purge(deleted.rowcount, through)
