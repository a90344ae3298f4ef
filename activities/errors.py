"""The error table: one type per row, raised as non-retryable where permanent."""

from temporalio.exceptions import ApplicationError


class ErrorType:
    INVALID_INPUT = "InvalidInput"
    NOT_FOUND = "NotFound"
    CONFLICT = "Conflict"
    UPSTREAM_REJECTED = "UpstreamRejected"
    UPSTREAM_UNAVAILABLE = "UpstreamUnavailable"


def invalid_input(message: str) -> ApplicationError:
    return ApplicationError(message, type=ErrorType.INVALID_INPUT, non_retryable=True)
