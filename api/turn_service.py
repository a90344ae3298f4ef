"""The turn service: what the turn routes do, apart from HTTP.

Allocating a turn in PostgreSQL (a blocking turn whose workflow has closed is reconciled
first), starting ChatTurn and waiting for its outcome in one request to Temporal
(update-with-start) within the request's deadline, reading a stored outcome (reconciled),
the caller's turn or 404, and claiming and signalling a waiting turn. Every failure after
a turn exists means "poll", not an error: the caller gets 202 and the turn's id.
"""

import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, NoReturn

import psycopg
from fastapi import Response
from opentelemetry import trace
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowHandle,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
    WorkflowUpdateStage,
)
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from api.auth import Caller
from api.errors import ApiError
from api.metrics import TURNS_STARTED
from api.turn_schemas import TurnRequest, prefers_async
from db import reconcile, turns
from domain.checks.clarification import clarifications_left
from domain.evaluation.shadow import sampled
from domain.turns import OPEN, SETTLED, WAITING, TurnResult
from settings import EngineName, Settings
from workflows.chat_turn import ChatTurn
from workflows.contracts import CancelRequest, ClarificationReply, ShadowPlan, TurnInput
from workflows.turn_start import start_options


def accepted(response: Response, turn_id: str, prefer: str | None) -> None:
    """Mark the response 202: the turn runs on; where to read it and follow it."""
    response.status_code = 202
    response.headers["Location"] = f"/v1/turns/{turn_id}"
    response.headers["Link"] = f'</v1/turns/{turn_id}/events>; rel="events"'
    if prefers_async(prefer):
        response.headers["Preference-Applied"] = "respond-async"


