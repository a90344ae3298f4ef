"""Turns: start one, answer or cancel its clarifying question, read it; read a conversation.

The API validates, allocates the turn's seq atomically in PostgreSQL, then starts the
ChatTurn workflow and waits for its first outcome in one request to Temporal
(update-with-start: the start and the `wait_for_outcome` update together). It decides 404/409
from the `turns` table, so replies and reads work while no worker runs. A reply (or a
cancel) first claims the waiting turn in the table, so exactly one of two concurrent
replies wins, then goes to the workflow as a Temporal signal, which the server records
even with no worker running. Before answering 409 for a turn that blocks its
conversation, the API asks Temporal whether that turn's workflow is still open and
records the terminal status of one that closed (the reconciler).
"""

import asyncio
import contextlib
import hashlib
import json
import re
import time
from datetime import timedelta
from typing import Annotated, Any, NoReturn

import psycopg
from fastapi import APIRouter, Header, Path, Query, Response
from opentelemetry import trace
from psycopg_pool import PoolTimeout
from pydantic import BaseModel, ConfigDict, Field, RootModel, field_validator
from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowHandle,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
    WorkflowUpdateStage,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from api import redaction
from api.auth import Caller, CallerDep, limit
from api.deps import PoolDep, SettingsDep, TemporalDep, TurnIdPath
from api.errors import ApiError, error_responses
from api.metrics import TURNS_STARTED
from api.text import ID_CHARS, STORABLE, check_opaque, check_user_id
from db import reconcile, turns
from domain.models import CITATION_EXAMPLE
from settings import EngineName, Settings
from workflows import attributes
from workflows.chat_turn import TASK_TIMEOUT, ChatTurn, execution_timeout
from workflows.contracts import (
    OPEN,
    SETTLED,
    WAITING,
    CancelRequest,
    ClarificationReply,
    TurnInput,
    TurnResult,
)

router = APIRouter(prefix="/v1", tags=["turns"])

CONVERSATION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_QUESTION_CHARS = 4000
MAX_RAW_CHARS = 8000
"""The longest question or reply accepted as sent, surrounding white space included; it
must be at most MAX_QUESTION_CHARS once trimmed. Both are checked while the body is
parsed, before redaction reads a character of it."""


def _text(value: str, what: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError(f"{what} must not be empty")
    if len(value) > MAX_QUESTION_CHARS:
        raise ValueError(f"{what} is longer than {MAX_QUESTION_CHARS} characters")
    return value


class TurnRequest(BaseModel):
    """A question that starts a turn: in a new conversation, or continuing a named one."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"question": "What was BHP's revenue in FY2024?"},
                {
                    "question": "And its net debt?",
                    "conversation_id": "c35c244d68fec4309",
                    "user_id": "analyst-7",
                },
            ]
        },
    )

    question: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_RAW_CHARS,
            description="The question, in plain English (at most 4000 characters once"
            " trimmed). Personal data in it (email, phone, card, bank account, tax file"
            " number) is replaced by tokens before anything is stored.",
            examples=["What was BHP's revenue in FY2024?"],
        ),
        STORABLE,
    ]
    conversation_id: str | None = Field(
        default=None,
        description="The conversation to continue (a follow-up such as `And its net"
        " debt?` carries the company and year from it), or a new id of your choosing."
        " Omitted, the turn starts a new conversation and the result names its id.",
        examples=["c35c244d68fec4309"],
        json_schema_extra={"pattern": CONVERSATION_ID.pattern},
    )
    user_id: Annotated[str, Field(min_length=1, max_length=128), ID_CHARS] | None = Field(
        default=None,
        description="An opaque id for the person asking, never an email address or other"
        " personal data. It scopes the rate limit, remembered preferences, and an"
        " Idempotency-Key sent without a conversation.",
        examples=["analyst-7"],
    )

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        return _text(value, "question")

    @field_validator("conversation_id")
    @classmethod
    def _conversation(cls, value: str | None) -> str | None:
        if value is not None and not CONVERSATION_ID.fullmatch(value):
            raise ValueError("conversation_id must be 1-64 characters of A-Z a-z 0-9 _ -")
        return None if value is None else check_opaque(value)

    @field_validator("user_id")
    @classmethod
    def _user(cls, value: str | None) -> str | None:
        return None if value is None else check_user_id(value)


class ClarificationRequest(BaseModel):
    """The answer to a turn's clarifying question (exactly one reply per question)."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"reply": "Fortescue, FY2024"}]}
    )

    reply: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_RAW_CHARS,
            description="The reply, merged into the turn's question (at most 4000"
            " characters once trimmed; personal data is tokenised as in a question).",
            examples=["Fortescue, FY2024", "BHP"],
        ),
        STORABLE,
    ]

    @field_validator("reply")
    @classmethod
    def _reply(cls, value: str) -> str:
        return _text(value, "reply")


