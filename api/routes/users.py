"""A user's memory: what the system keeps about one user, reading it and erasing it."""

import asyncio
from datetime import datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Path, Response
from pydantic import AfterValidator, BaseModel, Field
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy

from activities.contracts import ForgetRequest
from api.auth import CallerDep
from api.bounded import require_worker
from api.deps import PoolDep, SettingsDep, TemporalDep
from api.errors import error_responses
from api.text import ID_CHARS, check_user_id
from db import memory
from db import pii as token_map
from workflows.forget import ForgetUser, forget_workflow_id

router = APIRouter(prefix="/v1", tags=["users"])
UserId = Annotated[str, Path(max_length=128), ID_CHARS, AfterValidator(check_user_id)]
ERASE_WAIT = timedelta(seconds=30)
"""How long DELETE waits for the erasure before answering 202 (it completes anyway)."""


class Fact(BaseModel):
    kind: str
    value: str
    statement: str
    """What the user said (personal values appear as tokens)."""
    valid_from: datetime
    valid_to: datetime | None
    """None: the current value. Superseded versions are kept until the memory is erased."""


class Memory(BaseModel):
    user_id: str
    facts: list[Fact] = Field(default_factory=list)
    """Every version of every fact, oldest first."""
    summaries: int = 0
    """Summaries of conversations this user asked in."""
    personal_values: int = 0
    """Values in the token map (shown to the user as their own text, never to others)."""


class Erased(BaseModel):
    user_id: str
    status: str = "erased"
    """`erased`, or `pending` (202): the erasure runs and completes without the caller."""
    facts: int = 0
    summaries: int = 0
    personal_values: int = 0
    """Values erased from the token map: the user's stored text keeps bare tokens."""
    cached_answers: int = 0


@router.get("/users/{user_id}/memory", responses=error_responses(401))
async def read_memory(user_id: UserId, pool: PoolDep, caller: CallerDep) -> Memory:
    """What the system remembers about a user of the caller's tenant: their facts with
    every version, and how many summaries and personal values it holds."""
    async with pool.connection() as conn:
        facts = await memory.fact_history(conn, caller.tenant_id, user_id)
        summaries = await memory.user_summaries(conn, caller.tenant_id, user_id)
        values = await token_map.count_owner(conn, caller.tenant_id, user_id)
    return Memory(
        user_id=user_id,
        facts=[Fact(**f.model_dump()) for f in facts],
        summaries=summaries,
        personal_values=values,
    )


@router.delete(
    "/users/{user_id}/memory",
    responses={**error_responses(401, 503), 202: {"model": Erased, "description": "pending"}},
)
async def forget_user(
    user_id: UserId,
    client: TemporalDep,
    settings: SettingsDep,
    caller: CallerDep,
    response: Response,
) -> Erased:
    """Erase everything remembered about a user of the caller's tenant: every version of
    their facts, the summaries of their conversations, their personal values and the
    answer-cache entries written from their turns. Runs as a ForgetUser workflow (the
    worker owns the cache); 202 `pending` when it takes longer than the wait, and it
    completes anyway. Idempotent: a second call erases nothing more."""
    await require_worker(client, settings)
    handle = await client.start_workflow(
        ForgetUser.run,
        ForgetRequest(tenant_id=caller.tenant_id, user_id=user_id),
        id=forget_workflow_id(caller.tenant_id, user_id),
        task_queue=settings.task_queue,
        static_summary=f"forget user {user_id}: facts, summaries, personal values, cache",
        static_details=f"tenant {caller.tenant_id}",
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
    try:
        done = await asyncio.wait_for(handle.result(), ERASE_WAIT.total_seconds())
    except TimeoutError:
        response.status_code = 202
        return Erased(user_id=user_id, status="pending")
    return Erased(user_id=user_id, **done.model_dump())
