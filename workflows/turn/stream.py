"""The turn's decision lines and the progress stream its watchers read."""

from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream

with workflow.unsafe.imports_passed_through():
    from domain.turns import TurnResult
    from workflows import progress
    from workflows.contracts import TurnEvent

DETAILS_SHOWN = 40
"""Decision lines kept in the workflow's current details (the Temporal UI)."""


class TurnStream:
    """The decisions taken so far, one line per step, and the turn's progress stream.

    The stream is an offset-addressed log kept in the workflow and read with updates
    (the API's event stream). Publishing issues no command, so turns that began before
    the stream replay unchanged. But a watcher's poll completes in the workflow task
    whose publish satisfied it, and that completion is in the history: adding, moving
    or removing a publish point changes how a watched turn replays. Treat publish points
    like commands (workflow.patched). Made in the workflow's `__init__`: the stream's
    update handlers are registered there.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._stream = WorkflowStream()
        self._events = self._stream.topic(progress.EVENTS_TOPIC, type=TurnEvent)
        self._published = 0

    def note(self, line: str, said: str, step: str | None = None) -> None:
        """A decision: `line` in the operator's trail (the workflow's details, the
        `progress` query), and a stream event saying it to people in `said`."""
        self.lines.append(line)
        workflow.set_current_details("\n".join(self.lines[-DETAILS_SHOWN:]))
        self.publish(progress.decision(line, said, step))

    def publish(self, event: TurnEvent) -> None:
        """Publish on the turn's stream, keeping at most the last MAX_RETAINED_EVENTS."""
        self._events.publish(event)
        self._published += 1
        if self._published > progress.MAX_RETAINED_EVENTS:
            self._stream.truncate(self._published - progress.MAX_RETAINED_EVENTS)

    def end(self, result: TurnResult) -> None:
        """The stream's in-band end, then release its waiting subscribers: a poll still
        waiting would otherwise keep the turn's handlers from ever finishing."""
        self.publish(progress.settled(result))
        self._stream.detach_pollers()
