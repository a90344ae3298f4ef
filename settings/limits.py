"""Settings that bound each wait, the size of a request, a turn's budget, and how much one
user or one conversation may ask."""

from typing import Annotated

from pydantic import Field

from domain.budget import TURN_BUDGET_SECONDS
from settings.base import MAX_SECONDS, Seconds, Section


class LimitSettings(Section):
    """Bounded waits, body sizes, a turn's budget and rate limits."""

    request_timeout_seconds: Seconds = 20.0
    """How long a request that waits for a turn's outcome waits; past it the answer is 202
    with the turn's id to poll."""
    database_pool_timeout_seconds: Seconds = 2.5
    """How long a request waits for a PostgreSQL connection: an outage answers 503 within
    about this long instead of hanging requests."""
    database_connect_timeout_seconds: Annotated[int, Field(ge=1, le=MAX_SECONDS)] = 3
    """PostgreSQL's connect timeout, in whole seconds (libpq waits forever on 0 or less)."""
    database_query_timeout_seconds: Seconds = 2.0
    """How long one of the API's statements may take, waited for by the client as well as
    the server: a PostgreSQL that is stalled (stopped, not gone) never answers, so only
    the client's own bound ends the wait. The API's statements are all small."""
    worker_database_query_timeout_seconds: Seconds = 30.0
    """The same bound for the worker's statements (retention purges, ingestion)."""
    temporal_rpc_timeout_seconds: Seconds = 2.0
    """Every call the API makes to Temporal gives up after this long (a stalled server
    never answers), and a server that refuses connections is retried for no longer."""
    search_timeout_seconds: Seconds = 10.0
    """How long the API waits for a search (and a cited source's text); past it, 503,
    never a hang."""
    ingest_timeout_seconds: Seconds = 600.0
    """How long an ingestion may take: the API answers 503 past it, and `turnstile up`'s
    ingestion of the sample corpus ends there."""
    max_body_bytes: Annotated[int, Field(ge=1024)] = 64 * 1024
    """The largest request body the API reads (413 beyond it)."""
    codec_max_body_bytes: Annotated[int, Field(ge=1024)] = 8 * 1024 * 1024
    """The largest body the codec endpoint reads: the Temporal UI sends it whole workflow
    payloads."""

    turn_budget_seconds: Seconds = TURN_BUDGET_SECONDS
    """How long a turn's answering work may take (clarification waits not counted); past
    it the turn settles saying the model provider did not answer in time."""
    clarification_timeout_seconds: Seconds = 24 * 3600.0
    """How long a turn waits for the reply to a clarifying question; past it the turn
    settles as `expired`."""
    max_clarifications_per_conversation: int = Field(default=4, ge=0)
    """Clarifying questions a conversation may ask in all (each turn asks at most two):
    once they are spent, a turn that cannot tell what is asked settles at once with a
    fixed text asking for the company and year, instead of asking again. 0: no cap."""
    rate_limit_per_minute: Annotated[float, Field(gt=0, le=1_000_000)] = 60.0
    """Turns and clarification replies one user may send per minute, sustained."""
    rate_limit_burst: Annotated[int, Field(ge=1, le=1_000_000)] = 20
    """How many of them may come at once (the bucket's size)."""
