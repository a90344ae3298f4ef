"""API keys, tenants and the per-user rate limit, over the real API, PostgreSQL, Temporal."""

import json

import httpx
import pytest
from pydantic import SecretStr

from settings import Settings
from tests.api.conftest import KEY_A, A, B
from tests.conftest import TurnWorker, client_for, unique


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer not-a-key"},
        {"X-API-Key": "turnstile-dev"},
        {"Authorization": f"Basic {KEY_A}"},
    ],
)
async def test_a_request_without_a_valid_key_is_401_with_the_error_shape(
    keyed_settings: Settings, headers: dict[str, str]
) -> None:
    async with client_for(keyed_settings) as client:
        calls = [
            ("POST", "/v1/turns"),
            ("GET", "/v1/turns/turn-x-1"),
            ("GET", "/v1/search?q=revenue"),
            ("GET", "/v1/audit/verify"),
        ]
        for method, path in calls:
            body = {"question": "BHP revenue FY2024"} if method == "POST" else None
            response = await client.request(method, path, json=body, headers=headers)
            assert response.status_code == 401, (path, response.text)
            assert response.json()["error_type"] == "Unauthorized"
            assert response.headers["WWW-Authenticate"] == "Bearer"
        health = await client.get("/healthz")
        assert health.json()["auth"] == "api_keys"  # health needs no key


async def test_tenant_b_cannot_see_or_touch_tenant_as_turns(keyed: httpx.AsyncClient) -> None:
    conversation = unique("c")
    answered = await keyed.post(
        "/v1/turns",
        json={"question": "What was BHP's revenue in FY2024?", "conversation_id": conversation},
        headers=A,
    )
    assert answered.status_code == 200 and answered.json()["status"] == "answered"
    turn_id = answered.json()["turn_id"]
    waiting = await keyed.post(
        "/v1/turns", json={"question": "Tell me about this company"}, headers=A
    )
    assert waiting.json()["status"] == "needs_clarification"
    waiting_id = waiting.json()["turn_id"]

    # Tenant A reads its own.
    assert (await keyed.get(f"/v1/turns/{turn_id}", headers=A)).status_code == 200
    assert (await keyed.get(f"/v1/turns/{turn_id}/audit", headers=A)).status_code == 200
    record = (await keyed.get(f"/v1/turns/{turn_id}/audit", headers=A)).json()["record"]
    assert record["tenant_id"].startswith("tenant-a")
    # Tenant B gets 404 for every one of them, exactly like an unknown id.
    paths = [
        f"/v1/turns/{turn_id}",
        f"/v1/turns/{turn_id}/audit",
        f"/v1/turns/{turn_id}/events",
        f"/v1/conversations/{conversation}/messages",
    ]
    for path in paths:
        response = await keyed.get(path, headers=B)
        assert response.status_code == 404, (path, response.text)
        assert response.json()["error_type"] == "NotFound"
    for action, body in [("clarification", {"reply": "BHP"}), ("cancel", None)]:
        response = await keyed.post(f"/v1/turns/{waiting_id}/{action}", json=body, headers=B)
        assert response.status_code == 404, response.text
    # B cannot write into A's conversation either.
    clash = await keyed.post(
        "/v1/turns",
        json={"question": "BHP net debt FY2024", "conversation_id": conversation},
        headers=B,
    )
    assert clash.status_code == 404 and clash.json()["error_type"] == "NotFound"
    messages = (await keyed.get(f"/v1/conversations/{conversation}/messages", headers=A)).json()
    assert len(messages) == 2
    # A's waiting turn is still A's to answer.
    reply = await keyed.post(
        f"/v1/turns/{waiting_id}/clarification", json={"reply": "Fortescue"}, headers=A
    )
    assert reply.status_code == 200 and reply.json()["status"] == "answered"


