"""A user's memory: what the system keeps about one user, and erasing it."""

from typing import Annotated

from fastapi import APIRouter, Path
from pydantic import BaseModel

from api.auth import CallerDep
from api.deps import PoolDep
from api.errors import error_responses
from api.text import ID_CHARS
from db import pii as token_map

router = APIRouter(prefix="/v1", tags=["users"])


class Erased(BaseModel):
    user_id: str
    personal_values: int
    """Values erased from the token map: the user's stored text keeps bare tokens."""


@router.delete("/users/{user_id}/memory", responses=error_responses(401, 503))
async def forget_user(
    user_id: Annotated[str, Path(max_length=128), ID_CHARS], pool: PoolDep, caller: CallerDep
) -> Erased:
    """Erase what the system remembers about a user of the caller's tenant: today the
    personal values behind their tokens. Idempotent: a second call erases nothing."""
    async with pool.connection() as conn:
        erased = await token_map.erase_owner(conn, caller.tenant_id, user_id)
    return Erased(user_id=user_id, personal_values=erased)
