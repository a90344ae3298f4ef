"""The error table: one type per row, raised as non-retryable where permanent."""

from temporalio.exceptions import ApplicationError


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
