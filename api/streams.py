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
import base64
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta

from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.contrib.workflow_streams import (
    PollInput,
    PollResult,
    WorkflowStreamClient,
    WorkflowStreamItem,
)

from workflows.contracts import TurnEvent
from workflows.progress import EVENTS_TOPIC

RESUBSCRIBE_SECONDS = 1.0
POLL_QUERY = "__temporal_workflow_stream_poll"
"""The stream's read-only query (see the workflow_streams README)."""
QUERY_SECONDS = 5.0
RETAINED_FRESH_SECONDS = 2.0
"""How long one read of a turn's retained events serves every watcher asking for it."""


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
        self._retained: dict[str, tuple[float, asyncio.Task[list[tuple[int, TurnEvent]]]]] = {}

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

    async def retained(self, turn_id: str, start: int) -> list[tuple[int, TurnEvent]]:
        """The turn's retained events from offset `start` on, read with the stream's query.

        For a turn that settled or waits for a reply (nothing more will be published
        until someone acts): no long-poll update is left waiting, nothing is written to
        its history. A query of a closed workflow is answered by a worker replaying it,
        so one read (for `RETAINED_FRESH_SECONDS`) serves every watcher of the turn in
        this process: a hundred watchers are one query, not a hundred. [] if it fails.
        """
        now = time.monotonic()
        cached = self._retained.get(turn_id)
        if cached is None or now - cached[0] > RETAINED_FRESH_SECONDS:
            for stale in [t for t, (at, _) in self._retained.items() if now - at > 60]:
                del self._retained[stale]
            cached = (now, asyncio.create_task(self._read_retained(turn_id)))
            self._retained[turn_id] = cached
        events = await asyncio.shield(cached[1])
        return [(offset, event) for offset, event in events if offset >= start]

    async def _read_retained(self, turn_id: str) -> list[tuple[int, TurnEvent]]:
        """Every retained event of the turn. The query and its wire format (base64 of a
        serialised Payload per item) are the library's documented read path for a closed
        or idle stream; its client only uses it once a run has closed, so a paused turn
        is read here directly."""
        handle = self._client.get_workflow_handle(turn_id)
        converter = self._client.data_converter.payload_converter
        events: list[tuple[int, TurnEvent]] = []
        offset = 0
        try:
            while True:
                result = await handle.query(
                    POLL_QUERY,
                    PollInput(topics=[EVENTS_TOPIC], from_offset=offset),
                    result_type=PollResult,
                    rpc_timeout=timedelta(seconds=QUERY_SECONDS),
                )
                for item in result.items:
                    payload = Payload.FromString(base64.b64decode(item.data))
                    events.append((item.offset, converter.from_payload(payload, TurnEvent)))
                offset = result.next_offset
                if not result.more_ready:
                    return events
        except Exception:  # no worker, a turn older than the stream: the outcome still comes
            return events

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
