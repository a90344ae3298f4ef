"""The turns API over the real dev server, worker, PostgreSQL and Qdrant."""

import asyncio
import json
import re

import httpx
import pytest

from settings import Settings
from tests.conftest import TurnWorker, client_for, unique


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"question": "   "}, "question"),
        ({"question": "x" * 4001}, "4000"),
        ({"question": "BHP revenue", "conversation_id": "bad id!"}, "conversation_id"),
        ({"question": "BHP revenue", "surprise": 1}, "surprise"),
        ({}, "question"),
    ],
)
async def test_bad_turn_request_is_422_with_one_readable_detail(
    api_client: httpx.AsyncClient, body: dict[str, object], fragment: str
) -> None:
    response = await api_client.post("/v1/turns", json=body)
    assert response.status_code == 422
    payload = response.json()
    assert payload["error_type"] == "InvalidInput"
    assert isinstance(payload["detail"], str) and fragment in payload["detail"]


async def test_malformed_json_is_422_and_writes_nothing(api_client: httpx.AsyncClient) -> None:
    conversation = unique("c")
    response = await api_client.post(
        "/v1/turns",
        content=b'{"question": "BHP revenue", "conversation_id": "' + conversation.encode(),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422
    assert response.json()["error_type"] == "InvalidInput"
    missing = await api_client.get(f"/v1/conversations/{conversation}/messages")
    assert missing.status_code == 404


async def test_turn_is_answered_and_then_readable_by_its_id(served: httpx.AsyncClient) -> None:
    conversation = unique("c")
    response = await served.post(
        "/v1/turns",
        json={"question": "What was BHP's revenue in FY2024?", "conversation_id": conversation},
    )
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["turn_id"] == f"turn-{conversation}-1"
    assert result["status"] == "answered"
    assert result["citations"][0] == {
        **result["citations"][0],
        "company": "BHP",
        "fiscal_year": 2024,
    }
    again = await served.get(f"/v1/turns/{result['turn_id']}")
    assert again.status_code == 200 and again.json()["answer"] == result["answer"]
    messages = (await served.get(f"/v1/conversations/{conversation}/messages")).json()
    assert [m["role"] for m in messages] == ["user", "assistant"]
    second = await served.post(
        "/v1/turns", json={"question": "And its net debt?", "conversation_id": conversation}
    )
    assert second.json()["turn_id"] == f"turn-{conversation}-2"
    assert second.json()["carried"]["company"] == "BHP"


async def test_new_question_while_a_turn_waits_is_409_naming_it(
    served: httpx.AsyncClient,
) -> None:
    conversation = unique("c")
    first = await served.post(
        "/v1/turns",
        json={"question": "Tell me about this company", "conversation_id": conversation},
    )
    assert first.status_code == 200 and first.json()["status"] == "needs_clarification"
    turn_id = first.json()["turn_id"]
    clash = await served.post(
        "/v1/turns", json={"question": "BHP revenue FY2024", "conversation_id": conversation}
    )
    assert clash.status_code == 409
    assert clash.json()["error_type"] == "TurnInProgress" and clash.json()["turn_id"] == turn_id
    answered = await served.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "Fortescue"})
    assert answered.status_code == 200 and answered.json()["status"] == "answered"
    late = await served.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "BHP"})
    assert late.status_code == 409 and late.json()["error_type"] == "NotWaiting"


async def test_reply_to_unknown_turn_is_404_and_empty_reply_is_422(
    api_client: httpx.AsyncClient,
) -> None:
    unknown = await api_client.post("/v1/turns/turn-nope-1/clarification", json={"reply": "BHP"})
    assert unknown.status_code == 404 and unknown.json()["error_type"] == "NotFound"
    empty = await api_client.post("/v1/turns/turn-nope-1/clarification", json={"reply": " "})
    assert empty.status_code == 422
    assert (await api_client.get("/v1/turns/turn-nope-1")).status_code == 404