async def test_a_user_over_the_rate_limit_gets_429_with_retry_after(
    keyed_settings: Settings, turn_worker: TurnWorker
) -> None:
    settings = keyed_settings.model_copy(
        update={
            "rate_limit_burst": 2,
            "rate_limit_per_minute": 1.0,
            "operator_tenants": [keyed_settings.tenant_by_key[KEY_A]],
        }
    )
    user = unique("u")
    async with turn_worker(task_queue=settings.task_queue), client_for(settings) as client:
        for _ in range(2):
            ok = await client.post(
                "/v1/turns", json={"question": "Should I buy BHP?", "user_id": user}, headers=A
            )
            assert ok.status_code == 200, ok.text
        limited = await client.post(
            "/v1/turns", json={"question": "Should I buy BHP?", "user_id": user}, headers=A
        )
        assert limited.status_code == 429
        assert limited.json()["error_type"] == "RateLimited"
        assert 1 <= int(limited.headers["Retry-After"]) <= 60
        # Another user of the same tenant has a bucket of their own.
        other = await client.post(
            "/v1/turns",
            json={"question": "Should I buy BHP?", "user_id": unique("u")},
            headers=A,
        )
        assert other.status_code == 200
        metrics = (await client.get("/metrics", headers=A)).text  # an operator's key
        assert "turnstile_rate_limited_total{tenant=" in metrics


async def test_the_rate_limit_is_quiet_within_the_burst(
    keyed_settings: Settings, turn_worker: TurnWorker
) -> None:
    settings = keyed_settings.model_copy(update={"rate_limit_burst": 5})
    user = unique("u")
    async with turn_worker(task_queue=settings.task_queue), client_for(settings) as client:
        codes = [
            (
                await client.post(
                    "/v1/turns", json={"question": "Should I buy BHP?", "user_id": user}, headers=B
                )
            ).status_code
            for _ in range(5)
        ]
    assert codes == [200] * 5


async def test_development_mode_takes_a_request_without_a_key_as_the_dev_tenant(
    api_client: httpx.AsyncClient,
) -> None:
    health = await api_client.get("/healthz")
    assert health.json()["auth"] == "development"
    unknown = await api_client.get("/v1/turns/turn-x-1", headers={"X-API-Key": "wrong-key"})
    assert unknown.status_code == 401
    dev = await api_client.get("/v1/turns/turn-x-1", headers={"X-API-Key": "turnstile-dev"})
    anonymous = await api_client.get("/v1/turns/turn-x-1")
    assert dev.status_code == anonymous.status_code == 404


async def test_what_spans_every_tenant_needs_an_operators_key(keyed_settings: Settings) -> None:
    async with client_for(keyed_settings) as client:
        verify = await client.get("/v1/audit/verify", headers=A)
        ingest = await client.post("/v1/ingest", json={"paths": ["x.md"]}, headers=A)
    assert verify.status_code == ingest.status_code == 403
    assert verify.json()["error_type"] == "Forbidden"


async def test_new_user_ids_do_not_buy_a_key_more_than_its_own_bucket(
    keyed_settings: Settings, turn_worker: TurnWorker
) -> None:
    from api.auth import KEY_FACTOR

    # A bucket that refills once in ten minutes: the eleven turns take well under that on
    # a busy machine too (at one a minute, the key's bucket of ten gained a token every six
    # seconds, and a slow run of eleven turns bought a twelfth).
    settings = keyed_settings.model_copy(
        update={"rate_limit_burst": 1, "rate_limit_per_minute": 0.01}
    )
    async with turn_worker(task_queue=settings.task_queue), client_for(settings) as client:
        codes = [
            (
                await client.post(
                    "/v1/turns",
                    json={"question": "Should I buy BHP?", "user_id": unique("u")},
                    headers=B,
                )
            ).status_code
            for _ in range(KEY_FACTOR + 1)
        ]
    # Each user is within their own bucket of one; the key's bucket of ten runs out.
    assert codes == [200] * KEY_FACTOR + [429]


# ---- a reviewer's key (issue 45 item 10) ------------------------------------------------