class MessageOut(BaseModel):
    """One message of a conversation: a user's question or the assistant's answer."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "turn_id": "turn-c35c244d68fec4309-1",
                    "role": "user",
                    "content": "What was BHP's revenue in FY2024?",
                    "status": "answered",
                    "citations": [],
                    "summarised": False,
                },
                {
                    "turn_id": "turn-c35c244d68fec4309-1",
                    "role": "assistant",
                    "content": "BHP Group's revenue for FY2024 (year ended 30 June 2024) was"
                    " US$55,658 million [1].",
                    "status": "answered",
                    "citations": [CITATION_EXAMPLE],
                    "summarised": False,
                },
            ]
        }
    )

    turn_id: str = Field(
        description="The turn the message belongs to: each turn has one user and one"
        " assistant message.",
        examples=["turn-c35c244d68fec4309-1"],
    )
    role: str = Field(
        description="`user` (the question, as stored) or `assistant` (the answer).",
        examples=["assistant"],
    )
    content: str = Field(
        description="The message text; an answer's `[n]` markers refer to its citations.",
        examples=[
            "BHP Group's revenue for FY2024 (year ended 30 June 2024) was US$55,658 million [1]."
        ],
    )
    status: str = Field(
        description="The turn's status (a TurnResult status: `answered`, `refused`, ...).",
        examples=["answered"],
    )
    citations: list[dict[str, object]] = Field(
        description="The answer's cited sources, shaped as TurnResult's `citations`"
        " (empty for a user message).",
    )
    summarised: bool = Field(
        default=False,
        description="Covered by the conversation's summary (kept in full all the same).",
        examples=[False],
    )


_STILL_RUNNING: dict[int | str, dict[str, object]] = {
    202: {
        "model": TurnResult,
        "description": "Accepted and still running (asked with `Prefer: respond-async` or"
        " `wait=false`, or it took longer than the request timeout): poll Location, or"
        " follow the turn's event stream (`Link`).",
        "headers": {
            "Location": {"description": "the turn's URL", "schema": {"type": "string"}},
            "Link": {
                "description": 'the turn\'s event stream, `rel="events"`',
                "schema": {"type": "string"},
            },
            "Preference-Applied": {
                "description": "`respond-async` when a `Prefer` header asked for it",
                "schema": {"type": "string"},
            },
        },
    }
}

PreferHeader = Annotated[
    str | None,
    Header(
        max_length=200,
        description="`respond-async`: answer 202 at once with the turn's id and Location"
        " instead of waiting for the outcome (RFC 7240)",
    ),
]
WaitQuery = Annotated[
    bool,
    Query(description="`false` does what `Prefer: respond-async` does: 202 at once"),
]


def _prefers_async(prefer: str | None) -> bool:
    """Whether a Prefer header asks for `respond-async` (RFC 7240: a comma-separated
    list of preferences, each a name with an optional value and parameters)."""
    names = {p.split(";")[0].split("=")[0].strip().lower() for p in (prefer or "").split(",")}
    return "respond-async" in names


def _accepted(response: Response, turn_id: str, prefer: str | None) -> None:
    """Mark the response 202: the turn runs on; where to read it and follow it."""
    response.status_code = 202
    response.headers["Location"] = f"/v1/turns/{turn_id}"
    response.headers["Link"] = f'</v1/turns/{turn_id}/events>; rel="events"'
    if _prefers_async(prefer):
        response.headers["Preference-Applied"] = "respond-async"


async def _wait(
    handle: WorkflowHandle[ChatTurn, TurnResult],
    after_round: int,
    deadline: float,
    pool: PoolDep,
    client: Client,
    response: Response,
    pending: TurnResult,
) -> TurnResult:
    """Wait for the next outcome after `after_round` until `deadline` (monotonic); 202 +
    Location when it takes longer.

    The turn exists by now, so no failure here is an error for the caller: if neither
    the workflow nor the table can say more (no worker, PostgreSQL or Temporal down),
    the answer is 202 with the turn's id (`pending`) to poll.
    """
    while True:
        try:
            result: TurnResult = await handle.execute_update(
                "wait_for_outcome",
                after_round,
                result_type=TurnResult,
                rpc_timeout=timedelta(seconds=max(0.1, deadline - time.monotonic())),
            )
            return result
        except RPCError as exc:
            # NOT_FOUND before the workflow exists: a replayed Idempotency-Key can get
            # here while the first request is still starting it. Ask again shortly,
            # unless the table already has what the caller waits for.
            if exc.status != RPCStatusCode.NOT_FOUND or time.monotonic() > deadline:
                break
        except (WorkflowUpdateRPCTimeoutOrCancelledError, WorkflowUpdateFailedError):
            break  # no worker answered in time, or the workflow closed: the table knows
        # Closed (terminated, timed out) or not started yet: the reconciler tells which.
        stored = await _stored_outcome(handle.id, after_round, pool, client, reconciling=True)
        if stored is not None:
            return stored
        await asyncio.sleep(0.1)
    stored = await _stored_outcome(handle.id, after_round, pool, client, reconciling=True)
    if stored is not None:
        return stored
    response.status_code = 202
    response.headers["Location"] = f"/v1/turns/{handle.id}"
    response.headers["Link"] = f'</v1/turns/{handle.id}/events>; rel="events"'
    return pending


async def _stored_outcome(
    turn_id: str, after_round: int, pool: PoolDep, client: Client, *, reconciling: bool
) -> TurnResult | None:
    """The stored turn if it has settled or asks a question after `after_round`, else None.

    With `reconciling`, an open turn whose workflow has closed is settled first. Never
    raises: the turn was started, so an outage here means "poll", not an error.
    """
    try:
        async with pool.connection() as conn:
            stored = await turns.get_turn(conn, turn_id)
            if reconciling and stored is not None and stored.status in OPEN:
                stored = await reconcile.reconcile_turn(client, conn, turn_id) or stored
    except (psycopg.Error, PoolTimeout, RPCError):
        return None
    if stored is not None and (stored.status in SETTLED or (
        stored.status == WAITING and stored.clarification_round > after_round
    )):  # fmt: skip
        return stored
    return None


def _request_hash(body: TurnRequest) -> str:
    canonical = json.dumps(body.model_dump(), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


async def _allocate(
    body: TurnRequest,
    idem: tuple[str, str] | None,
    client: Client,
    pool: PoolDep,
    tenant_id: str,
) -> turns.Allocation:
    """Allocate the turn; a blocking turn whose workflow has closed is settled first."""
    for attempt in (1, 2):
        async with pool.connection() as conn:
            try:
                return await turns.allocate_turn(
                    conn, body.conversation_id, body.user_id, body.question, idem,
                    tenant_id=tenant_id,
                )  # fmt: skip
            except turns.ConversationNotFound as exc:
                raise ApiError(404, "NotFound", f"no conversation {body.conversation_id}") from exc
            except turns.TurnInProgress as exc:
                blocking = exc.turn_id
                settled = None
                if attempt == 1:
                    try:
                        settled = await reconcile.reconcile_turn(client, conn, blocking)
                    except RPCError:
                        settled = None  # cannot tell: it may well be running
                if settled is None or settled.status not in SETTLED:
                    raise ApiError(
                        409, "TurnInProgress",
                        f"turn {blocking} is still running or waiting for a reply in this"
                        f" conversation; answer it, or cancel it (POST /v1/turns/{blocking}"
                        "/cancel) if it waits for a clarification",
                        blocking,
                    ) from exc  # fmt: skip
            except turns.IdempotencyMismatch as exc:
                raise ApiError(
                    422, "InvalidInput", "Idempotency-Key was already used with a different request"
                ) from exc
    raise RuntimeError("unreachable: the second attempt returns or raises")


@router.post("/turns", responses={**_STILL_RUNNING, **error_responses(401, 404, 409, 429, 503)})
async def start_turn(
    body: TurnRequest,
    response: Response,
    client: TemporalDep,
    pool: PoolDep,
    settings: SettingsDep,
    caller: CallerDep,
    idempotency_key: Annotated[str | None, Header(max_length=200), ID_CHARS] = None,
    cache_control: Annotated[
        str | None,
        Header(
            max_length=200,
            description="`no-cache` or `no-store`: this turn neither reads nor writes the "
            "answer cache (a fresh answer, as when the cache is off)",
        ),
    ] = None,
    prefer: PreferHeader = None,
    wait: WaitQuery = True,
) -> TurnResult:
    """Start a turn and return its outcome: answered, refused, fallback, or a question.

    With an `Idempotency-Key`, a retried request (same body) returns the first request's
    turn instead of starting another; the key is scoped to the conversation, or to the
    user when the request names no conversation. Personal data in the question (email,
    phone, card, bank account, tax file number) is replaced by tokens before anything is
    stored; the answer shows it back. Another tenant's conversation id is 404.

    With `Prefer: respond-async` (or `wait=false`) the answer is 202 at once, with the
    turn's id, `Location` and a `Link` to its event stream.
    """
    if idempotency_key is not None:
        try:
            check_opaque(idempotency_key)
        except ValueError as exc:
            raise ApiError(422, "InvalidInput", f"Idempotency-Key {exc}") from None
    await limit(caller, body.user_id, pool, settings)
    owner = redaction.owner_of(body.user_id)
    question = await redaction.redact(pool, settings, caller.tenant_id, owner, body.question)
    body = body.model_copy(update={"question": question})
    idem = (idempotency_key, _request_hash(body)) if idempotency_key else None
    alloc = await _allocate(body, idem, client, pool, caller.tenant_id)
    handle: WorkflowHandle[ChatTurn, TurnResult] = client.get_workflow_handle_for(
        ChatTurn.run, alloc.turn_id
    )
    # The request's span: the workflow's and every step's spans are its children.
    span_ids = {
        "turnstile.turn_id": alloc.turn_id,
        "turnstile.conversation_id": alloc.conversation_id,
        "turnstile.tenant_id": caller.tenant_id,
    }
    with trace.get_tracer(__name__).start_as_current_span("turn request", attributes=span_ids):
        directives = {d.strip() for d in (cache_control or "").lower().split(",")}
        fresh = bool({"no-cache", "no-store"} & directives)
        stored = None
        start = not alloc.replayed
        if alloc.replayed:  # a retried request: the first request's turn, if it has an outcome
            stored = await _stored_outcome(alloc.turn_id, -1, pool, client, reconciling=False)
            started = True if stored is not None else await _started(client, alloc.turn_id)
            if started is None:  # Temporal still does not answer: retry again
                raise ApiError(
                    503, "Unavailable",
                    "Temporal is not answering, so this turn may not have started yet;"
                    " retry with the same Idempotency-Key",
                    alloc.turn_id,
                )  # fmt: skip
            # The first request's start went unanswered (Temporal down or stalled) and
            # its caller was told to retry with this key: start it now.
            start = not started
            if started and (stored is None or stored.status in OPEN):
                # Reconciled: a turn whose workflow was closed from outside is settled.
                stored = await _stored_outcome(alloc.turn_id, -1, pool, client, reconciling=True)
        pending = TurnResult(
            turn_id=alloc.turn_id,
            conversation_id=alloc.conversation_id,
            status="running",
            question=body.question,
        )
        waits = wait and not _prefers_async(prefer)
        turn = _turn_input(settings, caller, alloc, body, fresh)
        if stored is not None:
            result = stored
        elif start and waits:
            result = await _start_and_wait(client, pool, settings, alloc, turn, response, pending)
        else:
            if start:
                handle = await _start(client, pool, settings, alloc, turn)
            if waits:
                deadline = _deadline(settings)
                result = await _wait(handle, 0, deadline, pool, client, response, pending)
            else:
                _accepted(response, alloc.turn_id, prefer)
                result = pending
    return await redaction.reveal(pool, caller.tenant_id, [owner], result)


def _deadline(settings: Settings) -> float:
    """When a request that waits for an outcome stops waiting (monotonic seconds)."""
    return time.monotonic() + settings.request_timeout_seconds


def _turn_input(
    settings: Settings, caller: Caller, alloc: turns.Allocation, body: TurnRequest, fresh: bool
) -> TurnInput:
    """The allocated turn's workflow input (the question already redacted)."""
    return TurnInput(
        turn_id=alloc.turn_id,
        conversation_id=alloc.conversation_id,
        seq=alloc.seq,
        question=body.question,
        user_id=body.user_id,
        clarification_timeout_seconds=settings.clarification_timeout_seconds,
        engine_in_process=settings.engine == EngineName.OFFLINE,
        answer_cache=settings.answer_cache and not fresh,
        tenant_id=caller.tenant_id,
        turn_budget_seconds=settings.turn_budget_seconds,
        # Several workers: turns on theirs, index steps on the index holder's.
        index_task_queue=settings.task_queue if settings.workers > 1 else None,
    )