async def test_a_conversation_asks_at_most_its_cap_of_clarifying_questions(
    served: httpx.AsyncClient,
) -> None:
    """Issue 45 item 10: the default cap (4) is two turns' rounds; the third vague turn of
    the conversation settles at once with a fixed text instead of asking again, and a
    clear question in it is still answered."""
    conversation = unique("c")
    for turn in range(2):
        first = await served.post(
            "/v1/turns",
            json={"question": "Tell me about this company", "conversation_id": conversation},
        )
        assert first.json()["status"] == "needs_clarification", (turn, first.json())
        turn_id = first.json()["turn_id"]
        second = await served.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "not sure"})
        assert second.json()["status"] == "needs_clarification", second.json()
        done = await served.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "whichever"})
        assert done.json()["fallback_reason"] == "clarification_exhausted", done.json()
    third = await served.post(
        "/v1/turns",
        json={"question": "Tell me about that company", "conversation_id": conversation},
    )
    assert third.status_code == 200
    assert third.json()["status"] == "fallback", third.json()
    assert third.json()["fallback_reason"] == "conversation_clarifications_spent"
    assert "naming the company and the year" in third.json()["answer"]
    clear = await served.post(
        "/v1/turns",
        json={"question": "What was BHP's revenue in FY2024?", "conversation_id": conversation},
    )
    assert clear.json()["status"] == "answered" and "55,658" in clear.json()["answer"]
    # Another conversation is not capped by this one's questions.
    fresh = await served.post("/v1/turns", json={"question": "Tell me about this company"})
    assert fresh.json()["status"] == "needs_clarification"
    await served.post(f"/v1/turns/{fresh.json()['turn_id']}/cancel", json={})


async def test_idempotency_key_replays_and_rejects_a_different_body(
    served: httpx.AsyncClient,
) -> None:
    conversation = unique("c")
    body = {"question": "What was Rio Tinto's revenue in FY2024?", "conversation_id": conversation}
    headers = {"Idempotency-Key": "k-1"}
    first = await served.post("/v1/turns", json=body, headers=headers)
    replay = await served.post("/v1/turns", json=body, headers=headers)
    assert first.status_code == replay.status_code == 200
    assert replay.json()["turn_id"] == first.json()["turn_id"]
    assert replay.json()["answer"] == first.json()["answer"]
    other = await served.post(
        "/v1/turns", json={**body, "question": "What was BHP's revenue?"}, headers=headers
    )
    assert other.status_code == 422
    messages = (await served.get(f"/v1/conversations/{conversation}/messages")).json()
    assert len(messages) == 2


async def test_turn_without_a_worker_is_202_and_completes_when_one_starts(
    app_settings: Settings, turn_worker: TurnWorker
) -> None:
    """Also the stall guard quiet: the wait outlasts the short-call bound, so the API asks
    Temporal's health, and a server that answers it is waited on (202), not a 503."""
    settings = app_settings.model_copy(
        update={"request_timeout_seconds": 2.5, "temporal_rpc_timeout_seconds": 0.5}
    )
    async with client_for(settings) as client:
        response = await client.post(
            "/v1/turns", json={"question": "What was South32's revenue in FY2025?"}
        )
        assert response.status_code == 202
        assert response.headers["Location"] == f"/v1/turns/{response.json()['turn_id']}"
        assert response.json()["status"] == "running"
        async with turn_worker(task_queue=settings.task_queue):
            for _ in range(120):
                polled = (await client.get(response.headers["Location"])).json()
                if polled["status"] != "running":
                    break
                await asyncio.sleep(0.25)
    assert polled["status"] == "answered" and "5,780" in polled["answer"]


async def test_clarification_reply_sent_while_no_worker_runs_is_not_lost(
    app_settings: Settings, turn_worker: TurnWorker
) -> None:
    settings = app_settings.model_copy(update={"request_timeout_seconds": 1.0})
    async with client_for(settings) as client:
        async with turn_worker(task_queue=settings.task_queue):
            waiting = await client.post(
                "/v1/turns", json={"question": "What was this company's net debt in FY2024?"}
            )
        assert waiting.json()["status"] == "needs_clarification"
        turn_id = waiting.json()["turn_id"]
        sent = await client.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "Rio"})
        assert sent.status_code == 202
        async with turn_worker(task_queue=settings.task_queue):
            for _ in range(120):
                polled = (await client.get(f"/v1/turns/{turn_id}")).json()
                if polled["status"] not in ("running", "needs_clarification"):
                    break
                await asyncio.sleep(0.25)
    assert polled["status"] == "answered" and "5,491" in polled["answer"]


def _sse(text: str) -> list[dict[str, str]]:
    """The events of an SSE body, each as its fields (comment lines dropped)."""
    events = []
    for block in text.strip().split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = fields.get(name, "") + value.removeprefix(" ")
        if fields:
            events.append(fields)
    return events


