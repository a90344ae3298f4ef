"""What a failed step raises, and what the decision record names as its cause."""

from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as StepTimeout


class TurnError(ApplicationError):
    """A turn that cannot go on: non-retryable, so it settles instead of retrying forever."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message, type=kind, non_retryable=True)


class TurnBudgetSpent(Exception):
    """A budgeted step not started: what is left of the turn's budget could not hold it."""


STEP_FAILED = (ActivityError, ApplicationError, StepTimeout, TurnBudgetSpent)
"""What a failed step raises: a regular activity's failure arrives as ActivityError, a
local activity's as the failure itself (ApplicationError, or TimeoutError); a step the
turn's budget could not hold, as TurnBudgetSpent."""


def failure_cause(err: BaseException) -> str:
    """The first error of the chain with an error type of ours (`ModelOutputInvalid`,
    `ModelTimeout`, ...), else the root error, by its class: what the decision record and
    the degradation metric say failed. The classified error is the one to name: below it
    are the library's own (a JSON or validation error), which say less. Temporal's own
    timeout is named as it is: beneath it is only an earlier attempt's failure."""
    while (
        not isinstance(getattr(err, "type", None), str)
        and not isinstance(err, StepTimeout)  # a timeout, whatever the last attempt said
        and err.__cause__ is not None
    ):
        err = err.__cause__
    typed = getattr(err, "type", None)
    name = typed if isinstance(typed, str) and typed else type(err).__name__
    return name if not str(err) else f"{name}: {str(err)[:120]}"