def _start_options(settings: Settings, turn: TurnInput) -> dict[str, Any]:
    """ChatTurn's start options: one id per turn, never reused, bounded, named in the UI."""
    return {
        "id": turn.turn_id,
        "task_queue": settings.turn_task_queue if settings.workers > 1 else settings.task_queue,
        "id_reuse_policy": WorkflowIDReusePolicy.REJECT_DUPLICATE,
        "execution_timeout": execution_timeout(settings.clarification_timeout_seconds),
        "task_timeout": TASK_TIMEOUT,
        # The question is already redacted: tokens only, never personal data.
        "static_summary": _summary(turn.question),
        "static_details": (
            f"turn {turn.seq} of conversation {turn.conversation_id}, tenant {turn.tenant_id}"
        ),
        "memo": {"question": turn.question, "tenant": turn.tenant_id},
        "search_attributes": attributes.at_start(turn.conversation_id, turn.tenant_id),
    }


async def _start(
    client: Client,
    pool: PoolDep,
    settings: Settings,
    alloc: turns.Allocation,
    turn: TurnInput,
) -> WorkflowHandle[ChatTurn, TurnResult]:
    """Start the allocated turn's workflow (not waiting for it); 503 if Temporal cannot be
    reached.

    An id that already exists (a replayed request racing the first) is not an error. A
    start Temporal refused (the server down) is asked after: if no such workflow exists,
    the allocation is undone (nothing half-written). A start that went unanswered (a
    stalled server may still act on a request it holds) keeps the allocation, and the
    503 names the turn: a retry with the same Idempotency-Key starts it, and the
    reconciler settles a turn that never started (`db.reconcile`).
    """
    try:
        await client.start_workflow(ChatTurn.run, turn, **_start_options(settings, turn))
    except WorkflowAlreadyStartedError:
        pass
    except RPCError as exc:
        if exc.status != RPCStatusCode.ALREADY_EXISTS:
            await _start_failed(client, pool, alloc.turn_id, exc)
    TURNS_STARTED.inc()
    return client.get_workflow_handle_for(ChatTurn.run, alloc.turn_id)


