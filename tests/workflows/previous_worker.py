"""A ChatTurn worker running the previous code: copied into a checkout of an earlier
commit and run there, so every module it loads (workflow, activities, contracts) is that
commit's. Prints "ready" once it polls, then runs until it is killed.

Usage: python previous_worker.py TEMPORAL_ADDRESS NAMESPACE TASK_QUEUE POSTGRES_DSN
"""

import asyncio
import sys

from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Worker

import worker as registry
from workflows.chat_turn import ChatTurn

# The commit's own engine, wherever that commit kept it: a module missing from its tree
# would be loaded from today's (the project is installed editable), and today's engine
# needs today's domain.
try:
    from activities.engines.offline import OfflineEngine  # type: ignore[import-not-found]
except ImportError:  # a commit after activities/ was split into backends/
    try:
        from backends.engines.offline import OfflineEngine  # type: ignore[attr-defined]
    except ImportError:  # a commit after the engine became a package
        from backends.engines.offline.engine import OfflineEngine


async def main(address: str, namespace: str, task_queue: str, dsn: str) -> None:
    client = await Client.connect(
        address, namespace=namespace, data_converter=pydantic_data_converter
    )
    async with AsyncConnectionPool(dsn, min_size=1, max_size=4, open=False) as pool:
        # The turns this worker serves stop at a clarification: route and session steps
        # only, so no search index is opened (its activities are registered, unused).
        activities = registry.activities(None, pool, OfflineEngine())  # type: ignore[arg-type]
        async with Worker(
            client, task_queue=task_queue, workflows=[ChatTurn], activities=activities
        ):
            print("ready", flush=True)
            await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
