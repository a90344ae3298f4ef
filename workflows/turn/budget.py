"""The turn's answering budget (`TurnInput.turn_budget_seconds`): no budgeted step
(`StepPolicy.budgeted`) is given longer than what is left of it or started once it is
spent; no retry pass or redraft starts without time for it. Time spent waiting for a
clarification reply is not counted."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from domain.budget import MIN_STEP_SECONDS
    from workflows.policy import POLICY, ActivityOptions, step_name
    from workflows.turn.errors import TurnBudgetSpent
    from workflows.turn.rounds import MAX_CLARIFICATIONS
    from workflows.turn.stream import TurnStream

EXECUTION_MARGIN = timedelta(hours=1)
"""Time a turn may spend outside its clarification waits before Temporal closes it."""
TASK_TIMEOUT = timedelta(seconds=5)
"""A workflow task is milliseconds of our code; when its worker dies mid-task, Temporal
hands it to another after this (the default 10 s dominated recovery after a kill)."""


def execution_timeout(clarification_timeout_seconds: float) -> timedelta:
    """The bound on a whole turn: every clarification wait it may make, plus a margin.

    Temporal closes a turn that outlives it (timed out); the reconciler then records the
    turn as `failed`, so even a turn whose workflow cannot act never blocks its
    conversation for longer than this.
    """
    return MAX_CLARIFICATIONS * timedelta(seconds=clarification_timeout_seconds) + (
        EXECUTION_MARGIN
    )


class Budget:
    def __init__(self, stream: TurnStream) -> None:
        self._stream = stream
        self._seconds = 0.0
        self._deadline = datetime.max.replace(tzinfo=UTC)  # set when the turn starts
        self.out_of_time = False
        """The budget was spent before a step, or the draft's model call timed out."""

    def start(self, seconds: float) -> None:
        self._seconds = seconds
        self._deadline = workflow.now() + timedelta(seconds=seconds)

    def waited(self, since: datetime) -> None:
        """Time spent waiting for the person since `since` is not the turn's work."""
        self._deadline += workflow.now() - since

    def left(self) -> timedelta:
        return self._deadline - workflow.now()

    def bound(self, step: Callable[..., Any], options: ActivityOptions) -> ActivityOptions:
        """`options` of a budgeted step bounded by what is left (TurnBudgetSpent, recorded,
        when too little is left); any other step's as they are."""
        if not POLICY[step_name(step)].budgeted:
            return options
        left = self.left()
        if left < timedelta(seconds=MIN_STEP_SECONDS):
            self.out_of_time = True
            raise TurnBudgetSpent(
                f"the turn's {self._seconds:g} s budget was spent before "
                f"{step_name(step)} could start"
            )
        options["start_to_close_timeout"] = min(options["start_to_close_timeout"], left)
        total = options["schedule_to_close_timeout"]
        options["schedule_to_close_timeout"] = left if total is None else min(total, left)
        return options

    def time_for(self, what: str) -> bool:
        """Whether there is time left to start `what` (noted when not)."""
        if self.left() >= timedelta(seconds=MIN_STEP_SECONDS):
            return True
        self.out_of_time = True
        self._stream.note(
            f"{what} skipped: the turn's budget is spent",
            "No time left to try again: answering with what is done",
        )
        return False