async def _start_failed(client: Client, pool: PoolDep, turn_id: str, exc: RPCError) -> NoReturn:
    """The 503 for a start that failed: refused (undone) or unanswered (kept, named)."""
    if exc.status == RPCStatusCode.UNAVAILABLE and (await _started(client, turn_id)) is False:
        # Refused (the server down): it never started, so nothing is left behind.
        async with pool.connection() as conn:
            await turns.forget_turn(conn, turn_id)
        raise ApiError(503, "Unavailable", "Temporal is not reachable") from exc
    raise _unanswered(turn_id) from exc


def _unanswered(turn_id: str) -> ApiError:
    return ApiError(
        503, "Unavailable",
        "Temporal did not answer in time, so this turn may or may not have started; retry"
        " with the same Idempotency-Key, or read the turn",
        turn_id,
    )  # fmt: skip


async def _start_and_wait(
    client: Client,
    pool: PoolDep,
    settings: Settings,
    alloc: turns.Allocation,
    turn: TurnInput,
    response: Response,
    pending: TurnResult,
) -> TurnResult:
    """Start the turn and wait for its first outcome in one round trip (update-with-start).

    One request carries the start and the `wait_for_outcome` update, so a quick turn's
    outcome comes back in the start's own response. That request is a long poll, which a
    stalled server would hold for the whole wait: so when it has had no answer within
    the API's bound for a short call, Temporal's health is asked (bounded too), and a
    server that answers neither is a 503 naming the turn, as for an unanswered start.
    A refused start is undone (`_start_failed`); an outcome not reached in time, or a
    turn of this id that already closed, is read as `_wait` reads it.
    """
    deadline = _deadline(settings)
    operation = WithStartWorkflowOperation(
        ChatTurn.run,
        turn,
        # A replayed request racing the first joins the turn that one started.
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        **_start_options(settings, turn),
    )
    call = asyncio.ensure_future(_outcome_of_start(client, operation, deadline))
    bound = settings.temporal_rpc_timeout_seconds
    result: TurnResult | None = None
    try:
        done, _ = await asyncio.wait({call}, timeout=bound)
        if not done and await _stalled(client, bound):
            raise _unanswered(alloc.turn_id)
        result = await call
    except WorkflowAlreadyStartedError:
        pass  # this id's workflow closed already: the table (reconciled) says how
    except (WorkflowUpdateRPCTimeoutOrCancelledError, WorkflowUpdateFailedError, TimeoutError):
        pass  # started, no outcome in time (no worker?) or closed since: as `_wait` reads it
    except RPCError as exc:
        if exc.status != RPCStatusCode.ALREADY_EXISTS:
            await _start_failed(client, pool, alloc.turn_id, exc)
    finally:
        call.cancel()
    TURNS_STARTED.inc()
    if result is not None:
        return result
    handle = client.get_workflow_handle_for(ChatTurn.run, alloc.turn_id)
    return await _wait(handle, 0, deadline, pool, client, response, pending)


