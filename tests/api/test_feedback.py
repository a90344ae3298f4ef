"""Readers' feedback on turns and the list of a user's conversations, over the real API,
PostgreSQL and Temporal: a rating is stored with its turn (the comment redacted), counted
in the metrics, shown beside the decision record and listed; another tenant's turn is
404, a turn still running 409, a rating outside the form 422."""

import httpx
import pytest
from prometheus_client import REGISTRY
from psycopg_pool import AsyncConnectionPool

from domain.checks.pii import TOKEN
from settings import Settings
from tests.api.conftest import A, B
from tests.conftest import client_for, unique


def counted(rating: str) -> float:
    return REGISTRY.get_sample_value("turnstile_feedback_total", {"rating": rating}) or 0.0


async def ask(client: httpx.AsyncClient, question: str, **body: str) -> dict[str, object]:
    response = await client.post("/v1/turns", json={"question": question, **body}, headers=A)
    assert response.status_code == 200, response.text
    turn: dict[str, object] = response.json()
    return turn


async def test_a_rating_is_stored_redacted_counted_listed_and_shown_with_the_record(
    keyed: httpx.AsyncClient, pool: AsyncConnectionPool
) -> None:
    user = unique("reader")
    turn = await ask(keyed, "What was BHP's revenue in FY2024?", user_id=user)
    turn_id = str(turn["turn_id"])
    before = counted("wrong_figure")

    given = await keyed.post(
        f"/v1/turns/{turn_id}/feedback",
        json={"rating": "wrong_figure", "comment": "Wrong year; call me on 0412 345 678"},
        headers=A,
    )

    assert given.status_code == 201, given.text
    assert given.json()["rating"] == "wrong_figure"
    assert "0412 345 678" in given.json()["comment"]  # the writer reads their own text
    async with pool.connection() as conn:
        [(stored,)] = await (
            await conn.execute("SELECT comment FROM feedback WHERE turn_id = %s", (turn_id,))
        ).fetchall()
    assert "0412" not in stored and TOKEN.search(stored), stored
    assert counted("wrong_figure") == before + 1
    listed = await keyed.get("/v1/feedback", params={"rating": "wrong_figure"}, headers=A)
    assert [i["turn_id"] for i in listed.json()["items"]][:1] == [turn_id]
    assert listed.json()["items"][0]["question"] == "What was BHP's revenue in FY2024?"
    record = (await keyed.get(f"/v1/turns/{turn_id}/audit", headers=A)).json()
    assert [f["rating"] for f in record["feedback"]] == ["wrong_figure"]
    assert record["record"]["status"] == "answered"  # the record itself is unchanged

    again = await keyed.post(f"/v1/turns/{turn_id}/feedback", json={"rating": "helpful"}, headers=A)
    assert again.status_code == 201
    record = (await keyed.get(f"/v1/turns/{turn_id}/audit", headers=A)).json()
    assert [f["rating"] for f in record["feedback"]] == ["wrong_figure", "helpful"]
    helpful = (await keyed.get("/v1/feedback", params={"rating": "helpful"}, headers=A)).json()
    assert all(i["rating"] == "helpful" for i in helpful["items"])


async def test_another_tenants_turn_is_404_and_its_feedback_is_not_listed(
    keyed: httpx.AsyncClient,
) -> None:
    turn = await ask(keyed, "What was Rio Tinto's revenue in FY2024?")
    turn_id = str(turn["turn_id"])
    assert (
        await keyed.post(f"/v1/turns/{turn_id}/feedback", json={"rating": "other"}, headers=A)
    ).status_code == 201

    refused = await keyed.post(
        f"/v1/turns/{turn_id}/feedback", json={"rating": "helpful"}, headers=B
    )

    assert refused.status_code == 404 and refused.json()["error_type"] == "NotFound"
    others = (await keyed.get("/v1/feedback", headers=B)).json()["items"]
    assert turn_id not in [i["turn_id"] for i in others]
    unknown = await keyed.post(
        "/v1/turns/turn-nope-1/feedback", json={"rating": "helpful"}, headers=A
    )
    assert unknown.status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {"rating": "great"},
        {},
        {"rating": "helpful", "comment": "x" * 2001},
        {"rating": "other", "comment": "a NUL \x00 PostgreSQL cannot store"},
    ],
)
async def test_a_rating_outside_the_form_is_422_and_nothing_is_stored(
    keyed: httpx.AsyncClient, pool: AsyncConnectionPool, body: dict[str, str]
) -> None:
    turn_id = str((await ask(keyed, "What was South32's revenue in FY2024?"))["turn_id"])

    response = await keyed.post(f"/v1/turns/{turn_id}/feedback", json=body, headers=A)

    assert response.status_code == 422 and response.json()["error_type"] == "InvalidInput"
    async with pool.connection() as conn:
        rows = await (
            await conn.execute("SELECT 1 FROM feedback WHERE turn_id = %s", (turn_id,))
        ).fetchall()
    assert rows == []


async def test_a_turn_still_running_is_409_until_it_answers(keyed_settings: Settings) -> None:
    async with client_for(keyed_settings) as client:  # no worker: the turn stays running
        started = await client.post(
            "/v1/turns",
            json={"question": "What was BHP's revenue in FY2024?"},
            headers={**A, "Prefer": "respond-async"},
        )
        assert started.status_code == 202, started.text
        turn_id = started.json()["turn_id"]

        response = await client.post(
            f"/v1/turns/{turn_id}/feedback", json={"rating": "helpful"}, headers=A
        )

    assert response.status_code == 409 and response.json()["error_type"] == "Conflict"
    assert "still running" in response.json()["detail"]


async def test_a_users_conversations_are_listed_latest_first_and_only_theirs(
    keyed: httpx.AsyncClient,
) -> None:
    user, other = unique("lister"), unique("other")
    first, second = unique("c"), unique("c")
    await ask(keyed, "What was BHP's revenue in FY2024?", user_id=user, conversation_id=first)
    await ask(
        keyed, "What was Fortescue's revenue in FY2024?", user_id=user, conversation_id=second
    )
    await ask(keyed, "And in FY2023?", user_id=user, conversation_id=first)
    await ask(keyed, "What was BHP's revenue in FY2023?", user_id=other)

    listed = await keyed.get("/v1/conversations", params={"user_id": user}, headers=A)

    assert listed.status_code == 200, listed.text
    items = listed.json()["items"]
    assert [i["conversation_id"] for i in items] == [first, second]
    assert items[0]["turns"] == 2 and items[0]["last_question"] == "And in FY2023?"
    assert items[0]["first_question"] == "What was BHP's revenue in FY2024?"
    assert items[0]["last_status"] == "answered"
    theirs = (await keyed.get("/v1/conversations", params={"user_id": user}, headers=B)).json()
    assert theirs["items"] == []  # another tenant's key sees none of them
    one = (await keyed.get(f"/v1/conversations/{first}", headers=A)).json()
    assert one["last_turn_id"] == f"turn-{first}-2" and one["turns"] == 2
    assert (await keyed.get(f"/v1/conversations/{first}", headers=B)).status_code == 404
    assert (await keyed.get("/v1/conversations/c-unknown", headers=A)).status_code == 404
