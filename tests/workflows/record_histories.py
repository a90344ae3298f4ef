"""Record ChatTurn histories as JSON replay fixtures (run by hand after a deliberate change).

    .venv/bin/python -m pytest tests/workflows/record_histories.py -m record_histories

Only run it when a workflow change is MEANT to change histories (and then guard running
workflows with `workflow.patched()`); the replay test exists to catch the other kind.
"""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from activities.contracts import Draft
from tests.conftest import Turns, TurnWorker, outcome
from tests.workflows.scripted_engine import ScriptedEngine

HISTORIES = Path(__file__).parent / "histories"
PREFIX = "v2_"
"""Histories recorded by the current code get this prefix. The others stay, so replay
keeps proving old turns still run: unprefixed ones were recorded before the lean turn,
`lean_` ones by the lean turn before the `answers-v2` patch."""


async def _save(turns: Turns, name: str, workflow_id: str) -> None:
    history = await turns.client.get_workflow_handle(workflow_id).fetch_history()
    HISTORIES.mkdir(exist_ok=True)
    text = json.dumps(json.loads(history.to_json()), indent=1)
    (HISTORIES / f"{PREFIX}{name}.json").write_text(text + "\n")


@pytest.mark.record_histories
async def test_record_histories(turn_worker: TurnWorker, turns_on: Callable[[str], Turns]) -> None:
    async with turn_worker() as tq:
        t = turns_on(tq)
        answered = await t.ask("Compare BHP and Fortescue revenue in FY2024")
        await _save(t, "answered_comparison", answered.turn_id)
        refused = await t.ask("Should I buy Rio Tinto shares?")
        await _save(t, "refused_by_rule", refused.turn_id)
        handle = await t.start("What was this company's net debt in FY2024?")
        waiting = await outcome(handle, 0)
        replied = await t.reply(handle, waiting.clarification_round, "South32")
        await _save(t, "clarified", replied.turn_id)
    bad = Draft(answer="BHP revenue was US$1 million [1]. BHP EBITDA was US$2 million [1]. "
                "BHP profit was US$3 million [1]. BHP net debt was US$4 million [1].")  # fmt: skip
    async with turn_worker(ScriptedEngine().always("synthesize", bad)) as tq:
        t = turns_on(tq)
        retried = await t.ask("Tell me about BHP in FY2024")
        await _save(t, "retried_twice", retried.turn_id)
