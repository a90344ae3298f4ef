"""What operators read in the Temporal UI's workflow list: every workflow a request starts
says what it is for in its static summary (and details), on the real dev server."""

import asyncio
import base64
import json

import httpx
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.contrib.workflow_streams import WorkflowStreamClient

from settings import Settings
from tests.conftest import unique
from workflows.contracts import TurnEvent
from workflows.progress import EVENTS_TOPIC


async def summaries(
    client: Client, task_queue: str, kinds: set[str], each: int = 1
) -> dict[str, list[str]]:
    """Each workflow type's static summaries on `task_queue`, once every type in `kinds`
    is listed `each` times (visibility lags the start by a moment)."""
    found: dict[str, list[str]] = {}
    for _ in range(100):
        found = {}
        async for listed in client.list_workflows(f'TaskQueue = "{task_queue}"'):
            described = await client.get_workflow_handle(listed.id, run_id=listed.run_id).describe()
            found.setdefault(listed.workflow_type, []).append(
                await described.static_summary() or ""
            )
        if all(len(found.get(kind, [])) >= each for kind in kinds):
            return found
        await asyncio.sleep(0.2)
    return found


async def test_each_workflow_a_request_starts_is_named_for_operators(
    served: httpx.AsyncClient, app_settings: Settings, temporal_client: Client
) -> None:
    asked = await served.post("/v1/turns", json={"question": "What was BHP's revenue in FY2024?"})
    turn_id = asked.json()["turn_id"]
    assert (await served.get(f"/v1/turns/{turn_id}/sources")).status_code == 200
    found = await served.get("/v1/search", params={"q": "Fortescue net debt", "company": "FMG"})
    assert found.status_code == 200, found.text
    user = unique("u")
    assert (await served.delete(f"/v1/users/{user}/memory")).status_code in (200, 202)

    named = await summaries(
        temporal_client,
        app_settings.task_queue,
        {"ChatTurn", "LoadPassages", "SearchReports", "ForgetUser"},
    )
    assert named["ChatTurn"] == ["What was BHP's revenue in FY2024?"]
    assert named["LoadPassages"] == [f"passages cited by {turn_id}"]
    assert named["SearchReports"] == ["search: Fortescue net debt (FMG)"]
    assert named["ForgetUser"] == [f"forget user {user}: facts, summaries, personal values, cache"]
    # Firing: nothing on the queue goes unnamed.
    assert all(all(summary for summary in listed) for listed in named.values()), named


async def test_a_turns_progress_reads_as_json_through_the_codec_not_base64(
    served: httpx.AsyncClient, temporal_client: Client
) -> None:
    """A watched turn's history holds the progress stream's poll results, each item base64
    of a serialized payload (the library's wire form). Decoded through the codec endpoint
    the Temporal UI uses, each item is the TurnEvent itself; other payloads are unchanged.

    The turn asks back and stays open, and is read through its stream as a watcher of a
    running turn reads it (the poll update): its history then holds a poll result however
    fast or slow the machine is (a turn that settled before its watcher came is read by
    query, which writes nothing)."""
    asked = await served.post("/v1/turns", json={"question": "What was their revenue?"})
    assert asked.json()["status"] == "needs_clarification", asked.text
    turn_id = asked.json()["turn_id"]
    stream = WorkflowStreamClient.create(temporal_client, turn_id)
    async for _ in stream.subscribe(EVENTS_TOPIC, 0, result_type=TurnEvent):
        break  # one poll answered is one update completed in the history
    history = temporal_client.get_workflow_handle(turn_id).fetch_history_events()
    completed = [
        e.workflow_execution_update_completed_event_attributes.outcome.success.payloads[0]
        async for e in history
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED
        and e.workflow_execution_update_completed_event_attributes.meta.update_id
        and e.workflow_execution_update_completed_event_attributes.outcome.HasField("success")
    ]
    polls = [p for p in completed if b'"next_offset"' in p.data]
    others = [p for p in completed if b'"next_offset"' not in p.data]
    assert polls, "the turn was read through its stream"
    assert others, "the turn's own update (its start, answered with the turn's state)"
    wire = json.loads(polls[0].data)["items"][0]["data"]
    assert isinstance(wire, str) and "Reading" not in wire  # firing: base64 as Temporal holds it
    body = {
        "payloads": [
            {
                "metadata": {k: base64.b64encode(v).decode() for k, v in p.metadata.items()},
                "data": base64.b64encode(p.data).decode(),
            }
            for p in polls[:1] + others[:1]
        ]
    }
    decoded = await served.post("/codec/decode", json=body)
    assert decoded.status_code == 200, decoded.text
    poll, other = (json.loads(base64.b64decode(p["data"])) for p in decoded.json()["payloads"])
    event = poll["items"][0]["data"]
    assert event["kind"] in ("step", "decision") and event["text"][0].isupper(), event
    assert other == json.loads(others[0].data)  # any other payload: unchanged
    await served.post(f"/v1/turns/{turn_id}/cancel")