async def test_progress_stream_sends_steps_then_one_outcome_with_the_answer(
    served: httpx.AsyncClient,
) -> None:
    started = await served.post(
        "/v1/turns", json={"question": "What was BHP's net debt in FY2025?"}
    )
    turn_id = started.json()["turn_id"]
    response = await served.get(f"/v1/turns/{turn_id}/events")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = _sse(response.text)
    kinds = [e["event"] for e in events]
    assert kinds[-1] == "outcome" and kinds.count("outcome") == 1
    steps = [json.loads(e["data"]) for e in events if e["event"] == "step"]
    # Offsets in the turn's stream, in order from 0: the ids a client resumes from.
    assert [int(e["id"]) for e in events if e["event"] == "step"] == list(range(len(steps)))
    texts = [s["text"] for s in steps]
    assert "Reading the question" in texts and "Searching BHP Group's reports for FY2025" in texts
    assert "Checking every figure against its source" in texts
    assert "The question needs the reports: searching them" in texts
    # The operator's line rides along as the decision's detail.
    assert any((s.get("detail") or "").startswith("route: needs_retrieval") for s in steps)
    assert steps[-1]["kind"] == "settled" and steps[-1]["status"] == "answered"
    # Plain English: no Python reprs of dicts or lists.
    assert not [t for t in texts if "{" in t or "[" in t or "True" in t], texts
    assert "12.92" not in response.text.split("event: outcome")[0], "answer only in outcome"
    outcome = json.loads(events[-1]["data"])
    assert outcome["status"] == "answered" and "12.92" in outcome["answer"]

    # Resuming after an id sends only what came after it, then the outcome again.
    last = len(steps) - 1
    resumed = _sse(
        (
            await served.get(
                f"/v1/turns/{turn_id}/events", headers={"Last-Event-ID": str(last - 2)}
            )
        ).text
    )
    assert [int(e["id"]) for e in resumed if e["event"] == "step"] == [last - 1, last]
    assert resumed[-1]["event"] == "outcome"
    by_query = _sse((await served.get(f"/v1/turns/{turn_id}/events?after={last}")).text)
    assert [e["event"] for e in by_query] == ["outcome"]


INTERNAL_WORDS = re.compile(
    r"\b[a-z]+_[a-z_]+\b"  # a step's, route's or reason's name: needs_clarification
    r"|answer cache|slots differ|\broute:|DEGRADED|failed open|\(closed\)|\bpass \d"
    r"|\bquality (?:pass|FAIL)|\bunsupported\b|\bgaps?\b|offered to the model|\bhint\b"
    r"|\b(?:BHP|RIO|FMG|S32|NST)\b(?! Group)"  # a ticker where a name belongs
)
"""What a person must never read in a progress line (the operator's trail has it)."""


def test_the_internal_words_check_fires_on_the_old_wording_and_not_on_plain_words() -> None:
    old = [
        "answer cache: miss slots differ (fiscal years) at 0.987",
        "route: needs_clarification (no company named)",
        "an earlier answer was offered to the model as a hint",
        "pass 1: 8 new, 3 kept; found BHP; nothing for FMG",
        "llm_grade_answer failed open and was counted: timeout",
        "Finished: needs_clarification",
    ]
    assert all(INTERNAL_WORDS.search(line) for line in old)
    plain = [
        "No earlier checked answer fits this question; answering afresh",
        "The question needs one more detail before it can be answered",
        "Found relevant passages for BHP Group and Fortescue; none for Northern Star",
        "Finished: not in the reports",
    ]
    assert not [line for line in plain if INTERNAL_WORDS.search(line)]


async def test_progress_lines_are_plain_words_and_keep_the_operators_line_as_detail(
    app_settings: Settings, turn_worker: TurnWorker
) -> None:
    """The cache's miss, the route, the checks and a clarification, as a person reads
    them: no step or route name, no cache reason, no ticker; the operator's line (the
    Temporal UI's) is each decision's `detail`."""
    cached = app_settings.model_copy(update={"answer_cache": True})
    events: list[dict[str, str]] = []
    async with turn_worker(task_queue=cached.task_queue), client_for(cached) as served:
        first = "What was Fortescue's underlying EBITDA in FY2025?"
        asked = await served.post("/v1/turns", json={"question": first})
        events += _sse((await served.get(f"/v1/turns/{asked.json()['turn_id']}/events")).text)
        # The same words for another year: similar enough for the cache, its slots differ.
        again = await served.post("/v1/turns", json={"question": first.replace("5", "4")})
        events += _sse((await served.get(f"/v1/turns/{again.json()['turn_id']}/events")).text)
        vague = await served.post("/v1/turns", json={"question": "What was their revenue?"})
        turn_id = vague.json()["turn_id"]
        await served.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "Fortescue FY2024"})
        events += _sse((await served.get(f"/v1/turns/{turn_id}/events")).text)

    steps = [json.loads(e["data"]) for e in events if e["event"] == "step"]
    leaked = [s["text"] for s in steps if INTERNAL_WORDS.search(s["text"])]
    assert leaked == [], leaked
    details = [s["detail"] for s in steps if s["kind"] == "decision"]
    assert all(details), steps
    assert any(d.startswith("answer cache: miss") and "slots differ" in d for d in details), details
    assert any(d.startswith("route: needs_clarification") for d in details), details
    texts = {s["text"] for s in steps}
    assert "No earlier checked answer fits this question; answering afresh" in texts
    assert "The question needs one more detail before it can be answered" in texts
    assert "Your reply was added to the question" in texts
    assert "Finished: answered" in texts


