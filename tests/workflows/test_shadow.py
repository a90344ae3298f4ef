"""Shadow mode through the real stack: a sampled live turn starts its shadow (a ChatTurn of
the shadow configuration on its own queue) once it has settled; both outcomes land side
by side for the A/B report, and the person sees, and the conversation, the answer cache
and the decision record hold, only the live one.

Real parts: the Temporal dev server, PostgreSQL, the sample corpus in Qdrant Edge, the API
in-process, the worker's own shadow worker (`worker.shadow_worker`); the shadow's engine is
the model engine against the fake provider.
"""

import asyncio
import json
import re
from collections.abc import Iterator

import httpx
import pytest
from psycopg_pool import AsyncConnectionPool
from pydantic import SecretStr
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError

import worker as registry
from backends.reports import ReportIndex
from domain.turns import TurnResult
from evals import live
from settings import Settings
from testkit.fake_servers import Brain, FakeOpenAI, block_with
from tests.conftest import TurnWorker, activity_inputs, client_for, run_cli
from workflows.chat_turn import ChatTurn

QUESTION = "What was BHP's revenue in FY2024?"
SHADOW_SAYS = "about US$55.66 billion"
"""How the shadow's model words the figure (the offline engine: "US$55,658 million")."""
WAIT_SECONDS = 90.0


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI().running() as server:
        yield server


@pytest.fixture
def brain(fake: FakeOpenAI) -> Brain:
    fake.responders.clear()
    fake.step_faults.clear()
    brain = Brain(fake)
    brain.writes(
        lambda body: (
            f"BHP Group's revenue for FY2024 was {SHADOW_SAYS} [{block_with(body, '55,658')}]."
        )
    )
    return brain


def shadowing(settings: Settings, fake: FakeOpenAI, sample: float = 1.0) -> Settings:
    """`settings` with every (or no) question shadowed by the model engine on `fake`."""
    engine = {
        "engine": "openai",
        "openai_base_url": fake.base_url,
        "openai_api_key": fake.api_key,
        "model_route": "small-1",
        "model_grade": "small-1",
        "model_synthesize": "large-1",
        "model_judge": "judge-1",
        "model_summarize": "small-1",
        "model_timeout_seconds": 5,
    }
    return settings.model_copy(
        update={"shadow_sample": sample, "shadow_engine": SecretStr(json.dumps(engine))}
    )


async def recorded(pool: AsyncConnectionPool, turn_id: str) -> tuple[TurnResult, TurnResult]:
    """The (live, shadow) pair of a turn, once its shadow has recorded it."""
    deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
    while True:
        async with pool.connection() as conn:
            row = await (
                await conn.execute(
                    "SELECT live, shadow FROM shadow_runs WHERE turn_id = %s", (turn_id,)
                )
            ).fetchone()
        if row is not None:
            return TurnResult.model_validate(row[0]), TurnResult.model_validate(row[1])
        assert asyncio.get_running_loop().time() < deadline, f"no shadow of {turn_id}"
        await asyncio.sleep(0.2)


async def what_the_person_sees(http: httpx.AsyncClient, turn_id: str, conversation: str) -> str:
    """Everything the API shows of the turn: its result, its conversation's messages, its
    decision record."""
    parts = [
        (await http.get(f"/v1/turns/{turn_id}")).text,
        (await http.get(f"/v1/conversations/{conversation}/messages")).text,
        (await http.get(f"/v1/turns/{turn_id}/audit")).text,
    ]
    return "\n".join(parts)