KEY_R = "key-r-0123456789abcdef"
R = {"Authorization": f"Bearer {KEY_R}"}


async def test_a_reviewer_reads_records_across_users_as_tokens_and_writes_nothing(
    keyed_settings: Settings, turn_worker: TurnWorker
) -> None:
    tenant_a = keyed_settings.tenant_by_key[KEY_A]
    other = unique("tenant-c")
    reviewers = {KEY_R: tenant_a, "key-s-0123456789abcdef": other}
    settings = keyed_settings.model_copy(update={"reviewer_keys": SecretStr(json.dumps(reviewers))})
    async with turn_worker(task_queue=settings.task_queue), client_for(settings) as client:
        turns = []
        for user in (unique("u-ann"), unique("u-bo")):
            asked = await client.post(
                "/v1/turns",
                json={
                    "question": "Call me on 0412 345 678: BHP's revenue in FY2024?",
                    "user_id": user,
                },
                headers=A,
            )
            assert asked.json()["status"] == "answered", asked.json()
            turns.append({**asked.json(), "user": user})
        # Reads across both users: each turn, its record, its conversation.
        for turn in turns:
            record = await client.get(f"/v1/turns/{turn['turn_id']}/audit", headers=R)
            assert record.status_code == 200, record.text
            assert record.json()["turn_id"] == turn["turn_id"]
            shown = await client.get(f"/v1/turns/{turn['turn_id']}", headers=R)
            assert shown.status_code == 200
            assert "0412" not in shown.text and "⟦phone:" in shown.json()["question"]
            # The user's own caller key is shown the value back, as before.
            own = await client.get(
                f"/v1/turns/{turn['turn_id']}", params={"user_id": turn["user"]}, headers=A
            )
            assert own.status_code == 200 and "0412 345 678" in own.json()["question"]
        # Writes nothing, whatever the route: 403 with the error shape, nothing stored.
        first = turns[0]
        writes = [
            ("POST", "/v1/turns", {"question": "BHP net debt FY2024?"}),
            ("POST", f"/v1/turns/{first['turn_id']}/feedback", {"rating": "down"}),
            ("POST", f"/v1/turns/{first['turn_id']}/cancel", None),
            ("DELETE", f"/v1/conversations/{first['conversation_id']}", None),
            ("DELETE", "/v1/users/u-ann/memory", None),
            ("POST", f"/v1/turns/{first['turn_id']}/share", None),
        ]
        for method, path, body in writes:
            response = await client.request(method, path, json=body, headers=R)
            assert response.status_code == 403, (path, response.text)
            assert response.json()["error_type"] == "Forbidden"
        assert (await client.get(f"/v1/turns/{first['turn_id']}/audit", headers=R)).json()[
            "feedback"
        ] == []
        # Another tenant's reviewer sees none of it.
        other_key = {"X-API-Key": "key-s-0123456789abcdef"}
        hidden = await client.get(f"/v1/turns/{first['turn_id']}/audit", headers=other_key)
        assert hidden.status_code == 404


def test_a_key_may_not_be_both_a_callers_and_a_reviewers(keyed_settings: Settings) -> None:
    with pytest.raises(ValueError, match="REVIEWER_KEYS"):
        Settings.model_validate(
            {
                **keyed_settings.model_dump(),
                "api_keys": keyed_settings.api_keys,
                "reviewer_keys": SecretStr(json.dumps({KEY_A: "x"})),
            }
        )


def test_a_reviewers_key_needs_keys_for_the_callers_too(keyed_settings: Settings) -> None:
    """In development mode a request without a key may write: a read-only key there
    would protect nothing."""
    with pytest.raises(ValueError, match="REVIEWER_KEYS needs"):
        Settings.model_validate(
            {
                **keyed_settings.model_dump(),
                "api_keys": None,
                "reviewer_keys": SecretStr(json.dumps({KEY_R: "x"})),
            }
        )