async def _outcome_of_start(
    client: Client, operation: WithStartWorkflowOperation[ChatTurn, TurnResult], deadline: float
) -> TurnResult:
    """Send the update-with-start and read its outcome, all before `deadline`.

    The SDK's call polls for the outcome after the update is accepted with no bound of its
    own, hence the `wait_for` around it (a timeout is `TimeoutError`)."""

    async def outcome() -> TurnResult:
        update = await client.start_update_with_start_workflow(
            "wait_for_outcome",
            0,
            start_workflow_operation=operation,
            result_type=TurnResult,
            wait_for_stage=WorkflowUpdateStage.COMPLETED,
            rpc_timeout=timedelta(seconds=max(0.1, deadline - time.monotonic())),
        )
        result: TurnResult = await update.result()
        return result

    return await asyncio.wait_for(outcome(), timeout=max(0.1, deadline - time.monotonic()))


async def _stalled(client: Client, bound: float) -> bool:
    """Whether Temporal neither answers nor refuses a health check within `bound` seconds
    (a stopped server holding its connections), as opposed to up, or down and refusing
    (then the call in flight fails on its own, within the client's retry bound)."""
    try:
        await asyncio.wait_for(
            client.service_client.check_health(timeout=timedelta(seconds=bound)),
            timeout=bound + 0.5,
        )
    except RPCError as exc:
        return exc.status in (RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.CANCELLED)
    except TimeoutError:
        return True
    return False


