"""Golden-probe runs and the incidents they open (tables `probe_runs`, `probe_incidents`)."""

import json

from psycopg import AsyncConnection
from pydantic import BaseModel, ConfigDict


class Recorded(BaseModel):
    model_config = ConfigDict(frozen=True)

    stored: bool
    """Whether this call stored the row (False: a retried write found it stored)."""
    previous: list[tuple[str, bool]]
    """The slice's runs before this one in the same scope, newest first, at most two:
    (run id, breached)."""


async def record_run(
    conn: AsyncConnection,
    scope: str,
    run_id: str,
    slice_: str,
    cases: int,
    passed: int,
    threshold: int,
    breached: bool,
    failed: list[str],
    corpus_version: str | None,
    failed_turns: list[str] | None = None,
    healthy_rate: float | None = None,
) -> Recorded:
    """Store one slice of a run (idempotent: a retried write changes nothing) and read the
    two runs of the slice before it, by sequence."""
    async with conn.transaction():
        inserted = await conn.execute(
            "INSERT INTO probe_runs (scope, run_id, slice, cases, passed, threshold, breached,"
            " failed, corpus_version, failed_turns, healthy_rate)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (run_id, slice) DO NOTHING",
            (
                scope,
                run_id,
                slice_,
                cases,
                passed,
                threshold,
                breached,
                json.dumps(failed),
                corpus_version,
                json.dumps(failed_turns or []),
                healthy_rate,
            ),
        )
        previous = await _previous_runs(conn, scope, slice_, run_id)
    return Recorded(stored=inserted.rowcount == 1, previous=previous)


async def _previous_runs(
    conn: AsyncConnection, scope: str, slice_: str, run_id: str
) -> list[tuple[str, bool]]:
    """The slice's two runs before `run_id` in `scope`, newest first: (run id, breached)."""
    rows = await (
        await conn.execute(
            "SELECT run_id, breached FROM probe_runs WHERE scope = %s AND slice = %s"
            " AND seq < (SELECT seq FROM probe_runs WHERE run_id = %s AND slice = %s)"
            " ORDER BY seq DESC LIMIT 2",
            (scope, slice_, run_id, slice_),
        )
    ).fetchall()
    return [(str(r[0]), bool(r[1])) for r in rows]


async def healthy_history(
    conn: AsyncConnection, scope: str, slice_: str, runs: int
) -> list[tuple[int, int]]:
    """(cases, passed) of a slice's latest `runs` recorded runs that did not breach,
    newest first, within `scope`."""
    rows = await (
        await conn.execute(
            "SELECT cases, passed FROM probe_runs WHERE scope = %s AND slice = %s"
            " AND NOT breached ORDER BY seq DESC LIMIT %s",
            (scope, slice_, runs),
        )
    ).fetchall()
    return [(int(r[0]), int(r[1])) for r in rows]


async def recent_versions(conn: AsyncConnection, scope: str, count: int) -> list[str]:
    """The corpus versions of a scope's latest recorded runs, newest first, distinct."""
    rows = await (
        await conn.execute(
            "SELECT corpus_version FROM probe_runs WHERE scope = %s AND corpus_version"
            " IS NOT NULL GROUP BY corpus_version ORDER BY max(seq) DESC LIMIT %s",
            (scope, count),
        )
    ).fetchall()
    return [str(r[0]) for r in rows]


async def open_incident(
    conn: AsyncConnection,
    scope: str,
    slice_: str,
    run_id: str,
    previous_run_id: str,
    category: str,
    severity: str,
    summary: str,
) -> tuple[int, bool]:
    """Open an incident for a slice's second consecutive breach; idempotent per run.
    Returns its id and whether this call created it (a retry finds it)."""
    row = await (
        await conn.execute(
            "INSERT INTO probe_incidents (scope, slice, run_id, previous_run_id, category,"
            " severity, summary) VALUES (%s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (run_id, slice) DO UPDATE SET summary = probe_incidents.summary"
            " RETURNING id, (xmax = 0)",
            (scope, slice_, run_id, previous_run_id, category, severity, summary),
        )
    ).fetchone()
    assert row is not None
    return int(row[0]), bool(row[1])


async def incidents(conn: AsyncConnection) -> list[dict[str, object]]:
    cur = await conn.execute(
        "SELECT id, scope, slice, run_id, previous_run_id, category, severity, summary,"
        " opened_at FROM probe_incidents ORDER BY id"
    )
    names = [d.name for d in cur.description or []]
    return [dict(zip(names, row, strict=True)) for row in await cur.fetchall()]
