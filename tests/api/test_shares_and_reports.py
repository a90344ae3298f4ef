"""The routes behind the page's everyday features, over the real API, PostgreSQL and
Temporal: a share link reads one turn without a key until its owner revokes it (then
404); another tenant can neither share, revoke nor read through a turn's own routes; a
conversation is deleted with its turns, messages, feedback and share links (another
tenant's is 404); the report view opens a cited report at the cited page with the cited
row; every refusal is the JSON error shape."""

import httpx
from psycopg_pool import AsyncConnectionPool

from tests.api.conftest import A, B
from tests.conftest import unique

SINGLE = "What was BHP's revenue in FY2024?"


async def ask(client: httpx.AsyncClient, question: str, **body: str) -> dict[str, object]:
    response = await client.post("/v1/turns", json={"question": question, **body}, headers=A)
    assert response.status_code == 200, response.text
    turn: dict[str, object] = response.json()
    return turn


def error(response: httpx.Response, status: int, kind: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error_type"] == kind, response.json()


async def test_a_share_link_reads_the_turn_without_a_key_until_revoked(
    keyed: httpx.AsyncClient,
) -> None:
    turn = await ask(keyed, SINGLE, user_id=unique("sharer"))
    turn_id = str(turn["turn_id"])

    made = await keyed.post(f"/v1/turns/{turn_id}/share", headers=A)
    assert made.status_code == 201, made.text
    share = made.json()
    assert share["turn_id"] == turn_id and share["path"] == f"/?share={share['share_id']}"
    assert len(share["share_id"]) >= 32, "an unguessable token, not a counter"
    again = (await keyed.post(f"/v1/turns/{turn_id}/share", headers=A)).json()
    assert again["share_id"] != share["share_id"]

    read = await keyed.get(f"/v1/shares/{share['share_id']}")  # no key at all
    assert read.status_code == 200, read.text
    shown = read.json()
    assert shown["question"] == SINGLE and "55,658" in shown["answer"]
    assert shown["status_text"] == "Answered" and shown["citations"][0]["page"] == 4
    assert not {"turn_id", "model_trace", "documents", "conversation_id"} & set(shown)
    assert "chunk_id" not in shown["citations"][0]

    # Another tenant can neither share this turn nor revoke the link.
    error(await keyed.post(f"/v1/turns/{turn_id}/share", headers=B), 404, "NotFound")
    error(await keyed.delete(f"/v1/shares/{share['share_id']}", headers=B), 404, "NotFound")
    assert (await keyed.get(f"/v1/shares/{share['share_id']}")).status_code == 200
    # Revoking needs a key; the owner's revokes it, and it reads as never made.
    assert (await keyed.delete(f"/v1/shares/{share['share_id']}")).status_code == 401
    assert (await keyed.delete(f"/v1/shares/{share['share_id']}", headers=A)).status_code == 204
    error(await keyed.get(f"/v1/shares/{share['share_id']}"), 404, "NotFound")
    error(await keyed.delete(f"/v1/shares/{share['share_id']}", headers=A), 404, "NotFound")
    assert (await keyed.get(f"/v1/shares/{again['share_id']}")).status_code == 200
    error(await keyed.get("/v1/shares/not-a-share-at-all"), 404, "NotFound")
    error(await keyed.post("/v1/turns/turn-nope-1/share", headers=A), 404, "NotFound")


async def test_a_waiting_turn_cannot_be_shared_nor_its_conversation_deleted(
    keyed: httpx.AsyncClient,
) -> None:
    waiting = await ask(keyed, "What was their revenue?")
    assert waiting["status"] == "needs_clarification"
    error(await keyed.post(f"/v1/turns/{waiting['turn_id']}/share", headers=A), 409, "Conflict")
    deleted = await keyed.delete(f"/v1/conversations/{waiting['conversation_id']}", headers=A)
    error(deleted, 409, "Conflict")


async def test_deleting_a_conversation_takes_its_turns_feedback_and_links(
    keyed: httpx.AsyncClient, pool: AsyncConnectionPool
) -> None:
    user = unique("deleter")
    turn = await ask(keyed, SINGLE, user_id=user)
    conversation, turn_id = str(turn["conversation_id"]), str(turn["turn_id"])
    rated = await keyed.post(f"/v1/turns/{turn_id}/feedback", json={"rating": "helpful"}, headers=A)
    assert rated.status_code == 201
    share = (await keyed.post(f"/v1/turns/{turn_id}/share", headers=A)).json()["share_id"]
    listed = (await keyed.get("/v1/conversations", params={"user_id": user}, headers=A)).json()
    assert [c["conversation_id"] for c in listed["items"]] == [conversation]

    error(await keyed.delete(f"/v1/conversations/{conversation}", headers=B), 404, "NotFound")
    assert (await keyed.get(f"/v1/turns/{turn_id}", headers=A)).status_code == 200

    assert (await keyed.delete(f"/v1/conversations/{conversation}", headers=A)).status_code == 204
    error(await keyed.get(f"/v1/turns/{turn_id}", headers=A), 404, "NotFound")
    error(await keyed.get(f"/v1/conversations/{conversation}/messages", headers=A), 404, "NotFound")
    error(await keyed.get(f"/v1/shares/{share}"), 404, "NotFound")
    listed = (await keyed.get("/v1/conversations", params={"user_id": user}, headers=A)).json()
    assert listed["items"] == []
    async with pool.connection() as conn:
        left = await (
            await conn.execute(
                "SELECT (SELECT count(*) FROM feedback WHERE turn_id = %s),"
                " (SELECT count(*) FROM messages WHERE conversation_id = %s)",
                (turn_id, conversation),
            )
        ).fetchone()
    assert left == (0, 0)
    error(await keyed.delete(f"/v1/conversations/{conversation}", headers=A), 404, "NotFound")


async def test_the_report_view_opens_the_cited_report_at_its_page(
    keyed: httpx.AsyncClient,
) -> None:
    turn = await ask(keyed, SINGLE)
    turn_id = str(turn["turn_id"])

    view = await keyed.get(f"/v1/turns/{turn_id}/report?n=1", headers=A)
    assert view.status_code == 200, view.text
    report = view.json()
    assert (report["company"], report["fiscal_year"], report["page"]) == ("BHP", 2024, 4)
    assert [p["page"] for p in report["pages"]] == list(range(1, len(report["pages"]) + 1))
    page = next(p for p in report["pages"] if p["page"] == 4)["text"].splitlines()
    [row] = report["cited_lines"]
    assert "Revenue" in page[row] and "55,658" in page[row]
    assert not any("<!-- page" in p["text"] for p in report["pages"])

    error(await keyed.get(f"/v1/turns/{turn_id}/report?n=1", headers=B), 404, "NotFound")
    error(await keyed.get(f"/v1/turns/{turn_id}/report?n=9", headers=A), 404, "NotFound")
    error(await keyed.get(f"/v1/turns/{turn_id}/report?n=0", headers=A), 422, "InvalidInput")


async def test_the_companies_held_are_listed_with_their_names_for_a_caller_with_a_key(
    keyed: httpx.AsyncClient,
) -> None:
    """The page names companies from this list (it keeps none of its own)."""
    listed = await keyed.get("/v1/companies", headers=A)
    assert listed.status_code == 200, listed.text
    names = {c["ticker"]: c["name"] for c in listed.json()}
    assert names["RIO"] == "Rio Tinto" and names["FMG"] == "Fortescue", names
    rio = next(c for c in listed.json() if c["ticker"] == "RIO")
    assert rio["year_end"] == "12-31" and 2024 in rio["fiscal_years"]
    # Firing: without a key, as every other read.
    refused = await keyed.get("/v1/companies")
    assert refused.status_code == 401 and refused.json()["error_type"], refused.text