async def _started(client: Client, turn_id: str) -> bool | None:
    """Whether Temporal has a workflow of this id; None when it cannot say."""
    try:
        await client.get_workflow_handle(turn_id).describe()
    except RPCError as exc:
        return False if exc.status == RPCStatusCode.NOT_FOUND else None
    return True


def _summary(question: str, limit: int = 120) -> str:
    """The Temporal UI's one-line summary of a turn: its (redacted) question."""
    line = " ".join(question.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


async def _owned(pool: PoolDep, turn_id: str, caller: Caller) -> str | None:
    """The turn's user (its PII owner), or 404 when it is not the caller tenant's."""
    async with pool.connection() as conn:
        owner = await turns.turn_owner(conn, turn_id)
    if owner is None or owner[0] != caller.tenant_id:
        raise ApiError(404, "NotFound", f"no turn {turn_id}", turn_id)
    return owner[1]


async def _claim(
    turn_id: str, client: Client, pool: PoolDep, action: str, caller: Caller
) -> tuple[TurnResult, int]:
    """Claim the waiting turn for one reply or cancel: 404 unknown, 409 not waiting."""
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id, caller.tenant_id)
        if stored is None:
            raise ApiError(404, "NotFound", f"no turn {turn_id}", turn_id)
        round_ = await turns.claim_waiting(conn, turn_id)
        if round_ is None and stored.status in OPEN:
            with contextlib.suppress(RPCError):
                stored = await reconcile.reconcile_turn(client, conn, turn_id) or stored
    if round_ is None:
        raise ApiError(
            409, "NotWaiting",
            f"turn {turn_id} is {stored.status}: only a turn waiting for a clarification"
            f" can take a {action}",
            turn_id,
        )  # fmt: skip
    return stored, round_


