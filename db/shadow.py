"""Shadow runs (migration 0017): a shadow's outcome beside its live turn's, and nowhere else."""

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from domain.evaluation.shadow import Outcome, ShadowPair
from domain.turns import TurnResult


async def record(
    conn: AsyncConnection,
    live_turn_id: str,
    shadow: TurnResult,
    live_config: str,
    shadow_config: str,
) -> bool:
    """Store the shadow beside the live turn's settled result (copied, so the pair stays
    whole whatever happens to the turn later). Idempotent; False when nothing was stored
    (stored before, or no settled live turn to pair it with)."""
    inserted = await conn.execute(
        "INSERT INTO shadow_runs (turn_id, conversation_id, tenant_id, live_config,"
        " shadow_config, live, shadow) SELECT turn_id, conversation_id, tenant_id, %s, %s,"
        " result, %s FROM turns WHERE turn_id = %s AND result IS NOT NULL"
        " ON CONFLICT (turn_id) DO NOTHING",
        (live_config, shadow_config, Jsonb(shadow.model_dump(mode="json")), live_turn_id),
    )
    return inserted.rowcount == 1


async def pairs(conn: AsyncConnection, limit: int) -> list[ShadowPair]:
    """The latest recorded pairs, latest first."""
    rows = await (
        await conn.execute(
            "SELECT turn_id, live_config, shadow_config, live, shadow, recorded_at"
            " FROM shadow_runs ORDER BY recorded_at DESC, turn_id LIMIT %s",
            (limit,),
        )
    ).fetchall()
    out = []
    for turn_id, live_config, shadow_config, live, shadow, at in rows:
        live_result = TurnResult.model_validate(live)
        out.append(
            ShadowPair(
                turn_id=turn_id,
                question=live_result.question,
                live_config=live_config,
                shadow_config=shadow_config,
                live=Outcome.of(live_result),
                shadow=Outcome.of(TurnResult.model_validate(shadow)),
                recorded_at=at,
            )
        )
    return out
