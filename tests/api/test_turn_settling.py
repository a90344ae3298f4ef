"""Every turn settles, through the API: reconciler, cancel, exclusive replies, idempotency
without a conversation id, and text PostgreSQL cannot store. Real dev server, worker,
PostgreSQL and Qdrant."""

import asyncio
import json

import httpx
import pytest
from temporalio.client import Client

from tests.conftest import unique

VAGUE = "Tell me about this company"


async def waiting_turn(client: httpx.AsyncClient, conversation: str) -> str:
    response = await client.post(
        "/v1/turns", json={"question": VAGUE, "conversation_id": conversation}
    )
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "needs_clarification"
    return str(response.json()["turn_id"])


async def test_turn_terminated_while_waiting_is_failed_and_the_next_turn_starts(
    served: httpx.AsyncClient, temporal_client: Client
) -> None:
    conversation = unique("c")
    turn_id = await waiting_turn(served, conversation)
    await temporal_client.get_workflow_handle(turn_id).terminate(reason="operator")
    nxt = await served.post(
        "/v1/turns",
        json={"question": "What was BHP's revenue in FY2024?", "conversation_id": conversation},
    )
    assert nxt.status_code == 200, nxt.text
    assert nxt.json()["status"] == "answered"
    old = (await served.get(f"/v1/turns/{turn_id}")).json()
    assert old["status"] == "failed"
    assert old["failure_reason"] == "the turn was terminated by an operator"
    messages = (await served.get(f"/v1/conversations/{conversation}/messages")).json()
    assert [m["status"] for m in messages] == ["failed", "failed", "answered", "answered"]


async def test_cancelled_turn_frees_its_conversation(served: httpx.AsyncClient) -> None:
    conversation = unique("c")
    turn_id = await waiting_turn(served, conversation)
    cancelled = await served.post(f"/v1/turns/{turn_id}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    again = await served.post(f"/v1/turns/{turn_id}/cancel")
    assert again.status_code == 409 and again.json()["error_type"] == "NotWaiting"
    reply = await served.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "BHP"})
    assert reply.status_code == 409 and reply.json()["error_type"] == "NotWaiting"
    nxt = await served.post(
        "/v1/turns",
        json={"question": "What was BHP's revenue in FY2024?", "conversation_id": conversation},
    )
    assert nxt.status_code == 200 and nxt.json()["status"] == "answered"


async def test_cancel_of_unknown_turn_is_404(api_client: httpx.AsyncClient) -> None:
    response = await api_client.post("/v1/turns/turn-nobody-1/cancel")
    assert response.status_code == 404 and response.json()["error_type"] == "NotFound"


async def test_answered_turn_cannot_be_cancelled(served: httpx.AsyncClient) -> None:
    done = await served.post("/v1/turns", json={"question": "What was BHP's revenue in FY2024?"})
    response = await served.post(f"/v1/turns/{done.json()['turn_id']}/cancel")
    assert response.status_code == 409 and response.json()["error_type"] == "NotWaiting"


async def test_two_concurrent_replies_give_one_200_and_one_409(
    served: httpx.AsyncClient,
) -> None:
    turn_id = await waiting_turn(served, unique("c"))
    first, second = await asyncio.gather(
        served.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "BHP FY2024"}),
        served.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "Rio Tinto FY2024"}),
    )
    codes = sorted([first.status_code, second.status_code])
    assert codes == [200, 409], (first.text, second.text)
    winner, loser = (first, second) if first.status_code == 200 else (second, first)
    assert loser.json()["error_type"] == "NotWaiting"
    company = "BHP" if "BHP" in winner.request.content.decode() else "RIO"
    assert {c["company"] for c in winner.json()["citations"]} == {company}


async def test_idempotency_key_without_conversation_id_deduplicates_per_user(
    served: httpx.AsyncClient,
) -> None:
    user = unique("u")
    body = {"question": "What was Fortescue's revenue in FY2024?", "user_id": user}
    headers = {"Idempotency-Key": unique("k")}
    first, second = await asyncio.gather(
        served.post("/v1/turns", json=body, headers=headers),
        served.post("/v1/turns", json=body, headers=headers),
    )
    assert first.status_code == second.status_code == 200, (first.text, second.text)
    assert first.json()["turn_id"] == second.json()["turn_id"]
    conversation = first.json()["conversation_id"]
    messages = (await served.get(f"/v1/conversations/{conversation}/messages")).json()
    assert len(messages) == 2
    other_user = await served.post(
        "/v1/turns", json={**body, "user_id": unique("u")}, headers=headers
    )
    assert other_user.json()["turn_id"] != first.json()["turn_id"]


def raw_json(body: dict[str, str]) -> bytes:
    """Encode with escapes (ensure_ascii), so a lone surrogate travels as `\\ud800`."""
    return json.dumps(body, ensure_ascii=True).encode("ascii")


@pytest.mark.parametrize(
    "body",
    [
        {"question": "BHP\x00 revenue"},
        {"question": "BHP revenue \ud800"},
        {"question": "BHP revenue", "user_id": "u\x00"},
        {"question": "BHP revenue", "user_id": "u\udfff"},
        {"question": "BHP revenue", "conversation_id": "c\x00"},
    ],
)
async def test_text_postgres_cannot_store_is_422_in_every_turn_field(
    served: httpx.AsyncClient, body: dict[str, str]
) -> None:
    conversation = unique("c")
    response = await served.post(
        "/v1/turns",
        content=raw_json({"conversation_id": conversation, **body}),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert response.json()["error_type"] == "InvalidInput"
    ok = await served.post(
        "/v1/turns",
        json={"question": "What was BHP's revenue in FY2024?", "conversation_id": conversation},
    )
    assert ok.status_code == 200 and ok.json()["status"] == "answered"


@pytest.mark.parametrize("reply", ["BHP\x00 FY2024", "BHP \ud800"])
async def test_reply_postgres_cannot_store_is_422_and_the_turn_still_waits(
    served: httpx.AsyncClient, reply: str
) -> None:
    turn_id = await waiting_turn(served, unique("c"))
    bad = await served.post(
        f"/v1/turns/{turn_id}/clarification",
        content=raw_json({"reply": reply}),
        headers={"content-type": "application/json"},
    )
    assert bad.status_code == 422 and bad.json()["error_type"] == "InvalidInput"
    assert (await served.get(f"/v1/turns/{turn_id}")).json()["status"] == "needs_clarification"
    good = await served.post(f"/v1/turns/{turn_id}/clarification", json={"reply": "BHP FY2024"})
    assert good.status_code == 200 and good.json()["status"] == "answered"


async def test_replayed_key_of_a_terminated_turn_answers_its_failed_status(
    served: httpx.AsyncClient, temporal_client: Client
) -> None:
    body = {"question": VAGUE, "conversation_id": unique("c")}
    headers = {"Idempotency-Key": unique("k")}
    first = await served.post("/v1/turns", json=body, headers=headers)
    assert first.json()["status"] == "needs_clarification"
    await temporal_client.get_workflow_handle(first.json()["turn_id"]).terminate()
    again = await served.post("/v1/turns", json=body, headers=headers)
    assert again.status_code == 200, again.text
    assert again.json()["turn_id"] == first.json()["turn_id"]
    assert again.json()["status"] == "failed"