async def _signal_claimed(
    handle: WorkflowHandle[ChatTurn, TurnResult],
    signal: str,
    arg: ClarificationReply | CancelRequest,
    client: Client,
    pool: PoolDep,
) -> None:
    """Signal a claimed turn; on failure give the claim back (or settle a closed turn)."""
    try:
        await handle.signal(signal, arg)
        return
    except RPCError as exc:
        error = exc
    async with pool.connection() as conn:
        if error.status == RPCStatusCode.NOT_FOUND:  # the workflow has closed
            await turns.unclaim(conn, handle.id)
            settled = await reconcile.reconcile_turn(client, conn, handle.id)
            status = settled.status if settled else "closed"
            raise ApiError(409, "NotWaiting", f"turn {handle.id} is {status}", handle.id)
        await turns.unclaim(conn, handle.id)
    raise ApiError(503, "Unavailable", "Temporal is not reachable", handle.id) from error


@router.post(
    "/turns/{turn_id}/clarification",
    responses={**_STILL_RUNNING, **error_responses(401, 404, 409, 429, 503)},
)
async def reply_to_clarification(
    turn_id: TurnIdPath,
    body: ClarificationRequest,
    response: Response,
    client: TemporalDep,
    pool: PoolDep,
    settings: SettingsDep,
    caller: CallerDep,
    prefer: PreferHeader = None,
    wait: WaitQuery = True,
) -> TurnResult:
    """Answer a turn's clarifying question; the reply is merged into the question.

    Exactly one reply per question: a second reply, even sent at the same moment, gets
    409 NotWaiting. Personal data in the reply is tokenised as in a question. With
    `Prefer: respond-async` (or `wait=false`) the answer is 202 once the reply is
    delivered; follow the turn's event stream from the last event seen.
    """
    user_id = await _owned(pool, turn_id, caller)
    await limit(caller, user_id, pool, settings)
    owner = redaction.owner_of(user_id)
    text = await redaction.redact(pool, settings, caller.tenant_id, owner, body.reply)
    stored, round_ = await _claim(turn_id, client, pool, "reply", caller)
    handle: WorkflowHandle[ChatTurn, TurnResult] = client.get_workflow_handle_for(
        ChatTurn.run, turn_id
    )
    reply = ClarificationReply(round=round_, reply=text)
    await _signal_claimed(handle, "clarification_reply", reply, client, pool)
    pending = stored.model_copy(update={"status": "running"})
    if not wait or _prefers_async(prefer):
        _accepted(response, turn_id, prefer)
        return await redaction.reveal(pool, caller.tenant_id, [owner], pending)
    result = await _wait(handle, round_, _deadline(settings), pool, client, response, pending)
    return await redaction.reveal(pool, caller.tenant_id, [owner], result)


