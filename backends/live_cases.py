"""Live evaluation activities: the turns worth a regression case, and a case drafted
from one (the drafting rules are `domain.evaluation.live_cases`, pure).

A draft's figures come from the reports' facts: those ingestion stored in PostgreSQL for
this index, or, for a company whose facts were never stored (an index filled directly,
as tests and benchmarks fill it), the same extractor (`report_facts`) over the index's
chunks of that company, which is what ingestion would have stored.
"""

import asyncio
from collections.abc import Callable
from typing import Any

from psycopg_pool import AsyncConnectionPool

from activities import steps
from activities.contracts import CandidatesRequest, DraftCaseRequest
from activities.errors import not_found
from activities.steps import implements
from backends.heartbeat import heartbeating
from backends.reports import ReportIndex
from db import facts as facts_db
from db import live_cases
from domain.evaluation.live_cases import Asked, CaseCandidates, draft_case
from domain.evaluation.scoring import EvalCase
from domain.reports.facts import report_facts
from domain.reports.figures import Fact


class LiveCaseActivities:
    def __init__(self, pool: AsyncConnectionPool, index: ReportIndex) -> None:
        self.pool = pool
        self.index = index

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [self.list_candidates, self.draft_case]

    @implements(steps.postgres_list_case_candidates)
    async def list_candidates(self, request: CandidatesRequest) -> CaseCandidates:
        """Turns rated wrong figure (their latest rating) and turns of failed probes,
        each kind latest first."""
        async with self.pool.connection() as conn:
            rated = await live_cases.wrong_figure_turns(conn, request.limit)
            probed = await live_cases.failed_probe_turns(conn, request.limit)
        return CaseCandidates(candidates=[*rated, *probed])

    @implements(steps.postgres_draft_case)
    async def draft_case(self, request: DraftCaseRequest) -> EvalCase:
        """The turn as an unconfirmed case. Raises NotFound (non-retryable) for no such
        turn. Reads only: drafting writes nothing anywhere."""
        async with heartbeating(), self.pool.connection() as conn:
            found = await live_cases.turn_of(conn, request.turn_id)
            if found is None:
                raise not_found(f"no turn {request.turn_id}")
            turn, _, seq = found
            before = await live_cases.questions_before(conn, turn.conversation_id, seq)
            ratings = await live_cases.ratings_of(conn, request.turn_id)
            probe_failures = await live_cases.probe_failures_of(conn, request.turn_id)
            asked = Asked.of(turn)
            companies = sorted({*asked.companies, *(c.company for c in turn.citations)})
            known = await self._facts(conn, companies)
        why = [
            f"rated {rating.replace('_', ' ')}"
            + (f" by {user}" if user else "")
            + (f': "{comment}"' if comment else "")
            for rating, user, comment in ratings
            if rating == "wrong_figure"
        ]
        why += probe_failures
        latest = ratings[-1][0] if ratings else None
        version = await asyncio.to_thread(self.index.corpus_version)
        return draft_case(turn, before, known, why, latest == "wrong_figure", version)

    async def _facts(self, conn: Any, companies: list[str]) -> list[Fact]:
        found: list[Fact] = []
        for company in companies:
            stored = await facts_db.of_company(conn, self.index.corpus_id, company)
            if not stored:
                chunks = await asyncio.to_thread(self.index.chunks_of, company)
                stored = [f for chunk in chunks for f in report_facts(chunk)]
            found += stored
        return found
