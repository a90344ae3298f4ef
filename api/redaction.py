"""PII out, before anything is stored: the API's redaction step, and showing values back.

`redact` replaces personal data in a question or reply with tokens (`domain.checks.pii`) and
keeps the values in the token map (`db.pii`), before the turn is allocated or a
workflow starts, so PostgreSQL's turn and message tables, Temporal history, logs,
caches, the decision record and metrics only ever see tokens. It is fail-closed: if it
cannot run (the token map cannot be written, or anything else goes wrong) the request
is refused with 503 and nothing is stored.

`reveal` puts the owner's own values back into what the API answers them; it is
best-effort (a token it cannot resolve is shown as the token).
"""

import asyncio
import json
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import psycopg
from prometheus_client import Counter
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from pydantic import BaseModel

from api.auth import Caller
from api.errors import ApiError
from db import pii as token_map
from db import turns as turn_store
from domain.checks import pii
from settings import Settings

logger = logging.getLogger(__name__)

REDACTED = Counter(
    "turnstile_pii_redacted", "Personal values replaced by tokens at the API, by kind", ["kind"]
)
REDACTION_FAILED = Counter(
    "turnstile_pii_redaction_failures",
    "Requests refused with 503 because redaction could not run (fail-closed)",
)

M = TypeVar("M", bound=BaseModel)


async def _own_references(pool: AsyncConnectionPool, owners: list[str], model: M) -> M:
    """Hide a reused answer's source turn unless it is one of `owners`' own (a named user,
    never the shared anonymous owner): another user's turn id names their conversation.
    The stored result and the decision record keep it, for operators and reviewers."""
    source = getattr(model, "cache_turn_id", None)
    if not source:
        return model
    try:
        async with pool.connection() as conn:
            owner = await turn_store.turn_owner(conn, source)
    except (psycopg.Error, PoolTimeout):
        owner = None
    if owner is not None and owner[1] and owner[1] in owners:
        return model
    return model.model_copy(update={"cache_turn_id": None})


def owner_of(user_id: str | None) -> str:
    """Whose values these are: the user, or '' for the tenant's anonymous caller."""
    return user_id or ""


MAX_CHARS = 10_000
"""The longest text redaction reads: callers check their own, smaller limits first, so a
longer text is a bug, refused before a character of it is read."""
IN_LOOP_CHARS = 200
"""Texts up to this long are read on the event loop (well under a millisecond); longer
ones in a thread, so one long question never holds up another request."""
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="redaction")
"""One thread: the detector is pure Python and holds the GIL while it runs, so several
long texts read at once would each take a share of the event loop's time; in one
thread they queue, and the loop keeps about half."""


async def _find(text: str) -> list[pii.Match]:
    if len(text) <= IN_LOOP_CHARS:
        return pii.find(text)
    return await asyncio.get_running_loop().run_in_executor(_READER, pii.find, text)


async def redact(
    pool: AsyncConnectionPool, settings: Settings, tenant_id: str, owner: str, text: str
) -> str:
    """`text` with every personal value replaced by its token (stored first).

    The detector's time is linear in the text's length, which is bounded here.

    Raises:
        ApiError: 422 for a text over MAX_CHARS; 503 Unavailable when redaction cannot
            run. Nothing was stored either way.
    """
    if len(text) > MAX_CHARS:
        raise ApiError(422, "InvalidInput", f"the text is longer than {MAX_CHARS} characters")
    try:
        matches = await _find(text)
        if not matches:
            return text
        key = settings.pii_key.get_secret_value().encode()
        async with pool.connection() as conn, conn.transaction():
            tokens = await token_map.tokens_for(conn, key, tenant_id, owner, matches)
        redacted = pii.replace(text, matches, tokens)
        if await _find(redacted):  # a value the replacement exposed: never store it
            raise RuntimeError("redacted text still holds personal data")
    except Exception as exc:
        REDACTION_FAILED.inc()
        # The exception's class only: its message could carry the value.
        logger.error("PII redaction failed (%s); request refused", exc.__class__.__name__)
        raise ApiError(
            503,
            "Unavailable",
            "personal data in the request could not be protected, so it was not stored;"
            " retry shortly",
        ) from None
    for match in matches:
        REDACTED.labels(match.kind.value).inc()
    return redacted


async def reveal(pool: AsyncConnectionPool, caller: Caller, owners: list[str], model: M) -> M:
    """`model` with its owners' tokens replaced by their values (tokens left on failure;
    always for a reviewer, who reads across users and is shown no one's values).

    Only values of `owners` within the caller's tenant are looked up: a token copied into
    another user's text stays a token.
    """
    if caller.reviewer:
        owners = []
    tenant_id = caller.tenant_id
    model = await _own_references(pool, owners, model)
    text = model.model_dump_json()
    if not pii.TOKEN.search(text):
        return model
    try:
        async with pool.connection() as conn:
            values = await token_map.values_for(conn, tenant_id, owners, [text])
    except (psycopg.Error, PoolTimeout):
        return model
    if not values:
        return model

    def value_of(match: "re.Match[str]") -> str:
        value = values.get(match.group())
        # Inside JSON text: the value must be escaped as a JSON string's content.
        return json.dumps(value)[1:-1] if value is not None else match.group()

    return type(model).model_validate_json(pii.TOKEN.sub(value_of, text))
