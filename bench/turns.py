"""Turn latency benchmark against a running stack (run by hand; not a test).

    TURNSTILE_RATE_LIMIT_PER_MINUTE=100000 .venv/bin/turnstile up --detach
    .venv/bin/python -m bench.turns [--turns 50] [--warmup 10]

For each scenario it POSTs `--turns` turns (each in a new conversation, so none waits on
another) and measures the HTTP round trip. Every scenario but the last sends
`Cache-Control: no-cache`, so it measures the full path; the last asks the single-company
questions again with the answer cache on (each asked once first), so it measures a hit.
From each turn's workflow history it computes the orchestration share: the part of the
workflow's run time not covered by any activity (activities running in parallel are
counted once, as the union of their intervals).
"""

import argparse
import asyncio
import statistics
import time
import uuid
from datetime import datetime

import httpx
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

import payloads
from bench import common
from settings import get_settings

SCENARIOS: dict[str, list[str]] = {
    "single-company figure": [
        "What was BHP's revenue in FY2024?",
        "What was Fortescue's net debt in FY2023?",
        "What was South32's underlying EBITDA in FY2025?",
        "What was Northern Star's revenue in FY2024?",
        "What was Rio Tinto's net earnings in FY2023?",
    ],
    "three-company comparison": [
        "Compare the revenue of BHP, Rio Tinto and Fortescue in FY2024",
        "Compare net debt of BHP, Fortescue and South32 in FY2025",
    ],
    "out-of-scope refusal": [
        "Should I buy BHP shares?",
        "Write a poem about Fortescue",
        "What was Glencore's revenue in FY2024?",
    ],
}
CACHE_HIT = "cache hit (single-company)"
SCENARIOS[CACHE_HIT] = SCENARIOS["single-company figure"]


def percentile(values: list[float], q: float) -> float:
    """`common.percentile` of a sample that has values."""
    value = common.percentile(values, q)
    assert value is not None, "a scenario ran no turns"
    return value


def _union_seconds(intervals: list[tuple[datetime, datetime]]) -> float:
    total, end = 0.0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += (stop - start).total_seconds()
            end = stop
        elif stop > end:
            total += (stop - end).total_seconds()
            end = stop
    return total


async def orchestration_share(client: Client, workflow_id: str) -> tuple[float, float]:
    """Return (workflow seconds, seconds not inside any regular activity).

    Local activities run inside workflow tasks and their markers carry no reliable start
    time, so their time counts here as orchestration.
    """
    started: dict[int, datetime] = {}
    intervals: list[tuple[datetime, datetime]] = []
    first = last = None
    async for e in client.get_workflow_handle(workflow_id).fetch_history_events():
        when = e.event_time.ToDatetime()
        first = first or when
        last = when
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            started[e.activity_task_started_event_attributes.scheduled_event_id] = when
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            sid = e.activity_task_completed_event_attributes.scheduled_event_id
            if sid in started:
                intervals.append((started[sid], when))
    assert first is not None and last is not None
    total = (last - first).total_seconds()
    return total, total - _union_seconds(intervals)


async def run(turns: int, warmup: int) -> None:
    settings = get_settings()
    client = await Client.connect(
        settings.effective_temporal_address, data_converter=payloads.data_converter(settings)
    )
    async with httpx.AsyncClient(base_url=settings.api_url, timeout=120) as http:

        async def one(question: str, cached: bool = False) -> tuple[float, str, str]:
            body = {"question": question, "conversation_id": f"bench-{uuid.uuid4()}"}
            headers = {} if cached else {"Cache-Control": "no-cache"}
            while True:
                t0 = time.perf_counter()
                response = await http.post("/v1/turns", json=body, headers=headers)
                elapsed = time.perf_counter() - t0
                if response.status_code != 429:
                    break
                # The stack's per-caller rate limit: wait as told, and time the next try
                # (start the stack with TURNSTILE_RATE_LIMIT_PER_MINUTE raised to avoid it).
                await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
            response.raise_for_status()
            data = response.json()
            outcome = data["status"] + (f"/{data['cache']}" if data.get("cache") else "")
            return elapsed, data["turn_id"], outcome

        for i in range(warmup):
            await one(SCENARIOS["single-company figure"][i % 5])
        for question in SCENARIOS[CACHE_HIT]:  # the first asking of each is a miss
            await one(question, cached=True)
        print(
            f"{'scenario':28} {'n':>3} {'p50 s':>7} {'p95 s':>7} {'orch p50':>9} {'orch share':>10}"
        )
        for name, questions in SCENARIOS.items():
            times, orch, shares, statuses = [], [], [], set()
            for i in range(turns):
                question = questions[i % len(questions)]
                elapsed, turn_id, status = await one(question, cached=name == CACHE_HIT)
                times.append(elapsed)
                statuses.add(status)
                total, orchestration = await orchestration_share(client, turn_id)
                orch.append(orchestration)
                shares.append(orchestration / total if total else 0.0)
            print(
                f"{name:28} {turns:>3} {statistics.median(times):>7.3f} "
                f"{percentile(times, 0.95):>7.3f} {statistics.median(orch):>9.3f} "
                f"{statistics.median(shares):>9.0%}  statuses={sorted(statuses)}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(run(args.turns, args.warmup))


if __name__ == "__main__":
    main()