async def test_respond_async_answers_202_at_once_with_the_turn_to_follow(
    served: httpx.AsyncClient,
) -> None:
    started = await served.post(
        "/v1/turns",
        json={"question": "What was Rio Tinto's revenue in FY2024?"},
        headers={"Prefer": "respond-async"},
    )
    assert started.status_code == 202, started.text
    body = started.json()
    assert body["status"] == "running" and body["answer"] is None
    turn_id = body["turn_id"]
    assert started.headers["Location"] == f"/v1/turns/{turn_id}"
    assert started.headers["Preference-Applied"] == "respond-async"
    assert f"/v1/turns/{turn_id}/events" in started.headers["Link"]
    # Read the stream as it arrives: the steps, in order, then the outcome.
    kinds = []
    async with served.stream("GET", f"/v1/turns/{turn_id}/events") as stream:
        async for line in stream.aiter_lines():
            if line.startswith("data: "):
                kinds.append(json.loads(line.removeprefix("data: ")).get("kind", "outcome"))
    assert kinds[0] == "step" and kinds[-2:] == ["settled", "outcome"], kinds
    done = (await served.get(f"/v1/turns/{turn_id}")).json()
    assert done["status"] == "answered"


async def test_wait_false_is_respond_async_and_a_clarification_reply_can_be_async_too(
    served: httpx.AsyncClient,
) -> None:
    started = await served.post(
        "/v1/turns?wait=false", json={"question": "What was their revenue?"}
    )
    assert started.status_code == 202
    turn_id = started.json()["turn_id"]
    events = _sse((await served.get(f"/v1/turns/{turn_id}/events")).text)
    waiting = json.loads(events[-1]["data"])
    assert waiting["status"] == "needs_clarification" and waiting["clarifying_question"]
    marker = [json.loads(e["data"]) for e in events if e["event"] == "step"][-1]
    assert marker["kind"] == "waiting" and marker["round"] == 1
    last_id = [e["id"] for e in events if e["event"] == "step"][-1]
    replied = await served.post(
        f"/v1/turns/{turn_id}/clarification",
        json={"reply": "BHP in FY2024"},
        headers={"Prefer": "respond-async"},
    )
    assert replied.status_code == 202 and replied.json()["status"] == "running"
    rest = _sse(
        (await served.get(f"/v1/turns/{turn_id}/events", headers={"Last-Event-ID": last_id})).text
    )
    assert all(int(e["id"]) > int(last_id) for e in rest if e["event"] == "step")
    assert json.loads(rest[-1]["data"])["status"] == "answered"


async def test_progress_stream_rejects_a_last_event_id_it_never_sent(
    api_client: httpx.AsyncClient,
) -> None:
    started = await api_client.post(
        "/v1/turns",
        json={"question": "What was BHP's revenue in FY2024?"},
        headers={"Prefer": "respond-async"},
    )
    turn_id = started.json()["turn_id"]
    response = await api_client.get(
        f"/v1/turns/{turn_id}/events", headers={"Last-Event-ID": "not-an-id"}
    )
    assert response.status_code == 422 and response.json()["error_type"] == "InvalidInput"


async def test_progress_stream_of_unknown_turn_is_404(api_client: httpx.AsyncClient) -> None:
    response = await api_client.get("/v1/turns/turn-nobody-9/events")
    assert response.status_code == 404 and response.json()["error_type"] == "NotFound"


async def test_sources_give_each_cited_passage_in_full_with_the_cited_row(
    served: httpx.AsyncClient,
) -> None:
    turn = (
        await served.post("/v1/turns", json={"question": "What was BHP's revenue in FY2024?"})
    ).json()
    response = await served.get(f"/v1/turns/{turn['turn_id']}/sources")
    assert response.status_code == 200, response.text
    passages = response.json()
    assert [p["n"] for p in passages] == [c["n"] for c in turn["citations"]]
    first = passages[0]
    assert first["company"] == "BHP" and first["fiscal_year"] == 2024
    lines = first["text"].splitlines()
    assert len(first["text"]) > len(turn["citations"][0]["preview"]) - 1
    assert [lines[i] for i in first["cited_lines"]] == ["| Revenue | 55,658 |"]
    # A refused turn cites nothing; an unknown turn is 404.
    refused = (await served.post("/v1/turns", json={"question": "Should I buy BHP shares?"})).json()
    assert (await served.get(f"/v1/turns/{refused['turn_id']}/sources")).json() == []
    assert (await served.get("/v1/turns/turn-nobody-1/sources")).status_code == 404
