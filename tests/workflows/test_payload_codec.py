"""The optional encrypting payload codec: Temporal holds ciphertext, the API's codec
endpoint decrypts for operators only, unencrypted payloads still decode."""

import base64
import json
import os

import pytest
from psycopg_pool import AsyncConnectionPool
from pydantic import SecretStr
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Worker

import payloads
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from payloads import EncryptingCodec
from settings import Settings
from tests.conftest import Turns, client_for, unique
from workflows.chat_turn import ChatTurn
from workflows.contracts import TurnEvent

KEY = os.urandom(32)
QUESTION = "What was BHP's revenue in FY2024?"


async def test_the_codec_round_trips_and_refuses_another_key_or_tampering() -> None:
    codec = EncryptingCodec(KEY)
    plain = Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(QUESTION).encode())
    [sealed] = await codec.encode([plain])
    assert sealed.metadata["encoding"] == payloads.ENCODING and b"BHP" not in sealed.data
    assert await codec.decode([sealed]) == [plain]
    assert await codec.decode([plain]) == [plain]  # written before encryption: as it is
    with pytest.raises(ValueError, match="encrypted with key"):
        await EncryptingCodec(os.urandom(32)).decode([sealed])
    tampered = Payload(metadata=sealed.metadata, data=sealed.data[:-1] + b"\x00")
    with pytest.raises(ValueError, match="altered"):
        await codec.decode([tampered])


def test_a_progress_poll_result_reads_as_its_events_and_nothing_else_changes() -> None:
    """`payloads.readable`: the stream's wire items (base64 of a serialized payload) are
    written out as the JSON they hold; any other payload is left exactly as it was."""
    converter = pydantic_data_converter.payload_converter
    event = TurnEvent(kind="step", text="Reading the question", step="llm_route_question")
    inner = converter.to_payloads([event])[0]
    wire = base64.b64encode(inner.SerializeToString()).decode()
    poll = Payload(
        metadata={"encoding": b"json/plain"},
        data=json.dumps(
            {
                "items": [{"topic": "progress", "data": wire, "offset": 0}],
                "next_offset": 1,
                "more_ready": False,
            }
        ).encode(),
    )
    shown = json.loads(payloads.readable(poll).data)
    assert shown["items"][0]["data"] == event.model_dump(mode="json")
    assert shown["next_offset"] == 1 and "Reading the question" not in poll.data.decode()
    plain = Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(QUESTION).encode())
    look_alike = Payload(
        metadata={"encoding": b"json/plain"},
        data=json.dumps(
            {
                "items": [{"topic": "t", "data": "not base64!", "offset": 0}],
                "next_offset": 1,
                "more_ready": False,
            }
        ).encode(),
    )
    binary = Payload(metadata={"encoding": b"binary/plain"}, data=b"\x00\x01")
    for unchanged in (plain, look_alike, binary):
        assert payloads.readable(unchanged) == unchanged


def test_a_key_that_is_not_32_bytes_of_base64_is_refused_at_start_up() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        Settings(payload_key=base64.b64encode(b"short").decode())


async def test_an_encrypted_turn_is_ciphertext_in_temporal_and_operators_decode_it(
    settings: Settings,
    app_settings: Settings,
    temporal_client: Client,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
) -> None:
    import worker as registry

    keyed = app_settings.model_copy(
        update={"payload_key": SecretStr(base64.b64encode(KEY).decode())}
    )
    client = Client(
        temporal_client.service_client,
        namespace=temporal_client.namespace,
        data_converter=payloads.data_converter(keyed),
    )
    queue = unique("tq")
    async with Worker(
        client,
        task_queue=queue,
        workflows=[ChatTurn],
        activities=registry.activities(report_index, pool, OfflineEngine()),
    ):
        result = await Turns(client, pool, queue).ask(QUESTION)
    assert result.status == "answered"
    events = [
        e async for e in temporal_client.get_workflow_handle(result.turn_id).fetch_history_events()
    ]
    raw = b"".join(e.SerializeToString() for e in events)
    assert b"BHP's revenue" not in raw and b"55,658" not in raw
    started = next(
        e for e in events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED
    )
    sealed = started.workflow_execution_started_event_attributes.input.payloads[0]
    body = {
        "payloads": [
            {
                "metadata": {k: base64.b64encode(v).decode() for k, v in sealed.metadata.items()},
                "data": base64.b64encode(sealed.data).decode(),
            }
        ]
    }
    async with client_for(keyed) as api:  # development mode: the default tenant operates
        decoded = await api.post("/codec/decode", json=body)
        assert decoded.status_code == 200, decoded.text
        data = base64.b64decode(decoded.json()["payloads"][0]["data"])
        assert QUESTION.encode() in data.replace(b"\\u2019", b"'")
        # The UI calls it from its own origin.
        preflight = await api.options(
            "/codec/decode",
            headers={
                "Origin": f"http://127.0.0.1:{keyed.temporal_ui_port}",
                "Access-Control-Request-Method": "POST",
            },
        )
        assert preflight.status_code == 200
    tenants = json.dumps({"key-a-0123456789abcdef": "acme"})
    customer = keyed.model_copy(update={"api_keys": SecretStr(tenants)})
    async with client_for(customer) as api:
        refused = await api.post(
            "/codec/decode", json=body, headers={"X-API-Key": "key-a-0123456789abcdef"}
        )
        assert refused.status_code == 403 and refused.json()["error_type"] == "Forbidden"
    async with client_for(app_settings) as api:  # no key: nothing decrypted, nothing broken
        as_is = await api.post("/codec/decode", json=body)
        assert as_is.status_code == 200 and as_is.json() == body


def test_without_a_key_the_converter_is_plain_json(settings: Settings) -> None:
    assert settings.payload_key is None
    assert payloads.data_converter(settings).payload_codec is None
