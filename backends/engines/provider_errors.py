"""Model-provider failures as the errors Temporal expects (the error table's rows).

The provider clients run with their own retries off (`max_retries=0`): Temporal owns
retries. A rejected request (400/401/403/404/422) or an answer that cannot be used (a
refusal, a truncated completion, output that is not the schema) is non-retryable — the
same input would fail the same way — and the step's failure policy decides what the turn
does next. Throttling and outages (429, 5xx, timeouts, refused connections) are
retryable, after the provider's Retry-After when it gives one.
"""

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

import httpx
import openai
from cohere.core.api_error import ApiError as CohereApiError
from temporalio.exceptions import ApplicationError

from activities.errors import ErrorType

REJECTED_STATUSES = frozenset({400, 401, 403, 404, 409, 422})
_MAX_RETRY_AFTER = 300.0


def retry_after(raw: Mapping[str, str] | None) -> timedelta | None:
    """The delay a 429/503 answer asks for (seconds or an HTTP date), capped at 5 min."""
    if raw is None:
        return None
    headers = {k.lower(): v for k, v in raw.items()}
    value = headers.get("retry-after-ms")
    if value:
        try:
            return timedelta(seconds=min(float(value) / 1000.0, _MAX_RETRY_AFTER))
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return timedelta(seconds=min(max(float(value), 0.0), _MAX_RETRY_AFTER))
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = (when - datetime.now(UTC)).total_seconds()
        return timedelta(seconds=min(max(seconds, 0.0), _MAX_RETRY_AFTER))


def _status_error(
    provider: str, status: int, headers: Mapping[str, str] | None, detail: str
) -> ApplicationError:
    message = f"{provider} answered {status}: {detail[:200]}"
    if status in REJECTED_STATUSES:
        return ApplicationError(message, type=ErrorType.UPSTREAM_REJECTED, non_retryable=True)
    return ApplicationError(
        message, type=ErrorType.UPSTREAM_UNAVAILABLE, next_retry_delay=retry_after(headers)
    )


def classify_openai(err: Exception, step: str) -> ApplicationError:
    """An `openai` client exception (or an unusable answer) as an ApplicationError."""
    if isinstance(err, openai.LengthFinishReasonError):
        return ApplicationError(
            f"{step}: the completion was cut off at the token limit",
            type=ErrorType.MODEL_OUTPUT_INVALID,
            non_retryable=True,
        )
    if isinstance(err, openai.ContentFilterFinishReasonError):
        return ApplicationError(
            f"{step}: the provider's content filter stopped the completion",
            type=ErrorType.MODEL_REFUSED,
            non_retryable=True,
        )
    if isinstance(err, openai.APITimeoutError):
        return ApplicationError(f"{step}: the model timed out", type=ErrorType.MODEL_TIMEOUT)
    if isinstance(err, openai.APIConnectionError):
        return ApplicationError(
            f"{step}: cannot reach the model endpoint: {err}", type=ErrorType.UPSTREAM_UNAVAILABLE
        )
    if isinstance(err, openai.APIStatusError):
        return _status_error("the model endpoint", err.status_code, err.response.headers, str(err))
    if isinstance(err, openai.APIResponseValidationError):
        return ApplicationError(
            f"{step}: the endpoint's answer is not a chat completion: {err}",
            type=ErrorType.MODEL_OUTPUT_INVALID,
            non_retryable=True,
        )
    return ApplicationError(
        f"{step}: {type(err).__name__}: {err}", type=ErrorType.UPSTREAM_UNAVAILABLE
    )


def classify_cohere(err: Exception) -> ApplicationError:
    """A `cohere` client exception as an ApplicationError."""
    if isinstance(err, CohereApiError) and err.status_code is not None:
        return _status_error("the reranker", err.status_code, err.headers, str(err.body))
    if isinstance(err, (httpx.TimeoutException, TimeoutError)):
        return ApplicationError("the reranker timed out", type=ErrorType.UPSTREAM_UNAVAILABLE)
    if isinstance(err, httpx.TransportError):
        return ApplicationError(
            f"cannot reach the reranker: {err}", type=ErrorType.UPSTREAM_UNAVAILABLE
        )
    return ApplicationError(
        f"reranker: {type(err).__name__}: {err}", type=ErrorType.UPSTREAM_UNAVAILABLE
    )
