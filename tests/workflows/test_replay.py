"""Replay recorded ChatTurn histories: a non-deterministic workflow change fails here.

Checked once by hand: swapping the numeric check and the judge in
`ChatTurn._draft_and_check` made these replays fail with a nondeterminism error.
"""

from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from workflows.chat_turn import ChatTurn

HISTORIES = sorted((Path(__file__).parent / "histories").glob("*.json"))


def test_replay_fixtures_exist_from_before_and_after_the_lean_turn() -> None:
    names = [p.stem for p in HISTORIES]
    assert len([n for n in names if not n.startswith("lean_")]) >= 4, names
    assert len([n for n in names if n.startswith("lean_")]) >= 4, names


@pytest.mark.parametrize("path", HISTORIES, ids=lambda p: p.stem)
async def test_recorded_history_replays_without_nondeterminism(path: Path) -> None:
    replayer = Replayer(workflows=[ChatTurn], data_converter=pydantic_data_converter)
    history = WorkflowHistory.from_json(path.stem, path.read_text())
    await replayer.replay_workflow(history)
