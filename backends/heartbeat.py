"""Heartbeat while an activity waits on a thread or a model.

The long steps (search, embedding, model calls) block in `asyncio.to_thread` or in an
awaited provider call, so they cannot heartbeat from their own code. The policy table
gives them a heartbeat timeout of a few seconds: if their worker dies, Temporal retries
the attempt elsewhere after that long rather than after the start-to-close timeout.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator

from temporalio import activity

INTERVAL_SECONDS = 1.0


@contextlib.asynccontextmanager
async def heartbeating(interval: float = INTERVAL_SECONDS) -> AsyncIterator[None]:
    """Call `activity.heartbeat()` now and every `interval` seconds until the block exits.

    Only usable inside an activity. The SDK throttles what it sends to the server, so a
    one-second beat costs nothing extra. The beat runs on the event loop, so it keeps
    going while the block awaits a thread, and stops when the worker process dies.
    """

    if activity.info().is_local:
        # A local activity cannot heartbeat: it lives inside its workflow task, which
        # Temporal times out (and retries) instead.
        yield
        return

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(interval)

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
