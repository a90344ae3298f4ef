"""The error table (STYLE.md): one type per row, raised as non-retryable where permanent."""

from temporalio.exceptions import ApplicationError


class ErrorType:
    INVALID_INPUT = "InvalidInput"
    NOT_FOUND = "NotFound"
    CONFLICT = "Conflict"
    UPSTREAM_REJECTED = "UpstreamRejected"
    UPSTREAM_UNAVAILABLE = "UpstreamUnavailable"


def invalid_input(message: str) -> ApplicationError:
    return ApplicationError(message, type=ErrorType.INVALID_INPUT, non_retryable=True)


def upstream_rejected(message: str) -> ApplicationError:
    return ApplicationError(message, type=ErrorType.UPSTREAM_REJECTED, non_retryable=True)


def upstream_unavailable(message: str, retry_after: float | None = None) -> ApplicationError:
    from datetime import timedelta

    delay = timedelta(seconds=retry_after) if retry_after else None
    return ApplicationError(message, type=ErrorType.UPSTREAM_UNAVAILABLE, next_retry_delay=delay)
