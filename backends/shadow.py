"""Shadow-run activities: record a shadow's outcome beside its live turn's, and read the
pairs back as the A/B report (`domain.evaluation.shadow`)."""

from collections.abc import Callable
from typing import Any

from psycopg_pool import AsyncConnectionPool
from temporalio import activity

from activities import steps
from activities.contracts import RecordShadowRequest, ShadowRunsRequest
from activities.steps import implements
from backends.heartbeat import heartbeating
from db import shadow
from domain.evaluation.shadow import ShadowReport, shadow_report


class ShadowActivities:
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [self.record, self.report]

    @implements(steps.postgres_record_shadow)
    async def record(self, request: RecordShadowRequest) -> None:
        """Write the pair (idempotent). The only write a shadow run makes."""
        async with heartbeating(), self.pool.connection() as conn:
            stored = await shadow.record(
                conn,
                request.live_turn_id,
                request.shadow,
                request.live_config,
                request.shadow_config,
            )
        if not stored:
            activity.logger.info(
                "shadow of %s: recorded before, or no settled live turn", request.live_turn_id
            )

    @implements(steps.postgres_read_shadow_runs)
    async def report(self, request: ShadowRunsRequest) -> ShadowReport:
        async with self.pool.connection() as conn:
            return shadow_report(await shadow.pairs(conn, request.limit))
