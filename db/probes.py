"""Golden-probe runs and the incidents they open (tables `probe_runs`, `probe_incidents`)."""

import json

from psycopg import AsyncConnection


async def record_run(
    conn: AsyncConnection, run_id: str, slice_: str, cases: int, passed: int, threshold: int,
    breached: bool, failed: list[str], corpus_version: str | None,
) -> tuple[bool, tuple[str, bool] | None]:  # fmt: skip
    """Store one slice of a run (idempotent: a retried write changes nothing). Returns
    whether this call stored it, and the previous run of the slice as (run id, breached),
    None when this is the first."""
    async with conn.transaction():
        inserted = await conn.execute(
            "INSERT INTO probe_runs (run_id, slice, cases, passed, threshold, breached, failed,"
            " corpus_version) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (run_id, slice) DO NOTHING",
            (run_id, slice_, cases, passed, threshold, breached, json.dumps(failed),
             corpus_version),
        )  # fmt: skip
        row = await (
            await conn.execute(
                "SELECT run_id, breached FROM probe_runs WHERE slice = %s AND run_id <> %s"
                " AND recorded_at <= (SELECT recorded_at FROM probe_runs"
                "                     WHERE run_id = %s AND slice = %s)"
                " ORDER BY recorded_at DESC, run_id DESC LIMIT 1",
                (slice_, run_id, run_id, slice_),
            )
        ).fetchone()
    return inserted.rowcount == 1, (str(row[0]), bool(row[1])) if row else None


async def open_incident(
    conn: AsyncConnection, slice_: str, run_id: str, previous_run_id: str, category: str,
    severity: str, summary: str,
) -> int:  # fmt: skip
    """Open an incident for a slice's second consecutive breach; idempotent per run."""
    row = await (
        await conn.execute(
            "INSERT INTO probe_incidents (slice, run_id, previous_run_id, category, severity,"
            " summary) VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (run_id, slice) DO UPDATE SET summary = probe_incidents.summary"
            " RETURNING id",
            (slice_, run_id, previous_run_id, category, severity, summary),
        )
    ).fetchone()
    assert row is not None
    return int(row[0])


async def incidents(conn: AsyncConnection) -> list[dict[str, object]]:
    cur = await conn.execute(
        "SELECT id, slice, run_id, previous_run_id, category, severity, summary, opened_at"
        " FROM probe_incidents ORDER BY id"
    )
    names = [d.name for d in cur.description or []]
    return [dict(zip(names, row, strict=True)) for row in await cur.fetchall()]
