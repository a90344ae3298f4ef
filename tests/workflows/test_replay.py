"""Replay recorded ChatTurn histories: a non-deterministic workflow change fails here.

Checked once by hand: swapping the numeric check and the judge in
`RetrievalPasses._draft_and_check` made these replays fail with a nondeterminism error.
"""

import json
import os
from pathlib import Path

import httpx
import pytest
from temporalio.client import Client, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

import payloads
from settings import Settings
from workflows.chat_turn import ChatTurn
from workflows.ingest import IngestDocuments
from workflows.probes import RunGoldenProbes
from workflows.retention import PurgeDecisionRecords

HISTORIES_DIR = Path(__file__).parent / "histories"
HISTORIES = sorted(HISTORIES_DIR.glob("*.json"))
PROBE_HISTORIES = sorted((HISTORIES_DIR / "probes").glob("*.json"))
RETENTION_HISTORIES = sorted((HISTORIES_DIR / "retention").glob("*.json"))
INGEST_HISTORIES = sorted((HISTORIES_DIR / "ingest").glob("*.json"))


def test_replay_fixtures_exist_for_every_live_code_generation() -> None:
    """The code with every patch live (`patched_`: each path a patch changed; and `dep_`,
    recorded before), the code with every patch deprecated (`deprecated_`), and today's,
    with `context-for-model-v1` live (`context_`), and with `refuted-every-sentence-v1`
    and `numbers-unchecked-closed-v1` live on their paths (`gates_`: a refuted figure said
    twice, a numeric check that could not run), and with `relative-years-v1` live on its
    path (`years_`: a follow-up saying its year in words), and with
    `relevance-of-what-remains-v1` live on its path (`remains_`: the relevance control run
    again on a draft whose answering sentence was taken out), and with `compared-with-v1`
    live on its path (`compared_`: a follow-up comparing to another company), and with
    `scope-lowercase-names-v1` live on its path (`lowered_`: another company typed in
    lower case), and with `carried-company-set-v1` live on its path (`set_`: a follow-up of
    a ranking over every company), and with `claim-label-names-v1` live on its path
    (`named_`: a judge's label naming its company retargets that company's search), and
    with `conversation-clarification-cap-v1` live on its path (`capped_`: a turn with one
    clarifying question left settles instead of asking a second), and with
    `uncovered-company-retry-v1` live on its path (`uncovered_`: a company left with no
    evidence by a question with no figure is searched again), and with
    `confidence-share-v1` live on its path (`share_`: one of four asked figures verified
    is low). The
    generations before (`lean_`, `v2_`, `mem_`, `checked_`, `budget_`: each lacks a later
    patch's marker) were retired with the code their patches kept (docs/architecture.md,
    "Retiring workflow versions")."""
    names = [p.stem for p in HISTORIES]
    for prefix in (
        "dep_",
        "patched_",
        "deprecated_",
        "context_",
        "gates_",
        "years_",
        "remains_",
        "compared_",
        "lowered_",
        "set_",
        "named_",
        "capped_",
        "uncovered_",
        "share_",
    ):
        assert any(n.startswith(prefix) for n in names), (prefix, names)


def test_no_fixture_names_a_path_of_the_machine_that_recorded_it() -> None:
    """Stack traces are left out when recording (`record_histories._portable`)."""
    assert [p.name for p in HISTORIES if '"stackTrace"' in p.read_text()] == []


@pytest.mark.parametrize("path", HISTORIES, ids=lambda p: p.stem)
async def test_recorded_history_replays_without_nondeterminism(path: Path) -> None:
    replayer = Replayer(workflows=[ChatTurn], data_converter=pydantic_data_converter)
    history = WorkflowHistory.from_json(path.stem, path.read_text())
    await replayer.replay_workflow(history)


def test_probe_run_fixtures_exist_from_before_the_shared_start_options() -> None:
    assert "before_shared_start_options" in [p.stem for p in PROBE_HISTORIES]