@router.post(
    "/turns/{turn_id}/cancel",
    responses={**_STILL_RUNNING, **error_responses(401, 404, 409, 503)},
)
async def cancel_turn(
    turn_id: TurnIdPath,
    response: Response,
    client: TemporalDep,
    pool: PoolDep,
    settings: SettingsDep,
    caller: CallerDep,
    prefer: PreferHeader = None,
    wait: WaitQuery = True,
) -> TurnResult:
    """Cancel a turn that waits for a clarification; its conversation is free again.

    The turn settles as `cancelled` (written to the conversation like any answer). A
    turn that is not waiting gets 409 NotWaiting.
    """
    user_id = await _owned(pool, turn_id, caller)
    stored, round_ = await _claim(turn_id, client, pool, "cancel", caller)
    handle: WorkflowHandle[ChatTurn, TurnResult] = client.get_workflow_handle_for(
        ChatTurn.run, turn_id
    )
    await _signal_claimed(handle, "cancel_turn", CancelRequest(round=round_), client, pool)
    pending = stored.model_copy(update={"status": "running"})
    if not wait or _prefers_async(prefer):
        _accepted(response, turn_id, prefer)
        return await redaction.reveal(
            pool, caller.tenant_id, [redaction.owner_of(user_id)], pending
        )
    result = await _wait(handle, round_, _deadline(settings), pool, client, response, pending)
    return await redaction.reveal(pool, caller.tenant_id, [redaction.owner_of(user_id)], result)


@router.get("/turns/{turn_id}", responses=error_responses(401, 404, 503))
async def get_turn(turn_id: TurnIdPath, pool: PoolDep, caller: CallerDep) -> TurnResult:
    """A turn as stored (another tenant's turn is 404, like one that does not exist)."""
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id, caller.tenant_id)
        owner = await turns.turn_owner(conn, turn_id)
    if stored is None or owner is None:
        raise ApiError(404, "NotFound", f"no turn {turn_id}", turn_id)
    return await redaction.reveal(pool, caller.tenant_id, [redaction.owner_of(owner[1])], stored)


class _Messages(RootModel[list[MessageOut]]):
    pass


@router.get("/conversations/{conversation_id}/messages", responses=error_responses(401, 404, 503))
async def conversation_messages(
    conversation_id: Annotated[str, Path(max_length=64), ID_CHARS],
    pool: PoolDep,
    caller: CallerDep,
) -> list[MessageOut]:
    """The conversation's messages, oldest first (another tenant's conversation is 404)."""
    async with pool.connection() as conn:
        if not await turns.conversation_exists(conn, conversation_id, caller.tenant_id):
            raise ApiError(404, "NotFound", f"no conversation {conversation_id}")
        rows = await turns.list_messages(conn, conversation_id)
        owners = await turns.conversation_users(conn, conversation_id)
    messages = _Messages(
        [
            MessageOut(
                turn_id=r.turn_id, role=r.role, content=r.content, status=r.status,
                citations=r.citations, summarised=r.summarised,
            )
            for r in rows
        ]
    )  # fmt: skip
    owner_ids = [redaction.owner_of(user) for user in owners]
    return (await redaction.reveal(pool, caller.tenant_id, owner_ids, messages)).root
