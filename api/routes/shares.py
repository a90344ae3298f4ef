"""Share links: POST /v1/turns/{turn_id}/share makes a read-only link to one settled turn;
GET /v1/shares/{share_id} reads it with no API key (the id, an unguessable random token,
is the only key); DELETE /v1/shares/{share_id} revokes it (the tenant that made it), after
which it reads as 404, like an id never made.

A shared turn shows what was answered and its evidence, not the workings: no decision
record, no model trace, no chunk ids. Personal values in it stay as their tokens (whoever
holds the link is not the person they belong to), and it is never revealed."""

from typing import Annotated

from fastapi import APIRouter, Path, Response
from pydantic import BaseModel, Field

from api.auth import CallerDep, limit
from api.deps import PoolDep, SettingsDep, TurnIdPath
from api.errors import ApiError, error_responses
from api.text import ID_CHARS
from api.turn_service import no_turn, owned_turn
from db import shares, turns
from domain.models import Derived, NotFound, Relevance, UnsupportedClaim
from domain.turns import OPEN

router = APIRouter(prefix="/v1", tags=["turns"])
ShareIdPath = Annotated[str, Path(max_length=64), ID_CHARS]


class ShareOut(BaseModel):
    share_id: str = Field(
        description="The share's id: an unguessable random token; whoever holds it can read"
        " the turn, so pass it on as you would the answer itself.",
        examples=["q0V6hNQ3b8yO1m5mX2d7kQfC9kR4sPzT"],
    )
    turn_id: str = Field(examples=["turn-c35c244d68fec4309-1"])
    path: str = Field(
        description="The read-only page showing the turn.",
        examples=["/?share=q0V6hNQ3b8yO1m5mX2d7kQfC9kR4sPzT"],
    )


class SharedCitation(BaseModel):
    """A cited source as a share shows it: where it is and the start of its passage."""

    n: int = Field(description="The citation's marker: `[1]` in the answer is `n` 1.")
    company: str = Field(examples=["BHP"])
    fiscal_year: int = Field(examples=[2024])
    page: int = Field(examples=[4])
    document: str = Field(examples=["BHP Annual Report 2024"])
    preview: str = Field(description="The start of the passage.")


class SharedTurn(BaseModel):
    """A shared turn as its link shows it: the question, the answer and its evidence."""

    share_id: str
    question: str
    status: str = Field(description="As in a TurnResult.", examples=["answered"])
    status_text: str = Field(examples=["Answered"])
    answer: str | None = None
    citations: list[SharedCitation] = Field(default_factory=list)
    derived: list[Derived] = Field(default_factory=list)
    not_found: list[NotFound] = Field(default_factory=list)
    unsupported_claims: list[UnsupportedClaim] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    confidence: str | None = Field(default=None, examples=["high"])
    confidence_reason: str | None = None
    relevance: Relevance | None = None
    refusal_reason: str | None = None
    fallback_reason: str | None = None


@router.post(
    "/turns/{turn_id}/share", status_code=201, responses=error_responses(401, 404, 409, 429, 503)
)
async def share_turn(
    turn_id: TurnIdPath, pool: PoolDep, settings: SettingsDep, caller: CallerDep
) -> ShareOut:
    """A new read-only link to one of the caller tenant's settled turns (another tenant's
    turn is 404; one running or waiting for a reply, 409). Each call makes a new link."""
    user_id = await owned_turn(pool, turn_id, caller)
    await limit(caller, user_id, pool, settings)
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id, caller.tenant_id)
        if stored is None:
            raise no_turn(turn_id)
        if stored.status in OPEN:
            raise ApiError(
                409, "Conflict", f"turn {turn_id} has not settled: share it once it has", turn_id
            )
        share_id = await shares.create(conn, turn_id, caller.tenant_id)
    return ShareOut(share_id=share_id, turn_id=turn_id, path=f"/?share={share_id}")


@router.get("/shares/{share_id}", responses=error_responses(404, 503))
async def read_share(share_id: ShareIdPath, pool: PoolDep) -> SharedTurn:
    """The shared turn, read-only and with no API key; 404 once revoked (or never made)."""
    async with pool.connection() as conn:
        found = await shares.shared(conn, share_id)
        stored = None if found is None else await turns.get_turn(conn, found[0], found[1])
    if stored is None:
        raise ApiError(404, "NotFound", "no such share link (it may have been revoked)")
    shown = stored.model_dump(
        include=set(SharedTurn.model_fields) - {"share_id"},
        exclude={"citations": {"__all__": {"chunk_id"}}},
    )
    return SharedTurn(share_id=share_id, **shown)


@router.delete("/shares/{share_id}", status_code=204, responses=error_responses(401, 404, 503))
async def revoke_share(share_id: ShareIdPath, pool: PoolDep, caller: CallerDep) -> Response:
    """Revoke a share link the caller's tenant made: it reads as 404 from now on. Another
    tenant's, an unknown or an already revoked link is 404."""
    async with pool.connection() as conn:
        revoked = await shares.revoke(conn, share_id, caller.tenant_id)
    if not revoked:
        raise ApiError(404, "NotFound", "no such share link")
    return Response(status_code=204)