async def outcome_within(
    handle: WorkflowHandle[ChatTurn, TurnResult],
    after_round: int,
    deadline: float,
    pool: AsyncConnectionPool,
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
    # long: one wait loop with each way it can end handled where it happens.
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
        stored = await stored_outcome(handle.id, after_round, pool, client, reconciling=True)
        if stored is not None:
            return stored
        await asyncio.sleep(0.1)
    stored = await stored_outcome(handle.id, after_round, pool, client, reconciling=True)
    if stored is not None:
        return stored
    accepted(response, handle.id, None)
    return pending


async def stored_outcome(
    turn_id: str, after_round: int, pool: AsyncConnectionPool, client: Client, *, reconciling: bool
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
    if stored is not None and (
        stored.status in SETTLED
        or (stored.status == WAITING and stored.clarification_round > after_round)
    ):
        return stored
    return None


def request_hash(body: TurnRequest) -> str:
    canonical = json.dumps(body.model_dump(), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


async def allocate(
    body: TurnRequest,
    idem: tuple[str, str] | None,
    client: Client,
    pool: AsyncConnectionPool,
    tenant_id: str,
) -> turns.Allocation:
    """Allocate the turn; a blocking turn whose workflow has closed is settled first."""
    for attempt in (1, 2):
        async with pool.connection() as conn:
            try:
                return await turns.allocate_turn(
                    conn,
                    body.conversation_id,
                    body.user_id,
                    body.question,
                    idem,
                    tenant_id=tenant_id,
                )
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
                    raise _turn_in_progress(blocking) from exc
            except turns.IdempotencyMismatch as exc:
                raise ApiError(
                    422, "InvalidInput", "Idempotency-Key was already used with a different request"
                ) from exc
    raise RuntimeError("unreachable: the second attempt returns or raises")


def _turn_in_progress(blocking: str) -> ApiError:
    return ApiError(
        409,
        "TurnInProgress",
        f"turn {blocking} is still running or waiting for a reply in this"
        f" conversation; answer it, or cancel it (POST /v1/turns/{blocking}"
        "/cancel) if it waits for a clarification",
        blocking,
    )


def deadline_of(settings: Settings) -> float:
    """When a request that waits for an outcome stops waiting (monotonic seconds)."""
    return time.monotonic() + settings.request_timeout_seconds


def _options(settings: Settings, turn: TurnInput) -> dict[str, Any]:
    """ChatTurn's start options (`workflows.turn_start`) on this stack's turn queue: the
    turn workers' when there are several, else the one queue."""
    queue = settings.turn_task_queue if settings.workers > 1 else settings.task_queue
    return {**start_options(turn), "task_queue": queue}


def turn_input(
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
        clarifications_left=clarifications_left(
            settings.max_clarifications_per_conversation, alloc.clarifications_before
        ),
        engine_in_process=settings.engine == EngineName.OFFLINE,
        answer_cache=settings.answer_cache and not fresh,
        tenant_id=caller.tenant_id,
        turn_budget_seconds=settings.turn_budget_seconds,
        judge_policy=settings.judge_policy,
        classifier_policy=settings.classifier_policy,
        # Several workers: turns on theirs, index steps on the index holder's.
        index_task_queue=settings.task_queue if settings.workers > 1 else None,
        shadow=shadow_plan(settings, alloc.turn_id),
    )


def shadow_plan(settings: Settings, turn_id: str) -> ShadowPlan | None:
    """The turn's shadow when it is in the TURNSTILE_SHADOW_SAMPLE sample (decided by
    its id), else None."""
    if not sampled(turn_id, settings.shadow_sample):
        return None
    shadow = settings.shadow_settings()
    return ShadowPlan(
        task_queue=settings.shadow_task_queue,
        engine_in_process=shadow.engine == EngineName.OFFLINE,
        live_config=settings.engine_label,
        shadow_config=shadow.engine_label,
    )


async def start(
    client: Client,
    pool: AsyncConnectionPool,
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
        await client.start_workflow(ChatTurn.run, turn, **_options(settings, turn))
    except WorkflowAlreadyStartedError:
        pass
    except RPCError as exc:
        if exc.status != RPCStatusCode.ALREADY_EXISTS:
            await _start_failed(client, pool, alloc.turn_id, exc)
    TURNS_STARTED.inc()
    return client.get_workflow_handle_for(ChatTurn.run, alloc.turn_id)


async def _start_failed(
    client: Client, pool: AsyncConnectionPool, turn_id: str, exc: RPCError
) -> NoReturn:
    """The 503 for a start that failed: refused (undone) or unanswered (kept, named)."""
    exists = await started(client, turn_id) if exc.status == RPCStatusCode.UNAVAILABLE else None
    await _not_started(pool, turn_id, exc, exists)


async def _not_started(
    pool: AsyncConnectionPool, turn_id: str, exc: RPCError, exists: bool | None
) -> NoReturn:
    """The 503 for a start that failed, once Temporal was asked whether the turn exists
    (`exists`; None: it could not say): refused (undone) or unanswered (kept, named)."""
    if exc.status == RPCStatusCode.UNAVAILABLE and exists is False:
        # Refused (the server down): it never started, so nothing is left behind.
        async with pool.connection() as conn:
            await turns.forget_turn(conn, turn_id)
        raise ApiError(503, "Unavailable", "Temporal is not reachable") from exc
    raise _unanswered(turn_id) from exc


def _unanswered(turn_id: str) -> ApiError:
    return ApiError(
        503,
        "Unavailable",
        "Temporal did not answer in time, so this turn may or may not have started; retry"
        " with the same Idempotency-Key, or read the turn",
        turn_id,
    )


async def start_and_wait(
    client: Client,
    pool: AsyncConnectionPool,
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
    A refused start is undone (`_start_failed`). A call that failed for a turn Temporal
    has started (its deadline, a deduplicated retry), an outcome not reached in time, or
    a turn of this id that already closed, is read as `outcome_within` reads it: never a
    503 for a turn that is running (the chaos run with its one worker killed got 503s
    after 8-9 s).
    """
    # long: update-with-start and each of its failures, in the order Temporal reports them.
    deadline = deadline_of(settings)
    operation = WithStartWorkflowOperation(
        ChatTurn.run,
        turn,
        # A replayed request racing the first joins the turn that one started.
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        **_options(settings, turn),
    )
    call = asyncio.ensure_future(_outcome_of_start(client, operation, deadline))
    call.add_done_callback(_read)
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
        pass  # started, no outcome in time (no worker?) or closed since: read as below
    except RPCError as exc:
        # The start is durable even when the call fails: the server's deadline came
        # before a worker took the update, or the SDK's retry of the call was refused as
        # a duplicate start ("StartDeduped", UNAVAILABLE) while the worker was down.
        if exc.status != RPCStatusCode.ALREADY_EXISTS:
            exists = await started(client, alloc.turn_id)
            if not exists:  # refused (undone) or unanswered (named), as a plain start
                await _not_started(pool, alloc.turn_id, exc, exists)
    finally:
        call.cancel()
    TURNS_STARTED.inc()
    if result is not None:
        return result
    handle = client.get_workflow_handle_for(ChatTurn.run, alloc.turn_id)
    return await outcome_within(handle, 0, deadline, pool, client, response, pending)


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
            # Past the `wait_for` below, so that the wait ends first (TimeoutError); the
            # server's deadline, when it comes first all the same, is read as above.
            rpc_timeout=timedelta(seconds=max(0.1, deadline - time.monotonic()) + 1.0),
        )
        result: TurnResult = await update.result()
        return result

    task = asyncio.ensure_future(outcome())
    task.add_done_callback(_read)
    return await asyncio.wait_for(task, timeout=max(0.1, deadline - time.monotonic()))


def _read(task: "asyncio.Future[TurnResult]") -> None:
    """A call given up on (a stalled server, then cancelled) ends with the SDK's error
    rather than a cancellation: read here, as the 503 already says it, so asyncio does
    not log "Task exception was never retrieved" when the task is collected."""
    if not task.cancelled():
        task.exception()


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


async def started(client: Client, turn_id: str) -> bool | None:
    """Whether Temporal has a workflow of this id; None when it cannot say."""
    try:
        await client.get_workflow_handle(turn_id).describe()
    except RPCError as exc:
        return False if exc.status == RPCStatusCode.NOT_FOUND else None
    return True


def no_turn(turn_id: str) -> ApiError:
    """The 404 for a turn that does not exist or is another tenant's (the same answer, so
    a caller learns nothing of other tenants' turns)."""
    return ApiError(404, "NotFound", f"no turn {turn_id}", turn_id)


async def owned_turn(pool: AsyncConnectionPool, turn_id: str, caller: Caller) -> str | None:
    """The caller's turn's user (its PII owner; None for a turn asked without one), or
    404 when the turn is not the caller tenant's."""
    async with pool.connection() as conn:
        owner = await turns.turn_owner(conn, turn_id)
    if owner is None or owner[0] != caller.tenant_id:
        raise no_turn(turn_id)
    return owner[1]


async def claim(
    turn_id: str, client: Client, pool: AsyncConnectionPool, action: str, caller: Caller
) -> tuple[TurnResult, int]:
    """Claim the waiting turn for one reply or cancel: 404 unknown, 409 not waiting."""
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id, caller.tenant_id)
        if stored is None:
            raise no_turn(turn_id)
        round_ = await turns.claim_waiting(conn, turn_id)
        if round_ is None and stored.status in OPEN:
            with contextlib.suppress(RPCError):
                stored = await reconcile.reconcile_turn(client, conn, turn_id) or stored
    if round_ is None:
        raise ApiError(
            409,
            "NotWaiting",
            f"turn {turn_id} is {stored.status}: only a turn waiting for a clarification"
            f" can take a {action}",
            turn_id,
        )
    return stored, round_


async def signal_claimed(
    handle: WorkflowHandle[ChatTurn, TurnResult],
    signal: str,
    arg: ClarificationReply | CancelRequest,
    client: Client,
    pool: AsyncConnectionPool,
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


async def replayed(
    client: Client, pool: AsyncConnectionPool, alloc: turns.Allocation
) -> tuple[TurnResult | None, bool]:
    """A retried request's turn: its stored outcome (reconciled) if it has one, and
    whether it still has to be started (the first request's start went unanswered,
    Temporal down or stalled, and its caller was told to retry with this key); 503 while
    Temporal cannot say whether it started."""
    stored = await stored_outcome(alloc.turn_id, -1, pool, client, reconciling=False)
    exists = True if stored is not None else await started(client, alloc.turn_id)
    if exists is None:  # Temporal still does not answer: retry again
        raise ApiError(
            503,
            "Unavailable",
            "Temporal is not answering, so this turn may not have started yet;"
            " retry with the same Idempotency-Key",
            alloc.turn_id,
        )
    if exists and (stored is None or stored.status in OPEN):
        # Reconciled: a turn whose workflow was closed from outside is settled.
        stored = await stored_outcome(alloc.turn_id, -1, pool, client, reconciling=True)
    return stored, not exists


async def ask(
    client: Client,
    pool: AsyncConnectionPool,
    settings: Settings,
    caller: Caller,
    body: TurnRequest,
    idem: tuple[str, str] | None,
    fresh: bool,
    wait: bool,
    prefer: str | None,
    response: Response,
) -> TurnResult:
    """Allocate the turn (its question redacted already), start it unless a retried
    request's turn has started, and give its outcome: in one round trip when it waits
    (`start_and_wait`), else 202 at once with the pending turn (`accepted`)."""
    # long: allocate, start and wait in order, each failure answered where it happens.
    waits = wait and not prefers_async(prefer)
    alloc = await allocate(body, idem, client, pool, caller.tenant_id)
    # The request's span names the turn from here on, whatever follows (a 503 included).
    span = trace.get_current_span()
    span.set_attribute("turnstile.turn_id", alloc.turn_id)
    span.set_attribute("turnstile.conversation_id", alloc.conversation_id)
    stored, start_it = None, not alloc.replayed
    if alloc.replayed:  # a retried request: the first request's turn, if it has an outcome
        stored, start_it = await replayed(client, pool, alloc)
    if stored is not None:
        return stored
    pending = TurnResult(
        turn_id=alloc.turn_id,
        conversation_id=alloc.conversation_id,
        status="running",
        question=body.question,
    )
    turn = turn_input(settings, caller, alloc, body, fresh)
    if start_it and waits:
        return await start_and_wait(client, pool, settings, alloc, turn, response, pending)
    handle = client.get_workflow_handle_for(ChatTurn.run, alloc.turn_id)
    if start_it:
        handle = await start(client, pool, settings, alloc, turn)
    if waits:
        deadline = deadline_of(settings)
        return await outcome_within(handle, 0, deadline, pool, client, response, pending)
    accepted(response, alloc.turn_id, prefer)
    return pending


async def signal_waiting(
    client: Client,
    pool: AsyncConnectionPool,
    settings: Settings,
    caller: Caller,
    turn_id: str,
    signal: str,
    arg: Callable[[int], ClarificationReply | CancelRequest],
    wait: bool,
    prefer: str | None,
    response: Response,
) -> TurnResult:
    """Deliver a reply or a cancel (`signal`, its argument built for the claimed round)
    to the caller's waiting turn, then give the turn's next outcome, or 202 at once."""
    action = "reply" if signal == "clarification_reply" else "cancel"
    stored, round_ = await claim(turn_id, client, pool, action, caller)
    handle = client.get_workflow_handle_for(ChatTurn.run, turn_id)
    await signal_claimed(handle, signal, arg(round_), client, pool)
    pending = stored.model_copy(update={"status": "running"})
    if not wait or prefers_async(prefer):
        accepted(response, turn_id, prefer)
        return pending
    deadline = deadline_of(settings)
    return await outcome_within(handle, round_, deadline, pool, client, response, pending)
