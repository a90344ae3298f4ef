"""Which model calls produced a step's result: recorded per activity, not per engine.

One engine serves many concurrent activities, so a call is recorded in a context
variable that each activity sets around its engine call (`recording()`); the activity
puts what was recorded into its result's `model_calls`, and the workflow gathers them
into the turn's trace.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from domain.models import ModelCall

_CALLS: ContextVar[list[ModelCall] | None] = ContextVar("model_calls", default=None)


def record(call: ModelCall) -> None:
    """Note a call for the activity running this task (no-op outside `recording()`)."""
    calls = _CALLS.get()
    if calls is not None:
        calls.append(call)


@contextmanager
def recording() -> Iterator[list[ModelCall]]:
    """Collect the model calls made inside the block."""
    calls: list[ModelCall] = []
    token = _CALLS.set(calls)
    try:
        yield calls
    finally:
        _CALLS.reset(token)
