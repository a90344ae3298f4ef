"""The error table: one type per row, raised as non-retryable where permanent."""

from temporalio.exceptions import ActivityError, ApplicationError, TimeoutError


class ErrorType:
    INVALID_INPUT = "InvalidInput"
    NOT_FOUND = "NotFound"
    CONFLICT = "Conflict"
    UPSTREAM_REJECTED = "UpstreamRejected"
    UPSTREAM_UNAVAILABLE = "UpstreamUnavailable"
    MODEL_REFUSED = "ModelRefused"
    """The model declined (a refusal field, a content filter): non-retryable."""
    MODEL_TIMEOUT = "ModelTimeout"
    """The model did not answer within the model timeout: retryable, within the budget."""
    MODEL_OUTPUT_INVALID = "ModelOutputInvalid"
    """Malformed JSON, a schema mismatch or a truncated completion: non-retryable."""


def invalid_input(message: str) -> ApplicationError:
    return ApplicationError(message, type=ErrorType.INVALID_INPUT, non_retryable=True)


def not_found(message: str) -> ApplicationError:
    return ApplicationError(message, type=ErrorType.NOT_FOUND, non_retryable=True)


def why_step_failed(err: ActivityError) -> str:
    """Why a step failed after its retries, in one line: its last attempt's error type and
    message, or the kind of its timeout (a heartbeat timeout is a worker that stopped)."""
    cause = err.cause
    if isinstance(cause, TimeoutError):
        return f"{cause.type.name.lower().replace('_', '-')} timeout" if cause.type else "timeout"
    if isinstance(cause, ApplicationError):
        why = f"{cause.type}: {cause.message}" if cause.type else cause.message
    else:
        why = str(cause or err)
    return why[:200]
