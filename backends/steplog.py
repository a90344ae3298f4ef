"""One JSON log line per step outcome: which step, for which turn, how it ended; the
turn's ids on the step's tracing span.

A worker interceptor, so every activity (regular and local) is logged the same way
without each implementation remembering to. The line carries ids and the outcome, never
the step's input or output (user text stays out of logs).
"""

import logging
import time
from typing import Any

from opentelemetry import trace
from temporalio import activity
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)

log = logging.getLogger("turnstile.steps")


def turn_ids(workflow_id: str | None) -> dict[str, str]:
    """`turn_id` and `conversation_id` from a ChatTurn's id (`turn-{conversation}-{seq}`)."""
    if not workflow_id or not workflow_id.startswith("turn-"):
        return {"workflow_id": workflow_id} if workflow_id else {}
    conversation = workflow_id.removeprefix("turn-").rsplit("-", 1)[0]
    return {"turn_id": workflow_id, "conversation_id": conversation}


class StepLog(Interceptor):
    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _LogOutcome(next)


class _LogOutcome(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        info = activity.info()
        fields: dict[str, Any] = {
            "event": "step",
            "step": info.activity_type,
            "attempt": info.attempt,
            "local": info.is_local,
            **turn_ids(info.workflow_id),
        }
        span = trace.get_current_span()  # the step's span when tracing is on
        for key in ("turn_id", "conversation_id"):
            if key in fields:
                span.set_attribute(f"turnstile.{key}", fields[key])
        started = time.perf_counter()
        try:
            result = await super().execute_activity(input)
        except BaseException as exc:
            fields.update(
                outcome="error",
                error=type(exc).__name__,
                ms=round((time.perf_counter() - started) * 1000, 1),
            )
            log.warning("%s failed (attempt %d)", info.activity_type, info.attempt, extra=fields)
            raise
        fields.update(outcome="ok", ms=round((time.perf_counter() - started) * 1000, 1))
        log.info("%s ok", info.activity_type, extra=fields)
        return result
