"""Facts about a user through the API: stated in a turn, applied to later answers,
versioned, listed, and erased everywhere (facts, summaries, cached answers)."""

from collections.abc import AsyncIterator

import httpx
import pytest

from settings import Settings
from tests.conftest import TurnWorker, client_for, unique

QUESTION = "What was BHP's revenue in FY2024?"


@pytest.fixture
async def cached(
    app_settings: Settings, turn_worker: TurnWorker
) -> AsyncIterator[httpx.AsyncClient]:
    """The API with the answer cache on (as shipped) and a worker."""
    on = app_settings.model_copy(update={"answer_cache": True})
    async with turn_worker(task_queue=on.task_queue), client_for(on) as client:
        yield client


async def ask(client: httpx.AsyncClient, question: str, user: str, **extra: str) -> dict:
    response = await client.post("/v1/turns", json={"question": question, "user_id": user, **extra})
    assert response.status_code == 200, response.text
    body: dict = response.json()
    return body


async def test_a_stated_preference_changes_later_answers_and_is_gone_everywhere_after_delete(
    cached: httpx.AsyncClient,
) -> None:
    user, other = unique("u"), unique("u")
    noted = await ask(cached, "Show me figures in billions from now on", user)
    assert noted["route"] == "remember" and "billions" in noted["answer"]

    mine = await ask(cached, QUESTION, user)
    assert mine["carried"]["preferences"] == ["figures in billions"]
    assert "billion" in mine["answer"] and "55,658" not in mine["answer"], mine["answer"]
    theirs = await ask(cached, QUESTION, other)
    assert "55,658" in theirs["answer"], "another user's preference never applies"
    assert theirs["cache"] == "miss", "an answer in billions is not one in millions"
    assert (await ask(cached, QUESTION, user))["cache"] == "hit"

    # A new value supersedes; the old one is kept with its end date.
    await ask(cached, "Actually, I prefer figures in millions", user)
    memory = (await cached.get(f"/v1/users/{user}/memory")).json()
    assert [(f["value"], f["valid_to"] is None) for f in memory["facts"]] == [
        ("bn", False),
        ("m", True),
    ]

    # Enough turns in one conversation to be summarised.
    conversation = None
    for _ in range(6):
        turn = await ask(
            cached, QUESTION, user, **({"conversation_id": conversation} if conversation else {})
        )
        conversation = turn["conversation_id"]
    last = await ask(cached, QUESTION, user, conversation_id=conversation)
    assert last["summarised"] == 8
    listed = (await cached.get(f"/v1/conversations/{conversation}/messages")).json()
    assert [m["summarised"] for m in listed] == [True] * 8 + [False] * 6
    assert (await cached.get(f"/v1/users/{user}/memory")).json()["summaries"] == 1

    # Another user asking the very question the first one's answer was stored under is
    # served it (same tenant): the control for the check after the erasure.
    stored_under = mine["resolved_question"]
    assert (await ask(cached, stored_under, other))["cache"] == "hit"

    erased = await cached.delete(f"/v1/users/{user}/memory")
    assert erased.status_code == 200, erased.text
    body = erased.json()
    assert body["status"] == "erased" and body["facts"] == 2 and body["summaries"] == 1
    assert body["cached_answers"] >= 1
    after = (await cached.get(f"/v1/users/{user}/memory")).json()
    assert after["facts"] == [] and after["summaries"] == 0
    # The erased summary's messages are not summarised again into a copy of it.
    next_turn = await ask(cached, QUESTION, user, conversation_id=conversation)
    assert next_turn["summarised"] == 0
    assert (await cached.get(f"/v1/users/{user}/memory")).json()["summaries"] == 0

    plain = await ask(cached, QUESTION, user)
    assert plain["carried"]["preferences"] == [] and "55,658" in plain["answer"]
    assert not plain["answer"].startswith("Shown as you asked"), "quiet without preferences"
    gone = await ask(cached, stored_under, other)
    assert gone["cache"] == "miss", "the erased user's cached answers are gone"
    again = await cached.delete(f"/v1/users/{user}/memory")
    assert again.json()["facts"] == 0, "idempotent"


async def test_a_request_to_remember_what_cannot_be_acted_on_gets_a_plain_answer(
    cached: httpx.AsyncClient,
) -> None:
    user = unique("u")
    answer = await ask(cached, "Remember that my favourite colour is blue", user)
    assert answer["status"] == "answered" and "have not stored" in answer["answer"]
    assert (await cached.get(f"/v1/users/{user}/memory")).json()["facts"] == []
    wrapped = await ask(cached, "I only follow iron-ore miners, so should I buy BHP shares?", user)
    assert wrapped["route"] != "remember", "advice wrapped around a statement is not stored"
    assert (await cached.get(f"/v1/users/{user}/memory")).json()["facts"] == []
    anonymous = await cached.post(
        "/v1/turns", json={"question": "Show me figures in billions from now on"}
    )
    assert "nothing was stored" in anonymous.json()["answer"]


async def test_cache_control_no_cache_answers_afresh(cached: httpx.AsyncClient) -> None:
    question = "What was Rio Tinto's underlying EBITDA in FY2023?"
    user = unique("u")
    first = await ask(cached, question, user)
    others = await ask(cached, question, unique("u"))
    assert others["cache"] == "hit" and others["cache_turn_id"] is None, "another's turn id"
    own = await ask(cached, question, user)
    assert own["cache"] == "hit" and own["cache_turn_id"] == first["turn_id"]
    fresh = await cached.post(
        "/v1/turns", json={"question": question}, headers={"Cache-Control": "no-cache"}
    )
    body = fresh.json()
    assert body["cache"] is None and body["route"] == "needs_retrieval"
    assert body["answer"] == first["answer"]