@pytest.mark.parametrize("path", PROBE_HISTORIES, ids=lambda p: p.stem)
async def test_recorded_probe_run_replays_without_nondeterminism(path: Path) -> None:
    """A RunGoldenProbes run recorded before its turns took ChatTurn's shared start
    options (`probe-turns-start-as-api-turns`) replays on today's code."""
    replayer = Replayer(workflows=[RunGoldenProbes], data_converter=pydantic_data_converter)
    await replayer.replay_workflow(WorkflowHistory.from_json(path.stem, path.read_text()))


def test_retention_run_fixtures_exist_from_before_conversation_expiry() -> None:
    assert {"before_conversation_expiry", "conversation_expiry"} <= {
        p.stem for p in RETENTION_HISTORIES
    }


@pytest.mark.parametrize("path", RETENTION_HISTORIES, ids=lambda p: p.stem)
async def test_recorded_retention_run_replays_without_nondeterminism(path: Path) -> None:
    """A PurgeDecisionRecords run asked to expire idle conversations, recorded before the
    step existed (`expire-conversations`: it must not run on replay) and after, replays
    on today's code. Checked once by hand: without the patch the first one fails."""
    replayer = Replayer(workflows=[PurgeDecisionRecords], data_converter=pydantic_data_converter)
    await replayer.replay_workflow(WorkflowHistory.from_json(path.stem, path.read_text()))


def test_ingest_run_fixtures_exist_from_before_failed_files_were_reported() -> None:
    assert {"before_failed_file_reported", "failed_file_reported"} <= {
        p.stem for p in INGEST_HISTORIES
    }


@pytest.mark.parametrize("path", INGEST_HISTORIES, ids=lambda p: p.stem)
async def test_recorded_ingest_run_replays_without_nondeterminism(path: Path) -> None:
    """An IngestDocuments run whose file's step failed after its retries, recorded before
    `ingest-failed-file-reported-v1` (the run failed; on replay it must fail again, not
    go on) and after (the file reported failed), replays on today's code. Checked once by
    hand: without the patch check the first one fails."""
    replayer = Replayer(workflows=[IngestDocuments], data_converter=pydantic_data_converter)
    await replayer.replay_workflow(WorkflowHistory.from_json(path.stem, path.read_text()))


async def test_a_turn_read_through_its_event_stream_replays(
    served: httpx.AsyncClient, app_settings: Settings
) -> None:
    """A history with the stream's poll updates in it (a watcher subscribed while the turn
    ran, paused for a clarification and settled) replays without nondeterminism."""
    started = await served.post(
        "/v1/turns",
        json={"question": "What was their revenue?"},
        headers={"Prefer": "respond-async"},
    )
    turn_id = started.json()["turn_id"]
    first = (await served.get(f"/v1/turns/{turn_id}/events")).text
    assert "needs_clarification" in first
    last_id = [line for line in first.splitlines() if line.startswith("id: ")][-1][4:]
    await served.post(
        f"/v1/turns/{turn_id}/clarification",
        json={"reply": "BHP in FY2024"},
        headers={"Prefer": "respond-async"},
    )
    rest = (await served.get(f"/v1/turns/{turn_id}/events?after={last_id}")).text
    assert '"status":"answered"' in rest.replace(" ", "")

    client = await Client.connect(
        app_settings.effective_temporal_address,
        namespace=app_settings.temporal_namespace,
        data_converter=payloads.data_converter(app_settings),
    )
    history = await client.get_workflow_handle(turn_id).fetch_history()
    if os.environ.get("TURNSTILE_RECORD_HISTORIES"):  # by hand: keep it as a fixture
        text = json.dumps(json.loads(history.to_json()), indent=1)
        (HISTORIES_DIR / "deprecated_stream_clarified.json").write_text(text + "\n")
    updates = [
        e
        for e in history.events
        if e.HasField("workflow_execution_update_accepted_event_attributes")
    ]
    assert updates, "the watcher's polls are in the history"
    replayer = Replayer(workflows=[ChatTurn], data_converter=payloads.data_converter(app_settings))
    await replayer.replay_workflow(history)
