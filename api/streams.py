"""One reader of each turn's workflow stream per API process, fanned out to its watchers.

Reading a turn's stream is a long-poll update on its workflow, and Temporal admits a
bounded number of updates in flight per workflow (ten by default). One subscription per
SSE client meant the eleventh watcher's polls were refused (ResourceExhausted): with
twelve watchers one got only the outcome, with fifty a third did. Here a turn has one
`_Feed` per process, whatever the number of watchers: it subscribes from offset 0,
keeps what arrived, and hands every watcher everything from the offset it asked for.
The feed stops when its last watcher leaves.

Hand-written: the stream library has no fan-out of its own (its client is one
subscription per iterator), and this is a few dozen lines over asyncio queues.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from temporalio.client import Client
from temporalio.contrib.workflow_streams import WorkflowStreamClient, WorkflowStreamItem

from workflows.contracts import TurnEvent
from workflows.progress import EVENTS_TOPIC

RESUBSCRIBE_SECONDS = 1.0


class Closed:
    """The subscription ended: the workflow closed and its retained events were read."""


CLOSED = Closed()
Item = WorkflowStreamItem[TurnEvent] | BaseException | Closed
"""What a watcher receives: an event, a subscription failure (it resubscribes on its
own; the watcher may read the stored turn meanwhile), or the end."""


@dataclass
class _Watcher:
    start: int
    queue: asyncio.Queue[Item] = field(default_factory=asyncio.Queue)


@dataclass
class _Feed:
    turn_id: str
    items: list[WorkflowStreamItem[TurnEvent]] = field(default_factory=list)
    watchers: list[_Watcher] = field(default_factory=list)
    ended: bool = False
    pump: asyncio.Task[None] | None = None

    def add(self, watcher: _Watcher) -> None:
        for item in self.items:
            if item.offset >= watcher.start:
                watcher.queue.put_nowait(item)
        if self.ended:
            watcher.queue.put_nowait(CLOSED)
        self.watchers.append(watcher)

    def publish(self, item: Item) -> None:
        if isinstance(item, WorkflowStreamItem):
            if self.items and item.offset <= self.items[-1].offset:
                return  # a resubscription's repeat
            self.items.append(item)
        elif isinstance(item, Closed):
            self.ended = True
        for watcher in self.watchers:
            if not isinstance(item, WorkflowStreamItem) or item.offset >= watcher.start:
                watcher.queue.put_nowait(item)


class TurnStreams:
    """The process's feeds, by turn id (`app.state.streams`)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._feeds: dict[str, _Feed] = {}

    def feeds(self) -> int:
        """How many turns this process reads now (one subscription each)."""
        return len(self._feeds)

    @contextlib.asynccontextmanager
    async def watch(self, turn_id: str, start: int) -> AsyncIterator["asyncio.Queue[Item]"]:
        """A queue of the turn's events from offset `start` on, for as long as the
        `async with` lasts; the turn's one subscription starts with its first watcher."""
        feed = self._feeds.get(turn_id)
        if feed is None:
            feed = self._feeds[turn_id] = _Feed(turn_id)
            feed.pump = asyncio.create_task(self._pump(feed))
        watcher = _Watcher(start)
        feed.add(watcher)
        try:
            yield watcher.queue
        finally:
            feed.watchers.remove(watcher)
            if not feed.watchers:
                del self._feeds[turn_id]
                if feed.pump is not None:
                    feed.pump.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await feed.pump

    async def _pump(self, feed: _Feed) -> None:
        """Subscribe from offset 0 and publish what arrives; resubscribe after a failure
        (published too, so watchers read the stored turn at once)."""
        stream = WorkflowStreamClient.create(self._client, feed.turn_id)
        while True:
            offset = feed.items[-1].offset + 1 if feed.items else 0
            try:
                async for item in stream.subscribe(EVENTS_TOPIC, offset, result_type=TurnEvent):
                    feed.publish(item)
                feed.publish(CLOSED)
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any subscription failure: the table still settles it
                feed.publish(exc)
                await asyncio.sleep(RESUBSCRIBE_SECONDS)