async def test_a_sampled_turn_is_shadowed_side_by_side_and_the_person_sees_only_the_live_one(
    app_settings: Settings,
    turn_worker: TurnWorker,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    temporal_client: Client,
    fake: FakeOpenAI,
    brain: Brain,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = shadowing(app_settings, fake)
    async with (
        turn_worker(task_queue=settings.task_queue),
        registry.shadow_worker(temporal_client, settings, report_index, pool),
        client_for(settings) as http,
    ):
        response = await http.post("/v1/turns", json={"question": QUESTION})
        shown = TurnResult.model_validate(response.json())
        live_stored, shadow = await recorded(pool, shown.turn_id)
        seen = await what_the_person_sees(http, shown.turn_id, shown.conversation_id)
        report = await live.shadow(temporal_client, settings.task_queue, 1000)
        # The A/B report as an operator reads it: `turnstile eval shadow`.
        capsys.readouterr()
        code = await run_cli(settings, monkeypatch, "eval", "shadow", "--limit", "1000")
        printed = capsys.readouterr().out
        handle = temporal_client.get_workflow_handle_for(ChatTurn.run, f"shadow-{shown.turn_id}")
        saves = await activity_inputs(handle, "postgres_save_turn")
        described = await handle.describe()
        summaries = await activity_inputs(handle, "llm_summarize_history")

    assert shown.status == "answered" and "US$55,658 million" in (shown.answer or "")
    # Both outcomes side by side: the live one as the person saw it, the shadow's own.
    assert live_stored.answer == shown.answer
    assert shadow.status == "answered" and SHADOW_SAYS in (shadow.answer or ""), shadow
    assert shadow.model_trace and not shown.model_trace  # the model answered the shadow only
    [pair] = [p for p in report.pairs if p.turn_id == shown.turn_id]
    assert pair.live_config == "offline" and pair.shadow_config.startswith("openai")
    assert pair.question == QUESTION and SHADOW_SAYS in pair.shadow.answer
    headline = rf"^\d+ live turns? beside (its shadow|their shadows): .*\b\d+ {pair.verdict}\b"
    assert code == 0 and re.search(headline, printed, re.M), printed
    assert re.search(r"^  live    offline: \d+ answered", printed, re.M), printed
    assert re.search(r"^  shadow  openai: .*\d+ answered", printed, re.M), printed
    if pair.verdict != "same":  # a pair that differs is shown with both answers
        assert f"{pair.verdict:13} {shown.turn_id}: {QUESTION}" in printed, printed
    # The person, the conversation and the decision record hold only the live answer.
    assert SHADOW_SAYS not in seen and "US$55,658 million" in seen
    async with pool.connection() as conn:
        count = await (
            await conn.execute(
                "SELECT count(*) FROM messages WHERE conversation_id = %s",
                (shown.conversation_id,),
            )
        ).fetchone()
        records = await (
            await conn.execute(
                "SELECT record::text FROM decision_records WHERE conversation_id = %s",
                (shown.conversation_id,),
            )
        ).fetchall()
    assert count == (2,) and len(records) == 1 and SHADOW_SAYS not in records[0][0]
    # The shadow ran on its own queue and saved nothing of the conversation's.
    assert described.task_queue == settings.shadow_task_queue
    assert saves == [] and summaries == [] and shadow.cache is None


async def test_a_shadow_that_fails_or_never_runs_leaves_the_live_turn_untouched(
    app_settings: Settings,
    turn_worker: TurnWorker,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    temporal_client: Client,
    fake: FakeOpenAI,
    brain: Brain,
) -> None:
    settings = shadowing(app_settings, fake)
    fake.step_faults["SynthesisOut"] = "500"  # the shadow's provider fails to write
    async with turn_worker(task_queue=settings.task_queue), client_for(settings) as http:
        # No shadow worker yet: the shadow waits on its queue, the live turn is done.
        waiting = TurnResult.model_validate(
            (await http.post("/v1/turns", json={"question": QUESTION})).json()
        )
        live_handle = temporal_client.get_workflow_handle(waiting.turn_id)
        await live_handle.result()
        shadow_handle = temporal_client.get_workflow_handle(f"shadow-{waiting.turn_id}")
        assert (await shadow_handle.describe()).status == WorkflowExecutionStatus.RUNNING
        async with registry.shadow_worker(temporal_client, settings, report_index, pool):
            failed = TurnResult.model_validate(
                (await http.post("/v1/turns", json={"question": QUESTION})).json()
            )
            live_stored, shadow = await recorded(pool, failed.turn_id)
            _, late = await recorded(pool, waiting.turn_id)  # picked up once a worker runs

    for turn in (waiting, failed):
        assert turn.status == "answered" and "US$55,658 million" in (turn.answer or ""), turn
        assert turn.step_failures == [] and turn.degraded == []
    assert live_stored.answer == failed.answer
    assert shadow.status == "fallback" and late.status == "fallback", (shadow, late)
    assert any(f.step == "llm_synthesize_answer" for f in shadow.step_failures)


async def test_a_turn_outside_the_sample_starts_no_shadow(
    app_settings: Settings,
    turn_worker: TurnWorker,
    pool: AsyncConnectionPool,
    temporal_client: Client,
    fake: FakeOpenAI,
) -> None:
    settings = shadowing(app_settings, fake, sample=0.0)
    async with turn_worker(task_queue=settings.task_queue), client_for(settings) as http:
        shown = TurnResult.model_validate(
            (await http.post("/v1/turns", json={"question": QUESTION})).json()
        )
        await temporal_client.get_workflow_handle(shown.turn_id).result()
    assert shown.status == "answered"
    with pytest.raises(RPCError):
        await temporal_client.get_workflow_handle(f"shadow-{shown.turn_id}").describe()
    async with pool.connection() as conn:
        row = await (
            await conn.execute("SELECT 1 FROM shadow_runs WHERE turn_id = %s", (shown.turn_id,))
        ).fetchone()
    assert row is None
