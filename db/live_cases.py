"""SQL for live evaluation: the turns worth a regression case, and what drafting one reads."""

from psycopg import AsyncConnection

from domain.evaluation.live_cases import CaseCandidate
from domain.turns import TurnResult


async def wrong_figure_turns(conn: AsyncConnection, limit: int) -> list[CaseCandidate]:
    """Turns whose latest rating is "wrong figure", latest first, every tenant's."""
    rows = await (
        await conn.execute(
            "SELECT * FROM (SELECT DISTINCT ON (f.turn_id) f.turn_id, f.rating, f.user_id,"
            " f.comment, f.created_at, f.feedback_id, t.question, t.tenant_id"
            " FROM feedback f JOIN turns t ON t.turn_id = f.turn_id"
            " ORDER BY f.turn_id, f.feedback_id DESC) latest"
            " WHERE rating = 'wrong_figure' ORDER BY feedback_id DESC LIMIT %s",
            (limit,),
        )
    ).fetchall()
    out = []
    for turn_id, _, user_id, comment, at, _, question, tenant in rows:
        who = f" by {user_id}" if user_id else ""
        said = f': "{comment}"' if comment else ""
        out.append(
            CaseCandidate(
                turn_id=turn_id,
                kind="wrong_figure",
                why=f"rated wrong figure{who}{said}",
                question=question,
                tenant_id=tenant,
                at=at,
            )
        )
    return out


async def failed_probe_turns(conn: AsyncConnection, limit: int) -> list[CaseCandidate]:
    """The turns of failed probes in recorded runs, latest run first (one per turn)."""
    rows = await (
        await conn.execute(
            "SELECT r.run_id, r.slice, r.failed, r.failed_turns, r.recorded_at FROM probe_runs r"
            " WHERE jsonb_array_length(r.failed_turns) > 0 ORDER BY r.seq DESC LIMIT %s",
            (limit,),
        )
    ).fetchall()
    found: dict[str, tuple[str, object]] = {}
    for run_id, slice_, failed, failed_turns, at in rows:
        for problem, turn_id in zip(failed, failed_turns, strict=False):
            if turn_id and turn_id not in found:
                found[turn_id] = (f"probe {slice_}/{problem} (run {run_id})", at)
    if not found:
        return []
    turns = await (
        await conn.execute(
            "SELECT turn_id, question, tenant_id FROM turns WHERE turn_id = ANY(%s)",
            (list(found),),
        )
    ).fetchall()
    asked = {r[0]: (r[1], r[2]) for r in turns}
    return [
        CaseCandidate(
            turn_id=t,
            kind="probe",
            why=why,
            question=asked[t][0],
            tenant_id=asked[t][1],
            at=at,  # type: ignore[arg-type]
        )
        for t, (why, at) in found.items()
        if t in asked
    ][:limit]


async def turn_of(conn: AsyncConnection, turn_id: str) -> tuple[TurnResult, str, int] | None:
    """A turn as stored (any tenant's), with its tenant and its place in the conversation."""
    row = await (
        await conn.execute(
            "SELECT result, status, tenant_id, seq, conversation_id, question FROM turns"
            " WHERE turn_id = %s",
            (turn_id,),
        )
    ).fetchone()
    if row is None:
        return None
    result = (
        TurnResult.model_validate(row[0])
        if row[0] is not None
        else TurnResult(turn_id=turn_id, conversation_id=row[4], status=row[1], question=row[5])
    )
    return result, str(row[2]), int(row[3])


async def questions_before(conn: AsyncConnection, conversation_id: str, seq: int) -> list[str]:
    """The questions of a conversation's earlier turns as they were asked, oldest first."""
    rows = await (
        await conn.execute(
            "SELECT t.question FROM turns t WHERE t.conversation_id = %s AND t.seq < %s"
            " ORDER BY t.seq",
            (conversation_id, seq),
        )
    ).fetchall()
    return [str(r[0]) for r in rows]


async def ratings_of(conn: AsyncConnection, turn_id: str) -> list[tuple[str, str | None, str]]:
    """A turn's ratings, oldest first: (rating, user id, comment)."""
    rows = await (
        await conn.execute(
            "SELECT rating, user_id, comment FROM feedback WHERE turn_id = %s ORDER BY feedback_id",
            (turn_id,),
        )
    ).fetchall()
    return [(str(r[0]), r[1], str(r[2])) for r in rows]


async def probe_failures_of(conn: AsyncConnection, turn_id: str) -> list[str]:
    """The recorded probe failures whose turn this is ("probe slice/id: problem")."""
    rows = await (
        await conn.execute(
            "SELECT r.slice, r.failed, r.failed_turns FROM probe_runs r"
            " WHERE r.failed_turns ? %s ORDER BY r.seq DESC",
            (turn_id,),
        )
    ).fetchall()
    return [
        f"probe {slice_}/{problem}"
        for slice_, failed, turns in rows
        for problem, turn in zip(failed, turns, strict=False)
        if turn == turn_id
    ]
