"""What Temporal stores of our payloads: JSON by default, AES-GCM encrypted on request.

With `TURNSTILE_PAYLOAD_KEY` set, every payload the API and the worker hand to Temporal
(workflow and activity inputs and results, signals, updates, queries, memos, failure
details) is encrypted before it leaves the process, so Temporal's database and its UI
hold ciphertext. An operator whose API key belongs to a tenant in
`TURNSTILE_OPERATOR_TENANTS` reads them in the Temporal UI through the API's codec
endpoint (`/codec/decode`, Temporal's codec-server protocol). Search attributes are not
payloads and are never encrypted: they hold ids and decisions only.

A payload that is not encrypted (written before the key was set) decodes as it is, so
turns in flight survive switching encryption on; one encrypted under another key is an
error naming the key id, never garbage.
"""

import base64
import dataclasses
import hashlib
import json
import os
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from google.protobuf.message import DecodeError
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DataConverter, PayloadCodec

from settings import Settings

ENCODING = b"binary/encrypted"
_NONCE = 12


def key_id(key: bytes) -> str:
    """A short, non-secret name for a key (which key encrypted a payload)."""
    return hashlib.sha256(b"turnstile-payload-key\x00" + key).hexdigest()[:12]


class EncryptingCodec(PayloadCodec):
    """AES-256-GCM over each whole payload (metadata included), one random nonce each."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("the payload key must be 32 bytes")
        self._aead = AESGCM(key)
        self.key_id = key_id(key)

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        out = []
        for payload in payloads:
            nonce = os.urandom(_NONCE)
            sealed = self._aead.encrypt(nonce, payload.SerializeToString(), None)
            out.append(
                Payload(
                    metadata={"encoding": ENCODING, "encryption-key-id": self.key_id.encode()},
                    data=nonce + sealed,
                )
            )
        return out

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        out = []
        for payload in payloads:
            if payload.metadata.get("encoding") != ENCODING:
                out.append(payload)  # written before encryption was switched on
                continue
            written_with = payload.metadata.get("encryption-key-id", b"").decode()
            if written_with != self.key_id:
                raise ValueError(f"payload encrypted with key {written_with}, not {self.key_id}")
            try:
                plain = self._aead.decrypt(payload.data[:_NONCE], payload.data[_NONCE:], None)
            except InvalidTag:
                raise ValueError("payload failed authentication: altered or wrong key") from None
            out.append(Payload.FromString(plain))
        return out


def payload_key(settings: Settings) -> bytes | None:
    if settings.payload_key is None:
        return None
    return base64.b64decode(settings.payload_key.get_secret_value())


def data_converter(settings: Settings) -> DataConverter:
    """The converter every client of ours uses: pydantic JSON, encrypted when configured."""
    key = payload_key(settings)
    if key is None:
        return pydantic_data_converter
    return dataclasses.replace(pydantic_data_converter, payload_codec=EncryptingCodec(key))


_STREAM_ITEM = {"topic", "data", "offset"}
_POLL_RESULT = {"items", "next_offset", "more_ready"}


def _item_value(wire: object) -> object:
    """A stream item's `data` (base64 of a serialized Payload) as the JSON it holds, or
    as it is when it is anything else."""
    if not isinstance(wire, str):
        return wire
    try:
        inner = Payload.FromString(base64.b64decode(wire, validate=True))
        if inner.metadata.get("encoding") != b"json/plain":
            return wire
        return json.loads(inner.data)
    except (ValueError, DecodeError):
        return wire


def readable(payload: Payload) -> Payload:
    """The payload as an operator should read it in the Temporal UI.

    A turn's progress reaches its watchers as the results of the workflow stream's poll
    updates (`temporalio.contrib.workflow_streams`). The library writes each item of a
    result as base64 of a serialized Payload, because its JSON converter cannot nest a
    Payload in a dataclass: in the UI every progress line was an opaque base64 string.
    Here each such item's `data` is replaced by the JSON it holds (the TurnEvent), for
    display; every other payload comes back unchanged. Display only: nothing decoded here
    is ever handed back to a workflow (the codec's `/encode` does not undo it).
    """
    if payload.metadata.get("encoding") != b"json/plain":
        return payload
    try:
        body = json.loads(payload.data)
    except ValueError:
        return payload
    if not (isinstance(body, dict) and set(body) == _POLL_RESULT):
        return payload
    items = body["items"]
    if not (
        isinstance(items, list)
        and all(isinstance(i, dict) and set(i) == _STREAM_ITEM for i in items)
    ):
        return payload
    shown = [{**item, "data": _item_value(item["data"])} for item in items]
    if shown == items:
        return payload
    return Payload(
        metadata=dict(payload.metadata), data=json.dumps({**body, "items": shown}).encode()
    )
