"""Who is calling: the API key names the tenant; each user has a rate limit.

Keys come from `TURNSTILE_API_KEYS` (key → tenant), sent as `Authorization: Bearer KEY`
or `X-API-Key: KEY`. A missing or unknown key is 401 with the error shape. With no keys
configured the API runs in development mode: the key `turnstile-dev` is the only one, and
a request without a key is taken as it (tenant `default`); start-up and /healthz say so.

Every read is filtered by the caller's tenant, and another tenant's turn, conversation
or decision record answers 404 exactly like one that does not exist: a 403 would
confirm that it exists.
"""

import hashlib
import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from prometheus_client import Counter
from pydantic import BaseModel, ConfigDict

from api.deps import PoolDep, SettingsDep
from api.errors import ApiError
from db import ratelimit
from settings import DEV_API_KEY

AUTH_FAILURES = Counter(
    "turnstile_auth_failures", "Requests refused for a missing or unknown API key"
)
RATE_LIMITED = Counter(
    "turnstile_rate_limited", "Requests refused by the per-user rate limit, by tenant", ["tenant"]
)

_bearer = HTTPBearer(auto_error=False, description="An API key: `Authorization: Bearer KEY`.")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="An API key.")


class Caller(BaseModel):
    """The authenticated caller: its tenant, and a fingerprint of its key (never the key)."""

    model_config = ConfigDict(frozen=True)
    tenant_id: str
    key_fingerprint: str
    reviewer: bool = False
    """A reviewer's key (TURNSTILE_REVIEWER_KEYS): it reads, never writes, and sees
    personal values as tokens."""

    def bucket(self, user_id: str | None) -> str:
        """The rate-limit bucket: the user within the tenant, else the key's anonymous user."""
        if user_id:
            return f"{self.tenant_id}:user:{user_id}"
        return f"{self.tenant_id}:key:{self.key_fingerprint}"


def _unauthorized(detail: str) -> ApiError:
    AUTH_FAILURES.inc()
    return ApiError(401, "Unauthorized", detail, headers={"WWW-Authenticate": "Bearer"})


READS = frozenset({"GET", "HEAD", "OPTIONS"})
"""The methods a reviewer's key may use: every route that writes is a POST or DELETE."""
REVIEWER_FORBIDDEN = Counter(
    "turnstile_reviewer_writes_refused", "Requests that would write, refused for a reviewer's key"
)


def authenticate(
    request: Request,
    settings: SettingsDep,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header)],
) -> Caller:
    """The caller of a request; a reviewer's key on a request that would write is 403."""
    key = bearer.credentials if bearer is not None else header
    if key is None:
        if not settings.dev_auth:
            raise _unauthorized("an API key is required: send Authorization: Bearer KEY")
        key = DEV_API_KEY
    tenant = _tenant_of(key, settings.tenant_by_key)
    reviewer = _tenant_of(key, settings.reviewer_tenant_by_key)
    if tenant is None and reviewer is None:
        raise _unauthorized("the API key is not valid")
    fingerprint = hashlib.sha256(key.encode()).hexdigest()[:16]
    if reviewer is not None and request.method not in READS:
        REVIEWER_FORBIDDEN.inc()
        raise ApiError(
            403, "Forbidden", "a reviewer's key reads turns and decision records; it cannot write"
        )
    return Caller(
        tenant_id=tenant or reviewer or "",
        key_fingerprint=fingerprint,
        reviewer=reviewer is not None,
    )


def _tenant_of(key: str, tenants: dict[str, str]) -> str | None:
    """The tenant of `key` among `tenants`, compared with every key in constant time, so
    timing says nothing about a prefix."""
    tenant = None
    for known, name in tenants.items():
        if hmac.compare_digest(known.encode(), key.encode()):
            tenant = name
    return tenant


CallerDep = Annotated[Caller, Depends(authenticate)]


def require_operator(caller: CallerDep, settings: SettingsDep) -> Caller:
    """403 unless the key's tenant is an operator (`TURNSTILE_OPERATOR_TENANTS`): for what
    spans every tenant (the shared corpus, the whole decision chain)."""
    if caller.tenant_id not in settings.operator_tenants:
        raise ApiError(403, "Forbidden", "this needs an operator's API key")
    return caller


def operator_when_keyed(
    request: Request,
    settings: SettingsDep,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header)],
) -> None:
    """An operator's key when API keys are configured (401/403 otherwise); nothing in
    development mode. For what every tenant's traffic shows (the API's metrics)."""
    if settings.dev_auth:
        return
    require_operator(authenticate(request, settings, bearer, header), settings)


KEY_FACTOR = 10
"""A key's whole traffic may be this many users' worth: user ids are the caller's to
choose, so without a bucket per key a new user id would be a new allowance."""


async def limit(caller: Caller, user_id: str | None, pool: PoolDep, settings: SettingsDep) -> None:
    """Take one token from the user's bucket and one from the key's, or answer 429 with
    Retry-After."""
    rate, burst = settings.rate_limit_per_minute / 60.0, settings.rate_limit_burst
    async with pool.connection() as conn:
        wait = await ratelimit.take(conn, caller.bucket(user_id), rate, burst)
        if wait == 0:
            wait = await ratelimit.take(
                conn,
                f"{caller.tenant_id}:all:{caller.key_fingerprint}",
                rate * KEY_FACTOR,
                burst * KEY_FACTOR,
            )
    if wait > 0:
        RATE_LIMITED.labels(caller.tenant_id).inc()
        retry_after = ratelimit.retry_after_header(wait)
        raise ApiError(
            429,
            "RateLimited",
            f"too many requests for this user; retry in {retry_after} s",
            headers={"Retry-After": retry_after},
        )
